"""
Lap and sector times along a stage's closed path, the best lap kept (and its line, a ghost).

The car's progress is its nearest point's arc length on the path. A lap
counts when the progress passes the start (the path's first point) going
forward after the car has covered at least LAP_SHARE of the path's length
since the last start, forward and without a jump (a teleport or a short cut
across the path voids the lap in progress). The path is cut into SECTORS
equal lengths; each crossing's time is interpolated between the two samples
around it, so the times do not depend on the sampling rate.
"""

import math
from typing import List, Optional, Tuple

import numpy as np

from ..control.path import ClosedPath

SECTORS = 3
LAP_SHARE = 0.9
STANDING_START_M = 5.0
"""A car first seen this close past the start starts its first lap there and then."""
JUMP_M = 25.0
"""A move along the path longer than this between two samples is no driving: the lap is void."""


class LapTimer:
    """Times laps and sectors of one car on one closed path."""

    def __init__(self, points: np.ndarray):
        """Take the path's (N, 2) points."""
        self.path = ClosedPath(points)
        self.length_m = self.path.length_m
        self.laps: List[float] = []
        self.best_s: Optional[float] = None
        self.best_sectors: List[float] = []
        self.best_line: Optional[np.ndarray] = None     # (K, 4): t from the lap's start, x, y, yaw
        self._last: Optional[Tuple[float, float]] = None     # (t, progress)
        self._void()

    def _void(self, start_t: Optional[float] = None) -> None:
        """Forget the lap in progress; a new one starts at start_t (None: at the next start)."""
        self.start_t = start_t
        self.covered_m = 0.0
        self.sectors: List[float] = []
        self.line: List[Tuple[float, float, float, float]] = []

    def reset(self) -> None:
        """Void the lap in progress: the car was put somewhere else."""
        self._last = None
        self._void()

    def update(self, t: float, x: float, y: float, yaw: float) -> Optional[float]:
        """Take the car's pose at time t; return a lap time when a lap ends here, else None."""
        progress = self.path.locate(x, y).progress_m
        last, self._last = self._last, (t, progress)
        if last is None:
            if progress < STANDING_START_M:       # a standing start on the line: timed from now
                self._void(t)
                self.line.append((0.0, x, y, yaw))
            return None
        t0, p0 = last
        step = (progress - p0 + 0.5 * self.length_m) % self.length_m - 0.5 * self.length_m
        if abs(step) > JUMP_M:
            self._void()
            return None
        if self.start_t is not None:
            self.covered_m += step
            self.line.append((t - self.start_t, x, y, yaw))
            self._sector_crossings(t0, p0, t, step)
        crossed = step > 0.0 and p0 + step >= self.length_m
        if not crossed:
            return None
        when = t0 + (t - t0) * (self.length_m - p0) / step
        lap = None
        if self.start_t is not None and self.covered_m >= LAP_SHARE * self.length_m:
            lap = when - self.start_t
            self._finish(lap, when)
        self._void(when)
        self.line.append((t - when, x, y, yaw))
        return lap

    def _sector_crossings(self, t0: float, p0: float, t: float, step: float) -> None:
        """Note the time of each sector boundary (not the start) crossed going forward."""
        if step <= 0.0:
            return
        for k in range(len(self.sectors) + 1, SECTORS):
            boundary = k * self.length_m / SECTORS
            if p0 < boundary <= p0 + step:
                self.sectors.append(t0 + (t - t0) * (boundary - p0) / step - self.start_t)

    def _finish(self, lap: float, when: float) -> None:
        """Keep a finished lap; keep it as the best (with its line) when it is."""
        self.laps.append(lap)
        splits = self.sectors + [lap]
        if self.best_s is None or lap < self.best_s:
            self.best_s = lap
            self.best_sectors = [b - a for a, b in zip([0.0] + splits[:-1], splits)]
            self.best_line = np.array(self.line, dtype=float)

    def current_s(self, t: float) -> Optional[float]:
        """Return the time into the lap in progress (None before the first start)."""
        return None if self.start_t is None else t - self.start_t

    def sector_times(self) -> List[float]:
        """Return the lap in progress's finished sectors' own times [s]."""
        splits = self.sectors
        return [b - a for a, b in zip([0.0] + splits[:-1], splits)]


def ghost_pose(line: np.ndarray, t: float) -> Optional[Tuple[float, float, float]]:
    """Return the best lap's (x, y, yaw) at time t into it (None past its end)."""
    if line is None or len(line) < 2 or not 0.0 <= t <= line[-1, 0]:
        return None
    k = int(np.searchsorted(line[:, 0], t))
    k = min(max(k, 1), len(line) - 1)
    t0, t1 = line[k - 1, 0], line[k, 0]
    share = 0.0 if t1 <= t0 else (t - t0) / (t1 - t0)
    a, b = line[k - 1], line[k]
    turn = (b[3] - a[3] + math.pi) % (2.0 * math.pi) - math.pi
    return (a[1] + share * (b[1] - a[1]), a[2] + share * (b[2] - a[2]), a[3] + share * turn)
