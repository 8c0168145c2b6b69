"""
When the simulator node takes its physics steps: real time, as fast as possible, or lockstep.

Simulated time is steps x dt whatever the wall clock does; pacing only
decides how many steps are due. In realtime pacing the steps due follow the
wall clock scaled by real_time_factor, counted from the first tick (start-up
is not taken for missed steps); a backlog longer than max_catch_up_s is
dropped and reported. Lockstep steps on the `step` service only.
"""

import math
import time
from typing import Dict

from .reports import Reports


class Pacing:
    """The wall-clock accounting of one node's pacing."""

    def __init__(self, settings: Dict, dt: float, reports: Reports):
        """Pace steps of dt [s] by the node's settings (pacing, real_time_factor, catch-up)."""
        self.settings = settings
        self.dt = dt
        self.reports = reports
        self._wall_start = None      # real time counts from the first tick
        self._steps_at_start = 0

    @property
    def mode(self) -> str:
        """Return the pacing: realtime, fast or lockstep."""
        return self.settings['pacing']

    def timer_period_s(self, publish_rate_hz: float) -> float:
        """Return the wall period of the node's timer: a publish period, scaled."""
        period = (1.0 / publish_rate_hz) / (
            self.settings['real_time_factor'] if self.mode == 'realtime' else 1.0)
        return min(period, 0.01) if self.mode == 'fast' else period

    def restart(self, steps: int) -> None:
        """Count real time from now, with `steps` steps taken at this instant."""
        self._wall_start = time.monotonic()
        self._steps_at_start = steps

    def due_steps(self, steps: int) -> int:
        """Return the step count real-time pacing asks for by now (`steps` taken so far)."""
        if self._wall_start is None:
            self.restart(steps)
        return self._steps_at_start + math.floor(
            (time.monotonic() - self._wall_start) * self.settings['real_time_factor'] / self.dt)

    def _catch_up_limit(self) -> int:
        return max(1, round(self.settings['max_catch_up_s'] / self.dt))

    def steps_to_take(self, steps: int, publish_every: int) -> int:
        """
        Return how many steps to take now, `steps` taken so far (realtime or fast).

        Fast: one publishing period. Realtime: what is due, at most
        max_catch_up_s of it; the rest is dropped, counted and reported.
        """
        if self.mode == 'fast':
            return publish_every
        missing = self.due_steps(steps) - steps
        limit = self._catch_up_limit()
        if missing > limit:
            overrun = self.reports.count('overrun_steps', missing - limit)
            self.reports.warn(
                'overrun', f'cannot keep up with real time x{self.settings["real_time_factor"]:g}'
                f': {overrun * self.dt:.3f} s of simulated time dropped so far')
            self.restart(steps + limit)
            missing = limit
        return max(missing, 0)

    def allows(self, steps: int, more: int) -> bool:
        """
        Return whether `more` steps may be taken now, `steps` taken so far (fast: always).

        After a wait longer than max_catch_up_s (on a controller), real time
        counts afresh: no catch-up.
        """
        if self.mode == 'fast':
            return True
        due = self.due_steps(steps)
        if due - steps > round(self.settings['max_catch_up_s'] / self.dt):
            self.restart(steps)
            return True
        return steps + more <= due
