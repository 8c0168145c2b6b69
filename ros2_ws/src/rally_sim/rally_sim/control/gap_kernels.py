"""
Follow-the-gap's aim, compiled (see gap_follow.py, whose NumPy code it answers to the bit).

The same operations in the same order as gap_follow's NumPy functions, so
the same answers to the last bit (test), in one call instead of some forty
array operations on a 1,080-beam scan: the gap follower answers every scan,
and in synchronous mode the simulator waits for it.
"""

import math

import numpy as np

from ..physics.jit import njit


@njit
def free_ranges(ranges: np.ndarray, range_max: float) -> np.ndarray:
    """Return the ranges as free distance: no return reads range_max, too near reads 0."""
    out = np.empty(ranges.shape[0])
    for k in range(ranges.shape[0]):
        r = float(ranges[k])
        if math.isnan(r) or r == np.inf:
            r = range_max
        out[k] = min(max(r, 0.0), range_max)
    return out


@njit
def smooth(ranges: np.ndarray, beams: int) -> np.ndarray:
    """Return the running mean over `beams` neighbours, summed from the first (as _smooth)."""
    n = ranges.shape[0]
    if beams <= 1:
        return ranges.copy()
    low = beams // 2
    out = np.empty(n)
    for i in range(n):
        total, count = 0.0, 0.0
        for k in range(beams):
            j = i - low + k
            if 0 <= j < n:
                total += ranges[j]
                count += 1.0
            else:
                total += 0.0
        out[i] = total / count
    return out


@njit
def extend_disparities(ranges: np.ndarray, increment: float, reach_m: float) -> np.ndarray:
    """Return ranges with each disparity's nearer range carried over reach_m of its far side."""
    out = ranges.copy()
    last = ranges.shape[0] - 1
    for k in range(last):
        if not abs(ranges[k + 1] - ranges[k]) > 2.0 * reach_m:
            continue
        if ranges[k] < ranges[k + 1]:
            near, step = k, 1
        else:
            near, step = k + 1, -1
        distance = ranges[near]
        span = math.pi if distance <= reach_m else math.asin(reach_m / distance)
        count = int(math.ceil(span / increment)) if increment > 0.0 else 0
        first, end = near + step, near + step * count
        if first > end:
            first, end = end, first
        for j in range(max(first, 0), min(end, last) + 1):
            out[j] = min(out[j], distance)
    return out


@njit
def aim(free: np.ndarray, angles: np.ndarray, increment: float, view_rad: float,
        smoothing_beams: int, half_width_m: float, bubble_radius_m: float, gap_m: float
        ) -> tuple:
    """Return the aim's bearing [rad] and distance [m]: (0, 0) when no gap is free."""
    count = 0
    for k in range(angles.shape[0]):
        if abs(angles[k]) <= 0.5 * view_rad:
            count += 1
    seen, seen_angles = np.empty(count), np.empty(count)
    i = 0
    for k in range(angles.shape[0]):
        if abs(angles[k]) <= 0.5 * view_rad:
            seen[i], seen_angles[i] = free[k], angles[k]
            i += 1
    if count == 0:
        return 0.0, 0.0
    ranges = extend_disparities(smooth(seen, smoothing_beams), increment, half_width_m)
    nearest = 0
    for k in range(count):
        if ranges[k] < ranges[nearest]:
            nearest = k
    closest = ranges[nearest]
    half = (0.5 * math.pi if closest <= bubble_radius_m
            else math.asin(bubble_radius_m / closest))
    for k in range(count):
        if abs(seen_angles[k] - seen_angles[nearest]) <= half:
            ranges[k] = 0.0
    first, end, k = 0, 0, 0       # the longest run reaching past gap_m (the first of equal)
    while k < count:
        if ranges[k] > gap_m:
            start = k
            while k < count and ranges[k] > gap_m:
                k += 1
            if k - start > end - first:
                first, end = start, k
        else:
            k += 1
    if end == first:
        return 0.0, 0.0
    top = ranges[first]
    for k in range(first, end):
        top = max(top, ranges[k])
    ties = 0
    for k in range(first, end):
        if ranges[k] >= top:
            ties += 1
    middle, best = ties // 2, first
    for k in range(first, end):
        if ranges[k] >= top:
            if middle == 0:
                best = k
                break
            middle -= 1
    return seen_angles[best], ranges[best]


@njit
def least_ahead(free: np.ndarray, angles: np.ndarray, ahead_rad: float, otherwise: float
                ) -> float:
    """Return the least free range within ahead_rad of ahead, or `otherwise` if no beam is."""
    least, found = np.inf, False
    for k in range(angles.shape[0]):
        if abs(angles[k]) <= ahead_rad:
            least, found = min(least, free[k]), True
    return least if found else otherwise


def prepare() -> None:
    """Load (or compile) the kernels now, for the argument types of the gap follower's calls."""
    angles = np.linspace(-1.0, 1.0, 5)
    angles.flags.writeable = False          # gap_follow.beam_angles' are read-only
    for ranges in (np.ones(5, dtype=np.float32), np.ones(5)):   # a message's, or float64
        free = free_ranges(ranges, 30.0)
        aim(free, angles, 0.5, 3.0, 3, 0.2, 0.35, 1.0)
        least_ahead(free, angles, 0.1, 1.0)
