"""
Real-time pacing measured side by side: the node's outputs against a bare rclpy timer.

    python -m rally_sim.bench.pacing [--seconds S] [--only default|launch|odom|scan|imu]
                                     [--busy-only]

Five cases, each idle and then with one core kept busy by a spinning process:
the node as the default launch starts it (its odometry at 100 Hz, the car
standing, every default output on), the default launch file itself through
`ros2 launch` (the node beside robot_state_publisher; it needs a `ros2`
command: a ROS 2 install, or RALLY_SIM_ROS_LAUNCH's kit under ./rally), the
simulator's odometry at 100 Hz (the default car, ideal sensors, driving), the
F1TENTH car's lidar scans at 40 Hz, and the typical profile's IMU at 100 Hz,
each measurement published 5 ms after it is taken (its own instants, between
the publishing ones; its stamp is the measurement's). Beside the node, in the same run,
a hand-written rclpy node publishes the same message type from a timer at
the same rate (rclpy.spin, the single-threaded executor). A subscriber in
this process takes both and prints, for each, the wall-clock inter-arrival
std, 99th percentile and longest gap, the shares of late gaps (over 1.5 periods) and of
bursts (under half a period), the spread p1..p99 of arrival minus stamp,
and the node's CPU share. Issue 48's targets are printed beside them; nothing
is asserted.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from typing import Optional

from nav_msgs.msg import Odometry
import numpy as np
import rclpy
from sensor_msgs.msg import Imu, LaserScan

from .node import cpu_seconds, start_node, stop_node
from ..runtime.processes import die_with_parent

CASES = {
    'default': (Odometry, 100.0, ()),
    'launch': (Odometry, 100.0, ()),
    'odom': (Odometry, 100.0, ('command_timeout_s:=0.0', 'initial_speed:=10.0',
                               'sensors:=ideal', 'surface:=rally_stage')),
    'scan': (LaserScan, 40.0, ('vehicle:=f1tenth', 'surface:=track', 'sensors:=f1tenth',
                               'publish_rate_hz:=40.0', 'command_timeout_s:=0.0')),
    'imu': (Imu, 100.0, ('command_timeout_s:=0.0', 'initial_speed:=10.0', 'sensors:=typical',
                         'surface:=rally_stage')),
}
"""Each case: the message, its rate [Hz], the node's parameters. default: the node as the
default launch starts it (its declared defaults, which config/rally_sim.yaml repeats)."""
TOPICS = {'default': 'odom', 'launch': 'odom'}
"""The node's topic of a case not named as its topic."""
TARGETS = ("targets (issue 48, 100 Hz, idle): std <= 1.0 ms and below the bare timer's, late "
           'and bursts <= 1 % each, spread <= 3 ms; busy: no worse than the bare timer; node '
           'CPU at most 2 points above before')


def bare_publisher(case: str) -> int:
    """Publish the case's message from a plain rclpy timer at its rate until stopped."""
    kind, rate_hz, _ = CASES[case]
    rclpy.init()
    node = rclpy.create_node('bare_timer')
    publisher = node.create_publisher(kind, f'bare/{case}', 10)
    message = kind()
    if kind is LaserScan:
        message.ranges = [5.0] * 1080

    def publish() -> None:
        message.header.stamp = node.get_clock().now().to_msg()
        publisher.publish(message)

    node.create_timer(1.0 / rate_hz, publish)
    try:
        rclpy.spin(node)
    except KeyboardInterrupt:
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


def statistics_of(rows, period_s: float) -> dict:
    """Return the pacing figures of (arrival, stamp) rows [s]."""
    rows = np.asarray(rows)
    gaps = np.diff(rows[:, 0]) / period_s
    lag_ms = 1000.0 * (rows[:, 0] - rows[:, 1])
    return {'rate_hz': (len(rows) - 1) / (rows[-1, 0] - rows[0, 0]),
            'std_ms': 1000.0 * period_s * float(np.std(gaps)),
            'p99_ms': 1000.0 * period_s * float(np.percentile(gaps, 99)),
            'max_ms': 1000.0 * period_s * float(np.max(gaps)),
            'late_pct': 100.0 * float(np.mean(gaps > 1.5)),
            'burst_pct': 100.0 * float(np.mean(gaps < 0.5)),
            'spread_ms': float(np.percentile(lag_ms, 99) - np.percentile(lag_ms, 1))}


LAUNCH = ('ros2', 'launch', 'rally_sim', 'rally_sim.launch.py')
"""The launch case's command: the default launch file with its defaults."""


