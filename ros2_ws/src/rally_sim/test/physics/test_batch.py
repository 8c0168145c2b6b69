"""Batch rollouts: every car as the single car would go, bad cars kept apart."""

import numpy as np
import pytest

from rally_sim.physics import batch as batch_module
from rally_sim.physics import CommandError, Vehicle
from rally_sim.physics.batch import Batch
from rally_sim.physics.config import ConfigError
from rally_sim.physics.model import STATE_SIZE
from support.vehicles import vehicle

CARS, HORIZON, DT = 5, 30, 0.02


def inputs(seed):
    rng = np.random.default_rng(seed)
    steer = rng.uniform(-0.3, 0.3, (CARS, HORIZON))
    drive = np.zeros((CARS, HORIZON, 4))
    drive[:, :, 2:] = rng.uniform(-200.0, 600.0, (CARS, HORIZON, 1))
    brake = np.zeros((CARS, HORIZON, 4))
    brake[:, HORIZON // 2:, :] = rng.uniform(0.0, 300.0, (CARS, 1, 1))
    handbrake = np.zeros((CARS, HORIZON))
    handbrake[-1, 5:10] = 1.0
    return steer, drive, brake, handbrake


def single(config, state, steer, drive, brake, handbrake):
    car = Vehicle(config)
    car.reset()
    car.state[:] = state
    car.work.refresh_jacobian()
    states, tyres, _ = car.run(steer, np.zeros(len(steer)), drive, brake, handbrake,
                               np.full(len(steer), DT))
    return states, tyres


def starts(config):
    car = Vehicle(config)
    rows = []
    for k in range(CARS):
        car.reset(x=float(k), yaw=0.1 * k, vx=2.0 + 3.0 * k, yaw_rate=0.05 * k)
        rows.append(car.state.copy())
    return np.array(rows)


@pytest.mark.parametrize('preset', ['volvo_v40', 'volvo_v40_document', 'volvo_v40_kinematic',
                                    'arcade_group_b'])
def test_each_car_of_the_batch_is_the_single_car_bit_for_bit(preset):
    config = vehicle(preset)
    steer, drive, brake, handbrake = inputs(1)
    states = starts(config)
    result = Batch(config, CARS).rollout(states, steer, drive, brake, handbrake, dt=DT)
    assert result.valid.all()
    assert result.states.shape == (CARS, HORIZON, STATE_SIZE)
    for k in range(CARS):
        expected, tyres = single(config, states[k], steer[k], drive[k], brake[k], handbrake[k])
        assert np.array_equal(result.states[k], expected), k
        assert np.array_equal(result.tyres[k], tyres), k


def test_per_car_parameters_randomise_the_cars():
    config = vehicle('volvo_v40')
    masses = [1200.0, 1400.0, 1600.0, 1800.0, 2000.0]
    grips = [0.6, 0.8, 1.0, 1.1, 1.3]
    batch = Batch(config, CARS, per_car={'mass_kg': masses, 'tyres.rear.mu': grips})
    steer, drive, brake, handbrake = inputs(2)
    states = starts(config)
    result = batch.rollout(states, steer, drive, brake, handbrake, dt=DT)
    for k in range(CARS):
        own = config.with_overrides({'mass_kg': masses[k], 'tyres.rear.mu': grips[k]})
        expected, _ = single(own, states[k], steer[k], drive[k], brake[k], handbrake[k])
        assert np.array_equal(result.states[k], expected), k
    with pytest.raises(ConfigError, match="'mass_kg' = -1.0 is out of range"):
        Batch(config, 2, per_car={'mass_kg': [1000.0, -1.0]})


def test_a_car_with_a_non_finite_input_or_state_is_marked_and_the_others_are_untouched():
    config = vehicle('volvo_v40')
    steer, drive, brake, handbrake = inputs(3)
    states = starts(config)
    steer[1, 7] = np.nan
    states[3, 4] = np.inf
    result = Batch(config, CARS).rollout(states, steer, drive, brake, handbrake, dt=DT)
    assert result.valid.tolist() == [True, False, True, False, True]
    assert np.isnan(result.states[1]).all() and np.isnan(result.tyres[3]).all()
    for k in (0, 2, 4):
        expected, _ = single(config, states[k], steer[k], drive[k], brake[k], handbrake[k])
        assert np.array_equal(result.states[k], expected), k


@pytest.mark.parametrize('argument, change, message', [
    ('states', lambda a: a[:, :6], rf'states has shape \(5, 6\); expected \(5, {STATE_SIZE}\)'),
    ('drive', lambda a: a[:, :, :2], r'drive has shape \(5, 30, 2\); expected \(5, 30, 4\)'),
    ('steer', lambda a: a[:3], r'steer has shape \(3, 30\); expected \(N, H\) with N = 5'),
    ('brake', lambda a: a[:, :10], r'brake has shape \(5, 10, 4\); expected \(5, 30, 4\)'),
])
def test_shapes_that_do_not_match_are_named(argument, change, message):
    config = vehicle('volvo_v40')
    steer, drive, brake, handbrake = inputs(4)
    given = {'states': starts(config), 'steer': steer, 'drive': drive, 'brake': brake,
             'handbrake': handbrake}
    given[argument] = change(given[argument])
    with pytest.raises(ValueError, match=message):
        Batch(config, CARS).rollout(**given, dt=DT)


def test_without_tyre_states_the_states_are_the_same():
    config = vehicle('volvo_v40')
    steer, drive, brake, handbrake = inputs(5)
    batch = Batch(config, CARS)
    full = batch.rollout(starts(config), steer, drive, brake, handbrake, dt=DT)
    lean = batch.rollout(starts(config), steer, drive, brake, handbrake, dt=DT, tyres=False)
    np.testing.assert_array_equal(lean.states, full.states)
    assert lean.tyres is None and lean.valid.all()


def test_a_few_cars_run_on_this_thread_with_the_same_bits():
    config = vehicle('volvo_v40')
    steer, drive, brake, handbrake = inputs(6)
    many = Batch(config, CARS).rollout(starts(config), steer, drive, brake, handbrake, dt=DT)
    few = Batch(config, 3).rollout(starts(config)[:3], steer[:3], drive[:3], brake[:3],
                                   handbrake[:3], dt=DT)
    assert 3 <= batch_module.FEW_CARS < CARS
    np.testing.assert_array_equal(few.states, many.states[:3])
    np.testing.assert_array_equal(few.tyres, many.tyres[:3])


def test_a_batch_of_drivetrain_cars_is_the_single_car_in_driver_mode_bit_for_bit():
    from rally_sim.physics.drivetrain import AUTOMATIC
    config = vehicle('rwd_gravel')
    rng = np.random.default_rng(5)
    steer = rng.uniform(-0.3, 0.3, (CARS, HORIZON))
    throttle = rng.uniform(0.0, 1.0, (CARS, HORIZON))
    pedal = np.where(np.arange(HORIZON) > 20, 0.3, 0.0) * np.ones((CARS, 1))
    gear = np.full((CARS, HORIZON), AUTOMATIC)
    gear[1] = 2.0                                    # one car held in second
    states = starts(config)
    states[2, 0] = np.nan                            # and one invalid
    result = Batch(config, CARS).rollout_driver(states, steer, throttle, pedal, gear=gear,
                                                dt=DT)
    assert result.valid.tolist() == [True, True, False, True, True]
    for i in (0, 1, 3, 4):
        car = Vehicle(config)
        car.state[:] = states[i]
        car.work.refresh_jacobian()
        expected, tyres, _ = car.run_driver(steer[i], np.zeros(HORIZON), throttle[i], pedal[i],
                                            np.zeros(HORIZON), gear[i], np.full(HORIZON, DT))
        np.testing.assert_array_equal(result.states[i], expected)
        np.testing.assert_array_equal(result.tyres[i], tyres)
    assert np.isnan(result.states[2]).all()
    with pytest.raises(CommandError, match='gear = 7'):
        Batch(config, CARS).rollout_driver(starts(config), steer, throttle,
                                           gear=np.full((CARS, HORIZON), 7.0), dt=DT)


def test_a_car_with_actuators_is_refused_by_name_not_run_without_them():
    config = vehicle('volvo_v40').with_overrides({'actuation.steer.delay_s': 0.2})
    with pytest.raises(ConfigError, match="'volvo_v40': batch rollouts do not model the "
                       'actuation: section yet'):
        Batch(config, 4)
    lagged = vehicle('volvo_v40').with_overrides({'actuation.steer.time_constant_s': 0.1})
    Batch(lagged, 2)        # the steer's lag and rate limit are the kernel's: modelled
