"""
A simulated car: validated commands in, state and per-wheel tyre state out.

This is the stateful, plain-Python face of the physics: it checks and clamps
commands, applies actuator limits, looks up the friction under each wheel,
runs the kernel on a copy of the state, and commits the result only if it is
finite, so no input can corrupt the simulation.
"""

from dataclasses import dataclass, field
import math
from typing import List, Sequence, Tuple

import numpy as np

from .config import VehicleConfig
from .integrators import INTEGRATORS, JACOBIAN_REFRESH_SUBSTEPS, rollout
from .model import (
    contact_points, derivatives, DIAG_SIZE, FORCE_X, FORCE_Y, NORMAL_LOAD, OMEGA, SLIP_ANGLE,
    SLIP_RATIO, STATE_SIZE, STEER, STEER_ANGLE, VX, VY, X, Y, YAW, YAW_RATE)
from .surfaces import friction_at, Surface
from .. import WHEELS


class CommandError(ValueError):
    """A command that cannot be used (non-finite or malformed); nothing was changed."""


@dataclass
class Command:
    """What the driver asks for, held until the next command."""

    steer_rad: float = 0.0
    steer_rate_rad_s: float = 0.0
    drive_torque_n_m: Sequence[float] = (0.0, 0.0, 0.0, 0.0)
    brake_torque_n_m: Sequence[float] = (0.0, 0.0, 0.0, 0.0)
    handbrake: float = 0.0


@dataclass
class WheelState:
    """Per-wheel tyre state, arrays in wheel order fl, fr, rl, rr."""

    slip_ratio: np.ndarray
    slip_angle_rad: np.ndarray
    normal_load_n: np.ndarray
    force_x_n: np.ndarray
    force_y_n: np.ndarray
    omega_rad_s: np.ndarray
    steer_rad: np.ndarray
    friction: np.ndarray
    names: Sequence[str] = field(default=WHEELS)


def _checked(name: str, values, size: int) -> np.ndarray:
    """Return values as float rows of `size` columns (1: a column vector squeezed)."""
    array = np.asarray(values, dtype=float)
    rows = array.reshape(len(array), -1) if array.ndim else array.reshape(1, 1)
    if rows.shape[1] != size:
        raise CommandError(f'{name} must have {size} values (wheel order fl, fr, rl, rr), '
                           f'got {rows.shape[1]}')
    bad = np.argwhere(~np.isfinite(rows))
    if len(bad):
        row, col = bad[0]
        label = name if size == 1 else f'{name}[{WHEELS[col]}]'
        where = f' (row {row})' if len(rows) > 1 else ''
        raise CommandError(f'{label} = {rows[row, col]} is not finite{where}; '
                           'command rejected')
    return rows[:, 0] if size == 1 else rows


