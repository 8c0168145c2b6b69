"""Beams through the world: exact to the cell against a map, exact against footprints."""

import math

import numpy as np
import pytest
from rally_sim.world.occupancy import OccupancyMap
from rally_sim.world.raycast import (
    box_range, cast, CLEARANCE_CAP, clearance_cells, map_range, NO_BOXES)


def grid(cells, resolution=0.05, origin=(-1.0, -2.5, 0.0)):
    """Return an occupancy map of `cells` (rows, cols; True occupied; row 0 at the top)."""
    return OccupancyMap(np.where(cells, 100, 0).astype(np.int8), resolution, *origin)


def walled():
    """Return a 10 m x 5 m map at 5 cm from (-1, -2.5) with a wall two cells thick at x = 7 m."""
    cells = np.zeros((100, 200), dtype=bool)
    cells[:, 160:162] = True
    return grid(cells)


def scan(occupancy, x, y, headings, max_range=30.0, boxes=NO_BOXES, leap=True):
    """Cast the beams (leap False: cell by cell, every cell's clearance taken as at most 1)."""
    clear = clearance_cells(occupancy.blocked)
    out = np.empty(len(headings))
    cast(clear if leap else np.minimum(clear, 1), occupancy.meta, boxes, x, y,
         np.asarray(headings, float), max_range, out)
    return out


def marched(occupancy, boxes, x, y, heading, max_range, step=1e-4):
    """Return the first distance, in steps of `step`, at which a wall or a box is met."""
    t = np.arange(int(max_range / step) + 1) * step
    px, py = x + t * math.cos(heading), y + t * math.sin(heading)
    res, ox, oy, c, s = occupancy.meta
    col = np.floor((c * (px - ox) + s * (py - oy)) / res).astype(int)
    row = np.floor((-s * (px - ox) + c * (py - oy)) / res).astype(int)
    rows, cols = occupancy.cells.shape
    on_map = (col >= 0) & (col < cols) & (row >= 0) & (row < rows)
    hit = np.zeros(t.shape, dtype=bool)
    hit[on_map] = occupancy.blocked[rows - 1 - row[on_map], col[on_map]] == 1
    for box in boxes:
        hit |= inside(box, px, py)
    return t[np.argmax(hit)] if hit.any() else math.inf


def inside(box, px, py):
    cx, cy, yaw, half_length, half_width = box
    rx, ry = px - cx, py - cy
    along, across = math.cos(yaw) * rx + math.sin(yaw) * ry, -math.sin(yaw) * rx + math.cos(
        yaw) * ry
    return (abs(along) <= half_length) & (abs(across) <= half_width)


def test_a_wall_reads_at_its_cell_edge_and_open_space_reads_no_return():
    occupancy = walled()
    ranges = scan(occupancy, 0.0, 0.0, [0.0, math.pi / 2, math.pi, math.atan2(1.0, 7.0)])
    assert ranges[0] == pytest.approx(7.0, abs=1e-12)     # x = -1 + 160 * 0.05
    assert ranges[1] == math.inf and ranges[2] == math.inf     # the grid ends, nothing hit
    assert ranges[3] == pytest.approx(math.hypot(7.0, 1.0), abs=1e-12)
    # beyond the maximum range: no return (inf), never 0 or the maximum
    assert scan(occupancy, 0.0, 0.0, [0.0], max_range=6.99)[0] == math.inf
    # a beam from inside the wall reads 0; one from outside the grid enters it and hits
    assert scan(occupancy, 7.01, 0.0, [0.0])[0] == 0.0
    assert scan(occupancy, -5.0, 0.0, [0.0])[0] == pytest.approx(12.0, abs=1e-12)
    assert scan(occupancy, -5.0, 10.0, [0.0])[0] == math.inf     # passes above the grid


