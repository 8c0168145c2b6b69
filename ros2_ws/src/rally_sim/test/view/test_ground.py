"""The ground picture: each surface in its colour, relief lit from the north-west, walls."""

import io
import math

import numpy as np
from PIL import Image
import pytest
from rally_sim.resources import surface_from
from rally_sim.view.ground import build, DUST, shade, WALL_RGB, Walls
from rally_sim.view.inprocess import walls_of_map
from rally_sim.world.stage_view import ground_triangles, SURFACE_COLOURS


def square(x0, y0, size, z=(0.0, 0.0, 0.0, 0.0)):
    """Return a square's two triangles (2, 3, 3), corners' heights z (ll, lr, ur, ul)."""
    a = (x0, y0, z[0])
    b = (x0 + size, y0, z[1])
    c = (x0 + size, y0 + size, z[2])
    d = (x0, y0 + size, z[3])
    return np.array([[a, b, c], [a, c, d]], dtype=float)


def picture(ground):
    return np.asarray(Image.open(io.BytesIO(ground.png)).convert('RGB'))


def test_flat_surfaces_in_their_colours_and_the_lookup_of_each():
    ground = build({'gravel': square(0.0, 0.0, 10.0), 'ice': square(10.0, 0.0, 10.0)})
    assert (ground.x0, ground.y0) == (0.0, 0.0) and ground.px_per_m == 10.0
    assert (ground.width_px, ground.height_px) == (200, 100)
    rgb = picture(ground)
    assert tuple(rgb[50, 50]) == SURFACE_COLOURS['gravel']
    assert tuple(rgb[50, 150]) == SURFACE_COLOURS['ice']
    assert ground.surface_at(5.0, 5.0) == 'gravel' and ground.surface_at(15.0, 9.9) == 'ice'
    assert ground.surface_at(25.0, 5.0) is None
    description = ground.description()
    assert description['surfaces'] == ['gravel', 'ice']
    assert description['dust'] == [DUST['gravel'], DUST['ice']]


def test_the_relief_is_lit_from_the_north_west():
    rising_east = square(0.0, 0.0, 10.0, (0.0, 3.0, 3.0, 0.0))   # faces west, toward the light
    rising_west = square(0.0, 0.0, 10.0, (3.0, 0.0, 0.0, 3.0))   # faces east, away from it
    flat = square(0.0, 0.0, 10.0)
    assert shade(flat) == pytest.approx([1.0, 1.0])
    assert np.all(shade(rising_east) > 1.0) and np.all(shade(rising_west) < 1.0)
    slope = math.atan(0.3)                                     # by the formula, term by term
    normal = np.array([-math.sin(slope), 0.0, math.cos(slope)])
    light = np.array([-1.0, 1.0, 1.5]) / math.sqrt(4.25)
    assert shade(rising_east)[0] == pytest.approx(normal @ light / light[2])


def test_walls_over_the_ground_and_free_and_unknown_cells_of_a_map_alone():
    cells = np.zeros((20, 40), dtype=np.int8)                  # row 0 at the origin
    cells[0, :] = 100
    cells[:, 39] = -1
    walls = Walls(cells, 0.5, -5.0, -2.0)
    ground = build({}, walls)
    rgb = picture(ground)
    assert (ground.width_px, ground.height_px) == (200, 100)
    assert tuple(rgb[-1, 50]) == WALL_RGB                      # the bottom row: the origin's
    assert tuple(rgb[50, 50]) == (225, 225, 220)               # free
    assert tuple(rgb[50, -1]) == (160, 160, 160)               # unknown
    assert ground.surface_at(0.0, 0.0) is None


def test_a_shipped_stage_s_ground_covers_its_surfaces_with_relief_and_walls():
    surface = surface_from('hill_stage')
    triangles = ground_triangles(surface)
    ground = build(triangles, walls_of_map(surface))
    assert max(ground.width_px, ground.height_px) <= 2048
    assert set(ground.names) == set(triangles)
    shades = np.concatenate([shade(t) for t in triangles.values()])
    assert shades.min() < 0.97 and shades.max() > 1.03        # the hills show
    x, y = 0.5 * (ground.x0 + ground.x0 + ground.width_px / ground.px_per_m), ground.y0 + 1.0
    assert ground.surface_at(x, y) in triangles
