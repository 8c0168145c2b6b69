"""
A closed path's cross-track, progress and direction, tabulated on a grid.

For many positions at once (a batch of sampled futures, a vector of
environments): ClosedPath.locate searches every segment for one point; the
field answers thousands of points with one bilinear lookup each. Built once
per path (a brute-force nearest-segment search per cell).
"""

from typing import NamedTuple

import numpy as np

from .path import ClosedPath


class FieldPoints(NamedTuple):
    """Where positions stand relative to the path (arrays of the positions' shape)."""

    cross_track_m: np.ndarray    # signed, positive left of the path direction
    progress_m: np.ndarray       # arc length of the nearest path point, in [0, lap)
    heading_rad: np.ndarray      # direction of the path there


class PathField:
    """Nearest-point answers of a ClosedPath on a grid of `resolution_m`, `margin_m` around."""

    def __init__(self, path: ClosedPath, resolution_m: float = 0.5, margin_m: float = 20.0):
        """Tabulate `path`; beyond the grid, answers are the nearest edge cell's."""
        if not resolution_m > 0.0 or not margin_m >= 0.0:
            raise ValueError('resolution_m must be > 0 and margin_m >= 0')
        self.path = path
        self.resolution_m = float(resolution_m)
        self.low = path.points.min(axis=0) - margin_m
        cols, rows = (np.ceil((path.points.max(axis=0) + margin_m - self.low)
                              / resolution_m).astype(int) + 1)
        xs = self.low[0] + np.arange(cols) * resolution_m
        ys = self.low[1] + np.arange(rows) * resolution_m
        gx, gy = np.meshgrid(xs, ys, indexing='ij')
        cross, progress, dx, dy = self._nearest(np.column_stack([gx.ravel(), gy.ravel()]))
        shape = (cols, rows)
        self._cross = cross.reshape(shape)
        self._progress = progress.reshape(shape)
        self._dx, self._dy = dx.reshape(shape), dy.reshape(shape)

    def _nearest(self, points: np.ndarray):
        """Return cross-track, progress and path direction of the nearest segment per point."""
        p = self.path
        cross = np.empty(len(points))
        progress = np.empty(len(points))
        index = np.empty(len(points), dtype=int)
        for start in range(0, len(points), 2048):
            chunk = points[start:start + 2048]
            rx = chunk[:, 0, None] - p.points[None, :, 0]
            ry = chunk[:, 1, None] - p.points[None, :, 1]
            along = np.clip(rx * p.directions[:, 0] + ry * p.directions[:, 1], 0.0, p.lengths)
            ex = rx - p.directions[:, 0] * along
            ey = ry - p.directions[:, 1] * along
            i = np.argmin(ex * ex + ey * ey, axis=1)
            rows = np.arange(len(chunk))
            side = p.directions[i, 0] * ry[rows, i] - p.directions[i, 1] * rx[rows, i]
            cross[start:start + 2048] = np.copysign(np.hypot(ex[rows, i], ey[rows, i]), side)
            progress[start:start + 2048] = p.start_m[i] + along[rows, i]
            index[start:start + 2048] = i
        return cross, progress, p.directions[index, 0], p.directions[index, 1]

    def lookup(self, x, y) -> FieldPoints:
        """Return the answers at positions x, y [m] (arrays of one shape; NaN where not finite)."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        lost = ~(np.isfinite(x) & np.isfinite(y))
        x, y = np.where(lost, self.low[0], x), np.where(lost, self.low[1], y)
        cols, rows = self._cross.shape
        u = np.clip((x - self.low[0]) / self.resolution_m, 0.0, cols - 1.000001)
        v = np.clip((y - self.low[1]) / self.resolution_m, 0.0, rows - 1.000001)
        i, j = u.astype(int), v.astype(int)
        fu, fv = u - i, v - j
        corners = ((i, j, (1 - fu) * (1 - fv)), (i + 1, j, fu * (1 - fv)),
                   (i, j + 1, (1 - fu) * fv), (i + 1, j + 1, fu * fv))
        lap = self.path.length_m
        base = self._progress[i, j]
        cross = np.zeros(x.shape)
        progress = np.zeros(x.shape)
        dx = np.zeros(x.shape)
        dy = np.zeros(x.shape)
        for ci, cj, weight in corners:
            cross += weight * self._cross[ci, cj]
            # progress relative to one corner, so a cell across the lap's end interpolates
            progress += weight * ((self._progress[ci, cj] - base + lap / 2) % lap - lap / 2)
            dx += weight * self._dx[ci, cj]
            dy += weight * self._dy[ci, cj]
        nan = np.where(lost, np.nan, 0.0)
        return FieldPoints(cross + nan, (base + progress) % lap + nan, np.arctan2(dy, dx) + nan)

    def points_ahead(self, progress_m, distances_m) -> np.ndarray:
        """Return path points (..., K, 2) at progress + each of K distances (wrapping the lap)."""
        p = self.path
        s = (np.asarray(progress_m, dtype=float)[..., None] + np.asarray(distances_m)) \
            % p.length_m
        i = np.clip(np.searchsorted(p.start_m, s, side='right') - 1, 0, len(p.start_m) - 1)
        along = (s - p.start_m[i])[..., None]
        return p.points[i] + p.directions[i] * along
