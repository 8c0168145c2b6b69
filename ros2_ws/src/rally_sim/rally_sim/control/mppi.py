"""
Model-predictive path integral (MPPI) control for lapping a stage. ROS-free.

The model is the simulator's own: every control period the controller rolls
out `samples` noisy copies of its plan over `horizon` periods with
rally_sim.physics.batch (the same vehicle file and surface map, integrated
with a coarser model_dt_s), scores each future, and moves its plan toward
the good ones, weighted by exp(-cost / temperature) (Williams et al.'s
information-theoretic MPC). Actions are normalised [steer, pedal]
(rally_sim.control.pedals). The cost of a future: progress along the
path (rewarded), cross-track and heading error, speed off the target, and a large
penalty for every period off the road; a future whose physics is not finite
is discarded. Seeded: the same states give the same commands.

A vehicle file with an `actuation:` section (delays, lags): the model's
actuators hold what the controller has sent and is still on its way, so
every future starts with the commands in flight, as the car's will.
"""

from dataclasses import dataclass
import math
from typing import Tuple

import numpy as np

from .path import ClosedPath
from .path_field import PathField
from .pedals import Pedals
from ..physics.batch.actuator_bank import ActuatorBank
from ..physics.batch.rollouts import Batch
from ..physics.config import VehicleConfig
from ..physics.model import STATE_SIZE, VX, VY, X, Y, YAW
from ..physics.surfaces import Surface


@dataclass
class MppiSettings:
    """Sampling, horizon and cost weights (SI units; actions normalised to -1..1)."""

    samples: int = 256
    horizon: int = 40
    period_s: float = 0.05                  # one plan row, the control period
    model_dt_s: float = 0.01                # the model's integration step
    temperature: float = 2.0                # [cost units]
    steer_noise: float = 0.15               # standard deviation, fraction of full steer
    pedal_noise: float = 0.35               # standard deviation, fraction of full pedal
    target_speed_m_s: float = 10.0
    progress_weight: float = 1.0            # [1/m]
    cross_track_weight: float = 2.0         # [1/m^2] per period
    noise_correlation: float = 0.8          # of one period's noise with the last's (0: white)
    speed_weight: float = 0.5               # [s^2/m^2] per period, above the target
    slow_weight: float = 0.05               # [s^2/m^2] per period, below the target
    heading_weight: float = 5.0             # per period, x (1 - cos(heading error))
    off_road_cost: float = 200.0            # per period with |cross-track| > off_road_m
    off_road_m: float = 3.0
    seed: int = 0


class Mppi:
    """An MPPI path follower on the batch model of one vehicle on one stage."""

    def __init__(self, config: VehicleConfig, surface: Surface, path: ClosedPath,
                 settings: MppiSettings = MppiSettings()):
        """Build the batch model (samples cars) and the path's lookup field."""
        if settings.samples < 2 or settings.horizon < 1:
            raise ValueError('MPPI needs samples >= 2 and horizon >= 1')
        self.settings = settings
        self.batch = Batch(config.with_overrides({'dt': settings.model_dt_s}),
                           settings.samples, surface)
        self.pedals = Pedals(config)
        car = self.batch.template
        self.sent = ActuatorBank(car.actuation, 1) if car.acting else None
        """The model's actuators: what was sent and is on its way (None: no actuation:)."""
        self.field = PathField(path)
        self.plan = np.zeros((settings.horizon, 2))
        self.rng = np.random.default_rng(settings.seed)
        self.noise = np.array([settings.steer_noise, settings.pedal_noise])
        self.last_costs = np.zeros(settings.samples)

    def command(self, state: np.ndarray) -> Tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """
        Return steer [rad], drive and brake torques [N m] (fl, fr, rl, rr) for a full state.

        Also returns the normalised action [steer, pedal]. `state` is in the
        Vehicle.state layout (pose, velocities, wheel spins, steer angle).
        """
        s = self.settings
        state = np.asarray(state, dtype=float).reshape(STATE_SIZE)
        noise = self.rng.standard_normal((s.samples, s.horizon, 2)) * self.noise
        keep = s.noise_correlation
        for k in range(1, s.horizon):                     # smooth in time, same spread
            noise[:, k] = keep * noise[:, k - 1] + math.sqrt(1.0 - keep * keep) * noise[:, k]
        noise[0] = 0.0                                    # the plan itself is one sample
        actions = np.clip(self.plan + noise, -1.0, 1.0)
        steer, drive, brake = self.pedals.torques(actions[..., 0], actions[..., 1])
        result = self.batch.rollout(np.repeat(state[None], s.samples, axis=0), steer, drive,
                                    brake, dt=s.period_s, tyres=False, actuators=None if
                                    self.sent is None else self.sent.tiled(s.samples))
        costs = self.costs(state, result.states, result.valid)
        self.last_costs = costs
        finite = np.isfinite(costs)
        if finite.any():
            weights = np.where(finite, np.exp(-(costs - costs[finite].min()) / s.temperature),
                               0.0)
            self.plan = np.tensordot(weights / weights.sum(), actions, axes=1)
        action = self.plan[0].copy()
        self.plan = np.vstack([self.plan[1:], self.plan[-1:]])
        steer, drive, brake = self.pedals.torques(action[0], action[1])
        if self.sent is not None:
            self._send(steer, drive, brake)
        return float(steer), drive, brake, action

    def _send(self, steer: float, drive: np.ndarray, brake: np.ndarray) -> None:
        """Move the model's actuators on by a period, the command just chosen sent."""
        car = self.batch.template
        row, _ = car.torque_commands([steer], [0.0], drive[None], brake[None], [0.0],
                                     merge=False)
        substeps = car.substeps_for(self.settings.period_s)
        self.sent.rows(row[None], substeps, self.settings.period_s / substeps)

    def costs(self, state: np.ndarray, states: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """
        Return each sampled future's cost (inf where its physics failed).

        A future whose physics blew up to huge but finite numbers gets an
        overflowed cost (inf or nan) without a warning: weighted 0 as the failed.
        """
        s = self.settings
        lap = self.field.path.length_m
        start = self.field.lookup(state[X], state[Y]).progress_m
        near = self.field.lookup(states[..., X], states[..., Y])
        progress = (near.progress_m[:, -1] - start + lap / 2.0) % lap - lap / 2.0
        speed = np.hypot(states[..., VX], states[..., VY])
        cross = near.cross_track_m
        heading = np.cos(states[..., YAW] - near.heading_rad)
        with np.errstate(over='ignore', invalid='ignore'):
            cost = (-s.progress_weight * progress
                    + s.cross_track_weight * (cross ** 2).sum(axis=1)
                    + s.speed_weight * (np.maximum(speed - s.target_speed_m_s, 0.0) ** 2
                                        ).sum(axis=1)
                    + s.slow_weight * (np.maximum(s.target_speed_m_s - speed, 0.0) ** 2
                                       ).sum(axis=1)
                    + s.heading_weight * (1.0 - heading).sum(axis=1)
                    + s.off_road_cost * (np.abs(cross) > s.off_road_m).sum(axis=1))
        return np.where(valid, cost, np.inf)
