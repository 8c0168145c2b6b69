"""The planned drift transition of a figure eight: its file, its replay, its feedback."""

import math

import numpy as np
import pytest

from rally_sim.control.drift.lqr import DriftDesign, DriftLqr
from rally_sim.control.drift.transition import (
    crossing_time, load_transition, regain_s, right_circle_state, Rollout, Tracking,
    TransitionDesign)
from rally_sim.physics.body.layout import PITCH, ROLL, WHEEL_Z
from rally_sim.physics.model import OMEGA, VX, VY, X, Y, YAW, YAW_RATE
from rally_sim.resources import config_file
from support.vehicles import vehicle

SHIPPED = config_file('transitions/rwd_gravel_gravel_15m.yaml')


@pytest.fixture(scope='module')
def planned():
    """Return the shipped transition and the left circle's law it was planned for."""
    transition = load_transition(SHIPPED)
    d = transition.design
    design = DriftDesign(radius_m=d['radius_m'], sideslip_rad=math.radians(d['sideslip_deg']),
                         mode=d['mode'], gear=d['gear'])
    return transition, DriftLqr(vehicle(d['vehicle']), d['surface'], design)


def test_the_right_circle_state_is_the_left_equilibrium_mirrored_before_the_crossing(planned):
    _, left = planned
    e = left.target
    z = right_circle_state(e.state, 15.0, 0.0)         # at the crossing: origin, heading +y
    assert (z[X], z[Y]) == pytest.approx((0.0, 0.0), abs=1e-12)
    assert z[YAW] + math.atan2(z[VY], z[VX]) == pytest.approx(math.pi / 2.0)   # course +y
    assert (z[VX], z[VY], z[YAW_RATE]) == pytest.approx(
        (e.state[VX], -e.state[VY], -e.state[YAW_RATE]))
    assert z[OMEGA:OMEGA + 4] == pytest.approx(e.state[[OMEGA + 1, OMEGA, OMEGA + 3,
                                                        OMEGA + 2]])
    back = right_circle_state(e.state, 15.0, 0.25 * math.pi * 15.0)    # an eighth round
    assert math.hypot(back[X] - 15.0, back[Y]) == pytest.approx(15.0)
    assert back[Y] < 0.0 and back[X] > 0.0


def test_the_shipped_plan_replays_to_what_its_file_says_it_did(planned):
    transition, left = planned
    assert transition.design == {'vehicle': 'rwd_gravel', 'surface': 'gravel',
                                 'radius_m': 15.0, 'sideslip_deg': -20.0, 'mode': 'driver',
                                 'gear': 2}
    rollout = Rollout(left, transition.lead_s, after_s=2.0)
    rows, _ = rollout.run(transition.knot_times_s, transition.steer_rad,
                          transition.rear_wheel_speed_rad_s)
    m = transition.measured
    # numba compiles for the host's processor (fused multiply-adds where it has them),
    # so a replay on another processor agrees with the planning machine's to rounding
    assert float(np.max(np.abs(rows[:, 7]))) == pytest.approx(m['lateral_max_m'], rel=1e-9)
    assert regain_s(rows, left.target.sideslip_rad) == m['regain_s']
    assert crossing_time(rows) == m['crossing_s']
    # the targets, and the left drift reached: within 1 m, 15 deg within 2 s
    assert m['lateral_max_m'] < 0.2 and m['regain_s'] < 1.5
    beta = np.degrees(np.arctan2(rows[-1, 5], rows[-1, 4]))
    assert beta == pytest.approx(-20.0, abs=1.0)


