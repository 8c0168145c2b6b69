"""A wheel radius per axle (issue 59, item 6): the DeLorean's 0.296 m front and 0.32 m rear."""

import numpy as np
import pytest

from rally_sim.control.speed import SpeedController
from rally_sim.physics import Command, ConfigError, Surface, Vehicle
from rally_sim.physics.batch.rollouts import Batch
from rally_sim.physics.body.layout import HEAVE, PITCH, WHEEL_Z
from rally_sim.physics.equilibria import SteadyState
from rally_sim.physics.model import NORMAL_LOAD, OMEGA, STATE_SIZE, VX
from support.suspension import Figures
from support.vehicles import vehicle

FRONT, REAR = 0.296, 0.32


def radii(name='volvo_v40', front=FRONT, rear=REAR, **keys):
    """Return a shipped car with the given front and rear wheel radii."""
    return vehicle(name).with_overrides(
        {'wheel_radius_m': front, 'wheel_radius_rear_m': rear, **keys})


def test_each_axle_rolls_freely_at_its_own_radius():
    car = Vehicle(radii())
    car.reset(vx=20.0)
    np.testing.assert_allclose(car.state[OMEGA:OMEGA + 4], 20.0 / np.array(
        [FRONT, FRONT, REAR, REAR]), rtol=1e-12)
    car.advance(1000, 0.001)
    slips = car.wheels().slip_ratio
    assert np.abs(slips).max() < 1e-4
    v = car.state[VX]
    np.testing.assert_allclose(car.state[OMEGA:OMEGA + 4] * [FRONT, FRONT, REAR, REAR], v,
                               rtol=1e-4)


def test_a_larger_driven_wheel_pushes_less_per_newton_metre():
    accelerations = {}
    inertia = vehicle('volvo_v40')['wheel_inertia_kg_m2']
    for rear in (0.30, 0.33):
        car = Vehicle(radii(rear=rear))
        car.reset()
        car.set_command(Command(drive_torque_n_m=(0.0, 0.0, 300.0, 300.0)))
        car.advance(500, 0.001)
        before = car.state[VX]
        car.advance(500, 0.001)
        accelerations[rear] = (car.state[VX] - before) / 0.5
    mass = vehicle('volvo_v40')['mass_kg']

    def expected(rear):     # F = 2 T / R, against the car and its four wheels' spin
        return 600.0 / rear / (mass + 2 * inertia / FRONT ** 2 + 2 * inertia / rear ** 2)
    ratio = accelerations[0.30] / accelerations[0.33]
    assert ratio == pytest.approx(expected(0.30) / expected(0.33), rel=0.01)


def test_one_radius_given_twice_is_the_car_as_it_was_bit_for_bit():
    plain = Vehicle(vehicle('volvo_v40_suspension'))
    twice = Vehicle(vehicle('volvo_v40_suspension').with_overrides(
        {'wheel_radius_rear_m': vehicle('volvo_v40_suspension')['wheel_radius_m']}))
    for car in (plain, twice):
        car.reset(vx=8.0)
        car.set_command(Command(steer_rad=0.1, drive_torque_n_m=(0.0, 0.0, 200.0, 200.0)))
        car.advance(1500, 0.001)
    np.testing.assert_array_equal(twice.state, plain.state)


def test_a_car_on_springs_rests_level_on_wheels_of_two_sizes():
    config = radii('volvo_v40_suspension')
    figures = Figures(config)
    car = Vehicle(config, Surface.uniform('tarmac_dry'))
    car.reset()
    np.testing.assert_allclose(car.state[WHEEL_Z:WHEEL_Z + 4], [FRONT, FRONT, REAR, REAR],
                               atol=1e-12)
    car.step(2.0)
    np.testing.assert_allclose(car.state[HEAVE:HEAVE + 7], figures.static_positions(),
                               atol=1e-9)
    assert abs(car.state[PITCH]) < 1e-9
    np.testing.assert_allclose(car.outputs[NORMAL_LOAD], figures.static, rtol=1e-9)


def test_a_steady_state_turns_each_axle_at_its_own_radius_and_the_simulator_holds_it():
    car = Vehicle(radii(), Surface.uniform('tarmac_dry'))
    solver = SteadyState(car, 'torque')
    e = solver.solve(-0.02, radius_m=30.0)
    rolling = car.free_rolling_omega(e.state[VX], e.state[VX + 2])
    np.testing.assert_allclose(e.state[OMEGA:OMEGA + 2], rolling[:2], rtol=0.01)  # undriven
    assert rolling[2] < rolling[0]                              # the bigger rear turns slower
    car.restore(e.state)
    car.command[:] = solver.command_of(e.unknowns)
    car.advance(1000, 0.001)
    np.testing.assert_allclose(car.state[VX:OMEGA + 4], e.state[VX:OMEGA + 4], rtol=1e-6,
                               atol=1e-6)


def test_speed_mode_brakes_each_wheel_by_its_own_radius():
    speed = SpeedController(1500.0, REAR, (0.0, 0.0, 2000.0, 2000.0), (3000.0,) * 4,
                            wheel_radii_m=(FRONT, FRONT, REAR, REAR))
    _, brake = speed.torques(0.0, 2.0, 10.0, 0.01)
    assert brake[2] / brake[0] == pytest.approx(REAR / FRONT * 0.4 / 0.6, rel=1e-12)


def test_bad_radii_are_refused_by_name_and_lanes_say_they_need_one():
    with pytest.raises(ConfigError, match='wheel_radius_rear_m'):
        radii(rear=0.005)
    with pytest.raises(ConfigError, match='wheel_radius_rear_m'):
        radii(rear=-0.3)
    with pytest.raises(ConfigError, match='wheel_radius_rear_m'):
        vehicle('volvo_v40_kinematic').with_overrides({'wheel_radius_rear_m': 0.3})
    batch = Batch(radii(integrator='euler', slip_model='document', load_transfer='document',
                        **{'steering.ackermann': 0.0}), cars=2)
    with pytest.raises(ValueError, match='one wheel radius for all four'):
        batch.rollout(np.zeros((2, STATE_SIZE)), np.zeros((2, 3)), np.zeros((2, 3, 4)),
                      tyres=False, lanes=True)
