"""Behaviour of a car: standstill, launch, reverse, brakes, actuators, bad commands."""

import math

import numpy as np
import pytest

from rally_sim.physics import Command, CommandError, Vehicle
from rally_sim.physics.model import OMEGA, STEER, VX, VY, X, Y, YAW, YAW_RATE

REAR = (0.0, 0.0, 1.0, 1.0)


def run(vehicle, command, seconds, dt=0.01):
    """Hold a command; return the states after each step."""
    vehicle.set_command(command)
    history = []
    for _ in range(int(round(seconds / dt))):
        vehicle.step(dt)
        history.append(vehicle.state.copy())
    return np.array(history)


def test_at_rest_with_nothing_applied_stays_exactly_still(v40):
    car = Vehicle(v40)
    history = run(car, Command(), 3.0)
    assert np.all(history == 0.0)


def test_steering_at_standstill_does_not_move_the_car(v40):
    car = Vehicle(v40)
    history = run(car, Command(steer_rad=0.5), 2.0)
    assert np.all(history[:, [X, Y, YAW, VX, VY, YAW_RATE]] == 0.0)
    assert history[-1, STEER] == pytest.approx(0.5)


def test_straight_launch_from_rest_gains_no_yaw(v40):
    car = Vehicle(v40)
    history = run(car, Command(drive_torque_n_m=np.multiply(REAR, 800.0)), 4.0)
    assert history[-1, VX] > 5.0
    assert np.all(np.abs(history[:, [Y, YAW, VY, YAW_RATE]]) < 1e-9)   # round-off only


def test_reverse_drives_like_forward(v40):
    forward = run(Vehicle(v40), Command(drive_torque_n_m=np.multiply(REAR, 600.0)), 3.0)
    reverse = run(Vehicle(v40), Command(drive_torque_n_m=np.multiply(REAR, -600.0)), 3.0)
    assert reverse[-1, VX] < -4.0
    # Load transfer differs (pulling backwards unloads the driven rear axle),
    # so the two agree closely but not exactly ...
    assert -reverse[:, VX] == pytest.approx(forward[:, VX], rel=0.01)
    assert np.all(np.abs(reverse[:, [Y, YAW, VY, YAW_RATE]]) < 1e-9)


def test_reverse_mirrors_forward_exactly_without_load_transfer(v40):
    # ... and exactly once the CG is on the ground: the model is mirror-symmetric.
    flat = v40.with_overrides({'cg_height_m': 0.0})
    forward = run(Vehicle(flat), Command(drive_torque_n_m=np.multiply(REAR, 600.0)), 3.0)
    reverse = run(Vehicle(flat), Command(drive_torque_n_m=np.multiply(REAR, -600.0)), 3.0)
    assert reverse[:, [X, VX]] == pytest.approx(-forward[:, [X, VX]], rel=1e-9, abs=1e-12)
    assert reverse[:, OMEGA:OMEGA + 4] == pytest.approx(-forward[:, OMEGA:OMEGA + 4],
                                                        rel=1e-9, abs=1e-12)


def test_reverse_turn_is_stable(v40):
    car = Vehicle(v40)
    car.reset(vx=-5.0)
    history = run(car, Command(steer_rad=0.3, drive_torque_n_m=np.multiply(REAR, -300.0)),
                  5.0)
    assert np.all(np.isfinite(history))
    # Reversing with the wheels turned left swings the nose right (yaw rate < 0),
    # close to the kinematic v tan(delta) / L.
    kinematic = history[-1, VX] * math.tan(0.3) / 2.647
    assert history[-1, YAW_RATE] == pytest.approx(kinematic, rel=0.15)


def test_braking_to_a_stop_stays_stopped_without_creep_or_jitter(v40):
    car = Vehicle(v40)
    car.reset(vx=15.0)
    history = run(car, Command(brake_torque_n_m=[2000.0, 2000.0, 1200.0, 1200.0]), 6.0)
    vx = history[:, VX]
    assert np.all(vx >= 0.0)                                 # never reverses
    assert np.all(np.diff(vx) <= 1e-12)                      # monotone, no jitter
    stopped = history[int(4.0 / 0.01):]
    assert np.all(np.abs(stopped[:, VX]) < 1e-3)
    assert np.all(stopped[:, OMEGA:OMEGA + 4] == 0.0)        # wheels held
    assert np.ptp(stopped[:, X]) < 1e-3                      # no creep


def test_brake_holds_against_smaller_drive_torque(v40):
    car = Vehicle(v40)
    history = run(car, Command(drive_torque_n_m=np.multiply(REAR, 500.0),
                               brake_torque_n_m=[0.0, 0.0, 800.0, 800.0]), 3.0)
    assert np.all(history == 0.0)


