"""
Every node's process stops cleanly on SIGINT or SIGTERM at any moment (rally_sim.runtime.entry).

Each node is started (real-time pacing, every topic subscribed here) and
stopped at seeded moments: half counted from when its stop handler is in
place (start-up: imports, compiled physics, ROS set-up), half from its first
output (mid-step, mid-publish). Each time it must exit 0 without a traceback;
afterwards no process of the test is left, and no Fast DDS shared-memory
file that its processes used is left behind unused (ros_process.ShmWatch).
The moments are waited for in wall time, but what is checked does not
depend on how fast the machine is.
"""

import os
import random
import signal
import subprocess
import sys
import time

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
import pytest
from rally_sim_msgs.msg import WheelSlip, WheelTorqueCommand
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from support import ros_process
from support.scenarios import short_scenario
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray

SEED = 20261123
MOMENTS = {signal.SIGINT: 10, signal.SIGTERM: 2}
CONTROLLER_MOMENTS = {signal.SIGINT: 2, signal.SIGTERM: 1}
"""Fewer for the example controllers: they stop through the same entry (run_node_process) as
the simulator, whose 12 moments search that code for races; theirs check their own nodes
(each at start-up and running). The suite's time allows no more: 22 and 6 moments took 100 s."""
START_UP_S = 2.0
"""Moments counted from the stop handler's installation fall in [0, this)..."""
RUNNING_S = 0.5
"""...and those counted from the first output in [0, this)."""
TIMEOUT_S = 60.0
"""Generous: start-up and exit are slow on a loaded machine."""

TOPICS = {'odom': Odometry, '/tf': TFMessage, '/tf_static': TFMessage, 'wheel_slip': WheelSlip,
          'joint_states': JointState, 'imu': Imu, 'markers': MarkerArray, '/clock': Clock,
          'ackermann_cmd': AckermannDriveStamped, 'wheel_torque_cmd': WheelTorqueCommand}
"""Every output of the simulator and of the example controllers."""

NODES = {
    'simulator': ('rally_sim.ros.node', 'odom', None),
    'path_follower': ('rally_sim.ros.path_follower', 'ackermann_cmd', 'speed'),
    'drift_controller': ('rally_sim.ros.drift_controller', 'ackermann_cmd', 'torque'),
    'drift_lqr_controller': ('rally_sim.ros.drift_lqr_controller', 'ackermann_cmd', 'torque'),
    'mppi_controller': ('rally_sim.ros.mppi_controller', 'ackermann_cmd', 'torque'),
}
"""Node: its module, the output that says it runs, and the command mode of the simulator
that feeds a controller (None: the node is the simulator)."""


class Listener:
    """A node here subscribed to every output, counting messages per topic."""

    def __init__(self):
        """Create the node and its subscriptions (raw: nothing decoded here)."""
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node('shutdown_listener', context=self.context)
        self.counts = dict.fromkeys(TOPICS, 0)
        for topic, kind in TOPICS.items():
            self.node.create_subscription(
                kind, topic, lambda _, topic=topic: self.counts.__setitem__(
                    topic, self.counts[topic] + 1), 10, raw=True)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def spin_until(self, done, timeout_s: float = TIMEOUT_S) -> bool:
        """Spin (taking every message) until done() or the timeout."""
        deadline = time.monotonic() + timeout_s
        while not done() and time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.005)
        return done()

    def close(self) -> None:
        """Destroy the node and shut its context down."""
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


def handles_sigterm(pid: int) -> bool:
    """Return whether `pid` catches SIGTERM: the stop handler is in place (Python does not)."""
    try:
        with open(f'/proc/{pid}/status', encoding='ascii') as status:
            caught = next(line for line in status if line.startswith('SigCgt:'))
    except (OSError, StopIteration):
        return False
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def start(module: str, params: dict, tag: str, log_path) -> subprocess.Popen:
    """Start `python -m module` with parameters, tagged, its output into a file."""
    command = [sys.executable, '-m', module, '--ros-args']
    for name, value in params.items():
        command += ['-p', f'{name}:={value}']
    with open(log_path, 'w', encoding='utf-8') as log:
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                env=ros_process.tagged_environment(tag))


