"""
Follow the gap: steer into the free opening a 2D lidar sees, as fast as the free road allows.

The reactive law F1TENTH teaches first (after Sezer and Gokasan's
follow-the-gap method): it needs no map and no pose, only the scan.

1. Beams with no return (+inf) read as range_max; beams nearer than
   range_min (-inf) as 0, blocked. Only beams within `view_rad` of ahead
   count, smoothed over a few neighbours.
2. Disparities: where two neighbouring beams differ by more than the car
   is wide, the nearer range is carried over the beams that the car's
   half width plus the margin covers at that distance, so that the car
   does not aim past an edge it would clip.
3. A bubble round the nearest return blocks every beam within the bubble
   radius of it (within a right angle of it when it is nearer than that).
4. The gap is the longest run of beams that reach farther than gap_m;
   the aim is its farthest beam (the middle of the beams that tie).
5. Steer by pure pursuit to the aim at up to lookahead_m; speed from the
   free distance straight ahead (stop within it at decel_m_s2) and from
   the lateral acceleration the steer asks for.

command() runs compiled (gap_kernels.py: the same operations in the same
order, so the same answers to the last bit) unless the JIT is off.
"""

from dataclasses import dataclass
import functools
import math
from typing import Tuple

import numpy as np

from . import gap_kernels
from .interface import Scan
from ..physics.jit import ENABLED as COMPILED


@dataclass(frozen=True)
class GapSettings:
    """The law's settings (the gap follower node's parameters of the same names)."""

    wheelbase_m: float = 0.3302
    max_steer_rad: float = 0.4189
    speed_max_m_s: float = 4.0
    speed_min_m_s: float = 0.5
    decel_m_s2: float = 4.0
    lateral_accel_limit_m_s2: float = 5.0
    half_width_m: float = 0.2
    bubble_radius_m: float = 0.35
    view_rad: float = math.pi
    gap_m: float = 1.0
    lookahead_m: float = 2.0
    smoothing_beams: int = 3
    ahead_rad: float = 0.1


def free_ranges(scan: Scan) -> np.ndarray:
    """Return the ranges as free distance: no return reads range_max, too near reads 0."""
    ranges = np.asarray(scan.ranges, dtype=float)
    ranges = np.where(np.isnan(ranges) | (ranges == np.inf), scan.range_max_m, ranges)
    return np.clip(ranges, 0.0, scan.range_max_m)


def beam_angles(scan: Scan) -> np.ndarray:
    """Return each beam's angle in the lidar's frame [rad] (read-only: kept for the next scan)."""
    return _angles(scan.angle_min_rad, scan.angle_increment_rad, len(scan.ranges))


@functools.lru_cache(maxsize=8)
def _angles(first: float, increment: float, beams: int) -> np.ndarray:
    angles = first + np.arange(beams) * increment
    angles.flags.writeable = False
    return angles


@functools.lru_cache(maxsize=8)
def _spread(beams: int, count: int) -> np.ndarray:
    """Return how many beams the running mean over `count` takes at each of `beams`."""
    first = np.arange(beams) - count // 2
    spread = (np.minimum(first + count - 1, beams - 1) - np.maximum(first, 0) + 1).astype(float)
    spread.flags.writeable = False
    return spread


def _smooth(ranges: np.ndarray, beams: int) -> np.ndarray:
    """
    Return the running mean over `beams` neighbours (the ends over those they have).

    Beam k's mean is over beams k - beams // 2 to k + (beams - 1) // 2 (the
    window np.convolve's 'same' centres there), summed from the first: an
    order of our own, which the compiled code repeats to the bit.
    """
    if beams <= 1:
        return ranges
    n, low = len(ranges), beams // 2
    padded = np.concatenate([np.zeros(low), ranges, np.zeros(beams - 1 - low)])
    total = np.zeros(n)
    for k in range(beams):
        total += padded[k:k + n]
    return total / _spread(n, beams)


