"""
The simulator node's outputs: its publishers, and the state published on them.

Each output is serialized in place (conversions.OutputMessages) and only
for the topics somebody subscribes to; the graph is asked at most every
SUBSCRIBERS_S. Everything is stamped with simulated time.
"""

import math
import time
from typing import List

from nav_msgs.msg import Odometry
from rally_sim_msgs.msg import DrivetrainState, WheelSlip
from rclpy.duration import Duration
from rclpy.event_handler import PublisherEventCallbacks
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import Imu, JointState
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray

from . import conversions
from ..physics import Vehicle

OUTPUT_DEPTH = 1000
"""History of each output publisher: a subscriber that falls this many messages behind (a
busy recorder, a burst of step()) still gets every one, retransmitted (10 s at 100 Hz)."""
SUBSCRIBERS_S = 0.1
"""Outputs nobody subscribes to are not built; the graph is asked this often [wall s]."""


class Outputs:
    """The publishers of one simulated car and what goes on them."""

    def __init__(self, node: Node, vehicle: Vehicle, frames: conversions.Frames,
                 publish_clock: bool):
        """Create the publishers on `node` and publish the static transforms."""
        self.vehicle = vehicle
        self.messages = conversions.OutputMessages(vehicle, frames)
        # No QoS event handlers on the publishers (subscribers report incompatible QoS
        # themselves): each handler is one more entity in every executor wait.
        quiet = PublisherEventCallbacks(use_default_callbacks=False)

        def output(kind, topic, qos=OUTPUT_DEPTH):
            return node.create_publisher(kind, topic, qos, event_callbacks=quiet)
        self.odom = output(Odometry, 'odom')
        self.clock = output(ClockMsg, '/clock') if publish_clock else None
        tf_static = output(TFMessage, '/tf_static', QoSProfile(
            depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        m = self.messages
        self.outputs = [  # (publisher, message maker, only with markers)
            (self.odom, m.odometry, False),
            (output(TFMessage, '/tf'), m.transforms, False),
            (output(WheelSlip, 'wheel_slip'), m.wheel_slip, False),
            (output(JointState, 'joint_states'), m.joint_states, False),
            (output(Imu, 'imu'), m.imu, False),
            (output(MarkerArray, 'markers'), m.markers, True)]
        if vehicle.has_drivetrain:
            self.outputs.append((output(DrivetrainState, 'drivetrain_state'),
                                 m.drivetrain_state, False))
        self.static = [tf_static]
        tf_static.publish(conversions.static_transforms(
            vehicle, conversions.stamp(0), frames.base, frames.imu))
        self._asked_at = -math.inf
        self._subscribed: List[bool] = []
        self._clock_subscribed = False

    def publishers(self) -> list:
        """Return every publisher of the state (and /clock), as the start gate checks them."""
        return [p for p, _, _ in self.outputs] + ([self.clock] if self.clock else [])

    def ask_again(self) -> None:
        """Have the next publish ask the graph who subscribes (a newcomer is served)."""
        self._asked_at = -math.inf

    def _refresh_subscribed(self) -> None:
        """Ask the graph which outputs have subscribers, at most every SUBSCRIBERS_S."""
        now = time.monotonic()
        if now - self._asked_at >= SUBSCRIBERS_S:
            self._asked_at = now
            self._subscribed = [p.get_subscription_count() > 0 for p, _, _ in self.outputs]
            self._clock_subscribed = (self.clock is not None
                                      and self.clock.get_subscription_count() > 0)

    def publish(self, now_ns: int, markers: bool) -> None:
        """Publish the state at simulated time now_ns on every output somebody subscribes to."""
        self._refresh_subscribed()
        if self._clock_subscribed:
            self.clock.publish(self.messages.clock(now_ns))
        for (publisher, make, marker), wanted in zip(self.outputs, self._subscribed):
            if wanted and (markers or not marker):
                publisher.publish(make(now_ns))

    def flush(self, timeout_s: float) -> None:
        """Wait until every subscriber has what was published, at most timeout_s."""
        deadline = time.monotonic() + timeout_s
        for publisher in self.publishers():
            left = max(0.0, deadline - time.monotonic())
            publisher.wait_for_all_acked(Duration(seconds=left))
