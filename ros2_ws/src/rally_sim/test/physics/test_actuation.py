"""Actuators: dead time to the physics step, lag, rate limit, dead band, bias; none as before."""

import math

import numpy as np
import pytest

from rally_sim.physics import Command, ConfigError, DriverCommand, load_vehicle, Vehicle
from rally_sim.physics.actuation import Actuation
from rally_sim.physics.model import C_BRAKE, C_DRIVE, C_HANDBRAKE, C_STEER, C_THROTTLE, STEER
from rally_sim.resources import vehicle_path
from support.vehicles import vehicle

REAR = np.array([0.0, 0.0, 1.0, 1.0])


def car_with(*overrides, name='volvo_v40', vx=10.0):
    """Return a car of `name` with 'key=value' overrides, rolling at vx."""
    values = {key: float(value) for key, value in (o.split('=') for o in overrides)}
    car = Vehicle(vehicle(name).with_overrides(values))
    car.reset(vx=vx)
    return car


@pytest.mark.parametrize('delay_s, dt, expected', [
    (0.137, 0.001, 137), (0.137, 0.002, 69), (0.2, 0.001, 200), (0.0101, 0.0005, 21),
    (1.0, 0.001, 1000)])
def test_dead_time_is_exact_to_the_physics_step(delay_s, dt, expected):
    car = car_with(f'actuation.steer.delay_s={delay_s}')
    car.advance(3, dt)              # the command arrives mid-run, not at 0
    arrived = car.time_s
    car.set_command(Command(steer_rad=0.1))
    steps = []
    for k in range(expected + 5):
        car.advance(1, dt)
        steps.append(car.command[C_STEER])
    first = next(k for k, s in enumerate(steps) if s != 0.0)
    assert first == expected
    # the step it takes effect starts at or after arrival + delay, less than a step after
    start = arrived + first * dt
    assert arrived + delay_s - 1e-9 <= start < arrived + delay_s + dt


@pytest.mark.parametrize('chunk', [1, 7, 10, 250])
def test_how_the_steps_are_grouped_changes_nothing(chunk):
    reference = car_with('actuation.steer.delay_s=0.137', 'actuation.drive.delay_s=0.05',
                         'actuation.drive.time_constant_s=0.1')
    car = car_with('actuation.steer.delay_s=0.137', 'actuation.drive.delay_s=0.05',
                   'actuation.drive.time_constant_s=0.1')
    for target in (reference, car):
        target.set_command(Command(steer_rad=0.1, drive_torque_n_m=REAR * 500.0))
    reference.advance(500, 0.001)
    for _ in range(0, 500, chunk):
        car.advance(min(chunk, 500 - _), 0.001)
    assert np.array_equal(car.state, reference.state)


def test_an_actuator_with_nothing_to_do_leaves_the_run_bit_for_bit():
    plain = car_with()
    acting = car_with('actuation.handbrake.delay_s=0.3')   # the handbrake is never pulled
    assert acting.acting and not plain.acting
    for car in (plain, acting):
        car.set_command(Command(steer_rad=0.05, drive_torque_n_m=REAR * 400.0))
        car.advance(700, 0.001)
        car.set_command(Command(steer_rad=-0.1, brake_torque_n_m=[800.0] * 4))
        car.advance(500, 0.001)
    assert np.array_equal(plain.state, acting.state)


def test_no_actuation_section_is_todays_car():
    config = vehicle('volvo_v40')
    assert not Vehicle(config).acting
    assert config['actuation.steer.time_constant_s'] == config['steering.time_constant_s']
    assert config['actuation.steer.rate_limit'] == config['steering.max_rate_rad_s'] == 2.0


def test_first_order_lag_follows_its_exponential():
    tau, dt = 0.1, 0.001
    car = car_with(f'actuation.drive.time_constant_s={tau}')
    car.set_command(Command(drive_torque_n_m=REAR * 1000.0))
    got = []
    for _ in range(300):
        car.advance(1, dt)
        got.append(car.command[C_DRIVE + 2])
    k = np.arange(1, 301)
    assert np.allclose(got, 1000.0 * (1.0 - np.exp(-k * dt / tau)), rtol=0, atol=1e-9)
    assert got[99] == pytest.approx(1000.0 * (1.0 - 1.0 / math.e), abs=1e-9)


def test_rate_limit_moves_full_scale_per_second_at_most():
    car = car_with('actuation.brake.rate_limit=2.0')   # full brake in 0.5 s
    limit = car.brake_limit
    car.set_command(Command(brake_torque_n_m=limit))
    got = []
    for _ in range(600):
        car.advance(1, 0.001)
        got.append(car.command[C_BRAKE:C_BRAKE + 4].copy())
    got = np.array(got)
    assert np.allclose(got[99], limit * 0.2)
    assert np.allclose(np.diff(got[:400], axis=0), limit * 2.0 * 0.001)
    assert np.array_equal(got[-1], limit)


def test_steer_lag_and_rate_are_the_kernels_and_fold_into_actuation():
    by_new = car_with('actuation.steer.time_constant_s=0.2', 'actuation.steer.rate_limit=1.0')
    by_old = car_with('steering.time_constant_s=0.2', 'steering.max_rate_rad_s=1.0')
    assert not by_new.acting
    for car in (by_new, by_old):
        car.set_command(Command(steer_rad=0.3))
        car.advance(100, 0.001)
    assert np.array_equal(by_new.state, by_old.state)
    assert 0.05 < by_new.state[STEER] <= 0.1 + 1e-12     # 0.1 s at 1 rad/s at most


