"""
Actuators between a command and the car: dead time, dead band, bias, lag, rate limit.

The vehicle file's `actuation:` section gives each of the four actuators
(steer; drive: per-wheel drive torque, or the throttle; brake: per-wheel
brake torque, or the pedal; handbrake) these, in this order:

1. delay_s: a command takes effect delay_s of simulated time after it
   arrived, at the first physics step that starts then or later (exact to
   the physics step, whatever delay_s is);
2. dead_band: a command of at most this size acts as 0;
3. bias: added to every command, then the vehicle's limits apply;
4. time_constant_s: a first-order lag toward the command, per physics step;
5. rate_limit: the most the actuator moves per second.

Sizes are in radians for the steer and in shares of full scale for the
others (of each wheel's torque limit, of full throttle, pedal or lever), so
one file serves every command mode. The steer's lag and rate limit are the
kernel's own (`steering.time_constant_s` and `max_rate_rad_s`, per
sub-step), so a vehicle file without `actuation:` runs as before, bit for
bit, on the vehicle's fast path (Vehicle.advance without this module).
"""

from collections import deque
import math
from typing import Deque, Dict, List, Tuple

import numpy as np

from .jit import njit
from .model import (
    C_BRAKE, C_DRIVE, C_DRIVER, C_GEAR, C_HANDBRAKE, C_RATE, C_STEER, C_THROTTLE, COMMAND_SIZE)

CHANNELS = ('steer', 'drive', 'brake', 'handbrake')
COLUMNS = {'steer': [C_STEER, C_RATE],
           'drive': [C_DRIVE, C_DRIVE + 1, C_DRIVE + 2, C_DRIVE + 3, C_DRIVER, C_THROTTLE,
                     C_GEAR],
           'brake': [C_BRAKE, C_BRAKE + 1, C_BRAKE + 2, C_BRAKE + 3],
           'handbrake': [C_HANDBRAKE]}
"""The command columns each actuator carries, in a command row as the kernels read it."""
SHAPED = {'steer': [C_STEER],
          'drive': [C_DRIVE, C_DRIVE + 1, C_DRIVE + 2, C_DRIVE + 3, C_THROTTLE],
          'brake': [C_BRAKE, C_BRAKE + 1, C_BRAKE + 2, C_BRAKE + 3],
          'handbrake': [C_HANDBRAKE]}
"""The columns each actuator's dead band, bias, lag and rate limit act on (the rest ride
along: the steer rate asked for, the mode and the gear request)."""
SHAPED_AT = {name: [COLUMNS[name].index(c) for c in SHAPED[name]] for name in CHANNELS}
"""SHAPED as positions among the actuator's COLUMNS."""
DRIVER_AT = COLUMNS['drive'].index(C_DRIVER)
DRIVER_MODE_SHAPES = np.array([False, False, False, False, True])
"""Which of the drive's shaped columns a driver-mode command shapes (the throttle), and by
their negation a torque-mode command (the four torques)."""
DUE_TOLERANCE = 1e-6
"""A command due within this share of a step of a step's start takes effect at that step."""


@njit
def lag_and_limit(rows: np.ndarray, columns: np.ndarray, decay: np.ndarray,
                  max_change: np.ndarray, output: np.ndarray) -> None:
    """
    Replace rows[k, columns] (targets) by the actuators' outputs at each step k.

    Per step: a first-order lag toward the target (decay: exp(-dt / T) per
    column, 0 for none), then at most max_change per column (inf for none);
    output holds each column's last value and is updated.
    """
    for k in range(rows.shape[0]):
        for j in range(columns.shape[0]):
            c = columns[j]
            target = rows[k, c]
            moved = target + (output[j] - target) * decay[j]
            change = min(max(moved - output[j], -max_change[j]), max_change[j])
            output[j] = output[j] + change
            rows[k, c] = output[j]


@njit
def lag_and_limit_cars(rows: np.ndarray, columns: np.ndarray, decay: np.ndarray,
                       max_change: np.ndarray, outputs: np.ndarray) -> None:
    """lag_and_limit() for each car: rows (N, steps, COMMAND_SIZE), outputs (N, columns)."""
    for car in range(rows.shape[0]):
        lag_and_limit(rows[car], columns, decay, max_change, outputs[car])


