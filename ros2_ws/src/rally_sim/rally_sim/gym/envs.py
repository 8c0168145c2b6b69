"""
Gymnasium environments on the simulator's own physics: one car, or N cars batched.

Action (both environments): [steer, pedal] in -1..1, see rally_sim.control.pedals
(steer: fraction of the largest steer angle, positive left; pedal: fraction
of the largest drive torque, or below 0 of the largest brake torque).
Values beyond -1..1 are clipped; a non-finite action raises ValueError.
Each step holds the action for the task's period (0.05 s) and advances the
vehicle's own equations (Batch.rollout, the single car's compiled step).
Episodes end as the task says (tasks.py) and are truncated after its
episode length. A car whose physics turns non-finite ends its episode
(terminated, info['physics_failed']).

vehicle_overrides (both environments, a keyword of gymnasium.make): dotted
vehicle-file keys over the task's vehicle, checked as the file's are, e.g.
{'actuation.steer.delay_s': 0.2, 'actuation.steer.time_constant_s': 0.1}:
the actions then reach the car as its actuators let them (actuation.py),
what is on its way carried from step to step and dropped at a reset.

sensors, seed (both environments, keywords of gymnasium.make): observe the
car through a sensor profile (a shipped one: ideal, typical, rough, or a
profile file) with the seed of its errors, as the simulator node would
publish them: each car then runs in the node's own simulation session
(sensed.py), and an episode is the node's lockstep run with that profile
and seed. info['measurements'] holds what was delivered during the step.
Without them (the default) the cars are stepped in one batch and observed
as they are.
"""

from typing import Any, Dict, Mapping, Optional, Tuple, Type

import gymnasium
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
import numpy as np

from .render import StageCanvas
from .sensed import SensedFleet
from .tasks import DriftTask, DriveTask, Task
from ..control.pedals import Pedals
from ..physics.batch.rollouts import Batch
from ..physics.config import load_vehicle
from ..physics.model import X, Y, YAW
from ..physics.surfaces import Surface
from ..physics.vehicle import state_size
from ..resources import config_file, preset


class Fleet:
    """N cars of a task's vehicle on its stage, with their states, stepped together."""

    def __init__(self, task_type: Type[Task], cars: int,
                 vehicle_overrides: Optional[Mapping[str, Any]] = None,
                 sensors: Optional[str] = None, seed: int = 0):
        """
        Load the task's vehicle (with the overrides) and stage; cars at rest at the origin.

        sensors: a sensor profile to observe the cars through (each in a
        session, sensor seeds seed, seed + 1, ...); None: batched, observed as
        they are.
        """
        config = load_vehicle(preset(task_type.vehicle, 'vehicles', '.yaml'))
        if vehicle_overrides:
            config = config.with_overrides(dict(vehicle_overrides))
        self.config = config
        self.task = task_type(config.model_params().radii())
        self.sensed = (SensedFleet(config, self.task, self.task.stage, cars, sensors, seed)
                       if sensors is not None else None)
        if self.sensed is None:
            surface = Surface.load(config_file(f'stages/{self.task.stage}.yaml'))
            self.batch = Batch(config, cars, surface)
            self.actuators = self.batch.actuators()     # None: the actions act at once
        self.pedals = Pedals(config)
        self.states = np.zeros((cars, state_size(config)))    # (a car on springs: more)
        self.steps = np.zeros(cars, dtype=np.int64)
        self.max_steps = int(round(self.task.episode_s / self.task.period_s))

    def place(self, rows: np.ndarray, rng: np.random.Generator, options: Optional[Dict]):
        """Put the cars of `rows` at the task's start states (wheels rolling freely)."""
        starts = self.task.starts(rng, len(rows), options or {})
        self.steps[rows] = 0
        if self.sensed is not None:
            self.sensed.place(rows, starts)
            self.states[rows] = self.sensed.states[rows]
            return
        car = self.batch.template
        for row, start in zip(rows, starts):
            car.reset(*start)
            self.states[row] = car.state
        self.steps[rows] = 0
        if self.actuators is not None:
            self.actuators.reset(rows, np.zeros_like(car.command))

    def step(self, actions: np.ndarray):
        """Advance every car one period; return rewards, terminated, truncated, info."""
        actions = np.asarray(actions, dtype=float)
        if actions.size != 2 * len(self.states):
            raise ValueError(f'action has shape {actions.shape}; expected '
                             f'{(2,) if len(self.states) == 1 else (len(self.states), 2)}: '
                             '[steer, pedal] per car')
        actions = actions.reshape(len(self.states), 2)
        if not np.isfinite(actions).all():
            raise ValueError('action must be finite: [steer, pedal], each in -1..1')
        steer, drive, brake = self.pedals.torques(actions[:, 0], actions[:, 1])
        before = self.states.copy()
        if self.sensed is not None:
            failed = self.sensed.step(steer, drive, brake)
            self.states[:] = self.sensed.states
        else:
            result = self.batch.rollout(self.states, steer[:, None], drive[:, None],
                                        brake[:, None], dt=self.task.period_s, tyres=False,
                                        actuators=self.actuators)
            self.states[result.valid] = result.states[result.valid, 0]
            failed = ~result.valid
        reward, terminated, info = self.task.score(before, self.states)
        reward[failed] = self.task.END_REWARD
        terminated = terminated | failed
        self.steps += 1
        truncated = (self.steps >= self.max_steps) & ~terminated
        info['physics_failed'] = failed
        if self.sensed is not None:
            info.update(self.sensed.info())
        return reward, terminated, truncated, info

    def reset_info(self) -> Dict[str, Any]:
        """Return the info of a reset: with sensors, what was measured at the start."""
        return {} if self.sensed is None else self.sensed.info()

    def observe(self) -> np.ndarray:
        """Return the task's observations of every car (through its sensors, if it has some)."""
        return self.task.observe(self.states if self.sensed is None else self.sensed.measured())


