"""
What the Gymnasium environments ask of the car: start states, observations, rewards.

Vectorised over N cars (rows of full states in the Vehicle.state layout), so
the single environment and the vector environment share one definition.
Gymnasium-free. Observations are float32 and clipped to their declared
bounds; every quantity is SI (m, m/s, rad, rad/s).
"""

from abc import ABC, abstractmethod
import math
from typing import Dict, Mapping, Tuple

import numpy as np

from ..control.angles import wrap_angle
from ..control.path import ClosedPath
from ..control.path_field import FieldPoints, PathField
from ..physics.model import OMEGA, STEER, VX, VY, X, Y, YAW, YAW_RATE
from ..resources import config_file
from ..world.stages import read_path, ROAD_HALF_WIDTH_M

Starts = np.ndarray
"""(N, 6) rows of x, y, yaw [m, m, rad], vx, vy [m/s], yaw rate [rad/s]."""


def _dynamics(states: np.ndarray, wheel_radii_m: np.ndarray) -> np.ndarray:
    """Return vx, vy, yaw rate, steer and each wheel's rim speed over vx (fl, fr, rl, rr)."""
    rim = states[:, OMEGA:OMEGA + 4] * wheel_radii_m - states[:, VX:VX + 1]
    return np.column_stack([states[:, [VX, VY, YAW_RATE, STEER]], rim])


DYNAMICS_BOUND = np.array([100.0, 100.0, 20.0, 1.0, 100.0, 100.0, 100.0, 100.0])
"""Declared bounds of _dynamics' columns (a car beyond them is clipped)."""


class Task(ABC):
    """A stage, a vehicle, the control period and the episode length; see the subclasses."""

    vehicle = ''
    stage = ''
    period_s = 0.05
    episode_s = 60.0
    observation_names: Tuple[str, ...] = ()
    observation_bound = np.zeros(0)
    END_REWARD = -10.0
    """The reward of the step that ends an episode early (off the road, spun, physics failed)."""

    def __init__(self, wheel_radii_m: np.ndarray):
        """Take the car's wheel radii, fl fr rl rr (for the wheels' slip in the observation)."""
        self.wheel_radii_m = np.asarray(wheel_radii_m, dtype=float)

    @abstractmethod
    def starts(self, rng: np.random.Generator, cars: int, options: Mapping) -> Starts:
        """Return start poses and velocities for `cars` cars."""

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return the (N, D) float32 observations, clipped to +-observation_bound."""
        raw = self._observe(states)
        bound = self.observation_bound
        return np.clip(np.nan_to_num(raw), -bound, bound).astype(np.float32)

    @abstractmethod
    def reference_line(self) -> np.ndarray:
        """Return the (K, 2) line a picture of the task draws (a closed loop)."""

    @abstractmethod
    def _observe(self, states: np.ndarray) -> np.ndarray:
        """Return the (N, D) observations before clipping."""

    @abstractmethod
    def score(self, before: np.ndarray, after: np.ndarray) -> Tuple[np.ndarray, np.ndarray,
                                                                    Dict[str, np.ndarray]]:
        """Return each car's reward and termination for one period, and info arrays."""


class DriveTask(Task):
    """
    Path following on a stage (RallyDrive): drive along the reference line, stay on the road.

    Reward per period: the progress made along the path [m] (negative when
    driving backwards) minus 0.05 x cross-track error^2 [m^2]; leaving the
    road (|cross-track| > 4 m, the road's half width) ends the episode with
    -20. Observation: vx, vy, yaw rate, steer, the four wheels' rim speed
    over vx, cross-track error, heading error (car minus path), and the path
    points 3, 6, ..., 30 m ahead in the car's frame (x forward, y left).
    """

    vehicle = 'volvo_v40'
    stage = 'rally_stage'
    LOOKAHEAD_M = 3.0 * np.arange(1, 11)
    END_REWARD = -20.0

    def __init__(self, wheel_radii_m: np.ndarray):
        """Tabulate the stage's reference line."""
        super().__init__(wheel_radii_m)
        self.path = ClosedPath(read_path(config_file(f'stages/{self.stage}_path.csv')))
        self.field = PathField(self.path)
        names = ['vx', 'vy', 'yaw_rate', 'steer', 'rim_fl', 'rim_fr', 'rim_rl', 'rim_rr',
                 'cross_track', 'heading_error']
        for d in self.LOOKAHEAD_M:
            names += [f'ahead_{d:g}_x', f'ahead_{d:g}_y']
        self.observation_names = tuple(names)
        self.observation_bound = np.concatenate(
            [DYNAMICS_BOUND, [50.0, math.pi], np.full(2 * len(self.LOOKAHEAD_M), 60.0)])
        self._recent: Dict[bytes, FieldPoints] = {}

    def near(self, states: np.ndarray) -> FieldPoints:
        """Return the path's answers at the cars' positions (kept: a step asks up to 3 times)."""
        key = states[:, X:Y + 1].tobytes()
        if key not in self._recent:
            if len(self._recent) >= 4:
                self._recent.pop(next(iter(self._recent)))
            self._recent[key] = self.field.lookup(states[:, X], states[:, Y])
        return self._recent[key]

    def reference_line(self) -> np.ndarray:
        """Return the stage's reference line."""
        return self.path.points

    def starts(self, rng: np.random.Generator, cars: int, options: Mapping) -> Starts:
        """Start on the line at a random place (options: progress_m, speed_m_s), along it."""
        progress = np.full(cars, float(options['progress_m'])) if 'progress_m' in options \
            else rng.uniform(0.0, self.path.length_m, cars)
        speed = np.full(cars, float(options['speed_m_s'])) if 'speed_m_s' in options \
            else rng.uniform(0.0, 10.0, cars)
        here = self.field.points_ahead(progress, [0.0, 0.5])
        heading = np.arctan2(*(here[:, 1] - here[:, 0]).T[::-1])
        zeros = np.zeros(cars)
        return np.column_stack([here[:, 0, 0], here[:, 0, 1], heading, speed, zeros, zeros])

    def _observe(self, states: np.ndarray) -> np.ndarray:
        x, y, yaw = states[:, X], states[:, Y], states[:, YAW]
        near = self.near(states)
        ahead = self.field.points_ahead(near.progress_m, self.LOOKAHEAD_M)
        dx, dy = ahead[..., 0] - x[:, None], ahead[..., 1] - y[:, None]
        cos, sin = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
        body = np.stack([cos * dx + sin * dy, -sin * dx + cos * dy], axis=-1)
        return np.column_stack([_dynamics(states, self.wheel_radii_m), near.cross_track_m,
                                wrap_angle(yaw - near.heading_rad), body.reshape(len(states), -1)])

    def score(self, before, after):
        """Return progress minus the cross-track penalty; off the road ends the episode."""
        start, end = self.near(before), self.near(after)
        lap = self.path.length_m
        progress = (end.progress_m - start.progress_m + lap / 2.0) % lap - lap / 2.0
        reward = progress - 0.05 * end.cross_track_m ** 2
        off_road = np.abs(end.cross_track_m) > ROAD_HALF_WIDTH_M
        reward[off_road] = self.END_REWARD
        info = {'progress_m': progress, 'cross_track_m': end.cross_track_m.copy()}
        return reward, off_road, info


