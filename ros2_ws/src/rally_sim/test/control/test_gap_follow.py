"""Follow-the-gap on scans made by hand: where it aims, how fast, and when it stops."""

import math

import numpy as np
import pytest
from rally_sim.control import gap_follow, gap_kernels
from rally_sim.control.gap_follow import aim, command, free_ranges, GapSettings
from rally_sim.control.interface import scan_of
from rally_sim.control.laws.gap_follower import GapFollowerLaw

FOV, BEAMS, RANGE_MAX = 4.7, 1081, 30.0
SETTINGS = GapSettings()


def scan_in(walls, beams=BEAMS):
    """Return the scan from the origin, heading +x, of infinite lines: (point, direction) each."""
    angles = -0.5 * FOV + np.arange(beams) * FOV / (beams - 1)
    ranges = np.full(beams, np.inf)
    for (px, py), (dx, dy) in walls:
        for k, a in enumerate(angles):
            c, s = math.cos(a), math.sin(a)
            det = c * -dy + s * dx
            if abs(det) < 1e-12:
                continue
            t = (px * -dy + py * dx) / det        # origin + t (c, s) = p + u d
            if 0.0 < t < ranges[k]:
                ranges[k] = t
    ranges[ranges > RANGE_MAX] = np.inf
    return scan_of(ranges, FOV, 0.06, RANGE_MAX)


def corridor(left_m, right_m):
    return scan_in([((0.0, left_m), (1.0, 0.0)), ((0.0, -right_m), (1.0, 0.0))])


def test_in_a_straight_corridor_it_aims_down_the_middle_at_top_speed():
    steer, speed = command(corridor(1.2, 1.2), SETTINGS)
    assert abs(steer) < 0.02
    assert speed == SETTINGS.speed_max_m_s


def test_near_one_wall_it_steers_away_from_it():
    steer_left, _ = command(corridor(1.8, 0.4), SETTINGS)      # right wall near: steer left
    steer_right, _ = command(corridor(0.4, 1.8), SETTINGS)
    assert steer_left > 0.005 and steer_right < -0.005
    assert steer_left == pytest.approx(-steer_right, abs=0.003)     # to a beam or two


def test_a_bend_to_the_left_turns_it_left_and_slows_it():
    # a corridor that turns left: a wall ahead at 3 m, open to the left beyond x = 1.5
    scan = scan_in([((0.0, -1.2), (1.0, 0.0)), ((3.0, 0.0), (0.0, 1.0))])
    bearing, distance = aim(scan, SETTINGS)
    steer, speed = command(scan, SETTINGS)
    assert bearing > 0.3 and distance > 2.0
    assert steer > 0.1
    assert speed < SETTINGS.speed_max_m_s
    # a wall 3 m ahead: slow enough to stop before it at decel_m_s2
    assert speed <= math.sqrt(2.0 * SETTINGS.decel_m_s2 * 3.0) + 1e-9


def test_it_does_not_aim_past_the_edge_of_a_near_obstacle():
    # a wall 1 m ahead ending 0.1 m left of the centre line, a side wall 0.5 m to the
    # right; open road to the left of the wall's end
    angles = -0.5 * FOV + np.arange(BEAMS) * FOV / (BEAMS - 1)
    edge = math.atan2(0.1, 1.0)
    with np.errstate(divide='ignore'):
        blocked = np.minimum(np.where(np.cos(angles) > 0, 1.0 / np.cos(angles), np.inf),
                             np.where(np.sin(angles) < 0, -0.5 / np.sin(angles), np.inf))
    ranges = np.where(angles > edge, np.inf, blocked)
    bearing, _ = aim(scan_of(ranges, FOV, 0.06, RANGE_MAX), SETTINGS)
    # past the edge by the car's half width at least (the disparity carried over it)
    assert bearing >= math.asin(SETTINGS.half_width_m / math.hypot(1.0, 0.1)) + edge - 0.01


