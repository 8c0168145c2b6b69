"""
The person's steering: keys ramped as reference 000 does it (section 6), a stick direct.

Keyboard: the road-wheel angle moves toward input x lock at STEER_RATE_RAD_S
(steering smoothing), and with no key held it also returns to the centre
at CENTRE_RATE_1_S (auto-centring); the lock shrinks with speed
(speed-sensitive steering angle: lock x (1 - 0.7 min(speed / max, 1))).
Gamepad: the stick's axis past its dead zone, rescaled to 0..1 and raised
to the curve's power, times the lock; speed-sensitive only with the assist
(assists.py). The car's own steering actuator (rate limit, lag) then acts
in the simulator, as on any controller's command.
"""

from dataclasses import dataclass
import math

STEER_RATE_RAD_S = 3.0
"""Reference 000's steerRate: how fast held keys turn the road wheels [rad/s]."""
CENTRE_RATE_1_S = 5.0
"""Reference 000's centreRate: the return to centre with no key held [1/s]."""
SPEED_LOCK_SHARE = 0.7
"""Reference 000: at max_speed the lock is 1 - 0.7 of the standing lock."""
NO_INPUT = 0.01
"""Reference 000's threshold for 'no steering input'."""


def speed_factor(speed_m_s: float, max_speed_m_s: float) -> float:
    """Return reference 000's speedFactor: 1 standing, 0.3 at max_speed_m_s and above."""
    return 1.0 - min(max(abs(speed_m_s) / max_speed_m_s, 0.0), 1.0) * SPEED_LOCK_SHARE


@dataclass
class KeyboardSteering:
    """The road-wheel angle steered by keys: ramped, self-centring, speed-sensitive."""

    lock_rad: float
    max_speed_m_s: float
    angle_rad: float = 0.0

    def update(self, steer_input: float, speed_m_s: float, dt_s: float) -> float:
        """Advance by dt_s with the key input (-1, 0, 1) at this speed; return the angle."""
        target = steer_input * self.lock_rad * speed_factor(speed_m_s, self.max_speed_m_s)
        step = STEER_RATE_RAD_S * dt_s
        if abs(target - self.angle_rad) < step:
            self.angle_rad = target
        else:
            self.angle_rad += math.copysign(step, target - self.angle_rad)
        if abs(steer_input) < NO_INPUT:
            self.angle_rad -= self.angle_rad * min(CENTRE_RATE_1_S * dt_s, 1.0)
        return self.angle_rad


def stick(axis: float, dead_zone: float, curve: float) -> float:
    """Return a stick's axis (-1..1) past its dead zone, rescaled to -1..1, to curve's power."""
    size = abs(axis)
    if size <= dead_zone:
        return 0.0
    return math.copysign(((min(size, 1.0) - dead_zone) / (1.0 - dead_zone)) ** curve, axis)
