"""
Beams cast through the world: against an occupancy map's occupied cells and cars' footprints.

A beam starts at a point with a heading and runs straight; its range is the
distance to the first occupied cell it enters (the cell's edge, exactly, so
a wall reads to the map's resolution) or the first footprint it meets
(rectangles: centre, heading, half length, half width), or inf when nothing
lies within the maximum range. A beam that starts inside an occupied cell or
a footprint reads 0. The map is walked cell by cell (Amanatides and Woo's
traversal) from where the beam enters the grid to where it leaves it or
reaches the maximum range; beyond the grid nothing blocks.

Compiled (physics/jit.py), one call for all the beams of a scan.
"""

import math

import numpy as np

from ..physics.jit import njit

BOX_X, BOX_Y, BOX_YAW, BOX_HALF_LENGTH, BOX_HALF_WIDTH = range(5)
"""Columns of a footprint row: centre x, y [m], heading [rad], half length, half width [m]."""
NO_BOXES = np.zeros((0, 5))


@njit
def _grid_entry(u0: float, v0: float, du: float, dv: float, cols: int, rows: int) -> tuple:
    """Return where the beam (in cells, per cell of travel) is inside the grid: t in, t out."""
    t_in, t_out = 0.0, np.inf
    for p, d, size in ((u0, du, cols), (v0, dv, rows)):
        if d == 0.0:
            if p < 0.0 or p >= size:
                return 1.0, 0.0                 # parallel to the grid and beside it
        else:
            a, b = (0.0 - p) / d, (size - p) / d
            t_in, t_out = max(t_in, min(a, b)), min(t_out, max(a, b))
    return t_in, t_out


@njit
def map_range(blocked: np.ndarray, meta: np.ndarray, x: float, y: float, heading: float,
              max_range: float) -> float:
    """Return the distance [m] from (x, y) along `heading` to the first occupied cell, or inf."""
    resolution, c, s = meta[0], meta[3], meta[4]
    dx, dy = x - meta[1], y - meta[2]
    u0, v0 = (c * dx + s * dy) / resolution, (-s * dx + c * dy) / resolution
    cos_h, sin_h = math.cos(heading), math.sin(heading)
    du, dv = c * cos_h + s * sin_h, -s * cos_h + c * sin_h     # cells per cell of travel
    rows, cols = blocked.shape
    t_in, t_out = _grid_entry(u0, v0, du, dv, cols, rows)
    limit = max_range / resolution
    if t_in > t_out or t_in > limit:
        return np.inf
    t = t_in
    col = min(max(int(math.floor(u0 + du * t)), 0), cols - 1)
    row = min(max(int(math.floor(v0 + dv * t)), 0), rows - 1)
    step_c, step_r = (1 if du > 0.0 else -1), (1 if dv > 0.0 else -1)
    next_c = ((col + (1 if du > 0.0 else 0)) - u0) / du if du != 0.0 else np.inf
    next_r = ((row + (1 if dv > 0.0 else 0)) - v0) / dv if dv != 0.0 else np.inf
    delta_c = abs(1.0 / du) if du != 0.0 else np.inf
    delta_r = abs(1.0 / dv) if dv != 0.0 else np.inf
    end = min(t_out, limit)
    while t <= end:
        if blocked[rows - 1 - row, col]:
            return t * resolution
        if next_c < next_r:
            t, next_c, col = next_c, next_c + delta_c, col + step_c
            if col < 0 or col >= cols:
                break
        else:
            t, next_r, row = next_r, next_r + delta_r, row + step_r
            if row < 0 or row >= rows:
                break
    return np.inf


@njit
def box_range(boxes: np.ndarray, x: float, y: float, heading: float) -> float:
    """Return the distance [m] from (x, y) along `heading` to the nearest footprint, or inf."""
    best = np.inf
    cos_h, sin_h = math.cos(heading), math.sin(heading)
    for k in range(boxes.shape[0]):
        c, s = math.cos(boxes[k, BOX_YAW]), math.sin(boxes[k, BOX_YAW])
        rx, ry = x - boxes[k, BOX_X], y - boxes[k, BOX_Y]
        p = (c * rx + s * ry, -s * rx + c * ry)             # the beam in the box's frame
        d = (c * cos_h + s * sin_h, -s * cos_h + c * sin_h)
        half = (boxes[k, BOX_HALF_LENGTH], boxes[k, BOX_HALF_WIDTH])
        near, far = -np.inf, np.inf
        for i in range(2):
            if d[i] == 0.0:
                if abs(p[i]) > half[i]:
                    near, far = 1.0, 0.0
                    break
            else:
                a, b = (-half[i] - p[i]) / d[i], (half[i] - p[i]) / d[i]
                near, far = max(near, min(a, b)), min(far, max(a, b))
        if far >= near and far >= 0.0:
            best = min(best, max(near, 0.0))
    return best


@njit
def cast(blocked: np.ndarray, meta: np.ndarray, boxes: np.ndarray, x: float, y: float,
         headings: np.ndarray, max_range: float, out: np.ndarray) -> None:
    """Write each beam's range from (x, y) (map and footprints; inf: nothing) into `out`."""
    for i in range(headings.shape[0]):
        hit = min(map_range(blocked, meta, x, y, headings[i], max_range),
                  box_range(boxes, x, y, headings[i]))
        out[i] = hit if hit <= max_range else np.inf
