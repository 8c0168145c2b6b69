"""A scenario starts at any pose and speed, or in its drift on its equilibrium (issue 59)."""

import math

import pytest
from rally_sim.control.path import ClosedPath
from rally_sim.scenarios.spec import (
    car_starts, check_scenario, drift_target, load_scenario, reference_path_file, ScenarioError,
    start_velocities)
from rally_sim.world.stages import read_path


@pytest.mark.parametrize('state, words', [
    ({'x_m': 1.0, 'y_m': 2.0}, 'gives x_m, y_m: a pose is x_m, y_m and yaw_rad, all three'),
    ({'roll_rad': 0.1}, "unknown key(s) ['roll_rad']"),
    ({'yaw_rate_rad_s': 20.0}, "'initial_state.yaw_rate_rad_s' = 20.0 must be a number in "
                               '[-10, 10]'),
    ({'equilibrium': 'yes'}, "'initial_state.equilibrium' = 'yes' must be true or false"),
    ({'equilibrium': True, 'lateral_speed_m_s': -2.0}, 'and no lateral_speed_m_s'),
])
def test_a_bad_initial_state_is_refused_naming_its_key(state, words):
    spec = load_scenario('drift_skid_pad')
    raw = {k: v for k, v in spec.items() if k not in ('file', 'seed_in_use')}
    raw.update(initial_state=state, initial_speed_m_s=0.0)
    with pytest.raises(ScenarioError) as error:
        check_scenario(raw, 'mine.yaml')
    assert words in str(error.value)


def test_a_start_in_the_drift_or_at_a_pose_gives_the_car_its_state():
    spec = load_scenario('drift_skid_pad')
    path = ClosedPath(read_path(reference_path_file(spec)))
    heading = car_starts(spec, path)[0][2]
    raw = {k: v for k, v in spec.items() if k != 'file'}
    on = check_scenario(dict(raw, initial_speed_m_s=0.0, initial_state={'equilibrium': True}),
                        'mine.yaml')
    e = drift_target(on)
    vx, vy, r = start_velocities(on)
    assert math.hypot(vx, vy) == pytest.approx(e.speed_m_s)
    assert math.atan2(vy, vx) == pytest.approx(e.sideslip_rad) and r == e.yaw_rate_rad_s
    assert car_starts(on, path)[0][2] == pytest.approx(heading - e.sideslip_rad)
    placed = check_scenario(dict(raw, initial_state={
        'x_m': 3.0, 'y_m': -4.0, 'yaw_rad': 0.5, 'lateral_speed_m_s': -1.5,
        'yaw_rate_rad_s': 0.3}), 'mine.yaml')
    assert car_starts(placed, path)[0] == (3.0, -4.0, 0.5)
    assert start_velocities(placed) == (8.0, -1.5, 0.3)
