"""
Beams cast through the world: against an occupancy map's occupied cells and cars' footprints.

A beam starts at a point with a heading and runs straight; its range is the
distance to the first occupied cell it enters (the cell's edge, exactly, so
a wall reads to the map's resolution) or the first footprint it meets
(rectangles: centre, heading, half length, half width), or inf when nothing
lies within the maximum range. A beam that starts inside an occupied cell or
a footprint reads 0. The map is walked cell by cell (Amanatides and Woo's
traversal) from where the beam enters the grid to where it leaves it or
reaches the maximum range, leaping across open space by each cell's
clearance to the walls (clearance_cells: the same range, far fewer cells);
beyond the grid nothing blocks.

Compiled (physics/jit.py), one call for all the beams of a scan.
"""

import math

import numpy as np

from ..physics.jit import njit

BOX_X, BOX_Y, BOX_YAW, BOX_HALF_LENGTH, BOX_HALF_WIDTH = range(5)
"""Columns of a footprint row: centre x, y [m], heading [rad], half length, half width [m]."""
NO_BOXES = np.zeros((0, 5))
CLEARANCE_CAP = 255
"""The largest clearance clearance_cells records [cells]."""


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
def clearance_cells(blocked: np.ndarray) -> np.ndarray:
    """
    Return each cell's chessboard distance in cells to the nearest occupied cell (uint8).

    0 for an occupied cell, 1 beside one (diagonals too), and so on, at most
    CLEARANCE_CAP (also where no cell is occupied). Two raster passes over
    the eight neighbours, which is exact for this distance.
    """
    rows, cols = blocked.shape
    far = np.int32(CLEARANCE_CAP)
    d = np.empty((rows, cols), dtype=np.int32)
    for r in range(rows):
        for c in range(cols):
            d[r, c] = 0 if blocked[r, c] else far
    for r in range(rows):
        for c in range(cols):
            best = d[r, c]
            for dr, dc in ((-1, -1), (-1, 0), (-1, 1), (0, -1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols:
                    best = min(best, d[rr, cc] + 1)
            d[r, c] = best
    for r in range(rows - 1, -1, -1):
        for c in range(cols - 1, -1, -1):
            best = d[r, c]
            for dr, dc in ((1, 1), (1, 0), (1, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols:
                    best = min(best, d[rr, cc] + 1)
            d[r, c] = best
    return np.minimum(d, far).astype(np.uint8)


@njit
def _enters(index: int, p0: float, d: float) -> float:
    """Return when (in cells of travel) the beam enters column (or row) `index` (inf: never)."""
    if d == 0.0:
        return np.inf
    return (index + (0.0 if d > 0.0 else 1.0) - p0) / d


@njit
def _after(when: float, t: float, ties: bool) -> bool:
    """Return whether a crossing at `when` comes after t (at t too, unless `ties`)."""
    return when > t if ties else when >= t


@njit
def _caught_up(index: int, step: int, t: float, p0: float, d: float, ties: bool) -> tuple:
    """
    Return the column (row) the beam is in at t, and when it enters the next one.

    From `index`, where it was before, to the one a cell-by-cell walk
    reaches: every column entered before t, and those entered at t when
    `ties` (rows are entered first on a tie).
    """
    if d == 0.0:
        return index, np.inf
    before, guess = index, int(math.floor(p0 + d * t))
    if (guess - index) * step > 0:
        index = guess
    while index != before and _after(_enters(index, p0, d), t, ties):
        index -= step
    following = _enters(index + step, p0, d)
    while not _after(following, t, ties):
        index += step
        following = _enters(index + step, p0, d)
    return index, following


@njit
def map_range(clear: np.ndarray, meta: np.ndarray, x: float, y: float, heading: float,
              max_range: float) -> float:
    """Return the distance [m] from (x, y) along `heading` to the first occupied cell, or inf."""
    return _map_walk(clear, meta, x, y, math.cos(heading), math.sin(heading), max_range)


@njit
def _map_walk(clear: np.ndarray, meta: np.ndarray, x: float, y: float, cos_h: float,
              sin_h: float, max_range: float) -> float:
    """
    Return the distance [m] from (x, y) along (cos_h, sin_h) to the first occupied cell, or inf.

    clear: clearance_cells of the map. Where a cell has k >= 2, every cell
    within k - 1 of it is free: the walk jumps to where the beam leaves them
    and goes on exactly as stepping cell by cell would (each crossing's time
    from its own edge, never summed), so the range is the same to the bit.
    """
    resolution, c, s = meta[0], meta[3], meta[4]
    dx, dy = x - meta[1], y - meta[2]
    u0, v0 = (c * dx + s * dy) / resolution, (-s * dx + c * dy) / resolution
    du, dv = c * cos_h + s * sin_h, -s * cos_h + c * sin_h     # cells per cell of travel
    rows, cols = clear.shape
    limit = max_range / resolution
    if 0.0 <= u0 < cols and 0.0 <= v0 < rows:
        t, end = 0.0, limit     # where it leaves the grid, the index check below ends it
    else:
        t_in, t_out = _grid_entry(u0, v0, du, dv, cols, rows)
        if t_in > t_out or t_in > limit:
            return np.inf
        t, end = t_in, min(t_out, limit)
    col = min(max(int(math.floor(u0 + du * t)), 0), cols - 1)
    row = min(max(int(math.floor(v0 + dv * t)), 0), rows - 1)
    step_c, step_r = (1 if du > 0.0 else -1), (1 if dv > 0.0 else -1)
    next_c, next_r = _enters(col + step_c, u0, du), _enters(row + step_r, v0, dv)
    while t <= end:
        k = int(clear[rows - 1 - row, col])
        if k == 0:
            return t * resolution
        if k >= 2:      # leave the free square of side 2k - 1 round this cell at once
            jump_c = _enters(col + step_c * k, u0, du)
            jump_r = _enters(row + step_r * k, v0, dv)
            if jump_c < jump_r:
                t, col = jump_c, col + step_c * k
                row, next_r = _caught_up(row, step_r, t, v0, dv, True)
                next_c = _enters(col + step_c, u0, du)
            else:
                t, row = jump_r, row + step_r * k
                col, next_c = _caught_up(col, step_c, t, u0, du, False)
                next_r = _enters(row + step_r, v0, dv)
        elif next_c < next_r:
            t, col = next_c, col + step_c
            next_c = _enters(col + step_c, u0, du)
        else:
            t, row = next_r, row + step_r
            next_r = _enters(row + step_r, v0, dv)
        if col < 0 or col >= cols or row < 0 or row >= rows:
            break
    return np.inf


@njit
def box_range(boxes: np.ndarray, x: float, y: float, heading: float) -> float:
    """Return the distance [m] from (x, y) along `heading` to the nearest footprint, or inf."""
    return _box_hit(boxes, _turns(boxes), x, y, math.cos(heading), math.sin(heading))


@njit
def _turns(boxes: np.ndarray) -> np.ndarray:
    """Return each footprint's heading as (cos, sin) rows."""
    turns = np.empty((boxes.shape[0], 2))
    for k in range(boxes.shape[0]):
        turns[k, 0], turns[k, 1] = math.cos(boxes[k, BOX_YAW]), math.sin(boxes[k, BOX_YAW])
    return turns


@njit
def _box_hit(boxes: np.ndarray, turns: np.ndarray, x: float, y: float, cos_h: float,
             sin_h: float) -> float:
    """Return the distance [m] from (x, y) along (cos_h, sin_h) to the nearest footprint."""
    best = np.inf
    for k in range(boxes.shape[0]):
        c, s = turns[k, 0], turns[k, 1]
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
def cast(clear: np.ndarray, meta: np.ndarray, boxes: np.ndarray, x: float, y: float,
         headings: np.ndarray, max_range: float, out: np.ndarray) -> None:
    """
    Write each beam's range from (x, y) (map and footprints; inf: nothing) into `out`.

    clear: the map's clearance_cells. Each beam's cosine and sine, and each
    footprint's, are taken once.
    """
    turns = _turns(boxes)
    for i in range(headings.shape[0]):
        cos_h, sin_h = math.cos(headings[i]), math.sin(headings[i])
        hit = min(_map_walk(clear, meta, x, y, cos_h, sin_h, max_range),
                  _box_hit(boxes, turns, x, y, cos_h, sin_h))
        out[i] = hit if hit <= max_range else np.inf
