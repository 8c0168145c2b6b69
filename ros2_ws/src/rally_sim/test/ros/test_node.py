"""The simulator node over real DDS, in its own process."""

import math
import signal
import time

from ackermann_msgs.msg import AckermannDriveStamped
from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseWithCovarianceStamped
from nav_msgs.msg import Odometry
import pytest
from rally_sim.physics import Surface
from rally_sim.resources import config_file
from rally_sim_msgs.msg import WheelSlip, WheelTorqueCommand
from rally_sim_msgs.srv import Step
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_srvs.srv import Trigger
from support import ros_process
from support.vehicles import vehicle
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray
import yaml

LOCKSTEP = {'pacing': 'lockstep'}
MODELS = ['volvo_v40', 'volvo_v40_kinematic', 'arcade_group_b']
"""A preset of each vehicle model: the tests taking `preset` run on every model."""


@pytest.fixture(params=MODELS)
def preset(request):
    """Return the vehicle preset of one model."""
    return request.param


class Latest:
    """Keep every message of a topic; `last` is the newest."""

    def __init__(self, client, msg_type, topic):
        """Subscribe on the client's node."""
        self.messages = []
        client.node.create_subscription(msg_type, topic, self.messages.append, 10000)

    @property
    def last(self):
        """Return the newest message."""
        return self.messages[-1]


def torque(drive=(0.0, 0.0, 0.0, 0.0), brake=(0.0, 0.0, 0.0, 0.0), handbrake=0.0):
    msg = WheelTorqueCommand()
    msg.drive_torque, msg.brake_torque, msg.handbrake = list(drive), list(brake), handbrake
    return msg


def ackermann(steer=0.0, speed=0.0, rate=0.0):
    msg = AckermannDriveStamped()
    msg.drive.steering_angle = steer
    msg.drive.steering_angle_velocity = rate
    msg.drive.speed = speed
    return msg


def at(client, latest, response):
    """
    Return the message of `latest` stamped with the step response's sim time.

    The simulator publishes only to the subscribers it has matched; if the
    test's subscription was matched after the step, step(0) publishes the
    same state again (same stamp).
    """
    wanted = (response.sim_time.sec, response.sim_time.nanosec)

    def find():
        for msg in reversed(latest.messages):
            if (msg.header.stamp.sec, msg.header.stamp.nanosec) == wanted:
                return msg
        return None
    for _ in range(10):
        if client.spin_until(lambda: find() is not None, timeout_s=3.0):
            return find()
        again = client.step(0).sim_time
        assert (again.sec, again.nanosec) == wanted
    raise AssertionError(f'no message stamped {wanted}')


def yaw_of(q):
    return math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


def stamp_ns(msg):
    stamp = msg.clock if isinstance(msg, Clock) else (
        msg.transforms[0].header.stamp if isinstance(msg, TFMessage) else (
            msg.markers[0].header.stamp if isinstance(msg, MarkerArray) else msg.header.stamp))
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def until_every_stream_has_a_message(client, streams, timeout_s=60.0):
    """Step until each stream got a message: the simulator publishes only to subscribers."""
    deadline = time.monotonic() + timeout_s
    while not all(s.messages for s in streams.values()):
        assert time.monotonic() < deadline, 'an output never reached the test'
        client.step(50)
        client.spin_until(lambda: all(s.messages for s in streams.values()), timeout_s=0.2)


