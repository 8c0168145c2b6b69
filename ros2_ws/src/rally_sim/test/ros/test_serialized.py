"""Messages kept serialized and refilled in place decode to what was written."""

import math

from geometry_msgs.msg import TransformStamped
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rally_sim.physics import Command, load_vehicle, Vehicle
from rally_sim.physics.model import STEER_ANGLE, VX, VY, X, Y, YAW, YAW_RATE
from rally_sim.resources import surface_from, vehicle_path
from rally_sim.ros.conversions import Frames, OutputMessages
from rally_sim.ros.measurements import MeasurementMessages
from rally_sim.ros.serialized import exact, FieldReader, InPlace, SerializedMessage
from rally_sim.sensors import load_profile, Measurement, Sensors
from rally_sim_msgs.msg import DrivetrainState, WheelSlip
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import Imu, JointState, LaserScan
from tf2_msgs.msg import TFMessage
from transforms3d.euler import euler2quat
from visualization_msgs.msg import Marker, MarkerArray


def test_refilled_bytes_decode_to_the_values_and_stamp_written():
    tf = TFMessage(transforms=[TransformStamped(), TransformStamped()])
    tf.transforms[0].header.frame_id = 'odom'
    tf.transforms[1].child_frame_id = 'wheel_fl'
    paths = ['transforms.0.transform.translation.x', 'transforms.1.transform.rotation.w']
    message = SerializedMessage(tf, paths, stamps=['transforms.0.header.stamp',
                                                   'transforms.1.header.stamp'])
    data = message.fill([1.5, -0.25], 12_345_678_901)
    out = deserialize_message(data, TFMessage)
    assert out.transforms[0].transform.translation.x == 1.5
    assert out.transforms[1].transform.rotation.w == -0.25
    for t in out.transforms:
        assert (t.header.stamp.sec, t.header.stamp.nanosec) == (12, 345_678_901)
    assert out.transforms[0].header.frame_id == 'odom'
    assert out.transforms[1].child_frame_id == 'wheel_fl'
    # everything else as serialized by the middleware itself: every field, and the length.
    # Not byte for byte: the middleware leaves alignment padding as it finds it (bytes of
    # an earlier message, whichever ran before in this process: this compared them once).
    tf.transforms[0].transform.translation.x = 1.5
    tf.transforms[1].transform.rotation.w = -0.25
    for t in tf.transforms:
        t.header.stamp.sec, t.header.stamp.nanosec = 12, 345_678_901
    assert out == tf
    assert len(data) == len(exact(serialize_message(tf), tf))


def test_prototype_keeps_its_values_and_fixed_arrays_and_float32_fill():
    markers = MarkerArray(markers=[Marker()])
    markers.markers[0].color.a = 1.0
    markers.markers[0].scale.x = 0.5
    message = SerializedMessage(markers, ['markers.0.pose.position.x'],
                                floats=['markers.0.color.r', 'markers.0.color.g'],
                                stamps=['markers.0.header.stamp'])
    assert markers.markers[0].pose.position.x == 0.0
    out = deserialize_message(message.fill([3.0], 5, [0.25, 0.75]), MarkerArray).markers[0]
    assert (out.pose.position.x, out.color.r, out.color.g, out.color.a) == (3.0, 0.25, 0.75, 1.0)
    assert out.scale.x == 0.5
    slip = SerializedMessage(WheelSlip(), [f'slip_angle.{i}' for i in range(4)])
    out = deserialize_message(slip.fill([0.1, 0.2, 0.3, 0.4], 0), WheelSlip)
    assert list(out.slip_angle) == [0.1, 0.2, 0.3, 0.4]
    assert list(out.slip_ratio) == [0.0] * 4


def test_a_path_that_is_not_a_number_field_is_refused_by_name():
    tf = TFMessage(transforms=[TransformStamped()])
    with pytest.raises(ValueError, match='transforms.0.header.frame_id: is str, not a float'):
        SerializedMessage(tf, ['transforms.0.header.frame_id'], stamps=[])
    with pytest.raises(ValueError, match='field header.stamp.sec: not in the message'):
        SerializedMessage(tf, [])


