"""
A path follower that misbehaves after a while, as a user's executable.

    misbehaving_controller.py wrong_stamp|die|reverse AFTER_S

Answers correctly until simulated time AFTER_S, then either stamps its
commands one second late (wrong_stamp), exits (die) or drives backwards
(reverse: speed -4 m/s, wheels straight; the car moving backwards is a spin).
Run by scenarios/test_runner.py; the scenario runner must fail, naming what
happened.
"""

import sys

from ackermann_msgs.msg import AckermannDriveStamped
from rally_sim.ros.controllers.path_follower_node import PathFollower
from rally_sim.ros.spinning import spin_until_shutdown
import rclpy


class Misbehaving(PathFollower):
    """The path follower, until `after_s`."""

    def __init__(self, mode: str, after_s: float):
        """Follow the path; misbehave in `mode` from `after_s`."""
        super().__init__()
        self.mode, self.after_s = mode, after_s

    def _on_odom(self, msg):
        if msg.header.stamp.sec + msg.header.stamp.nanosec / 1e9 < self.after_s:
            super()._on_odom(msg)
        elif self.mode == 'reverse':
            command = AckermannDriveStamped()
            command.header.stamp = msg.header.stamp
            command.header.frame_id = msg.child_frame_id
            command.drive.speed = -4.0
            self.answers.publish(self.publisher, command)
        elif self.mode == 'die':
            print('error: the controller gives up here', file=sys.stderr, flush=True)
            sys.exit(3)
        else:
            msg.header.stamp.sec += 1
            super()._on_odom(msg)


def main() -> int:
    """Run until interrupted."""
    args = rclpy.utilities.remove_ros_args(sys.argv)
    rclpy.init(args=sys.argv)
    spin_until_shutdown(Misbehaving(args[1], float(args[2])))
    return 0


if __name__ == '__main__':
    sys.exit(main())
