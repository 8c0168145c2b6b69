"""
Speed mode: turn a commanded speed into drive and brake torques.

Path followers often send only AckermannDrive speed (and acceleration). This
controller (a reference eased to the commanded speed, its slope as
feedforward, PI on the body speed) asks for a longitudinal force, which becomes
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
LEAD_M_S = 0.2
"""How far the reference may lead the car's speed [m/s]."""
APPROACH_S = 0.3
"""The time constant of the reference's approach to the target [s]."""
APPROACH_DRIVETRAIN_S = 1.0
"""The same through an engine, clutch and gearbox: their lag would carry the car past it."""
SLIP_M_S, SLIP_SHARE = 0.1, 0.1
"""Rims may run ahead of the car driving, or behind it braking, by SLIP_M_S and SLIP_SHARE of
its speed before the drive or the brake eases."""
BRAKE_SHARES = (FRONT_BRAKE_SHARE / 2.0, FRONT_BRAKE_SHARE / 2.0,
                (1.0 - FRONT_BRAKE_SHARE) / 2.0, (1.0 - FRONT_BRAKE_SHARE) / 2.0)


@dataclass
class SpeedController:
    """
    Speed controller of one car: a reference eased to the target, its slope asked outright, PI.

    A step in the commanded speed would make a plain PI controller overshoot
    (its zero, and the integral wound up while the force is at its limit:
    8 % on a 2 m/s step). So the reference the PI follows moves to the
    target at most at the acceleration limit and, near it, as a first-order
    approach of approach_s; its slope is asked for outright (feedforward);
    it never leads the car by more than LEAD_M_S (a car short of grip or
    power paces it); the integral grows only while the force is not at a
    limit it pushes against; and the rims are held near the car's speed
    (torques()). Per-wheel values in plain floats: called every control
    period.
    """

    mass_kg: float
    """What the force accelerates: the intake's is the car's mass and its wheels' spin, 4 I/r^2."""
    wheel_radius_m: float
    """The driven wheels' radius [m] (their mean where the axles' differ)."""
    drive_limit_n_m: Sequence[float]   # per wheel, fl fr rl rr; 0 for undriven wheels
    brake_limit_n_m: Sequence[float]
    kp_per_s: float = 2.0
    ki_per_s2: float = 0.5
    approach_s: float = APPROACH_S
    integral_m: float = 0.0
    reference_m_s: float = math.nan
    """The eased reference (NaN: none yet; the next call starts it at the car's speed)."""
    feedforward_m_s2: float = 0.0
    wheel_radii_m: Sequence[float] = ()
    """Each wheel's radius [m] for its brake torque; none given: wheel_radius_m, all four."""

    def __post_init__(self):
        """Keep the limits and radii as lists of floats."""
        self.wheel_radii_m = ([float(r) for r in self.wheel_radii_m]
                              or [float(self.wheel_radius_m)] * 4)
        self.drive_limit_n_m = [float(v) for v in self.drive_limit_n_m]
        self.brake_limit_n_m = [float(v) for v in self.brake_limit_n_m]
        self.driven = [i for i, v in enumerate(self.drive_limit_n_m) if v > 0.0]
        self._driven = len(self.driven)

    def reset(self) -> None:
        """Forget the integral term and the reference."""
        self.integral_m, self.reference_m_s, self.feedforward_m_s2 = 0.0, math.nan, 0.0

    def torques(self, target_m_s: float, acceleration_m_s2: float, speed_m_s: float,
                dt: float, rims_m_s: Sequence[float] = ()) -> Tuple[List[float], List[float]]:
        """
        Return (drive, brake) torques per wheel [N m] for the next dt seconds.

        acceleration_m_s2: the command's limit on |acceleration| (0: default).
        dt 0: a command between control periods, applied at once; neither
        the reference nor the integral moves. rims_m_s: each wheel's rim
        speed (omega r; none: not looked at). While the driven wheels' mean
        runs ahead of the car by more than slip_allowed_m_s, the drive eases
        off (none at twice that), as a motor's speed controller would not let
        them spin away; a wheel's brake likewise while it runs that far
        behind (ABS).
        """
        limit = acceleration_m_s2 if acceleration_m_s2 > 0.0 else DEFAULT_ACCELERATION_M_S2
        stopping = abs(target_m_s) < 1e-3
        if stopping and abs(speed_m_s) < HOLD_SPEED_M_S:
            self.reset()
            return [0.0] * 4, [0.5 * b for b in self.brake_limit_n_m]
        reference = speed_m_s if math.isnan(self.reference_m_s) else self.reference_m_s
        if dt > 0.0:
            step = min(limit * dt, abs(target_m_s - reference) * dt / self.approach_s)
            ramp = min(max(target_m_s - reference, -step), step)
            self.feedforward_m_s2 = ramp / dt
            reference = min(max(reference + ramp, speed_m_s - LEAD_M_S), speed_m_s + LEAD_M_S)
        self.reference_m_s = reference
        error = reference - speed_m_s
        integral = min(max(self.integral_m + error * dt, -2.0), 2.0)
        wanted = self.feedforward_m_s2 + self.kp_per_s * error + self.ki_per_s2 * integral
        force = self.mass_kg * min(max(wanted, -limit), limit)
        # The way the car should go: the target's, or (stopping) the way it rolls.
        direction = math.copysign(1.0, speed_m_s if stopping else target_m_s)
        if force * direction > 0.0:
            torque = force * self.wheel_radius_m / max(1, self._driven)
            held = any(0.0 < d < abs(torque) for d in self.drive_limit_n_m)
            if rims_m_s and self.driven:
                rim = sum(rims_m_s[i] for i in self.driven) / len(self.driven)
                spin = (rim - speed_m_s) * direction / slip_allowed_m_s(speed_m_s)
                if spin > 1.0:                      # spinning: ease off, no windup
                    torque *= max(2.0 - spin, 0.0)
                    held = True
            drive = [min(max(torque, -d), d) if d > 0.0 else 0.0 for d in self.drive_limit_n_m]
            brake = [0.0] * 4
        else:
            asked = [abs(force) * r * share
                     for r, share in zip(self.wheel_radii_m, BRAKE_SHARES)]
            drive = [0.0] * 4
            brake = [min(a, b) for a, b in zip(asked, self.brake_limit_n_m)]
            held = any(b < a for a, b in zip(asked, self.brake_limit_n_m))
            rolling = math.copysign(1.0, speed_m_s)
            for i, rim in enumerate(rims_m_s):
                lock = (speed_m_s - rim) * rolling / slip_allowed_m_s(speed_m_s)
                if lock > 1.0:                      # locking: ease off, no windup
                    brake[i] *= max(2.0 - lock, 0.0)
                    held = True
        if not ((held or abs(wanted) > limit) and error * wanted > 0.0):   # no windup
            self.integral_m = integral
        return drive, brake


def slip_allowed_m_s(speed_m_s: float) -> float:
    """Return how far a rim may run ahead of (driving) or behind (braking) the car."""
    return SLIP_M_S + SLIP_SHARE * abs(speed_m_s)


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