def test_outputs_decode_to_the_vehicle_state():
    car = Vehicle(load_vehicle(vehicle_path('volvo_v40')))
    car.reset(x=3.0, y=-2.0, yaw=0.7, vx=12.0)
    car.advance(50, 0.001)
    frames = Frames('car1/', 'odom', 'base_link')
    out = OutputMessages(car, frames)
    measured = MeasurementMessages(car, frames)
    sensors = Sensors(load_profile('ideal'), 0, 1_000_000, 10_000_000)
    odometry, imu = sensors.measure_now(2_500_000_000, car, sensors.with_outputs)
    odom = deserialize_message(measured.odometry(odometry), Odometry)
    assert odom.header.frame_id == 'car1/odom' and odom.child_frame_id == 'car1/base_link'
    assert (odom.header.stamp.sec, odom.header.stamp.nanosec) == (2, 500_000_000)
    assert odom.twist.twist.linear.x == car.state[VX]
    assert odom.twist.twist.angular.z == car.state[YAW_RATE]
    q = odom.pose.pose.orientation
    assert 2.0 * np.arctan2(q.z, q.w) == pytest.approx(car.state[YAW], abs=1e-12)
    assert odom.pose.covariance[0] == odom.pose.covariance[35] > 0.0
    tf = deserialize_message(out.transforms(2_500_000_000), TFMessage)
    assert [t.child_frame_id for t in tf.transforms][:3] == [
        'car1/base_link', 'car1/wheel_fl_steer', 'car1/wheel_fl']
    steer = tf.transforms[1].transform.rotation
    assert 2.0 * np.arctan2(steer.z, steer.w) == pytest.approx(car.diag[STEER_ANGLE][0])
    joints = deserialize_message(out.joint_states(1), JointState)
    assert list(joints.position[2:]) == car.wheel_angle_rad.tolist()
    imu = deserialize_message(measured.imu(imu), Imu)
    assert imu.linear_acceleration.z == car.params.gravity_m_s2
    slip = deserialize_message(out.wheel_slip(1), WheelSlip)
    assert list(slip.friction_coefficient) == car.friction.tolist()
    assert list(slip.wheel_names) == ['fl', 'fr', 'rl', 'rr']
    markers = deserialize_message(out.markers(1), MarkerArray)
    assert len(markers.markers) == 9 and all(m.color.a == 1.0 for m in markers.markers[5:])


def test_ideal_sensors_publish_the_ground_truth_messages_of_before():
    """Profile ideal: odom and imu are the truth as before sensor profiles, field for field."""
    car = Vehicle(load_vehicle(vehicle_path('volvo_v40')), surface_from('hill_stage'))
    car.reset(x=20.0, y=5.0, yaw=-2.0, vx=9.0)
    car.set_command(Command(steer_rad=0.2, drive_torque_n_m=[0.0, 0.0, 400.0, 400.0]))
    car.advance(700, 0.001)
    measured = MeasurementMessages(car, Frames('', 'odom', 'base_link'))
    sensors = Sensors(load_profile('ideal'), 0, 1_000_000, 10_000_000)
    odometry, imu = sensors.measure_now(700_000_000, car, sensors.with_outputs)
    s = car.state
    z, pitch, roll = car.ground()
    w, x, y, qz = euler2quat(roll, pitch, s[YAW], 'sxyz')
    expected = Odometry()
    expected.header.stamp.nanosec = 700_000_000
    expected.header.frame_id, expected.child_frame_id = 'odom', 'base_link'
    p = expected.pose.pose
    p.position.x, p.position.y, p.position.z = s[X], s[Y], z
    p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w = x, y, qz, w
    t = expected.twist.twist
    t.linear.x, t.linear.y, t.angular.z = s[VX], s[VY], s[YAW_RATE]
    expected.pose.covariance = expected.twist.covariance = [
        1e-9 if i % 7 == 0 else 0.0 for i in range(36)]
    assert deserialize_message(measured.odometry(odometry), Odometry) == expected
    got = deserialize_message(measured.imu(imu), Imu)
    assert (got.orientation.x, got.orientation.y, got.orientation.z, got.orientation.w) == (
        x, y, qz, w)
    assert (got.angular_velocity.x, got.angular_velocity.y, got.angular_velocity.z) == (
        0.0, 0.0, s[YAW_RATE])
    ax, ay = car.specific_force_m_s2()
    g = car.params.gravity_m_s2 * math.cos(pitch) * math.cos(roll)
    assert (got.linear_acceleration.x, got.linear_acceleration.y,
            got.linear_acceleration.z) == (ax, ay, g)
    diagonal = [1e-9, 0.0, 0.0, 0.0, 1e-9, 0.0, 0.0, 0.0, 1e-9]
    assert list(got.orientation_covariance) == list(got.angular_velocity_covariance) == list(
        got.linear_acceleration_covariance) == diagonal
    assert got.header.frame_id == 'imu_link' and got.header.stamp.nanosec == 700_000_000


