"""The shipped stages: rebuilt exactly from their geometry, and their roads under their paths."""

import filecmp

import numpy as np
import pytest
from rally_sim.physics import Surface, SURFACE_GRIP
from rally_sim.resources import config_file
from rally_sim.world.occupancy import load_map
from rally_sim.world.stages import (
    read_path, ROAD_HALF_WIDTH_M, STAGES, TREE_CLEARANCE_M, TREE_FREE_RADIUS_M, tree_places,
    write_stage)


@pytest.mark.parametrize('name', sorted(STAGES))
def test_shipped_files_match_the_geometry(tmp_path, name):
    write_stage(STAGES[name], str(tmp_path))
    heights = ('_heights.yaml', '_heights.png') if STAGES[name].hills else ()
    obstacles = ('_map.yaml', '_map.png') if STAGES[name].obstacles else ()
    for suffix in ('.yaml', '.png', '_path.csv') + heights + obstacles:
        assert filecmp.cmp(tmp_path / (name + suffix), config_file('stages/' + name + suffix),
                           shallow=False), suffix


def test_rally_stage_surfaces_along_and_beside_the_road():
    surface = Surface.load(config_file('stages/rally_stage.yaml'))
    path = read_path(config_file('stages/rally_stage_path.csv'))
    on_road = surface.grip_at(path[:, 0], path[:, 1])
    grips = {v: k for k, v in SURFACE_GRIP.items()}
    kinds = {grips[g] for g in on_road}
    assert kinds == {'tarmac_dry', 'gravel', 'snow', 'ice'}
    # Beside the road, beyond its half width, is grass.
    direction = np.roll(path, -1, axis=0) - path
    normal = np.column_stack([-direction[:, 1], direction[:, 0]])
    normal /= np.hypot(normal[:, 0], normal[:, 1])[:, None]
    off = path + (ROAD_HALF_WIDTH_M + 1.5) * normal
    assert set(surface.grip_at(off[:, 0], off[:, 1])) == {SURFACE_GRIP['grass']}


def test_bad_path_files_are_refused(tmp_path):
    bad = tmp_path / 'path.csv'
    bad.write_text('x,z\n1,2\n3,4\n')
    with pytest.raises(ValueError, match='columns x and y'):
        read_path(str(bad))


def test_hill_stage_rises_and_falls_along_the_road_within_its_slope():
    surface = Surface.load(config_file('stages/hill_stage.yaml'))
    path = read_path(config_file('stages/hill_stage_path.csv'))
    heights = surface.height_at(path[:, 0], path[:, 1])
    assert heights.max() > 3.0 and heights.min() < 0.5
    steps = np.hypot(*np.diff(path, axis=0).T)
    assert np.max(np.abs(np.diff(heights)) / steps) < 0.2
    flat = Surface.load(config_file('stages/rally_stage.yaml'))
    assert np.all(flat.height_at(path[:, 0], path[:, 1]) == 0.0)


def normals(path):
    direction = np.roll(path, -1, axis=0) - np.roll(path, 1, axis=0)
    normal = np.column_stack([-direction[:, 1], direction[:, 0]])
    return normal / np.hypot(normal[:, 0], normal[:, 1])[:, None]


def test_the_track_is_a_corridor_walled_at_its_road_edges():
    stage = STAGES['track']
    path = read_path(config_file('stages/track_path.csv'))
    length = np.hypot(*np.diff(np.vstack([path, path[:1]]), axis=0).T).sum()
    assert 60.0 <= length <= 100.0
    walls = load_map(config_file('stages/track_map.yaml'))
    assert walls.resolution_m == 0.05
    side = normals(path)
    for offset, blocked in ((0.0, False), (1.1, False), (-1.1, False), (1.25, True),
                            (-1.25, True), (1.4, False), (-1.4, False)):
        points = path + offset * side
        found = {walls.is_blocked(x, y) for x, y in points}
        assert found == {blocked}, offset
    assert stage.half_width_m * 2 == 2.4
    surface = Surface.load(config_file('stages/track.yaml'))
    assert set(surface.grip_at(path[:, 0], path[:, 1])) == {SURFACE_GRIP['tarmac_dry']}


@pytest.mark.parametrize('name', ['rally_stage', 'hill_stage'])
def test_barriers_and_trees_stand_off_the_road_and_clear_of_the_origin(name):
    obstacles = load_map(config_file(f'stages/{name}_map.yaml'))
    path = read_path(config_file(f'stages/{name}_path.csv'))
    side = normals(path)
    for offset in np.linspace(-ROAD_HALF_WIDTH_M - 1.0, ROAD_HALF_WIDTH_M + 1.0, 11):
        points = path + offset * side
        assert not any(obstacles.is_blocked(x, y) for x, y in points), offset
    trees = tree_places(STAGES[name])
    assert len(trees) == STAGES[name].obstacles.trees
    assert np.hypot(trees[:, 0], trees[:, 1]).min() >= TREE_FREE_RADIUS_M
    d = np.hypot(trees[:, None, 0] - path[None, :, 0], trees[:, None, 1] - path[None, :, 1])
    assert d.min() >= ROAD_HALF_WIDTH_M + TREE_CLEARANCE_M
    assert all(obstacles.is_blocked(x, y) for x, y in trees)
    assert obstacles.blocked.sum() > 500        # barriers and trees are there
