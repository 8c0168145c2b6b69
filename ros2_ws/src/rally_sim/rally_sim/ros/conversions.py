"""Vehicle state to ROS messages (REP-103 axes, REP-105 frames). No node here."""

import math
from typing import Dict, List, Optional

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point, Point32, PolygonStamped, TransformStamped
import numpy as np
from rally_sim_msgs.msg import DrivetrainState, WheelSlip
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage
from transforms3d.euler import euler2quat
from visualization_msgs.msg import Marker, MarkerArray

from .serialized import SerializedMessage
from .. import WHEELS
from ..physics import Vehicle
from ..physics.model import (
    ALIGNING_MOMENT, FORCE_X, FORCE_Y, NORMAL_LOAD, OMEGA, RELAXED_SLIP_ANGLE,
    RELAXED_SLIP_RATIO, SLIP_ANGLE, SLIP_RATIO, STEER_ANGLE, X, Y, YAW)
from ..world.scene import Footprint

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


def transform_stamped(parent: str, child: str) -> TransformStamped:
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


def static_transforms(vehicle: Vehicle, now: Time, base_frame: str, imu_frame: str,
                      laser_frame: str = '', lidar: Optional[Dict[str, float]] = None
                      ) -> TFMessage:
    """Return the fixed frames: the IMU at the centre of gravity, the lidar at its mount."""
    t = transform_stamped(base_frame, imu_frame)
    _place(t, now, 0.0, 0.0, vehicle.params.cg_height_m)
    transforms = [t]
    if lidar:
        laser = transform_stamped(base_frame, laser_frame)
        _place(laser, now, lidar['mount_x_m'], lidar['mount_y_m'], lidar['mount_z_m'],
               yaw=lidar['mount_yaw_rad'])
        transforms.append(laser)
    return TFMessage(transforms=transforms)


def footprint_message(footprint: Footprint, base_frame: str) -> PolygonStamped:
    """
    Return the car's outline in base_link (the rectangle its contacts use), as Nav2 takes it.

    Corners counter-clockwise from the front left; z 0 (the ground at base_link).
    """
    front = footprint.ahead_of_cg_m + 0.5 * footprint.length_m
    rear = footprint.ahead_of_cg_m - 0.5 * footprint.length_m
    side = 0.5 * footprint.width_m
    message = PolygonStamped()
    message.header.frame_id = base_frame
    message.polygon.points = [Point32(x=x, y=y, z=0.0) for x, y in (
        (front, side), (rear, side), (rear, -side), (front, -side))]
    return message


def joint_names(prefix: str):
    """Return the steer and spin joint names, in the order joint_states uses."""
    return ([f'{prefix}wheel_{w}_steer_joint' for w in WHEELS[:2]]
            + [f'{prefix}wheel_{w}_spin_joint' for w in WHEELS])


class Frames:
    """The frame names of one car (REP-105), prefixed by its namespace."""

    def __init__(self, prefix: str, odom_frame: str, base_frame: str,
                 odom_prefix: Optional[str] = None):
        """
        Name the frames; `prefix` is 'NS/' in a namespace NS, else ''.

        odom_prefix: the odom frame's, where it differs (the cars of one
        simulator share their node's odom frame).
        """
        self.prefix = prefix
        self.odom = (prefix if odom_prefix is None else odom_prefix) + odom_frame
        self.base = prefix + base_frame
        self.wheels = [f'{prefix}wheel_{w}' for w in WHEELS]
        self.imu = f'{prefix}imu_link'
        self.laser = f'{prefix}laser'


def pose_paths(prefix: str) -> List[str]:
    """Return the paths of a translation (or position) and rotation under `prefix`."""
    return [f'{prefix}.{a}' for a in ('translation.x', 'translation.y', 'translation.z',
                                      'rotation.x', 'rotation.y', 'rotation.z', 'rotation.w')]


def _array_paths(name: str, size: int) -> List[str]:
    return [f'{name}.{i}' for i in range(size)]


def quaternion(roll: float, pitch: float, yaw: float) -> List[float]:
    """Return [x, y, z, w] (ROS order) of a fixed-axis roll, pitch, yaw rotation."""
    w, x, y, z = euler2quat(roll, pitch, yaw, 'sxyz')
    return [x, y, z, w]