def test_a_scan_refilled_in_place_decodes_to_the_laser_scan_of_its_ranges():
    """Every beam as float32 (inf, -inf, nan kept), the fixed fields, a new layout rebuilt."""
    car = Vehicle(load_vehicle(vehicle_path('f1tenth')))
    measured = MeasurementMessages(car, Frames('', 'odom', 'base_link'))
    rng = np.random.default_rng(4)
    for beams, fov, rate in ((1080, 4.7, 40.0), (1080, 4.7, 40.0), (7, 1.0, 10.0), (1, 0.0, 5.0)):
        geometry = {'beams': beams, 'field_of_view_rad': fov, 'range_min_m': 0.06,
                    'range_max_m': 30.0}
        ranges = rng.uniform(-1.0, 40.0, beams)
        ranges[rng.random(beams) < 0.2] = np.inf
        ranges[0] = -np.inf
        ranges[-1] = np.nan if beams > 1 else ranges[-1]
        stamp_ns = int(rng.integers(0, 10 ** 12))
        got = deserialize_message(measured.scan(Measurement('lidar', stamp_ns, {
            'ranges': ranges}, {}, True), geometry, rate), LaserScan)
        expected = LaserScan()
        expected.header.frame_id = 'laser'
        expected.header.stamp.sec, expected.header.stamp.nanosec = divmod(stamp_ns, 10 ** 9)
        expected.angle_min = -0.5 * fov
        expected.angle_increment = fov / (beams - 1) if beams > 1 else 0.0
        expected.angle_max = expected.angle_min + (beams - 1) * expected.angle_increment
        expected.scan_time = 1.0 / rate
        expected.range_min, expected.range_max = 0.06, 30.0
        assert np.array_equal(np.array(got.ranges), ranges.astype(np.float32), equal_nan=True)
        got.ranges = []
        assert got == deserialize_message(serialize_message(expected), LaserScan)   # float32s


def test_field_reader_reads_the_numbers_of_each_message_without_deserializing(monkeypatch):
    # The scenario runner reads its states so: the numbers must be the message's
    # own, bit for bit, also for a message laid out otherwise (then deserialized).
    paths = ['pose.pose.position.x', 'pose.pose.orientation.w', 'twist.twist.angular.z']
    reader = FieldReader(Odometry, paths)
    rng = np.random.default_rng(7)

    def prototype(frame: str) -> Odometry:
        message = Odometry()
        message.header.frame_id, message.child_frame_id = frame, 'base_link'
        message.pose.covariance[7] = 2.5
        return message

    published = SerializedMessage(prototype('odom'), paths)      # as the simulator publishes

    def odometry(frame: str, values) -> bytes:
        stamp = int(rng.integers(0, 10 ** 12))
        if frame == 'odom':
            return published.fill(values, stamp)
        message = prototype(frame)
        message.header.stamp.sec, message.header.stamp.nanosec = divmod(stamp, 10 ** 9)
        message.pose.pose.position.x, message.pose.pose.orientation.w = values[0], values[1]
        message.twist.twist.angular.z = values[2]
        return exact(serialize_message(message), message)

    for frame in ('odom', 'odom', 'map', 'a_much_longer_frame', 'odom'):
        values = rng.normal(size=3) * 10.0 ** rng.integers(-300, 300, size=3)
        assert reader.read(odometry(frame, values)) == values.tolist()
    from rally_sim.ros import serialized
    monkeypatch.setattr(serialized, 'deserialize_message', None)   # the layout is learnt
    values = [1.0, -0.0, math.pi]
    assert reader.read(odometry('odom', values)) == values
    monkeypatch.undo()
    slip = FieldReader(WheelSlip, [f'slip_angle.{i}' for i in range(4)])
    message = WheelSlip(wheel_names=['fl', 'fr', 'rl', 'rr'])
    message.slip_angle = [0.1, -0.2, 0.3, -0.4]
    data = serialize_message(message)
    assert slip.read(data) == slip.read(data) == [0.1, -0.2, 0.3, -0.4]