def test_outputs_appear_at_their_rates_with_consistent_tf(simulator, preset):
    # Lockstep: the rates are checked in simulated time, whatever the machine's speed.
    client = simulator(pacing='lockstep', initial_speed=5.0, command_timeout_s=0.0,
                       vehicle=preset)
    topics = {'odom': Odometry, '/tf': TFMessage, 'wheel_slip': WheelSlip,
              'joint_states': JointState, 'imu': Imu, 'markers': MarkerArray, '/clock': Clock}
    streams = {topic: Latest(client, msg_type, topic) for topic, msg_type in topics.items()}
    until_every_stream_has_a_message(client, streams)
    start = client.step(0).sim_time
    start_ns = start.sec * 1_000_000_000 + start.nanosec
    response = client.step(2000)
    end_ns = response.sim_time.sec * 1_000_000_000 + response.sim_time.nanosec
    assert end_ns - start_ns == 2_000_000_000
    assert client.spin_until(lambda: all(
        s.messages and stamp_ns(s.last) == end_ns for t, s in streams.items()
        if t != 'markers'), timeout_s=30.0)
    for topic, stream in streams.items():
        window = {stamp_ns(m) for m in stream.messages if start_ns < stamp_ns(m) <= end_ns}
        assert len(window) == (40 if topic == 'markers' else 200), topic   # 20 Hz, 100 Hz
    # Simulated time advances at the physics step and agrees with the stamps.
    odom = streams['odom'].last
    assert odom.header.frame_id == 'odom' and odom.child_frame_id == 'base_link'
    assert odom.header.stamp.nanosec % 1_000_000 == 0
    # TF odom -> base_link carries the odometry pose at the same stamp.
    by_stamp = {(m.header.stamp.sec, m.header.stamp.nanosec): m
                for m in streams['odom'].messages}
    checked = 0
    truth = [tf for tf in streams['/tf'].messages[-100:]
             if tf.transforms[0].child_frame_id == 'base_link_ground_truth']
    assert len(truth) >= 40      # beside the pose, the true pose: the same with ideal sensors
    for tf in [tf for tf in streams['/tf'].messages[-100:] if tf not in truth]:
        base = tf.transforms[0]
        key = (base.header.stamp.sec, base.header.stamp.nanosec)
        if key in by_stamp:
            pose = by_stamp[key].pose.pose
            assert (base.header.frame_id, base.child_frame_id) == ('odom', 'base_link')
            assert base.transform.translation.x == pose.position.x
            assert base.transform.translation.y == pose.position.y
            assert base.transform.rotation == pose.orientation
            checked += 1
        assert [(t.header.frame_id, t.child_frame_id) for t in tf.transforms[1:]] == [
            ('base_link', 'wheel_fl_steer'), ('wheel_fl_steer', 'wheel_fl'),
            ('base_link', 'wheel_fr_steer'), ('wheel_fr_steer', 'wheel_fr'),
            ('base_link', 'wheel_rl'), ('base_link', 'wheel_rr')]
    assert checked > 20
    slip = streams['wheel_slip'].last
    assert list(slip.wheel_names) == ['fl', 'fr', 'rl', 'rr']
    car = vehicle(preset)
    assert sum(slip.normal_load) == pytest.approx(car['mass_kg'] * car['gravity_m_s2'])
    assert odom.twist.twist.linear.x > 4.0              # rolling on from 5 m/s


def test_steering_and_torque_move_the_car_as_expected(simulator, preset):
    client = simulator(pacing='lockstep', command_timeout_s=0.0, vehicle=preset)
    odom = Latest(client, Odometry, 'odom')
    torque_pub = client.node.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
    steer_pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    client.publish_acked(torque_pub, torque(drive=(0.0, 0.0, 600.0, 600.0)))
    client.publish_acked(steer_pub, ackermann(steer=0.3))
    response = client.step(3000)
    assert response.success and response.step_count == 3000
    assert (response.sim_time.sec, response.sim_time.nanosec) == (3, 0)
    last = at(client, odom, response)
    assert last.twist.twist.linear.x > 4.0              # forwards
    assert last.twist.twist.angular.z > 0.3             # turning left
    assert last.pose.pose.position.y > 0.5


