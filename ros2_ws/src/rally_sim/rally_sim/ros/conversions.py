"""Vehicle state to ROS messages (REP-103 axes, REP-105 frames). No node here."""

import math

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point, TransformStamped
from nav_msgs.msg import Odometry
import numpy as np
from rally_sim_msgs.msg import WheelSlip
from sensor_msgs.msg import Imu, JointState
from tf2_msgs.msg import TFMessage
from transforms3d.euler import euler2quat
from visualization_msgs.msg import Marker, MarkerArray

from .. import WHEELS
from ..physics import Vehicle
from ..physics.model import (
    FORCE_X, FORCE_Y, NORMAL_LOAD, OMEGA, SLIP_ANGLE, SLIP_RATIO, STEER_ANGLE, VX, VY, X, Y, YAW,
    YAW_RATE)

GROUND_TRUTH_VARIANCE = 1e-9
"""Variance on every diagonal element: the pose and twist are exact (ground truth)."""
FORCE_ARROW_M_PER_N = 1.0 / 5000.0


def stamp(nanoseconds: int) -> Time:
    """Return a builtin_interfaces Time from integer nanoseconds."""
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def _set_quaternion(target, roll: float, pitch: float, yaw: float) -> None:
    w, x, y, z = euler2quat(roll, pitch, yaw, 'sxyz')
    target.x, target.y, target.z, target.w = x, y, z, w


def wheel_offsets(vehicle: Vehicle):
    """Return the wheels' (x, y) positions in the vehicle frame."""
    p = vehicle.params
    return [(p.cg_to_front_m, p.half_track_m), (p.cg_to_front_m, -p.half_track_m),
            (-p.cg_to_rear_m, p.half_track_m), (-p.cg_to_rear_m, -p.half_track_m)]


def _transform(parent: str, child: str) -> TransformStamped:
    t = TransformStamped()
    t.header.frame_id = parent
    t.child_frame_id = child
    return t


def _place(t: TransformStamped, now: Time, x: float, y: float, z: float, roll: float = 0.0,
           pitch: float = 0.0, yaw: float = 0.0) -> None:
    t.header.stamp = now
    t.transform.translation.x, t.transform.translation.y = float(x), float(y)
    t.transform.translation.z = float(z)
    _set_quaternion(t.transform.rotation, roll, pitch, yaw)


def static_transforms(vehicle: Vehicle, now: Time, base_frame: str, imu_frame: str
                      ) -> TFMessage:
    """Return the fixed frames: the IMU at the centre of gravity."""
    t = _transform(base_frame, imu_frame)
    _place(t, now, 0.0, 0.0, vehicle.params.cg_height_m)
    return TFMessage(transforms=[t])


def joint_names(prefix: str):
    """Return the steer and spin joint names, in the order joint_states uses."""
    return ([f'{prefix}wheel_{w}_steer_joint' for w in WHEELS[:2]]
            + [f'{prefix}wheel_{w}_spin_joint' for w in WHEELS])


class Frames:
    """The frame names of one car (REP-105), prefixed by its namespace."""

    def __init__(self, prefix: str, odom_frame: str, base_frame: str):
        """Name the frames; `prefix` is 'NS/' in a namespace NS, else ''."""
        self.prefix = prefix
        self.odom = prefix + odom_frame
        self.base = prefix + base_frame
        self.wheels = [f'{prefix}wheel_{w}' for w in WHEELS]
        self.imu = f'{prefix}imu_link'