def test_a_message_read_in_place_has_its_own_fields_and_the_rest_from_the_whole(monkeypatch):
    # The view reads each car's ground truth and wheel_slip so: every field it
    # reads must be the message's, bit for bit, in place or not.
    rng = np.random.default_rng(11)
    paths = [f'pose.pose.position.{a}' for a in 'xy'] + ['twist.twist.angular.z']
    odometry = InPlace(Odometry, paths)
    for frame in ('odom', 'odom', 'map', 'a_much_longer_frame', 'odom'):
        message = Odometry(child_frame_id='car1/base_link')
        message.header.frame_id = frame
        message.header.stamp.sec, message.header.stamp.nanosec = 1234, int(rng.integers(10 ** 9))
        values = rng.normal(size=3) * 10.0 ** rng.integers(-300, 300, size=3)
        p, v = message.pose.pose.position, message.twist.twist.angular
        p.x, p.y, v.z = values
        message.pose.covariance[35] = 7.5
        read = odometry.message(exact(serialize_message(message), message))
        assert [read.pose.pose.position.x, read.pose.pose.position.y,
                read.twist.twist.angular.z] == values.tolist()
        assert (read.header.stamp.sec, read.header.stamp.nanosec) == (
            1234, message.header.stamp.nanosec)
        assert read.header.frame_id == frame and read.child_frame_id == 'car1/base_link'
        assert read.pose.covariance[35] == 7.5 and read.twist.twist.linear.x == 0.0
    from rally_sim.ros import serialized
    monkeypatch.setattr(serialized, 'deserialize_message', None)   # in place, now
    read = odometry.message(exact(serialize_message(message), message))
    assert read.pose.pose.position.y == values[1] and read.header.stamp.sec == 1234
    with pytest.raises(TypeError):
        read.child_frame_id                     # not read in place: the whole message's
    monkeypatch.undo()
    slip = InPlace(WheelSlip, [f'{a}.{i}' for a in ('slip_angle', 'normal_load')
                               for i in range(4)])
    message = WheelSlip(wheel_names=['fl', 'fr', 'rl', 'rr'])
    message.slip_angle, message.normal_load = [0.1, -0.2, 0.3, -0.4], [1.0, 2.0, 3.0, 4.0]
    for _ in range(2):
        read = slip.message(serialize_message(message))
        assert list(read.slip_angle) == [0.1, -0.2, 0.3, -0.4]
        assert list(read.normal_load) == [1.0, 2.0, 3.0, 4.0]
        assert list(read.wheel_names) == ['fl', 'fr', 'rl', 'rr']
    with pytest.raises(ValueError, match='slip_angle: read in place whole'):
        InPlace(WheelSlip, ['slip_angle.0', 'slip_angle.2'])


def test_integer_fields_are_found_by_the_bytes_their_value_changes(monkeypatch):
    drivetrain = InPlace(DrivetrainState, ['engine_rpm'], integers=['gear', 'shifting'])
    for gear, shifting in ((3, False), (-1, True), (-128, False), (127, True)):
        message = DrivetrainState(gear=gear, shifting=shifting, engine_rpm=4321.5,
                                  clutch_torque=-1.0)
        read = drivetrain.message(serialize_message(message))
        assert (read.gear, read.shifting, read.engine_rpm) == (gear, shifting, 4321.5)
        assert read.clutch_torque == -1.0
    from rally_sim.ros import serialized
    monkeypatch.setattr(serialized, 'deserialize_message', None)
    read = drivetrain.message(serialize_message(DrivetrainState(gear=-2, engine_rpm=900.0)))
    assert (read.gear, read.shifting, read.engine_rpm) == (-2, False, 900.0)
    with pytest.raises(ValueError, match='field engine_rpm: not an integer field'):
        FieldReader(DrivetrainState, [], integers=['engine_rpm'])
