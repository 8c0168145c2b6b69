"""
Our launch files run for real, as `ros2 launch` runs them, and stop cleanly on Ctrl-C.

The real `launch` and `launch_ros` are not on PyPI, and fetched code is never
kept beside the project: these tests use the ros-launch kit named by
RALLY_SIM_ROS_LAUNCH (their source, stand-ins for robot_state_publisher and
rviz2, a runner; support/ros_launch_kit.py), and skip, saying why, without it.
"""

import math
import os
import re
import signal
import subprocess
import sys
import time
import uuid

from nav_msgs.msg import Odometry
import pytest
from rally_sim_msgs.msg import WheelSlip
import rclpy
from rclpy.parameter import parameter_value_to_python
from rclpy.parameter_client import AsyncParameterClient
from support import ros_launch_kit, ros_process
from support.bags import decode_everything
from tf2_msgs.msg import TFMessage
import yaml

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = ros_launch_kit.needed()
START_S = 180.0
"""Generous: the first start of a simulator may load its compiled physics under load."""
STOP_S = 60.0


class Launch:
    """A launch file run as `ros2 launch` runs it, in a process group of its own."""

    def __init__(self, file: str, *arguments: str):
        """Start `run_launch.py rally_sim FILE arguments...`."""
        self.tag = uuid.uuid4().hex
        env = ros_launch_kit.environment(ros_process.tagged_environment(self.tag))
        self.process = subprocess.Popen(
            [sys.executable, ros_launch_kit.path('run_launch.py'), 'rally_sim', file,
             *arguments], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=env, process_group=0)
        self.output = None

    def interrupt(self) -> str:
        """Press Ctrl-C: SIGINT to the launch's process group; wait; return the output."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
        return self.wait()

    def wait(self) -> str:
        """Wait for the launch to end (killed after STOP_S) and return its output."""
        try:
            self.output, _ = self.process.communicate(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.output, _ = self.process.communicate()
            self.output += '\n(test: killed, the launch did not end in time)'
        return self.output

    def left_running(self) -> list:
        """Return the processes of this launch still alive (none, after it ended)."""
        return ros_process.tagged_processes(self.tag)


class Listener:
    """A node in the test process that watches each car's odom, TF and wheel_slip."""

    def __init__(self, namespaces):
        """Subscribe to the cars in `namespaces` ('' for none)."""
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(f'launch_listener_{uuid.uuid4().hex[:8]}',
                                      context=self.context)
        self.seen = {}
        for namespace in namespaces:
            prefix = f'/{namespace}' if namespace else ''
            for topic, kind in (('odom', Odometry), ('wheel_slip', WheelSlip)):
                self.seen[f'{prefix}/{topic}'] = []
                self.node.create_subscription(
                    kind, f'{prefix}/{topic}',
                    lambda msg, key=f'{prefix}/{topic}': self.seen[key].append(msg), 100)
        self.transforms = set()
        self.node.create_subscription(TFMessage, '/tf', self._on_tf, 100)

    def _on_tf(self, msg: TFMessage) -> None:
        self.transforms.update((t.header.frame_id, t.child_frame_id) for t in msg.transforms)

    def parameters(self, node_name: str, names, processes) -> dict:
        """Return the named parameters of a node, asked over its parameter service."""
        client = AsyncParameterClient(self.node, node_name)
        assert ros_process.spin_until(self.node, client.services_are_ready, START_S,
                                      processes), f'no parameter service of {node_name}'
        future = client.get_parameters(list(names))
        assert ros_process.spin_until(self.node, future.done, 30.0, processes)
        values = future.result().values
        return {n: parameter_value_to_python(v) for n, v in zip(names, values)}

    def close(self) -> None:
        """Destroy the node and its context."""
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


