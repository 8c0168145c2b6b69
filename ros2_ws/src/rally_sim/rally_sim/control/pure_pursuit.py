"""
Pure pursuit path following with a curvature speed limit. ROS-free.

Steering: the rear axle aims at the path point one look-ahead distance ahead
(L_d = max(minimum, gain * speed)): delta = atan(2 L sin(alpha) / L_d), alpha
the angle from the car's heading to that point. Speed: the target, lowered
so that v^2 kappa stays under a lateral acceleration limit for the sharpest
bend in the next two seconds of path.
"""

from dataclasses import dataclass
import math

from .path import ClosedPath


@dataclass
class PurePursuitSettings:
    """Tuning of the path follower (SI units)."""

    wheelbase_m: float = 2.647
    cg_to_rear_m: float = 1.497
    lookahead_min_m: float = 4.0
    lookahead_gain_s: float = 0.6
    max_steer_rad: float = 0.6
    target_speed_m_s: float = 12.0
    lateral_accel_limit_m_s2: float = 3.5
    min_speed_m_s: float = 3.0


class PurePursuit:
    """Steering and speed commands that follow a closed path."""

    def __init__(self, path: ClosedPath, settings: PurePursuitSettings = PurePursuitSettings()):
        """Follow `path` with `settings`."""
        self.path = path
        self.settings = settings

    def command(self, x: float, y: float, yaw: float, speed: float):
        """Return (steer [rad], speed [m/s]) for the CG pose (x, y, yaw) and forward speed."""
        s = self.settings
        if self.path._kernels is not None:     # one compiled call; the same bits
            return self.path._kernels.command(
                self.path.table, self.path.length_m, float(x), float(y), float(yaw),
                float(speed), float(s.wheelbase_m), float(s.cg_to_rear_m),
                float(s.lookahead_min_m), float(s.lookahead_gain_s), float(s.max_steer_rad),
                float(s.target_speed_m_s), float(s.lateral_accel_limit_m_s2),
                float(s.min_speed_m_s))
        rear_x, rear_y, target_x, target_y, kappa = self._geometry(x, y, yaw, speed)
        alpha = math.atan2(target_y - rear_y, target_x - rear_x) - yaw
        distance = max(math.hypot(target_x - rear_x, target_y - rear_y), 1e-3)
        steer = math.atan(2.0 * s.wheelbase_m * math.sin(alpha) / distance)
        steer = min(max(steer, -s.max_steer_rad), s.max_steer_rad)
        limit = math.sqrt(s.lateral_accel_limit_m_s2 / kappa) if kappa > 1e-6 else math.inf
        return steer, max(s.min_speed_m_s, min(s.target_speed_m_s, limit))

    def _geometry(self, x: float, y: float, yaw: float, speed: float):
        """Return path_kernels.pursuit()'s answer through the path's Python methods."""
        s = self.settings
        rear_x = x - s.cg_to_rear_m * math.cos(yaw)
        rear_y = y - s.cg_to_rear_m * math.sin(yaw)
        lookahead = max(s.lookahead_min_m, s.lookahead_gain_s * abs(speed))
        here = self.path.locate(rear_x, rear_y)
        target_x, target_y = self.path.point_at(here.progress_m + lookahead)
        kappa = self.path.max_curvature(here.progress_m, max(2.0 * abs(speed), lookahead))
        return rear_x, rear_y, target_x, target_y, kappa
