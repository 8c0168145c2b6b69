"""
The closed path's nearest point and curvature look-ahead, compiled (see path.ClosedPath).

The same operations in the same order as ClosedPath's NumPy code, so the
same answers to the last bit, without a dozen array temporaries per call:
the path follower and the metrics locate once per state.
"""

import numpy as np

from ..physics.jit import njit


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


def prepare() -> None:
    """Load (or compile) the kernels now, not at a run's first state."""
    ones = np.ones(3)       # the argument types of ClosedPath's calls: contiguous float64
    nearest(ones, ones, ones, ones, ones, 0.5, 0.5)
    max_curvature(np.zeros(3), ones, 3.0, 0.5, 1.0)
