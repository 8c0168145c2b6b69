"""
Gymnasium environments on rally_sim's physics; importing this registers them.

    import gymnasium
    import rally_sim.gym  # noqa: F401  (registers the environments)

    env = gymnasium.make('rally_sim/RallyDrive-v0', render_mode='rgb_array')
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step([0.0, 0.3])

    envs = gymnasium.make_vec('rally_sim/Drift-v0', num_envs=256,
                              vectorization_mode='vector_entry_point')

- ``rally_sim/RallyDrive-v0``: the V40 follows the rally stage's reference line
  (reward: progress along it, less a cross-track penalty; off the road ends).
- ``rally_sim/Drift-v0``: the light RWD car holds a drift round the skid pad.

Details (observations, rewards, ends) in rally_sim.gym.tasks and .envs.
Stable-Baselines3: rally_sim.gym.sb3.make_sb3_vec_env (the batch as its
VecEnv); a PPO example: python -m rally_sim.gym.train_ppo.
"""

from gymnasium.envs.registration import register, registry

ENVIRONMENTS = {
    'rally_sim/RallyDrive-v0': ('RallyDriveEnv', 'RallyDriveVectorEnv'),
    'rally_sim/Drift-v0': ('DriftEnv', 'DriftVectorEnv'),
}

for _name, (_single, _vector) in ENVIRONMENTS.items():
    if _name not in registry:
        register(id=_name, entry_point=f'rally_sim.gym.envs:{_single}',
                 vector_entry_point=f'rally_sim.gym.envs:{_vector}')
