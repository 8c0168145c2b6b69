"""Figure-eight transitions planned on first use (control/drift/planned.py): cache, words."""

import io
import math

import numpy as np
import pytest

from rally_sim.control.drift import planned
from rally_sim.control.drift.lqr import DriftDesign, DriftLqr
from rally_sim.control.drift.transition import design_keys, Transition
from support.vehicles import vehicle


@pytest.fixture(scope='module')
def law():
    return DriftLqr(vehicle('rwd_gravel'), 'gravel',
                    DriftDesign(radius_m=15.0, sideslip_rad=math.radians(-20.0), gear=2))


def fake_plan(lateral_max_m, regain_s, calls):
    """Return a stand-in for the planner (tens of seconds) that records its calls."""
    def design(vehicle, left):
        calls.append(vehicle)
        return Transition(design_keys(vehicle, left), 0.5, np.array([0.0, 1.0, 2.0]),
                          np.zeros(3), np.full(3, 30.0),
                          {'lateral_max_m': lateral_max_m, 'regain_s': regain_s})
    return design


def test_a_plan_is_made_once_then_read_from_the_cache(law, tmp_path, monkeypatch):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    calls = []
    monkeypatch.setattr(planned, 'design_transition', fake_plan(0.1, 1.2, calls))
    said = io.StringIO()
    first, path = planned.planned_transition('rwd_gravel', law, said)
    assert calls == ['rwd_gravel'] and 'planning the figure eight' in said.getvalue()
    assert path.startswith(str(tmp_path / 'rally_sim' / 'transitions'))
    again, same = planned.planned_transition('rwd_gravel', law, io.StringIO())
    assert calls == ['rwd_gravel'] and same == path           # read back, not planned again
    np.testing.assert_array_equal(again.rear_wheel_speed_rad_s, first.rear_wheel_speed_rad_s)
    assert 'warning' not in said.getvalue()


def test_an_edited_car_is_planned_anew(law):
    edited = DriftLqr(vehicle('rwd_gravel').with_overrides({'mass_kg': 1100.0}), 'gravel',
                      law.design)
    assert planned.cached_name('rwd_gravel', edited) != planned.cached_name('rwd_gravel', law)


def test_a_wide_plan_is_said_and_none_at_all_refused(law, tmp_path, monkeypatch):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    monkeypatch.setattr(planned, 'design_transition', fake_plan(2.04, 0.5, []))
    said = io.StringIO()
    planned.planned_transition('rwd_gravel', law, said)
    assert 'leaves the circles by 2.04 m (more than 1 m)' in said.getvalue()
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'other'))
    monkeypatch.setattr(planned, 'design_transition', fake_plan(0.1, math.inf, []))
    with pytest.raises(ValueError, match='never regains the drift'):
        planned.planned_transition('rwd_gravel', law, io.StringIO())
    assert not list((tmp_path / 'other' / 'rally_sim' / 'transitions').glob('*.yaml'))
