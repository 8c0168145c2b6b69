"""
Stable-Baselines3's VecEnv over rally_sim's batched cars (SB3 takes no Gymnasium VectorEnv).

    from rally_sim.gym.sb3 import make_sb3_vec_env
    from stable_baselines3 import PPO

    env = make_sb3_vec_env('rally_sim/RallyDrive-v0', num_envs=16, seed=0)
    model = PPO('MlpPolicy', env).learn(100_000)

The N cars step in one batch call, as the vector environment's do
(envs.Fleet), so a step costs what the vector environment's costs. SB3's
own semantics: a car whose episode ends is reset within the same step; its
info holds 'terminal_observation' (the last observation of the episode)
and 'TimeLimit.truncated' (ended by the episode length, not by the task),
and the returned observation is the new episode's first. Each car's info
also holds the step's per-car values (the task's, and 'physics_failed').
Needs stable_baselines3 (./rally setup installs it, with torch's CPU build).
"""

from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from .envs import _spaces, Fleet
from .tasks import DriftTask, DriveTask

TASKS = {'rally_sim/RallyDrive-v0': DriveTask, 'rally_sim/Drift-v0': DriftTask}
"""The environments an SB3 VecEnv can be made of, by their Gymnasium ids."""


def make_sb3_vec_env(env_id: str, num_envs: int = 1,
                     vehicle_overrides: Optional[Mapping[str, Any]] = None,
                     sensors: Optional[str] = None, seed: int = 0) -> 'RallySimSb3VecEnv':
    """Return num_envs cars of a registered environment as one SB3 VecEnv (keywords: envs.py)."""
    if env_id not in TASKS:
        raise ValueError(f'env_id {env_id!r} must be one of {sorted(TASKS)}')
    return RallySimSb3VecEnv(TASKS[env_id], num_envs, vehicle_overrides, sensors, seed)


class RallySimSb3VecEnv(VecEnv):
    """N cars of a task in one batch, each its own episode, reset in the step that ends it."""

    render_mode = None

    def __init__(self, task_type, num_envs: int,
                 vehicle_overrides: Optional[Mapping[str, Any]] = None,
                 sensors: Optional[str] = None, seed: int = 0):
        """Load the task's car and stage for num_envs cars; seed: the starts' generator."""
        if int(num_envs) < 1:
            raise ValueError(f'num_envs = {num_envs!r} must be at least 1')
        self.fleet = Fleet(task_type, int(num_envs), vehicle_overrides, sensors, seed)
        observation_space, action_space = _spaces(self.fleet)
        super().__init__(int(num_envs), observation_space, action_space)
        self._rng = np.random.default_rng(seed)
        self._actions = np.zeros((self.num_envs, 2))

    def reset(self) -> np.ndarray:
        """Start every car's episode (with the seed and options given to seed(), set_options())."""
        if self._seeds[0] is not None:
            self._rng = np.random.default_rng(self._seeds[0])
        self.fleet.place(np.arange(self.num_envs), self._rng, self._options[0])
        self.reset_infos = self._per_car(self.fleet.reset_info())
        self._reset_seeds()
        self._reset_options()
        return self.fleet.observe()

    def step_async(self, actions: np.ndarray) -> None:
        """Take each car's [steer, pedal] for the next step."""
        self._actions = np.asarray(actions, dtype=float).reshape(self.num_envs, 2)

    def step_wait(self):
        """Step every car one period; reset the cars whose episode ended (SB3's auto-reset)."""
        reward, terminated, truncated, info = self.fleet.step(self._actions)
        done = terminated | truncated
        infos = self._per_car(info)
        ended = np.flatnonzero(done)
        if len(ended):
            last = self.fleet.observe()
            for i in ended:
                infos[i]['terminal_observation'] = last[i]
                infos[i]['TimeLimit.truncated'] = bool(truncated[i] and not terminated[i])
            self.fleet.place(ended, self._rng, None)
        return self.fleet.observe(), reward.astype(np.float32), done, infos

    def _per_car(self, info: Dict[str, Any]) -> List[Dict[str, Any]]:
        """Return each car's part of a batch info: its entry of each per-car array or list."""
        n = self.num_envs
        columns = [value.tolist() if isinstance(value, np.ndarray) and value.shape[:1] == (n,)
                   else value if isinstance(value, list) and len(value) == n else [value] * n
                   for value in info.values()]
        return [dict(zip(info, row)) for row in zip(*columns)] if info else [
            {} for _ in range(n)]

    def close(self) -> None:
        """Nothing to release: the cars live in this process."""

    def _indices(self, indices) -> List[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices=None) -> List[Any]:
        """Return the environment's attribute once per car asked for (one car type for all)."""
        return [getattr(self, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set the environment's attribute (all cars share it)."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None,
                   **method_kwargs) -> List[Any]:
        """Call the environment's method once per car asked for."""
        return [getattr(self, method_name)(*method_args, **method_kwargs)
                for _ in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> Sequence[bool]:
        """Return False for each car: no Gymnasium wrapper is inside."""
        return [False for _ in self._indices(indices)]
