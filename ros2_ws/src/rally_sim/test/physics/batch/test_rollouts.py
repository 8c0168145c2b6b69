"""Batch rollouts: every car as the single car would go, bad cars kept apart."""

import numpy as np
import pytest

from rally_sim.physics import CommandError, Vehicle
from rally_sim.physics.batch import rollouts as batch_module
from rally_sim.physics.batch.rollouts import Batch
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


def assert_each_car_is_single(config, result, states, steer, drive, brake, handbrake):
    assert result.valid.all()
    assert result.states.shape == (CARS, HORIZON, STATE_SIZE)
    for k in range(CARS):
        expected, tyres = single(config, states[k], steer[k], drive[k], brake[k], handbrake[k])
        assert np.array_equal(result.states[k], expected), k
        assert np.array_equal(result.tyres[k], tyres), k


def assert_drivers_are_single(config, result, cars, states, steer, throttle, pedal, gear):
    for i in cars:
        car = Vehicle(config)
        car.reset()             # actuators, if any, as a batch's start
        car.state[:] = states[i]
        car.work.refresh_jacobian()
        expected, tyres, _ = car.run_driver(steer[i], np.zeros(HORIZON), throttle[i], pedal[i],
                                            np.zeros(HORIZON), gear[i], np.full(HORIZON, DT))
        np.testing.assert_array_equal(result.states[i], expected)
        np.testing.assert_array_equal(result.tyres[i], tyres)


def starts(config):
    car = Vehicle(config)
    rows = []
    for k in range(CARS):
        car.reset(x=float(k), yaw=0.1 * k, vx=2.0 + 3.0 * k, yaw_rate=0.05 * k)
        rows.append(car.state.copy())
    return np.array(rows)


@pytest.mark.parametrize('preset', ['volvo_v40', 'volvo_v40_document', 'volvo_v40_kinematic',
                                    'arcade_group_b', 'volvo_v40_mf', 'volvo_v40_mf relaxed'])
def test_each_car_of_the_batch_is_the_single_car_bit_for_bit(preset):
    config = vehicle(preset.split()[0])
    if preset.endswith('relaxed'):          # .tir tyres, tyre relaxation: hidden tyre states
        config = config.with_overrides({'tyre_relaxation': True, **{
            f'tyres.{axle}.relaxation_length_{d}_m': 0.3 for axle in ('front', 'rear')
            for d in 'xy'}})
    steer, drive, brake, handbrake = inputs(1)
    states = starts(config)
    result = Batch(config, CARS).rollout(states, steer, drive, brake, handbrake, dt=DT)
    assert_each_car_is_single(config, result, states, steer, drive, brake, handbrake)


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
    from rally_sim.physics.drivetrain.equations import AUTOMATIC
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
    assert_drivers_are_single(config, result, (0, 1, 3, 4), states, steer, throttle, pedal, gear)
    assert np.isnan(result.states[2]).all()
    with pytest.raises(CommandError, match='gear = 7'):
        Batch(config, CARS).rollout_driver(starts(config), steer, throttle,
                                           gear=np.full((CARS, HORIZON), 7.0), dt=DT)


ACTUATED = {
    'delays only': {'actuation.steer.delay_s': 0.137, 'actuation.drive.delay_s': 0.05,
                    'actuation.brake.delay_s': 0.0101, 'actuation.handbrake.delay_s': 0.3},
    'every setting': {'actuation.steer.delay_s': 0.2, 'actuation.steer.time_constant_s': 0.1,
                      'actuation.steer.dead_band': 0.01, 'actuation.steer.bias': 0.005,
                      'actuation.drive.delay_s': 0.033, 'actuation.drive.time_constant_s': 0.07,
                      'actuation.drive.rate_limit': 3.0, 'actuation.drive.dead_band': 0.05,
                      'actuation.brake.time_constant_s': 0.05, 'actuation.brake.bias': 0.02,
                      'actuation.handbrake.rate_limit': 5.0,
                      'actuation.handbrake.delay_s': 0.1},
}


@pytest.mark.parametrize('setting', sorted(ACTUATED))
def test_each_car_with_actuators_is_the_single_car_bit_for_bit(setting):
    config = vehicle('volvo_v40').with_overrides(ACTUATED[setting])
    steer, drive, brake, handbrake = inputs(3)
    states = starts(config)
    result = Batch(config, CARS).rollout(states, steer, drive, brake, handbrake, dt=DT)
    assert_each_car_is_single(config, result, states, steer, drive, brake, handbrake)
    plain = Batch(vehicle('volvo_v40'), CARS).rollout(states, steer, drive, brake, handbrake,
                                                      dt=DT)
    assert not np.array_equal(plain.states, result.states)      # the actuators did act


