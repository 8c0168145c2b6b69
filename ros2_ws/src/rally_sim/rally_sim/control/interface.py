"""
What a controller reads and what it answers, as plain data: no ROS messages.

The commands are the simulator's three command inputs (the session's
intake takes them; the node converts ackermann_cmd, wheel_torque_cmd and
driver_cmd to them), with the messages' field names and defaults. The
states are what a controller reads from odom and wheel_slip.
"""

from dataclasses import dataclass, field
from typing import List, NamedTuple, Optional, Sequence

import numpy as np
from transforms3d.euler import euler2quat, quat2euler

GEAR_AUTOMATIC = -2
"""DriverCommand's gear request: the gearbox shifts by itself."""


@dataclass
class Ackermann:
    """Steering, and in command_mode speed the speed aimed at (ackermann_cmd's drive)."""

    steering_angle: float = 0.0
    steering_angle_velocity: float = 0.0
    speed: float = 0.0
    acceleration: float = 0.0
    jerk: float = 0.0


@dataclass
class Twist:
    """A speed and a yaw rate to drive at (cmd_vel: linear.x [m/s], angular.z [rad/s])."""

    linear_x: float = 0.0
    angular_z: float = 0.0


@dataclass
class WheelTorques:
    """Per-wheel drive and brake torques [N m], fl fr rl rr, and the handbrake 0..1."""

    drive_torque: Sequence[float] = field(default_factory=lambda: [0.0] * 4)
    brake_torque: Sequence[float] = field(default_factory=lambda: [0.0] * 4)
    handbrake: float = 0.0


@dataclass
class Pedals:
    """A driver's throttle, brake and handbrake (0..1) and gear request (driver_cmd)."""

    throttle: float = 0.0
    brake: float = 0.0
    handbrake: float = 0.0
    gear: int = GEAR_AUTOMATIC


class PlanarState(NamedTuple):
    """Pose in the odom frame and twist in the body frame, in the ground's plane."""

    x: float
    y: float
    yaw: float
    vx: float
    vy: float
    yaw_rate: float


class WheelState(NamedTuple):
    """What a controller reads from wheel_slip: wheel spins [rad/s] and front steer angles."""

    wheel_angular_speed: Sequence[float]
    steer_angle: Sequence[float]


def quaternion(roll: float, pitch: float, yaw: float) -> List[float]:
    """Return [x, y, z, w] (ROS order) of a fixed-axis roll, pitch, yaw rotation."""
    w, x, y, z = euler2quat(roll, pitch, yaw, 'sxyz')
    return [x, y, z, w]


def yaw_of(x: float, y: float, z: float, w: float) -> float:
    """Return the yaw of a quaternion given in ROS order, as a node reads it from odometry."""
    return quat2euler((w, x, y, z), 'sxyz')[2]


class Scan(NamedTuple):
    """What a controller reads from scan (sensor_msgs/LaserScan), its float32 fields as sent."""

    angle_min_rad: float
    angle_increment_rad: float
    range_min_m: float
    range_max_m: float
    ranges: Sequence[float]
    """Each beam's range [m] (REP 117: +inf no return, -inf nearer than range_min_m)."""


def scan_of(ranges, field_of_view_rad: float, range_min_m: float, range_max_m: float,
            increment: Optional[float] = None) -> Scan:
    """
    Return the scan a node reads from the simulator's LaserScan of these ranges and geometry.

    increment: the angle between beams (default: the field of view spanned, fov/(beams-1)).
    """
    beams = len(ranges)
    if increment is None:
        increment = field_of_view_rad / (beams - 1) if beams > 1 else 0.0
    angle_min, increment, low, high = np.array(
        (-0.5 * field_of_view_rad, increment, range_min_m, range_max_m),
        dtype=np.float32).tolist()
    return Scan(angle_min, increment, low, high, np.asarray(ranges, dtype=np.float32))
