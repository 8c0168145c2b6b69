"""A 1/10-scale car on the four-wheel model: F1TENTH's preset, and a car file of its own."""

import math

import numpy as np
import pytest
from rally_sim.physics import Command, load_vehicle, Vehicle
from rally_sim.physics.config import ConfigError
from rally_sim.physics.model import OMEGA, VX, VY, X, Y, YAW_RATE
from support.vehicles import vehicle
import yaml

FULL = 0.489        # the preset's drive and brake torque per wheel [N m]
MINIMAL = {         # what defines a 1/10 car; the rest has its documented default
    'name': 'my_tenth', 'mass_kg': 2.6, 'yaw_inertia_kg_m2': 0.03,
    'wheel_inertia_kg_m2': 0.0001, 'wheel_radius_m': 0.05, 'cg_to_front_axle_m': 0.14,
    'cg_to_rear_axle_m': 0.13, 'half_track_m': 0.12, 'cg_height_m': 0.06,
    'tyres': {'front': {'mu': 0.9, 'B': 4.0, 'C': 1.3, 'D': 1.0},
              'rear': {'mu': 0.9, 'B': 4.0, 'C': 1.3, 'D': 1.0}},
    'steering': {'max_angle_rad': 0.35},
    'drive': {'max_torque_front_n_m': 0.0, 'max_torque_rear_n_m': 0.5},
    'brakes': {'max_torque_front_n_m': 0.4, 'max_torque_rear_n_m': 0.3},
}


def driven(car, seconds, command):
    """Hold `command` for `seconds` (1 kHz); return the states at each 10 ms."""
    car.set_command(command)
    states = []
    for _ in range(round(seconds / 0.01)):
        car.advance(10, 0.001)
        states.append(car.state.copy())
    return np.array(states)


def test_the_f1tenth_preset_is_f1tenths_car():
    config = vehicle('f1tenth')
    assert (config['mass_kg'], config['yaw_inertia_kg_m2'], config['cg_to_front_axle_m'],
            config['cg_to_rear_axle_m'], config['cg_height_m']) == (
        3.74, 0.04712, 0.15875, 0.17145, 0.074)
    assert config['tyres.front.mu'] == 1.0489 and config['steering.max_angle_rad'] == 0.4189
    assert config['steering.max_rate_rad_s'] == 3.2 and config['wheel_inertia_kg_m2'] < 1e-3
    assert (config['footprint.length_m'], config['footprint.width_m']) == (0.58, 0.31)
    # its cornering stiffness per load is f1tenth_gym's C_S (mu B C D = mu C_S)
    for axle, stiffness in (('front', 4.718), ('rear', 5.4562)):
        slope = config[f'tyres.{axle}.B'] * config[f'tyres.{axle}.C'] * config[
            f'tyres.{axle}.D']
        assert slope == pytest.approx(stiffness, rel=1e-3)


def test_full_drive_gives_f1tenths_acceleration_and_the_wheels_roll_with_the_car():
    car = Vehicle(vehicle('f1tenth'))
    car.reset()
    states = driven(car, 1.0, Command(drive_torque_n_m=[FULL] * 4))
    assert np.all(np.isfinite(states))
    # the motor's a_max 9.51 m/s^2 is about the tyres' grip: with the load moved to the
    # rear (h 0.074 m over 0.33 m) the front wheels spin, and the car gains less
    assert 7.0 < states[-1, VX] < 9.51
    rolling = states[-1, OMEGA:OMEGA + 4] * 0.055 / states[-1, VX] - 1.0
    assert np.all(rolling[2:] < 0.25) and np.all(rolling[:2] > rolling[2:])
    assert np.all(np.diff(states[20:, VX]) > 0.0)                      # no wheel-spin chatter
    brake = driven(car, 2.0, Command(brake_torque_n_m=[FULL] * 4))
    stop = int(np.argmax(brake[:, VX] < 1e-3))
    assert 0 < stop and np.all(np.abs(brake[stop:, VX]) < 1e-3)        # stops, no creeping back


def test_at_rest_it_stays_put_and_a_slow_circle_is_the_kinematic_one():
    car = Vehicle(vehicle('f1tenth'))
    car.reset(x=1.0, y=2.0)
    rest = driven(car, 3.0, Command())
    assert np.max(np.abs(rest[:, [X, Y]] - [1.0, 2.0])) < 1e-9
    car.reset(vx=0.5)
    steer = 0.3
    # about 0.5 m/s, a small rear torque against drag: too slow to understeer
    states = driven(car, 4.0, Command(steer_rad=steer, drive_torque_n_m=[0, 0, 0.001, 0.001]))
    speed = math.hypot(states[-1, VX], states[-1, VY])
    wheelbase = 0.15875 + 0.17145
    sideslip = math.atan(0.17145 * math.tan(steer) / wheelbase)     # the rear axle's speed
    kinematic = speed * math.cos(sideslip) * math.tan(steer) / wheelbase
    assert states[-1, YAW_RATE] == pytest.approx(kinematic, rel=0.06)


def test_a_small_cars_own_file_needs_only_what_defines_it(tmp_path):
    path = tmp_path / 'my_tenth.yaml'
    path.write_text(yaml.safe_dump(MINIMAL))
    config = load_vehicle(str(path))
    assert config['resistance.drag_coefficient_kg_m'] == 0.0
    assert config['resistance.rolling_resistance_n_s_m'] == 0.0
    assert config['steering.ackermann'] == 0.0 and config['steering.time_constant_s'] == 0.0
    assert config['steering.max_rate_rad_s'] == 0.0
    assert config['brakes.handbrake_torque_n_m'] == 0.0 and config['gravity_m_s2'] == 9.81
    assert (config['dt'], config['integrator'], config['slip_model']) == (
        0.001, 'implicit_euler', 'regularized')
    car = Vehicle(config)
    car.reset()
    states = driven(car, 1.0, Command(drive_torque_n_m=[0.0, 0.0, 0.5, 0.5]))
    assert np.all(np.isfinite(states)) and states[-1, VX] > 3.0
    # what defines the car stays required, named
    del MINIMAL['tyres']['rear']['mu']
    path.write_text(yaml.safe_dump(MINIMAL))
    with pytest.raises(ConfigError, match=r'missing key\(s\) tyres.rear.mu'):
        load_vehicle(str(path))
