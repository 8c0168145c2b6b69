"""
Drive mode: the person's inputs from the page become a controller's command messages.

The person (drive/person.py) is asked for commands at every state of the
driven car (the keys' steering ramps on simulated time, the assists read
the car) and at once whenever the page reports an input, so a key reaches
the command topic within a message's flight. A state's steering and its
pedals (or torques) are each published when they differ from the last sent,
or KEEPALIVE_S of simulated time after it (the simulator holds a command
until the next, and its watchdog wants one at least every
command_timeout_s); an input's always, both. Commands go on the car's
ackermann_cmd and, by its command mode, driver_cmd or wheel_torque_cmd,
stamped with the state they answer: the simulator's own intake then
applies the car's limits, rates, dead time and actuators. The assists in
force and the gear lever are published (latched) on drive_assists as JSON
(std_msgs/String), so a recording of the drive keeps them.
"""

import json
import math
import threading
from typing import Callable, Dict, Optional

from ackermann_msgs.msg import AckermannDriveStamped
from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseWithCovarianceStamped
from rally_sim_msgs.msg import DriverCommand, WheelTorqueCommand
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from std_msgs.msg import String

from ..command_messages import COMMAND_TYPES
from ..serialized import SerializedMessage
from ...control.interface import quaternion
from ...control.path import ClosedPath
from ...drive import Assists, CarFacts, Person
from ...drive.inputs import Inputs
from ...drive.person import DrivenState, PersonCommand

LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
KEEPALIVE_S = 0.1
"""Unchanged commands are sent again this often [simulated s]."""
PERIOD_S = 0.02
"""A state's changed command waits this long after the last sent [simulated s]."""
DEPTH = 1000
"""Commands kept for a subscriber slow to take them (a burst of lockstep states)."""


