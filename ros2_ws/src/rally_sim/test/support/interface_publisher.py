"""
Publish the known samples of support.interface_samples until interrupted.

Run as a separate process by test_interfaces.py, so that the messages cross
the real DDS middleware between two processes.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rally_sim.ros.spinning import spin_until_shutdown  # noqa: E402
import rclpy  # noqa: E402

from support.interface_samples import SAMPLES, TOPICS  # noqa: E402


def main() -> None:
    """Publish every sample at 20 Hz until SIGINT."""
    rclpy.init()
    node = rclpy.create_node('interface_publisher')
    publishers = {topic: node.create_publisher(msg_type, topic, 10)
                  for topic, msg_type in TOPICS.items()}

    def publish_all() -> None:
        for topic, publisher in publishers.items():
            publisher.publish(SAMPLES[topic]())

    node.create_timer(0.05, publish_all)
    spin_until_shutdown(node)


if __name__ == '__main__':
    main()