class OutputMessages:
    """
    The node's output messages, built once and refilled in place for each publish.

    Each method updates its message from the vehicle and returns it; what
    never changes (frames, names, covariances, marker shapes) is set once.
    """

    def __init__(self, vehicle: Vehicle, frames: Frames):
        """Build every message with its fixed fields."""
        self.vehicle = vehicle
        self.frames = frames
        f = frames
        diagonal = [GROUND_TRUTH_VARIANCE if i % 7 == 0 else 0.0 for i in range(36)]
        self._odom = Odometry()
        self._odom.header.frame_id, self._odom.child_frame_id = f.odom, f.base
        self._odom.pose.covariance = diagonal
        self._odom.twist.covariance = diagonal
        # odom -> base_link; fl, fr: base -> steer frame -> wheel; rl, rr: base -> wheel.
        self._tf = TFMessage(transforms=[_transform(f.odom, f.base)])
        for i in range(4):
            if i < 2:
                steer_frame = f.wheels[i] + '_steer'
                self._tf.transforms.append(_transform(f.base, steer_frame))
                self._tf.transforms.append(_transform(steer_frame, f.wheels[i]))
            else:
                self._tf.transforms.append(_transform(f.base, f.wheels[i]))
        self._slip = WheelSlip()
        self._slip.header.frame_id = f.base
        self._slip.wheel_names = list(WHEELS)
        self._joints = JointState()
        self._joints.name = joint_names(f.prefix)
        self._imu = Imu()
        self._imu.header.frame_id = f.imu
        variance = [GROUND_TRUTH_VARIANCE, 0.0, 0.0, 0.0, GROUND_TRUTH_VARIANCE, 0.0, 0.0, 0.0,
                    GROUND_TRUTH_VARIANCE]
        self._imu.orientation_covariance = variance
        self._imu.angular_velocity_covariance = variance
        self._imu.linear_acceleration_covariance = variance
        self._imu.linear_acceleration.z = float(vehicle.params.gravity_m_s2)
        self._markers = None

    def odometry(self, now: Time) -> Odometry:
        """Return the pose in odom and the twist in base_link."""
        s = self.vehicle.state.tolist()
        msg = self._odom
        msg.header.stamp = now
        msg.pose.pose.position.x, msg.pose.pose.position.y = s[X], s[Y]
        _set_quaternion(msg.pose.pose.orientation, 0.0, 0.0, s[YAW])
        msg.twist.twist.linear.x, msg.twist.twist.linear.y = s[VX], s[VY]
        msg.twist.twist.angular.z = s[YAW_RATE]
        return msg

    def transforms(self, now: Time) -> TFMessage:
        """
        Return odom -> base_link and the wheel frames, as the URDF's joints chain them.

        Front wheels: base_link -> <wheel>_steer (steer about z) -> <wheel>
        (spin about y); rear wheels: base_link -> <wheel> (spin). Wheel
        centres are at the wheel radius above the ground.
        """
        v = self.vehicle
        s = v.state.tolist()
        steer = v.diag[STEER_ANGLE].tolist()
        spin = v.wheel_angle_rad.tolist()
        radius = v.params.wheel_radius_m
        t = self._tf.transforms
        _place(t[0], now, s[X], s[Y], 0.0, yaw=s[YAW])
        k = 1
        for i, (x, y) in enumerate(wheel_offsets(v)):
            if i < 2:
                _place(t[k], now, x, y, radius, yaw=steer[i])
                _place(t[k + 1], now, 0.0, 0.0, 0.0, pitch=spin[i])
                k += 2
            else:
                _place(t[k], now, x, y, radius, pitch=spin[i])
                k += 1
        return self._tf

    def wheel_slip(self, now: Time) -> WheelSlip:
        """Return the per-wheel tyre state."""
        out = self.vehicle.outputs
        msg = self._slip
        msg.header.stamp = now
        msg.slip_ratio = out[SLIP_RATIO].tolist()
        msg.slip_angle = out[SLIP_ANGLE].tolist()
        msg.normal_load = out[NORMAL_LOAD].tolist()
        msg.longitudinal_force = out[FORCE_X].tolist()
        msg.lateral_force = out[FORCE_Y].tolist()
        msg.wheel_angular_speed = self.vehicle.state[OMEGA:OMEGA + 4].tolist()
        msg.steer_angle = out[STEER_ANGLE].tolist()
        msg.friction_coefficient = self.vehicle.friction.tolist()
        return msg

    def joint_states(self, now: Time) -> JointState:
        """Return the front steer joints and the four spin joints."""
        v = self.vehicle
        msg = self._joints
        msg.header.stamp = now
        msg.position = v.diag[STEER_ANGLE, :2].tolist() + v.wheel_angle_rad.tolist()
        msg.velocity = [0.0, 0.0] + v.state[OMEGA:OMEGA + 4].tolist()
        return msg

    def imu(self, now: Time) -> Imu:
        """Return the ground-truth IMU at the CG: yaw, yaw rate, specific force (+g on z)."""
        v = self.vehicle
        msg = self._imu
        msg.header.stamp = now
        _set_quaternion(msg.orientation, 0.0, 0.0, float(v.state[YAW]))
        msg.angular_velocity.z = float(v.state[YAW_RATE])
        msg.linear_acceleration.x, msg.linear_acceleration.y = v.specific_force_m_s2()
        return msg

    def markers(self, now: Time) -> MarkerArray:
        """Return the body box, the wheels and a tyre-force arrow per wheel (colour: slip)."""
        if self._markers is None:
            self._markers = _marker_shapes(self.vehicle, self.frames)
        out = self.vehicle.outputs
        steer, fx_t, fy_t = out[STEER_ANGLE], out[FORCE_X], out[FORCE_Y]
        c, s = np.cos(steer), np.sin(steer)
        fx = (fx_t * c - fy_t * s) * FORCE_ARROW_M_PER_N
        fy = (fx_t * s + fy_t * c) * FORCE_ARROW_M_PER_N
        slip = np.hypot(out[SLIP_RATIO], np.tan(out[SLIP_ANGLE])).tolist()
        for m in self._markers.markers:
            m.header.stamp = now
        for i, (x, y) in enumerate(wheel_offsets(self.vehicle)):
            arrow = self._markers.markers[5 + i]
            arrow.points[1].x, arrow.points[1].y = x + float(fx[i]), y + float(fy[i])
            _slip_colour(arrow, slip[i])
        return self._markers