class OutputMessages:
    """
    The node's output messages as serialized bytes, refilled in place for each publish.

    Each message is built once with what never changes (frames, names,
    covariances, marker shapes), serialized once, and each method then
    writes the numbers that change and returns the bytes to publish (see
    serialized.py: far cheaper than rclpy converting the message each time).
    """

    def __init__(self, vehicle: Vehicle, frames: Frames, pose_in_tf: bool = True):
        """Build every message; the TF holds odom -> base_link only if pose_in_tf."""
        self.vehicle = vehicle
        self.frames = frames
        self.pose_in_tf = pose_in_tf
        f = frames
        # odom -> base_link; fl, fr: base -> steer frame -> wheel; rl, rr: base -> wheel.
        tf = TFMessage(transforms=[transform_stamped(f.odom, f.base)] if pose_in_tf else [])
        for i in range(4):
            if i < 2:
                steer_frame = f.wheels[i] + '_steer'
                tf.transforms.append(transform_stamped(f.base, steer_frame))
                tf.transforms.append(transform_stamped(steer_frame, f.wheels[i]))
            else:
                tf.transforms.append(transform_stamped(f.base, f.wheels[i]))
        count = len(tf.transforms)
        self._tf = SerializedMessage(
            tf, [p for k in range(count) for p in pose_paths(f'transforms.{k}.transform')],
            stamps=[f'transforms.{k}.header.stamp' for k in range(count)])
        slip = WheelSlip()
        slip.header.frame_id = f.base
        slip.wheel_names = list(WHEELS)
        self._slip = SerializedMessage(slip, [p for name in WHEEL_SLIP_ROWS
                                              for p in _array_paths(name, 4)])
        joints = JointState()
        joints.name = joint_names(f.prefix)
        joints.position = [0.0] * len(joints.name)
        joints.velocity = [0.0] * len(joints.name)
        self._joints = SerializedMessage(joints, _array_paths('position', len(joints.name))
                                         + _array_paths('velocity', len(joints.name)))
        self._clock = SerializedMessage(ClockMsg(), [], stamps=['clock'])
        self._markers = None
        offsets = wheel_offsets(vehicle)
        radii = self._radii = vehicle.params.radii()
        # Translations of the wheel transforms, in their order in the TF message.
        self._wheel_translations = []
        for i, (x, y) in enumerate(offsets):
            self._wheel_translations.append([x, y, radii[i]])
            if i < 2:
                self._wheel_translations.append([0.0, 0.0, 0.0])

    def clock(self, stamp_ns: int) -> bytes:
        """Return /clock at simulated time stamp_ns."""
        return self._clock.fill((), stamp_ns)

    def transforms(self, stamp_ns: int) -> bytes:
        """
        Return odom -> base_link (if pose_in_tf) and the wheel frames, as the URDF chains them.

        Front wheels: base_link -> <wheel>_steer (steer about z) -> <wheel>
        (spin about y); rear wheels: base_link -> <wheel> (spin). Wheel
        centres are at the wheel radius above the ground; on springs base_link
        tilts with the body and each wheel rides up by its suspension travel.
        """
        v = self.vehicle
        if v.sprung:
            for i, travel in enumerate(v.suspension_travel().tolist()):
                self._wheel_translations[(0, 2, 4, 5)[i]][2] = self._radii[i] + travel
        s = v.state.tolist()
        steer = v.diag[STEER_ANGLE].tolist()
        spin = v.wheel_angle_rad.tolist()
        rotations = [quaternion(0.0, 0.0, steer[0]), quaternion(0.0, spin[0], 0.0),
                     quaternion(0.0, 0.0, steer[1]), quaternion(0.0, spin[1], 0.0),
                     quaternion(0.0, spin[2], 0.0), quaternion(0.0, spin[3], 0.0)]
        values = []
        if self.pose_in_tf:
            z, pitch, roll = v.body_pose()
            values = [s[X], s[Y], z] + quaternion(roll, pitch, s[YAW])
        for translation, rotation in zip(self._wheel_translations, rotations):
            values += translation + rotation
        return self._tf.fill(values, stamp_ns)

    def wheel_slip(self, stamp_ns: int) -> bytes:
        """Return the per-wheel tyre state."""
        v = self.vehicle
        out = v.outputs
        return self._slip.fill(np.concatenate((
            out[SLIP_RATIO], out[SLIP_ANGLE], out[NORMAL_LOAD], out[FORCE_X], out[FORCE_Y],
            v.state[OMEGA:OMEGA + 4], out[STEER_ANGLE], v.friction, out[ALIGNING_MOMENT],
            out[RELAXED_SLIP_RATIO], out[RELAXED_SLIP_ANGLE], v.suspension_travel())),
            stamp_ns)

    def drivetrain_state(self, stamp_ns: int) -> DrivetrainState:
        """Return the drivetrain's state (a small message: built afresh, not serialized)."""
        d = self.vehicle.drivetrain()
        msg = DrivetrainState(
            engine_rpm=d.engine_rpm, engine_torque=d.engine_torque_n_m, gear=d.gear,
            shifting=d.shifting, clutch_torque=d.clutch_torque_n_m,
            clutch_slip=d.clutch_slip_rad_s, throttle=d.throttle,
            drive_torque=d.drive_torque_n_m)
        msg.header.stamp = stamp(stamp_ns)
        msg.header.frame_id = self.frames.base
        return msg

    def joint_states(self, stamp_ns: int) -> bytes:
        """Return the front steer joints and the four spin joints."""
        v = self.vehicle
        return self._joints.fill(v.diag[STEER_ANGLE, :2].tolist() + v.wheel_angle_rad.tolist()
                                 + [0.0, 0.0] + v.state[OMEGA:OMEGA + 4].tolist(), stamp_ns)

    def markers(self, stamp_ns: int) -> bytes:
        """
        Return the body box, the wheels and a tyre-force arrow per wheel (colour: slip).

        A wheel in the air (no load) turns light blue (LIFTED_BLUE), else it is dark.
        """
        if self._markers is None:
            self._markers = _marker_template(self.vehicle, self.frames)
        out = self.vehicle.outputs
        steer, fx_t, fy_t = out[STEER_ANGLE], out[FORCE_X], out[FORCE_Y]
        c, s = np.cos(steer), np.sin(steer)
        ends = np.array(wheel_offsets(self.vehicle))
        ends[:, 0] += (fx_t * c - fy_t * s) * FORCE_ARROW_M_PER_N
        ends[:, 1] += (fx_t * s + fy_t * c) * FORCE_ARROW_M_PER_N
        level = np.minimum(np.abs(np.hypot(out[SLIP_RATIO], np.tan(out[SLIP_ANGLE]))) / 0.5,
                           1.0)
        colours = np.column_stack((np.minimum(1.0, 2.0 * level),
                                   np.minimum(1.0, 2.0 * (1.0 - level))))
        blues = np.where(out[NORMAL_LOAD] > 0.0, WHEEL_GREY, LIFTED_BLUE)
        return self._markers.fill(ends.ravel(), stamp_ns,
                                  np.concatenate((colours.ravel(), blues)))


