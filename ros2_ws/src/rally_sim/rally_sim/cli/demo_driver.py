"""
The demo behind `./rally run`: the simulator node and a built-in driver.

    python -m rally_sim.demo [--driver path|drift|manoeuvre] [--duration S] [--vehicle NAME]
        [--surface S] [--real-time-factor F] [--sensors PROFILE] [--seed N|random]
        [--output DIR] [--record BAG_DIR]

Starts the simulator node (its own process, real-time pacing, owning /clock;
synchronous with the example controller, when one drives) and a driver: by
default the example path follower (its own process, speed mode) round the
rally stage's tarmac, gravel, snow and ice; the reference
drift controller holding a rear-wheel-drive car on its -25 deg drift
equilibrium round the gravel skid pad through its drivetrain (throttle in
second gear); or a scripted
open-loop manoeuvre on gravel (launch, a fast bend, a power-on spin, a
handbrake turn). Prints live status (for a car driven through its
drivetrain, the drift and path drivers', its gear, engine speed and
throttle: the manoeuvre's wheel torques bypass the engine, which then shows
nothing); when the duration ends or on Ctrl-C it writes the run as CSV and
a PNG plot (with the engine speed and gear where they drive), and with
--record a rosbag2 bag.
"""

import argparse
import datetime
import math
import os
import secrets
import subprocess
import sys
import time
from typing import Dict, List, Optional

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
import numpy as np
from rally_sim_msgs.msg import DrivetrainState, WheelSlip, WheelTorqueCommand
import rclpy
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions

from .replay import write_trajectory
from .. import WHEELS
from ..control.path import ClosedPath
from ..physics import load_vehicle
from ..physics.trajectory import Trajectory
from ..resources import config_file, surface_from, vehicle_path
from ..ros.recording import BagRecorder, RECORDED_TOPICS
from ..runtime.entry import StopRequest
from ..runtime.processes import start_logged, stop_all
from ..sensors import load_profile
from ..world.plotting import plot_run
from ..world.stages import read_path

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
NO_DATA_TIMEOUT_S = 120.0     # a first start after an update compiles the physics
DRIVERS = {
    'path': {'duration': 50.0, 'vehicle': 'volvo_v40', 'surface': 'rally_stage',
             'initial_speed': 0.0, 'what': 'the path follower'},
    'drift': {'duration': 40.0, 'vehicle': 'rwd_gravel', 'surface': 'skid_pad',
              'initial_speed': 8.0, 'what': 'the reference drift controller'},
    'manoeuvre': {'duration': CYCLE_S, 'vehicle': 'rwd_gravel', 'surface': 'gravel',
                  'initial_speed': 0.0, 'what': 'a scripted manoeuvre'},
}
STILL_M_S = 0.1
DRIVER_NODE = 'rally_demo_driver'
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

    def __init__(self, drive: bool, name: str = DRIVER_NODE, namespace: str = ''):
        """Subscribe to the outputs; with `drive`, publish the manoeuvre at 50 Hz sim time."""
        super().__init__(name, namespace=namespace,
                         parameter_overrides=[Parameter('use_sim_time', value=True)])
        self.torque_pub = self.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
        self.steer_pub = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.odom = {}
        self.slip = {}
        self.drivetrain = {}      # a car driven through its drivetrain only
        self.create_subscription(Odometry, 'ground_truth/odom', self._on_odom, 1000)  # run.csv
        self.create_subscription(WheelSlip, 'wheel_slip', self._on_slip, 1000)
        if not drive:             # the manoeuvre's torques bypass the engine: idle, not driving
            self.create_subscription(DrivetrainState, 'drivetrain_state', self._on_drivetrain,
                                     1000)
        if drive:
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

    def _on_drivetrain(self, msg: DrivetrainState) -> None:
        self.drivetrain[self._key(msg)] = msg

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
        engine = ''
        if self.drivetrain:
            d = self.drivetrain[max(self.drivetrain)]
            engine = f' | gear {d.gear} {d.engine_rpm:5.0f} rpm throttle {d.throttle:.2f}'
        return (f't {self._key(odom) / 1e9:6.2f} s | speed {speed * 3.6:5.1f} km/h | '
                f'yaw rate {twist.angular.z:+5.2f} rad/s | sideslip {sideslip:+6.1f} deg | '
                f'slip ratio {slips}{engine}')

    def settle(self, quiet_s: float = 0.3, limit_s: float = 5.0) -> None:
        """Take the states still on their way: spin until none came for quiet_s."""
        deadline = time.monotonic() + limit_s
        count, since = len(self.odom) + len(self.slip), time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - since < quiet_s:
            rclpy.spin_once(self, timeout_sec=0.05)
            if len(self.odom) + len(self.slip) != count:
                count, since = len(self.odom) + len(self.slip), time.monotonic()

    def trajectory(self, until_ns: int) -> Trajectory:
        """Return the run up to until_ns (stamps present in both odom and wheel_slip)."""
        keys = sorted(k for k in set(self.odom) & set(self.slip) if k <= until_ns)
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
        if self.drivetrain and all(k in self.drivetrain for k in keys):
            columns['engine_rpm'] = np.array([self.drivetrain[k].engine_rpm for k in keys])
            columns['gear'] = np.array([float(self.drivetrain[k].gear) for k in keys])
        return Trajectory(columns, [])