def test_a_tir_car_publishes_its_aligning_moments_and_relaxed_slips(simulator, tmp_path):
    # the user's own file: volvo_v40_mf with tyre relaxation (its tyres by their shipped name)
    with open(config_file('vehicles/volvo_v40_mf.yaml'), encoding='utf-8') as stream:
        car = yaml.safe_load(stream)
    car['tyre_relaxation'] = True
    for axle in ('front', 'rear'):
        car['tyres'][axle].update(relaxation_length_x_m=0.2, relaxation_length_y_m=0.6)
    (tmp_path / 'my_car.yaml').write_text(yaml.safe_dump(car))
    client = simulator(pacing='lockstep', initial_speed=15.0, command_timeout_s=0.0,
                       vehicle=str(tmp_path / 'my_car.yaml'))
    slip = Latest(client, WheelSlip, 'wheel_slip')
    steer_pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    client.publish_acked(steer_pub, ackermann(steer=0.05))
    steady = at(client, slip, client.step(3000))
    assert all(m < -5.0 for m in steady.aligning_moment[:2])     # turns the wheels back
    for motion, relaxed in zip(steady.slip_angle, steady.relaxed_slip_angle):
        assert relaxed == pytest.approx(motion, rel=0.05, abs=1e-4)   # caught up
    client.publish_acked(steer_pub, ackermann(steer=0.1))
    fresh = at(client, slip, client.step(10))       # 10 ms of a 40 ms time constant
    for k in range(2):
        moved = fresh.slip_angle[k] - steady.slip_angle[k]
        assert abs(moved) > 0.003
        assert abs(fresh.relaxed_slip_angle[k] - steady.relaxed_slip_angle[k]) < 0.5 * abs(moved)


def test_speed_mode_reaches_and_holds_the_commanded_speed(simulator, preset):
    client = simulator(pacing='lockstep', command_mode='speed', command_timeout_s=0.0,
                       vehicle=preset)
    odom = Latest(client, Odometry, 'odom')
    pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    client.publish_acked(pub, ackermann(speed=8.0))
    client.step(8000)
    speeds = []
    for _ in range(20):
        speeds.append(at(client, odom, client.step(100)).twist.twist.linear.x)
    assert speeds == pytest.approx([8.0] * 20, abs=0.25)
    client.publish_acked(pub, ackermann(speed=0.0))       # and stops again
    assert abs(at(client, odom, client.step(8000)).twist.twist.linear.x) < 0.05


def test_watchdog_brakes_and_recovers(simulator, preset):
    client = simulator(pacing='lockstep', command_timeout_s=0.5,
                       timeout_brake_torque_n_m=1500.0, vehicle=preset)
    odom = Latest(client, Odometry, 'odom')
    pub = client.node.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
    client.publish_acked(pub, torque(drive=(0.0, 0.0, 800.0, 800.0)))
    assert at(client, odom, client.step(400)).twist.twist.linear.x > 1.0
    stopped = at(client, odom, client.step(4000))       # no command for 4 s
    assert abs(stopped.twist.twist.linear.x) < 0.01
    client.publish_acked(pub, torque(drive=(0.0, 0.0, 800.0, 800.0)))
    assert at(client, odom, client.step(400)).twist.twist.linear.x > 1.0
    output = ros_process.stop(client.process)
    assert output.count('no command for 0.5 s') == 1 and 'commands resumed' in output


def test_teleport_and_reset(simulator, preset):
    client = simulator(pacing='lockstep', initial_x=1.0, initial_speed=3.0, vehicle=preset)
    odom = Latest(client, Odometry, 'odom')
    pose_pub = client.node.create_publisher(PoseWithCovarianceStamped, '/initialpose', 10)
    pose = PoseWithCovarianceStamped()
    pose.pose.pose.position.x, pose.pose.pose.position.y = 20.0, -7.0
    pose.pose.pose.orientation.z, pose.pose.pose.orientation.w = math.sin(0.5), math.cos(0.5)
    client.publish_acked(pose_pub, pose)
    last = at(client, odom, client.step(0))
    assert last.pose.pose.position.x == pytest.approx(20.0, abs=1e-6)
    assert last.pose.pose.position.y == pytest.approx(-7.0, abs=1e-6)
    assert yaw_of(last.pose.pose.orientation) == pytest.approx(1.0)
    assert last.twist.twist.linear.x == 0.0
    reset = client.node.create_client(Trigger, 'reset')
    assert client.call(reset, Trigger.Request(), again_s=2.0).success
    last = at(client, odom, client.step(1))
    assert last.pose.pose.position.x == pytest.approx(1.0 + 3.0 * 0.001, abs=1e-3)
    assert last.twist.twist.linear.x == pytest.approx(3.0, abs=0.01)


