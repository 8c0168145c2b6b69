"""How a stage looks (ROS-free): patches cover the map exactly, colours, corners, relief."""

import numpy as np
import pytest
from rally_sim.physics.surfaces import Surface, SURFACE_GRIP
from rally_sim.resources import config_file
from rally_sim.world.stage_view import (
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


def drawn(surface, size=(6, 6)):
    """Draw a surface alone on an axes; return the figure's pixels and the axes."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from rally_sim.world.stage_view import draw_stage
    fig, ax = plt.subplots(figsize=size, dpi=100)
    draw_stage(ax, surface)
    ax.set_aspect('equal')
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
    return fig, ax, pixels


def test_the_plots_draw_the_stage_in_its_colours_at_its_place():
    surface = Surface.load(config_file('stages/rally_stage.yaml'))
    fig, ax, pixels = drawn(surface)
    height = pixels.shape[0]
    rng = np.random.default_rng(26)
    g = surface.grid
    rows, cols = g.grip.shape
    checked = 0
    for row, col in zip(rng.integers(3, rows - 3, 300), rng.integers(3, cols - 3, 300)):
        block = surface.types[max(row - 2, 0):row + 3, max(col - 2, 0):col + 3]
        if np.any(block != surface.types[row, col]):
            continue        # near a border: a pixel of the plot may show the neighbour
        # (and not at the map's edge, where the axes' frame is drawn)
        x = g.origin_x_m + (col + 0.5) * g.resolution_m
        y = g.origin_y_m + (rows - row - 0.5) * g.resolution_m
        px, py = ax.transData.transform((x, y))
        colour = pixels[int(round(height - py)), int(round(px))]
        name = surface.type_names[surface.types[row, col]]
        assert np.abs(colour.astype(int) - SURFACE_COLOURS[name]).max() <= 2, (name, colour)
        checked += 1
    assert checked > 100


def test_run_png_and_the_scenario_report_differ_with_the_stage_drawn(tmp_path):
    from PIL import Image
    from rally_sim.control.path import ClosedPath
    from rally_sim.physics import load_vehicle
    from rally_sim.physics.trajectory import InputTable, simulate
    from rally_sim.physics.vehicle import Vehicle
    from rally_sim.world.plotting import plot_run
    from rally_sim.resources import vehicle_path
    from rally_sim.scenarios.runner import plot_report
    from rally_sim.world.stages import read_path
    points = read_path(config_file('stages/rally_stage_path.csv'))
    n = 50
    track = points[:n]
    stage = Surface.load(config_file('stages/rally_stage.yaml'))
    config = load_vehicle(vehicle_path('volvo_v40'))
    car = Vehicle(config, stage)
    car.reset(x=float(track[0, 0]), y=float(track[0, 1]), vx=10.0)
    trajectory = simulate(car, InputTable(np.arange(n) * 0.1, np.zeros(n), np.zeros((n, 4)),
                                          np.zeros((n, 4)), np.zeros(n)))
    images = {}
    for name, surface in (('with', stage), ('without', None)):
        plot_run(trajectory, config, str(tmp_path / f'run_{name}.png'), surface=surface)
        images[name] = np.asarray(Image.open(tmp_path / f'run_{name}.png'))
    series = {'x': track[:, 0], 'y': track[:, 1], 'max_slip_angle_rad': np.zeros(n),
              't': np.arange(n) * 0.1, 'speed_m_s': np.ones(n), 'curves': {'a': np.zeros(n)}}
    for name, stage_name in (('with', 'rally_stage'), ('without', 'gravel')):
        spec = {'name': 'x', 'vehicle': 'volvo_v40', 'stage': stage_name, 'metrics': 'path'}
        plot_report(spec, {'path': ClosedPath(points)}, series,
                    str(tmp_path / f'report_{name}.png'))
        images[f'report_{name}'] = np.asarray(Image.open(tmp_path / f'report_{name}.png'))
    assert images['report_with'].shape == images['report_without'].shape
    assert np.mean(images['report_with'] != images['report_without']) > 0.05
    assert np.mean(images['with'] != images['without']) > 0.02