def finish(driver: 'DemoDriver', recorder: Optional[BagRecorder], record: Optional[str],
           until_ns: int, folder: str) -> Optional[Trajectory]:
    """
    End a run: take what is still on its way, close the bag, leave ROS; return the trajectory.

    The run is cut at until_ns, so run.csv has the same samples recording or
    not. None (said on stderr) when too little was recorded.
    """
    if recorder is not None:
        recorder.drain(lambda: rclpy.spin_once(driver, timeout_sec=0.05))
    else:
        driver.settle()
    trajectory = driver.trajectory(until_ns=until_ns)
    if recorder is not None:
        counts = recorder.close()
        print(f'recorded {sum(counts.values())} messages on {len(counts)} topics into '
              f'{record}')
    driver.destroy_node()
    rclpy.try_shutdown()
    if len(trajectory.columns['t']) < 2:
        print(f'no data was recorded; see the logs in {folder}', file=sys.stderr)
        return None
    return trajectory


def trouble(driver: 'DemoDriver', processes: List[subprocess.Popen], stop: StopRequest,
            waited: float, folder: str) -> Optional[str]:
    """Return why a run cannot go on (no odometry in time, a process ended), else None."""
    if not driver.odom and time.monotonic() - waited > NO_DATA_TIMEOUT_S:
        return (f'no odometry from the simulator in {NO_DATA_TIMEOUT_S:g} s; see the logs in '
                f'{folder}')
    stopped = [p for p in processes if p.poll() is not None]
    if stopped and not stop.requested:
        return (f'{stopped[0].args[2]} stopped (exit {stopped[0].returncode}); see the logs '
                f'in {folder}')
    return None


def parse_args(argv):
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog='./rally run', description=__doc__.split('\n\n')[0])
    parser.add_argument('--driver', choices=tuple(DRIVERS), default='path',
                        help='path: the example path follower round the rally stage '
                             '(default); drift: the reference drift controller on the '
                             'gravel skid pad; manoeuvre: a scripted open-loop manoeuvre on '
                             'gravel')
    parser.add_argument('--duration', type=float,
                        help='simulated seconds to run (default: 50 path, 40 drift, 16 '
                             'manoeuvre); Ctrl-C stops earlier')
    parser.add_argument('--vehicle', help='vehicle preset or file (default: volvo_v40 for '
                                          'path, rwd_gravel otherwise)')
    parser.add_argument('--surface', help='surface type, map or stage (default: rally_stage '
                                          'for path, skid_pad for drift, gravel for manoeuvre)')
    parser.add_argument('--real-time-factor', type=float, default=1.0,
                        help='simulated seconds per wall second (default 1; the simulator '
                             'waits for its controller, so any factor the machine keeps up '
                             'with gives the same run)')
    parser.add_argument('--sensors', default='ideal',
                        help='sensor profile the controller sees: ideal (default), typical, '
                             'rough or a file; run.csv is the ground truth')
    parser.add_argument('--seed', default='0',
                        help='seed of the sensor errors (default 0; random: drawn, printed)')
    parser.add_argument('--output', default='out', help='folder for the results (default out)')
    parser.add_argument('--record', metavar='DIR',
                        help='also record every topic into a rosbag2 bag (MCAP) in DIR')
    args = parser.parse_args(argv)
    defaults = DRIVERS[args.driver]
    args.duration = args.duration or defaults['duration']
    args.vehicle = args.vehicle or defaults['vehicle']
    args.surface = args.surface or defaults['surface']
    if not (math.isfinite(args.duration) and args.duration > 0.0):
        parser.error('--duration must be a positive number of seconds')
    if not (0.01 <= args.real_time_factor <= 100.0):
        parser.error('--real-time-factor must be in [0.01, 100]')
    if args.record and os.path.exists(args.record):
        parser.error(f'--record {args.record}: the folder exists already')
    try:
        vehicle_path(args.vehicle)
        surface_from(args.surface)
        load_profile(args.sensors)
    except ValueError as error:     # a vehicle, surface or profile that does not exist
        parser.error(str(error))
    if args.seed == 'random':
        args.seed = secrets.randbelow(2 ** 31)
    elif not (args.seed.isdigit() and int(args.seed) < 2 ** 31):
        parser.error(f'--seed {args.seed}: an integer in [0, {2 ** 31 - 1}] or random')
    args.seed = int(args.seed)
    return args