def _spaces(fleet: Fleet):
    """Return the single car's observation and action spaces."""
    bound = fleet.task.observation_bound.astype(np.float32)
    observation = spaces.Box(-bound, bound, dtype=np.float32)
    action = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
    return observation, action


class RallySimEnv(gymnasium.Env):
    """One car of a task; see the module's docstring and the task's for the details."""

    metadata: Dict[str, Any] = {'render_modes': ['rgb_array', 'human']}
    task_type: Type[Task] = DriveTask

    def __init__(self, render_mode: Optional[str] = None,
                 vehicle_overrides: Optional[Mapping[str, Any]] = None,
                 sensors: Optional[str] = None, seed: int = 0, view_port: int = 0,
                 open_browser: bool = True):
        """
        Load the car and the stage; render_mode None, 'rgb_array' or 'human'; the rest above.

        'human': the car is shown live in the browser page of ./rally watch (served on
        view_port, 0: a free one; its address is printed, and opened with open_browser),
        each step paced to real time.
        """
        if render_mode not in (None, 'rgb_array', 'human'):
            raise ValueError(f"render_mode = {render_mode!r}; expected None, 'rgb_array' or "
                             "'human'")
        self.render_mode = render_mode
        self.fleet = Fleet(self.task_type, 1, vehicle_overrides, sensors, seed)
        self.observation_space, self.action_space = _spaces(self.fleet)
        self.metadata = dict(self.metadata, render_fps=round(1.0 / self.fleet.task.period_s))
        self._canvas = None
        self._view = None
        if render_mode == 'human':
            from ..view.inprocess import LiveView
            task = self.fleet.task
            self._view = LiveView(self.fleet.config, Surface.load(config_file(
                f'stages/{task.stage}.yaml')), task.reference_line(), view_port, open_browser)

    @property
    def observation_names(self) -> Tuple[str, ...]:
        """Return the observation's fields, in order (the user guide lists them)."""
        return self.fleet.task.observation_names

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict] = None):
        """Start a new episode (options: see the task's starts())."""
        super().reset(seed=seed)
        self.fleet.place(np.array([0]), self.np_random, options)
        if self._view is not None:
            self._view.reset()
            self.render()
        return self.fleet.observe()[0], self._first(self.fleet.reset_info())

    def step(self, action):
        """Hold `action` for a period; return observation, reward, terminated, truncated, info."""
        reward, terminated, truncated, info = self.fleet.step(action)
        if self._view is not None:
            self.render()
        return (self.fleet.observe()[0], float(reward[0]), bool(terminated[0]),
                bool(truncated[0]), self._first(info))

    @staticmethod
    def _first(info: Dict[str, Any]) -> Dict[str, Any]:
        """Return the first car's entries of per-car info."""
        return {key: value[0].item() if isinstance(value, np.ndarray) else value[0]
                for key, value in info.items()}

    def render(self):
        """Return the stage with the car as an RGB array ('rgb_array'); 'human': show it."""
        if self._view is not None:
            task = self.fleet.task
            self._view.show(float(self.fleet.steps[0]) * task.period_s, self.fleet.states[0])
            return None
        if self.render_mode != 'rgb_array':
            return None
        if self._canvas is None:
            task = self.fleet.task
            self._canvas = StageCanvas(task.stage, self.fleet.config, task.reference_line())
        return self._canvas.draw(self.fleet.states[:, [X, Y, YAW]])

    def close(self):
        """Stop the human render's page server, if any."""
        if self._view is not None:
            self._view.close()
            self._view = None
        super().close()