def test_ranges_agree_with_a_fine_march_on_random_maps_and_rotated_origins():
    rng = np.random.default_rng(20261125)
    hits = 0
    for trial in range(12):
        cells = rng.random((30, 40)) < 0.04
        occupancy = grid(cells, resolution=0.25,
                         origin=(rng.uniform(-6, -2), rng.uniform(-5, -1), rng.uniform(-1, 1)))
        boxes = np.array([[rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-3, 3), 0.3,
                           0.15]])
        x, y = rng.uniform(-1.0, 1.0, 2)
        if occupancy.is_blocked(x, y) or inside(boxes[0], x, y):
            continue
        headings = rng.uniform(-math.pi, math.pi, 16)
        ranges = scan(occupancy, x, y, headings, max_range=8.0, boxes=boxes)
        hits += int(np.isfinite(ranges).sum())
        for heading, got in zip(headings, ranges):
            want = marched(occupancy, boxes, x, y, heading, 8.0, step=2e-4)
            if math.isinf(want):
                assert math.isinf(got) or got > 8.0 - 2e-4, (trial, heading)
            else:   # the march lands within one step past the edge the cast finds
                assert got <= want + 1e-9 and want - got < 2e-4 + 1e-9, (trial, heading)
    assert hits > 60        # most beams meet a cell or the box within 8 m


def test_a_footprint_reads_at_its_edge_from_any_side():
    box = np.array([[5.0, 0.0, 0.0, 0.29, 0.155]])      # a 1/10 car, 0.58 x 0.31 m
    assert box_range(box, 0.0, 0.0, 0.0) == pytest.approx(5.0 - 0.29, abs=1e-12)
    assert box_range(box, 5.0, 3.0, -math.pi / 2) == pytest.approx(3.0 - 0.155, abs=1e-12)
    assert box_range(box, 5.0, 0.0, 1.0) == 0.0                  # from inside
    assert box_range(box, 0.0, 1.0, 0.0) == math.inf            # passes beside it
    turned = np.array([[5.0, 0.0, math.pi / 4, 0.5, 0.5]])       # a diamond seen end-on
    assert box_range(turned, 0.0, 0.0, 0.0) == pytest.approx(5.0 - 0.5 * math.sqrt(2),
                                                             abs=1e-12)
    # the nearer of a wall and a car
    occupancy = walled()
    ranges = scan(occupancy, 0.0, 0.0, [0.0, 0.3], boxes=box)
    assert ranges[0] == pytest.approx(4.71, abs=1e-12)
    assert ranges[1] == pytest.approx(7.0 / math.cos(0.3), abs=1e-9)    # past the car
    assert map_range(clearance_cells(occupancy.blocked), occupancy.meta, 0.0, 0.0, 0.0, 30.0) == \
        pytest.approx(7.0, abs=1e-12)


def test_clearance_is_the_chessboard_distance_to_the_nearest_occupied_cell():
    rng = np.random.default_rng(20261126)
    for density in (0.0, 0.002, 0.05, 0.5):
        blocked = (rng.random((37, 53)) < density).astype(np.uint8)
        clear = clearance_cells(blocked)
        rows, cols = np.nonzero(blocked)
        r, c = np.mgrid[0:37, 0:53]
        want = np.full(blocked.shape, CLEARANCE_CAP)
        for i, j in zip(rows, cols):
            want = np.minimum(want, np.maximum(abs(r - i), abs(c - j)))
        assert clear.dtype == np.uint8 and np.array_equal(clear, want), density


def test_leaping_across_open_space_gives_the_cell_by_cell_ranges_to_the_bit():
    rng = np.random.default_rng(7)
    hits = 0
    for trial in range(40):
        cells = rng.random((120, 160)) < rng.choice([0.001, 0.005, 0.02])
        cells[rng.integers(0, 120), :] = True           # a long wall, and open ground beside it
        occupancy = grid(cells, resolution=rng.choice([0.05, 0.1, 0.25]),
                         origin=(rng.uniform(-6, -2), rng.uniform(-5, -1),
                                 rng.choice([0.0, rng.uniform(-1, 1)])))
        x, y = rng.uniform(-1.0, 3.0, 2)
        # every direction, the axes and diagonals exactly among them (ties of crossings)
        headings = np.concatenate([rng.uniform(-math.pi, math.pi, 200),
                                   np.arange(-4, 4) * math.pi / 4])
        max_range = rng.uniform(3.0, 40.0)
        leaping = scan(occupancy, x, y, headings, max_range)
        walking = scan(occupancy, x, y, headings, max_range, leap=False)
        assert np.array_equal(leaping, walking), trial
        hits += int(np.isfinite(leaping).sum())
    assert hits > 2000