class Vehicle:
    """One car on a surface, advanced in fixed steps by `step(dt)`."""

    def __init__(self, config: VehicleConfig, surface: Surface = None):
        """Build the car at rest at the origin, on `surface` (default: dry tarmac)."""
        self.config = config
        self.params = config.model_params()
        self.surface = surface or Surface.uniform()
        self.method = INTEGRATORS[config['integrator']]
        self.tyre_mu = config.tyre('mu')
        self.drive_limit = config.per_wheel('drive.max_torque_front_n_m',
                                            'drive.max_torque_rear_n_m')
        self.brake_limit = config.per_wheel('brakes.max_torque_front_n_m',
                                            'brakes.max_torque_rear_n_m')
        self.handbrake_torque = np.array(
            [0.0, 0.0, 1.0, 1.0]) * config['brakes.handbrake_torque_n_m']
        self.state = np.zeros(STATE_SIZE)
        self.diag = np.zeros((DIAG_SIZE, 4))
        self.time_s = 0.0
        self.step_count = 0
        self._steer = 0.0
        self._steer_rate = 0.0
        self._drive = np.zeros(4)
        self._brake = np.zeros(4)
        self._jacobian = np.zeros((7, 7))       # the implicit scheme's, kept between steps
        self.reset()

    # ---- state -------------------------------------------------------------

    def reset(self, x: float = 0.0, y: float = 0.0, yaw: float = 0.0, vx: float = 0.0,
              vy: float = 0.0, yaw_rate: float = 0.0) -> None:
        """Place the car, wheels free rolling, commands zeroed, time at 0."""
        values = _checked('initial state', [[x, y, yaw, vx, vy, yaw_rate]], 6)[0]
        self.state[:] = 0.0
        self.state[[X, Y, YAW, VX, VY, YAW_RATE]] = values
        self.state[OMEGA:OMEGA + 4] = self.free_rolling_omega(vx, yaw_rate)
        self.time_s = 0.0
        self.step_count = 0
        self._jacobian_age = JACOBIAN_REFRESH_SUBSTEPS
        self.friction = friction_at(self.surface.grid, self.tyre_mu,
                                    *contact_points(self.state, self.params))
        self.set_command(Command())
        self._update_diag()

    def free_rolling_omega(self, vx: float, yaw_rate: float = 0.0) -> np.ndarray:
        """Wheel spin rates that roll without slip at body speed vx (straight or turning)."""
        c = self.params.half_track_m
        wheel_vx = vx - yaw_rate * np.array([c, -c, c, -c])
        return wheel_vx / self.params.wheel_radius_m

    # ---- commands ----------------------------------------------------------

    def set_command(self, command: Command) -> List[str]:
        """
        Take a command; return messages for each value clamped to a limit.

        Raises CommandError, changing nothing, if any value is non-finite or
        an array has the wrong length.
        """
        steer, rate, drive, brake, notes = self.limit_commands(
            [command.steer_rad], [command.steer_rate_rad_s], [command.drive_torque_n_m],
            [command.brake_torque_n_m], [command.handbrake])
        self._steer, self._steer_rate = steer[0], rate[0]
        self._drive, self._brake = drive[0], brake[0]
        return [text for _, text in notes]

    def limit_commands(self, steer, rate, drive, brake, handbrake):
        """
        Check and clamp N commands at once (arrays with N rows).

        Returns steer, rate limit, drive and total brake torque (brakes plus
        handbrake) per row, and (row, message) for each clamped value. Raises
        CommandError, naming the field (and row), for a non-finite value.
        """
        steer = _checked('steer_rad', steer, 1)
        rate = np.abs(_checked('steer_rate_rad_s', rate, 1))
        drive = _checked('drive_torque_n_m', drive, 4)
        brake = _checked('brake_torque_n_m', brake, 4)
        handbrake = _checked('handbrake', handbrake, 1)
        notes: List[Tuple[int, str]] = []
        max_steer = self.config['steering.max_angle_rad']
        steer = _clamp(notes, 'steer_rad', steer, -max_steer, max_steer)
        handbrake = _clamp(notes, 'handbrake', handbrake, 0.0, 1.0)
        drive = _clamp(notes, 'drive_torque_n_m', drive, -self.drive_limit, self.drive_limit)
        brake = _clamp(notes, 'brake_torque_n_m', brake, 0.0, self.brake_limit)
        notes.sort()
        brake = brake + handbrake[:, None] * self.handbrake_torque
        return steer, rate, drive, brake, notes

    # ---- stepping ----------------------------------------------------------

    def substeps_for(self, dt: float) -> int:
        """Return the number of equal sub-steps of at most config dt that make dt."""
        return max(1, math.ceil(dt / self.config['dt'] - 1e-9))

    def step(self, dt: float) -> None:
        """Advance by dt [s] with the held command; the state stays finite."""
        self.advance(1, dt)

    def advance(self, steps: int, dt: float):
        """
        Take `steps` fixed steps of dt [s] with the held command, in one compiled loop.

        Returns the states (steps, STATE_SIZE) after each step. Raises
        FloatingPointError at a non-finite state, keeping the last finite one.
        """
        if not math.isfinite(dt) or dt <= 0.0:
            raise ValueError(f'step dt = {dt!r} must be a positive finite number of seconds')
        ones = np.ones(steps)
        return self._rollout(self._steer * ones, self._steer_rate * ones,
                             np.tile(self._drive, (steps, 1)), np.tile(self._brake, (steps, 1)),
                             dt * ones)[0]

    def run(self, steer, steer_rate, drive, brake, handbrake, dts):
        """
        Apply N timed commands (row k for dts[k] seconds) in one compiled loop.

        Commands are checked and clamped first (CommandError changes nothing).
        Returns the states (N, STATE_SIZE) and tyre states (N, DIAG_SIZE, 4)
        after each row, and the (row, message) clamp notes. Friction is looked
        up under each wheel at the start of each row.
        """
        dts = np.asarray(dts, dtype=float)
        if not np.all(np.isfinite(dts)) or np.any(dts <= 0.0):
            raise ValueError('every step dt must be a positive finite number of seconds')
        steer, rate, drive, brake, notes = self.limit_commands(
            steer, steer_rate, drive, brake, handbrake)
        states, diags = self._rollout(steer, rate, drive, brake, dts)
        self._steer, self._steer_rate = steer[-1], rate[-1]
        self._drive, self._brake = drive[-1], brake[-1]
        return states, diags, notes

    def _rollout(self, steer, rate, drive, brake, dts):
        """Run the compiled loop over checked rows; commit what stayed finite."""
        substeps = np.array([self.substeps_for(dt) for dt in dts], dtype=np.int64)
        states = np.zeros((len(dts), STATE_SIZE))
        diags = np.zeros((len(dts), DIAG_SIZE, 4))
        frictions = np.zeros((len(dts), 4))
        state = self.state.copy()
        done, self._jacobian_age = rollout(
            state, steer, rate, drive, brake, self.tyre_mu, self.surface.grid, dts, substeps,
            self.method, self.params, states, diags, frictions, self._jacobian,
            self._jacobian_age)
        self.state = state
        self.step_count += done
        self.time_s += float(np.sum(dts[:done]))
        if done:
            self.diag = diags[done - 1].copy()
            self.friction = frictions[done - 1].copy()
        if done < len(dts):
            raise FloatingPointError(
                f'the physics produced a non-finite state at t = {self.time_s:.4f} s; '
                'the step was discarded, the state is the last finite one (try a smaller '
                'dt or the implicit_euler integrator)')
        return states, diags

    # ---- outputs -----------------------------------------------------------

    def wheels(self) -> WheelState:
        """Return the tyre state of the last step."""
        d = self.diag
        return WheelState(
            slip_ratio=d[SLIP_RATIO].copy(), slip_angle_rad=d[SLIP_ANGLE].copy(),
            normal_load_n=d[NORMAL_LOAD].copy(), force_x_n=d[FORCE_X].copy(),
            force_y_n=d[FORCE_Y].copy(), omega_rad_s=self.state[OMEGA:OMEGA + 4].copy(),
            steer_rad=d[STEER_ANGLE].copy(), friction=self.friction.copy())

    @property
    def steer_rad(self) -> float:
        """Actual bicycle-equivalent steer angle after the actuator [rad]."""
        return float(self.state[STEER])

    def _update_diag(self) -> None:
        derivatives(self.state[VX:VX + 7].copy(), self.state[STEER], self._drive,
                    self.friction, self.params, self.diag)

    def specific_force_m_s2(self):
        """Return what an accelerometer at the CG reads in the body frame (x, y) [m/s^2]."""
        z = self.state[VX:VX + 7].copy()
        dz = derivatives(z, self.state[STEER], self._drive, self.friction, self.params,
                         np.empty((DIAG_SIZE, 4)))
        return dz[0] - z[1] * z[2], dz[1] + z[0] * z[2]

    def speed_m_s(self) -> float:
        """Return the magnitude of the CG velocity."""
        return math.hypot(self.state[VX], self.state[VY])


def _clamp(notes: List[Tuple[int, str]], name: str, values: np.ndarray, low, high) -> np.ndarray:
    """Clamp values (N rows) to [low, high], noting (row, message) for each change."""
    low = np.broadcast_to(low, values.shape[1:]) if values.ndim > 1 else low
    high = np.broadcast_to(high, values.shape[1:]) if values.ndim > 1 else high
    clamped = np.clip(values, low, high)
    for index in np.argwhere(clamped != values):
        row = int(index[0])
        label = f'{name}[{WHEELS[index[1]]}]' if values.ndim > 1 else name
        lo = low[index[1]] if values.ndim > 1 else low
        hi = high[index[1]] if values.ndim > 1 else high
        notes.append((row, f'{label} = {values[tuple(index)]:g} clamped to '
                           f'{clamped[tuple(index)]:g} (limit [{lo:g}, {hi:g}])'))
    return clamped
