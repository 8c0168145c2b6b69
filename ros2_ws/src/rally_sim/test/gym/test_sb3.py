"""Stable-Baselines3 on the batched cars (issue 59, item 7): its VecEnv, PPO, the example."""

import json
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
import rally_sim.gym  # noqa: F401  (registers the environments)
from rally_sim.gym.sb3 import make_sb3_vec_env
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecEnv, VecMonitor, VecNormalize
import torch

NAMES = sorted(rally_sim.gym.ENVIRONMENTS)


@pytest.mark.parametrize('name', NAMES)
def test_each_car_steps_as_the_vector_env_and_is_reset_in_the_step_its_episode_ends(name):
    adapter = make_sb3_vec_env(name, num_envs=4)
    assert isinstance(adapter, VecEnv) and adapter.num_envs == 4
    vector = gymnasium.make_vec(name, num_envs=4, vectorization_mode='vector_entry_point')
    adapter.seed(9)
    observations = adapter.reset()
    expected, _ = vector.reset(seed=9)
    np.testing.assert_array_equal(observations, expected)
    assert observations.dtype == np.float32
    actions = np.zeros((4, 2), dtype=np.float32)
    actions[:, 1] = -0.3                                  # the others brake to a stop
    actions[0] = [1.0, 1.0]                               # car 0 leaves the road or the ring
    for _ in range(400):
        observations, rewards, dones, infos = adapter.step(actions)
        expected, reward, terminated, truncated, info = vector.step(actions)
        np.testing.assert_array_equal(rewards, reward.astype(np.float32))
        np.testing.assert_array_equal(dones, terminated | truncated)
        assert [i['physics_failed'] for i in infos] == info['physics_failed'].tolist()
        if dones[0]:
            break
        np.testing.assert_array_equal(observations, expected)
    assert dones[0] and not dones[1:].any()
    # SB3's auto-reset: the episode's last observation in the info, a new start returned
    np.testing.assert_array_equal(infos[0]['terminal_observation'], expected[0])
    assert infos[0]['TimeLimit.truncated'] is False
    assert not np.array_equal(observations[0], expected[0])
    assert adapter.observation_space.contains(observations[0])
    np.testing.assert_array_equal(observations[1:], expected[1:])


def test_an_episode_ended_by_its_length_is_marked_truncated():
    adapter = make_sb3_vec_env('rally_sim/Drift-v0', num_envs=2)
    adapter.reset()
    adapter.fleet.steps[:] = adapter.fleet.max_steps - 1
    _, _, dones, infos = adapter.step(np.zeros((2, 2)))
    assert dones.all() and all(info['TimeLimit.truncated'] for info in infos)
    assert (adapter.fleet.steps == 0).all()


def test_seeded_resets_repeat_and_bad_arguments_are_refused():
    adapter = make_sb3_vec_env('rally_sim/RallyDrive-v0', num_envs=3)
    adapter.seed(4)
    first = adapter.reset()
    adapter.seed(4)
    np.testing.assert_array_equal(adapter.reset(), first)
    adapter.set_options({'progress_m': 100.0, 'speed_m_s': 3.0})
    placed = adapter.reset()
    assert (placed[:, 0] == placed[0, 0]).all() and placed[0, 0] == pytest.approx(3.0)
    with pytest.raises(ValueError, match='env_id'):
        make_sb3_vec_env('CartPole-v1')
    with pytest.raises(ValueError, match='num_envs'):
        make_sb3_vec_env('rally_sim/Drift-v0', num_envs=0)
    with pytest.raises(ValueError, match='action must be finite'):
        adapter.step(np.full((3, 2), np.nan))


def test_ppo_learns_on_it_through_sb3s_own_wrappers():
    torch.set_num_threads(1)
    env = VecNormalize(VecMonitor(make_sb3_vec_env('rally_sim/Drift-v0', num_envs=8)))
    model = PPO('MlpPolicy', env, n_steps=64, batch_size=128, n_epochs=2, seed=0,
                device='cpu')
    model.learn(1024)
    assert model.num_timesteps == 1024
    actions, _ = model.predict(env.reset(), deterministic=True)
    assert actions.shape == (8, 2) and np.isfinite(actions).all()


def test_the_training_example_runs_and_writes_its_curve_and_evaluation(tmp_path):
    # As a user runs it (its own process: SB3's save looks for a package named gym, and
    # this folder would be one).
    done = subprocess.run([sys.executable, '-m', 'rally_sim.gym.train_ppo', '--steps', '4096',
                           '--cars', '8', '--eval-cars', '2', '--output', str(tmp_path)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'trained 4096 steps' in done.stdout
    result = json.loads((tmp_path / 'evaluation.json').read_text())
    assert result['steps'] == 4096 and result['eval_cars'] == 2
    assert 0.0 <= result['lateral_error_mean_m'] <= result['lateral_error_rms_m']
    for name in ('policy.zip', 'vecnormalize.pkl', 'curve.csv', 'curve.png'):
        assert (tmp_path / name).stat().st_size > 0