def run(file, arguments, cars, simulator=None):
    """
    Run a launch file; check every car's outputs, parameters and frames; Ctrl-C it.

    `cars`: {namespace: {parameter: value the simulator must have}}, one
    simulator a car; or with `simulator` ({parameter: value}) one simulator
    /rally_sim of every car, in one odom frame. Returns the launch's output.
    """
    launch = Launch(file, *arguments)
    listener = Listener(cars)

    def odom_frame(namespace):
        return f'{namespace}/odom' if namespace and simulator is None else 'odom'
    try:
        def everything_seen():
            frames = {(odom_frame(n), f'{n}/base_link' if n else 'base_link') for n in cars}
            return (all(len(msgs) >= 5 for msgs in listener.seen.values())
                    and frames <= listener.transforms)
        assert ros_process.spin_until(listener.node, everything_seen, START_S,
                                      [launch.process]), (
            {k: len(v) for k, v in listener.seen.items()}, listener.transforms)
        if simulator is not None:
            assert listener.parameters('/rally_sim', list(simulator),
                                       [launch.process]) == simulator
        for namespace, expected in cars.items():
            name = f'/{namespace}/rally_sim' if namespace else '/rally_sim'
            if expected:
                assert listener.parameters(name, list(expected), [launch.process]) == expected
            slip = listener.seen[f'/{namespace}/wheel_slip' if namespace else '/wheel_slip'][-1]
            assert len(slip.slip_ratio) == 4
            odom = listener.seen[f'/{namespace}/odom' if namespace else '/odom'][-1]
            assert odom.header.frame_id == odom_frame(namespace)
    finally:
        listener.close()
        output = launch.interrupt()
    check_clean_stop(launch, output)
    return output


def check_clean_stop(launch: Launch, output: str) -> None:
    """Every process started ended with exit 0, no traceback, nothing left running."""
    started = re.findall(r'\[(\S+)\]: process started with pid', output)
    finished = re.findall(r'\[(\S+)\]: process has finished cleanly', output)
    assert started and sorted(started) == sorted(finished), output
    assert 'process has died' not in output, output
    assert 'Traceback' not in output, output
    assert launch.process.returncode == 0, output
    assert launch.left_running() == [], output


def test_one_car_with_default_arguments_and_rviz():
    output = run('rally_sim.launch.py', [], {'': {'vehicle': 'volvo_v40',
                                                  'surface': 'tarmac_dry',
                                                  'publish_clock': True}})
    assert '[rviz2-3]: process started' in output


def test_one_car_with_every_argument_changed(tmp_path):
    params = tmp_path / 'params.yaml'
    params.write_text(yaml.safe_dump({'/**/rally_sim': {'ros__parameters': {
        'publish_rate_hz': 50.0, 'command_timeout_s': 1.0}}}))
    output = run('rally_sim.launch.py',
                 ['rviz:=false', 'vehicle:=rwd_gravel', 'surface:=gravel', 'namespace:=team1',
                  'publish_clock:=false', 'use_sim_time:=false', f'params_file:={params}',
                  f'record:={tmp_path / "bag"}'],
                 {'team1': {'vehicle': 'rwd_gravel', 'surface': 'gravel',
                            'publish_clock': False, 'publish_rate_hz': 50.0}})
    assert 'rviz2' not in output
    decoded = decode_everything(tmp_path / 'bag')           # the launched session, recorded
    assert len(decoded['/team1/odom']) >= 5 and decoded['/tf_static']
    assert decoded['/team1/odom'][-1].header.frame_id == 'team1/odom'


def test_two_cars_with_default_arguments_and_rviz():
    output = run('two_cars.launch.py', [], {'car1': {}, 'car2': {}}, simulator={
        'cars': ['car1', 'car2'], 'car1.vehicle': 'rwd_gravel', 'car2.vehicle': 'volvo_v40',
        'surface': 'gravel', 'publish_clock': True})
    assert output.count('[rally_sim_node-1]: process started') == 1    # one simulator
    assert '[rviz2-4]: process started' in output


def test_two_cars_with_every_argument_changed(tmp_path):
    params = tmp_path / 'params.yaml'
    params.write_text(yaml.safe_dump({'/**/rally_sim': {'ros__parameters': {
        'publish_rate_hz': 50.0}}}))
    run('two_cars.launch.py',
        ['rviz:=false', 'use_sim_time:=false', f'params_file:={params}', 'surface:=rally_stage',
         'car1_namespace:=red', 'car1_vehicle:=volvo_v40',
         'car2_namespace:=blue', 'car2_vehicle:=fwd_hatchback'],
        {'red': {}, 'blue': {}}, simulator={
            'cars': ['red', 'blue'], 'red.vehicle': 'volvo_v40',
            'blue.vehicle': 'fwd_hatchback', 'surface': 'rally_stage', 'publish_rate_hz': 50.0})