def test_one_setting_named_twice_must_agree(tmp_path):
    path = tmp_path / 'car.yaml'
    text = open(vehicle_path('volvo_v40'), encoding='utf-8').read()
    path.write_text(text + 'actuation:\n  steer:\n    rate_limit: 3.0\n')
    with pytest.raises(ConfigError, match="'actuation.steer.rate_limit' .3. and "
                       "'steering.max_rate_rad_s' .2. name one setting"):
        load_vehicle(str(path))
    # an override of either name replaces the setting, whichever name the file used
    config = vehicle('volvo_v40').with_overrides({'actuation.steer.rate_limit': 3.0})
    assert config['steering.max_rate_rad_s'] == 3.0
    assert config.with_overrides({'steering.max_rate_rad_s': 1.0})[
        'actuation.steer.rate_limit'] == 1.0


def test_dead_band_and_bias():
    car = car_with('actuation.steer.dead_band=0.01', 'actuation.steer.bias=0.005',
                   'actuation.drive.dead_band=0.05', 'actuation.drive.bias=-0.01')
    limit = car.drive_limit
    car.set_command(Command(steer_rad=0.008, drive_torque_n_m=REAR * 0.04 * limit))
    car.advance(1, 0.001)
    assert car.command[C_STEER] == pytest.approx(0.005)     # inside the band: 0, plus bias
    assert np.allclose(car.command[C_DRIVE:C_DRIVE + 4], -0.01 * limit)
    car.set_command(Command(steer_rad=0.1, drive_torque_n_m=REAR * 0.5 * limit))
    car.advance(1, 0.001)
    assert car.command[C_STEER] == pytest.approx(0.105)
    assert np.allclose(car.command[C_DRIVE:C_DRIVE + 4], REAR * 0.49 * limit - 0.01 * limit
                       * (1 - REAR))
    car.set_command(Command(steer_rad=0.6))     # the limit still holds after the bias
    car.advance(1, 0.001)
    assert car.command[C_STEER] == pytest.approx(0.6)


def test_driver_mode_throttle_and_handbrake_have_their_actuators():
    car = car_with('actuation.drive.delay_s=0.1', 'actuation.handbrake.rate_limit=4.0',
                   name='corvette_c5', vx=0.0)
    car.set_command(DriverCommand(throttle=0.8, handbrake=1.0))
    throttle, lever = [], []
    for _ in range(300):
        car.advance(1, 0.001)
        throttle.append(car.command[C_THROTTLE])
        lever.append(car.command[C_HANDBRAKE])
    assert throttle[99] == 0.0 and throttle[100] == 0.8
    assert lever[0] == pytest.approx(0.004) and lever[249] == pytest.approx(1.0)
    assert np.all(car.command[C_DRIVE:C_DRIVE + 4] == 0.0)     # no bias leaks into torques
    assert car.command[C_BRAKE + 2] == pytest.approx(car.handbrake_torque[2])


def test_replay_rows_take_effect_at_the_sub_step_they_fall_due():
    car = car_with('actuation.steer.delay_s=0.0137', vx=5.0)
    n = 10
    steer = np.zeros(n)
    steer[0] = 0.1
    states, _, _ = car.run(steer, np.zeros(n), np.zeros((n, 4)), np.zeros((n, 4)), np.zeros(n),
                           np.full(n, 0.005))                # rows of 5 ms, 1 ms sub-steps
    # row 0's command is in effect from 13.7 ms (the sub-step from 14 ms) until row 1's
    # (0) takes over at 5 + 13.7 ms (from 19 ms); the kernel's steer rate, 2 rad/s, moves
    # the wheels 2 mrad per 1 ms sub-step
    assert states[1, STEER] == 0.0
    assert states[2, STEER] == pytest.approx(0.002)          # 14..15 ms
    assert states[3, STEER] == pytest.approx(0.010 - 0.002)  # up until 19 ms, then back


def test_reset_forgets_the_commands_on_their_way():
    car = car_with('actuation.steer.delay_s=0.5')
    car.set_command(Command(steer_rad=0.2))
    car.advance(100, 0.001)
    assert car.actuation.pending() > 0
    car.reset(vx=3.0)
    assert car.actuation.pending() == 0
    car.advance(1000, 0.001)
    assert car.state[STEER] == 0.0


def test_every_actuator_key_is_checked():
    config = vehicle('volvo_v40')
    for key, value, message in [
            ('actuation.steer.delay_s', 1.5, r'out of range \[0, 1\]'),
            ('actuation.drive.time_constant_s', -0.1, r'out of range \[0, 5\]'),
            ('actuation.brake.dead_band', float('nan'), 'out of range'),
            ('actuation.handbrake.bias', 'x', 'must be a number'),
            ('actuation.clutch.delay_s', 0.1, "unknown key 'actuation.clutch.delay_s'"),
            ('actuation.steer.lag_s', 0.1, "unknown key 'actuation.steer.lag_s'")]:
        with pytest.raises(ConfigError, match=message):
            config.with_overrides({key: value})


def test_actuation_scales_by_the_cars_limits():
    config = vehicle('volvo_v40').with_overrides({'actuation.drive.bias': 0.1})
    actuation = Actuation(config, np.array([0.0, 0.0, 2000.0, 2000.0]), np.full(4, 3000.0))
    actuation.reset(np.zeros(14))
    rows = actuation.rows(0.0, 0.001, 1)
    assert list(rows[0, C_DRIVE:C_DRIVE + 4]) == [0.0, 0.0, 200.0, 200.0]