def test_the_plan_for_the_car_on_springs_replays_with_its_body_mirrored_at_the_start():
    transition = load_transition(config_file(
        'transitions/rwd_gravel_suspension_gravel_15m.yaml'))
    d = transition.design
    assert d['vehicle'] == 'rwd_gravel_suspension'
    left = DriftLqr(vehicle(d['vehicle']), d['surface'], DriftDesign(
        radius_m=d['radius_m'], sideslip_rad=math.radians(d['sideslip_deg']), mode=d['mode'],
        gear=d['gear']))
    e = left.target
    z = right_circle_state(e.state, 15.0, 0.0)      # the right circle: the body leans left
    assert z[ROLL] == -e.roll_rad < 0.0 and z[PITCH] == e.pitch_rad
    assert z[WHEEL_Z:WHEEL_Z + 4] == pytest.approx(e.state[[WHEEL_Z + 1, WHEEL_Z,
                                                           WHEEL_Z + 3, WHEEL_Z + 2]])
    rollout = Rollout(left, transition.lead_s, after_s=2.0)
    rows, states = rollout.run(transition.knot_times_s, transition.steer_rad,
                               transition.rear_wheel_speed_rad_s, keep=True)
    m = transition.measured
    assert float(np.max(np.abs(rows[:, 7]))) == pytest.approx(m['lateral_max_m'], rel=1e-9)
    assert regain_s(rows, left.target.sideslip_rad) == m['regain_s']
    assert m['lateral_max_m'] < 0.2 and m['regain_s'] < 1.5
    rolls = np.array([s[ROLL] for s in states])
    assert rolls[0] < -0.01 and rolls[-1] > 0.01        # the body swung across with the slide


def test_the_feedback_is_nothing_on_the_plan_and_answers_a_deviation(planned):
    transition, left = planned
    tracking = Tracking(left, transition)
    for k in (0, 40, 90, 149):
        on_plan = tracking.inputs_at(k * tracking.period, tracking.reference[k])
        assert on_plan == pytest.approx(transition.inputs(k * tracking.period), abs=1e-12)
    # outside the right circle (to the left of the car heading +y, x smaller) before the
    # crossing: steer back towards it, to the right
    moved = tracking.reference[20].copy()
    moved[0] -= 0.2
    assert tracking.inputs_at(20 * tracking.period, moved)[0] < transition.inputs(
        20 * tracking.period)[0]


def test_the_optimiser_lowers_the_cost_from_its_start(planned):
    _, left = planned
    design = TransitionDesign(left, knots=7)
    start = design.start()
    f, _, _ = design.evaluate(start)
    assert np.all(np.isfinite(f))
    _, cost = design.solve(iterations=2)
    assert cost < 0.5 * float(f @ f)


@pytest.mark.parametrize('change, message', [
    ({'lead_s': 9.0}, "'lead_s' must be a number of seconds in"),
    ({'lead_s': 'soon'}, "'lead_s' must be a number"),
    ({'steer_rad': [0.1, 'left']}, "'steer_rad' must be a list of finite numbers"),
    ({'rear_wheel_speed_rad_s': [1.0, float('nan')]},
     "'rear_wheel_speed_rad_s' must be a list of finite numbers"),
    ({'knot_times_s': [0.0, 2.0, 1.0]}, "'knot_times_s' must rise from 0"),
    ({'design': {'vehicle': 'rwd_gravel'}}, "'design' must hold vehicle, surface"),
])
def test_a_malformed_transition_file_names_the_field(tmp_path, change, message):
    import yaml
    tree = {'design': {'vehicle': 'rwd_gravel', 'surface': 'gravel', 'radius_m': 15.0,
                       'sideslip_deg': -20.0, 'mode': 'driver', 'gear': 2},
            'lead_s': 1.0, 'knot_times_s': [0.0, 3.0], 'steer_rad': [0.1, -0.1],
            'rear_wheel_speed_rad_s': [30.0, 35.0]}
    path = tmp_path / 'transition.yaml'
    path.write_text(yaml.safe_dump(tree))
    assert load_transition(str(path)).window_s == 3.0
    tree.update(change)
    path.write_text(yaml.safe_dump(tree))
    with pytest.raises(ValueError, match=message):
        load_transition(str(path))
    with pytest.raises(ValueError, match='transition file .*missing.yaml'):
        load_transition(str(tmp_path / 'missing.yaml'))
