"""The environments with a sensor profile: an episode is the node's lockstep run, bit for bit."""

import math

from ackermann_msgs.msg import AckermannDriveStamped
import gymnasium
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rally_sim.control.interface import quaternion
import rally_sim.gym  # noqa: F401  (registers the environments)
from rally_sim_msgs.msg import WheelTorqueCommand
from sensor_msgs.msg import Imu, JointState, NavSatFix
from support import ros_process

TOPICS = {'odom': ('odometry', Odometry), 'imu': ('imu', Imu),
          'wheel_encoders': ('wheel_speeds', JointState),
          'steering_angle': ('steering', JointState), 'gnss/fix': ('gnss', NavSatFix)}
ACTIONS = [(0.5 * math.sin(k / 4.0), 0.5 if k < 16 else -0.3) for k in range(30)]


def stamp_ns(msg) -> int:
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


def fields(channel: str, msg) -> list:
    """Return what a message carries of its measurement, as the node wrote it."""
    if channel == 'odometry':
        p, t = msg.pose.pose, msg.twist.twist
        q = p.orientation
        return [p.position.x, p.position.y, q.x, q.y, q.z, q.w, t.linear.x, t.linear.y,
                t.angular.z]
    if channel == 'imu':
        a, w = msg.linear_acceleration, msg.angular_velocity
        return [a.x, a.y, a.z, w.x, w.y, w.z]
    if channel in ('wheel_speeds', 'steering'):
        return list(msg.position) + list(msg.velocity)
    return [msg.latitude, msg.longitude, msg.altitude]


def expected(channel: str, m, sensors, speeds) -> list:
    """Return the same fields of a measurement the environment delivered."""
    v = m.values
    if channel == 'odometry':
        _, pitch, roll = v['ground'].tolist()
        return ([*v['position'].tolist(), *quaternion(roll, pitch, float(v['yaw'][0]))]
                + v['velocity'].tolist() + v['yaw_rate'].tolist())
    if channel == 'imu':
        return v['accelerometer'].tolist() + v['gyro'].tolist()
    if channel == 'wheel_speeds':
        return v['angle'].tolist() + speeds.speeds(m, np.zeros(4)).tolist()
    if channel == 'steering':
        return v['angle'].tolist()
    return list(sensors.geodetic(m))


def test_a_seeded_episode_with_a_profile_is_the_node_lockstep_run(simulator):
    from rally_sim.sim.readings import EncoderSpeeds
    env = gymnasium.make('rally_sim/RallyDrive-v0', sensors='typical', seed=7)
    env.reset(seed=0, options={'progress_m': 100.0, 'speed_m_s': 8.0})
    fleet = env.unwrapped.fleet
    session = fleet.sensed.cars[0].session
    start = session.start
    delivered = []
    for action in ACTIONS:
        _, _, terminated, _, info = env.step(action)
        assert not terminated
        delivered += info['measurements']
    end_ns = session.now_ns

    client = simulator(pacing='lockstep', vehicle='volvo_v40', surface='rally_stage',
                       sensors='typical', seed=7, command_mode='torque', publish_rate_hz=20.0,
                       initial_x=start.x, initial_y=start.y, initial_yaw=start.yaw,
                       initial_speed=start.speed)
    got = {topic: [] for topic in TOPICS}
    for topic, (_, kind) in TOPICS.items():
        client.node.create_subscription(kind, topic, got[topic].append, 10000)
    steer_pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    torque_pub = client.node.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
    assert client.spin_until(lambda: all(
        client.node.count_publishers(topic) > 0 for topic in TOPICS), 60.0)
    client.spin_until(lambda: False, 1.0)      # the node sees the subscriptions
    for steer_action, pedal in ACTIONS:
        steer, drive, brake = fleet.pedals.torques(np.array([steer_action]), np.array([pedal]))
        steering = AckermannDriveStamped()
        steering.drive.steering_angle = float(steer[0])
        torques = WheelTorqueCommand()
        torques.drive_torque, torques.brake_torque = drive[0].tolist(), brake[0].tolist()
        client.publish_acked(steer_pub, steering)
        client.publish_acked(torque_pub, torques)
        assert client.step(fleet.sensed.period_steps).success
    by_channel = {}
    for m in delivered:
        by_channel.setdefault(m.channel, []).append(m)

    def all_in() -> bool:
        return all(len(got[topic]) >= len(by_channel[channel])
                   for topic, (channel, _) in TOPICS.items())
    assert client.spin_until(all_in, 30.0), {t: len(m) for t, m in got.items()}
    speeds = EncoderSpeeds()
    for topic, (channel, _) in TOPICS.items():
        ours = by_channel[channel]
        assert len(ours) >= 10 and ours[-1].stamp_ns <= end_ns
        theirs = got[topic][:len(ours)]
        assert [stamp_ns(msg) for msg in theirs] == [m.stamp_ns for m in ours], topic
        for m, msg in zip(ours, theirs):
            want = expected(channel, m, session.sensors, speeds)
            have = fields(channel, msg)[:len(want)]
            if channel == 'wheel_speeds' and m is ours[0]:
                have, want = have[:4], want[:4]     # the first speed: the wheels' own, then
            assert have == want, (topic, m.stamp_ns)
    ros_process.stop(client.process)


def test_a_profile_without_odometry_is_refused_and_ideal_reads_the_truth(tmp_path):
    profile = tmp_path / 'imu_only.yaml'
    profile.write_text('imu: {}\n')
    with pytest.raises(ValueError, match='no odometry channel'):
        gymnasium.make('rally_sim/RallyDrive-v0', sensors=str(profile))
    sensed = gymnasium.make('rally_sim/RallyDrive-v0', sensors='ideal', seed=1)
    batched = gymnasium.make('rally_sim/RallyDrive-v0')
    options = {'progress_m': 50.0, 'speed_m_s': 5.0}
    first, _ = sensed.reset(seed=2, options=options)
    assert np.array_equal(first, batched.reset(seed=2, options=options)[0])
    observation, *_ = sensed.step([0.2, 0.4])
    truth = sensed.unwrapped.fleet.task.observe(sensed.unwrapped.fleet.states)[0]
    assert np.array_equal(observation, truth)       # ideal: the truth, as published