def seconds(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def test_the_f1tenth_topic_profile_has_f1tenth_gym_ros_names_and_drives_on_drive():
    from ackermann_msgs.msg import AckermannDriveStamped
    from nav_msgs.msg import OccupancyGrid
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from sensor_msgs.msg import LaserScan
    launch = Launch('rally_sim.launch.py', 'topic_profile:=f1tenth', 'opponent:=true',
                    'rviz:=false')
    listener = Listener(['ego_racecar', 'opp_racecar'])
    node, seen = listener.node, {}
    for topic, kind in (('/scan', LaserScan), ('/opp_scan', LaserScan)):
        seen[topic] = []
        node.create_subscription(kind, topic, seen[topic].append, 10)
    drive = node.create_publisher(AckermannDriveStamped, '/drive', 10)
    try:
        assert ros_process.spin_until(node, lambda: all(len(v) >= 3 for v in (
            *seen.values(), *listener.seen.values())), START_S, [launch.process]), (
            {k: len(v) for k, v in {**seen, **listener.seen}.items()}, launch.interrupt())
        odom = listener.seen['/ego_racecar/odom'][-1]
        assert (odom.header.frame_id, odom.child_frame_id) == ('map', 'ego_racecar/base_link')
        assert seen['/scan'][-1].header.frame_id == 'ego_racecar/laser'
        scan = seen['/scan'][-1]        # as f1tenth_gym_ros's: its header, 30.0 for no return
        assert len(scan.ranges) == 1080 and not any(math.isinf(r) for r in scan.ranges)
        assert (scan.angle_min, scan.angle_increment, scan.range_min, scan.range_max) == \
            pytest.approx((-2.35, 4.7 / 1080, 0.0, 30.0), rel=1e-6)
        assert ('map', 'opp_racecar/base_link') in listener.transforms
        grids = []      # the map, latched: a subscriber that comes late has it
        node.create_subscription(OccupancyGrid, '/map', grids.append, QoSProfile(
            depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        command = AckermannDriveStamped()
        command.drive.speed = 2.0

        def moving():
            drive.publish(command)
            return listener.seen['/ego_racecar/odom'][-1].twist.twist.linear.x > 1.0
        assert ros_process.spin_until(node, moving, START_S, [launch.process])
        assert ros_process.spin_until(node, lambda: grids, 30.0, [launch.process])
        assert grids[0].header.frame_id == 'map' and grids[0].info.resolution == \
            pytest.approx(0.05)
        assert listener.seen['/opp_racecar/odom'][-1].twist.twist.linear.x < 0.1   # not driven
        ego = listener.seen['/ego_racecar/odom']        # /drive stops: the command holds
        stopped_s = seconds(ego[-1].header.stamp)
        assert ros_process.spin_until(node, lambda: seconds(ego[-1].header.stamp) > stopped_s
                                      + 1.0, START_S, [launch.process])
        assert ego[-1].twist.twist.linear.x > 1.0       # no watchdog braked it
    finally:
        listener.close()
        output = launch.interrupt()
    check_clean_stop(launch, output)


def test_the_f1tenth_profile_on_a_map_and_start_pose_of_your_own_drives_on_cmd_vel(tmp_path):
    """Issue 47: a student's own map and start pose as launch arguments, keyboard teleop."""
    # the map named without .yaml, as f1tenth_gym_ros's map_path names it (issue 59)
    from geometry_msgs.msg import Twist
    from support.maps import corridor_map
    from rally_sim_msgs.msg import WheelSlip as Slip
    corridors = corridor_map(str(tmp_path))
    launch = Launch('rally_sim.launch.py', 'topic_profile:=f1tenth', 'rviz:=false',
                    f'map:={corridors[:-5]}', 'sx:=9.1', 'sy:=2.6', 'stheta:=1.5708',
                    'scan_rate_hz:=50', 'contact:=bounce')
    listener = Listener(['ego_racecar'])
    node, slips = listener.node, []
    node.create_subscription(Slip, '/ego_racecar/wheel_slip', slips.append, 10)
    twist = node.create_publisher(Twist, '/cmd_vel', 10)
    odom = listener.seen['/ego_racecar/odom']
    try:
        assert ros_process.spin_until(node, lambda: len(odom) >= 3 and slips, START_S,
                                      [launch.process]), launch.interrupt()
        start = odom[0].pose.pose
        assert (start.position.x, start.position.y) == pytest.approx((9.1, 2.6), abs=1e-6)
        assert 2.0 * math.atan2(start.orientation.z, start.orientation.w) == pytest.approx(
            1.5708, abs=1e-6)
        assert list(slips[-1].friction_coefficient) == pytest.approx([1.05] * 4, abs=0.06)
        command = Twist()
        command.linear.x = 1.0

        def moving():
            twist.publish(command)
            return odom[-1].twist.twist.linear.x > 0.5
        assert ros_process.spin_until(node, moving, START_S, [launch.process])
        stamps = [o.header.stamp.sec + o.header.stamp.nanosec * 1e-9 for o in odom[-20:]]
        assert min(abs(b - a - 0.02) for a, b in zip(stamps, stamps[1:])) < 1e-6    # 50 Hz
    finally:
        listener.close()
        output = launch.interrupt()
    check_clean_stop(launch, output)
    line = next((line for line in output.splitlines() if 'four_wheel' in line), output)
    assert (f'f1tenth (four_wheel) on uniform tarmac_dry, walls from {corridors} (contact '
            'bounce);') in line, line
    assert 'command mode speed (the last command held (no watchdog))' in line, line


def test_a_vehicle_that_does_not_exist_ends_the_launch_with_the_presets():
    launch = Launch('rally_sim.launch.py', 'vehicle:=nosuchcar', 'rviz:=true')
    output = launch.wait()
    assert re.search(r'\[rally_sim_node-1\]: process has died \[pid \d+, exit code 2', output)
    assert "no vehicle 'nosuchcar'" in output and 'presets: arcade_group2' in output, output
    assert 'Traceback' not in output, output
    assert launch.process.returncode == 1, output       # a script sees the launch fail
    assert 'rally_sim exited with code 2 (its reason is above): the launch fails' in output
    assert launch.left_running() == [], output


def test_a_map_that_does_not_exist_is_blamed_on_the_launch_argument_that_gave_it(tmp_path):
    """Issue 59: map:= a file that is not there names map:=, not the package's parameter file."""
    missing = tmp_path / 'your_map.yaml'
    launch = Launch('rally_sim.launch.py', 'topic_profile:=f1tenth', f'map:={missing}',
                    'rviz:=false')
    output = launch.wait()
    assert f"launch argument 'map': no occupancy map '{missing}'" in output, output
    assert 'rally_sim.yaml)' not in output, output         # not blamed on the package's file
    assert launch.process.returncode == 1, output
    assert launch.left_running() == [], output


def test_rally_exec_gives_the_ros2_command_line(tmp_path):
    """`./rally exec ros2 ...`, as the README gives it: set a live node's parameter, read it."""
    root = os.path.normpath(os.path.join(PACKAGE, '..', '..', '..'))
    tag = f'cli-{tmp_path}'
    env = ros_process.tagged_environment(tag)
    simulator = subprocess.Popen(
        [sys.executable, '-m', 'rally_sim.ros.node', '--ros-args', '-p', 'pacing:=lockstep'],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        def ros2(*words):
            return subprocess.run([os.path.join(root, 'rally'), 'exec', 'ros2', *words],
                                  cwd=root, capture_output=True, text=True, timeout=START_S,
                                  env=env)
        deadline = time.monotonic() + START_S      # the node may still be starting
        while True:
            done = ros2('param', 'set', '/rally_sim', 'real_time_factor', '2.5',
                        '--no-daemon')
            if 'Set parameter successful' in done.stdout or time.monotonic() > deadline:
                break
        assert done.returncode == 0 and 'Set parameter successful' in done.stdout, \
            done.stdout + done.stderr
        done = ros2('param', 'get', '/rally_sim', 'real_time_factor', '--no-daemon',
                    '--spin-time', '5')
        assert done.returncode == 0 and 'Double value is: 2.5' in done.stdout, \
            done.stdout + done.stderr
    finally:
        ros_process.stop(simulator)
    assert not ros_process.tagged_processes(tag)


@pytest.mark.parametrize('file, arguments, cars', [
    ('two_cars.launch.py', ['rviz:=false'], 2),
    ('rally_sim.launch.py', ['rviz:=false', 'topic_profile:=f1tenth'], 1)])
def test_view_true_serves_the_live_view_of_the_launched_cars(file, arguments, cars, tmp_path):
    from support.browser import Browser, free_port, served
    port = free_port()
    launch = Launch(file, 'view:=true', f'view_port:={port}', *arguments)
    browser = Browser(str(tmp_path))
    try:
        served(f'http://localhost:{port}/', lambda: launch.process.poll() is None, START_S)
        browser.open(f'http://localhost:{port}/')
        browser.wait(f"rallyView.role === 'watch' && rallyView.cars.length === {cars} && "
                     f'rallyView.state && rallyView.state.cars.length === {cars}', START_S)
        if 'topic_profile:=f1tenth' in arguments:       # its map and its lidar too
            browser.wait('rallyView.world.ground !== null && '
                         "Object.keys(rallyView.world.scans).includes('ego_racecar')", START_S)
        assert browser.errors() == []
    finally:
        browser.close()
        output = launch.interrupt()
    assert '[view_server-' in output and 'process has died' not in output, output
