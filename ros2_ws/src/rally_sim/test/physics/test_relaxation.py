"""Tyre relaxation: the slips as first-order states over the tyres' relaxation lengths."""

import math
import os

import numpy as np
import pytest
from rally_sim.physics import Command, ConfigError, load_vehicle, Surface, Vehicle
from rally_sim.physics.config import from_mapping
from rally_sim.physics.model import VX, VY, X, Y, YAW, YAW_RATE
from support.slopes import assert_stops_and_holds
from support.vehicles import vehicle_file
import yaml

MF52 = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                                     'support', 'tyres', 'mf52_test.tir'))


def relaxing(preset='volvo_v40', x_m=0.15, y_m=0.4, **keys):
    """Return a preset's config with tyre relaxation, both axles' lengths given."""
    lengths = {f'tyres.{axle}.relaxation_length_{d}_m': length
               for axle in ('front', 'rear') for d, length in (('x', x_m), ('y', y_m))}
    return load_vehicle(vehicle_file(preset), [f'{k}={v}' for k, v in
                                               {'tyre_relaxation': 'true', **lengths,
                                                **keys}.items()])


def run(config, seconds=2.0, steer=0.05, torque=150.0, **state):
    car = Vehicle(config, Surface.uniform('tarmac_dry'))
    car.reset(**(state or {'vx': 15.0}))
    car.set_command(Command(steer_rad=steer, drive_torque_n_m=(0.0, 0.0, torque, torque)))
    car.step(seconds)
    return car


def test_as_the_lengths_shrink_the_run_becomes_the_direct_one():
    direct = run(load_vehicle(vehicle_file('volvo_v40'))).state[[X, Y, YAW, VX, VY, YAW_RATE]]
    errors = []
    for length in (0.3, 0.03, 0.003):
        car = run(relaxing(x_m=length / 3.0, y_m=length))
        errors.append(np.max(np.abs(car.state[[X, Y, YAW, VX, VY, YAW_RATE]] - direct)))
    assert errors[0] > 5.0 * errors[1] > 25.0 * errors[2]      # about in proportion
    assert errors[0] > 1e-3                                      # and it does lag


@pytest.mark.parametrize('preset', ['volvo_v40', 'volvo_v40_mf'])
def test_a_step_in_steer_is_followed_with_the_time_constant_length_over_speed(preset):
    speed, sigma, dt = 30.0, 0.3, 1e-4
    config = relaxing(preset, y_m=sigma, dt=dt,
                      **{'steering.max_rate_rad_s': 0.0, 'steering.ackermann': 0.0})
    car = Vehicle(config, Surface.uniform('tarmac_dry'))
    car.reset(vx=speed)
    car.set_command(Command(steer_rad=0.01))
    tau = sigma / speed                                          # 10 ms
    motion, relaxed = [], []
    for _ in range(int(round(3 * tau / dt))):
        car.step(dt)
        wheels = car.wheels()
        motion.append(math.tan(wheels.slip_angle_rad[0]))
        relaxed.append(math.tan(wheels.relaxed_slip_angle_rad[0]))
    motion, relaxed = np.array(motion), np.array(relaxed)
    # the first-order law with the time constant sigma / |vx'|, integrated here apart
    expected, lagged = [], 0.0
    for k in range(len(motion)):
        lagged += dt * speed / sigma * (motion[k] - lagged) / (1.0 + dt * speed / sigma)
        expected.append(lagged)
    np.testing.assert_allclose(relaxed, expected, atol=1e-3 * abs(motion[0]))
    at_tau = int(round(tau / dt)) - 1
    assert relaxed[at_tau] / motion[at_tau] == pytest.approx(1.0 - math.exp(-1.0), abs=0.02)
    assert abs(relaxed[-1] / motion[-1]) > 0.93                 # three time constants: 95 %


def test_relaxation_off_gives_relaxed_slips_equal_to_the_motions():
    car = run(load_vehicle(vehicle_file('volvo_v40')))
    wheels = car.wheels()
    np.testing.assert_array_equal(wheels.relaxed_slip_ratio, wheels.slip_ratio)
    np.testing.assert_allclose(wheels.relaxed_slip_angle_rad, wheels.slip_angle_rad, atol=2e-3)


@pytest.mark.parametrize('preset', ['volvo_v40', 'volvo_v40_mf'])
def test_with_relaxation_it_brakes_to_rest_holds_there_and_on_a_slope(tmp_path, preset):
    assert_stops_and_holds(relaxing(preset), tmp_path)


def test_in_reverse_and_through_standstill_it_stays_calm():
    car = Vehicle(relaxing('volvo_v40_mf'), Surface.uniform('tarmac_dry'))
    car.reset(vx=-3.0)
    car.set_command(Command(steer_rad=0.3, drive_torque_n_m=(0.0, 0.0, -200.0, -200.0)))
    yaw_rates = []
    for _ in range(300):
        car.step(0.01)
        yaw_rates.append(car.state[YAW_RATE])
    assert car.state[VX] < -3.0 and np.all(np.isfinite(car.state))
    assert yaw_rates[-1] < -0.1          # backwards with the wheels to the left: it turns right
    assert np.max(np.abs(np.diff(yaw_rates[100:]))) < 0.01      # no chatter
    car.set_command(Command(brake_torque_n_m=[800.0] * 4))
    car.step(3.0)
    assert car.state[VX] == 0.0 and car.state[YAW_RATE] == 0.0


def test_lengths_come_from_the_tir_file_or_are_refused_naming_the_key(tmp_path):
    with open(vehicle_file('volvo_v40'), encoding='utf-8') as stream:
        tree = yaml.safe_load(stream)
    tree['tyres'] = {'front': {'tir': MF52}, 'rear': {'tir': MF52}}
    tree['tyre_relaxation'] = True
    car = Vehicle(from_mapping(tree, 'car.yaml'), Surface.uniform('tarmac_dry'))   # PTX, PTY
    car.reset(vx=15.0)
    car.set_command(Command(steer_rad=0.05))
    car.step(1.0)
    assert np.all(np.isfinite(car.state)) and car.state[YAW_RATE] > 0.1
    with pytest.raises(ConfigError, match=r'tyre_relaxation true: tyres.front.relaxation_length_x'
                       r'_m and _y_m must be positive .*pacejka_2006_205_60r15.tir gives no '
                       'relaxation'):
        relaxing('volvo_v40_mf', x_m=0.0, y_m=0.0)
    bad = tmp_path / 'bad.tir'
    bad.write_text(open(MF52, encoding='utf-8').read().replace(
        'PTY1                     = 2.2', 'PTY1 = -2.2'))
    tree['tyres'] = {'front': {'tir': str(bad)}, 'rear': {'tir': str(bad)}}
    with pytest.raises(ConfigError, match=r"key 'tyres.front.tir': .*bad.tir: "
                       r'\[LATERAL_COEFFICIENTS\] PTY1 = -2.2: a relaxation length from it is '
                       'not positive'):
        from_mapping(tree, 'car.yaml')
    with pytest.raises(ConfigError, match=r"document 002's tyre has none"):
        relaxing('volvo_v40', x_m=0.0)
    with pytest.raises(ConfigError, match=r'tyres.front.relaxation_length_y_m need '
                       'tyre_relaxation: true'):
        load_vehicle(vehicle_file('volvo_v40'), ['tyres.front.relaxation_length_y_m=0.3'])
