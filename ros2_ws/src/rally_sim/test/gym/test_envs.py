"""The Gymnasium environments: API, determinism, physics, rewards, ends, vector form."""

import warnings

import gymnasium
from gymnasium.utils.env_checker import check_env
import numpy as np
import pytest

import rally_sim.gym  # noqa: F401  (registers the environments)
from rally_sim.gym.envs import DriftEnv, RallyDriveEnv
from rally_sim.gym.render import CAR_COLOUR
from rally_sim.gym.tasks import DriftTask, DriveTask
from rally_sim.physics import Vehicle
from rally_sim.physics.model import VX, X, Y

NAMES = sorted(rally_sim.gym.ENVIRONMENTS)


@pytest.mark.parametrize('name', NAMES)
def test_check_env_passes_without_a_warning(name):
    env = gymnasium.make(name, render_mode='rgb_array')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


def rollout(env, seed, actions):
    observation, _ = env.reset(seed=seed)
    seen = [observation]
    for action in actions:
        observation, reward, terminated, truncated, _ = env.step(action)
        seen.append(np.append(observation, reward))
        if terminated or truncated:
            break
    return seen


@pytest.mark.parametrize('name', NAMES)
def test_seeded_reset_and_steps_repeat_exactly(name):
    actions = np.random.default_rng(0).uniform(-1.0, 1.0, (40, 2))
    first = rollout(gymnasium.make(name), 7, actions)
    again = rollout(gymnasium.make(name), 7, actions)
    other = rollout(gymnasium.make(name), 8, actions)
    assert len(first) == len(again)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_a_step_is_the_vehicles_own_physics():
    env = RallyDriveEnv()
    env.reset(seed=1, options={'speed_m_s': 6.0})
    fleet = env.fleet
    car = Vehicle(fleet.config, fleet.batch.template.surface)
    car.state[:] = fleet.states[0]
    for action in ([0.2, 0.5], [-0.4, 1.0], [0.0, -0.6]):
        env.step(np.array(action))
        steer, drive, brake = fleet.pedals.torques(action[0], action[1])
        car.work.refresh_jacobian()
        states, _, _ = car.run([steer], [0.0], drive[None], brake[None], [0.0], [0.05])
        np.testing.assert_array_equal(states[0], fleet.states[0])
    assert fleet.pedals.torques(0.5, 0.5)[1][2] == 0.5 * fleet.config['drive.max_torque_rear_n_m']
    assert fleet.pedals.torques(0.5, -0.5)[2][0] == (
        0.5 * fleet.config['brakes.max_torque_front_n_m'])


def test_driving_along_the_line_earns_its_progress():
    env = RallyDriveEnv()
    env.reset(seed=2, options={'speed_m_s': 8.0})
    _, reward, terminated, _, info = env.step(np.array([0.0, 0.05]))
    assert not terminated
    assert 0.38 < info['progress_m'] < 0.42           # 8 m/s for 0.05 s
    assert reward == pytest.approx(info['progress_m'] - 0.05 * info['cross_track_m'] ** 2)


def test_leaving_the_road_ends_the_episode():
    env = RallyDriveEnv()
    env.reset(seed=3, options={'speed_m_s': 10.0})
    for _ in range(200):
        _, reward, terminated, truncated, info = env.step(np.array([1.0, 0.3]))
        if terminated:
            break
    assert terminated and not truncated
    assert abs(info['cross_track_m']) > 4.0
    assert reward == DriveTask.END_REWARD


def test_drift_rewards_a_slide_and_ends_off_the_ring():
    env = DriftEnv()
    observation, _ = env.reset(seed=4, options={'speed_m_s': 8.0})
    names = env.fleet.task.observation_names
    assert observation[names.index('radius_error')] == pytest.approx(0.0, abs=1e-9)
    straight = []
    for _ in range(200):
        observation, reward, terminated, _, info = env.step(np.array([0.0, 0.0]))
        straight.append(reward)
        if terminated:
            break
    assert terminated and info['radius_error_m'] > 6.0 and reward == DriftTask.END_REWARD
    assert max(straight[:5]) < 0.5                       # no slide, little reward
    task = env.fleet.task
    state = env.fleet.states[:1].copy()
    state[0, X:Y + 1] = [0.0, -15.0]                      # on the circle, heading along it
    state[0, 2] = 0.45                                     # nose 0.45 rad inside the course
    state[0, VX:VX + 2] = [8.0 * np.cos(0.45), -8.0 * np.sin(0.45)]
    reward, ended, info = task.score(state, state)
    assert not ended[0] and reward[0] == pytest.approx(1.0, abs=1e-9)