class Actuation:
    """The commands on their way to one car's actuators, and the actuators' state."""

    def __init__(self, config, drive_limit: np.ndarray, brake_limit: np.ndarray):
        """Read the `actuation.*` keys of a VehicleConfig; the car's torque limits scale them."""
        self.spec = {name: {key: config[f'actuation.{name}.{key}'] for key in (
            'delay_s', 'time_constant_s', 'rate_limit', 'dead_band', 'bias')}
            for name in CHANNELS}
        max_steer = config['steering.max_angle_rad']
        full = {'steer': [1.0], 'drive': list(drive_limit) + [1.0],
                'brake': list(brake_limit), 'handbrake': [1.0]}
        self.scale = {name: np.array(full[name]) for name in CHANNELS}
        self.low = {'steer': np.array([-max_steer]), 'drive': -self.scale['drive'],
                    'brake': np.zeros(4), 'handbrake': np.zeros(1)}
        self.low['drive'][-1] = 0.0     # the throttle
        self.high = {'steer': np.array([max_steer]), **{
            name: self.scale[name] for name in CHANNELS[1:]}}
        kernel = ('time_constant_s', 'rate_limit')   # the steer's: in the kernel
        self.trivial = all(value == 0.0 for name, keys in self.spec.items()
                           for key, value in keys.items()
                           if not (name == 'steer' and key in kernel))
        self.lagged = [name for name in CHANNELS[1:] if self.spec[name]['time_constant_s'] > 0
                       or self.spec[name]['rate_limit'] > 0]
        self.lag_columns = np.array([c for name in self.lagged for c in SHAPED[name]],
                                    dtype=np.int64)
        self._lag_cache: Dict[float, Tuple[np.ndarray, np.ndarray]] = {}
        self._queues: Dict[str, Deque[Tuple[float, np.ndarray]]] = {
            name: deque() for name in CHANNELS}
        self._target = np.zeros(COMMAND_SIZE)
        self._output = np.zeros(len(self.lag_columns))

    def reset(self, row: np.ndarray) -> None:
        """Forget every command on its way; the actuators stand at `row` (a command row)."""
        for queue in self._queues.values():
            queue.clear()
        self._target[:] = self.shaped_row(row)
        self._output[:] = self._target[self.lag_columns]

    def push(self, time_s: float, row: np.ndarray) -> None:
        """Take a command row (handbrake torque not merged) that arrived at time_s."""
        for name in CHANNELS:
            delay = self.spec[name]['delay_s']
            values = np.array(row[COLUMNS[name]], dtype=float)
            if delay > 0.0:
                self._queues[name].append((time_s + delay, values))
            else:
                self._take(name, values)

    def _take(self, name: str, values: np.ndarray) -> None:
        """Make `values` (of COLUMNS[name]) the actuator's target, shaped."""
        self._target[COLUMNS[name]] = self.shaped(name, values[None])[0]

    def shaped(self, name: str, values: np.ndarray) -> np.ndarray:
        """
        Return commands of one actuator (M, len(COLUMNS[name])) after dead band, bias, limits.

        Drive: torques in torque mode, the throttle in driver mode (the
        command's mode column); the other stays as it is (0).
        """
        spec = self.spec[name]
        at = SHAPED_AT[name]
        part = values[:, at]
        shaped = np.where(np.abs(part) <= spec['dead_band'] * self.scale[name], 0.0, part)
        shaped = np.clip(shaped + spec['bias'] * self.scale[name], self.low[name],
                         self.high[name])
        result = np.array(values, dtype=float)
        if name == 'drive':
            driver = values[:, DRIVER_AT, None] != 0.0
            shaped = np.where(driver == DRIVER_MODE_SHAPES, shaped, part)
        result[:, at] = shaped
        return result

    def shaped_row(self, row: np.ndarray) -> np.ndarray:
        """Return a whole command row after every actuator's dead band, bias and limits."""
        shaped = np.array(row, dtype=float)
        for name in CHANNELS:
            shaped[COLUMNS[name]] = self.shaped(name, shaped[None, COLUMNS[name]])[0]
        return shaped

    def rows(self, time_s: float, dt: float, steps: int) -> np.ndarray:
        """
        Return the command row of each of `steps` steps of dt from time_s, as the actuators act.

        Handbrake torque not merged (see Vehicle). Takes the commands that
        fall due in that time off their queues and moves the lags on.
        """
        rows = np.empty((steps, COMMAND_SIZE))
        rows[:] = self._target
        for name in CHANNELS:
            queue = self._queues[name]
            while queue:
                due = queue[0][0]
                k = max(0, math.ceil((due - time_s) / dt - DUE_TOLERANCE))
                if k >= steps:
                    break
                self._take(name, queue.popleft()[1])
                rows[k:, COLUMNS[name]] = self._target[COLUMNS[name]]
        if self.lagged:
            decay, max_change = self.lag_constants(dt)
            lag_and_limit(rows, self.lag_columns, decay, max_change, self._output)
        return rows

    def stretches(self, time_s: float, dt: float, steps: int) -> List[Tuple[int, np.ndarray]]:
        """
        Return (first step, row) of each stretch of one command in `steps` steps of dt.

        For actuators without lag or rate limit (not `lagged`): the command
        changes only when a delayed one falls due, so the steps between run
        as one (Vehicle: one kernel call each). Takes the commands that fall
        due off their queues, as rows() does.
        """
        falling = []
        for order, name in enumerate(CHANNELS):
            for due, values in self._queues[name]:
                k = max(0, math.ceil((due - time_s) / dt - DUE_TOLERANCE))
                if k >= steps:
                    break
                falling.append((k, order, name, values))
        stretches = [(0, self._target.copy())]
        for k, _, name, _ in sorted(falling, key=lambda item: item[:2]):
            self._take(name, self._queues[name].popleft()[1])
            if stretches[-1][0] == k:
                stretches[-1] = (k, self._target.copy())
            else:
                stretches.append((k, self._target.copy()))
        return stretches

    def settle(self, row: np.ndarray) -> None:
        """Set the lags' state to `row`'s (the last step taken, when a run stopped early)."""
        self._output[:] = row[self.lag_columns]

    def delay_steps(self, name: str, dt: float) -> int:
        """Return after how many steps of dt a command of actuator `name` takes effect."""
        return max(0, math.ceil(self.spec[name]['delay_s'] / dt - DUE_TOLERANCE))

    def lag_constants(self, dt: float) -> Tuple[np.ndarray, np.ndarray]:
        """Return each lagged column's decay per step of dt and largest change per step."""
        constants = self._lag_cache.get(dt)
        if constants is None:
            decay: List[float] = []
            most: List[float] = []
            for name in self.lagged:
                spec = self.spec[name]
                tau, rate = spec['time_constant_s'], spec['rate_limit']
                for scale in self.scale[name]:
                    decay.append(math.exp(-dt / tau) if tau > 0.0 else 0.0)
                    most.append(rate * scale * dt if rate > 0.0 else math.inf)
            constants = self._lag_cache[dt] = (np.array(decay), np.array(most))
        return constants

    def pending(self) -> int:
        """Return how many commands are on their way (not yet in effect)."""
        return sum(len(queue) for queue in self._queues.values())
