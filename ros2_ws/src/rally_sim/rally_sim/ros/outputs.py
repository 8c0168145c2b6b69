"""
The simulator node's outputs: its publishers, the state and the sensors' measurements.

Once, latched: the car's footprint (its outline in base_link, the one its
contacts use, as Nav2's costmaps take it) and the static frames. At each
publishing instant the node publishes the truth: /clock, the wheel
frames on /tf (with odom -> base_link when it carries the truth),
odom -> base_link_ground_truth, ground_truth/odom, wheel_slip, joint_states,
markers, trail (trail.py) and drivetrain_state. The sensors' measurements (odom, imu,
wheel_encoders, steering_angle, gnss/fix, scan, and odom -> base_link from
the odometry when tf_source is measured) go out when they are delivered,
stamped when they were measured. Each message is serialized in place and
built only for topics somebody subscribes to; the graph is asked at most
every SUBSCRIBERS_S.
"""

import math
import time
from typing import Dict, Iterable, List, Optional

from geometry_msgs.msg import PolygonStamped
from nav_msgs.msg import Odometry
from rally_sim_msgs.msg import DrivetrainState, WheelSlip
from rclpy.duration import Duration
from rclpy.event_handler import PublisherEventCallbacks
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import Imu, JointState, LaserScan, NavSatFix
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import Marker, MarkerArray

from . import conversions
from .measurements import MeasurementMessages
from .trail import Trail
from ..physics import Vehicle
from ..sensors import Measurement, Sensors
from ..world.scene import footprint_of

OUTPUT_DEPTH = 1000
"""History of each output publisher: a subscriber that falls this many messages behind (a
busy recorder, a burst of step()) still gets every one, retransmitted (10 s at 100 Hz)."""
KEPT_SLIP_NS = 2_000_000_000
"""How long wheel_slip messages are kept for late odometry (longer than any sensor delay)."""
SUBSCRIBERS_S = 0.1
"""Outputs nobody subscribes to are not built; the graph is asked this often [wall s]."""
SENSOR_TOPICS = {'odometry': ('odom', Odometry), 'imu': ('imu', Imu),
                 'wheel_speeds': ('wheel_encoders', JointState),
                 'steering': ('steering_angle', JointState), 'gnss': ('gnss/fix', NavSatFix),
                 'lidar': ('scan', LaserScan)}
"""Each sensor channel's topic and message type."""


