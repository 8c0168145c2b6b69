"""How a stage looks (ROS-free): patches cover the map exactly, colours, corners, relief."""

import numpy as np
import pytest
from rally_sim.physics.surfaces import Surface, SURFACE_GRIP
from rally_sim.resources import config_file
from rally_sim.stage_view import (
    cell_corners, extent, ground_triangles, image_rgb, patches, RELIEF_CELLS, SURFACE_COLOURS)


def test_every_surface_type_has_its_own_colour():
    assert set(SURFACE_COLOURS) == set(SURFACE_GRIP)
    assert len(set(SURFACE_COLOURS.values())) == len(SURFACE_COLOURS)


@pytest.mark.parametrize('limit', [None, 3])
def test_patches_cover_every_cell_once_with_its_own_type(limit):
    types = np.random.default_rng(26).integers(0, 3, size=(40, 37))
    types[5:30, 4:33] = 1       # a large block, merged into few patches
    found = patches(types, limit)
    cover = np.zeros(types.shape, dtype=int)
    for kind, top, bottom, left, right in zip(*found):
        cover[top:bottom, left:right] += 1
        assert np.all(types[top:bottom, left:right] == kind)
        if limit:
            assert bottom - top <= limit and right - left <= limit
    assert np.all(cover == 1)
    if limit is None:
        assert len(found.kind) < np.count_nonzero(np.diff(types, axis=1)) + types.shape[0]


def test_the_shipped_stages_become_few_triangles_standing_on_their_ground():
    flat = Surface.load(config_file('stages/rally_stage.yaml'))
    hills = Surface.load(config_file('stages/hill_stage.yaml'))
    flat_triangles = ground_triangles(flat)
    assert sorted(flat_triangles) == sorted(flat.type_names)
    assert sum(len(t) for t in flat_triangles.values()) < 4000        # 250 x 250 cells
    assert all(np.all(t[:, :, 2] == 0.0) for t in flat_triangles.values())
    hill_triangles = np.concatenate(list(ground_triangles(hills).values()))
    corners = hill_triangles.reshape(-1, 3)
    assert corners[:, 2] == pytest.approx(hills.height_at(corners[:, 0], corners[:, 1]))
    sides = np.abs(np.diff(hill_triangles[:, :2, :2], axis=1)).max()
    assert sides <= RELIEF_CELLS * hills.grid.resolution_m + 1e-9
    # counter-clockwise seen from above: the normals point up
    a, b, c = hill_triangles[:, 0], hill_triangles[:, 1], hill_triangles[:, 2]
    assert np.all(np.cross(b - a, c - a)[:, 2] > 0.0)


def test_corners_and_extent_follow_the_maps_origin_and_resolution():
    surface = Surface.load(config_file('stages/skid_pad.yaml'))
    g = surface.grid
    rows, cols = g.grip.shape
    x, y = cell_corners(surface, np.array([rows, 0]), np.array([0, cols]))
    assert x.tolist() == pytest.approx([g.origin_x_m, g.origin_x_m + cols * g.resolution_m])
    assert y.tolist() == pytest.approx([g.origin_y_m, g.origin_y_m + rows * g.resolution_m])
    assert extent(surface) == pytest.approx((x[0], x[1], y[0], y[1]))
    rgb = image_rgb(surface)
    assert rgb.shape == (rows, cols, 3)
    name = surface.type_names[surface.types[0, 0]]
    assert tuple(rgb[0, 0] * 255.0) == pytest.approx(SURFACE_COLOURS[name])
