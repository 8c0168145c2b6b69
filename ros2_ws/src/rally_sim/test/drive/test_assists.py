"""Driving aids: counter-steer as reference 000 gives it, ABS, traction control, settings."""

import math

import pytest
from rally_sim.drive.assists import (
    APPLY_1_S, Assists, counter_steer, COUNTER_STEER_YAW_RATE_RAD_S, RELEASE_1_S, SLIP_LIMIT,
    WheelGuard)


def test_counter_steer_blends_toward_the_sideslip_in_oversteer():
    # yawing left (r > 0), wheels straight, the rear sliding out right (vy < 0)
    vx, vy, dt = 10.0, -3.0, 0.01
    steered = counter_steer(0.0, 1.0, vx, vy, 2.0, dt)
    sideslip = math.atan2(vy, abs(vx))
    assert steered == pytest.approx(0.0 + (sideslip - 0.0) * 2.0 * dt, rel=1e-12)
    assert steered < 0.0                                     # into the skid: to the right
    # steered the other way already (sign(r) != sign(steer)): blends from there
    assert counter_steer(-0.1, 1.0, vx, vy, 3.0, dt) == pytest.approx(
        -0.1 + (sideslip + 0.1) * 3.0 * dt, rel=1e-12)


@pytest.mark.parametrize('steer, yaw_rate, assist', [
    (0.2, 1.0, 3.0),                                  # steering into the turn: not oversteer
    (0.0, 0.5 * COUNTER_STEER_YAW_RATE_RAD_S, 3.0),   # below the threshold
    (0.0, 1.0, 0.0)])                                 # assist off
def test_counter_steer_leaves_the_steering_alone(steer, yaw_rate, assist):
    assert counter_steer(steer, yaw_rate, 10.0, -3.0, assist, 0.01) == steer


def test_abs_takes_the_brake_off_a_locking_wheel_and_gives_it_back():
    guard, dt = WheelGuard(-1.0), 0.01
    locking = [-0.5, -0.01, -0.01, -0.01]
    factors = guard.update(locking, [True] * 4, 20.0, dt)
    assert factors == pytest.approx([1.0 - RELEASE_1_S * dt, 1.0, 1.0, 1.0])
    for _ in range(200):
        guard.update(locking, [True] * 4, 20.0, dt)
    assert guard.factors[0] == 0.0
    guard.update([0.0] * 4, [True] * 4, 20.0, dt)
    assert guard.factors[0] == pytest.approx(APPLY_1_S * dt)
    still = WheelGuard(-1.0)                        # at a standstill the brakes hold
    assert still.update(locking, [True] * 4, 0.5, dt) == [1.0] * 4


def test_traction_control_eases_a_spinning_driven_wheel_forwards_and_in_reverse():
    guard, dt = WheelGuard(1.0), 0.01
    spin = [0.0, 0.0, 2.0 * SLIP_LIMIT, 0.0]
    assert guard.update(spin, [False, False, True, True], 5.0, dt)[2] == pytest.approx(
        1.0 - RELEASE_1_S * dt)
    undriven = WheelGuard(1.0)
    assert undriven.update(spin, [False, False, False, True], 5.0, dt) == [1.0] * 4
    backwards = WheelGuard(1.0)                     # reversing: spinning means slip < 0
    factors = backwards.update([0.0, 0.0, -0.5, 0.5], [False, False, True, True], -2.0, dt,
                               reverse=True)
    assert factors[2] < 1.0 and factors[3] == 1.0


def test_assists_are_checked_by_name_kind_and_range():
    on = Assists().changed({'abs': True, 'counter_steer': 1.5})
    assert on.abs and on.counter_steer == 1.5 and not on.traction_control
    for values, words in (({'autopilot': True}, 'does not exist'),
                          ({'abs': 1}, 'true or false'),
                          ({'counter_steer': 4.0}, 'out of range'),
                          ({'counter_steer': True}, 'must be a number'),
                          ({'counter_steer': float('nan')}, 'out of range')):
        with pytest.raises(ValueError, match=words):
            on.changed(values)
    assert Assists().as_dict() == {'counter_steer': 0.0, 'speed_sensitive_steering': False,
                                   'automatic_gearbox': False, 'abs': False,
                                   'traction_control': False}      # all off by default
