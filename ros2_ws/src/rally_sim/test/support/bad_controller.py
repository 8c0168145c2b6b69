"""
A deliberately broken path follower (steering sign flipped), as a user's executable.

Run by scenarios/test_runner.py through a scenario's controller.command; it must make
its scenario fail.
"""

import sys

from rally_sim.ros.controllers.path_follower_node import PathFollower
from rally_sim.ros.spinning import spin_until_shutdown
import rclpy


class FlippedFollower(PathFollower):
    """Publishes the path follower's commands with the steering reversed."""

    def _on_odom(self, msg):
        original = self.publisher.publish

        def flipped(command):
            command.drive.steering_angle = -command.drive.steering_angle
            original(command)
        self.publisher.publish = flipped
        try:
            super()._on_odom(msg)
        finally:
            self.publisher.publish = original


def main() -> int:
    """Run until interrupted."""
    rclpy.init(args=sys.argv)
    spin_until_shutdown(FlippedFollower())
    return 0


if __name__ == '__main__':
    sys.exit(main())
