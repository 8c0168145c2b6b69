"""Clearances between footprints and walls: exact for rectangles and map cells."""

import math

import numpy as np
import pytest
from rally_sim.world.contact import corners, quad_clearance, wall_clearance
from rally_sim.world.occupancy import OccupancyMap


def square(x, y, half=0.5, yaw=0.0):
    return corners(np.array([x, y, yaw, half, half]))


def test_quads_apart_touching_and_overlapping():
    assert quad_clearance(square(0, 0), square(2, 0)) == pytest.approx(1.0, abs=1e-12)
    assert quad_clearance(square(0, 0), square(2, 3)) == pytest.approx(math.hypot(1, 2),
                                                                       abs=1e-12)
    assert quad_clearance(square(0, 0), square(1, 0)) == 0.0          # edge to edge
    assert quad_clearance(square(0, 0), square(0.7, 0.2)) == 0.0      # overlapping
    assert quad_clearance(square(0, 0, half=2.0), square(0, 0)) == 0.0     # one in the other
    diamond = square(2.0, 0.0, yaw=math.pi / 4)     # its left corner at 2 - 0.707
    assert quad_clearance(square(0, 0), diamond) == pytest.approx(1.5 - math.sqrt(0.5),
                                                                  abs=1e-12)
    # corners go round counter-clockwise from front left
    c = corners(np.array([1.0, 2.0, math.pi / 2, 2.0, 1.0]))
    assert c[0] == pytest.approx([0.0, 4.0]) and c[2] == pytest.approx([2.0, 0.0])


def test_a_footprint_clears_a_wall_by_the_exact_distance_within_its_reach():
    cells = np.zeros((40, 40), dtype=np.uint8)
    cells[:, 30] = 1                                  # a wall from x = 3.0 to 3.1 m
    meta = np.array([0.1, 0.0, 0.0, 1.0, 0.0])
    car = np.array([1.0, 2.0, 0.0, 0.8, 0.4])         # its front at x = 1.8
    gap, x, y = wall_clearance(cells, meta, car, 5.0)
    assert gap == pytest.approx(1.2, abs=1e-12) and x == pytest.approx(3.05)
    assert 1.55 <= y <= 2.45                          # a cell facing the front
    gap, x, y = wall_clearance(cells, meta, car, 1.0)     # beyond the reach: not looked at
    assert gap == 1.0 and math.isnan(x)
    turned = np.array([2.4, 2.0, math.pi / 4, 0.8, 0.4])  # a corner reaches into the wall
    assert wall_clearance(cells, meta, turned, 1.0)[0] == 0.0
    # a rotated map: the same wall seen from a car turned with it
    yaw = 0.4
    rotated = np.array([0.1, 0.0, 0.0, math.cos(yaw), math.sin(yaw)])
    centre = np.array([math.cos(yaw) * 1.0 - math.sin(yaw) * 2.0,
                       math.sin(yaw) * 1.0 + math.cos(yaw) * 2.0])
    gap, _, _ = wall_clearance(cells, rotated, np.array([*centre, yaw, 0.8, 0.4]), 5.0)
    assert gap == pytest.approx(1.2, abs=1e-9)
    # an occupancy map's blocked cells and placement work as they are
    grid = OccupancyMap(np.where(cells == 1, 100, 0).astype(np.int8), 0.1, 0.0, 0.0, 0.0)
    assert wall_clearance(grid.blocked, grid.meta, car, 5.0)[0] == pytest.approx(1.2)
