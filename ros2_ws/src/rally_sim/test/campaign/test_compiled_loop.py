"""
The in-process engine's compiled loop against its Python loop: the same run to the last bit.

Each case runs once with the compiled loop and once with the Python loop
(the session stepped by sim/stepping.py, the law called per state), which
test_inprocess and test_campaign hold to the ROS run. Everything a run
leaves must agree: the states it keeps (the truth at every publishing
instant to its end), the metrics, the contacts, the reports' counters and
the car's final state.
"""

import copy
import math

import numpy as np
import pytest
from rally_sim.campaign import compiled_loop, inprocess
from rally_sim.campaign.controllers import closed_path
from rally_sim.campaign.inprocess import InProcessRun
from rally_sim.control.interface import quaternion, yaw_of
from rally_sim.resources import config_file
from rally_sim.scenarios.metrics import quaternion_yaw
from rally_sim.scenarios.spec import load_scenario


def spec_of(name, params=None, **changes):
    """Return the shipped scenario `name`, checked, with controller params and keys changed."""
    spec = load_scenario(name)
    spec['controller']['params'].update(params or {})
    spec.update(changes)
    spec.setdefault('seed_in_use', 0)
    return spec


def run(spec, compiled: bool, monkeypatch):
    """Return the finished InProcessRun of `spec` and its result, by the loop asked for."""
    usable = compiled_loop._usable if compiled else (lambda run: False)
    with monkeypatch.context() as patch:
        patch.setattr(compiled_loop.CompiledLoop, 'usable', staticmethod(usable))
        states = []     # the states the run keeps up to its end, before the cut to its laps
        real_lap_end = inprocess.lap_end
        patch.setattr(inprocess, 'lap_end',
                      lambda spec, path, s: states.append(s) or real_lap_end(spec, path, s))
        calls = []
        real = compiled_loop.run_periods
        patch.setattr(compiled_loop, 'run_periods', lambda *a: calls.append(1) or real(*a))
        the_run = InProcessRun(copy.deepcopy(spec),
                               closed_path(config_file(f"stages/{spec['stage']}_path.csv")))
        result = the_run.run()
    assert bool(calls) == compiled
    the_run.states = states[0]
    return the_run, result, len(calls)


def assert_same_run(spec, monkeypatch):
    """Run `spec` by both loops; assert they leave the same run; return the result and calls."""
    fast, fast_result, calls = run(spec, True, monkeypatch)
    slow, slow_result, _ = run(spec, False, monkeypatch)
    assert fast_result == slow_result
    assert fast.states.keys() == slow.states.keys()
    for name, values in fast.states.items():
        assert np.array_equal(values, slow.states[name]), name
    assert np.array_equal(fast.vehicle.state, slow.vehicle.state)
    assert fast.vehicle.step_count == slow.vehicle.step_count
    assert fast.vehicle.time_s == slow.vehicle.time_s
    assert fast.session.sim_steps == slow.session.sim_steps
    assert fast.session.reports.counters == slow.session.reports.counters
    fast_speed, slow_speed = fast.session.intake.speed, slow.session.intake.speed
    assert np.array_equal([fast_speed.integral_m, fast_speed.reference_m_s,
                           fast_speed.feedforward_m_s2],
                          [slow_speed.integral_m, slow_speed.reference_m_s,
                           slow_speed.feedforward_m_s2], equal_nan=True)
    return fast_result, fast.session.reports.counters, calls


def test_the_compiled_loop_runs_the_python_loops_run_to_the_bit(monkeypatch):
    """Randomised cars and speeds (seeded), a slope, the kinematic model, clamps, a wall."""
    assert compiled_loop.ENABLED     # the project's venv compiles (RALLY_SIM_NO_JIT: checks)
    rng = np.random.default_rng(35)
    for _ in range(2):
        spec = spec_of('path_follow', {'target_speed_m_s': float(rng.uniform(8.0, 14.0))},
                       friction_scale=float(rng.uniform(0.8, 1.2)),
                       mass_scale=float(rng.uniform(0.9, 1.1)))
        result, _, calls = assert_same_run(spec, monkeypatch)
        assert calls == 1 and result['passed'], result      # the lap in one call
    assert_same_run(spec_of('path_follow_hills', duration_s=15.0), monkeypatch)
    assert_same_run(spec_of('path_follow_kinematic', duration_s=15.0), monkeypatch)
    # the law steers past the car's lock: each clamp counted, as the intake counts them
    _, counters, _ = assert_same_run(spec_of('path_follow', {
        'lookahead_min_m': 0.5, 'lookahead_gain_s': 0.0, 'max_steer_rad': 1.0},
        duration_s=6.0), monkeypatch)
    assert counters['clamped'] > 0
    # too fast for the first bend: the car touches a wall, halts, and the Python loop goes on
    result, _, _ = assert_same_run(spec_of('path_follow', {
        'target_speed_m_s': 40.0, 'lateral_accel_limit_m_s2': 20.0}, duration_s=15.0),
        monkeypatch)
    assert [c['other'] for c in result['contacts']] == ['wall']


def test_the_watchdog_hands_the_run_back_where_it_fires(monkeypatch):
    """Answers 0.6 s apart: the 0.5 s watchdog cuts the drive between them, as in Python."""
    result, _, _ = assert_same_run(spec_of('path_follow', duration_s=6.0,
                                           control_period_s=0.6), monkeypatch)
    assert result['simulated_s'] == 6.0


@pytest.mark.parametrize('name, params, changes', [
    ('path_follow_typical', {}, {}),                        # sensors with errors and delays
    ('path_follow_driver', {}, {}),                         # pedals, a drivetrain
    ('path_follow', {'delay_compensation_s': 0.05}, {}),    # the law predicts
    ('path_follow', {}, {'control_period_s': 0.015}),      # states mid control period
])
def test_runs_the_loop_does_not_do_stay_with_the_python_loop(name, params, changes):
    spec = spec_of(name, params, **changes)
    the_run = InProcessRun(spec, closed_path(config_file(f"stages/{spec['stage']}_path.csv")))
    assert not compiled_loop.CompiledLoop.usable(the_run)


def test_the_truth_yaws_are_transforms3ds_to_the_bit():
    """The metrics' quaternion_yaw and the nodes' quat2euler of euler2quat, 20,000 poses."""
    rng = np.random.default_rng(3)
    for roll, pitch, yaw in rng.uniform(-math.pi, math.pi, (20_000, 3)).tolist():
        roll, pitch = roll / 8.0, pitch / 8.0     # slopes of a stage, and yaw all round
        orientation = quaternion(roll, pitch, yaw)
        assert compiled_loop._orientation_yaws(roll, pitch, yaw) == (
            quaternion_yaw(*orientation), yaw_of(*orientation))