WHEEL_GREY, LIFTED_BLUE = 0.1, 0.9
"""A wheel marker's red, green and blue (dark grey); its blue while the wheel is in the air."""
WHEEL_SLIP_ROWS = ('slip_ratio', 'slip_angle', 'normal_load', 'longitudinal_force',
                   'lateral_force', 'wheel_angular_speed', 'steer_angle', 'friction_coefficient',
                   'aligning_moment', 'relaxed_slip_ratio', 'relaxed_slip_angle',
                   'suspension_travel')
"""WheelSlip's arrays, in the order OutputMessages.wheel_slip fills them."""


def _marker_template(vehicle: Vehicle, frames: Frames) -> SerializedMessage:
    """Return the markers, the arrows' ends and colours (red, green) left to fill."""
    shapes = _marker_shapes(vehicle, frames)
    arrows = range(5, 5 + 4)
    return SerializedMessage(
        shapes, [f'markers.{k}.points.1.{a}' for k in arrows for a in ('x', 'y')],
        floats=[f'markers.{k}.color.{c}' for k in arrows for c in ('r', 'g')]
        + [f'markers.{1 + i}.color.b' for i in range(4)],
        stamps=[f'markers.{k}.header.stamp' for k in range(len(shapes.markers))])


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
        wheel.color.r = wheel.color.g = wheel.color.b = WHEEL_GREY
        wheel.color.a = 1.0
    for i, (x, y) in enumerate(wheel_offsets(vehicle)):
        arrow = marker(5 + i, Marker.ARROW, frames.base)
        arrow.points = [Point(x=x, y=y, z=0.05), Point(x=x, y=y, z=0.05)]
        arrow.scale.x, arrow.scale.y, arrow.scale.z = 0.06, 0.12, 0.12
        arrow.color.a = 1.0     # red and green follow the slip: green at none through
        #                         yellow to red at a full slide (slip >= 0.5)
    return out
