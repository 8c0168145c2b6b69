"""The jump's metrics on trajectories made by hand: airtime, height, landing load."""

import numpy as np
import pytest
from rally_sim.control.path import ClosedPath
from rally_sim.physics import Surface
from rally_sim.resources import config_file
from rally_sim.scenarios.metrics import jump_metrics
from rally_sim.world.stages import read_path

PERIOD, SPEED = 0.02, 15.0
WEIGHT = 1050.0 * 9.81          # rwd_gravel_suspension


def along_the_straight(flights):
    """Return states and body rows along jump_stage's first straight, in the air as told."""
    t = np.arange(0.0, 6.0, PERIOD)
    x = -60.0 + SPEED * t
    surface = Surface.load(config_file('stages/jump_stage.yaml'))
    ground = surface.height_at(x, np.full_like(x, -30.0))
    z, load = ground.copy(), np.full_like(t, WEIGHT)
    for start, end, height, landing in flights:
        air = (t >= start) & (t < end)
        z[air] += height * np.sin(np.pi * (t[air] - start) / (end - start))
        load[air] = 0.0
        load[np.argmax(t >= end)] = landing * WEIGHT
    states = {'t': t, 'x': x, 'y': np.full_like(t, -30.0), 'yaw': np.zeros_like(t),
              'vx': np.full_like(t, SPEED), 'vy': np.zeros_like(t),
              'yaw_rate': np.zeros_like(t), 'max_slip_angle_rad': np.zeros_like(t)}
    return states, {'z': z, 'load': load}


def metrics(flights):
    states, body = along_the_straight(flights)
    path = ClosedPath(read_path(config_file('stages/jump_stage_path.csv')))
    spec = {'stage': 'jump_stage', 'vehicle': 'rwd_gravel_suspension', 'vehicle_overrides': {},
            'actuation': {}, 'stop_after_laps': 1}
    return jump_metrics(spec, {'path': path, 'states': states, 'body': body})['metrics']


def test_each_flight_counts_its_time_height_and_landing():
    m = metrics([(1.0, 1.5, 0.6, 2.5), (3.0, 3.2, 0.2, 4.0)])
    assert m['flights'] == 2
    assert m['airtime_s'] == pytest.approx(0.7, abs=PERIOD / 2)
    assert m['longest_flight_s'] == pytest.approx(0.5, abs=PERIOD / 2)
    assert m['peak_height_m'] == pytest.approx(0.6, abs=0.01)
    assert m['landing_load_g'] == pytest.approx(4.0)
    assert m['off_road_time_s'] == 0.0 and m['cross_track_max_m'] < 1e-6


def test_a_run_on_the_ground_has_no_flight():
    m = metrics([])
    assert (m['flights'], m['airtime_s'], m['peak_height_m'], m['landing_load_g']) == (
        0.0, 0.0, 0.0, 0.0)
