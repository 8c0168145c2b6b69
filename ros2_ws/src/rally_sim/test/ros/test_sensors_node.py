"""The node's sensors and actuators over real DDS: rates, latencies, TF source, one seed."""

import math

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rally_sim.resources import vehicle_path
from rally_sim.sensors import load_profile
from sensor_msgs.msg import Imu, JointState, NavSatFix
from support import ros_process
from tf2_msgs.msg import TFMessage

TOPICS = {'odom': Odometry, 'ground_truth/odom': Odometry, 'imu': Imu,
          'wheel_encoders': JointState, 'steering_angle': JointState, 'gnss/fix': NavSatFix,
          '/tf': TFMessage}


def stamp_ns(msg):
    stamp = msg.header.stamp if hasattr(msg, 'header') else msg.transforms[0].header.stamp
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def record(simulator, seconds=2.0, until=None, **params):
    """
    Run the simulator in lockstep with `params`; return every message of TOPICS.

    until(got, end_ns): what must have come before the recording ends (waited
    for, at most 30 s): each topic is a writer of its own, as late as it is.
    """
    client = simulator(pacing='lockstep', command_timeout_s=0.0, initial_speed=8.0,
                       surface='rally_stage', **params)
    got = {topic: [] for topic in TOPICS}
    subscriptions = [client.node.create_subscription(kind, topic, got[topic].append, 100000)
                     for topic, kind in TOPICS.items()]
    # every subscription matched here, then seen by the node: step(0) publishes the truth
    # (ground_truth/odom, the wheels on /tf) again until both come, stamped 0: this node's
    # (a stopping node of an earlier test may still deliver its last ones)

    def seen() -> bool:
        return all(any(stamp_ns(m) == 0 for m in got[topic])
                   for topic in ('ground_truth/odom', '/tf'))
    assert client.spin_until(lambda: all(s.get_publisher_count() > 0 for s in subscriptions),
                             60.0), 'sensor topics missing'
    while not seen():
        client.step(0)
        client.spin_until(seen, 0.5)
    client.spin_until(lambda: False, 1.0)   # the node asks the graph every 0.1 s: the rest
    end_ns = 0
    for _ in range(round(seconds / 0.1)):
        response = client.step(100)
        end_ns = response.sim_time.sec * 1_000_000_000 + response.sim_time.nanosec
        assert client.spin_until(
            lambda: stamp_ns(got['ground_truth/odom'][-1]) == end_ns, 30.0)
    if until is not None:
        client.spin_until(lambda: until(got, end_ns), 30.0)
    client.spin_until(lambda: False, 0.3)       # what is still on its way
    output = ros_process.stop(client.process)   # the next run's client must not find it
    assert 'Traceback' not in output, output
    return got, end_ns


TYPICAL = load_profile('typical').channels
CHANNEL_TOPICS = {'odom': 'odometry', 'imu': 'imu', 'wheel_encoders': 'wheel_speeds',
                  'steering_angle': 'steering', 'gnss/fix': 'gnss'}


def last_due_ns(channel: str, end_ns: int) -> int:
    """Return the stamp of a typical channel's last measurement out by end_ns."""
    spec = TYPICAL[channel]
    period = round(1e9 / spec.rate_hz)
    # published delay_s after measuring: what was measured in the last delay_s is not out
    return (end_ns - round(spec.delay_s * 1e9)) // period * period


def measured_poses(got):
    """Return the /tf messages of the measured pose (odom -> base_link alone)."""
    return [tf for tf in got['/tf'] if len(tf.transforms) == 1
            and tf.transforms[0].child_frame_id == 'base_link']


def everything_out(got, end_ns) -> bool:
    """Return whether each channel's last measurement and each measured pose on /tf came."""
    return all(got[topic] and stamp_ns(got[topic][-1]) == last_due_ns(channel, end_ns)
               for topic, channel in CHANNEL_TOPICS.items()) and {
        stamp_ns(m) for m in got['odom']} <= {stamp_ns(tf) for tf in measured_poses(got)}


