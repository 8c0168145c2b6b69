"""
The state of a controller that needs the wheels too: `odom` and `wheel_slip` of one stamp.

The simulator publishes both for every state (wheel_slip of a late odometry's instant is
sent again with it), in no fixed order between the two topics; a controller answers once
it has both of a stamp, whichever came last, so its answers do not depend on the order.
"""

from typing import Callable, Dict

from nav_msgs.msg import Odometry
from rally_sim_msgs.msg import WheelSlip
from rclpy.node import Node

from .answers import Answers
from .odometry import stamp_ns


class OdometryWithWheels:
    """Subscribes to odom and wheel_slip on a node; calls answer(odom, slip) once per stamp."""

    def __init__(self, node: Node, answers: Answers,
                 answer: Callable[[Odometry, WheelSlip], None]):
        """Subscribe; `answers` tells an odometry sent again (already answered) apart."""
        self.answers, self.answer = answers, answer
        self.odom: Dict[int, Odometry] = {}
        self.slip: Dict[int, WheelSlip] = {}
        node.create_subscription(Odometry, 'odom', self._on_odom, 10)
        node.create_subscription(WheelSlip, 'wheel_slip', self._on_slip, 10)

    def _on_odom(self, msg: Odometry) -> None:
        if self.answers.repeated(msg):
            return
        self.odom[stamp_ns(msg)] = msg
        self._pair(stamp_ns(msg))

    def _on_slip(self, msg: WheelSlip) -> None:
        self.slip[stamp_ns(msg)] = msg
        self._pair(stamp_ns(msg))

    def _pair(self, stamp: int) -> None:
        """Answer the state of `stamp` once both of its messages are here; drop older ones."""
        if stamp not in self.odom or stamp not in self.slip:
            return
        odom, slip = self.odom.pop(stamp), self.slip.pop(stamp)
        for kept in (self.odom, self.slip):
            for old in [s for s in kept if s < stamp]:
                del kept[old]
        self.answer(odom, slip)
