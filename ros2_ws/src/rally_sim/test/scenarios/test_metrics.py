"""The figure eight's metrics on trajectories made by hand: lateral error, transitions, regain."""

import math

import numpy as np
import pytest
from rally_sim.control.path import ClosedPath
from rally_sim.resources import config_file
from rally_sim.scenarios.metrics import figure_eight_metrics
from rally_sim.world.stages import read_path

RADIUS, SPEED, PERIOD = 15.0, 9.0, 0.02
HALF = math.pi * RADIUS            # half a circle [m]
SWAP_S = 1.5                       # beta goes from one side's 20 deg to the other's in this


def drive(duration_s, offset_m=0.0, swap_s=SWAP_S):
    """Return states round the figure eight at SPEED, offset_m outside the circles."""
    t = np.arange(0.0, duration_s, PERIOD)
    s = SPEED * t
    lap = 4.0 * HALF
    on_left = (s % lap) >= 2.0 * HALF
    theta = (s % (2.0 * HALF)) / RADIUS
    r = RADIUS + offset_m
    x = np.where(on_left, r * np.cos(theta) - RADIUS, RADIUS - r * np.cos(theta))
    y = r * np.sin(theta)
    since = (s % (2.0 * HALF)) / SPEED              # since the last crossing [s]
    side = np.where(on_left, -1.0, 1.0)             # beta's sign on the circle
    first = s < 2.0 * HALF                          # the first circle: no swap
    share = np.where(first, 1.0, np.clip(since / swap_s, 0.0, 1.0))
    beta = np.radians(20.0) * side * (2.0 * share - 1.0)
    return {'t': t, 'x': x, 'y': y, 'yaw': np.zeros_like(t), 'vx': SPEED * np.cos(beta),
            'vy': SPEED * np.sin(beta), 'yaw_rate': -side * SPEED / RADIUS,
            'max_slip_angle_rad': np.abs(beta)}


def metrics(states, settle_s=0.0):
    path = ClosedPath(read_path(config_file('stages/figure_eight_path.csv')))
    return figure_eight_metrics({'settle_s': settle_s}, {'path': path, 'states': states})


def test_each_crossing_is_a_transition_with_its_regain_time():
    # three crossings after the start (at 10.47, 20.94 and 31.42 s); beta passes 15 deg
    # of the new side 35/40 of the swap in
    m = metrics(drive(33.5))['metrics']
    assert m['transitions'] == 3
    assert m['regain_max_s'] == pytest.approx(SWAP_S * 35.0 / 40.0, abs=PERIOD + 0.01)
    assert m['lateral_error_max_m'] < 0.01 and m['lateral_error_rms_m'] < 0.01
    # one not yet regained, within 2 s of the end: not judged
    assert metrics(drive(32.0))['metrics']['transitions'] == 2


def test_a_drift_never_regained_and_the_offset_from_the_branch_driven_are_measured():
    m = metrics(drive(25.0, offset_m=0.5, swap_s=1e9))['metrics']   # beta stays on the old side
    assert m['transitions'] == 2 and m['regain_max_s'] == math.inf
    # at the crossing the other circle is 0.5 m away on the other side: tracked, not snapped
    assert m['lateral_error_max_m'] == pytest.approx(0.5, abs=0.01)
    assert m['lateral_error_rms_m'] == pytest.approx(0.5, abs=0.01)


def test_world_metrics_clearance_to_the_track_s_walls_and_collisions_up_to_the_end():
    from rally_sim.scenarios.metrics import world_metrics
    path = read_path(config_file('stages/track_path.csv'))
    ahead = path[201] - path[200]
    heading = math.atan2(ahead[1], ahead[0])
    left = np.array([-ahead[1], ahead[0]]) / np.hypot(*ahead)
    spec = {'stage': 'track', 'vehicle': 'f1tenth', 'vehicle_overrides': {}, 'actuation': {}}
    t = np.array([0.0, 0.5, 1.0])

    def states(offsets_m):
        points = path[200] + np.outer(offsets_m, left)
        return {'t': t, 'x': points[:, 0], 'y': points[:, 1], 'yaw': np.full(3, heading)}

    # on the centre line of a straight 2.4 m wide: 1.2 m less half the car's 0.31 m
    centred = world_metrics(spec, states([0.0, 0.0, 0.0]), contacts_ns=[])
    assert centred['collisions'] == 0.0
    assert centred['min_clearance_m'] == pytest.approx(1.2 - 0.155, abs=0.05)     # a cell
    # 0.5 m to the left: 0.5 m less; 1.1 m: in the wall
    assert world_metrics(spec, states([0.0, 0.5, 0.0]), [])['min_clearance_m'] == \
        pytest.approx(1.2 - 0.155 - 0.5, abs=0.05)
    crashed = world_metrics(spec, states([0.0, 0.5, 1.1]),
                            contacts_ns=[900_000_000, 1_500_000_000])
    assert crashed == {'collisions': 1.0, 'min_clearance_m': 0.0}    # the one before the end
    assert world_metrics(dict(spec, stage='skid_pad'), states([0.0] * 3), []) == {}