def test_a_car_starts_sliding_with_the_velocities_it_is_given(simulator):
    # A scenario started in its drift: the node's initial lateral speed and yaw rate.
    client = simulator(pacing='lockstep', initial_speed=8.0, initial_lateral_speed=-1.5,
                       initial_yaw_rate=0.4, command_timeout_s=0.0, vehicle='rwd_gravel')
    odom = Latest(client, Odometry, 'ground_truth/odom')
    first = at(client, odom, client.step(0)).twist.twist
    assert (first.linear.x, first.linear.y, first.angular.z) == pytest.approx(
        (8.0, -1.5, 0.4), abs=1e-9)
    reset = client.node.create_client(Trigger, 'reset')     # a reset starts it so again
    at(client, odom, client.step(200))
    assert client.call(reset, Trigger.Request(), again_s=2.0).success
    again = at(client, odom, client.step(0)).twist.twist
    assert (again.linear.x, again.linear.y, again.angular.z) == pytest.approx(
        (8.0, -1.5, 0.4), abs=1e-9)


@pytest.mark.parametrize('contact', ['stop', 'bounce'])
def test_a_pose_estimate_into_a_wall_is_refused_and_the_simulator_goes_on(simulator, contact):
    # Issue 47: RViz's 2D Pose Estimate into the track's wall crashed the node at the next step.
    client = simulator(pacing='lockstep', surface='track', vehicle='f1tenth', contact=contact,
                       publish_stage=False)
    odom = Latest(client, Odometry, 'odom')
    start = at(client, odom, client.step(0)).pose.pose.position
    pose_pub = client.node.create_publisher(PoseWithCovarianceStamped, '/initialpose', 10)
    pose = PoseWithCovarianceStamped()
    pose.pose.pose.position.x = 18.02
    pose.pose.pose.orientation.w = 1.0
    client.publish_acked(pose_pub, pose)
    for steps in (1, 100):
        p = at(client, odom, client.step(steps)).pose.pose.position
        assert (p.x, p.y) == pytest.approx((start.x, start.y), abs=1e-9)   # where it was
    said = ros_process.stop(client.process)
    assert ('/initialpose refused, the car stays where it was: the car cannot be put at '
            'x = 18.020, y = 0.000 m, yaw = 0.000 rad: its footprint would overlap a wall') in said
    assert 'Exception' not in said and 'Traceback' not in said


def test_odometry_and_tf_follow_the_ground_on_a_hill(simulator):
    # On hill_stage's first hill (45, 20): the flank 10 m west of the top rises to the east.
    surface = Surface.load(config_file('stages/hill_stage.yaml'))
    client = simulator(pacing='lockstep', surface='hill_stage', initial_x=35.0,
                       initial_y=20.0, command_timeout_s=0.0)
    odom = Latest(client, Odometry, 'odom')
    tf = Latest(client, TFMessage, '/tf')
    imu = Latest(client, Imu, 'imu')
    until_every_stream_has_a_message(client, {'odom': odom, 'tf': tf, 'imu': imu})
    response = client.step(0)
    last = at(client, odom, response)
    pose = last.pose.pose
    assert pose.position.z == pytest.approx(float(surface.height_at(pose.position.x,
                                                                    pose.position.y)), abs=1e-9)
    assert pose.position.z > 2.0
    w, x, y, z = (pose.orientation.w, pose.orientation.x, pose.orientation.y,
                  pose.orientation.z)
    pitch = math.asin(max(-1.0, min(1.0, 2.0 * (w * y - z * x))))
    assert pitch < -0.05                                  # nose up (REP-103), uphill
    wanted = (response.sim_time.sec, response.sim_time.nanosec)
    assert client.spin_until(lambda: any(
        (m.transforms[0].header.stamp.sec, m.transforms[0].header.stamp.nanosec) == wanted
        for m in tf.messages))
    base = next(m for m in reversed(tf.messages) if (m.transforms[0].header.stamp.sec,
                m.transforms[0].header.stamp.nanosec) == wanted).transforms[0].transform
    assert base.translation.z == pose.position.z and base.rotation == pose.orientation
    reading = at(client, imu, response)
    assert reading.orientation == pose.orientation
    assert reading.linear_acceleration.z == pytest.approx(9.82 * math.cos(pitch), rel=1e-6)


