"""Slopes (reference 004): gravity along the ground, loads under its normal part, bad maps."""

import math

import numpy as np
import pytest
from rally_sim.physics import Command, Surface, SurfaceError, Vehicle
from rally_sim.physics.model import VX, X, Y, YAW
from support.slopes import FLAT, G, SIN, SLOPE, write_maps
from support.vehicles import vehicle


def car_on(surface_path, preset='volvo_v40', **state):
    car = Vehicle(vehicle(preset).with_overrides(FLAT), Surface.load(surface_path))
    car.reset(**state)
    return car


def test_the_ground_under_the_car_gives_height_pitch_and_roll(tmp_path):
    surface = Surface.load(write_maps(tmp_path))
    assert surface.height_at(100.5, 40.0) == pytest.approx(10.0, abs=1e-12)
    uphill = car_on(write_maps(tmp_path), x=100.5, y=50.0)
    z, pitch, roll = uphill.ground()
    assert z == pytest.approx(10.0) and pitch == pytest.approx(-math.atan(SLOPE))
    assert roll == pytest.approx(0.0, abs=1e-12)
    across = car_on(write_maps(tmp_path), x=100.5, y=50.0, yaw=math.pi / 2)
    _, pitch, roll = across.ground()
    assert pitch == pytest.approx(0.0, abs=1e-12)
    assert roll == pytest.approx(-math.atan(SLOPE))       # heading +y: the left side is low
    loads = uphill.wheels().normal_load_n.sum()
    assert loads == pytest.approx(1600.0 * G / math.sqrt(1.0 + SLOPE ** 2), rel=1e-9)


@pytest.mark.parametrize('preset', ['volvo_v40', 'volvo_v40_kinematic', 'arcade_group_b'])
def test_a_car_released_on_a_10_percent_slope_rolls_down_at_g_sin_theta(tmp_path, preset):
    car = car_on(write_maps(tmp_path), preset, x=128.0, y=128.0)
    config = car.config
    mass = config['mass_kg']
    gravity = config['gravity_m_s2']
    # The rolling wheels' inertia is carried along, where the model has wheels that roll.
    rolling = mass + (4 * config['wheel_inertia_kg_m2'] / config['wheel_radius_m'] ** 2
                      if config['model'] != 'arcade_bicycle' else 0.0)
    expected = -gravity * SIN * mass / rolling
    car.step(1.0)
    speed_1 = car.state[VX]
    car.step(1.0)
    assert car.state[VX] - speed_1 == pytest.approx(expected, rel=0.01)
    assert car.state[X] < 128.0 - 0.5 * 0.99 * abs(expected) * 4.0


@pytest.mark.parametrize('preset', ['volvo_v40', 'volvo_v40_kinematic', 'arcade_group_b'])
def test_held_by_its_brakes_it_stays_put_and_rolls_when_released(tmp_path, preset):
    car = car_on(write_maps(tmp_path), preset, x=128.0, y=128.0, yaw=0.3)
    car.set_command(Command(brake_torque_n_m=[300.0] * 4))
    car.step(0.5)                      # the tyres and brakes take up the load
    held = car.state[[X, Y, YAW]].copy()
    car.step(5.0)
    assert np.all(car.state[[X, Y, YAW]] == held)          # exactly: no creep
    car.set_command(Command())
    car.step(1.0)
    assert car.state[X] < held[0] - 0.2                     # downhill once released


@pytest.mark.parametrize('preset', ['volvo_v40', 'arcade_group_b'])
def test_rolling_freely_down_the_slope_shifts_no_load(tmp_path, preset):
    # Gravity along the ground acts at the CG and is met by the car's own
    # inertia there: no pitch moment, so the axles keep their static shares.
    car = car_on(write_maps(tmp_path), preset, x=128.0, y=128.0)
    car.step(1.0)
    config = car.config
    lf, lr = config['cg_to_front_axle_m'], config['cg_to_rear_axle_m']
    normal = config['mass_kg'] * config['gravity_m_s2'] / math.sqrt(1.0 + SLOPE ** 2)
    loads = car.wheels().normal_load_n
    assert loads[2] + loads[3] == pytest.approx(normal * lf / (lf + lr), rel=0.01)


@pytest.mark.parametrize('preset', ['volvo_v40', 'arcade_group_b'])
def test_braked_tyres_let_go_where_the_slope_beats_their_grip(tmp_path, preset):
    slippery = {'tyres.front.mu': 0.05, 'tyres.rear.mu': 0.05}      # 0.05 < 10 % slope
    car = Vehicle(vehicle(preset).with_overrides({**FLAT, **slippery}),
                  Surface.load(write_maps(tmp_path)))
    car.reset(x=128.0, y=128.0)
    car.set_command(Command(brake_torque_n_m=[300.0] * 4))
    car.step(2.0)
    assert car.state[X] < 128.0 - 0.5 and car.state[VX] < -0.3      # sliding down


@pytest.mark.parametrize('preset', ['volvo_v40', 'arcade_group_b'])
def test_a_car_on_a_cross_slope_drifts_downhill(tmp_path, preset):
    sloped = car_on(write_maps(tmp_path, rise='y'), preset, x=20.0, y=128.0, vx=5.0)
    level = Vehicle(vehicle(preset).with_overrides(FLAT))
    level.reset(x=20.0, y=128.0, vx=5.0)
    for car in (sloped, level):
        car.step(5.0)
    assert level.state[Y] == pytest.approx(128.0, abs=1e-6)
    assert sloped.state[Y] < 128.0 - 0.05                      # down the slope, to the right


def test_without_a_height_map_the_ground_is_flat():
    car = Vehicle(vehicle('volvo_v40'))
    car.reset(vx=5.0)
    car.step(1.0)
    assert car.ground() == (0.0, 0.0, 0.0)
    assert car.wheels().normal_load_n.sum() == pytest.approx(1600.0 * G, rel=1e-12)


@pytest.mark.parametrize('change, message', [
    ({'height_spec': {'resolution': 0.5}}, "resolution = 0.5 must equal the surface map's"),
    ({'height_spec': {'origin': [1.0, 0.0, 0.0]}}, 'origin = .* must equal'),
    ({'height_spec': {'min_height_m': 30.0}}, 'min_height_m = 30.0 must be below max_height_m'),
    ({'height_spec': {'max_slope': 0.05}}, r'rises 0.100 m per metre .* steeper than '
                                           'max_slope = 0.05'),
    ({'height_pixels': np.zeros((10, 256), np.uint8)}, 'image is 256 x 10 pixels; the surface '
                                                       'map is 256 x 256'),
    ({'height_spec': {'steepness': 1}}, r"unknown key\(s\) \['steepness'\]"),
])
def test_a_bad_height_map_is_refused_naming_the_key(tmp_path, change, message):
    with pytest.raises(SurfaceError, match=message):
        Surface.load(write_maps(tmp_path, **change))
