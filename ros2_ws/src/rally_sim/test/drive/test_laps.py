"""Lap and sector times on a closed path: exact on a circle at any sampling, void after a jump."""

import math

import numpy as np
import pytest
from rally_sim.drive.laps import ghost_pose, LapTimer
from rally_sim.resources import config_file
from rally_sim.world.stages import read_path

RADIUS_M, SPEED_M_S = 30.0, 12.0


def circle(points: int = 720) -> np.ndarray:
    a = np.linspace(0.0, 2.0 * math.pi, points, endpoint=False)
    return np.column_stack([RADIUS_M * np.cos(a), RADIUS_M * np.sin(a)])


def drive(timer: LapTimer, start_s: float, end_s: float, dt: float, start_angle: float = 0.0):
    """Drive round the circle (anticlockwise, the path's direction); return the laps seen."""
    laps = []
    for t in np.arange(start_s, end_s, dt):
        a = start_angle + SPEED_M_S * (t - start_s) / RADIUS_M
        lap = timer.update(float(t), RADIUS_M * math.cos(a), RADIUS_M * math.sin(a),
                           a + math.pi / 2)
        if lap is not None:
            laps.append(lap)
    return laps


@pytest.mark.parametrize('dt', [0.01, 0.0137, 0.05])
def test_laps_on_a_circle_take_its_length_over_the_speed_whatever_the_sampling(dt):
    timer = LapTimer(circle())
    laps = drive(timer, 0.0, 50.0, dt, start_angle=-0.3)     # a flying start before the line
    length = timer.length_m                                  # the polygon's own length
    assert len(laps) == 3
    for lap in laps:
        assert lap == pytest.approx(length / SPEED_M_S, rel=1e-3)
    assert timer.best_s == min(laps)
    assert sum(timer.best_sectors) == pytest.approx(timer.best_s, rel=1e-12)
    assert timer.best_sectors == pytest.approx([timer.best_s / 3] * 3, rel=2e-3)


def test_a_standing_start_on_the_line_is_timed_from_the_first_sample():
    timer = LapTimer(circle())
    laps = drive(timer, 3.0, 3.0 + 1.05 * 2 * math.pi * RADIUS_M / SPEED_M_S, 0.01)
    assert len(laps) == 1 and laps[0] == pytest.approx(timer.length_m / SPEED_M_S, rel=1e-3)
    assert timer.best_line[0, 0] == 0.0 and timer.best_line[-1, 0] >= laps[0]


def test_a_jump_voids_the_lap_and_driving_backwards_counts_none():
    timer = LapTimer(circle())
    drive(timer, 0.0, 8.0, 0.01)                            # 3.2 rad round
    timer.update(8.0, 0.0, -RADIUS_M, 0.0)                  # teleported 1.5 rad on
    assert timer.current_s(8.0) is None
    laps = drive(timer, 8.01, 30.0, 0.01, start_angle=1.5 * math.pi)
    # the line crossed after the jump starts a lap (the voided one counts nothing); the next
    # crossing ends it: one whole lap
    assert laps == [pytest.approx(timer.length_m / SPEED_M_S, rel=1e-3)]
    backwards = LapTimer(circle())
    for t in np.arange(0.0, 40.0, 0.01):
        a = -SPEED_M_S * t / RADIUS_M
        assert backwards.update(t, RADIUS_M * math.cos(a), RADIUS_M * math.sin(a), a) is None


def test_a_stage_s_own_path_times_a_lap_of_its_own_points():
    points = read_path(config_file('stages/rally_stage_path.csv'))
    timer = LapTimer(points)
    closed = np.vstack([points, points[:1], points[1:2]])
    steps = np.hypot(*np.diff(closed, axis=0).T)
    t = np.concatenate([[0.0], np.cumsum(steps)]) / 20.0       # 20 m/s along the points
    laps = [timer.update(float(ti), x, y, 0.0) for ti, (x, y) in zip(t, closed)]
    assert [lap for lap in laps if lap is not None] == [pytest.approx(t[len(points)], rel=1e-9)]


def test_the_ghost_is_interpolated_along_the_best_lap():
    line = np.array([[0.0, 0.0, 0.0, 3.0], [1.0, 10.0, 0.0, -3.0]])
    x, y, yaw = ghost_pose(line, 0.25)
    assert (x, y) == (2.5, 0.0)
    assert yaw == pytest.approx(3.0 + 0.25 * (2 * math.pi - 6.0))     # the short way round
    assert ghost_pose(line, 1.5) is None and ghost_pose(None, 0.5) is None