class Driving:
    """One car driven from the page."""

    def __init__(self, node: Node, namespace: str, facts: CarFacts, assists: Assists,
                 dead_zone: float, curve: float, announce: Callable[[dict], None]):
        """Publish under `namespace` ('car1/' or ''); announce(info) tells the pages."""
        self.node = node
        self.person = Person(facts, assists, dead_zone, curve)
        self.lock = threading.Lock()
        self.announce = announce
        self.publishers = {topic: node.create_publisher(kind, namespace + topic, DEPTH)
                           for topic, kind in COMMAND_TYPES.items()
                           if topic == 'ackermann_cmd'
                           or topic == ('driver_cmd' if facts.gears else 'wheel_torque_cmd')}
        self.assists_pub = node.create_publisher(String, namespace + 'drive_assists', LATCHED)
        self.pose_pub = node.create_publisher(PoseWithCovarianceStamped, '/initialpose', 10)
        self.state = DrivenState(0.0, 0.0, 0.0, (0.0,) * 4)
        self.t: Optional[float] = None
        self.stamp = Time()
        self.last: Optional[PersonCommand] = None
        self.sent = {'steer': (-math.inf, None), 'pedals': (-math.inf, None)}
        """Each part's last time and value sent."""
        self.steering = SerializedMessage(AckermannDriveStamped(), (),
                                          floats=('drive.steering_angle',))
        self.pedal_messages: Dict[int, SerializedMessage] = {}
        self.torques = SerializedMessage(WheelTorqueCommand(), [
            f'{kind}.{i}' for kind in ('drive_torque', 'brake_torque') for i in range(4)]
            + ['handbrake'])

    # ---- the car's states and the page's messages ---------------------------

    def on_state(self, t: float, stamp: Time, state: DrivenState) -> None:
        """Answer the driven car's state at simulated time t."""
        with self.lock:
            dt = 0.0 if self.t is None else max(t - self.t, 0.0)
            self.t, self.stamp, self.state = t, stamp, state
            self._send(self.person.command(state, dt), changed_only=True)

    def on_input(self, inputs: Inputs) -> None:
        """Take the person's newest inputs and send their commands now."""
        with self.lock:
            self.person.take(inputs)
            self._send(self.person.command(self.state, 0.0))

    def shift(self, up: bool) -> None:
        """Move the gear lever."""
        with self.lock:
            self.person.shift(up)
            self._send(self.person.command(self.state, 0.0))
        self.tell()

    def set_assists(self, values: dict) -> None:
        """Change assists (ValueError names a bad one; nothing changes then)."""
        with self.lock:
            self.person.assists = self.person.assists.changed(values)
        self.tell()

    def set_gamepad(self, dead_zone: float, curve: float) -> None:
        """Set the stick's dead zone and curve."""
        with self.lock:
            self.person.dead_zone, self.person.curve = dead_zone, curve
        self.tell()

    def back_onto(self, path: Optional[ClosedPath], x: float, y: float, frame: str) -> bool:
        """Put the car on the path's nearest point, along it, at rest (False: no path)."""
        if path is None:
            return False
        near = path.locate(x, y)
        px, py = path.point_at(near.progress_m)
        pose = PoseWithCovarianceStamped()
        pose.header.frame_id = frame
        pose.header.stamp = self.stamp
        pose.pose.pose.position.x, pose.pose.pose.position.y = float(px), float(py)
        o = pose.pose.pose.orientation
        o.x, o.y, o.z, o.w = quaternion(0.0, 0.0, near.heading_rad)
        with self.lock:
            self.person.reset()
        self.pose_pub.publish(pose)
        return True

    # ---- out ---------------------------------------------------------------

    def _send(self, command: PersonCommand, changed_only: bool = False) -> None:
        """
        Publish the commands, serialized in place (serialized.py: a tenth of rclpy's cost).

        changed_only: each of the steering and the pedals only if it changed or its
        keepalive is due.
        """
        stamp_ns = self.stamp.sec * 1_000_000_000 + self.stamp.nanosec
        t = self.t if self.t is not None else 0.0
        if self._due('steer', command.steer_rad, t, changed_only):
            self.publishers['ackermann_cmd'].publish(self.steering.fill(
                (), stamp_ns, [command.steer_rad]))
        if self._due('pedals', (command.pedals, command.torques), t, changed_only):
            if command.pedals is not None:
                p = command.pedals
                self.publishers['driver_cmd'].publish(self._pedals(p.gear).fill(
                    (p.throttle, p.brake, p.handbrake), stamp_ns))
            else:
                w = command.torques
                self.publishers['wheel_torque_cmd'].publish(self.torques.fill(
                    list(w.drive_torque) + list(w.brake_torque) + [w.handbrake], stamp_ns))
        self.last = command

    def _due(self, part: str, value, t: float, changed_only: bool) -> bool:
        """Say whether a part of the commands (its value now) goes out; note what went when."""
        sent_t, sent = self.sent[part]
        since = t - sent_t
        held = value == sent or since < PERIOD_S - 1e-9
        if changed_only and held and since < KEEPALIVE_S - 1e-9:
            return False
        self.sent[part] = (t, value)
        return True

    def _pedals(self, gear: int) -> SerializedMessage:
        """Return the driver_cmd of this gear request, to fill (one per gear: an int8)."""
        if gear not in self.pedal_messages:
            self.pedal_messages[gear] = SerializedMessage(
                DriverCommand(gear=int(gear)), ('throttle', 'brake', 'handbrake'))
        return self.pedal_messages[gear]

    def info(self) -> dict:
        """Return what the page shows of the drive: gear lever, assists, stick settings."""
        p = self.person
        return {'gear': p.gear_name(), 'assists': p.assists.as_dict(),
                'dead_zone': p.dead_zone, 'curve': p.curve,
                'command_mode': p.car.mode}

    def tell(self) -> None:
        """Tell the pages and the drive_assists topic (recorded with the run) what holds now."""
        info = self.info()
        self.assists_pub.publish(String(data=json.dumps(info, sort_keys=True)))
        self.announce(info)
