"""
Nothing is lost at the start: whatever order the processes come up in, a run starts at t = 0.

The simulator (synchronous with the path follower, observed by a recorder),
the path follower and the recorder start in each of the six orders,
with seeded random delays; every run must record every state from t = 0,
and the run is the same every time (the car's position after 6 s, to the
last bit).
"""

import itertools
import random
import time

from builtin_interfaces.msg import Time
from nav_msgs.msg import Odometry
from rally_sim.control.path import ClosedPath
from rally_sim.resources import config_file
from rally_sim.ros.recording import BagRecorder
from rally_sim.world.stages import read_path
from rally_sim_msgs.msg import WheelSlip
import rclpy
from support import ros_process
from support.bags import decode_everything

SEED = 20261124
"""The delays are drawn from this seed (printed by the test)."""
ORDERS = list(itertools.permutations(['simulator', 'controller', 'recorder']))
"""Every start order (each with delays of its own)."""
END = Time(sec=6)
RECORDER = 'start_recorder'


class Recorder:
    """The observer: a node in this process recording a bag, started at its turn."""

    def __init__(self, bag_dir):
        """Create the node and its bag recorder."""
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(RECORDER, context=self.context)
        self.odom = {}
        self.node.create_subscription(Odometry, 'odom', self._on_odom, 10000)
        self.bag = BagRecorder(self.node, str(bag_dir), {'odom': Odometry,
                                                         'wheel_slip': WheelSlip})

    def _on_odom(self, msg: Odometry) -> None:
        self.odom[msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec] = msg

    def close(self) -> None:
        """Finish the bag, destroy the node."""
        self.bag.close()
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


def one_run(order, delays_s, bag_dir, start_pose):
    """Start the three in `order` with `delays_s` before each; return the recorded states."""
    x, y, yaw = start_pose
    processes, recorder = [], None
    try:
        for part, delay_s in zip(order, delays_s):
            time.sleep(delay_s)
            if part == 'simulator':
                processes.append(ros_process.start_module(
                    'rally_sim.ros.node', '--ros-args', '-p', 'pacing:=fast',
                    '-p', 'surface:=rally_stage', '-p', 'command_mode:=speed',
                    '-p', 'sync_controllers:=[path_follower]',
                    '-p', f'sync_observers:=[{RECORDER}]', '-p', 'sync_timeout_s:=120.0',
                    '-p', f'initial_x:={x}', '-p', f'initial_y:={y}',
                    '-p', f'initial_yaw:={yaw}'))
            elif part == 'controller':
                processes.append(ros_process.start_module('rally_sim.ros.path_follower'))
            else:
                recorder = Recorder(bag_dir)
        assert ros_process.spin_until(recorder.node, lambda: END.sec * 10**9 in recorder.odom,
                                      300.0, processes), f'the run did not reach {END.sec} s'
        return dict(recorder.odom)
    finally:
        for process in processes:
            ros_process.stop(process)
        if recorder is not None:
            recorder.close()


def test_every_start_order_gives_the_same_run_from_t_0(tmp_path):
    path = ClosedPath(read_path(config_file('stages/rally_stage_path.csv')))
    x, y = (float(v) for v in path.points[0])
    start_pose = (x, y, path.locate(x, y).heading_rad)
    rng = random.Random(SEED)
    print(f'start delays drawn with seed {SEED}')
    positions = set()
    for run, order in enumerate(ORDERS):
        delays_s = [0.0] + [rng.uniform(0.0, 1.5) for _ in range(2)]
        bag_dir = tmp_path / f'run{run}'
        states = one_run(order, delays_s, bag_dir, start_pose)
        what = f'run {run}: {order}, delays {[round(d, 2) for d in delays_s]} s'
        stamps = sorted(s for s in states if s <= END.sec * 10**9)
        assert stamps == [10**7 * k for k in range(100 * END.sec + 1)], what   # from t = 0, all
        bagged = decode_everything(bag_dir)
        first = min(m.header.stamp.sec * 10**9 + m.header.stamp.nanosec
                    for m in bagged['/odom'])
        assert first == 0, what
        at_end = states[END.sec * 10**9].pose.pose.position
        positions.add((at_end.x, at_end.y))
        assert len(positions) == 1, (what, positions)         # the same run every time
    progress = path.locate(*positions.pop()).progress_m
    print(f'progress after {END.sec} s: {progress!r} m in each of {len(ORDERS)} runs')
    assert progress > 25.0