def run_lockstep_drive(simulator):
    client = simulator(pacing='lockstep', command_timeout_s=0.0)
    odom = Latest(client, Odometry, 'odom')
    torque_pub = client.node.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
    steer_pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    for k, steer in enumerate((0.0, 0.25, -0.2, 0.1)):
        client.publish_acked(steer_pub, ackermann(steer=steer))
        client.publish_acked(torque_pub, torque(drive=(0.0, 0.0, 900.0 - 300 * k,
                                                       900.0 - 300 * k)))
        response = client.step(700)
    last = at(client, odom, response)
    ros_process.stop(client.process)        # one simulator on the domain at a time
    return (last.pose.pose.position.x, last.pose.pose.position.y, last.twist.twist.linear.x,
            last.twist.twist.angular.z)


def test_lockstep_is_deterministic(simulator):
    first = run_lockstep_drive(simulator)
    second = run_lockstep_drive(simulator)
    assert first == second                               # bit for bit
    assert first[0] > 5.0


def test_step_is_refused_outside_lockstep(simulator):
    client = simulator()
    response = client.step(10)
    assert not response.success and 'lockstep' in response.message


def test_non_finite_and_random_commands_never_break_it(simulator, preset):
    import random
    client = simulator(**LOCKSTEP, vehicle=preset)
    slip = Latest(client, WheelSlip, 'wheel_slip')
    torque_pub = client.node.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
    steer_pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    client.publish_acked(steer_pub, ackermann(steer=float('nan')))
    client.publish_acked(torque_pub, torque(drive=(0.0, float('inf'), 0.0, 0.0)))
    rng = random.Random(7)
    values = [0.0, -1.0, 1e9, -1e30, float('nan'), float('inf'), -float('inf'), 3.5, 1e-300]
    for _ in range(200):
        torque_pub.publish(torque(drive=[rng.choice(values) for _ in range(4)],
                                  brake=[rng.choice(values) for _ in range(4)],
                                  handbrake=rng.choice(values)))
        steer_pub.publish(ackermann(steer=rng.choice(values), speed=rng.choice(values),
                                    rate=rng.choice(values)))
        response = client.step(5)
    last = at(client, slip, response)
    assert all(math.isfinite(v) for v in list(last.wheel_angular_speed) + list(last.normal_load))
    output = ros_process.stop(client.process)
    # The first warning names the field and its value, as a person reads it.
    assert ('dropped a message on ackermann_cmd with a non-finite value (1 dropped so far): '
            'drive.steering_angle = nan') in output
    assert 'np.float64' not in output
    assert 'clamped to the vehicle limits' in output


@pytest.mark.parametrize('name, value, message', [
    ('physics_rate_hz', 5.0, 'physics_rate_hz'),
    ('pacing', 'warp', "'pacing' = 'warp' must be one of"),
    ('vehicle', 'no_such_car',
     "no vehicle 'no_such_car': not a vehicle file, nor a preset (presets: arcade"),
])
def test_bad_parameter_at_start_is_an_error_naming_it(simulator, name, value, message):
    client = simulator(**{name: value})
    assert client.process.wait(timeout=30) == 2
    assert message in ros_process.stop(client.process)


