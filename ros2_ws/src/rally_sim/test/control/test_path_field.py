"""PathField: the grid's answers agree with ClosedPath.locate; points ahead lie on the path."""

import numpy as np

from rally_sim.control.path import ClosedPath
from rally_sim.control.path_field import PathField
from rally_sim.resources import config_file
from rally_sim.world.stages import read_path


def test_lookup_agrees_with_locate_near_the_road():
    path = ClosedPath(read_path(config_file('stages/rally_stage_path.csv')))
    field = PathField(path)
    rng = np.random.default_rng(0)
    s = rng.uniform(0.0, path.length_m, 500)
    base = field.points_ahead(s, [0.0, 0.1])
    along = base[:, 1] - base[:, 0]
    normal = np.column_stack([-along[:, 1], along[:, 0]]) / np.hypot(*along.T)[:, None]
    points = base[:, 0] + normal * rng.uniform(-5.0, 5.0, (500, 1))
    answers = field.lookup(points[:, 0], points[:, 1])
    for k, (x, y) in enumerate(points):
        exact = path.locate(x, y)
        assert abs(answers.cross_track_m[k] - exact.cross_track_m) < 0.02
        assert abs(path.progress_step(exact.progress_m, answers.progress_m[k])) < 0.1
        heading = (answers.heading_rad[k] - exact.heading_rad + np.pi) % (2 * np.pi) - np.pi
        assert abs(heading) < 0.05


def test_progress_interpolates_across_the_lap_end():
    square = ClosedPath(np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]))
    field = PathField(square, resolution_m=0.5, margin_m=2.0)
    answers = field.lookup(np.array([0.1, 5.0, 0.2, -0.3]), np.array([-0.3, -0.3, 9.0, 0.2]))
    np.testing.assert_allclose(answers.progress_m, [0.1, 5.0, 31.0, 39.8], atol=1e-9)
    np.testing.assert_allclose(answers.cross_track_m[:3], [-0.3, -0.3, 0.2], atol=1e-9)


def test_points_ahead_wrap_the_lap():
    square = ClosedPath(np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]))
    field = PathField(square, margin_m=1.0)
    ahead = field.points_ahead(np.array([35.0]), [0.0, 5.0, 12.0])
    np.testing.assert_allclose(ahead[0], [[0.0, 5.0], [0.0, 0.0], [7.0, 0.0]], atol=1e-12)


def test_a_position_that_is_not_finite_gets_nan_answers():
    square = ClosedPath(np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]))
    answers = PathField(square, margin_m=1.0).lookup(np.array([np.nan, 5.0, np.inf]),
                                                     np.array([1.0, -0.5, 2.0]))
    for values in answers:
        assert np.isnan(values[0]) and np.isnan(values[2]) and np.isfinite(values[1])
