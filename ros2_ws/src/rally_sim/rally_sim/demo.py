"""
The demo behind `./rally run`: the simulator node and a built-in driver.

    python -m rally_sim.demo [--duration S] [--vehicle NAME] [--surface S]
                             [--real-time-factor F] [--output DIR] [--record BAG_DIR]

Starts the simulator node (its own process, real-time pacing, owning /clock)
and a driver node that follows simulated time and drives a scripted rally
manoeuvre over ROS topics: launch, a power-oversteer slide held with
counter-steer, braking, a handbrake turn. Prints live status; when the
duration ends or on Ctrl-C it writes the run as CSV and a PNG plot.
"""

import argparse
import datetime
import math
import os
import subprocess
import sys
import time

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
import numpy as np
from rally_sim_msgs.msg import WheelSlip, WheelTorqueCommand
import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray

from . import WHEELS
from .physics import load_vehicle
from .physics.trajectory import Trajectory
from .plotting import plot_run
from .recording import BagRecorder
from .replay import vehicle_path, write_trajectory

# Each phase: (length [s], steer [rad], rear drive torque [N m per wheel],
# brake torque [N m per wheel], handbrake [0..1]). On loose gravel the rear
# wheels of this light car break away as soon as the torque asks for more
# than their grip: power on in a bend and it spins. Open loop on purpose:
# holding a drift takes a feedback controller.
MANOEUVRE = (
    (3.5, 0.0, 380.0, 0.0, 0.0),        # launch
    (3.5, 0.12, 200.0, 0.0, 0.0),       # a fast bend near the limit of grip
    (1.0, 0.25, 650.0, 0.0, 0.0),       # power on: the rear steps out, the car spins
    (2.5, 0.0, 0.0, 600.0, 0.0),        # brake to a stop
    (2.5, 0.0, 380.0, 0.0, 0.0),        # launch again
    (1.2, 0.4, 0.0, 0.0, 1.0),          # handbrake turn
    (1.8, 0.0, 0.0, 600.0, 0.0),        # stop
)
CYCLE_S = sum(phase[0] for phase in MANOEUVRE)
RECORDED_TOPICS = {
    'odom': Odometry, '/tf': TFMessage, '/tf_static': TFMessage, 'wheel_slip': WheelSlip,
    'joint_states': JointState, 'imu': Imu, 'markers': MarkerArray, '/clock': Clock,
    'ackermann_cmd': AckermannDriveStamped, 'wheel_torque_cmd': WheelTorqueCommand,
}
STILL_M_S = 0.1
"""Below this speed the sideslip angle is shown as 0 (its direction is noise)."""


def command_at(t: float):
    """Return (steer, drive, brake, handbrake) of the manoeuvre at time t."""
    t = t % CYCLE_S
    for length, steer, drive, brake, handbrake in MANOEUVRE:
        if t < length:
            return steer, drive, brake, handbrake
        t -= length
    return 0.0, 0.0, 0.0, 0.0


class DemoDriver(Node):
    """Drives the manoeuvre on simulated time and records what the simulator says."""

    def __init__(self):
        """Create publishers, subscriptions and a 50 Hz timer on simulated time."""
        super().__init__('rally_demo_driver',
                         parameter_overrides=[Parameter('use_sim_time', value=True)])
        self.torque_pub = self.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
        self.steer_pub = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.odom = {}
        self.slip = {}
        self.create_subscription(Odometry, 'odom', self._on_odom, 50)
        self.create_subscription(WheelSlip, 'wheel_slip', self._on_slip, 50)
        self.create_timer(0.02, self._drive)

    def sim_time(self) -> float:
        """Return the newest simulated time seen [s]."""
        return self.get_clock().now().nanoseconds / 1e9

    def _drive(self) -> None:
        steer, drive, brake, handbrake = command_at(self.sim_time())
        stamp = self.get_clock().now().to_msg()
        steer_msg = AckermannDriveStamped()
        steer_msg.header.stamp = stamp
        steer_msg.drive.steering_angle = steer
        torque = WheelTorqueCommand()
        torque.header.stamp = stamp
        torque.drive_torque = [0.0, 0.0, drive, drive]
        torque.brake_torque = [brake] * 4
        torque.handbrake = handbrake
        self.steer_pub.publish(steer_msg)
        self.torque_pub.publish(torque)

    @staticmethod
    def _key(msg) -> int:
        return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec

    def _on_odom(self, msg: Odometry) -> None:
        self.odom[self._key(msg)] = msg

    def _on_slip(self, msg: WheelSlip) -> None:
        self.slip[self._key(msg)] = msg

    def status(self) -> str:
        """Return a one-line summary of the newest state."""
        if not self.odom or not self.slip:
            return 'waiting for the simulator ...'
        odom = self.odom[max(self.odom)]
        slip = self.slip[max(self.slip)]
        twist = odom.twist.twist
        speed = math.hypot(twist.linear.x, twist.linear.y)
        sideslip = (math.degrees(math.atan2(twist.linear.y, abs(twist.linear.x)))
                    if speed > STILL_M_S else 0.0)
        slips = ' '.join(f'{w} {s:+.2f}' for w, s in zip(WHEELS, slip.slip_ratio))
        return (f't {self._key(odom) / 1e9:6.2f} s | speed {speed * 3.6:5.1f} km/h | '
                f'yaw rate {twist.angular.z:+5.2f} rad/s | sideslip {sideslip:+6.1f} deg | '
                f'slip ratio {slips}')

    def trajectory(self) -> Trajectory:
        """Return the recorded run (stamps present in both odom and wheel_slip)."""
        keys = sorted(set(self.odom) & set(self.slip))
        columns = {'t': np.array([k / 1e9 for k in keys])}
        odoms = [self.odom[k] for k in keys]
        columns['x'] = np.array([o.pose.pose.position.x for o in odoms])
        columns['y'] = np.array([o.pose.pose.position.y for o in odoms])
        q = [o.pose.pose.orientation for o in odoms]
        columns['yaw'] = np.unwrap([2.0 * math.atan2(r.z, r.w) for r in q])
        columns['vx'] = np.array([o.twist.twist.linear.x for o in odoms])
        columns['vy'] = np.array([o.twist.twist.linear.y for o in odoms])
        columns['yaw_rate'] = np.array([o.twist.twist.angular.z for o in odoms])
        slips = [self.slip[k] for k in keys]
        for i, w in enumerate(WHEELS):
            columns[f'omega_{w}'] = np.array([s.wheel_angular_speed[i] for s in slips])
        for name, field in (('slip_ratio', 'slip_ratio'), ('slip_angle', 'slip_angle'),
                            ('load', 'normal_load'), ('force_x', 'longitudinal_force'),
                            ('force_y', 'lateral_force')):
            for i, w in enumerate(WHEELS):
                columns[f'{name}_{w}'] = np.array([getattr(s, field)[i] for s in slips])
        return Trajectory(columns, [])


