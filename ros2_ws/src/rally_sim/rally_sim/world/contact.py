"""
Contact between footprints and walls: clearances, exact for rectangles and map cells.

A footprint is a rectangle (raycast's BOX_* row); an occupied map cell a
square. Two convex outlines overlap when no axis of either separates them;
apart, their clearance is the least distance from a corner of one to an
edge of the other. wall_clearance looks only at the cells within `reach`
of the footprint (a farther wall reads as `reach`), so a step's check costs
the cells round the car, not the map.

Compiled (physics/jit.py).
"""

import math

import numpy as np

from .raycast import BOX_HALF_LENGTH, BOX_HALF_WIDTH, BOX_X, BOX_Y, BOX_YAW
from ..physics.jit import njit


@njit
def corners(box: np.ndarray) -> np.ndarray:
    """Return a footprint's corners as a (4, 2) array, counter-clockwise from front left."""
    c, s = math.cos(box[BOX_YAW]), math.sin(box[BOX_YAW])
    out = np.empty((4, 2))
    for k, (a, b) in enumerate(((1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0))):
        along, across = a * box[BOX_HALF_LENGTH], b * box[BOX_HALF_WIDTH]
        out[k, 0] = box[BOX_X] + c * along - s * across
        out[k, 1] = box[BOX_Y] + s * along + c * across
    return out


@njit
def _separated(a: np.ndarray, b: np.ndarray) -> bool:
    """Return whether an edge normal of quad `a` separates the quads `a` and `b`."""
    for k in range(4):
        ex, ey = a[(k + 1) % 4, 0] - a[k, 0], a[(k + 1) % 4, 1] - a[k, 1]
        nx, ny = -ey, ex
        low_a = high_a = nx * a[0, 0] + ny * a[0, 1]
        low_b = high_b = nx * b[0, 0] + ny * b[0, 1]
        for i in range(1, 4):
            pa, pb = nx * a[i, 0] + ny * a[i, 1], nx * b[i, 0] + ny * b[i, 1]
            low_a, high_a = min(low_a, pa), max(high_a, pa)
            low_b, high_b = min(low_b, pb), max(high_b, pb)
        if high_a < low_b or high_b < low_a:
            return True
    return False