def test_initial_pose_places_the_one_car_of_a_node_and_is_refused_with_several(simulator):
    # Issue 47: a params file's initial_x went unheard in the f1tenth profile (one named car).
    client = simulator(pacing='lockstep', cars=['ego_racecar'], initial_x=3.0, initial_y=-2.0,
                       initial_yaw=0.5)
    odom = Latest(client, Odometry, 'ego_racecar/odom')
    pose = at(client, odom, client.step(0)).pose.pose
    assert (pose.position.x, pose.position.y) == pytest.approx((3.0, -2.0), abs=1e-9)
    assert yaw_of(pose.orientation) == pytest.approx(0.5)
    ros_process.stop(client.process)
    two = simulator(pacing='lockstep', cars=['red', 'blue'], initial_x=3.0)
    assert two.process.wait(timeout=30) == 2
    said = ros_process.stop(two.process)
    assert ("parameter 'initial_x' places the car of a node of one car; this node has 2 (red, "
            "blue): set 'red.initial_x' and the others' instead") in said


def test_bad_parameter_at_run_time_is_refused_and_changes_nothing(simulator):
    client = simulator(**LOCKSTEP)
    slip = Latest(client, WheelSlip, 'wheel_slip')
    setter = client.node.create_client(SetParameters, 'rally_sim/set_parameters')

    def set_parameter(name, value):
        value_msg = (ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=value)
                     if isinstance(value, str) else
                     ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=value))
        request = SetParameters.Request(parameters=[Parameter(name=name, value=value_msg)])
        return client.call(setter, request, again_s=2.0).results[0]   # each idempotent

    refused = set_parameter('surface', 'lava')
    assert not refused.successful and "no surface 'lava'" in refused.reason
    refused = set_parameter('real_time_factor', 1000.0)
    assert not refused.successful
    refused = set_parameter('physics_rate_hz', 50.0)
    assert not refused.successful and 'read-only' in refused.reason
    assert list(at(client, slip, client.step(1)).friction_coefficient) == pytest.approx(
        [1.1] * 4)
    assert set_parameter('surface', 'ice').successful
    assert list(at(client, slip, client.step(1)).friction_coefficient) == pytest.approx(
        [1.1 * 0.15] * 4)


def test_realtime_pacing_follows_the_wall_clock(simulator):
    # Real time on a loaded machine: simulated time keeps pace within a wide
    # tolerance (the node needs a small share of one core).
    # Each publishing instant once, in order (the pacing rule itself: test/sim/test_pacing.py).
    client = simulator(initial_speed=5.0, command_timeout_s=0.0)
    odom = Latest(client, Odometry, 'odom')
    assert client.spin_until(lambda: len(odom.messages) > 5, timeout_s=30.0)
    first, first_ns, wall = len(odom.messages), stamp_ns(odom.last), time.monotonic()
    client.spin_until(lambda: time.monotonic() - wall > 3.0, timeout_s=5.0)
    ratio = (stamp_ns(odom.last) - first_ns) / 1e9 / (time.monotonic() - wall)
    assert 0.5 < ratio < 1.2, ratio
    stamps = [stamp_ns(m) for m in odom.messages[first - 1:]]
    steps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert all(s > 0 and s % 10_000_000 == 0 for s in steps), steps    # no instant doubled
    assert steps.count(10_000_000) >= 0.9 * len(steps)        # dropped only on an overrun


def answer(client, publisher, state, stamp=None):
    """Publish an ackermann command answering `state` (an Odometry), stamped like it."""
    msg = ackermann(speed=5.0)
    msg.header.stamp = state.header.stamp if stamp is None else stamp
    publisher.publish(msg)


def synchronous(simulator, **params):
    """Start the simulator in synchronous mode, waiting for the test client's node."""
    name = 'sync_test_controller'
    return simulator(client_name=name, pacing='fast', sync_controllers=f'[{name}]',
                     command_mode='speed', command_timeout_s=0.0, **params)


