"""Vehicle state to ROS messages (REP-103 axes, REP-105 frames). No node here."""

import math
from typing import Sequence

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
from ..physics.model import VX, VY, X, Y, YAW, YAW_RATE

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


def odometry(vehicle: Vehicle, now: Time, odom_frame: str, base_frame: str) -> Odometry:
    """Return the pose in odom and the twist in base_link."""
    s = vehicle.state
    msg = Odometry()
    msg.header.stamp = now
    msg.header.frame_id = odom_frame
    msg.child_frame_id = base_frame
    msg.pose.pose.position.x, msg.pose.pose.position.y = float(s[X]), float(s[Y])
    _set_quaternion(msg.pose.pose.orientation, 0.0, 0.0, float(s[YAW]))
    msg.twist.twist.linear.x, msg.twist.twist.linear.y = float(s[VX]), float(s[VY])
    msg.twist.twist.angular.z = float(s[YAW_RATE])
    diagonal = [GROUND_TRUTH_VARIANCE if i % 7 == 0 else 0.0 for i in range(36)]
    msg.pose.covariance = diagonal
    msg.twist.covariance = diagonal
    return msg


def _transform(now: Time, parent: str, child: str, x: float, y: float, z: float,
               roll: float = 0.0, pitch: float = 0.0, yaw: float = 0.0) -> TransformStamped:
    t = TransformStamped()
    t.header.stamp = now
    t.header.frame_id = parent
    t.child_frame_id = child
    t.transform.translation.x, t.transform.translation.y = float(x), float(y)
    t.transform.translation.z = float(z)
    _set_quaternion(t.transform.rotation, roll, pitch, yaw)
    return t


def transforms(vehicle: Vehicle, now: Time, spin_rad: Sequence[float], odom_frame: str,
               base_frame: str, wheel_frames: Sequence[str]) -> TFMessage:
    """
    Return odom -> base_link and the wheel frames, as the URDF's joints chain them.

    Front wheels: base_link -> <wheel>_steer (steer about z) -> <wheel> (spin
    about y); rear wheels: base_link -> <wheel> (spin). Wheel centres are at
    the wheel radius above the ground.
    """
    s = vehicle.state
    steer = vehicle.wheels().steer_rad
    radius = vehicle.params.wheel_radius_m
    msg = TFMessage()
    msg.transforms.append(_transform(now, odom_frame, base_frame, s[X], s[Y], 0.0,
                                     yaw=float(s[YAW])))
    for i, (x, y) in enumerate(wheel_offsets(vehicle)):
        spin = float(spin_rad[i])
        if i < 2:
            steer_frame = wheel_frames[i] + '_steer'
            msg.transforms.append(_transform(now, base_frame, steer_frame, x, y, radius,
                                             yaw=float(steer[i])))
            msg.transforms.append(_transform(now, steer_frame, wheel_frames[i], 0.0, 0.0, 0.0,
                                             pitch=spin))
        else:
            msg.transforms.append(_transform(now, base_frame, wheel_frames[i], x, y, radius,
                                             pitch=spin))
    return msg


def static_transforms(vehicle: Vehicle, now: Time, base_frame: str, imu_frame: str
                      ) -> TFMessage:
    """Return the fixed frames: the IMU at the centre of gravity."""
    return TFMessage(transforms=[_transform(now, base_frame, imu_frame, 0.0, 0.0,
                                            vehicle.params.cg_height_m)])


def wheel_slip(vehicle: Vehicle, now: Time, base_frame: str) -> WheelSlip:
    """Return the per-wheel tyre state."""
    w = vehicle.wheels()
    msg = WheelSlip()
    msg.header.stamp = now
    msg.header.frame_id = base_frame
    msg.wheel_names = list(WHEELS)
    msg.slip_ratio = w.slip_ratio.tolist()
    msg.slip_angle = w.slip_angle_rad.tolist()
    msg.normal_load = w.normal_load_n.tolist()
    msg.longitudinal_force = w.force_x_n.tolist()
    msg.lateral_force = w.force_y_n.tolist()
    msg.wheel_angular_speed = w.omega_rad_s.tolist()
    msg.steer_angle = w.steer_rad.tolist()
    msg.friction_coefficient = w.friction.tolist()
    return msg


def joint_names(prefix: str):
    """Return the steer and spin joint names, in the order joint_states uses."""
    return ([f'{prefix}wheel_{w}_steer_joint' for w in WHEELS[:2]]
            + [f'{prefix}wheel_{w}_spin_joint' for w in WHEELS])