def test_boxed_in_or_too_near_everywhere_it_stops_with_the_wheels_straight():
    boxed = scan_of(np.full(BEAMS, 0.3), FOV, 0.06, RANGE_MAX)
    assert command(boxed, SETTINGS) == (0.0, 0.0)
    too_near = scan_of(np.full(BEAMS, -np.inf), FOV, 0.06, RANGE_MAX)     # REP 117: -inf
    assert (free_ranges(too_near) == 0.0).all()
    assert command(too_near, SETTINGS) == (0.0, 0.0)


def test_no_return_reads_as_the_range_limit_and_nan_too():
    ranges = np.array([np.inf, np.nan, 5.0, -np.inf])
    scan = scan_of(ranges, 1.0, 0.06, RANGE_MAX)
    assert free_ranges(scan).tolist() == [RANGE_MAX, RANGE_MAX, 5.0, 0.0]


def test_the_law_answers_float32_commands_and_refuses_a_bad_parameter():
    law = GapFollowerLaw({'speed_max_m_s': 3.0})
    (ackermann,) = law.answer(0, corridor(1.2, 1.2))
    assert ackermann.speed == 3.0
    assert ackermann.steering_angle == float(np.float32(ackermann.steering_angle))
    with pytest.raises(ValueError, match='speed_max_m_s'):
        GapFollowerLaw({'speed_max_m_s': -1.0})
    with pytest.raises(ValueError, match="'beams' is not a parameter"):
        GapFollowerLaw({'beams': 3})


def test_the_compiled_law_answers_as_the_numpy_one_to_the_bit(monkeypatch):
    # Scans of walls, disparities, gaps of equal length and ties, beams with no
    # return and too near, and each setting that changes the path through the law.
    rng = np.random.default_rng(20261126)
    boxed_in = scan_of(np.full(BEAMS, 0.3), FOV, 0.06, RANGE_MAX)
    scans = [corridor(1.2, 1.2), corridor(1.8, 0.4), boxed_in]
    for _ in range(150):
        beams = int(rng.integers(2, 1200))
        ranges = np.repeat(rng.uniform(0.0, 12.0, size=int(rng.integers(1, 40))),
                           int(rng.integers(1, 60)))[:beams]
        ranges = np.resize(ranges, beams) + rng.normal(0.0, 0.02, size=beams)
        holes = rng.random(beams)
        ranges[holes < 0.05], ranges[holes > 0.97] = np.inf, -np.inf
        ranges[(holes > 0.5) & (holes < 0.52)] = np.nan
        scans.append(scan_of(ranges, float(rng.uniform(0.5, 6.0)), 0.06, RANGE_MAX))
    settings = [SETTINGS, GapSettings(smoothing_beams=1), GapSettings(smoothing_beams=8),
                GapSettings(view_rad=1.0, gap_m=0.0), GapSettings(view_rad=0.001),
                GapSettings(bubble_radius_m=5.0, half_width_m=0.01)]
    for k, scan in enumerate(scans):
        for setting in settings[k % 2::2] if k > 2 else settings:
            compiled = command(scan, setting)
            monkeypatch.setattr(gap_follow, 'COMPILED', False)
            by_numpy = command(scan, setting)
            monkeypatch.setattr(gap_follow, 'COMPILED', True)
            assert compiled == by_numpy, (k, setting)
            free = gap_kernels.free_ranges(np.asarray(scan.ranges), scan.range_max_m)
            assert free.tolist() == free_ranges(scan).tolist()
            angles = gap_follow.beam_angles(scan)
            increment = abs(scan.angle_increment_rad)
            assert gap_kernels.aim(free, angles, increment, setting.view_rad,
                                   setting.smoothing_beams, setting.half_width_m,
                                   setting.bubble_radius_m, setting.gap_m) == \
                gap_follow._aim(free, angles, increment, setting), (k, setting)
