"""
Steady-state drift round a circle for a rear-wheel-drive car. ROS-free.

The classic split of drift control: the throttle holds the sideslip angle
(more rear torque spins the rear tyres, which lose lateral grip, and the
slide grows) and the steering holds the yaw rate and the course (counter-
steer: the front wheels point along the front axle's velocity, plus a small
angle that asks for the lateral force the yaw-rate error needs). The course
is the circle's tangent, turned toward the centre when the car drifts wide.
Tuned for the rwd_gravel car on the skid_pad stage (gravel, 15 m radius):
about 25 degrees of sideslip held lap after lap. Two throttles: a rear drive
torque per wheel (torque mode), or a driver's throttle pedal in a held gear
through the car's drivetrain (driver mode), each a feed-forward plus the
sideslip and speed errors.
"""

from dataclasses import dataclass
import math

from ..angles import wrap_angle


@dataclass
class DriftSettings:
    """The circle (counter-clockwise), the target slide and the gains (SI units)."""

    radius_m: float = 15.0
    center_x_m: float = 0.0
    center_y_m: float = 0.0
    cg_to_front_m: float = 1.10
    sideslip_rad: float = 0.45              # magnitude aimed at
    speed_m_s: float = 8.0
    torque_n_m: float = 500.0               # feed-forward rear torque per wheel
    torque_per_sideslip: float = 800.0      # [N m / rad]
    torque_per_speed: float = 200.0         # [N m s / m]
    steer_per_yaw_rate: float = 0.35        # [rad s / rad]
    yaw_rate_per_course: float = 1.5        # [1/s]
    course_per_radius: float = 0.15         # [rad / m] toward the centre when wide
    front_slip_rad: float = 0.05            # feed-forward front slip angle
    max_steer_rad: float = 0.6
    max_torque_n_m: float = 1500.0
    throttle: float = 0.35                  # driver mode: feed-forward pedal 0..1
    throttle_per_sideslip: float = 2.5      # [1 / rad]
    throttle_per_speed: float = 0.15        # [s / m]
    gear: int = 2                           # held (second: about 3,000-4,500 rpm)


class DriftController:
    """Counter-steer and throttle for a drift round the circle."""

    def __init__(self, settings: DriftSettings = DriftSettings()):
        """Use `settings`."""
        self.settings = settings

    def sideslip(self, vx: float, vy: float) -> float:
        """Return the sideslip angle [rad] (0 when barely moving)."""
        return math.atan2(vy, vx) if abs(vx) > 0.5 else 0.0

    def command(self, x: float, y: float, yaw: float, vx: float, vy: float, yaw_rate: float):
        """Return (steer [rad], rear drive torque per wheel [N m]) for the CG state."""
        s = self.settings
        steer, beta, speed = self._steer(x, y, yaw, vx, vy, yaw_rate)
        torque = (s.torque_n_m + s.torque_per_sideslip * (s.sideslip_rad - abs(beta))
                  + s.torque_per_speed * (s.speed_m_s - speed))
        return steer, min(max(torque, 0.0), s.max_torque_n_m)

    def pedals(self, x: float, y: float, yaw: float, vx: float, vy: float, yaw_rate: float):
        """Return (steer [rad], throttle 0..1) for the CG state: driver mode, gear held."""
        s = self.settings
        steer, beta, speed = self._steer(x, y, yaw, vx, vy, yaw_rate)
        throttle = (s.throttle + s.throttle_per_sideslip * (s.sideslip_rad - abs(beta))
                    + s.throttle_per_speed * (s.speed_m_s - speed))
        return steer, min(max(throttle, 0.0), 1.0)

    def _steer(self, x: float, y: float, yaw: float, vx: float, vy: float,
               yaw_rate: float):
        """Return the counter-steer [rad], the sideslip [rad] and the speed [m/s]."""
        s = self.settings
        dx, dy = x - s.center_x_m, y - s.center_y_m
        radius = math.hypot(dx, dy)
        speed = math.hypot(vx, vy)
        beta = self.sideslip(vx, vy)
        tangent = math.atan2(dy, dx) + math.pi / 2.0
        toward_centre = math.atan(s.course_per_radius * (radius - s.radius_m))
        course_error = wrap_angle(tangent + toward_centre - (yaw + beta))
        yaw_rate_wanted = speed / s.radius_m + s.yaw_rate_per_course * course_error
        front_course = math.atan2(vy + s.cg_to_front_m * yaw_rate, vx) if vx > 0.5 else 0.0
        steer = front_course + s.front_slip_rad + s.steer_per_yaw_rate * (
            yaw_rate_wanted - yaw_rate)
        return min(max(steer, -s.max_steer_rad), s.max_steer_rad), beta, speed
