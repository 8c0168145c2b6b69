"""
When the simulator node takes its physics steps: real time, as fast as possible, or lockstep.

Simulated time is steps x dt whatever the wall clock does; pacing only
decides when steps are taken. In realtime pacing every output instant (a
publishing instant, a sensor's measurement or delivery) has a deadline on
the monotonic clock, counted from the first instant paced (start-up is not
taken for missed steps): the step count over the steps per wall second
(real_time_factor / dt). RealTimeLoop takes an instant's physics a little
before its deadline and hands out its outputs when the clock reaches it:
never early, one instant a wake-up. A backlog (a stall) is caught up, the
instants back to back, up to max_catch_up_s; beyond that it is dropped and
reported. Lockstep steps on the `step` service only.
"""

import contextlib
import math
import time
from typing import Callable, ContextManager, Dict, Protocol

from .reports import Reports

LEAD_S = 0.0005
"""How much earlier than the time its physics took an instant's wake-up comes, at least [s]."""
WORK_MEMORY = 0.98
"""How much of the longest physics time an instant remembers from the one before."""


class Pacing:
    """The wall-clock accounting of one node's pacing."""

    def __init__(self, settings: Dict, dt: float, reports: Reports,
                 clock: Callable[[], float] = time.monotonic):
        """Pace steps of dt [s] by the node's settings (pacing, real_time_factor, catch-up)."""
        self.clock = clock
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
        """Return the wall period of the node's timer (fast, synchronous): a publish period."""
        period = (1.0 / publish_rate_hz) / (
            self.settings['real_time_factor'] if self.mode == 'realtime' else 1.0)
        return min(period, 0.01) if self.mode == 'fast' else period

    def restart(self, steps: int) -> None:
        """Count real time from now, with `steps` steps taken at this instant."""
        self._wall_start = self.clock()
        self._steps_at_start = steps

    def due_steps(self, steps: int) -> int:
        """Return the step count real-time pacing asks for by now (`steps` taken so far)."""
        if self._wall_start is None:
            self.restart(steps)
        return self._steps_at_start + math.floor(
            (self.clock() - self._wall_start) * self.settings['real_time_factor'] / self.dt)

    def _catch_up_limit(self) -> int:
        return max(1, round(self.settings['max_catch_up_s'] / self.dt))

    def deadline_s(self, steps: int, instant: int) -> float:
        """
        Return the monotonic time at which step `instant` is due, `steps` taken so far.

        Counted from the start (restart) in steps of dt / real_time_factor. A
        backlog over max_catch_up_s is dropped first: counted, reported, and
        real time counts afresh from the end of what is caught up.
        """
        missing = self.due_steps(steps) - steps
        limit = self._catch_up_limit()
        if missing > limit:
            overrun = self.reports.count('overrun_steps', missing - limit)
            self.reports.warn(
                'overrun', f'cannot keep up with real time x{self.settings["real_time_factor"]:g}'
                f': {overrun * self.dt:.3f} s of simulated time dropped so far')
            self.restart(steps + limit)
        return self._wall_start + (instant - self._steps_at_start) * self.dt / self.settings[
            'real_time_factor']

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


class Paced(Protocol):
    """What a RealTimeLoop paces: a session's front end (the node)."""

    sim_steps: int

    def may_advance(self) -> bool:
        """Return whether simulated time may run now (not paused, observers there)."""

    def next_instant(self) -> int:
        """Return the next step after sim_steps at which something may be output."""

    def take_steps(self, steps: int) -> bool:
        """Take the steps, their outputs held; return whether any are held."""

    def hand_out(self) -> None:
        """Publish the outputs held."""


class RealTimeLoop:
    """
    Real-time pacing to absolute deadlines: an instant's physics before it, its outputs at it.

    Each wake-up: find the next output instant and its deadline (Pacing),
    sleep until the deadline less the lead (the longest recent physics time
    and a margin), take the steps to the instant with the outputs held,
    sleep until the deadline, hand the outputs out. The clock and the sleep
    are injected (tests); `lock` is held for the work, not for the sleeps,
    so commands that come meanwhile are taken at the next step after them.
    """

    def __init__(self, pacing: Pacing, sleep: Callable[[float], None] = time.sleep,
                 lock: ContextManager = None):
        """Pace with `pacing` (its clock), sleeping with `sleep`, working under `lock`."""
        self.pacing = pacing
        self.sleep = sleep
        self.lock = lock if lock is not None else contextlib.nullcontext()
        self.work_s = 0.0
        self.held_still = True      # time has not run yet

    @property
    def lead_s(self) -> float:
        """Return how long before a deadline its physics starts [s]."""
        return 2.0 * self.work_s + LEAD_S

    def sleep_until(self, deadline: float) -> None:
        """Sleep until the clock reads `deadline` or later (never wakes early)."""
        clock = self.pacing.clock
        while (left := deadline - clock()) > 0.0:
            self.sleep(left)

    def wake(self, sim: Paced, idle_s: float) -> None:
        """Pace one instant of `sim` (or, while time may not run, wait idle_s)."""
        with self.lock:
            held_still, self.held_still = self.held_still, not sim.may_advance()
            if not self.held_still:
                steps = sim.sim_steps
                if held_still:
                    self.pacing.restart(steps)      # real time counts from when time may run
                instant = sim.next_instant()
                deadline = self.pacing.deadline_s(steps, instant)
        if self.held_still:
            self.sleep(idle_s)
            return
        self.sleep_until(deadline - self.lead_s)
        clock = self.pacing.clock
        with self.lock:
            started = clock()
            held = sim.take_steps(max(instant - sim.sim_steps, 0))
            self.work_s = max(clock() - started, WORK_MEMORY * self.work_s)
        if held:
            self.sleep_until(deadline)
            with self.lock:
                sim.hand_out()