def test_the_actuators_carry_commands_in_flight_from_one_rollout_to_the_next():
    # explicit Euler: a rollout cut in two is the whole (no Jacobian kept across the cut)
    config = vehicle('volvo_v40_document').with_overrides(ACTUATED['every setting'])
    steer, drive, brake, handbrake = inputs(4)
    batch = Batch(config, CARS)
    whole = batch.rollout(starts(config), steer, drive, brake, handbrake, dt=DT)
    actuators = batch.actuators()
    cut = 7         # 0.14 s: the steer's 0.2 s delay reaches into the second part
    first = batch.rollout(starts(config), steer[:, :cut], drive[:, :cut], brake[:, :cut],
                          handbrake[:, :cut], dt=DT, actuators=actuators)
    again = actuators.copy()
    second = batch.rollout(first.states[:, -1], steer[:, cut:], drive[:, cut:],
                           brake[:, cut:], handbrake[:, cut:], dt=DT, actuators=actuators)
    np.testing.assert_array_equal(np.concatenate([first.states, second.states], axis=1),
                                  whole.states)
    replay = batch.rollout(first.states[:, -1], steer[:, cut:], drive[:, cut:],
                           brake[:, cut:], handbrake[:, cut:], dt=DT, actuators=again)
    np.testing.assert_array_equal(replay.states, second.states)
    fresh = batch.rollout(first.states[:, -1], steer[:, cut:], drive[:, cut:],
                          brake[:, cut:], handbrake[:, cut:], dt=DT)
    assert not np.array_equal(fresh.states, second.states)     # nothing in flight there


def test_actuators_reset_for_some_cars_stand_as_a_new_car_s():
    config = vehicle('volvo_v40').with_overrides(ACTUATED['every setting'])
    steer, drive, brake, handbrake = inputs(5)
    batch = Batch(config, CARS)
    actuators = batch.actuators()
    batch.rollout(starts(config), steer, drive, brake, handbrake, dt=DT, actuators=actuators)
    actuators.reset(np.array([1, 3]), np.zeros(actuators.target.shape[1]))
    again = batch.rollout(starts(config), steer, drive, brake, handbrake, dt=DT,
                          actuators=actuators)
    fresh = batch.rollout(starts(config), steer, drive, brake, handbrake, dt=DT)
    np.testing.assert_array_equal(again.states[[1, 3]], fresh.states[[1, 3]])
    assert not np.array_equal(again.states[0], fresh.states[0])


def test_a_car_with_actuators_in_driver_mode_is_the_single_car_bit_for_bit():
    from rally_sim.physics.drivetrain.equations import AUTOMATIC
    config = vehicle('rwd_gravel').with_overrides(
        {'actuation.drive.delay_s': 0.05, 'actuation.drive.time_constant_s': 0.1,
         'actuation.brake.dead_band': 0.1, 'actuation.steer.delay_s': 0.1})
    rng = np.random.default_rng(6)
    steer = rng.uniform(-0.3, 0.3, (CARS, HORIZON))
    throttle = rng.uniform(0.0, 1.0, (CARS, HORIZON))
    pedal = np.where(np.arange(HORIZON) > 20, 0.3, 0.0) * np.ones((CARS, 1))
    gear = np.full((CARS, HORIZON), AUTOMATIC)
    states = starts(config)
    result = Batch(config, CARS).rollout_driver(states, steer, throttle, pedal, gear=gear,
                                                dt=DT)
    assert result.valid.all()
    assert_drivers_are_single(config, result, range(CARS), states, steer, throttle, pedal, gear)


def test_actuators_that_the_batch_cannot_share_or_lanes_cannot_run_are_refused_by_name():
    config = vehicle('volvo_v40_document').with_overrides({'actuation.steer.delay_s': 0.2})
    with pytest.raises(ConfigError, match=r"per_car\['actuation.steer.delay_s'\]: the cars "
                       "of a batch share the vehicle's actuation: section"):
        Batch(config, 2, per_car={'actuation.steer.delay_s': [0.1, 0.2]})
    batch = Batch(config, 2)
    with pytest.raises(ValueError, match='an actuation: section of nothing but steering'):
        batch.rollout(np.zeros((2, STATE_SIZE)), np.zeros((2, 3)), np.zeros((2, 3, 4)),
                      dt=DT, tyres=False, lanes=True)
    with pytest.raises(ValueError, match='actuators are of 3 cars; expected 2'):
        batch.rollout(np.zeros((2, STATE_SIZE)), np.zeros((2, 3)), np.zeros((2, 3, 4)),
                      dt=DT, actuators=Batch(config, 3).actuators())
    lagged = vehicle('volvo_v40').with_overrides({'actuation.steer.time_constant_s': 0.1})
    assert Batch(lagged, 2).actuators() is None     # the kernel's own steering lag
