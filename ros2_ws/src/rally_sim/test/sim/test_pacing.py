"""The real-time pacing rule (sim/pacing.py) on an injected clock: deadlines, never early."""

import logging

import numpy as np
import pytest
from rally_sim.sim.pacing import Pacing, RealTimeLoop
from rally_sim.sim.reports import Reports

DT = 0.001
PUBLISH_EVERY = 10          # 100 Hz outputs from 1 kHz physics


class Clock:
    """A monotonic clock that moves only when slept on or worked on, by seeded amounts."""

    def __init__(self, seed: int = 0, overshoot_s: float = 0.0, early_share: float = 0.0):
        """Sleeps overshoot by up to overshoot_s; a share of them return halfway (a signal)."""
        self.now = 100.0
        self.rng = np.random.default_rng(seed)
        self.overshoot_s = overshoot_s
        self.early_share = early_share
        self.sleeps = 0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        if self.rng.random() < self.early_share:
            self.now += 0.5 * seconds
        else:
            self.now += seconds + self.rng.uniform(0.0, self.overshoot_s)


class Sim:
    """A stepped simulation: outputs every PUBLISH_EVERY steps and at sensor `events`."""

    def __init__(self, clock: Clock, work_s: float = 0.0002, events=()):
        self.clock = clock
        self.sim_steps = 0
        self.work_s = work_s
        self.events = sorted(events)
        self.running = True
        self.held = None
        self.handed = []        # (step, clock) of each hand-out
        self.taken = []         # (first step, steps) of each take

    def may_advance(self) -> bool:
        return self.running

    def next_instant(self) -> int:
        nxt = self.sim_steps + PUBLISH_EVERY - self.sim_steps % PUBLISH_EVERY
        later = [e for e in self.events if e > self.sim_steps]
        return min([nxt] + later[:1])

    def take_steps(self, steps: int) -> bool:
        self.taken.append((self.sim_steps, steps))
        self.sim_steps += steps
        self.clock.now += self.work_s
        self.held = self.sim_steps
        return True

    def hand_out(self) -> None:
        self.handed.append((self.held, self.clock.now))


def paced(clock: Clock, **settings):
    """Return a loop pacing with the node's defaults and `settings`, and its reports."""
    reports = Reports(logging.getLogger('pacing'))
    pacing = Pacing(dict({'pacing': 'realtime', 'real_time_factor': 1.0, 'max_catch_up_s': 0.1},
                         **settings), DT, reports, clock=clock)
    return RealTimeLoop(pacing, sleep=clock.sleep), reports


def run(loop: RealTimeLoop, sim: Sim, wakes: int) -> None:
    """Wake the loop `wakes` times."""
    for _ in range(wakes):
        loop.wake(sim, 0.01)


def test_each_instant_goes_out_at_its_deadline_from_the_start_never_early():
    clock = Clock()
    start = clock.now
    loop, _ = paced(clock)
    sim = Sim(clock)
    run(loop, sim, 200)
    steps = np.array([s for s, _ in sim.handed])
    times = np.array([t for _, t in sim.handed])
    assert list(steps) == list(range(PUBLISH_EVERY, 201 * PUBLISH_EVERY, PUBLISH_EVERY))
    assert times == pytest.approx(start + steps * DT, abs=1e-9)        # on the deadline
    assert all(t >= start + s * DT - 1e-12 for s, t in sim.handed)     # never early
    assert all(n == PUBLISH_EVERY for _, n in sim.taken)               # one instant a wake


def test_late_and_interrupted_sleeps_never_make_an_instant_early():
    clock = Clock(seed=48, overshoot_s=0.0008, early_share=0.2)
    start = clock.now
    loop, _ = paced(clock)
    sim = Sim(clock, work_s=0.0003)
    run(loop, sim, 500)
    late = np.array([t - (start + s * DT) for s, t in sim.handed])
    assert late.min() >= -1e-12 and late.max() <= 0.0008 + 1e-9
    assert [s for s, _ in sim.handed] == list(range(10, 5001, 10))     # none doubled or lost


def test_the_physics_is_taken_before_the_deadline_by_the_lead():
    clock = Clock()
    start = clock.now
    loop, _ = paced(clock)
    sim = Sim(clock, work_s=0.002)
    run(loop, sim, 20)
    assert loop.lead_s == pytest.approx(2 * 0.002 + 0.0005)
    late = [t - (start + s * DT) for s, t in sim.handed]
    assert late[0] == pytest.approx(0.002 - 0.0005)     # the first lead: before any work
    assert late[1:] == pytest.approx([0.0] * 19, abs=1e-9)


def test_sensor_instants_between_publishing_instants_go_out_at_their_own_deadlines():
    clock = Clock()
    start = clock.now
    loop, _ = paced(clock)
    sim = Sim(clock, events=(3, 14, 25, 27))
    run(loop, sim, 7)
    assert [s for s, _ in sim.handed] == [3, 10, 14, 20, 25, 27, 30]
    assert [t for _, t in sim.handed] == pytest.approx(
        [start + s * DT for s in (3, 10, 14, 20, 25, 27, 30)], abs=1e-9)


def test_a_stall_is_caught_up_back_to_back_then_the_deadlines_hold_again():
    clock = Clock()
    start = clock.now
    loop, reports = paced(clock)
    sim = Sim(clock)
    run(loop, sim, 10)
    clock.now += 0.055                   # a stall: five and a half periods behind
    run(loop, sim, 20)
    assert [s for s, _ in sim.handed] == list(range(10, 301, 10))      # nothing dropped
    assert reports.counters['overrun_steps'] == 0
    late = [t - (start + s * DT) for s, t in sim.handed]
    assert all(d >= -1e-12 for d in late)
    # back to back, each after the last one's work (0.2 ms), until caught up
    assert late[10:15] == pytest.approx([0.0452 - k * 0.0098 for k in range(5)], abs=1e-9)
    assert late[-10:] == pytest.approx([0.0] * 10, abs=1e-9)          # on time again


def test_a_stall_past_max_catch_up_is_dropped_and_counted():
    clock = Clock()
    loop, reports = paced(clock)
    sim = Sim(clock)
    run(loop, sim, 10)
    clock.now += 0.5                     # 0.5 s behind; 0.1 s is caught up
    run(loop, sim, 30)
    assert reports.counters['overrun_steps'] == pytest.approx(400, abs=2)
    stall_end = sim.handed[10][1]
    caught = [t for _, t in sim.handed[10:20]]
    assert caught == pytest.approx([stall_end] * 10, abs=0.003)       # the 0.1 s, at once
    gaps = np.diff([t for _, t in sim.handed[-15:]])
    assert gaps == pytest.approx([PUBLISH_EVERY * DT] * 14, abs=1e-9)


def test_time_held_still_is_not_caught_up_and_a_faster_factor_shortens_the_deadlines():
    clock = Clock()
    loop, reports = paced(clock, real_time_factor=2.0)
    sim = Sim(clock)
    run(loop, sim, 10)
    sim.running = False                  # paused (sync_paused, observers missing)
    run(loop, sim, 50)                   # half a second of wall time
    sim.running = True
    run(loop, sim, 10)
    gaps = np.diff([t for _, t in sim.handed])
    assert gaps[:9] == pytest.approx([PUBLISH_EVERY * DT / 2.0] * 9, abs=1e-9)
    assert gaps[-9:] == pytest.approx([PUBLISH_EVERY * DT / 2.0] * 9, abs=1e-9)
    assert reports.counters['overrun_steps'] == 0 and len(sim.handed) == 20