def _extend_disparities(ranges: np.ndarray, increment: float, reach_m: float) -> np.ndarray:
    """Return ranges with each disparity's nearer range carried over reach_m of its far side."""
    out = ranges.copy()
    jumps = np.flatnonzero(np.abs(np.diff(ranges)) > 2.0 * reach_m)
    last = len(out) - 1
    for k, near_left in zip(jumps.tolist(), (ranges[jumps] < ranges[jumps + 1]).tolist()):
        near, step = (k, 1) if near_left else (k + 1, -1)
        distance = float(ranges[near])
        span = math.pi if distance <= reach_m else math.asin(reach_m / distance)
        count = int(math.ceil(span / increment)) if increment > 0.0 else 0
        first, end = sorted((near + step, near + step * count))
        first, end = max(first, 0), min(end, last)
        np.minimum(out[first:end + 1], distance, out=out[first:end + 1])
    return out


def _longest_run(free: np.ndarray) -> Tuple[int, int]:
    """Return (first, end) of the longest run of True (the first of equal ones); (0, 0) if none."""
    edges = np.diff(free.astype(np.int8), prepend=0, append=0)
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    if len(starts) == 0:
        return 0, 0
    k = int(np.argmax(ends - starts))
    return int(starts[k]), int(ends[k])


def aim(scan: Scan, settings: GapSettings) -> Tuple[float, float]:
    """Return the aim's bearing [rad] and distance [m]: (0, 0) when no gap is free."""
    return _aim(free_ranges(scan), beam_angles(scan), abs(scan.angle_increment_rad), settings)


def _aim(free: np.ndarray, angles: np.ndarray, increment: float, settings: GapSettings
         ) -> Tuple[float, float]:
    view = np.abs(angles) <= 0.5 * settings.view_rad
    angles = angles[view]
    ranges = _smooth(free[view], settings.smoothing_beams)
    if len(ranges) == 0:
        return 0.0, 0.0
    ranges = _extend_disparities(ranges, increment, settings.half_width_m)
    nearest = int(np.argmin(ranges))
    closest = ranges[nearest]
    half = (0.5 * math.pi if closest <= settings.bubble_radius_m
            else math.asin(settings.bubble_radius_m / closest))
    ranges[np.abs(angles - angles[nearest]) <= half] = 0.0
    first, end = _longest_run(ranges > settings.gap_m)
    if end == first:
        return 0.0, 0.0
    gap = ranges[first:end]
    farthest = np.flatnonzero(gap >= gap.max())
    best = first + int(farthest[len(farthest) // 2])
    return float(angles[best]), float(ranges[best])


def command(scan: Scan, settings: GapSettings) -> Tuple[float, float]:
    """Return the steer angle [rad] and speed [m/s] answering a scan."""
    angles, increment = beam_angles(scan), abs(scan.angle_increment_rad)
    if COMPILED:
        s = settings
        free = gap_kernels.free_ranges(np.asarray(scan.ranges), scan.range_max_m)
        bearing, distance = gap_kernels.aim(free, angles, increment, s.view_rad,
                                            s.smoothing_beams, s.half_width_m,
                                            s.bubble_radius_m, s.gap_m)
        free_m = gap_kernels.least_ahead(free, angles, s.ahead_rad, distance)
    else:
        free = free_ranges(scan)
        bearing, distance = _aim(free, angles, increment, settings)
        ahead = free[np.abs(angles) <= settings.ahead_rad]
        free_m = float(ahead.min()) if len(ahead) else distance
    if distance <= 0.0:
        return 0.0, 0.0          # boxed in: stop, wheels straight
    lookahead = min(distance, settings.lookahead_m)
    steer = math.atan(2.0 * settings.wheelbase_m * math.sin(bearing) / lookahead)
    steer = min(max(steer, -settings.max_steer_rad), settings.max_steer_rad)
    speed = math.sqrt(2.0 * settings.decel_m_s2 * max(free_m - settings.half_width_m, 0.0))
    if abs(steer) > 1e-6:
        speed = min(speed, math.sqrt(settings.lateral_accel_limit_m_s2 * settings.wheelbase_m
                                     / math.tan(abs(steer))))
    if speed > 0.0:         # crawl rather than stand, unless the road ahead is shut
        speed = max(speed, settings.speed_min_m_s)
    return steer, min(speed, settings.speed_max_m_s)
