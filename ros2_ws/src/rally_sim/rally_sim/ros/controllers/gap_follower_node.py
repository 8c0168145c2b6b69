"""
Example gap follower: follow-the-gap on the lidar's scan alone, commanding steering and speed.

A separate ROS 2 node, talking to the simulator only over topics, written to
be copied: it reads no odometry, no map and no clock. Run the simulator in
speed mode with a sensor profile that has a lidar (`sensors: f1tenth`). It
answers every `scan` message with one `ackermann_cmd` stamped with the
scan's stamp (so in synchronous mode, with the scan measured at the
publishing instants, it answers each state). The law is control/gap_follow.py.
"""

from ackermann_msgs.msg import AckermannDriveStamped
from rclpy.node import Node
from sensor_msgs.msg import LaserScan

from .answers import Answers
from .odometry import stamp_ns
from ..command_messages import message_of
from ..parameters import declare
from ...control.interface import Scan
from ...control.laws.gap_follower import GapFollowerLaw, SPECS


def prepare() -> None:
    """Load (or compile) the law's kernels before ROS starts: the first answer is not late."""
    from ...control import gap_kernels
    gap_kernels.prepare()


class GapFollower(Node):
    """Follow-the-gap over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, subscribe to scan and publish ackermann_cmd."""
        super().__init__('gap_follower', **kwargs)
        p = declare(self, SPECS)
        self.law = GapFollowerLaw(p)
        self.publisher = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.answers = Answers()
        self.create_subscription(LaserScan, 'scan', self._on_scan, 10)
        self.get_logger().info(f"following the gap at up to {p['speed_max_m_s']:g} m/s")

    def _on_scan(self, msg: LaserScan) -> None:
        if self.answers.repeated(msg):
            return
        scan = Scan(msg.angle_min, msg.angle_increment, msg.range_min, msg.range_max,
                    msg.ranges)
        for command in self.law.answer(stamp_ns(msg), scan):
            self.answers.publish(self.publisher, message_of(command, msg.header.stamp))