def moments(node: str):
    """Return the seeded (signal, counted from, delay) moments of a node, shuffled."""
    rng = random.Random(f'{SEED}-{node}')
    plan = []
    for number, count in (MOMENTS if node == 'simulator' else CONTROLLER_MOMENTS).items():
        for k in range(count):
            plan.append((number, 'running', rng.uniform(0.0, RUNNING_S)) if k % 2 else
                        (number, 'start-up', rng.uniform(0.0, START_UP_S)))
    rng.shuffle(plan)
    return plan


@pytest.mark.parametrize('node', list(NODES))
def test_node_exits_0_without_traceback_on_a_signal_at_any_moment(node, tmp_path):
    module, output, feeding_mode = NODES[node]
    tag = f'{node}-{tmp_path}'
    watch = ros_process.ShmWatch(tag).start()
    listener = Listener()
    feeder = None
    try:
        if feeding_mode is not None:
            feeder = start('rally_sim.ros.node', {'command_mode': feeding_mode}, tag,
                           tmp_path / 'feeding_simulator.log')
            assert listener.spin_until(lambda: listener.counts['odom'] > 0), \
                (tmp_path / 'feeding_simulator.log').read_text()
        for k, (number, counted_from, delay) in enumerate(moments(node)):
            log_path = tmp_path / f'{k}.log'
            what = f'{node} stopped by {number.name} {delay:.3f} s after its {counted_from}'
            before = listener.counts[output]
            process = start(module, {}, tag, log_path)
            try:
                if counted_from == 'start-up':
                    ready = listener.spin_until(lambda: handles_sigterm(process.pid))
                else:
                    ready = listener.spin_until(lambda: listener.counts[output] > before)
                assert ready and process.poll() is None, f'{what}: not ready: ' + \
                    log_path.read_text()
                listener.spin_until(lambda: False, delay)
                process.send_signal(number)
                ended = listener.spin_until(lambda: process.poll() is not None)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
            text = log_path.read_text()
            assert ended and process.returncode == 0, f'{what}: exit {process.returncode}\n{text}'
            assert 'Traceback' not in text, f'{what}:\n{text}'
    finally:
        if feeder is not None:
            ros_process.stop(feeder)
        listener.close()
    watch.stop()
    assert feeder is None or feeder.returncode == 0, \
        (tmp_path / 'feeding_simulator.log').read_text()
    assert not ros_process.tagged_processes(tag)                     # no orphan
    assert not watch.leaked()                                        # no segment left


def test_signals_repeated_until_the_end_still_give_exit_0(tmp_path):
    # As under ros2 launch: Ctrl-C reaches a node from the terminal and again from
    # launch, and on a loaded machine the second may come while the process exits.
    tag = f'repeated-{tmp_path}'
    listener = Listener()
    try:
        for k in range(3):
            log_path = tmp_path / f'{k}.log'
            before = listener.counts['odom']
            process = start('rally_sim.ros.node', {}, tag, log_path)
            try:
                assert listener.spin_until(lambda: listener.counts['odom'] > before), \
                    log_path.read_text()
                deadline = time.monotonic() + TIMEOUT_S
                while process.poll() is None and time.monotonic() < deadline:
                    process.send_signal(signal.SIGINT)
                    listener.spin_until(lambda: process.poll() is not None, 0.005)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
            text = log_path.read_text()
            assert process.returncode == 0 and 'Traceback' not in text, \
                f'{k}: exit {process.returncode}\n{text}'
    finally:
        listener.close()
    assert not ros_process.tagged_processes(tag)


