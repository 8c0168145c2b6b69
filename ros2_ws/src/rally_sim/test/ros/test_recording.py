"""Recording: ./rally run --record writes a rosbag2 MCAP bag that other tools can read."""

import os
import subprocess
import sys

import pytest
from rally_sim.cli.demo_driver import command_at
from rally_sim.resources import config_file
from rally_sim.ros.recording import full_definition
from rally_sim.world.stages import read_path
from rosbags.rosbag2 import Reader
from support.bags import decode_everything, decode_with_mcap_ros2

EXPECTED = {'/odom': 'nav_msgs/msg/Odometry', '/tf': 'tf2_msgs/msg/TFMessage',
            '/tf_static': 'tf2_msgs/msg/TFMessage', '/wheel_slip': 'rally_sim_msgs/msg/WheelSlip',
            '/joint_states': 'sensor_msgs/msg/JointState', '/imu': 'sensor_msgs/msg/Imu',
            '/markers': 'visualization_msgs/msg/MarkerArray', '/clock': 'rosgraph_msgs/msg/Clock',
            '/ackermann_cmd': 'ackermann_msgs/msg/AckermannDriveStamped',
            '/wheel_torque_cmd': 'rally_sim_msgs/msg/WheelTorqueCommand',
            '/drivetrain_state': 'rally_sim_msgs/msg/DrivetrainState',
            '/ground_truth/odom': 'nav_msgs/msg/Odometry',
            '/stage/surface': 'visualization_msgs/msg/MarkerArray',
            '/stage/path': 'nav_msgs/msg/Path', '/trail': 'visualization_msgs/msg/Marker',
            '/map': 'nav_msgs/msg/OccupancyGrid', '/footprint': 'geometry_msgs/msg/PolygonStamped'}
"""What the manoeuvre demo's bag holds (rwd_gravel has a drivetrain; torque mode: nobody
publishes driver_cmd, so the bag has no such topic; sensors ideal: no encoders, steering
feedback or GNSS; on rally_stage: its latched stage topics and its walls' map; the car's
latched footprint; no view drove it: no drive_assists)."""


def test_full_definition_carries_every_type_used():
    text = full_definition('rally_sim_msgs/msg/WheelSlip')
    assert text.startswith('# Per-wheel tyre state')
    assert '\nMSG: std_msgs/Header\n' in text and '\nMSG: builtin_interfaces/Time\n' in text
    odom = full_definition('nav_msgs/msg/Odometry')
    for name in ('geometry_msgs/PoseWithCovariance', 'geometry_msgs/Pose', 'geometry_msgs/Point',
                 'geometry_msgs/Quaternion', 'geometry_msgs/TwistWithCovariance',
                 'geometry_msgs/Twist', 'geometry_msgs/Vector3', 'std_msgs/Header'):
        assert odom.count(f'\nMSG: {name}\n') == 1, name


