"""
Benchmark of the simulator node over DDS, with the node in its own process.

    python -m rally_sim.bench_node [--seconds S]

Prints the odometry rate and its jitter in real-time pacing (wall-clock
inter-arrival times at this client), the node's CPU use meanwhile, and the
lockstep throughput: simulated steps per wall second through the `step`
service for a few batch sizes.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

from nav_msgs.msg import Odometry
from rally_sim_msgs.srv import Step
import rclpy
from rclpy.experimental import EventsExecutor


def start_node(*params: str) -> subprocess.Popen:
    """Start the simulator node with `name:=value` parameters."""
    args = [sys.executable, '-m', 'rally_sim.ros.node', '--ros-args']
    for param in params:
        args += ['-p', param]
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_node(process: subprocess.Popen) -> None:
    """Stop the node cleanly."""
    process.send_signal(2)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def cpu_seconds(pid: int) -> float:
    """Return the user + system CPU time of a process so far [s]."""
    with open(f'/proc/{pid}/stat', encoding='ascii') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def realtime(node, seconds: float) -> None:
    """Measure rate, jitter and CPU of the node in real-time pacing."""
    process = start_node('command_timeout_s:=0.0', 'initial_speed:=10.0')
    arrivals = []
    node.create_subscription(Odometry, 'odom', lambda _: arrivals.append(time.monotonic()), 100)
    deadline = time.monotonic() + 20.0
    while len(arrivals) < 50 and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)
    arrivals.clear()
    cpu0, wall0 = cpu_seconds(process.pid), time.monotonic()
    while time.monotonic() - wall0 < seconds:
        rclpy.spin_once(node, timeout_sec=0.05)
    cpu = (cpu_seconds(process.pid) - cpu0) / (time.monotonic() - wall0)
    stop_node(process)
    gaps = [1000.0 * (b - a) for a, b in zip(arrivals, arrivals[1:])]
    print(f'real time, physics 1000 Hz, publishing 100 Hz, {seconds:g} s:')
    print(f'  odom rate {len(gaps) / (arrivals[-1] - arrivals[0]):.1f} Hz; inter-arrival '
          f'mean {statistics.mean(gaps):.2f} ms, std {statistics.pstdev(gaps):.2f} ms, '
          f'min {min(gaps):.2f} ms, max {max(gaps):.2f} ms')
    print(f'  node CPU {100.0 * cpu:.0f} % of one core')


def lockstep(node) -> None:
    """Measure simulated steps per wall second through the step service."""
    process = start_node('pacing:=lockstep', 'command_timeout_s:=0.0', 'initial_speed:=10.0')
    client = node.create_client(Step, 'step')
    assert client.wait_for_service(timeout_sec=20.0), 'no step service'
    executor = EventsExecutor()
    executor.add_node(node)
    print('lockstep, physics 1000 Hz, client in another process (events executor):')
    for batch, calls in ((1, 1000), (10, 1000), (100, 200), (1000, 20)):
        request = Step.Request(steps=batch)
        start = time.monotonic()
        for _ in range(calls):
            future = client.call_async(request)
            executor.spin_until_future_complete(future, timeout_sec=10.0)
        elapsed = time.monotonic() - start
        print(f'  step({batch:>4}): {calls / elapsed:7.0f} calls/s, '
              f'{batch * calls / elapsed:8.0f} steps/s, x{batch * calls * 0.001 / elapsed:.1f} '
              'real time')
    stop_node(process)


def main(argv=None) -> int:
    """Run both measurements."""
    parser = argparse.ArgumentParser(prog='python -m rally_sim.bench_node', description=__doc__)
    parser.add_argument('--seconds', type=float, default=10.0, help='real-time window')
    args = parser.parse_args(argv)
    rclpy.init()
    node = rclpy.create_node('rally_sim_bench')
    try:
        realtime(node, args.seconds)
        lockstep(node)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
