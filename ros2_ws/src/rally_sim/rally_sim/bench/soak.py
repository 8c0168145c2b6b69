"""
A seeded soak of the simulator node over DDS: what a user may send cannot kill it.

    python -m rally_sim.bench.soak [--seconds S] [--seed N] [--contact stop|bounce]

The F1TENTH car on the track with its lidar, in real-time pacing, in its
own process. From this process, at 50 Hz: Ackermann, wheel-torque, pedal and
cmd_vel commands, one in eight with a NaN, an infinity or a huge value;
every second a teleport (/initialpose) anywhere around the map, walls and
unknown space included, some with a bad quaternion; every three seconds a
`reset`. Prints what was sent, the odometry and scans received, any
non-finite odometry and the longest silence; exits 1 when the node died or
published a non-finite pose. The suite's in-process fuzz (test/sim/test_fuzz.py)
covers the session; this covers the node and its middleware for longer.
"""

import argparse
import math
import sys
import time

from ackermann_msgs.msg import AckermannDriveStamped
from geometry_msgs.msg import PoseWithCovarianceStamped, Twist
from nav_msgs.msg import Odometry
import numpy as np
from rally_sim_msgs.msg import DriverCommand, WheelTorqueCommand
import rclpy
from sensor_msgs.msg import LaserScan
from std_srvs.srv import Trigger

from .node import start_node, stop_node

BAD = (math.nan, math.inf, -math.inf, 1e300, -1e300, 1e9)
TRACK_EXTENT = ((-30.0, 40.0), (-30.0, 30.0))
"""Where teleports land [m] (x, y): around the track's map and beyond it."""


class Fuzzer:
    """Seeded bad and good input for the node, and what came back."""

    def __init__(self, node, seed: int):
        """Publish on the node's command topics; count odometry and scans."""
        self.rng = np.random.default_rng(seed)
        self.node = node
        self.sent = dict.fromkeys(('commands', 'bad_values', 'teleports', 'resets'), 0)
        self.odometry, self.scans, self.non_finite = [], 0, 0
        self.publishers = {kind: node.create_publisher(kind, topic, 10) for kind, topic in (
            (AckermannDriveStamped, 'ackermann_cmd'), (WheelTorqueCommand, 'wheel_torque_cmd'),
            (DriverCommand, 'driver_cmd'), (Twist, 'cmd_vel'),
            (PoseWithCovarianceStamped, '/initialpose'))}
        self.reset = node.create_client(Trigger, 'reset')
        node.create_subscription(Odometry, 'odom', self._on_odom, 100)
        node.create_subscription(LaserScan, 'scan', self._on_scan, 10)

    def _on_odom(self, msg: Odometry) -> None:
        p, v = msg.pose.pose, msg.twist.twist
        values = (p.position.x, p.position.y, p.orientation.w, p.orientation.z, v.linear.x,
                  v.linear.y, v.angular.z)
        self.non_finite += not all(math.isfinite(x) for x in values)
        self.odometry.append(time.monotonic())

    def _on_scan(self, _msg: LaserScan) -> None:
        self.scans += 1

    def value(self, scale: float) -> float:
        """Return a plausible value of the scale, or (one in eight) a bad one."""
        if self.rng.random() < 0.125:
            self.sent['bad_values'] += 1
            return float(self.rng.choice(BAD))
        return float(self.rng.uniform(-scale, scale))

    def command(self) -> None:
        """Publish one command on a topic drawn at random."""
        kind = int(self.rng.integers(4))
        if kind == 0:
            msg = AckermannDriveStamped()
            msg.drive.speed, msg.drive.steering_angle = self.value(8.0), self.value(0.5)
        elif kind == 1:
            msg = WheelTorqueCommand(drive_torque=[self.value(3.0) for _ in range(4)],
                                     brake_torque=[abs(self.value(2.0)) for _ in range(4)])
        elif kind == 2:
            msg = DriverCommand(throttle=self.value(1.0), brake=abs(self.value(1.0)),
                                gear=int(self.rng.integers(-1, 6)))
        else:
            msg = Twist()
            msg.linear.x, msg.angular.z = self.value(6.0), self.value(3.0)
        self.publishers[type(msg)].publish(msg)
        self.sent['commands'] += 1

    def teleport(self) -> None:
        """Publish a pose anywhere around the map (walls, unknown space, bad quaternions)."""
        msg = PoseWithCovarianceStamped()
        msg.header.frame_id = 'map'
        (x0, x1), (y0, y1) = TRACK_EXTENT
        msg.pose.pose.position.x = float(self.rng.uniform(x0, x1))
        msg.pose.pose.position.y = float(self.rng.uniform(y0, y1))
        yaw = float(self.rng.uniform(-math.pi, math.pi))
        q = msg.pose.pose.orientation
        q.w, q.z = math.cos(0.5 * yaw), math.sin(0.5 * yaw)
        if self.rng.random() < 0.2:
            q.w, q.z = (0.0, 0.0) if self.rng.random() < 0.5 else (self.value(1.0), math.nan)
        self.publishers[PoseWithCovarianceStamped].publish(msg)
        self.sent['teleports'] += 1

    def ask_reset(self) -> None:
        """Call `reset` without waiting for its answer."""
        if self.reset.service_is_ready():
            self.reset.call_async(Trigger.Request())
            self.sent['resets'] += 1