@pytest.fixture(scope='module')
def bag(tmp_path_factory):
    folder = tmp_path_factory.mktemp('run')
    bag_dir = folder / 'bag'
    result = subprocess.run(
        [sys.executable, '-m', 'rally_sim.demo', '--driver', 'manoeuvre', '--duration', '4',
         '--surface', 'rally_stage', '--record', str(bag_dir), '--output', str(folder / 'out')],
        capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'recorded' in result.stdout
    return bag_dir


def stamp_s(msg) -> float:
    stamp = msg.clock if hasattr(msg, 'clock') else (
        msg.transforms[0].header.stamp if hasattr(msg, 'transforms') else (
            msg.markers[0].header.stamp if hasattr(msg, 'markers') else msg.header.stamp))
    return stamp.sec + stamp.nanosec / 1e9


def test_bag_layout_and_counts_read_by_rosbags(bag):
    with Reader(bag) as reader:
        topics = {c.topic: c for c in reader.connections}
        assert {t: c.msgtype for t, c in topics.items()} == EXPECTED
        assert reader.message_count == sum(c.msgcount for c in topics.values())
        assert topics['/tf_static'].msgcount == 1
        assert topics['/stage/surface'].msgcount == 1       # latched: once
        assert topics['/stage/path'].msgcount == 1
        # The recorder joins the real-time run once discovery is done (well
        # within the 4 s): from then on it has everything (next test).
        assert topics['/odom'].msgcount > 20
        assert topics['/wheel_torque_cmd'].msgcount > 5


def test_bag_holds_every_state_up_to_the_end_of_the_run(bag):
    # The simulator runs before the recorder has discovered it, so the bag may
    # start after simulated time 0; from its first message on, nothing is lost:
    # every output is there at its rate, without a gap, up to the run's end.
    decoded = decode_with_mcap_ros2(bag)
    ends = {}
    for topic, period in (('/odom', 0.01), ('/wheel_slip', 0.01), ('/clock', 0.01),
                          ('/imu', 0.01), ('/tf', 0.01), ('/joint_states', 0.01),
                          ('/markers', 0.05)):
        stamps = sorted({round(stamp_s(m), 6) for m in decoded[topic]})
        steps = [round((b - a) / period, 6) for a, b in zip(stamps, stamps[1:])]
        assert set(steps) == {1.0}, topic
        ends[topic] = stamps[-1]
    assert ends['/odom'] >= 4.0                   # the run lasts 4 s of simulated time
    for topic in ('/wheel_slip', '/clock', '/imu', '/tf', '/joint_states'):
        assert ends[topic] == ends['/odom'], topic
    assert ends['/markers'] >= ends['/odom'] - 0.05


def test_every_message_decodes_with_its_embedded_definition(bag):
    with Reader(bag) as reader:
        counts = {c.topic: c.msgcount for c in reader.connections}
    decoded = decode_everything(bag)      # by rosbags and by mcap_ros2
    assert {t: len(m) for t, m in decoded.items()} == counts
    slip = decoded['/wheel_slip'][-1]
    assert list(slip.wheel_names) == ['fl', 'fr', 'rl', 'rr']
    assert sum(slip.normal_load) == pytest.approx(1050.0 * 9.81)                  # rwd_gravel
    assert list(slip.friction_coefficient) == pytest.approx([0.4] * 4)    # rally_stage's grass
    stage = decoded['/stage/surface'][0]
    assert sorted(m.text for m in stage.markers if m.text) == [
        'grass', 'gravel', 'ice', 'snow', 'tarmac_dry']
    assert len(decoded['/stage/path'][0].poses) == len(
        read_path(config_file('stages/rally_stage_path.csv')))
    odom = decoded['/odom'][-1]
    assert (odom.header.frame_id, odom.child_frame_id) == ('odom', 'base_link')
    assert odom.twist.twist.linear.x > 1.0                                         # launching
    command = decoded['/wheel_torque_cmd'][-1]
    drive = command_at(stamp_s(command))[1]                 # the manoeuvre at its stamp
    assert list(command.drive_torque) == [0.0, 0.0, drive, drive]
    clock = [m.clock.sec * 10**9 + m.clock.nanosec for m in decoded['/clock']]
    assert clock == sorted(clock) and clock[-1] >= 4.0e9


@pytest.mark.parametrize('record', [True, False])
def test_run_csv_holds_the_states_from_0_to_the_duration_recording_or_not(
        record, bag, tmp_path):
    import csv
    if record:          # the bag's run (the module's fixture)
        folder = bag.parent / 'out'
    else:
        folder = tmp_path / 'out'
        result = subprocess.run(
            [sys.executable, '-m', 'rally_sim.demo', '--driver', 'manoeuvre', '--duration',
             '4', '--surface', 'rally_stage', '--output', str(folder)],
            capture_output=True, text=True, timeout=120, env=dict(os.environ))
        assert result.returncode == 0, result.stdout + result.stderr
    (path,) = folder.glob('*/run.csv')
    with open(path, newline='', encoding='utf-8') as stream:
        times = [float(row['t']) for row in csv.DictReader(stream)]
    period = times[1] - times[0]
    assert times[0] == 0.0 and times[-1] == pytest.approx(4.0)
    assert len(times) == round(4.0 / period) + 1       # 0 to 4 s at the publish rate, each once