@njit
def _point_to_edges(px: float, py: float, quad: np.ndarray) -> float:
    best = np.inf
    for k in range(4):
        ax, ay = quad[k, 0], quad[k, 1]
        ex, ey = quad[(k + 1) % 4, 0] - ax, quad[(k + 1) % 4, 1] - ay
        t = ((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey)
        t = min(max(t, 0.0), 1.0)
        best = min(best, math.hypot(px - ax - t * ex, py - ay - t * ey))
    return best


@njit
def quad_clearance(a: np.ndarray, b: np.ndarray) -> float:
    """Return the distance between two convex quads (4, 2) [m]; 0 when they touch or overlap."""
    if not (_separated(a, b) or _separated(b, a)):
        return 0.0
    best = np.inf
    for i in range(4):
        best = min(best, _point_to_edges(a[i, 0], a[i, 1], b),
                   _point_to_edges(b[i, 0], b[i, 1], a))
    return best


@njit
def wall_clearance(blocked: np.ndarray, meta: np.ndarray, box: np.ndarray, reach: float
                   ) -> tuple:
    """
    Return the clearance [m] from a footprint to the nearest occupied cell, and that cell's centre.

    At most `reach`: cells farther away are not looked at (their centre then
    reads nan). 0 when the footprint overlaps an occupied cell.
    """
    resolution, ox, oy, c, s = meta[0], meta[1], meta[2], meta[3], meta[4]
    rows, cols = blocked.shape
    quad = corners(box)
    low_u, low_v, high_u, high_v = np.inf, np.inf, -np.inf, -np.inf
    for k in range(4):      # the footprint in cells, widened by the reach
        dx, dy = quad[k, 0] - ox, quad[k, 1] - oy
        u, v = (c * dx + s * dy) / resolution, (-s * dx + c * dy) / resolution
        low_u, high_u = min(low_u, u), max(high_u, u)
        low_v, high_v = min(low_v, v), max(high_v, v)
    margin = reach / resolution + 1.0
    first_c, last_c = max(int(math.floor(low_u - margin)), 0), min(int(high_u + margin), cols - 1)
    first_r, last_r = max(int(math.floor(low_v - margin)), 0), min(int(high_v + margin), rows - 1)
    best, at_x, at_y = reach, np.nan, np.nan
    cell = np.empty((4, 2))
    # A cell whose centre lies farther from the footprint than best plus its half
    # diagonal cannot come nearer than best: skipped before the exact test.
    half_diagonal = resolution * math.sqrt(0.5)
    bc, bs = math.cos(box[BOX_YAW]), math.sin(box[BOX_YAW])
    for r in range(first_r, last_r + 1):
        for col in range(first_c, last_c + 1):
            if not blocked[rows - 1 - r, col]:
                continue
            u, v = (col + 0.5) * resolution, (r + 0.5) * resolution
            dx, dy = ox + c * u - s * v - box[BOX_X], oy + s * u + c * v - box[BOX_Y]
            along = max(abs(bc * dx + bs * dy) - box[BOX_HALF_LENGTH], 0.0)
            across = max(abs(-bs * dx + bc * dy) - box[BOX_HALF_WIDTH], 0.0)
            if math.hypot(along, across) - half_diagonal >= best:
                continue
            for k, (du, dv) in enumerate(((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))):
                u, v = (col + du) * resolution, (r + dv) * resolution
                cell[k, 0], cell[k, 1] = ox + c * u - s * v, oy + s * u + c * v
            gap = quad_clearance(quad, cell)
            if gap < best:
                u, v = (col + 0.5) * resolution, (r + 0.5) * resolution
                best, at_x, at_y = gap, ox + c * u - s * v, oy + s * u + c * v
                if best == 0.0:
                    return best, at_x, at_y
    return best, at_x, at_y


SAMPLE = 64
"""least_clearance() looks at every this-many footprints first."""


@njit
def least_clearance(blocked: np.ndarray, meta: np.ndarray, clear: np.ndarray,
                    boxes: np.ndarray, reach: float) -> float:
    """
    Return the least clearance [m] of footprints (boxes: rows) to the walls, at most `reach`.

    clear: the map's clearance_cells. A footprint that the clearance cells
    keep farther than the least found so far is not looked at: it cannot
    change the answer. Every SAMPLE-th footprint is looked at first, so that
    the least is near its end early (the least of all is the same in any
    order).
    """
    least = reach
    for first in (True, False):
        for k in range(0, boxes.shape[0], SAMPLE if first else 1):
            if _far_from_walls(clear, meta, boxes[k]) > least:
                continue
            least = min(least, wall_clearance(blocked, meta, boxes[k], least)[0])
            if least == 0.0:
                return least
    return least


@njit
def _far_from_walls(clear: np.ndarray, meta: np.ndarray, box: np.ndarray) -> float:
    """
    Return a lower bound on a footprint's clearance to the walls [m] (0: none known).

    The footprint is cut into pieces along its length about as long as it is
    wide. An occupied cell d cells away (chessboard distance: clearance_cells)
    of the cell under a piece's centre lies (d - 1) cells away from any point
    of that cell, and no point of the piece lies farther from its centre than
    its half diagonal. Less a micrometre: the computed clearances round.
    """
    resolution, ox, oy, c, s = meta[0], meta[1], meta[2], meta[3], meta[4]
    rows, cols = clear.shape
    half_length, half_width = box[BOX_HALF_LENGTH], box[BOX_HALF_WIDTH]
    pieces = max(1, int(math.ceil(half_length / max(half_width, 1e-9))))
    half_piece = half_length / pieces
    radius = math.sqrt(half_piece * half_piece + half_width * half_width)
    bc, bs = math.cos(box[BOX_YAW]), math.sin(box[BOX_YAW])
    least = np.inf
    for k in range(pieces):
        along = (2 * k + 1 - pieces) * half_piece
        dx, dy = box[BOX_X] + bc * along - ox, box[BOX_Y] + bs * along - oy
        u, v = (c * dx + s * dy) / resolution, (-s * dx + c * dy) / resolution
        if not (0.0 <= u < cols and 0.0 <= v < rows):
            return 0.0
        cells = float(clear[rows - 1 - int(v), int(u)])     # uint8: no wrap below 0
        least = min(least, (cells - 1.0) * resolution - radius)
    return least - 1e-6
