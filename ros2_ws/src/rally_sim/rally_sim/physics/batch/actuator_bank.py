"""
The actuators of N cars at once, for batch rollouts (actuation.py: one car's).

The cars of a batch share the vehicle file's `actuation:` section and get
their commands at the same instants (the starts of a rollout's rows), so
every car's delayed command falls due at the same sub-step: what is on its
way is one queue per actuator of (due sub-step, every car's values). A
rollout row of dt is taken as its sub-steps, each a step of the actuators,
as Vehicle.run takes it for one car, so each car gets the same command rows
as that car alone, bit for bit.
"""

from collections import deque
from typing import Deque, Dict, Tuple

import numpy as np

from ..actuation import Actuation, CHANNELS, COLUMNS, lag_and_limit_cars
from ..model import COMMAND_SIZE


class ActuatorBank:
    """What N cars' actuators hold: their targets, their lags' outputs, commands on their way."""

    def __init__(self, actuation: Actuation, cars: int):
        """Actuators of `cars` cars as Vehicle.reset leaves one car's: at the zero command."""
        self.actuation = actuation
        self.cars = cars
        self.target = np.zeros((cars, COMMAND_SIZE))
        self.output = np.zeros((cars, len(actuation.lag_columns)))
        self._queues: Dict[str, Deque[Tuple[int, np.ndarray]]] = {
            name: deque() for name in CHANNELS}
        self.reset(np.arange(cars), np.zeros(COMMAND_SIZE))

    def reset(self, cars: np.ndarray, row: np.ndarray) -> None:
        """Stand the actuators of `cars` at command `row` (unmerged), with nothing on its way."""
        shaped = self.actuation.shaped_row(row)
        self.target[cars] = shaped
        self.output[cars] = shaped[self.actuation.lag_columns]
        for name, queue in self._queues.items():
            for _, values in queue:     # taking them changes nothing now
                values[cars] = row[COLUMNS[name]]

    def copy(self) -> 'ActuatorBank':
        """Return an independent twin (to roll out from one state several times)."""
        twin = ActuatorBank.__new__(ActuatorBank)
        twin.actuation, twin.cars = self.actuation, self.cars
        twin.target, twin.output = self.target.copy(), self.output.copy()
        twin._queues = {name: deque((due, values.copy()) for due, values in queue)
                        for name, queue in self._queues.items()}
        return twin

    def tiled(self, cars: int) -> 'ActuatorBank':
        """Return a bank of `cars` cars, each holding what car 0 holds (futures of one car)."""
        twin = self.copy()
        twin.cars = cars
        twin.target = np.repeat(self.target[:1], cars, axis=0)
        twin.output = np.repeat(self.output[:1], cars, axis=0)
        twin._queues = {name: deque((due, np.repeat(values[:1], cars, axis=0))
                                    for due, values in queue)
                        for name, queue in self._queues.items()}
        return twin

    def pending(self) -> int:
        """Return how many commands (of all the cars at once) are on their way."""
        return sum(len(queue) for queue in self._queues.values())

    def rows(self, commands: np.ndarray, substeps: int, step_s: float) -> np.ndarray:
        """
        Return each car's command at each sub-step as its actuators give it, and move on.

        commands: (N, H, COMMAND_SIZE) unmerged rows, row k arriving at the
        start of sub-step k x substeps; sub-steps of step_s. Returns
        (N, H x substeps, COMMAND_SIZE), handbrake torque not merged.
        """
        cars, horizon, _ = commands.shape
        total = horizon * substeps
        rows = np.empty((cars, total, COMMAND_SIZE))
        for name in CHANNELS:
            self._deliver(name, commands, substeps, step_s, rows)
        if self.actuation.lagged:
            decay, max_change = self.actuation.lag_constants(step_s)
            lag_and_limit_cars(rows, self.actuation.lag_columns, decay, max_change,
                               self.output)
        return rows

    def _deliver(self, name: str, commands: np.ndarray, substeps: int, step_s: float,
                 rows: np.ndarray) -> None:
        """Fill one actuator's columns of `rows` with its target at each sub-step."""
        columns = COLUMNS[name]
        total = rows.shape[1]
        delay = self.actuation.delay_steps(name, step_s)
        queue = self._queues[name]
        queue.extend((k * substeps + delay, commands[:, k, columns])
                     for k in range(commands.shape[1]))
        dues, targets = [], [self.target[:, columns]]
        while queue and queue[0][0] < total:
            due, values = queue.popleft()
            dues.append(due)
            targets.append(self.actuation.shaped(name, values))
        table = np.stack(targets, axis=1)                        # (N, taken + 1, columns)
        rows[:, :, columns] = table[:, np.searchsorted(dues, np.arange(total), side='right')]
        self.target[:, columns] = table[:, -1]
        self._queues[name] = deque((due - total, values) for due, values in queue)