def test_synchronous_mode_advances_only_on_answers(simulator):
    client = synchronous(simulator, sync_timeout_s=600.0)
    pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    states = []

    def on_odom(state):     # a controller that answers every state before 0.5 s
        states.append(state)
        if stamp_ns(state) < 500_000_000:
            answer(client, pub, state)
    client.node.create_subscription(Odometry, 'odom', on_odom, 10000)
    assert client.spin_until(lambda: states and stamp_ns(states[-1]) == 500_000_000,
                             timeout_s=120.0), ros_process.stop(client.process)
    # Every state in between came once its predecessor was answered, in order.
    stamps = sorted({stamp_ns(s) for s in states})
    assert stamps == [10_000_000 * k for k in range(51)]
    # Unanswered, the state stays where it is (the simulator repeats it, at most).
    client.spin_until(lambda: False, timeout_s=1.5)
    assert max(stamp_ns(m) for m in states) == 500_000_000
    assert states[-1].twist.twist.linear.x > 0.5              # speed mode took the answers


def test_synchronous_mode_reports_a_wrong_stamp_and_a_silent_controller(simulator):
    client = synchronous(simulator, sync_timeout_s=10.0)
    pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    states = []

    def on_odom(state):     # answers t = 0 right, then 10 ms with a stamp 7 s off
        states.append(state)
        if stamp_ns(state) == 0:
            answer(client, pub, state)
        elif stamp_ns(state) == 10_000_000:
            answer(client, pub, state, stamp=Time(sec=7, nanosec=10_000_000))
    client.node.create_subscription(Odometry, 'odom', on_odom, 10000)
    # The wrong answer is ignored; silent past sync_timeout_s, the controller is
    # reported and the simulator goes on without it, its state intact.
    assert client.spin_until(lambda: states and stamp_ns(states[-1]) > 100_000_000,
                             timeout_s=120.0), ros_process.stop(client.process)
    assert all(math.isfinite(m.pose.pose.position.x) for m in states)
    output = ros_process.stop(client.process)
    name = client.node.get_fully_qualified_name()
    assert f'{name} answered with stamp 7.010 s, not the state time 0.010 s' in output, output
    assert f'no answer to the state at 0.010 s within 10 s from {name}' in output, output


def test_a_huge_step_is_refused_and_a_long_one_ends_on_ctrl_c(simulator):
    client = simulator(**LOCKSTEP)
    odom = Latest(client, Odometry, 'odom')
    response = client.step(4294967295)
    assert not response.success and response.step_count == 0
    assert 'at most 1000000 per call' in response.message
    # A million steps (1000 s simulated, about a minute here): stopped while it runs.
    client.step_client.call_async(Step.Request(steps=1_000_000))
    assert client.spin_until(lambda: odom.messages and odom.last.header.stamp.sec >= 2,
                             timeout_s=120.0)
    asked = time.monotonic()
    client.process.send_signal(signal.SIGINT)
    client.process.wait(timeout=60.0)
    took_s = time.monotonic() - asked
    output = ros_process.stop(client.process)
    assert client.process.returncode == 0 and 'Traceback' not in output, output
    assert took_s < 10.0, (took_s, output)     # not the rest of the million steps
    stopped_at_s = float(output.split('stopped at simulated time ')[1].split()[0])
    assert stopped_at_s < 900.0


def _roll_pitch(orientation):
    """Return roll and pitch [rad] of a quaternion message (REP-103)."""
    w, x, y, z = orientation.w, orientation.x, orientation.y, orientation.z
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    return roll, math.asin(max(-1.0, min(1.0, 2.0 * (w * y - z * x))))