def start_launch() -> subprocess.Popen:
    """Start the default launch file as a user does (its processes in a group of their own)."""
    return subprocess.Popen(LAUNCH, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def simulator_in(launch: subprocess.Popen, timeout_s: float = 60.0) -> Optional[int]:
    """Return the pid of the simulator node the launch started (None: none came)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for pid in filter(str.isdigit, os.listdir('/proc')):
            try:
                with open(f'/proc/{pid}/cmdline', 'rb') as cmdline:
                    words = cmdline.read().split(b'\0')
                if os.getsid(int(pid)) == launch.pid and any(
                        w.endswith(b'rally_sim_node') for w in words):
                    return int(pid)
            except OSError:
                continue
        time.sleep(0.5)
    return None


def stop_launch(launch: subprocess.Popen) -> None:
    """Stop the launch as Ctrl-C does, then anything of its group left."""
    launch.send_signal(2)
    try:
        launch.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(launch.pid, 9)
        launch.wait()


def measure(case: str, seconds: float, busy: bool) -> None:
    """Run the node and the bare timer side by side; print both rows."""
    kind, rate_hz, params = CASES[case]
    if case == 'launch' and shutil.which('ros2') is None:
        print('launch: not measured: no `ros2` command (a ROS 2 install has one; under ./rally, '
              'RALLY_SIM_ROS_LAUNCH names a ros-launch kit that gives one)')
        return
    spinner = subprocess.Popen([sys.executable, '-c', 'while True: pass'],
                               preexec_fn=die_with_parent) if busy else None
    if case == 'launch':
        launcher, process = start_launch(), None
        pid = simulator_in(launcher)
        if pid is None:
            stop_launch(launcher)
            print('launch: not measured: no simulator node came up within 60 s')
            return
    else:
        launcher, process = None, start_node(*params)
        pid = process.pid
    bare = subprocess.Popen([sys.executable, '-m', 'rally_sim.bench.pacing', '--bare', case],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=die_with_parent)
    node = rclpy.create_node(f'pacing_bench_{case}_{int(busy)}')
    rows = {'node': [], 'bare': []}

    def taker(name):
        def take(msg) -> None:
            stamp = msg.header.stamp
            rows[name].append((time.time(), stamp.sec + 1e-9 * stamp.nanosec))
        return take

    node.create_subscription(kind, TOPICS.get(case, case), taker('node'), 100)
    node.create_subscription(kind, f'bare/{case}', taker('bare'), 100)
    try:
        deadline = time.monotonic() + 60.0
        while min(len(r) for r in rows.values()) < 50 and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.05)
        for r in rows.values():
            r.clear()
        cpu_before, start = cpu_seconds(pid), time.monotonic()
        while time.monotonic() - start < seconds:
            rclpy.spin_once(node, timeout_sec=0.05)
        cpu = (cpu_seconds(pid) - cpu_before) / (time.monotonic() - start)
    finally:
        node.destroy_node()
        stop_node(bare)
        if launcher is not None:
            stop_launch(launcher)
        else:
            stop_node(process)
        if spinner is not None:
            spinner.kill()
    print(f'{case} at {rate_hz:g} Hz, {"one core busy" if busy else "idle"}, {seconds:g} s:')
    for name in ('node', 'bare'):
        if len(rows[name]) < 3:
            print(f'  {name}: {len(rows[name])} messages: nothing to measure')
            continue
        s = statistics_of(rows[name], 1.0 / rate_hz)
        cpu_text = f', CPU {100.0 * cpu:.1f} % of a core' if name == 'node' else ''
        print(f"  {'simulator' if name == 'node' else 'bare rclpy timer'}: {s['rate_hz']:.1f} Hz,"
              f" std {s['std_ms']:.2f} ms, p99 {s['p99_ms']:.1f} ms, longest gap "
              f"{s['max_ms']:.1f} ms, late "
              f"{s['late_pct']:.1f} %, bursts {s['burst_pct']:.1f} %, arrival-stamp spread "
              f"{s['spread_ms']:.1f} ms{cpu_text}")


def main(argv=None) -> int:
    """Measure each case idle and busy (or run the bare publisher, for this benchmark)."""
    parser = argparse.ArgumentParser(prog='python -m rally_sim.bench.pacing', description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--seconds', type=float, default=20.0, help='window per measurement')
    parser.add_argument('--only', choices=tuple(CASES), help='one case')
    parser.add_argument('--busy-only', action='store_true', help='only with a core busy')
    parser.add_argument('--bare', choices=tuple(CASES), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bare:
        return bare_publisher(args.bare)
    print(TARGETS)
    rclpy.init()
    try:
        for case in [args.only] if args.only else CASES:
            for busy in (True,) if args.busy_only else (False, True):
                measure(case, args.seconds, busy)
    finally:
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
