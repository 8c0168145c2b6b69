"""
Speed mode: turn a commanded speed into drive and brake torques.

Path followers often send only AckermannDrive speed (and acceleration). This
PI controller on the body speed asks for a longitudinal force, which becomes
drive torque on the driven wheels when it pushes the way the car should go,
and brake torque (60 % front, 40 % rear) when it must slow the car; at a
standstill with zero speed asked, the brakes hold the car. ROS-free.

PedalSpeedController does the same as a driver would, for a car with a
drivetrain in driver mode: throttle and brake pedals (0..1) from the speed
error, forwards only.
"""

from dataclasses import dataclass
import math
from typing import List, Sequence, Tuple

FRONT_BRAKE_SHARE = 0.6
DEFAULT_ACCELERATION_M_S2 = 4.0
HOLD_SPEED_M_S = 0.05
BRAKE_SHARES = (FRONT_BRAKE_SHARE / 2.0, FRONT_BRAKE_SHARE / 2.0,
                (1.0 - FRONT_BRAKE_SHARE) / 2.0, (1.0 - FRONT_BRAKE_SHARE) / 2.0)


@dataclass
class SpeedController:
    """PI speed controller for one car (per-wheel values in plain floats: called every period)."""

    mass_kg: float
    wheel_radius_m: float
    drive_limit_n_m: Sequence[float]   # per wheel, fl fr rl rr; 0 for undriven wheels
    brake_limit_n_m: Sequence[float]
    kp_per_s: float = 2.0
    ki_per_s2: float = 0.5
    integral_m: float = 0.0

    def __post_init__(self):
        """Keep the limits as lists of floats."""
        self.drive_limit_n_m = [float(v) for v in self.drive_limit_n_m]
        self.brake_limit_n_m = [float(v) for v in self.brake_limit_n_m]
        self._driven = sum(1 for v in self.drive_limit_n_m if v > 0.0)

    def reset(self) -> None:
        """Forget the integral term."""
        self.integral_m = 0.0

    def torques(self, target_m_s: float, acceleration_m_s2: float, speed_m_s: float,
                dt: float) -> Tuple[List[float], List[float]]:
        """
        Return (drive, brake) torques per wheel [N m] for the next dt seconds.

        acceleration_m_s2: the command's limit on |acceleration| (0: default).
        """
        limit = acceleration_m_s2 if acceleration_m_s2 > 0.0 else DEFAULT_ACCELERATION_M_S2
        error = target_m_s - speed_m_s
        self.integral_m = min(max(self.integral_m + error * dt, -2.0), 2.0)
        wanted = self.kp_per_s * error + self.ki_per_s2 * self.integral_m
        wanted = min(max(wanted, -limit), limit)
        force = self.mass_kg * wanted
        stopping = abs(target_m_s) < 1e-3
        if stopping and abs(speed_m_s) < HOLD_SPEED_M_S:
            self.integral_m = 0.0
            return [0.0] * 4, [0.5 * b for b in self.brake_limit_n_m]
        # The way the car should go: the target's, or (stopping) the way it rolls.
        direction = math.copysign(1.0, speed_m_s if stopping else target_m_s)
        if force * direction > 0.0:
            torque = force * self.wheel_radius_m / max(1, self._driven)
            drive = [min(max(torque, -d), d) if d > 0.0 else 0.0 for d in self.drive_limit_n_m]
            return drive, [0.0] * 4
        total = abs(force) * self.wheel_radius_m
        return [0.0] * 4, [min(total * share, b)
                           for share, b in zip(BRAKE_SHARES, self.brake_limit_n_m)]


@dataclass
class PedalSpeedController:
    """PI speed controller on the pedals: throttle when too slow, brake when too fast."""

    kp_per_m_s: float = 0.25
    ki_per_m: float = 0.1
    integral_m: float = 0.0

    def pedals(self, target_m_s: float, speed_m_s: float, dt: float) -> Tuple[float, float]:
        """Return (throttle, brake), each 0..1, for the next dt seconds."""
        error = target_m_s - speed_m_s
        self.integral_m = min(max(self.integral_m + error * dt, -3.0), 3.0)
        demand = self.kp_per_m_s * error + self.ki_per_m * self.integral_m
        return min(max(demand, 0.0), 1.0), min(max(-demand, 0.0), 1.0)
