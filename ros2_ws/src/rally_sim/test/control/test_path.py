"""Closed reference paths and pure pursuit, against geometry worked by hand."""

import math

import numpy as np
import pytest
from rally_sim.control.path import ClosedPath
from rally_sim.control.pure_pursuit import PurePursuit, PurePursuitSettings

SQUARE = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])


def circle(radius, n=720):
    theta = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    return np.column_stack([radius * np.cos(theta), radius * np.sin(theta)])


def test_locate_on_a_square():
    path = ClosedPath(SQUARE)
    assert path.length_m == 40.0
    here = path.locate(4.0, 1.5)          # left of the first side (going +x)
    assert (here.index, here.progress_m, here.cross_track_m) == (0, 4.0, 1.5)
    assert here.heading_rad == 0.0
    here = path.locate(11.0, 5.0)         # right of the second side (going +y)
    assert (here.index, here.progress_m, here.cross_track_m) == (1, 15.0, -1.0)
    assert path.point_at(45.0) == pytest.approx([5.0, 0.0])      # wraps around the lap
    assert path.progress_step(39.0, 1.0) == 2.0                  # across the lap's end
    assert path.progress_step(1.0, 39.0) == -2.0


def figure_eight(radius):
    """Return the figure_eight stage's shape: the right circle clockwise, then the left."""
    theta = np.linspace(0.0, 2.0 * math.pi, 360, endpoint=False)
    return np.vstack([np.column_stack([radius - radius * np.cos(theta), radius * np.sin(theta)]),
                      np.column_stack([radius * np.cos(theta) - radius, radius * np.sin(theta)])])


def test_a_figure_eight_is_tracked_along_the_branch_driven_and_its_turn_flips_are_found():
    path = ClosedPath(figure_eight(15.0))
    quarter = math.pi * 15.0 / 2.0
    assert path.turn_flips() == [(pytest.approx(0.0, abs=0.3), -1),
                                 (pytest.approx(2.0 * math.pi * 15.0, abs=0.3), 1)]
    # twice round both circles 0.4 m outside them: at the crossing the nearest point
    # is on the other branch (0.4 m inside it), the tracked one on this
    theta = np.linspace(0.0, 2.0 * math.pi, 400, endpoint=False)
    right = np.column_stack([15.0 - 15.4 * np.cos(theta), 15.4 * np.sin(theta)])
    left = np.column_stack([15.4 * np.cos(theta) - 15.0, 15.4 * np.sin(theta)])
    xs, ys = np.vstack([right, left, right, left]).T
    progress, cross = path.track(xs, ys, start_m=0.0)
    assert np.all(np.diff(progress) > 0.0) and progress[-1] > 2.0 * path.length_m - 1.0
    outside = np.concatenate([np.full(400, 1.0), np.full(400, -1.0)] * 2)   # left of CW
    assert cross == pytest.approx(0.4 * outside, abs=2e-3)
    nearest = path.locate_many(xs, ys)[1]
    assert min(map(abs, nearest)) < 0.1        # what snapping to the nearest would say
    assert progress[100] == pytest.approx(quarter, abs=0.3)          # a quarter round


def test_curvature_of_a_circle():
    path = ClosedPath(circle(20.0))
    assert path.curvature == pytest.approx(np.full(720, 1.0 / 20.0), rel=1e-4)
    assert path.max_curvature(0.0, 10.0) == pytest.approx(0.05, rel=1e-4)


def test_bad_paths_are_refused():
    with pytest.raises(ValueError, match='three'):
        ClosedPath(SQUARE[:2])
    with pytest.raises(ValueError, match='repeat'):
        ClosedPath(np.vstack([SQUARE, SQUARE[-1:]]))


def test_pure_pursuit_on_a_circle_steers_the_kinematic_angle():
    # On a circle of radius R with the rear axle on it, the pure pursuit arc
    # is the circle itself: delta = atan(L / R) (for a look-ahead chord).
    radius, settings = 25.0, PurePursuitSettings(lookahead_min_m=5.0, lookahead_gain_s=0.0)
    follower = PurePursuit(ClosedPath(circle(radius)), settings)
    # CG placed so that the rear axle is on the circle at angle 0, heading +y.
    x, y, yaw = radius, settings.cg_to_rear_m, math.pi / 2.0
    steer, _ = follower.command(x, y, yaw, 10.0)
    assert steer == pytest.approx(math.atan(settings.wheelbase_m / radius), rel=1e-3)


def test_speed_limit_from_curvature():
    settings = PurePursuitSettings(target_speed_m_s=30.0, lateral_accel_limit_m_s2=4.0)
    follower = PurePursuit(ClosedPath(circle(25.0)), settings)
    _, speed = follower.command(25.0, 1.5, math.pi / 2.0, 10.0)
    assert speed == pytest.approx(math.sqrt(4.0 * 25.0), rel=1e-3)       # 10 m/s


