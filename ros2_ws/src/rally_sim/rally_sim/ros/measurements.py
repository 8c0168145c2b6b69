"""
Sensor measurements (rally_sim.sensors) to ROS messages; ground truth beside them.

Each measurement is stamped with the time it was measured. Covariances are
the error model's variances (sensors.Noise.variance), at least
GROUND_TRUTH_VARIANCE, so an exact channel (profile `ideal`) gives the very
bytes the simulator published before sensor profiles existed.
"""

import array
from typing import List, Optional

from nav_msgs.msg import Odometry
import numpy as np
from sensor_msgs.msg import Imu, JointState, LaserScan, NavSatFix, NavSatStatus
from tf2_msgs.msg import TFMessage

from .conversions import (
    Frames, GROUND_TRUTH_VARIANCE, joint_names, pose_paths, quaternion, stamp, transform_stamped)
from .serialized import SerializedMessage
from ..physics import Vehicle
from ..physics.model import OMEGA, VX, VY, X, Y, YAW, YAW_RATE
from ..sensors import Measurement
from ..sensors.profiles import beam_increment_rad
from ..sim.readings import EncoderSpeeds

ODOMETRY_POSE_COVARIANCE = [0, 7, 14, 21, 28, 35]
"""The diagonal of a 6 x 6 row-major covariance."""
TRUTH_SUFFIX = '_ground_truth'
"""base_link + this: the frame of the true pose, beside the measured one."""


def _floor(variance: float) -> float:
    return max(variance, GROUND_TRUTH_VARIANCE)


def _odometry_template(frames: Frames, child: str) -> SerializedMessage:
    """Return an odometry message with pose, twist and their covariance diagonals to fill."""
    odom = Odometry()
    odom.header.frame_id, odom.child_frame_id = frames.odom, child
    diagonal = [GROUND_TRUTH_VARIANCE if i % 7 == 0 else 0.0 for i in range(36)]
    odom.pose.covariance = diagonal
    odom.twist.covariance = diagonal
    return SerializedMessage(odom, [
        'pose.pose.position.x', 'pose.pose.position.y', 'pose.pose.position.z',
        'pose.pose.orientation.x', 'pose.pose.orientation.y', 'pose.pose.orientation.z',
        'pose.pose.orientation.w', 'twist.twist.linear.x', 'twist.twist.linear.y',
        'twist.twist.angular.z']
        + [f'pose.covariance.{i}' for i in ODOMETRY_POSE_COVARIANCE]
        + [f'twist.covariance.{i}' for i in ODOMETRY_POSE_COVARIANCE])