def _slip_colour(marker: Marker, slip: float) -> None:
    """Green at no slip through yellow to red at full slide (slip >= 0.5)."""
    level = min(abs(slip) / 0.5, 1.0)
    marker.color.r = min(1.0, 2.0 * level)
    marker.color.g = min(1.0, 2.0 * (1.0 - level))
    marker.color.b = 0.0
    marker.color.a = 1.0


def _marker_shapes(vehicle: Vehicle, frames: Frames,
                   namespace: str = 'rally_sim') -> MarkerArray:
    """Return the body box, the wheels and the force arrows, arrows of zero length."""
    p = vehicle.params
    out = MarkerArray()

    def marker(marker_id: int, kind: int, frame: str) -> Marker:
        m = Marker()
        m.header.frame_id = frame
        m.ns = namespace
        m.id = marker_id
        m.type = kind
        m.action = Marker.ADD
        m.pose.orientation.w = 1.0
        out.markers.append(m)
        return m

    body = marker(0, Marker.CUBE, frames.base)
    length = p.cg_to_front_m + p.cg_to_rear_m + 1.2
    body.pose.position.x = (p.cg_to_front_m - p.cg_to_rear_m) / 2.0
    body.pose.position.z = p.wheel_radius_m + 0.25
    body.scale.x, body.scale.y, body.scale.z = length, 2.0 * p.half_track_m + 0.1, 0.9
    body.color.r, body.color.g, body.color.b, body.color.a = 0.2, 0.4, 0.8, 0.6
    for i in range(4):
        wheel = marker(1 + i, Marker.CYLINDER, frames.wheels[i])
        _set_quaternion(wheel.pose.orientation, math.pi / 2.0, 0.0, 0.0)
        wheel.scale.x = wheel.scale.y = 2.0 * p.wheel_radius_m
        wheel.scale.z = 0.22
        wheel.color.r = wheel.color.g = wheel.color.b = 0.1
        wheel.color.a = 1.0
    for i, (x, y) in enumerate(wheel_offsets(vehicle)):
        arrow = marker(5 + i, Marker.ARROW, frames.base)
        arrow.points = [Point(x=x, y=y, z=0.05), Point(x=x, y=y, z=0.05)]
        arrow.scale.x, arrow.scale.y, arrow.scale.z = 0.06, 0.12, 0.12
    return out
