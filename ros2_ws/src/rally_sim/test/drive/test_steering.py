"""The person's steering against reference 000, section 6, term by term."""

import math

import pytest
from rally_sim.drive.steering import (
    CENTRE_RATE_1_S, KeyboardSteering, speed_factor, SPEED_LOCK_SHARE, STEER_RATE_RAD_S, stick)


def reference_step(angle, steer_input, speed, dt, lock, max_speed):
    """Return the next angle by reference 000's speed-sensitive lock, rate and auto-centring."""
    factor = 1.0 - min(max(speed / max_speed, 0.0), 1.0) * 0.7
    target = steer_input * lock * factor
    rate = 3.0
    if abs(target - angle) < rate * dt:
        angle = target
    else:
        angle += math.copysign(rate * dt, target - angle)
    if abs(steer_input) < 0.01:
        angle -= angle * 5.0 * dt
    return angle


def test_the_constants_are_reference_000_s():
    assert (STEER_RATE_RAD_S, CENTRE_RATE_1_S, SPEED_LOCK_SHARE) == (3.0, 5.0, 0.7)


@pytest.mark.parametrize('speed, expected', [(0.0, 1.0), (10.0, 1.0 - 0.25 * 0.7),
                                             (40.0, 0.3), (80.0, 0.3), (-20.0, 1.0 - 0.5 * 0.7)])
def test_speed_factor(speed, expected):
    assert speed_factor(speed, 40.0) == pytest.approx(expected, rel=1e-12)


def test_held_keys_ramp_at_the_rate_and_released_keys_centre_as_the_reference_does():
    wheel = KeyboardSteering(lock_rad=0.6, max_speed_m_s=50.0)
    angle, dt = 0.0, 0.01
    inputs = [1.0] * 30 + [0.0] * 40 + [-1.0] * 80 + [0.0] * 100
    speeds = [5.0 + 0.2 * k for k in range(len(inputs))]
    for steer_input, speed in zip(inputs, speeds):
        angle = reference_step(angle, steer_input, speed, dt, 0.6, 50.0)
        assert wheel.update(steer_input, speed, dt) == pytest.approx(angle, abs=1e-15)
    assert abs(angle) < 1e-3                     # centred again


def test_a_held_key_reaches_the_speed_sensitive_lock_and_no_further():
    wheel = KeyboardSteering(lock_rad=0.5, max_speed_m_s=40.0)
    for _ in range(200):
        angle = wheel.update(-1.0, 20.0, 0.01)
    assert angle == pytest.approx(-0.5 * speed_factor(20.0, 40.0), rel=1e-12)
    first = KeyboardSteering(lock_rad=0.5, max_speed_m_s=40.0).update(1.0, 0.0, 0.01)
    assert first == pytest.approx(STEER_RATE_RAD_S * 0.01, rel=1e-12)     # one rate step


@pytest.mark.parametrize('axis, dead_zone, curve, expected', [
    (0.05, 0.08, 1.5, 0.0), (-0.08, 0.08, 1.0, 0.0), (1.0, 0.1, 2.0, 1.0), (-1.0, 0.1, 2.0, -1.0),
    (0.55, 0.1, 2.0, (0.45 / 0.9) ** 2), (-0.55, 0.1, 1.0, -0.5), (1.3, 0.0, 1.0, 1.0)])
def test_a_stick_past_its_dead_zone_to_its_curve(axis, dead_zone, curve, expected):
    assert stick(axis, dead_zone, curve) == pytest.approx(expected, rel=1e-12)
