"""Open-loop runs: a table of timed inputs in, the trajectory and tyre states out."""

from dataclasses import dataclass
import math
from typing import Dict, List

import numpy as np

from .model import OMEGA, VX, VY, X, Y, YAW, YAW_RATE
from .vehicle import Command, Vehicle

STATE_COLUMNS = ('t', 'x', 'y', 'yaw', 'vx', 'vy', 'yaw_rate',
                 'omega_fl', 'omega_fr', 'omega_rl', 'omega_rr')
WHEEL_COLUMNS = ('slip_ratio', 'slip_angle', 'load', 'force_x', 'force_y')
"""Per-wheel extra columns, written as <name>_<wheel> (tyre-frame forces)."""


@dataclass
class InputTable:
    """Timed inputs: row k holds on [t[k], t[k+1]); the last row lasts as the one before."""

    t: np.ndarray
    steer: np.ndarray
    drive: np.ndarray          # (N, 4) [N m]
    brake: np.ndarray          # (N, 4) [N m]
    handbrake: np.ndarray      # (N,)

    def __post_init__(self):
        """Check shapes and that time strictly increases."""
        n = len(self.t)
        if n < 2:
            raise ValueError('an input table needs at least two rows (the row spacing is '
                             'the step size)')
        if np.any(np.diff(self.t) <= 0.0) or not np.all(np.isfinite(self.t)):
            raise ValueError('input times t must be finite and strictly increasing')
        for name in ('steer', 'handbrake'):
            if np.shape(getattr(self, name)) != (n,):
                raise ValueError(f'{name} must have one value per row')
        for name in ('drive', 'brake'):
            if np.shape(getattr(self, name)) != (n, 4):
                raise ValueError(f'{name} must have four values (fl, fr, rl, rr) per row')

    def step_sizes(self) -> np.ndarray:
        """Return the duration of each row."""
        spacing = np.diff(self.t)
        return np.append(spacing, spacing[-1])


@dataclass
class Trajectory:
    """The state after each row (row 0: the initial state), and tyre states."""

    columns: Dict[str, np.ndarray]
    notes: List[str]


def simulate(vehicle: Vehicle, inputs: InputTable) -> Trajectory:
    """Run the table's inputs from the vehicle's current state."""
    n = len(inputs.t)
    rows = np.empty((n + 1, len(STATE_COLUMNS)))
    wheel = np.empty((n + 1, len(WHEEL_COLUMNS), 4))
    notes: List[str] = []
    _record(vehicle, inputs.t[0], rows[0], wheel[0])
    for k, dt in enumerate(inputs.step_sizes()):
        for note in vehicle.set_command(Command(
                steer_rad=inputs.steer[k], drive_torque_n_m=inputs.drive[k],
                brake_torque_n_m=inputs.brake[k], handbrake=inputs.handbrake[k])):
            notes.append(f't = {inputs.t[k]:g} s: {note}')
        vehicle.step(dt)
        _record(vehicle, inputs.t[k] + dt, rows[k + 1], wheel[k + 1])
    columns = {name: rows[:, i] for i, name in enumerate(STATE_COLUMNS)}
    for j, name in enumerate(WHEEL_COLUMNS):
        for i, w in enumerate(('fl', 'fr', 'rl', 'rr')):
            columns[f'{name}_{w}'] = wheel[:, j, i]
    return Trajectory(columns, notes)


def _record(vehicle: Vehicle, t: float, row: np.ndarray, wheel: np.ndarray) -> None:
    s = vehicle.state
    row[:] = (t, s[X], s[Y], s[YAW], s[VX], s[VY], s[YAW_RATE], *s[OMEGA:OMEGA + 4])
    w = vehicle.wheels()
    wheel[:] = (w.slip_ratio, w.slip_angle_rad, w.normal_load_n, w.force_x_n, w.force_y_n)


def hold_times(duration_s: float, dt: float) -> np.ndarray:
    """Row times 0, dt, 2 dt, ... below duration, computed as document 002 does (i * dt)."""
    return np.array([i * dt for i in range(int(round(duration_s / dt)))])


def finite(trajectory: Trajectory) -> bool:
    """Return whether every value of the trajectory is finite."""
    return all(np.all(np.isfinite(v)) for v in trajectory.columns.values())


def deg(value: float) -> float:
    """Degrees to radians (readability of schedules)."""
    return math.radians(value)
