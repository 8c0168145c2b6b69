"""
Driving aids, in the command path only: they change what the person asks, never the physics.

- counter-steer (reference 000, section 8): when the car yaws one way while
  the wheels are straight or steered the other (|yaw rate| over a
  threshold), the steering is blended toward the sideslip angle,
  atan2(vy, |vx|) (REP-103: into the skid), at `counter_steer` per second
  (0 off, 3 a beginner's);
- speed-sensitive steering for the gamepad (the keyboard's always is:
  steering.py);
- automatic gearbox: the gear request is the gearbox's own automatic
  (DriverCommand GEAR_AUTOMATIC) instead of the person's gear keys; the
  clutch is the model's, which engages by itself in either case;
- ABS and traction control: a factor per wheel on the brake or the drive,
  lowered while that wheel's slip ratio is past the threshold (locking or
  spinning) and raised again while it is not, so the wheel cycles about its
  peak grip as a real ABS does.

All are off by default; each is a parameter with its range (ASSIST_SPECS),
settable live from the view page.
"""

from dataclasses import dataclass, fields
import math
from typing import Any, Dict, Mapping, Sequence

from ..control.parameters import check, Spec

ASSIST_SPECS: Dict[str, Spec] = {
    'counter_steer': Spec(0.0, "counter-steer assist (reference 000's counterSteerAssist): how "
                          'fast the steering blends toward the sideslip in oversteer [1/s], '
                          '0: off, 3: a beginner', 0.0, 3.0, live=True),
    'speed_sensitive_steering': Spec(False, "the gamepad's lock shrinks with speed as the "
                                     "keyboard's does (reference 000's speedFactor)",
                                     live=True),
    'automatic_gearbox': Spec(False, "the gearbox shifts by itself (the car's own shift "
                              'speeds) instead of on the gear keys', live=True),
    'abs': Spec(False, 'anti-lock brakes: the brake eases off a wheel whose slip ratio is '
                'below -0.15', live=True),
    'traction_control': Spec(False, 'traction control: the drive eases off while a driven '
                             "wheel's slip ratio is over 0.15", live=True),
}
"""The assists as parameters: default, meaning, range."""
COUNTER_STEER_YAW_RATE_RAD_S = 0.2
"""Reference 000's oversteer threshold on the yaw rate [rad/s]."""
SLIP_LIMIT = 0.15
"""ABS and traction control act past this slip ratio (about a tyre's peak)."""
RELEASE_1_S, APPLY_1_S = 12.0, 6.0
"""How fast ABS and traction control take the brake or drive away, and give it back [1/s]."""
ACTIVE_SPEED_M_S = 1.0
"""Below this speed ABS does nothing (a car at rest holds on its brakes)."""


@dataclass
class Assists:
    """Which aids are on (see ASSIST_SPECS)."""

    counter_steer: float = 0.0
    speed_sensitive_steering: bool = False
    automatic_gearbox: bool = False
    abs: bool = False      # noqa: A003  (the assist's name, as the parameter is)
    traction_control: bool = False

    def changed(self, values: Mapping[str, Any]) -> 'Assists':
        """Return these assists with `values` set; ValueError names a bad name or value."""
        given = {}
        for name, value in values.items():
            if name not in ASSIST_SPECS:
                raise ValueError(f"assist '{name}' does not exist; the assists: "
                                 f"{', '.join(ASSIST_SPECS)}")
            spec = ASSIST_SPECS[name]
            if isinstance(spec.default, bool) and not isinstance(value, bool):
                raise ValueError(f"parameter '{name}' = {value!r} must be true or false")
            if isinstance(value, bool) and not isinstance(spec.default, bool):
                raise ValueError(f"parameter '{name}' = {value!r} must be a number")
            reason = check(name, value, ASSIST_SPECS)
            if reason:
                raise ValueError(reason)
            given[name] = float(value) if isinstance(spec.default, float) else value
        return Assists(**{**self.as_dict(), **given})

    def as_dict(self) -> Dict[str, Any]:
        """Return the assists by name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def counter_steer(angle_rad: float, yaw_rate_rad_s: float, vx: float, vy: float,
                  assist_1_s: float, dt_s: float) -> float:
    """Return the steering angle blended toward the sideslip in oversteer (reference 000)."""
    if assist_1_s <= 0.0:
        return angle_rad
    oversteering = (math.copysign(1.0, yaw_rate_rad_s) != _sign(angle_rad)
                    and abs(yaw_rate_rad_s) > COUNTER_STEER_YAW_RATE_RAD_S)
    if not oversteering:
        return angle_rad
    sideslip = math.atan2(vy, abs(vx))
    share = min(assist_1_s * dt_s, 1.0)
    return angle_rad + (sideslip - angle_rad) * share


def _sign(value: float) -> float:
    """Return -1, 0 or 1 (reference 000's sign(): 0 for a straight wheel)."""
    return 0.0 if value == 0.0 else math.copysign(1.0, value)


class WheelGuard:
    """ABS or traction control: a factor per wheel, lowered while the wheel slips too much."""

    def __init__(self, direction: float):
        """Guard against locking (direction -1: ABS) or spinning (+1: traction control)."""
        self.direction = direction
        self.factors = [1.0] * 4

    def update(self, slip_ratios: Sequence[float], wheels: Sequence[bool], speed_m_s: float,
               dt_s: float, reverse: bool = False) -> Sequence[float]:
        """Return each wheel's factor after dt_s, given its slip ratio (wheels: guarded)."""
        sense = -self.direction if reverse else self.direction
        for i, slip in enumerate(slip_ratios):
            slipping = (wheels[i] and sense * slip > SLIP_LIMIT
                        and (self.direction > 0 or abs(speed_m_s) > ACTIVE_SPEED_M_S))
            rate = -RELEASE_1_S if slipping else APPLY_1_S
            self.factors[i] = min(max(self.factors[i] + rate * dt_s, 0.0), 1.0)
        return self.factors

    def reset(self) -> None:
        """Give every wheel its whole brake or drive back."""
        self.factors = [1.0] * 4