def joint_states(vehicle: Vehicle, now: Time, spin_rad: Sequence[float], prefix: str
                 ) -> JointState:
    """Return the front steer joints and the four spin joints."""
    w = vehicle.wheels()
    msg = JointState()
    msg.header.stamp = now
    msg.name = joint_names(prefix)
    msg.position = [float(a) for a in w.steer_rad[:2]] + [float(a) for a in spin_rad]
    msg.velocity = [0.0, 0.0] + w.omega_rad_s.tolist()
    return msg


def imu(vehicle: Vehicle, now: Time, imu_frame: str) -> Imu:
    """Return the ground-truth IMU at the CG: yaw, yaw rate, specific force (+g on z)."""
    s = vehicle.state
    msg = Imu()
    msg.header.stamp = now
    msg.header.frame_id = imu_frame
    _set_quaternion(msg.orientation, 0.0, 0.0, float(s[YAW]))
    msg.angular_velocity.z = float(s[YAW_RATE])
    ax, ay = vehicle.specific_force_m_s2()
    msg.linear_acceleration.x, msg.linear_acceleration.y = float(ax), float(ay)
    msg.linear_acceleration.z = float(vehicle.params.gravity_m_s2)
    variance = [GROUND_TRUTH_VARIANCE, 0.0, 0.0, 0.0, GROUND_TRUTH_VARIANCE, 0.0, 0.0, 0.0,
                GROUND_TRUTH_VARIANCE]
    msg.orientation_covariance = variance
    msg.angular_velocity_covariance = variance
    msg.linear_acceleration_covariance = variance
    return msg


def _slip_colour(marker: Marker, slip: float) -> None:
    """Green at no slip through yellow to red at full slide (slip >= 0.5)."""
    level = min(abs(slip) / 0.5, 1.0)
    marker.color.r = min(1.0, 2.0 * level)
    marker.color.g = min(1.0, 2.0 * (1.0 - level))
    marker.color.b = 0.0
    marker.color.a = 1.0


def markers(vehicle: Vehicle, now: Time, base_frame: str, wheel_frames: Sequence[str],
            namespace: str = 'rally_sim') -> MarkerArray:
    """Return the body box, the wheels and a tyre-force arrow per wheel (colour: slip)."""
    p = vehicle.params
    w = vehicle.wheels()
    out = MarkerArray()

    def marker(marker_id: int, kind: int, frame: str) -> Marker:
        m = Marker()
        m.header.stamp = now
        m.header.frame_id = frame
        m.ns = namespace
        m.id = marker_id
        m.type = kind
        m.action = Marker.ADD
        m.pose.orientation.w = 1.0
        out.markers.append(m)
        return m

    body = marker(0, Marker.CUBE, base_frame)
    length = p.cg_to_front_m + p.cg_to_rear_m + 1.2
    body.pose.position.x = (p.cg_to_front_m - p.cg_to_rear_m) / 2.0
    body.pose.position.z = p.wheel_radius_m + 0.25
    body.scale.x, body.scale.y, body.scale.z = length, 2.0 * p.half_track_m + 0.1, 0.9
    body.color.r, body.color.g, body.color.b, body.color.a = 0.2, 0.4, 0.8, 0.6
    for i, (x, y) in enumerate(wheel_offsets(vehicle)):
        wheel = marker(1 + i, Marker.CYLINDER, wheel_frames[i])
        _set_quaternion(wheel.pose.orientation, math.pi / 2.0, 0.0, 0.0)
        wheel.scale.x = wheel.scale.y = 2.0 * p.wheel_radius_m
        wheel.scale.z = 0.22
        wheel.color.r = wheel.color.g = wheel.color.b = 0.1
        wheel.color.a = 1.0
        arrow = marker(5 + i, Marker.ARROW, base_frame)
        c, s = math.cos(w.steer_rad[i]), math.sin(w.steer_rad[i])
        fx = w.force_x_n[i] * c - w.force_y_n[i] * s
        fy = w.force_x_n[i] * s + w.force_y_n[i] * c
        arrow.points = [Point(x=x, y=y, z=0.05),
                        Point(x=x + fx * FORCE_ARROW_M_PER_N, y=y + fy * FORCE_ARROW_M_PER_N,
                              z=0.05)]
        arrow.scale.x, arrow.scale.y, arrow.scale.z = 0.06, 0.12, 0.12
        _slip_colour(arrow, float(np.hypot(w.slip_ratio[i], math.tan(w.slip_angle_rad[i]))))
    return out