def test_a_non_finite_action_is_refused_and_changes_nothing():
    env = RallyDriveEnv()
    env.reset(seed=5)
    before = env.fleet.states.copy()
    with pytest.raises(ValueError, match='action must be finite'):
        env.step(np.array([np.nan, 0.0]))
    with pytest.raises(ValueError, match=r'action has shape \(3,\); expected \(2,\)'):
        env.step(np.zeros(3))
    np.testing.assert_array_equal(env.fleet.states, before)
    observation, *_ = env.step(np.array([3.0, -7.0]))    # clipped to -1..1
    assert env.observation_space.contains(observation)


def test_a_car_whose_physics_fails_ends_its_episode_with_its_last_state():
    env = RallyDriveEnv()
    env.reset(seed=6)
    env.fleet.states[0, VX] = np.inf
    observation, reward, terminated, _, info = env.step(np.array([0.0, 0.0]))
    assert terminated and info['physics_failed'] and reward == DriveTask.END_REWARD
    assert env.observation_space.contains(observation)


def test_episodes_are_truncated_after_the_task_length():
    env = RallyDriveEnv()
    env.reset(seed=7, options={'speed_m_s': 5.0})
    assert env.fleet.max_steps == round(DriveTask.episode_s / DriveTask.period_s)
    env.fleet.steps[:] = env.fleet.max_steps - 1
    *_, terminated, truncated, _ = env.step(np.array([0.0, 0.1]))
    assert truncated and not terminated


@pytest.mark.parametrize('env_type', [RallyDriveEnv, DriftEnv])
def test_render_shows_the_car_where_it_is(env_type):
    env = env_type(render_mode='rgb_array')
    env.reset(seed=8)
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    canvas = env._canvas
    column, row = canvas._pixels(env.fleet.states[:, [X, Y]])[0]
    assert tuple(picture[int(row), int(column)]) == CAR_COLOUR
    assert env_type().render() is None                    # no render mode, no picture


@pytest.mark.parametrize('name', NAMES)
def test_vector_form_steps_each_car_as_the_single_env_and_resets_ended_ones(name):
    envs = gymnasium.make_vec(name, num_envs=4, vectorization_mode='vector_entry_point')
    observations, _ = envs.reset(seed=9)
    assert observations.shape == (4,) + envs.single_observation_space.shape
    single = gymnasium.make(name).unwrapped
    single.reset(seed=0)
    single.fleet.states[0] = envs.unwrapped.fleet.states[2]
    actions = np.zeros((4, 2), dtype=np.float32)
    actions[:, 1] = -0.3                                  # the others brake to a stop
    actions[0] = [1.0, 1.0]                               # car 0 leaves the road or the ring
    for _ in range(400):
        observations, rewards, terminated, truncated, _ = envs.step(actions)
        expected, reward, *_ = single.step(actions[2])
        np.testing.assert_array_equal(observations[2], expected)
        assert rewards[2] == reward
        if terminated[0]:
            break
    assert terminated[0]
    observations, rewards, terminated, truncated, _ = envs.step(actions)
    assert rewards[0] == 0.0 and not terminated[0]        # reset at the next step
    assert envs.single_observation_space.contains(observations[0])


DELAYS = {'actuation.steer.delay_s': 0.2, 'actuation.steer.time_constant_s': 0.1,
          'actuation.drive.delay_s': 0.12, 'actuation.drive.time_constant_s': 0.1}


def test_actuators_pass_the_actions_on_as_the_vehicle_s_own_do():
    env = RallyDriveEnv(vehicle_overrides=DELAYS)
    prompt = RallyDriveEnv()
    fleet = env.fleet
    car = Vehicle(fleet.config, fleet.batch.template.surface)
    actions = np.random.default_rng(2).uniform(-1.0, 1.0, (12, 2))
    for episode in range(2):        # the second: nothing on its way survives the reset
        env.reset(seed=1, options={'speed_m_s': 6.0})
        prompt.reset(seed=1, options={'speed_m_s': 6.0})
        car.reset()
        car.state[:] = fleet.states[0]
        for action in actions:
            env.step(action)
            prompt.step(action)
            steer, drive, brake = fleet.pedals.torques(action[0], action[1])
            car.work.refresh_jacobian()
            states, _, _ = car.run([steer], [0.0], drive[None], brake[None], [0.0], [0.05])
            np.testing.assert_array_equal(states[0], fleet.states[0])
        assert not np.array_equal(prompt.fleet.states, fleet.states), episode


