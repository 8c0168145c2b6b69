"""A spin ends a scenario as failed at its time; no drift metric counts time in one."""

import math

import numpy as np
import pytest
from rally_sim.control.path import ClosedPath
from rally_sim.scenarios.metrics import (
    drift_metrics, spin_at, SPIN_MIN_SPEED_M_S, spun, until_spin)
from rally_sim.scenarios.spec import check_scenario, load_scenario, ScenarioError

PERIOD_S = 0.02


def circling(beta_deg: np.ndarray, speed_m_s: float = 8.0, radius_m: float = 15.0) -> dict:
    """Return states on a circle of radius_m at speed_m_s with sideslips beta_deg, one a period."""
    t = np.arange(len(beta_deg)) * PERIOD_S
    theta = speed_m_s * t / radius_m
    beta = np.radians(beta_deg)
    return {'t': t, 'x': radius_m * np.cos(theta), 'y': radius_m * np.sin(theta),
            'yaw': theta, 'vx': speed_m_s * np.cos(beta), 'vy': speed_m_s * np.sin(beta),
            'yaw_rate': np.full_like(t, speed_m_s / radius_m),
            'max_slip_angle_rad': np.abs(beta)}


def test_past_90_deg_of_sideslip_faster_than_a_roll_is_a_spin():
    assert spun(-1.01 * SPIN_MIN_SPEED_M_S, 0.0)                   # straight backwards
    assert spun(-0.1, 5.0)                                          # 91 deg: sideways past
    assert not spun(0.1, 5.0)                                       # 89 deg: a wild drift
    assert not spun(-0.5, 0.5)                                      # a roll back at 0.7 m/s
    beta = np.concatenate([np.full(50, 30.0), np.linspace(30.0, 170.0, 50), np.full(50, 170.0)])
    states = circling(beta)
    k = spin_at({'stop_on_spin': True}, states)
    assert math.degrees(math.atan2(states['vy'][k], states['vx'][k])) > 90.0
    assert math.degrees(math.atan2(states['vy'][k - 1], states['vx'][k - 1])) <= 90.0
    assert spin_at({'stop_on_spin': False}, states) is None
    assert spin_at({'stop_on_spin': True}, circling(np.full(100, 45.0))) is None


def test_a_run_ends_at_its_spin_and_the_drift_metrics_stop_there():
    beta = np.concatenate([np.full(100, -30.0), np.linspace(-30.0, -150.0, 25),
                           np.full(375, -150.0)])
    states = circling(beta)
    kept, spin = until_spin({'stop_on_spin': True}, states)
    k = spin_at({'stop_on_spin': True}, states)
    assert len(kept['t']) == k + 1 and spin['time_s'] == pytest.approx(states['t'][k])
    assert spin['sideslip_deg'] < -90.0 and spin['speed_m_s'] == pytest.approx(8.0)
    theta = np.linspace(0.0, 2.0 * math.pi, 200, endpoint=False)
    path = ClosedPath(np.column_stack([15.0 * np.cos(theta), 15.0 * np.sin(theta)]))
    spec = {'settle_s': 0.0, 'equilibrium': {}}
    allowed = drift_metrics(spec, {'path': path, 'states': states})['metrics']
    # 100 states at 30 deg and the ramp's up to 90 deg drift; the 150 deg after do not
    drifting = np.sum((np.abs(beta) > 10.0) & (np.abs(beta) <= 90.0)) * PERIOD_S
    assert allowed['time_in_drift_s'] == pytest.approx(drifting, abs=2 * PERIOD_S)
    assert allowed['time_in_drift_s'] < 3.0                         # not the run's 10 s


def test_stop_on_spin_defaults_to_true_but_not_for_a_car_started_in_reverse():
    spec = load_scenario('path_follow')
    assert spec['stop_on_spin'] is True
    raw = dict(spec, initial_speed_m_s=-2.0)
    raw.pop('stop_on_spin')
    assert check_scenario(raw, 'reverse.yaml')['stop_on_spin'] is False
    raw = dict(spec, initial_speed_m_s=-2.0, stop_on_spin=True)
    assert check_scenario(raw, 'reverse.yaml')['stop_on_spin'] is True
    with pytest.raises(ScenarioError, match="key 'stop_on_spin' = 'yes' has the wrong type"):
        check_scenario(dict(spec, stop_on_spin='yes'), 'bad.yaml')


def test_the_in_process_engine_ends_a_run_at_its_spin_as_the_runner_does():
    from rally_sim.campaign.inprocess import run_scenario
    spec = load_scenario('path_follow')
    spec = check_scenario(dict(spec, initial_speed_m_s=-3.0, stop_on_spin=True, duration_s=5.0),
                          'reverse.yaml')
    spec['seed_in_use'] = 0
    report = run_scenario(spec)
    assert report['passed'] is False
    assert report['spin']['time_s'] == 0.0 and report['simulated_s'] == 0.0
    assert report['spin']['sideslip_deg'] == pytest.approx(180.0)