class RallyDriveEnv(RallySimEnv):
    """rally_sim/RallyDrive-v0: the V40 follows the rally stage's line (tasks.DriveTask)."""

    task_type = DriveTask


class DriftEnv(RallySimEnv):
    """rally_sim/Drift-v0: the light RWD car drifts round the skid pad (tasks.DriftTask)."""

    task_type = DriftTask


class RallySimVectorEnv(VectorEnv):
    """
    N cars of a task in one batch, each its own episode; next-step autoreset.

    A car whose episode ended at one step is reset at its next step (that
    step's action is ignored, its reward 0), as Gymnasium's vector
    environments do by default.
    """

    metadata: Dict[str, Any] = {'render_modes': [], 'autoreset_mode': AutoresetMode.NEXT_STEP}
    task_type: Type[Task] = DriveTask

    def __init__(self, num_envs: int = 1, render_mode: Optional[str] = None,
                 vehicle_overrides: Optional[Mapping[str, Any]] = None,
                 sensors: Optional[str] = None, seed: int = 0):
        """Load the car and the stage for num_envs cars (render_mode: None only)."""
        if render_mode is not None:
            raise ValueError('the vector environments do not render; render_mode must be None')
        self.num_envs = int(num_envs)
        self.fleet = Fleet(self.task_type, self.num_envs, vehicle_overrides, sensors, seed)
        self.single_observation_space, self.single_action_space = _spaces(self.fleet)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._ended = np.zeros(self.num_envs, dtype=bool)
        self._rng = np.random.default_rng()

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict] = None):
        """Start every car's episode; seed makes the starts reproducible."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.fleet.place(np.arange(self.num_envs), self._rng, options)
        self._ended[:] = False
        return self.fleet.observe(), self.fleet.reset_info()

    def step(self, actions):
        """Step every car (cars whose episode ended last step are reset instead)."""
        ended = self._ended.copy()
        reward, terminated, truncated, info = self.fleet.step(actions)
        if ended.any():
            self.fleet.place(np.flatnonzero(ended), self._rng, None)
            reward[ended] = 0.0
            terminated[ended] = truncated[ended] = False
        self._ended = terminated | truncated
        return self.fleet.observe(), reward, terminated, truncated, info


class RallyDriveVectorEnv(RallySimVectorEnv):
    """rally_sim/RallyDrive-v0 batched: make_vec(..., vectorization_mode='vector_entry_point')."""

    task_type = DriveTask


class DriftVectorEnv(RallySimVectorEnv):
    """rally_sim/Drift-v0 batched."""

    task_type = DriftTask