def test_vector_form_with_actuators_steps_each_car_as_the_single_env():
    envs = gymnasium.make_vec('rally_sim/RallyDrive-v0', num_envs=3,
                              vectorization_mode='vector_entry_point', vehicle_overrides=DELAYS)
    single = gymnasium.make('rally_sim/RallyDrive-v0', vehicle_overrides=DELAYS).unwrapped
    envs.reset(seed=4)
    single.reset(seed=0)
    single.fleet.states[0] = envs.unwrapped.fleet.states[1]
    actions = np.random.default_rng(3).uniform(-0.5, 1.0, (20, 3, 2))
    for row in actions:
        observations, rewards, *_ = envs.step(row)
        expected, reward, *_ = single.step(row[1])
        np.testing.assert_array_equal(observations[1], expected)


def test_a_bad_vehicle_override_is_refused_with_its_key_and_range():
    from rally_sim.physics.config import ConfigError
    with pytest.raises(ConfigError, match=r'actuation\.steer\.delay_s.*1'):
        gymnasium.make('rally_sim/RallyDrive-v0',
                       vehicle_overrides={'actuation.steer.delay_s': 2.0})


@pytest.mark.parametrize('name', ['rally_sim/RallyDrive-v0', 'rally_sim/Drift-v0'])
def test_the_user_guide_names_the_observation_fields_as_the_task_does(name):
    import os
    import re
    guide = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..', 'docs',
                         'user_guide.md')
    with open(guide, encoding='utf-8') as stream:
        line = next(line for line in stream if line.startswith(f'- `{name}`: '))
    from rally_sim.physics.model import OMEGA
    env = gymnasium.make(name)
    names = env.unwrapped.observation_names
    assert re.findall(r'`([^`]+)`', line)[1:] == list(names)
    observation, _ = env.reset(seed=3)
    for _ in range(5):
        observation, *_ = env.step(np.array([0.2, 0.8], dtype=np.float32))
    assert observation.shape == (len(names),)
    fleet = env.unwrapped.fleet
    state, radius = fleet.states[0], fleet.config['wheel_radius_m']
    rim = [observation[names.index(f'rim_{w}')] for w in ('fl', 'fr', 'rl', 'rr')]
    assert rim == pytest.approx(state[OMEGA:OMEGA + 4] * radius - state[VX], abs=1e-4)
    assert max(abs(r) for r in rim) > 0.01          # the drive spins the wheels: m/s, not 1


def springs_of(preset):
    """Return a shipped car's body and suspension keys, as vehicle_overrides."""
    from support.vehicles import vehicle
    config = vehicle(preset)
    return {key: config[key] for key in config.given
            if key == 'body' or key.startswith('suspension.')}


def test_a_car_on_springs_steps_with_its_body_as_the_single_car_does():
    # RallyDrive's volvo_v40 on volvo_v40_suspension's springs (vehicle_overrides)
    env = RallyDriveEnv(vehicle_overrides=springs_of('volvo_v40_suspension'))
    env.reset(seed=1, options={'speed_m_s': 8.0})
    fleet = env.fleet
    assert fleet.states.shape == (1, 28)
    car = Vehicle(fleet.config, fleet.batch.template.surface)
    car.state[:] = fleet.states[0]
    for action in ([0.4, 0.5], [0.4, 0.5], [-0.3, 0.2]):
        observation, *_ = env.step(np.array(action))
        assert np.isfinite(observation).all()
        steer, drive, brake = fleet.pedals.torques(action[0], action[1])
        car.work.refresh_jacobian()
        states, _, _ = car.run([steer], [0.0], drive[None], brake[None], [0.0], [0.05])
        np.testing.assert_array_equal(states[0], fleet.states[0])
    assert abs(fleet.states[0, 15]) > 1e-3               # the body rolled