class MeasurementMessages:
    """The messages of one car's sensors and of its ground truth, serialized in place."""

    def __init__(self, vehicle: Vehicle, frames: Frames):
        """Build every message with its fixed fields."""
        self.vehicle = vehicle
        self.frames = frames
        self._scan: Optional[tuple] = None      # (its layout, the SerializedMessage)
        f = frames
        self.truth_frame = f.base + TRUTH_SUFFIX
        self._odom = _odometry_template(f, f.base)
        self._truth = _odometry_template(f, self.truth_frame)
        self._pose_tf = {child: SerializedMessage(
            TFMessage(transforms=[transform_stamped(f.odom, child)]), pose_paths(
                'transforms.0.transform'), stamps=['transforms.0.header.stamp'])
            for child in (f.base, self.truth_frame)}
        imu = Imu()
        imu.header.frame_id = f.imu
        variance = [GROUND_TRUTH_VARIANCE, 0.0, 0.0, 0.0, GROUND_TRUTH_VARIANCE, 0.0, 0.0, 0.0,
                    GROUND_TRUTH_VARIANCE]
        imu.orientation_covariance = variance
        imu.angular_velocity_covariance = variance
        imu.linear_acceleration_covariance = variance
        imu.linear_acceleration.z = float(vehicle.params.gravity_m_s2)
        self._imu = SerializedMessage(imu, [
            'orientation.x', 'orientation.y', 'orientation.z', 'orientation.w',
            'angular_velocity.z', 'linear_acceleration.x', 'linear_acceleration.y',
            'linear_acceleration.z', 'angular_velocity.x', 'angular_velocity.y'] + [
                f'{name}_covariance.{i}' for name in (
                    'orientation', 'angular_velocity', 'linear_acceleration')
                for i in (0, 4, 8)])
        encoders = JointState()
        encoders.name = joint_names(f.prefix)[2:]
        encoders.position = [0.0] * 4
        encoders.velocity = [0.0] * 4
        self._encoders = SerializedMessage(encoders, [f'position.{i}' for i in range(4)]
                                           + [f'velocity.{i}' for i in range(4)])
        self.encoders = EncoderSpeeds()
        steering = JointState()
        steering.name = [f'{f.prefix}steering']
        steering.position = [0.0]
        self._steering = SerializedMessage(steering, ['position.0'])

    # ---- ground truth ------------------------------------------------------

    def _true_pose(self) -> List[float]:
        s = self.vehicle.state.tolist()
        z, pitch, roll = self.vehicle.body_pose()
        return [s[X], s[Y], z] + quaternion(roll, pitch, s[YAW])

    def ground_truth(self, stamp_ns: int) -> bytes:
        """Return the true pose and twist, child frame base_link_ground_truth."""
        s = self.vehicle.state.tolist()
        return self._truth.fill(self._true_pose() + [s[VX], s[VY], s[YAW_RATE]]
                                + [GROUND_TRUTH_VARIANCE] * 12, stamp_ns)

    def ground_truth_transform(self, stamp_ns: int) -> bytes:
        """Return odom -> base_link_ground_truth."""
        return self._pose_tf[self.truth_frame].fill(self._true_pose(), stamp_ns)

    # ---- measurements ------------------------------------------------------

    def odometry(self, m: Measurement) -> bytes:
        """Return measured odometry: the pose on the true ground, its covariance the model's."""
        v = m.values
        var = m.variances
        pose = [_floor(var['position'])] * 2 + [GROUND_TRUTH_VARIANCE] * 3 + [
            _floor(var['yaw'])]
        twist = [_floor(var['velocity'])] * 2 + [GROUND_TRUTH_VARIANCE] * 3 + [
            _floor(var['yaw_rate'])]
        return self._odom.fill(self.measured_pose(m)
                               + [float(v['velocity'][0]), float(v['velocity'][1]),
                                  float(v['yaw_rate'][0])] + pose + twist, m.stamp_ns)

    @staticmethod
    def measured_pose(m: Measurement) -> List[float]:
        """Return the position and orientation (ROS order) of measured odometry, on its ground."""
        (x, y), (yaw,) = m.values['position'].tolist(), m.values['yaw'].tolist()
        z, pitch, roll = m.values['ground'].tolist()
        return [x, y, z] + quaternion(roll, pitch, yaw)

    def pose_transform(self, m: Measurement) -> bytes:
        """Return odom -> base_link at the measured pose, stamped when it was measured."""
        return self._pose_tf[self.frames.base].fill(self.measured_pose(m), m.stamp_ns)

    def imu(self, m: Measurement) -> bytes:
        """Return the measured IMU: attitude, angular velocity, specific force."""
        v, var = m.values, m.variances
        roll, pitch, yaw = v['orientation'].tolist()
        gyro, accel = v['gyro'].tolist(), v['accelerometer'].tolist()
        return self._imu.fill(
            quaternion(roll, pitch, yaw) + [gyro[2]] + accel + gyro[:2]
            + [_floor(var['orientation'])] * 3 + [_floor(var['gyro'])] * 3
            + [_floor(var['accelerometer'])] * 3, m.stamp_ns)

    def wheel_encoders(self, m: Measurement) -> bytes:
        """Return the encoder angles and speeds (from the last delivered angles)."""
        speed = self.encoders.speeds(m, self.vehicle.state[OMEGA:OMEGA + 4])
        return self._encoders.fill(np.concatenate((m.values['angle'], speed)), m.stamp_ns)

    def steering(self, m: Measurement) -> bytes:
        """Return the measured steer angle."""
        return self._steering.fill([float(m.values['angle'][0])], m.stamp_ns)

    def gnss(self, m: Measurement, latitude: float, longitude: float, altitude: float
             ) -> NavSatFix:
        """Return a fix (a small message: built afresh) with the model's covariance."""
        fix = NavSatFix()
        fix.header.stamp = stamp(m.stamp_ns)
        fix.header.frame_id = self.frames.base
        fix.status.status = NavSatStatus.STATUS_FIX
        fix.status.service = NavSatStatus.SERVICE_GPS
        fix.latitude, fix.longitude, fix.altitude = latitude, longitude, altitude
        h, v = _floor(m.variances['horizontal']), _floor(m.variances['vertical'])
        fix.position_covariance = [h, 0.0, 0.0, 0.0, h, 0.0, 0.0, 0.0, v]
        fix.position_covariance_type = NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN
        return fix

    def scan(self, m: Measurement, geometry, rate_hz: float) -> bytes:
        """
        Return a lidar scan in the laser frame (REP 117: +inf no return, -inf too near).

        Serialized once per layout (beams, field of view, ranges, rate), its
        ranges then written in place as float32 (a 1,080-beam scan is one
        array write, not a message converted by rclpy on every publish).
        """
        layout = (geometry['beams'], geometry['field_of_view_rad'], geometry['range_min_m'],
                  geometry['range_max_m'], rate_hz, beam_increment_rad(geometry))
        if self._scan is None or self._scan[0] != layout:
            scan = LaserScan()
            scan.header.frame_id = self.frames.laser
            beams, fov = geometry['beams'], geometry['field_of_view_rad']
            scan.angle_min = -0.5 * fov
            scan.angle_increment = beam_increment_rad(geometry)
            scan.angle_max = scan.angle_min + (beams - 1) * scan.angle_increment
            scan.scan_time = 1.0 / rate_hz
            scan.range_min, scan.range_max = geometry['range_min_m'], geometry['range_max_m']
            scan.ranges = array.array('f', [0.0] * beams)
            self._scan = (layout, SerializedMessage(scan, [], [f'ranges.{i}'
                                                               for i in range(beams)]))
        return self._scan[1].fill((), m.stamp_ns, m.values['ranges'])

    def forget(self) -> None:
        """Forget the last encoder angles (after a reset or teleport)."""
        self.encoders.forget()
