"""
The closed path's nearest point and curvature look-ahead, compiled (see path.ClosedPath).

The same operations in the same order as ClosedPath's NumPy code, so the
same answers to the last bit, without a dozen array temporaries per call:
the path follower and the metrics locate once per state.

pursuit() is pure pursuit's path geometry in one call (the look-ahead target
and the curvature ahead), for the path follower's every state.
"""

import math

import numpy as np

from ..physics.jit import njit

PX, PY, DX, DY, LENGTH, START, CURVATURE = range(7)
"""Rows of a path's table (ClosedPath.table): points, unit directions, segment lengths,
arc length at each point, |curvature| at each point."""


@njit
def nearest(px, py, dx, dy, lengths, x, y):
    """Return the nearest segment's index, the distance along it, the offset and its side."""
    best, best_d2 = 0, np.inf
    for k in range(px.shape[0]):
        rx, ry = x - px[k], y - py[k]
        along = rx * dx[k]
        along += ry * dy[k]
        along = min(max(along, 0.0), lengths[k])
        ex, ey = rx - dx[k] * along, ry - dy[k] * along
        d2 = ex * ex + ey * ey
        if d2 < best_d2 or k == 0:
            best, best_d2 = k, d2
    rx, ry = x - px[best], y - py[best]
    along = rx * dx[best]
    along += ry * dy[best]
    along = min(max(along, 0.0), lengths[best])
    return (best, along, rx - dx[best] * along, ry - dy[best] * along,
            dx[best] * ry - dy[best] * rx)


@njit
def nearest_many(px, py, dx, dy, lengths, xs, ys, index, along, ex, ey, side):
    """Fill index, along, ex, ey, side with nearest()'s answer for each of (xs, ys)."""
    for k in range(xs.shape[0]):
        index[k], along[k], ex[k], ey[k], side[k] = nearest(px, py, dx, dy, lengths, xs[k],
                                                            ys[k])


@njit
def max_curvature(start_m, curvature, length_m, progress_m, distance_m):
    """Return the largest curvature of the points within distance_m ahead (0 if none)."""
    found, largest = False, 0.0
    for k in range(start_m.shape[0]):
        s = start_m[k] - progress_m
        if s < 0.0:         # what % gives for s in (-length, 0), without its fmod
            s = s + length_m if s > -length_m else s % length_m
        elif s >= length_m:
            s %= length_m
        if s <= distance_m:
            if not found or curvature[k] > largest:
                found, largest = True, curvature[k]
    return largest


@njit
def pursuit(table, length_m, x, y, yaw, speed, cg_to_rear_m, lookahead_min_m, lookahead_gain_s):
    """
    Return pure pursuit's geometry for the CG pose (x, y, yaw) at forward speed `speed`.

    (rear_x, rear_y): the rear axle; (target_x, target_y): the path point one
    look-ahead ahead of the rear axle's nearest point; kappa: the largest
    curvature ahead (over twice the speed in metres, at least the look-ahead).
    The operations of PurePursuit's Python path (locate, point_at,
    max_curvature) in their order: the same bits.
    """
    rear_x = x - cg_to_rear_m * math.cos(yaw)
    rear_y = y - cg_to_rear_m * math.sin(yaw)
    lookahead = max(lookahead_min_m, lookahead_gain_s * abs(speed))
    i, along, _, _, _ = nearest(table[PX], table[PY], table[DX], table[DY], table[LENGTH],
                                rear_x, rear_y)
    progress = table[START, i] + along
    s = (progress + lookahead) % length_m
    k = np.searchsorted(table[START], s, side='right') - 1     # bisect_right's index
    ahead = s - table[START, k]
    target_x = table[PX, k] + table[DX, k] * ahead
    target_y = table[PY, k] + table[DY, k] * ahead
    kappa = max_curvature(table[START], table[CURVATURE], length_m, progress,
                          max(2.0 * abs(speed), lookahead))
    return rear_x, rear_y, target_x, target_y, kappa


def prepare() -> None:
    """Load (or compile) the kernels now, not at a run's first state."""
    ones = np.ones(3)       # the argument types of ClosedPath's calls: contiguous float64
    nearest(ones, ones, ones, ones, ones, 0.5, 0.5)
    max_curvature(np.zeros(3), ones, 3.0, 0.5, 1.0)
    pursuit(np.ones((7, 3)), 3.0, 0.5, 0.5, 0.0, 1.0, 1.0, 1.0, 0.5)
    nearest_many(ones, ones, ones, ones, ones, ones, ones, np.zeros(3, dtype=np.int64),
                 ones, ones, ones, ones)
