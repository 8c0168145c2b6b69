"""A closed reference path: nearest point, progress, cross-track error, curvature."""

import bisect
import math
from typing import List, NamedTuple, Tuple

import numpy as np

from . import path_kernels
from ..physics.jit import ENABLED as COMPILED


class PathPoint(NamedTuple):
    """Where a position stands relative to the path."""

    index: int                  # segment start index
    progress_m: float           # arc length from the first point to the nearest point
    cross_track_m: float        # signed distance, positive left of the path direction
    heading_rad: float          # direction of the path there


class ClosedPath:
    """A polyline whose last point joins the first (a lap)."""

    def __init__(self, points: np.ndarray):
        """Take (N, 2) points in the odom frame, N >= 3."""
        points = np.asarray(points, dtype=float)
        if points.ndim != 2 or points.shape[1] != 2 or len(points) < 3:
            raise ValueError('a path needs at least three (x, y) points')
        self.points = points
        self.ends = np.roll(points, -1, axis=0)
        segments = self.ends - points
        self.lengths = np.hypot(segments[:, 0], segments[:, 1])
        if np.any(self.lengths <= 0.0):
            raise ValueError('a path must not repeat a point')
        self.directions = segments / self.lengths[:, None]
        # contiguous columns for locate(), called once per control period
        self._px, self._py = points[:, 0].copy(), points[:, 1].copy()
        self._dx, self._dy = self.directions[:, 0].copy(), self.directions[:, 1].copy()
        self.start_m = np.concatenate([[0.0], np.cumsum(self.lengths)[:-1]])
        # as lists for point_at(), once per control period: float arithmetic, the same bits
        self._start, self._x, self._y = self.start_m.tolist(), self._px.tolist(), self._py.tolist()
        self._ux, self._uy = self._dx.tolist(), self._dy.tolist()
        self._headings = [math.atan2(dy, dx) for dx, dy in zip(self._ux, self._uy)]
        self.length_m = float(self.lengths.sum())
        self.curvature = self._curvature()
        self.table = np.ascontiguousarray(np.vstack([   # rows as path_kernels names them
            self._px, self._py, self._dx, self._dy, self.lengths, self.start_m, self.curvature,
            path_kernels.circles(self._px, self._py, self._dx, self._dy, self.lengths)]))
        # compiled, 3 to 7 times faster; the NumPy code where nothing compiles (the same bits)
        self._kernels = path_kernels if COMPILED else None
        self._located = None

    def _curvature(self) -> np.ndarray:
        """Return |curvature| [1/m] at each point from the circle through it and its neighbours."""
        a, b, c = np.roll(self.points, 1, axis=0), self.points, self.ends
        ab, bc, ca = (np.hypot(*(b - a).T), np.hypot(*(c - b).T), np.hypot(*(a - c).T))
        cross = np.abs((b - a)[:, 0] * (c - a)[:, 1] - (b - a)[:, 1] * (c - a)[:, 0])
        return 2.0 * cross / np.maximum(ab * bc * ca, 1e-12)

    def locate(self, x: float, y: float) -> PathPoint:
        """Return the nearest point of the path to (x, y)."""
        if self._kernels is not None:
            i, along, ex, ey, side = self._kernels.nearest_in(self.table, float(x), float(y))
        else:
            i, along, ex, ey, side = self._nearest_numpy(x, y)
        distance = math.copysign(math.hypot(ex, ey), side)
        return PathPoint(i, float(self.start_m[i] + along), distance, self._headings[i])

    def locate_many(self, xs, ys) -> Tuple[List[float], List[float], List[float]]:
        """
        Return locate()'s progress_m, cross_track_m and heading_rad for each of (xs, ys).

        One compiled call for every position (the metrics locate each state), the
        same bits as locate() one by one. The last answer is kept: the positions
        it was for, or the first of them (a run's states, then those up to its
        laps' end), are answered from it.
        """
        xs, ys = np.ascontiguousarray(xs, dtype=float), np.ascontiguousarray(ys, dtype=float)
        last = self._located
        if last is not None and len(xs) <= len(last[0]) and np.array_equal(
                xs, last[0][:len(xs)]) and np.array_equal(ys, last[1][:len(ys)]):
            return tuple(column[:len(xs)] for column in last[2])
        located = self._locate_many(xs, ys)
        self._located = (xs.copy(), ys.copy(), located)
        return tuple(column[:] for column in located)

    def _locate_many(self, xs: np.ndarray, ys: np.ndarray):
        """Return locate_many()'s answer, found anew."""
        if self._kernels is None:
            located = [self.locate(x, y) for x, y in zip(xs, ys)]
            return ([p.progress_m for p in located], [p.cross_track_m for p in located],
                    [p.heading_rad for p in located])
        index = np.empty(len(xs), dtype=np.int64)
        along, ex, ey, side = (np.empty(len(xs)) for _ in range(4))
        self._kernels.nearest_many(self.table, xs, ys, index, along, ex, ey, side)
        headings = self._headings
        distance = np.empty(len(xs))
        self._kernels.hypot_each(ex, ey, distance)      # math.hypot's bits, as locate()'s
        return ((self.start_m[index] + along).tolist(), np.copysign(distance, side).tolist(),
                [headings[i] for i in index.tolist()])

    def _nearest_numpy(self, x: float, y: float):
        """Return path_kernels.nearest()'s answer with NumPy's array operations."""
        rx, ry = x - self._px, y - self._py
        along = rx * self._dx
        along += ry * self._dy
        np.clip(along, 0.0, self.lengths, out=along)
        ex, ey = rx - self._dx * along, ry - self._dy * along     # from the nearest point
        i = int(np.argmin(ex * ex + ey * ey))
        side = float(self._dx[i]) * float(ry[i]) - float(self._dy[i]) * float(rx[i])
        return i, float(along[i]), float(ex[i]), float(ey[i]), side

    def track(self, xs, ys, start_m: float = None,
              reach_m: float = 5.0) -> Tuple[np.ndarray, np.ndarray]:
        """
        Return the progress [m] (unwrapped: on past a lap) and cross-track [m] of a trajectory.

        Each position is located on the segments within reach_m of the
        previous one's progress (the first: near start_m, or anywhere), so that a path that
        touches or crosses itself (a figure eight) is followed along the
        branch driven, not snapped to the other. Positions farther apart
        along the path than reach_m lose the thread.
        """
        length = self.length_m
        progress, cross = np.empty(len(xs)), np.empty(len(xs))
        ends = self.start_m + self.lengths
        last = start_m
        for k, (x, y) in enumerate(zip(xs, ys)):
            if last is None:
                near = np.arange(len(self.lengths))
            else:
                ahead = (self.start_m - last) % length
                behind = (last - ends) % length
                near = np.flatnonzero((ahead <= reach_m) | (behind <= reach_m) | (
                    (self.start_m <= last % length) & (ends >= last % length)))
            rx, ry = x - self._px[near], y - self._py[near]
            along = np.clip(rx * self._dx[near] + ry * self._dy[near], 0.0, self.lengths[near])
            ex, ey = rx - self._dx[near] * along, ry - self._dy[near] * along
            j = int(np.argmin(ex * ex + ey * ey))
            side = self._dx[near[j]] * ry[j] - self._dy[near[j]] * rx[j]
            located = self.start_m[near[j]] + along[j]
            last = located if last is None else last + self.progress_step(last, located)
            progress[k], cross[k] = last, math.copysign(math.hypot(ex[j], ey[j]), side)
        return progress, cross

    def turn_flips(self) -> List[Tuple[float, int]]:
        """
        Return where the path's turn changes side: (progress [m], +1 now left / -1 right).

        The turn at each point is the change of heading there; a flip lies
        between the last point turning one way and the next turning the
        other, where the turn, interpolated between them, is zero.
        """
        headings = np.array(self._headings)
        turns = (headings - np.roll(headings, 1) + math.pi) % (2.0 * math.pi) - math.pi
        signs = np.sign(np.where(np.abs(turns) > 1e-9, turns, 0.0)).astype(int)
        turning = np.flatnonzero(signs)
        flips = []
        for before, after in zip(np.roll(turning, 1), turning):
            if signs[before] != signs[after]:
                gap = (self.start_m[after] - self.start_m[before]) % self.length_m
                share = abs(turns[before]) / (abs(turns[before]) + abs(turns[after]))
                flips.append(((self.start_m[before] + share * gap) % self.length_m,
                              int(signs[after])))
        return sorted((float(at), side) for at, side in flips)

    def progress_step(self, previous_m: float, current_m: float) -> float:
        """Return the signed progress from one located point to the next (across the lap end)."""
        half = self.length_m / 2.0
        return (current_m - previous_m + half) % self.length_m - half

    def point_at(self, progress_m: float) -> Tuple[float, float]:
        """Return the path point (x, y) at an arc length (wrapping around the lap)."""
        s = progress_m % self.length_m
        i = bisect.bisect_right(self._start, s) - 1
        along = s - self._start[i]
        return self._x[i] + self._ux[i] * along, self._y[i] + self._uy[i] * along

    def max_curvature(self, progress_m: float, distance_m: float) -> float:
        """Return the largest |curvature| over the next distance_m of path."""
        if self._kernels is not None:
            return self._kernels.max_curvature(self.start_m, self.curvature, self.length_m,
                                               float(progress_m), float(distance_m))
        s = (self.start_m - progress_m) % self.length_m
        ahead = s <= distance_m
        return float(self.curvature[ahead].max()) if np.any(ahead) else 0.0