class DriftTask(Task):
    """
    Hold a drift round the skid pad (Drift): slide at 0.45 rad sideslip, counter-clockwise.

    Reward per period: exp(-((|beta| - 0.45) / 0.15)^2) x min(speed / 8, 1)
    x max(cos(course error), 0) - 0.01 x radius error^2, where beta is the
    sideslip angle atan2(vy, vx) and the course error is the circle's
    tangent minus the direction of travel. Leaving the ring (|radius error|
    > 6 m) or spinning (|beta| > 1.3 rad) ends the episode with -10.
    Observation: vx, vy, yaw rate, steer, the four wheels' rim speed over
    vx, radius error, course error, |beta|.
    """

    vehicle = 'rwd_gravel'
    stage = 'skid_pad'
    episode_s = 30.0
    RADIUS_M = 15.0
    SIDESLIP_RAD = 0.45
    SPEED_M_S = 8.0

    def __init__(self, wheel_radii_m: np.ndarray):
        """Use the skid pad's circle (centre at the origin)."""
        super().__init__(wheel_radii_m)
        self.observation_names = ('vx', 'vy', 'yaw_rate', 'steer', 'rim_fl', 'rim_fr',
                                  'rim_rl', 'rim_rr', 'radius_error', 'course_error',
                                  'sideslip')
        self.observation_bound = np.concatenate([DYNAMICS_BOUND, [50.0, math.pi, math.pi]])

    def reference_line(self) -> np.ndarray:
        """Return the circle to drift round."""
        angle = np.linspace(0.0, 2.0 * math.pi, 180, endpoint=False)
        return self.RADIUS_M * np.column_stack([np.cos(angle), np.sin(angle)])

    def starts(self, rng: np.random.Generator, cars: int, options: Mapping) -> Starts:
        """Start on the circle at a random angle, 6-9 m/s along it, sliding 0-0.3 rad."""
        angle = rng.uniform(-math.pi, math.pi, cars)
        speed = np.full(cars, float(options['speed_m_s'])) if 'speed_m_s' in options \
            else rng.uniform(6.0, 9.0, cars)
        slide = rng.uniform(0.0, 0.3, cars)
        r = self.RADIUS_M
        return np.column_stack([r * np.cos(angle), r * np.sin(angle),
                                angle + math.pi / 2.0 + slide, speed * np.cos(slide),
                                -speed * np.sin(slide), speed / r])

    def _measures(self, states: np.ndarray):
        """Return radius error [m], course error [rad], sideslip [rad] and speed [m/s]."""
        x, y = states[:, X], states[:, Y]
        vx, vy = states[:, VX], states[:, VY]
        beta = np.where(np.abs(vx) > 0.5, np.arctan2(vy, vx), 0.0)
        tangent = np.arctan2(y, x) + math.pi / 2.0
        course = wrap_angle(tangent - (states[:, YAW] + beta))
        return np.hypot(x, y) - self.RADIUS_M, course, beta, np.hypot(vx, vy)

    def _observe(self, states: np.ndarray) -> np.ndarray:
        radius, course, beta, _ = self._measures(states)
        return np.column_stack([_dynamics(states, self.wheel_radii_m), radius, course,
                                np.abs(beta)])

    def score(self, before, after):
        """Return the drift reward; leaving the ring or spinning ends the episode."""
        radius, course, beta, speed = self._measures(after)
        slide = np.exp(-((np.abs(beta) - self.SIDESLIP_RAD) / 0.15) ** 2)
        reward = (slide * np.minimum(speed / self.SPEED_M_S, 1.0) * np.maximum(np.cos(course), 0)
                  - 0.01 * radius ** 2)
        ended = (np.abs(radius) > 6.0) | (np.abs(beta) > 1.3)
        reward[ended] = self.END_REWARD
        return reward, ended, {'sideslip_rad': beta, 'radius_error_m': radius}
