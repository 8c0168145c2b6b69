"""The compiled walk between publishing instants takes the Python loop's steps, to the bit."""

import math

import numpy as np
import pytest
from rally_sim.control.interface import Ackermann
from rally_sim.physics import Vehicle
from rally_sim.resources import config_file, surface_from
from rally_sim.sensors import load_profile
from rally_sim.sim import Session, Start, walk
from rally_sim.sim.session import DEFAULT_SETTINGS
from rally_sim.world.occupancy import load_map
from rally_sim.world.stages import read_path
from support.vehicles import vehicle

SPEED_MODE = dict(DEFAULT_SETTINGS, command_mode='speed')


def track_session(contact: str, publish_rate_hz: float) -> Session:
    """Return the F1TENTH car on the track stage at the start of its path, in speed mode."""
    path = read_path(config_file('stages/track_path.csv'))
    (x, y), (x1, y1) = path[0][:2], path[1][:2]
    return Session(Vehicle(vehicle('f1tenth'), surface_from('track')), load_profile('ideal'), 0,
                   publish_rate_hz=publish_rate_hz, settings=dict(SPEED_MODE),
                   start=Start(x, y, math.atan2(y1 - y, x1 - x), 1.0),
                   occupancy=load_map(config_file('stages/track_map.yaml')), contact=contact)


def speed_state(speed) -> bytes:
    """Return the speed controller's integral, reference and feedforward as bytes (NaN too)."""
    return np.array([speed.integral_m, speed.reference_m_s, speed.feedforward_m_s2]).tobytes()


def snapshot(s: Session) -> tuple:
    """Return everything the steps leave behind, as bytes where it is floats."""
    car = s.cars[0]
    v = car.vehicle
    return (s.sim_steps, v.state.tobytes(), v.command.tobytes(), v.outputs.tobytes(),
            v.time_s, v.step_count, speed_state(car.intake.speed), car.intake.timed_out,
            s.contacts.safe_until, [(c.time_ns, c.other, c.x, c.y) for c in s.contacts.events],
            car.halted is not None, dict(s.reports.counters))


def drive(walked: bool, contact: str = 'stop', publish_rate_hz: float = 40.0, periods: int = 300,
          silent=range(0), steps=None, seed: int = 5):
    """
    Drive a session with seeded random commands, one a publishing period; return its snapshots.

    silent: the periods with no command (the watchdog); steps: take this many
    steps a call (lockstep's step service) in place of one state a call.
    """
    s = track_session(contact, publish_rate_hz)
    if not walked:
        s.walker = None
    rng = np.random.default_rng(seed)
    kept = []
    for p in range(periods):
        steer, speed = rng.uniform(-0.6, 0.6), rng.uniform(-1.0, 7.0)   # steer past its limit
        if p not in silent:
            s.take(Ackermann(steering_angle=steer, speed=speed))
        if steps is None:
            s.advance(100_000, until_state=True)
        else:
            s.advance(steps)
        kept.append(snapshot(s))
    return kept


@pytest.mark.parametrize('case', [
    {}, {'contact': 'bounce'}, {'publish_rate_hz': 100.0},
    {'silent': range(40, 80)}, {'steps': 7}, {'contact': 'off', 'seed': 11}],
    ids=['stop', 'bounce', 'control-aligned', 'watchdog', 'steps-7', 'no-contact'])
def test_the_walk_takes_the_python_loops_steps_to_the_bit(case, monkeypatch):
    calls = []
    real = walk.pk.walk
    monkeypatch.setattr(walk.pk, 'walk', lambda *a: calls.append(a[0]) or real(*a))
    walked = drive(True, **case)
    assert len(calls) > 50, 'the walk was not taken'
    python = drive(False, **case)
    first = next((p for p, (a, b) in enumerate(zip(walked, python)) if a != b), None)
    assert first is None, f'period {first}: {walked[first]} != {python[first]}'


def test_the_cases_reach_what_they_are_to_check():
    stopped = drive(False)
    assert stopped[-1][10] and stopped[-1][11].get('clamped', 0) > 0   # halted; steer clamped
    assert drive(False, contact='bounce')[-1][9], 'no bounce'
    assert any(snap[7] for snap in drive(False, silent=range(40, 80))), 'no watchdog'


def test_the_walk_is_not_taken_where_it_would_not_be_the_python_loop():
    s = track_session('stop', 40.0)
    assert s.walker.usable()
    s.cars[0].settings['command_mode'] = 'torque'
    assert not s.walker.usable()
    s.cars[0].settings['command_mode'] = 'speed'
    s.cars[0].intake.timed_out = True
    assert not s.walker.usable()
    noisy = Session(Vehicle(vehicle('f1tenth'), surface_from('track')), load_profile('typical'),
                    0, settings=dict(SPEED_MODE))
    assert noisy.cars[0].sensors.channels and not noisy.walker.usable()
