"""Open-loop runs: a table of timed inputs in, the trajectory and tyre states out."""

from dataclasses import dataclass
import math
from typing import Callable, Dict, List, Optional

import numpy as np

from .body.layout import HEAVE, PITCH, ROLL
from .body.suspension import travels
from .drivetrain.equations import RPM_PER_RAD_S
from .model import (
    ALIGNING_MOMENT, ENGINE, FORCE_X, FORCE_Y, GEAR, NORMAL_LOAD, OMEGA, RELAXED_SLIP_ANGLE,
    RELAXED_SLIP_RATIO, SLIP_ANGLE, SLIP_RATIO, VX, VY, X, Y, YAW, YAW_RATE)
from .vehicle import Vehicle
from .. import WHEELS

STATE_COLUMNS = ('t', 'x', 'y', 'yaw', 'vx', 'vy', 'yaw_rate',
                 'omega_fl', 'omega_fr', 'omega_rl', 'omega_rr')
WHEEL_COLUMNS = ('slip_ratio', 'slip_angle', 'load', 'force_x', 'force_y', 'aligning_moment',
                 'relaxed_slip_ratio', 'relaxed_slip_angle')
"""Per-wheel extra columns, written as <name>_<wheel> (tyre-frame forces)."""


@dataclass
class InputTable:
    """
    Timed inputs: row k holds on [t[k], t[k+1]); the last row lasts as the one before.

    Per-wheel torques (drive, brake), or for a car with a drivetrain the
    driver's pedals and gear (throttle, pedal, gear: then drive and brake
    are ignored).
    """

    t: np.ndarray
    steer: np.ndarray
    drive: np.ndarray          # (N, 4) [N m]
    brake: np.ndarray          # (N, 4) [N m]
    handbrake: np.ndarray      # (N,)
    throttle: Optional[np.ndarray] = None   # (N,) 0..1: driver inputs when given
    pedal: Optional[np.ndarray] = None      # (N,) brake pedal 0..1
    gear: Optional[np.ndarray] = None       # (N,) drivetrain.AUTOMATIC, -1, 0, 1..N

    @property
    def driver(self) -> bool:
        """Return whether the rows are a driver's (throttle, brake pedal, gear)."""
        return self.throttle is not None

    def __post_init__(self):
        """Check shapes and that time strictly increases."""
        n = len(self.t)
        if n < 2:
            raise ValueError('an input table needs at least two rows (the row spacing is '
                             'the step size)')
        if np.any(np.diff(self.t) <= 0.0) or not np.all(np.isfinite(self.t)):
            raise ValueError('input times t must be finite and strictly increasing')
        for name in ('steer', 'handbrake') + (('throttle', 'pedal', 'gear') if self.driver
                                              else ()):
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


def _run_rows(vehicle: Vehicle, inputs: InputTable, rows: slice):
    """Run rows of the table; return the states, tyre states and (row, note) clamp notes."""
    n = len(inputs.t[rows])
    if inputs.driver:
        return vehicle.run_driver(
            inputs.steer[rows], np.zeros(n), inputs.throttle[rows], inputs.pedal[rows],
            inputs.handbrake[rows], inputs.gear[rows], inputs.step_sizes()[rows])
    return vehicle.run(inputs.steer[rows], np.zeros(n), inputs.drive[rows], inputs.brake[rows],
                       inputs.handbrake[rows], inputs.step_sizes()[rows])


def simulate(vehicle: Vehicle, inputs: InputTable,
             on_row: Optional[Callable[[int], None]] = None) -> Trajectory:
    """
    Run the table's inputs from the vehicle's current state, in one compiled loop.

    on_row(k), if given, is called before each row k and after the last
    (k = number of rows), the rows then run one by one (a sensor's turn).
    """
    n = len(inputs.t)
    initial = vehicle.state.copy()
    initial_diag = vehicle.diag.copy()
    if on_row is None:
        states, diags, notes = _run_rows(vehicle, inputs, slice(None))
    else:
        parts, notes = [], []
        for k in range(n):
            on_row(k)
            part = _run_rows(vehicle, inputs, slice(k, k + 1))
            parts.append(part[:2])
            notes += [(k, text) for _, text in part[2]]
        on_row(n)
        states = np.concatenate([p[0] for p in parts])
        diags = np.concatenate([p[1] for p in parts])
    states = np.vstack([initial[None, :], states])
    diags = np.concatenate([initial_diag[None], diags])
    times = np.append(inputs.t, inputs.t[-1] + inputs.step_sizes()[-1])
    columns = {'t': times}
    for name, index in zip(STATE_COLUMNS[1:], (X, Y, YAW, VX, VY, YAW_RATE)):
        columns[name] = states[:, index]
    for i, w in enumerate(WHEELS):
        columns[f'omega_{w}'] = states[:, OMEGA + i]
    for name, row in zip(WHEEL_COLUMNS, (SLIP_RATIO, SLIP_ANGLE, NORMAL_LOAD, FORCE_X,
                                         FORCE_Y, ALIGNING_MOMENT, RELAXED_SLIP_RATIO,
                                         RELAXED_SLIP_ANGLE)):
        for i, w in enumerate(WHEELS):
            columns[f'{name}_{w}'] = diags[:, row, i]
    if vehicle.has_drivetrain:
        columns['engine_rpm'] = states[:, ENGINE] * RPM_PER_RAD_S
        columns['gear'] = states[:, GEAR]
    if vehicle.sprung:
        columns.update(_body_columns(states, vehicle.flat_params))
    return Trajectory(columns, [f't = {inputs.t[row]:g} s: {text}' for row, text in notes])


def _body_columns(states: np.ndarray, p: np.ndarray) -> Dict[str, np.ndarray]:
    """Return a sprung body's columns: heave [m], roll, pitch [rad], each wheel's travel [m]."""
    columns = {'heave': states[:, HEAVE], 'roll': states[:, ROLL], 'pitch': states[:, PITCH]}
    for i, w in enumerate(WHEELS):
        columns[f'travel_{w}'] = travels(states, p)[:, i]
    return columns


def hold_times(duration_s: float, dt: float) -> np.ndarray:
    """Row times 0, dt, 2 dt, ... below duration, computed as document 002 does (i * dt)."""
    return np.array([i * dt for i in range(int(round(duration_s / dt)))])


def finite(trajectory: Trajectory) -> bool:
    """Return whether every value of the trajectory is finite."""
    return all(np.all(np.isfinite(v)) for v in trajectory.columns.values())


def deg(value: float) -> float:
    """Degrees to radians (readability of schedules)."""
    return math.radians(value)