class Outputs:
    """The publishers of one simulated car and what goes on them."""

    def __init__(self, node: Node, vehicle: Vehicle, frames: conversions.Frames,
                 publish_clock: bool, sensors: Sensors, tf_source: str,
                 trail: Optional[Trail] = None, namespace: str = ''):
        """
        Create the publishers on `node` and publish the static transforms.

        namespace: 'NAME/' puts the car's relative topics under NAME (a car of several).
        """
        self.vehicle = vehicle
        self.sensors = sensors
        in_step = 'odometry' in sensors.with_outputs      # measured odometry is the truth
        self.pose_in_tf = tf_source == 'truth' or (tf_source == 'measured' and in_step)
        self.pose_from_odometry = tf_source == 'measured' and not in_step
        self.messages = conversions.OutputMessages(vehicle, frames, self.pose_in_tf)
        self.measured = MeasurementMessages(vehicle, frames)
        # No QoS event handlers on the publishers (subscribers report incompatible QoS
        # themselves): each handler is one more entity in every executor wait.
        quiet = PublisherEventCallbacks(use_default_callbacks=False)

        def output(kind, topic, qos=OUTPUT_DEPTH):
            topic = topic if topic.startswith('/') else namespace + topic
            return node.create_publisher(kind, topic, qos, event_callbacks=quiet)
        self.clock = output(ClockMsg, '/clock') if publish_clock else None
        tf_static = output(TFMessage, '/tf_static', QoSProfile(
            depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self.tf = output(TFMessage, '/tf')
        m = self.messages
        self.wheel_slip = output(WheelSlip, 'wheel_slip')
        self.outputs = [  # (publisher, message maker, only with markers)
            (self.tf, m.transforms, False),
            (self.tf, self.measured.ground_truth_transform, False),
            (output(Odometry, 'ground_truth/odom'), self.measured.ground_truth, False),
            (self.wheel_slip, self._slip, False),
            (output(JointState, 'joint_states'), m.joint_states, False),
            (output(MarkerArray, 'markers'), m.markers, True)]
        self.trail = trail
        if trail is not None:
            self.outputs.append((output(Marker, 'trail'), trail.message, True))
        if vehicle.has_drivetrain:
            self.outputs.append((output(DrivetrainState, 'drivetrain_state'),
                                 m.drivetrain_state, False))
        channels = list(sensors.channels) + sensors.with_outputs
        self.sensor_publishers = {name: output(SENSOR_TOPICS[name][1], SENSOR_TOPICS[name][0])
                                  for name in SENSOR_TOPICS if name in channels}
        self.odom = self.sensor_publishers.get('odometry')
        self.static = [tf_static]
        footprint = output(PolygonStamped, 'footprint', QoSProfile(
            depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        footprint.publish(conversions.footprint_message(footprint_of(vehicle.config),
                                                        frames.base))
        lidar = sensors.profile.channels.get('lidar')
        tf_static.publish(conversions.static_transforms(
            vehicle, conversions.stamp(0), frames.base, frames.imu, frames.laser,
            lidar.geometry if lidar is not None else None))
        self._asked_at = -math.inf
        self._subscribed: Dict[object, bool] = {}
        self.last_odometry: Optional[bytes] = None
        self.last_odometry_ns = 0
        self.clock_ns = -1
        self.late_odometry = self.odom is not None and 'odometry' not in sensors.with_outputs
        """The odometry is measured on a schedule of its own, delivered late."""
        self.kept_slip: Dict[int, bytes] = {}
        """With late odometry: wheel_slip of each recent instant, built whether or not anyone
        subscribed yet, sent again with the odometry of its instant (a controller that answers
        the odometry with the wheel state of its stamp gets it however late it subscribed)."""

    def publishers(self) -> list:
        """Return every publisher of the state (and /clock), as the start gate checks them."""
        unique = {id(p): p for p, _, _ in self.outputs}
        unique.update({id(p): p for p in self.sensor_publishers.values()})
        return list(unique.values()) + ([self.clock] if self.clock else [])

    def ask_again(self) -> None:
        """Have the next publish ask the graph who subscribes (a newcomer is served)."""
        self._asked_at = -math.inf

    def _wanted(self, publisher) -> bool:
        """Return whether `publisher` has subscribers, asking the graph every SUBSCRIBERS_S."""
        return self._subscribers().get(id(publisher), False)

    def _subscribers(self) -> Dict[int, bool]:
        """Return whether each publisher (by id) has subscribers; ask the graph if it is time."""
        now = time.monotonic()
        if now - self._asked_at >= SUBSCRIBERS_S:
            self._asked_at = now
            self._subscribed = {id(p): p.get_subscription_count() > 0
                                for p in self.publishers()}
        return self._subscribed

    def _slip(self, now_ns: int) -> bytes:
        """Return wheel_slip at now_ns; with late odometry, keep it for KEPT_SLIP_S."""
        message = self.messages.wheel_slip(now_ns)
        if self.late_odometry:
            self.kept_slip[now_ns] = message
            for old in [t for t in self.kept_slip if t < now_ns - KEPT_SLIP_NS]:
                del self.kept_slip[old]
        return message

    def publish(self, now_ns: int, markers: bool) -> Optional[int]:
        """
        Publish the truth at simulated time now_ns, and the channels measured with it.

        Returns the stamp of the odometry published, if any.
        """
        self.clock_at(now_ns)
        if self.trail is not None:
            self.trail.sample(now_ns)
        subscribed = self._subscribers()
        for publisher, make, marker in self.outputs:
            if subscribed.get(id(publisher), False) and (markers or not marker):
                publisher.publish(make(now_ns))
            elif publisher is self.wheel_slip and self.late_odometry:
                self._slip(now_ns)       # kept for the odometry of this instant
        wanted = [name for name in self.sensors.with_outputs
                  if subscribed.get(id(self.sensor_publishers[name]), False)]
        odometry = self.publish_measurements(self.sensors.measure_now(now_ns, self.vehicle,
                                                                      wanted))
        if 'odometry' in self.sensors.with_outputs:     # the state, even with nobody to read it
            odometry = self.last_odometry_ns = now_ns
        return odometry

    def publish_measurements(self, measurements: Iterable[Measurement]) -> Optional[int]:
        """Publish delivered measurements; return the stamp of the odometry among them."""
        odometry = None
        for m in measurements:
            publisher = self.sensor_publishers[m.channel]
            if m.channel == 'odometry':
                odometry = self.last_odometry_ns = m.stamp_ns
                if 'odometry' in self.sensors.with_outputs and not self._wanted(publisher):
                    continue        # the truth, again whenever published: nothing to keep
                self.last_odometry = self.measured.odometry(m)
                publisher.publish(self.last_odometry)
                if self.pose_from_odometry and self._wanted(self.tf):
                    self.tf.publish(self.measured.pose_transform(m))
            elif self._wanted(publisher):
                publisher.publish(self._message(m))
        return odometry

    def resend_odometry(self) -> bool:
        """Publish the last measured odometry again, unless it is measured with the outputs."""
        if 'odometry' in self.sensors.with_outputs or self.last_odometry is None:
            return False
        self.odom.publish(self.last_odometry)
        kept = self.kept_slip.get(self.last_odometry_ns)
        if kept is not None:
            self.wheel_slip.publish(kept)
        return True

    def _message(self, m: Measurement):
        if m.channel == 'imu':
            return self.measured.imu(m)
        if m.channel == 'wheel_speeds':
            return self.measured.wheel_encoders(m)
        if m.channel == 'steering':
            return self.measured.steering(m)
        if m.channel == 'lidar':
            spec = self.sensors.profile.channels['lidar']
            return self.measured.scan(m, spec.geometry,
                                      spec.rate_hz or 1e9 / self.sensors.publish_period_ns)
        return self.measured.gnss(m, *self.sensors.geodetic(m))

    def clock_at(self, now_ns: int) -> None:
        """Publish /clock at now_ns (also before a measurement stamped after the last one)."""
        self.clock_ns = now_ns
        if self.clock is not None and self._wanted(self.clock):
            self.clock.publish(self.messages.clock(now_ns))

    def flush(self, timeout_s: float) -> None:
        """Wait until every subscriber has what was published, at most timeout_s."""
        deadline = time.monotonic() + timeout_s
        for publisher in self.publishers():
            left = max(0.0, deadline - time.monotonic())
            publisher.wait_for_all_acked(Duration(seconds=left))

    def topics(self) -> List[str]:
        """Return the sensor topics published (for the start-up log)."""
        return [SENSOR_TOPICS[name][0] for name in self.sensor_publishers]