def start(module: str, params: Dict[str, object], log_path: str) -> subprocess.Popen:
    """Start `python -m module` with ROS parameters, its output into a log file."""
    command = [sys.executable, '-m', module, '--ros-args']
    for name, value in params.items():
        command += ['-p', f'{name}:={value}']
    return start_logged(command, log_path)


def processes_for(args, folder: str) -> List[subprocess.Popen]:
    """Start the simulator, and the example controller when one drives."""
    # Simulated time starts once this process's node (the recorder of run.csv and the
    # bag) is matched: both start at t = 0.
    params = {'vehicle': args.vehicle, 'surface': args.surface,
              'real_time_factor': args.real_time_factor, 'sensors': args.sensors,
              'seed': args.seed,
              'sync_observers': f'[{DRIVER_NODE}]'}
    simulator_log = os.path.join(folder, 'simulator.log')
    if args.driver == 'manoeuvre':
        return [start('rally_sim.ros.node', params, simulator_log)]
    stage = 'rally_stage' if args.driver == 'path' else 'skid_pad'
    path = ClosedPath(read_path(config_file(f'stages/{stage}_path.csv')))
    start_x, start_y = path.points[0]
    params.update(command_mode='speed' if args.driver == 'path' else 'driver',
                  initial_x=float(start_x), initial_y=float(start_y),
                  initial_yaw=path.locate(start_x, start_y).heading_rad,
                  initial_speed=DRIVERS[args.driver]['initial_speed'])
    module = {'path': 'path_follower', 'drift': 'drift_lqr_controller'}[args.driver]
    # Synchronous: the simulator waits for the controller's first answer and then for each
    # one, so no time runs before it has started and no answer comes late.
    params['sync_controllers'] = f'[{module}]'
    controller = {'vehicle': args.vehicle} if args.driver == 'drift' else {}
    return [start('rally_sim.ros.node', params, simulator_log),
            start(f'rally_sim.ros.{module}', controller, os.path.join(folder, f'{module}.log'))]


def main(argv=None, stop: StopRequest = None) -> int:
    """
    Run the demo; return the exit status.

    Ctrl-C or SIGTERM (read from `stop`, see rally_sim.runtime.entry) is the
    normal end before the duration: the run's results are written.
    """
    stop = stop or StopRequest(tool=True)
    args = parse_args(sys.argv[1:] if argv is None else argv)
    config = load_vehicle(vehicle_path(args.vehicle))
    folder = os.path.join(args.output, datetime.datetime.now().strftime('run-%Y%m%d-%H%M%S'))
    os.makedirs(folder, exist_ok=True)
    stop.hold()
    processes = processes_for(args, folder)
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    driver = DemoDriver(drive=args.driver == 'manoeuvre')
    recorder = BagRecorder(driver, args.record, RECORDED_TOPICS, {
        'rally_sim.seed': str(args.seed), 'rally_sim.sensors': args.sensors}) if args.record \
        else None
    interactive = sys.stdout.isatty()
    what = DRIVERS[args.driver]['what']
    print(f'rally_sim demo: {config["name"]} on {args.surface} driven by {what}, '
          f'{args.duration:g} s of simulated time, sensors {args.sensors}, seed {args.seed}; '
          f'Ctrl-C stops; results in {folder}')
    last_print, last_status = 0.0, None
    return_code = 0
    try:
        waited = time.monotonic()
        while not stop.requested and (driver.sim_time() < args.duration or not driver.odom):
            rclpy.spin_once(driver, timeout_sec=0.05)
            reason = trouble(driver, processes, stop, waited, folder)
            if reason:
                print(f'\n{reason}', file=sys.stderr)
                return_code = 1
                break
            if time.monotonic() - last_print > (0.2 if interactive else 2.0):
                last_print = time.monotonic()
                status = driver.status()
                if interactive or status != last_status:      # 'waiting ...' once
                    print(('\r' if interactive else '') + status,
                          end='' if interactive else '\n', flush=True)
                last_status = status
    finally:
        print()
        stop_all(processes)
    trajectory = finish(driver, recorder, args.record, round(args.duration * 1e9), folder)
    if trajectory is None:
        return 1
    csv_path = os.path.join(folder, 'run.csv')
    png_path = os.path.join(folder, 'run.png')
    write_trajectory(csv_path, trajectory)
    plot_run(trajectory, config, png_path, title=f'{what} on {args.surface}',
             surface=surface_from(args.surface))
    print(f'wrote {csv_path} ({len(trajectory.columns["t"])} samples) and {png_path}')
    return return_code


if __name__ == '__main__':
    sys.exit(main())