def start_tool(module: str, args, tag: str, log_path) -> subprocess.Popen:
    """
    Start `python -m module args` (a tool: runner or demo), tagged, output into a file.

    In a process group of its own, as a shell's foreground job: Ctrl-C in a
    terminal signals the whole group; the processes the tool starts are in
    groups of their own, which the tool stops.
    """
    with open(log_path, 'w', encoding='utf-8') as log:
        return subprocess.Popen([sys.executable, '-m', module, *map(str, args)], stdout=log,
                                stderr=subprocess.STDOUT, env=ros_process.tagged_environment(tag),
                                start_new_session=True)


def wait_for(done, timeout_s: float = TIMEOUT_S) -> bool:
    """Wait (polling) until done() or the timeout."""
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        time.sleep(0.01)
    return done()


def stop_tool_at(process: subprocess.Popen, ready, delay_s: float, number: int) -> None:
    """
    Signal a tool `delay_s` after ready(); wait until it exits.

    SIGINT goes to its process group (Ctrl-C in a terminal), SIGTERM to the
    tool alone (`kill`).
    """
    try:
        assert wait_for(ready) and process.poll() is None, 'the tool was not ready in time'
        time.sleep(delay_s)
        if number == signal.SIGINT:
            os.killpg(process.pid, number)
        else:
            process.send_signal(number)
        assert wait_for(lambda: process.poll() is not None), 'the tool did not exit'
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def logs_without_traceback(folder) -> None:
    """Assert that no log under `folder` holds a traceback."""
    for log in folder.rglob('*.log'):
        assert 'Traceback' not in log.read_text(), f'{log}:\n{log.read_text()}'


@pytest.mark.parametrize('counted_from', ['start-up', 'running'])
@pytest.mark.parametrize('number', [signal.SIGINT, signal.SIGTERM])
def test_scenario_runner_stopped_by_a_signal_stops_its_processes_and_has_no_verdict(
        counted_from, number, tmp_path):
    tag = f'runner-{tmp_path}'
    watch = ros_process.ShmWatch(tag).start()
    scenario = short_scenario(tmp_path, 'stopped', duration_s=3600.0, stop_after_laps=0)
    rng = random.Random(f'{SEED}-runner-{counted_from}-{number.name}')
    process = start_tool('rally_sim.scenario', [scenario, '--output', tmp_path / 'out'], tag,
                         tmp_path / 'runner.log')
    if counted_from == 'start-up':      # imports, set-up, the simulator starting
        stop_tool_at(process, lambda: handles_sigterm(process.pid),
                     rng.uniform(0.0, START_UP_S), number)
    else:                               # the controller is answering
        stop_tool_at(process, lambda: list((tmp_path / 'out').glob('*/controller.log')),
                     rng.uniform(0.0, 3.0), number)
    watch.stop()
    text = (tmp_path / 'runner.log').read_text()
    assert process.returncode == 128 + number, text
    assert f'stopped by {number.name}: no result' in text and 'Traceback' not in text, text
    assert not list((tmp_path / 'out').glob('*/report.json'))
    logs_without_traceback(tmp_path / 'out')
    assert not ros_process.tagged_processes(tag)                     # no orphan
    assert not watch.leaked()                                        # no segment left


def test_demo_ends_on_ctrl_c_with_its_results(tmp_path):
    tag = f'demo-{tmp_path}'
    watch = ros_process.ShmWatch(tag).start()
    process = start_tool('rally_sim.demo', ['--driver', 'manoeuvre', '--duration', '600',
                                            '--output', tmp_path / 'out'], tag,
                         tmp_path / 'demo.log')
    stop_tool_at(process, lambda: '| speed ' in (tmp_path / 'demo.log').read_text(), 0.5,
                 signal.SIGINT)
    watch.stop()
    text = (tmp_path / 'demo.log').read_text()
    assert process.returncode == 0 and 'Traceback' not in text, text
    assert 'wrote ' in text and list((tmp_path / 'out').glob('*/run.csv')), text
    logs_without_traceback(tmp_path / 'out')
    assert not ros_process.tagged_processes(tag)
    assert not watch.leaked()