def test_a_car_on_springs_rolls_in_odometry_tf_and_imu_and_reports_its_travel(simulator):
    client = simulator(pacing='lockstep', vehicle='volvo_v40_suspension', initial_speed=15.0,
                       command_timeout_s=0.0)
    odom = Latest(client, Odometry, 'odom')
    tf = Latest(client, TFMessage, '/tf')
    imu = Latest(client, Imu, 'imu')
    slip = Latest(client, WheelSlip, 'wheel_slip')
    until_every_stream_has_a_message(client, {'odom': odom, 'tf': tf, 'imu': imu,
                                              'slip': slip})
    client.publish_acked(client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd',
                                                      10), ackermann(steer=0.04))
    client.publish_acked(client.node.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd',
                                                      10), torque(drive=(0, 0, 180, 180)))
    response = client.step(6000)                         # 6 s of 1 ms: cornering steadily
    pose, twist = at(client, odom, response).pose.pose, at(client, odom, response).twist.twist
    roll, pitch = _roll_pitch(pose.orientation)
    assert roll > 0.01 and abs(pitch) < 0.01         # a left turn: the left side rises
    wanted = (response.sim_time.sec, response.sim_time.nanosec)
    assert client.spin_until(lambda: any(
        (m.transforms[0].header.stamp.sec, m.transforms[0].header.stamp.nanosec) == wanted
        for m in tf.messages))
    transforms = next(m for m in reversed(tf.messages) if (
        m.transforms[0].header.stamp.sec, m.transforms[0].header.stamp.nanosec) == wanted)
    base = transforms.transforms[0].transform
    assert base.rotation == pose.orientation and base.translation.z == pose.position.z
    reading = at(client, imu, response)
    assert reading.orientation == pose.orientation
    # the accelerometer on the rolled body: the lateral acceleration and gravity's share
    a_y = twist.linear.x * twist.angular.z
    expected = a_y * math.cos(roll) + 9.82 * math.sin(roll)
    assert reading.linear_acceleration.y == pytest.approx(expected, rel=0.03)
    wheels = at(client, slip, response)
    travel, loads = list(wheels.suspension_travel), list(wheels.normal_load)
    assert travel[1] > 0.005 and travel[3] > 0.0       # the outside (right) wheels in bump
    assert travel[0] < 0.0 and travel[2] < 0.0
    assert loads[1] > loads[0] and loads[3] > loads[2]
    right_front = next(t.transform for t in transforms.transforms
                       if t.child_frame_id.endswith('wheel_fr_steer'))
    radius = vehicle('volvo_v40_suspension')['wheel_radius_m']
    assert right_front.translation.z == pytest.approx(radius + travel[1], abs=1e-9)


def test_over_jump_stage_s_kicker_the_wheels_lift_and_their_markers_say_so(simulator):
    client = simulator(pacing='lockstep', vehicle='rwd_gravel_suspension', surface='jump_stage',
                       initial_x=-20.0, initial_y=-30.0, initial_speed=17.0,
                       command_timeout_s=0.0)
    slip = Latest(client, WheelSlip, 'wheel_slip')
    markers = Latest(client, MarkerArray, 'markers')
    until_every_stream_has_a_message(client, {'slip': slip, 'markers': markers})
    seen = {'air': 0, 'ground': 0}
    for _ in range(25):                      # 2.5 s: over the kicker at about 1.2 s
        response = client.step(100)
        wanted = (response.sim_time.sec, response.sim_time.nanosec)
        loads = at(client, slip, response).normal_load
        if not client.spin_until(lambda: any(
                (m.markers[1].header.stamp.sec, m.markers[1].header.stamp.nanosec) == wanted
                for m in markers.messages), timeout_s=5.0):
            continue                         # (markers at their own, lower rate)
        shown = next(m for m in reversed(markers.messages) if (
            m.markers[1].header.stamp.sec, m.markers[1].header.stamp.nanosec) == wanted)
        blues = [shown.markers[1 + i].color.b for i in range(4)]
        for load, blue in zip(loads, blues):
            assert blue == pytest.approx(0.9 if load == 0.0 else 0.1)
        seen['air' if max(loads) == 0.0 else 'ground'] += 1
    assert seen['air'] >= 1 and seen['ground'] >= 5