def test_typical_sensors_at_their_rates_late_and_in_error(simulator):
    # /tf is the busiest writer: under load its last poses came 0.6 s of states after
    # their odometry (seen once: 69 of 100), so the recording waits for everything
    got, end_ns = record(simulator, sensors='typical', seed=11, until=everything_out)
    for topic, channel in CHANNEL_TOPICS.items():
        spec = TYPICAL[channel]
        stamps = [stamp_ns(m) for m in got[topic]]
        period = round(1e9 / spec.rate_hz)
        assert set(np.diff(stamps)) == {period}, topic
        assert stamps[-1] == last_due_ns(channel, end_ns), topic
    truth = {stamp_ns(m): m for m in got['ground_truth/odom']}
    errors = []
    for m in got['odom']:
        t = truth[stamp_ns(m)]
        errors.append(m.pose.pose.position.x - t.pose.pose.position.x)
        assert m.child_frame_id == 'base_link' and t.child_frame_id == 'base_link_ground_truth'
        assert m.pose.covariance[0] == pytest.approx(0.05 ** 2)
    assert 0.001 < np.std(errors) + abs(np.mean(errors)) < 0.3        # 5 cm sigma
    fix = got['gnss/fix'][-1]
    # near rally_stage's datum (the car starts on the stage's path, 50-60 m from it)
    assert fix.latitude == pytest.approx(66.4979, abs=1e-3)
    assert fix.longitude == pytest.approx(25.718, abs=3e-3)
    assert fix.position_covariance[0] == pytest.approx(1.27 ** 2)
    assert fix.position_covariance_type == NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN
    for msg in got['imu']:
        assert all(math.isfinite(v) for v in (msg.angular_velocity.z, msg.linear_acceleration.x))
    encoders = got['wheel_encoders'][-1]
    assert encoders.velocity[2] == pytest.approx(8.0 / 0.327, rel=0.2)
    # TF odom -> base_link is the measured pose, stamped when it was measured
    poses = {stamp_ns(m): m.pose.pose for m in got['odom']}
    measured_tf = measured_poses(got)
    missing = sorted(set(poses) - {stamp_ns(tf) for tf in measured_tf})
    assert len(measured_tf) == len(got['odom']), f'no measured pose on /tf at {missing} ns'
    for tf in measured_tf:
        pose = poses[stamp_ns(tf)]
        assert tf.transforms[0].transform.translation.x == pose.position.x
    wheels = [tf for tf in got['/tf'] if len(tf.transforms) > 1]
    assert wheels and all(t.transforms[0].child_frame_id == 'wheel_fl_steer' for t in wheels)


def test_one_seed_one_run_in_lockstep_another_seed_another(simulator):
    def odometry(seed):
        got, _ = record(simulator, 1.0, sensors='rough', seed=seed)
        return [(stamp_ns(m), m.pose.pose.position.x, m.twist.twist.linear.x)
                for m in got['odom']]
    first = odometry(5)
    assert len(first) >= 15
    assert odometry(5) == first
    assert odometry(6) != first


@pytest.mark.parametrize('source, children', [
    ('truth', {'base_link', 'base_link_ground_truth'}),
    ('none', {'base_link_ground_truth'})])
def test_tf_source_truth_or_none(simulator, source, children):
    got, _ = record(simulator, 0.3, sensors='typical', tf_source=source)
    roots = {t.child_frame_id for tf in got['/tf'] for t in tf.transforms
             if t.header.frame_id == 'odom'}
    assert roots == children


def test_a_steering_dead_time_in_the_vehicle_file_is_exact_to_the_step(simulator, tmp_path):
    """A steering dead time of 0.137 s: the wheels turn in the 138th step after the command."""
    text = open(vehicle_path('volvo_v40'), encoding='utf-8').read()
    car = tmp_path / 'slow_steering.yaml'
    car.write_text(text + 'actuation:\n  steer: {delay_s: 0.137}\n')
    client = simulator(pacing='lockstep', command_timeout_s=0.0, vehicle=str(car))
    joints = []
    client.node.create_subscription(JointState, 'joint_states', joints.append, 10000)
    steer = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    client.step(5)
    command = AckermannDriveStamped()
    command.drive.steering_angle = 0.3
    client.publish_acked(steer, command)

    def steer_after(steps):
        response = client.step(steps)
        wanted = (response.sim_time.sec, response.sim_time.nanosec)
        for _ in range(10):
            found = [m for m in joints if (m.header.stamp.sec, m.header.stamp.nanosec) == wanted]
            if found:
                return found[-1].position[0]
            client.spin_until(lambda: False, 0.5)
            client.step(0)
        raise AssertionError(f'no joint_states stamped {wanted}')
    assert steer_after(137) == 0.0          # 137 steps of 1 ms: not yet
    assert steer_after(1) > 0.0             # the 138th step starts 0.137 s after it came


@pytest.mark.parametrize('profile, said', [
    ('imu: {rate_hz: 5000.0}\n', "key 'imu.rate_hz' = 5000 in {path} is above the physics "
                                 'rate: it must be in (0, 1000]'),
    ('gnss: {horizontal: {stddev: -1.0}}\n', "key 'gnss.horizontal.stddev' = -1.0 in {path} "
                                             'must be a number in [0, 1000]'),
    ('lidar: {beams: 0, range_max_m: 10}\n',
     "key 'lidar.beams' = 0 in {path} must be a whole number in [1, 100000]")])
def test_a_bad_sensor_profile_stops_the_node_naming_key_file_and_range(tmp_path, profile, said):
    path = tmp_path / 'profile.yaml'
    path.write_text(profile)
    process = ros_process.start_module('rally_sim.ros.node', '--ros-args', '-p',
                                       f'sensors:={path}')
    try:
        process.wait(timeout=120.0)
    finally:
        output = ros_process.stop(process)
    assert process.returncode == 2, output
    assert said.format(path=path) in output and 'Traceback' not in output, output