def test_handbrake_locks_the_rear_wheels_only(v40):
    car = Vehicle(v40)
    car.reset(vx=20.0)
    history = run(car, Command(handbrake=1.0), 1.0)
    assert np.all(history[-1, OMEGA + 2:OMEGA + 4] == 0.0)
    assert np.all(history[-1, OMEGA:OMEGA + 2] > 40.0)
    slips = car.wheels().slip_ratio
    assert slips[2:] == pytest.approx([-1.0, -1.0])


def test_steering_rate_limit_and_command_rate(v40):
    car = Vehicle(v40)                      # vehicle limit 2 rad/s
    run(car, Command(steer_rad=0.5), 0.1)
    assert car.steer_rad == pytest.approx(0.2)
    car = Vehicle(v40)
    run(car, Command(steer_rad=0.5, steer_rate_rad_s=1.0), 0.1)   # the slower one wins
    assert car.steer_rad == pytest.approx(0.1)


def test_steering_lag(v40):
    car = Vehicle(v40.with_overrides({'steering.time_constant_s': 0.1,
                                      'steering.max_rate_rad_s': 0.0}))
    run(car, Command(steer_rad=0.4), 0.1)
    assert car.steer_rad == pytest.approx(0.4 * (1.0 - math.exp(-1.0)), rel=1e-9)


@pytest.mark.parametrize('field, value', [
    ('steer_rad', math.nan), ('steer_rate_rad_s', math.inf), ('handbrake', -math.inf),
    ('drive_torque_n_m', [0.0, 0.0, math.nan, 0.0]), ('brake_torque_n_m', [math.inf] * 4)])
def test_non_finite_command_is_rejected_and_nothing_changes(v40, field, value):
    car = Vehicle(v40)
    car.set_command(Command(drive_torque_n_m=np.multiply(REAR, 300.0)))
    run(car, Command(drive_torque_n_m=np.multiply(REAR, 300.0)), 0.5)
    before = car.state.copy()
    with pytest.raises(CommandError, match=field.split('_n_m')[0]):
        car.set_command(Command(**{field: value}))
    car.step(0.01)
    reference = Vehicle(v40)
    run(reference, Command(drive_torque_n_m=np.multiply(REAR, 300.0)), 0.51)
    assert np.all(np.isfinite(car.state))
    assert car.state == pytest.approx(reference.state, rel=1e-12)
    assert not np.array_equal(before, car.state)


def test_wrong_wheel_count_is_rejected(v40):
    with pytest.raises(CommandError, match='4 values'):
        Vehicle(v40).set_command(Command(drive_torque_n_m=[1.0, 2.0]))


def test_values_beyond_limits_are_clamped_and_reported(v40):
    car = Vehicle(v40)
    notes = car.set_command(Command(steer_rad=0.9, drive_torque_n_m=[100.0, 0.0, 5000.0, 0.0],
                                    brake_torque_n_m=[-5.0, 0.0, 0.0, 0.0], handbrake=2.0))
    text = '\n'.join(notes)
    assert 'steer_rad = 0.9 clamped to 0.6' in text
    assert 'drive_torque_n_m[fl] = 100 clamped to 0' in text      # rear-wheel drive
    assert 'drive_torque_n_m[rl] = 5000 clamped to 2000' in text
    assert 'brake_torque_n_m[fl] = -5 clamped to 0' in text
    assert 'handbrake = 2 clamped to 1' in text
    assert len(notes) == 5


def test_a_float32_command_at_the_limit_is_at_the_limit_with_no_note(v40):
    # Issue 47: Gymnasium's full-lock action warned "steer_rad = -0.6 clamped to -0.6".
    car = Vehicle(v40)
    lock = float(np.float32(-0.6))                  # -0.6000000238: float32's rounding past
    assert lock < -0.6
    assert car.set_command(Command(steer_rad=lock)) == []
    from rally_sim.physics.integrators import C_STEER
    assert car.command[C_STEER] == -0.6             # clamped all the same
    assert car.set_command(Command(steer_rad=-0.6 - 1e-6)) == [
        'steer_rad = -0.600001 clamped to -0.6 (limit [-0.6, 0.6])']


def test_bad_step_size_is_rejected(v40):
    car = Vehicle(v40)
    for dt in (0.0, -0.01, math.nan):
        with pytest.raises(ValueError, match='dt'):
            car.step(dt)
    assert np.all(car.state == 0.0)