def soak(seconds: float, seed: int, contact: str) -> bool:
    """Run the soak; print its figures; return whether the node came through."""
    process = start_node('vehicle:=f1tenth', 'surface:=track', 'sensors:=f1tenth',
                         'publish_rate_hz:=40.0', f'contact:={contact}', 'command_timeout_s:=0.5')
    node = rclpy.create_node('rally_sim_soak')
    fuzzer = Fuzzer(node, seed)
    try:
        deadline = time.monotonic() + 30.0
        while not fuzzer.odometry and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.1)
        start = time.monotonic()
        node.create_timer(0.02, fuzzer.command)
        node.create_timer(1.0, fuzzer.teleport)
        node.create_timer(3.0, fuzzer.ask_reset)
        while time.monotonic() - start < seconds and process.poll() is None:
            rclpy.spin_once(node, timeout_sec=0.1)
        alive, end = process.poll() is None, time.monotonic()
    finally:
        node.destroy_node()
        stop_node(process)
    arrivals = [t for t in fuzzer.odometry if t >= start]
    silence = max((b - a for a, b in zip([start] + arrivals, arrivals + [end])),
                  default=seconds)
    print(f'soak, seed {seed}, contact {contact}, {seconds:g} s of real time: sent {fuzzer.sent}')
    print(f'  node {"alive" if alive else f"DIED (exit {process.returncode})"}; odometry '
          f'{len(arrivals)} ({len(arrivals) / seconds:.1f} Hz), non-finite {fuzzer.non_finite}; '
          f'scans {fuzzer.scans}; longest silence {1000.0 * silence:.0f} ms')
    return alive and fuzzer.non_finite == 0 and bool(arrivals)


def main(argv=None) -> int:
    """Soak the node in both contact modes (or the one asked)."""
    parser = argparse.ArgumentParser(prog='python -m rally_sim.bench.soak', description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--seconds', type=float, default=120.0, help='real time per soak')
    parser.add_argument('--seed', type=int, default=4711, help='the fuzz seed')
    parser.add_argument('--contact', choices=('stop', 'bounce'), action='append',
                        help='contact mode (default: both, one after the other)')
    args = parser.parse_args(argv)
    rclpy.init()
    try:
        results = [soak(args.seconds, args.seed, contact)
                   for contact in args.contact or ('stop', 'bounce')]
    finally:
        rclpy.try_shutdown()
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