def parse_args(argv):
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog='./rally run', description=__doc__.split('\n\n')[0])
    parser.add_argument('--duration', type=float, default=CYCLE_S,
                        help=f'simulated seconds to run (default {CYCLE_S:g}: the manoeuvre '
                             'once; it repeats); Ctrl-C stops earlier')
    parser.add_argument('--vehicle', default='rwd_gravel', help='vehicle preset or file')
    parser.add_argument('--surface', default='gravel', help='surface type or surface map')
    parser.add_argument('--real-time-factor', type=float, default=1.0,
                        help='simulated seconds per wall second (default 1)')
    parser.add_argument('--output', default='out', help='folder for the results (default out)')
    parser.add_argument('--record', metavar='DIR',
                        help='also record every topic into a rosbag2 bag (MCAP) in DIR')
    args = parser.parse_args(argv)
    if not (math.isfinite(args.duration) and args.duration > 0.0):
        parser.error('--duration must be a positive number of seconds')
    if not (0.01 <= args.real_time_factor <= 100.0):
        parser.error('--real-time-factor must be in [0.01, 100]')
    return args


def main(argv=None) -> int:
    """Run the demo; return the exit status."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    config = load_vehicle(vehicle_path(args.vehicle))
    folder = os.path.join(args.output, datetime.datetime.now().strftime('run-%Y%m%d-%H%M%S'))
    os.makedirs(folder, exist_ok=True)
    log = open(os.path.join(folder, 'simulator.log'), 'w', encoding='utf-8')
    simulator = subprocess.Popen(
        [sys.executable, '-m', 'rally_sim.ros.node', '--ros-args',
         '-p', f'vehicle:={args.vehicle}', '-p', f'surface:={args.surface}',
         '-p', f'real_time_factor:={args.real_time_factor}'],
        stdout=log, stderr=subprocess.STDOUT)
    if args.record and os.path.exists(args.record):
        print(f'error: --record {args.record}: the folder exists already', file=sys.stderr)
        return 2
    rclpy.init()
    driver = DemoDriver()
    recorder = BagRecorder(driver, args.record, RECORDED_TOPICS) if args.record else None
    interactive = sys.stdout.isatty()
    print(f'rally_sim demo: {config["name"]} on {args.surface}, {args.duration:g} s of '
          f'simulated time; Ctrl-C stops; results in {folder}')
    last_print = 0.0
    try:
        while driver.sim_time() < args.duration:
            rclpy.spin_once(driver, timeout_sec=0.05)
            if simulator.poll() is not None:
                print(f'\nthe simulator stopped (exit {simulator.returncode}); see '
                      f'{log.name}', file=sys.stderr)
                break
            if time.monotonic() - last_print > (0.2 if interactive else 2.0):
                last_print = time.monotonic()
                print(('\r' if interactive else '') + driver.status(),
                      end='' if interactive else '\n', flush=True)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        print()
        if simulator.poll() is None:
            simulator.send_signal(2)
        try:
            simulator.wait(timeout=10)
        except subprocess.TimeoutExpired:
            simulator.kill()
        log.close()
    trajectory = driver.trajectory()
    if recorder is not None:
        counts = recorder.close()
        print(f'recorded {sum(counts.values())} messages on {len(counts)} topics into '
              f'{args.record}')
    driver.destroy_node()
    rclpy.try_shutdown()
    if len(trajectory.columns['t']) < 2:
        print('no data was recorded', file=sys.stderr)
        return 1
    csv_path = os.path.join(folder, 'run.csv')
    png_path = os.path.join(folder, 'run.png')
    write_trajectory(csv_path, trajectory)
    plot_run(trajectory, config, png_path, title=f'demo on {args.surface}')
    print(f'wrote {csv_path} ({len(trajectory.columns["t"])} samples) and {png_path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