def test_compiled_kernels_and_point_at_answer_as_numpy_to_the_last_bit():
    # Where nothing compiles (RALLY_SIM_NO_JIT) the path keeps to NumPy: both
    # must give the same bits, and the same as the ROS run's controller.
    from rally_sim.control import path_kernels
    from rally_sim.resources import config_file
    from rally_sim.world.stages import read_path
    points = read_path(config_file('stages/rally_stage_path.csv'))
    compiled = ClosedPath(points)
    assert compiled._kernels is not None
    plain = ClosedPath(points)
    plain._kernels = None
    rng = np.random.default_rng(25)
    low, high = points.min(axis=0) - 30.0, points.max(axis=0) + 30.0
    for x, y in rng.uniform(low, high, size=(3000, 2)):
        assert compiled.locate(x, y) == plain.locate(x, y)
    for progress, distance in zip(rng.uniform(-2.0 * plain.length_m, 3.0 * plain.length_m, 3000),
                                  rng.uniform(0.0, 100.0, 3000)):
        assert compiled.max_curvature(progress, distance) == plain.max_curvature(progress,
                                                                                 distance)
    # on the path's own points and segment ends: the ties and clamps
    for x, y in np.vstack([points, (points + compiled.ends) / 2.0]):
        assert compiled.locate(x, y) == plain.locate(x, y)
    # every position in one call, as the metrics locate the states
    xs, ys = np.vstack([rng.uniform(low, high, size=(3000, 2)), points,
                        (points + compiled.ends) / 2.0]).T
    one_by_one = [plain.locate(x, y) for x, y in zip(xs, ys)]
    assert compiled.locate_many(xs, ys) == plain.locate_many(xs, ys) == (
        [p.progress_m for p in one_by_one], [p.cross_track_m for p in one_by_one],
        [p.heading_rad for p in one_by_one])
    for progress in rng.uniform(-plain.length_m, 2.0 * plain.length_m, 3000):
        s = progress % plain.length_m       # point_at in floats: NumPy's answer, bit for bit
        i = int(np.searchsorted(plain.start_m, s, side='right') - 1)
        assert plain.point_at(progress) == tuple(
            (plain.points[i] + plain.directions[i] * (s - plain.start_m[i])).tolist())
    assert compiled.max_curvature(compiled.start_m[5], 0.0) == plain.max_curvature(
        plain.start_m[5], 0.0)
    assert compiled._kernels is path_kernels
    # pure pursuit's geometry in one compiled call: the Python path's bits
    fast, slow = PurePursuit(compiled), PurePursuit(plain)
    for x, y, yaw, speed in zip(*rng.uniform(low, high, size=(3000, 2)).T,
                                rng.uniform(-10.0, 10.0, 3000), rng.uniform(-5.0, 30.0, 3000)):
        assert path_kernels.pursuit(
            compiled.table, compiled.length_m, x, y, yaw, speed, 1.497, 4.0, 0.6) == (
            slow._geometry(x, y, yaw, speed))
        assert fast.command(x, y, yaw, speed) == slow.command(x, y, yaw, speed)


def test_the_compiled_hypot_is_pythons_to_the_last_bit():
    """Pure pursuit's distance, compiled: math.hypot's bits (numba's own differs at times)."""
    from rally_sim.control.path_kernels import hypot
    from rally_sim.physics.jit import numba
    rng = np.random.default_rng(7)
    pairs = np.concatenate([rng.normal(size=(200_000, 2)) * scale for scale in (
        [10.0, 10.0], [1.0, 1e-3], [1e-3, 1.0], [1e5, 3.0], [1e-8, 1e-8], [1e150, 1e150],
        [1e-160, 1e-160])] + [np.array([[0.0, 0.0], [-0.0, 3.0], [5e-324, 0.0], [3.0, -4.0],
                                        [1.7e308, 1.7e308], [math.inf, math.nan]])])
    many = numba.njit(lambda xs, ys: [hypot(x, y) for x, y in zip(xs, ys)]) if numba else (
        lambda xs, ys: [hypot(x, y) for x, y in zip(xs, ys)])
    ours = many(pairs[:, 0], pairs[:, 1])
    pythons = [math.hypot(x, y) for x, y in pairs.tolist()]
    assert [repr(v) for v in ours] == [repr(v) for v in pythons]


def test_the_nearest_segment_is_found_in_the_blocks_as_by_every_segment():
    """nearest_in looks into the blocks that can hold the nearest: nearest()'s answer, bits too."""
    from rally_sim.control import path_kernels
    from rally_sim.resources import config_file
    from rally_sim.world.stages import read_path
    rng = np.random.default_rng(11)
    for name in ('rally_stage', 'track'):
        path = ClosedPath(read_path(config_file(f'stages/{name}_path.csv')))
        low, high = path.points.min(axis=0) - 50.0, path.points.max(axis=0) + 50.0
        points = np.vstack([rng.uniform(low, high, size=(20_000, 2)), path.points,
                            (path.points + path.ends) / 2.0, [[1e6, -1e6], [math.nan, 0.0]]])
        columns = [path.table[row] for row in (path_kernels.PX, path_kernels.PY,
                                               path_kernels.DX, path_kernels.DY,
                                               path_kernels.LENGTH)]
        for x, y in points.tolist():
            assert repr(path_kernels.nearest_in(path.table, x, y)) == repr(
                path_kernels.nearest(*columns, x, y))
