"""The example path follower drives the simulator around the rally stage, over DDS."""

import math

from builtin_interfaces.msg import Time
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rally_sim.control.path import ClosedPath
from rally_sim.resources import config_file
from rally_sim.world.stages import read_path
from support import ros_process


def test_path_follower_keeps_the_car_on_the_stage(simulator):
    path = ClosedPath(read_path(config_file('stages/rally_stage_path.csv')))
    start = path.points[0]
    heading = path.locate(*start).heading_rad
    # Synchronous mode: the simulator waits for each answer, so the result does
    # not depend on how fast this machine runs the two processes.
    # The test's node observes: time starts once it is matched, so it sees every state.
    client = simulator(client_name='follower_test', surface='rally_stage',
                       command_mode='speed', pacing='fast', sync_controllers='[path_follower]',
                       sync_observers='[follower_test]', sync_timeout_s=60.0,
                       initial_x=float(start[0]), initial_y=float(start[1]),
                       initial_yaw=heading)
    samples = []
    client.node.create_subscription(Odometry, 'odom', samples.append, 10000)
    follower = ros_process.start_module('rally_sim.ros.path_follower')
    try:
        def driven_s():
            return samples[-1].header.stamp.sec if samples else 0
        assert client.spin_until(lambda: driven_s() >= 25, timeout_s=300.0)
    finally:
        output = ros_process.stop(follower)
    assert 'following' in output
    # The simulator runs on while the test stops: judge the run up to 25 s.
    run = sorted({m.header.stamp.sec * 10**9 + m.header.stamp.nanosec: m for m in samples
                  if m.header.stamp.sec < 25 or m.header.stamp == Time(sec=25)}.items())
    assert [stamp for stamp, _ in run] == [10**7 * k for k in range(2501)]   # from t = 0
    errors = np.array([path.locate(m.pose.pose.position.x, m.pose.pose.position.y)
                       .cross_track_m for _, m in run])
    last = run[-1][1]
    progress = path.locate(last.pose.pose.position.x, last.pose.pose.position.y).progress_m
    assert 150.0 < progress < path.length_m                  # it went round the stage
    assert math.sqrt(np.mean(errors ** 2)) < 0.5
    assert np.abs(errors).max() < 2.0                        # the road is 8 m wide
    assert last.twist.twist.linear.x == pytest.approx(8.0, abs=3.0)
