"""
The closed path's nearest point and curvature look-ahead, compiled (see path.ClosedPath).

The same operations in the same order as ClosedPath's NumPy code, so the
same answers to the last bit, without a dozen array temporaries per call:
the path follower and the metrics locate once per state.

pursuit() is pure pursuit's path geometry in one call (the look-ahead target
and the curvature ahead), for the path follower's every state; command() is
the whole law's answer (pure_pursuit.PurePursuit.command), which the
in-process engine's compiled loop (campaign/compiled_loop.py) calls too.
"""

import math

import numpy as np

from ..physics.jit import njit, njit_inline

PX, PY, DX, DY, LENGTH, START, CURVATURE, CIRCLE_X, CIRCLE_Y, CIRCLE_R = range(10)
"""Rows of a path's table (ClosedPath.table): points, unit directions, segment lengths,
arc length at each point, |curvature| at each point, and the circle round each point's block
of BLOCK segments (circles())."""
BLOCK = 16
"""Segments per block: nearest_in() looks into the blocks that can hold the nearest."""


def circles(px, py, dx, dy, lengths) -> np.ndarray:
    """
    Return rows CIRCLE_X, CIRCLE_Y, CIRCLE_R: for each segment, a circle round its block's.

    The centre of the block's end points' bounding box, and a radius that
    reaches every end point (so every point of its segments), widened by
    far more than a rounding.
    """
    ends_x, ends_y = px + dx * lengths, py + dy * lengths
    out = np.empty((3, len(px)))
    for first in range(0, len(px), BLOCK):
        xs = np.concatenate([px[first:first + BLOCK], ends_x[first:first + BLOCK]])
        ys = np.concatenate([py[first:first + BLOCK], ends_y[first:first + BLOCK]])
        cx, cy = 0.5 * (xs.min() + xs.max()), 0.5 * (ys.min() + ys.max())
        radius = float(np.sqrt(np.max((xs - cx) ** 2 + (ys - cy) ** 2)))
        out[:, first:first + BLOCK] = np.array([[cx], [cy], [radius * (1.0 + 1e-9) + 1e-9]])
    return out


@njit_inline
def _offset(px, py, dx, dy, lengths, k, x, y):
    """Return the distance along segment k of its nearest point to (x, y), and the offset."""
    rx, ry = x - px[k], y - py[k]
    along = rx * dx[k]
    along += ry * dy[k]
    along = min(max(along, 0.0), lengths[k])
    return along, rx - dx[k] * along, ry - dy[k] * along


@njit_inline
def _answer(px, py, dx, dy, lengths, best, x, y):
    """Return nearest()'s answer for segment `best`."""
    along, ex, ey = _offset(px, py, dx, dy, lengths, best, x, y)
    return best, along, ex, ey, dx[best] * (y - py[best]) - dy[best] * (x - px[best])


@njit
def nearest(px, py, dx, dy, lengths, x, y):
    """Return the nearest segment's index, the distance along it, the offset and its side."""
    best, best_d2 = 0, np.inf
    for k in range(px.shape[0]):
        _, ex, ey = _offset(px, py, dx, dy, lengths, k, x, y)
        d2 = ex * ex + ey * ey
        if d2 < best_d2 or k == 0:
            best, best_d2 = k, d2
    return _answer(px, py, dx, dy, lengths, best, x, y)


@njit
def nearest_in(table, x, y):
    """
    Return nearest()'s answer for a path's table, looking only where the nearest can lie.

    A block whose circle lies farther from (x, y) than some block's circle
    reaches holds no nearest segment; the others are searched in nearest()'s
    order with its operations, so the same segment (the first of equals)
    and the same bits.
    """
    px, py, dx, dy, lengths = table[PX], table[PY], table[DX], table[DY], table[LENGTH]
    count = px.shape[0]
    reach = np.inf          # the nearest segment lies at most this far (squared, widened)
    for first in range(0, count, BLOCK):
        gx, gy = x - table[CIRCLE_X, first], y - table[CIRCLE_Y, first]
        far = math.sqrt(gx * gx + gy * gy) + table[CIRCLE_R, first]
        reach = min(reach, far * far * (1.0 + 1e-9))
    best, best_d2, found = 0, np.inf, False
    for first in range(0, count, BLOCK):
        gx, gy = x - table[CIRCLE_X, first], y - table[CIRCLE_Y, first]
        near = math.sqrt(gx * gx + gy * gy) - table[CIRCLE_R, first]
        if near > 0.0 and near * near > reach:
            continue
        for k in range(first, min(first + BLOCK, count)):
            _, ex, ey = _offset(px, py, dx, dy, lengths, k, x, y)
            d2 = ex * ex + ey * ey
            if d2 < best_d2 or not found:
                best, best_d2, found = k, d2, True
    return _answer(px, py, dx, dy, lengths, best, x, y)


@njit
def nearest_many(table, xs, ys, index, along, ex, ey, side):
    """Fill index, along, ex, ey, side with nearest()'s answer for each of (xs, ys)."""
    for k in range(xs.shape[0]):
        index[k], along[k], ex[k], ey[k], side[k] = nearest_in(table, xs[k], ys[k])


@njit
def max_curvature(start_m, curvature, length_m, progress_m, distance_m):
    """
    Return the largest curvature of the points within distance_m ahead (0 if none).

    The points ahead lie in a row from the one at progress_m on (start_m
    rises), so the scan starts one point before it and ends at the first
    point well past distance_m: the points every point's test takes, as
    each distance ahead rises along the row but for rounding.
    """
    count = start_m.shape[0]
    first = np.searchsorted(start_m, progress_m % length_m) - 1
    found, largest = False, 0.0
    for step in range(count):
        k = (first + step) % count
        s = start_m[k] - progress_m
        if s < 0.0:         # what % gives for s in (-length, 0), without its fmod
            s = s + length_m if s > -length_m else s % length_m
        elif s >= length_m:
            s %= length_m
        if s <= distance_m:
            if not found or curvature[k] > largest:
                found, largest = True, curvature[k]
        elif step > 0 and s > distance_m + 1e-6:
            break
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
    i, along, _, _, _ = nearest_in(table, rear_x, rear_y)
    progress = table[START, i] + along
    s = (progress + lookahead) % length_m
    k = np.searchsorted(table[START], s, side='right') - 1     # bisect_right's index
    ahead = s - table[START, k]
    target_x = table[PX, k] + table[DX, k] * ahead
    target_y = table[PY, k] + table[DY, k] * ahead
    kappa = max_curvature(table[START], table[CURVATURE], length_m, progress,
                          max(2.0 * abs(speed), lookahead))
    return rear_x, rear_y, target_x, target_y, kappa


SPLIT = 134217729.0
"""2^27 + 1: Veltkamp's splitter of a double into two halves of 26 bits."""
TINY = 1e-290
"""Below this, hypot() scales its arguments up before it scales them to 1."""


@njit
def _two_product(a: float, b: float):
    """Return a * b rounded, and its rounding error exactly (Dekker's product)."""
    p = a * b
    t = SPLIT * a
    a_high = t - (t - a)
    a_low = a - a_high
    t = SPLIT * b
    b_high = t - (t - b)
    b_low = b - b_high
    return p, ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low


@njit
def hypot(x: float, y: float) -> float:
    """
    Return sqrt(x^2 + y^2) correctly rounded, as Python's math.hypot gives it.

    numba's math.hypot (the C library's) differs from Python's in the last
    bit about once in 200 calls; this one agreed with Python's on 12 million
    random pairs of many magnitudes (test_path_kernels). The squares are
    scaled to 1 and summed exactly in two doubles, then the square root
    takes one Newton step on the exact residual.
    """
    x, y = abs(x), abs(y)
    if x < y:
        x, y = y, x
    if x == 0.0 or not math.isfinite(x) or math.isnan(y):
        return math.hypot(x, y)
    below = 1.0
    if x < TINY:        # subnormal: to normal numbers first (exact), else 1 / scale overflows
        x, y, below = x * 2.0 ** 600, y * 2.0 ** 600, 2.0 ** -600
    scale = math.ldexp(1.0, -math.frexp(x)[1])
    x, y = x * scale, y * scale
    xx, xx_error = _two_product(x, x)
    yy, yy_error = _two_product(y, y)
    total = xx + yy
    back = total - xx
    low = ((xx - (total - back)) + (yy - back)) + xx_error + yy_error
    root = math.sqrt(total + low)
    square, square_error = _two_product(root, root)
    root += (((total - square) - square_error) + low) / (2.0 * root)
    return root / scale * below


@njit
def hypot_each(xs, ys, out) -> None:
    """Fill out with hypot() (math.hypot's bits) of each pair (xs[k], ys[k])."""
    for k in range(xs.shape[0]):
        out[k] = hypot(xs[k], ys[k])


@njit
def command(table, length_m, x, y, yaw, speed, wheelbase_m, cg_to_rear_m, lookahead_min_m,
            lookahead_gain_s, max_steer_rad, target_speed_m_s, lateral_accel_limit_m_s2,
            min_speed_m_s):
    """Return pure pursuit's (steer [rad], speed [m/s]) for the CG pose and forward speed."""
    rear_x, rear_y, target_x, target_y, kappa = pursuit(
        table, length_m, x, y, yaw, speed, cg_to_rear_m, lookahead_min_m, lookahead_gain_s)
    alpha = math.atan2(target_y - rear_y, target_x - rear_x) - yaw
    distance = hypot(target_x - rear_x, target_y - rear_y)
    if distance < 1e-3:
        distance = 1e-3
    steer = math.atan(2.0 * wheelbase_m * math.sin(alpha) / distance)
    if steer < -max_steer_rad:      # min and max as Python's: the first of equals
        steer = -max_steer_rad
    if max_steer_rad < steer:
        steer = max_steer_rad
    limit = math.sqrt(lateral_accel_limit_m_s2 / kappa) if kappa > 1e-6 else math.inf
    wanted = limit if limit < target_speed_m_s else target_speed_m_s
    return steer, (wanted if min_speed_m_s < wanted else min_speed_m_s)


def prepare() -> None:
    """Load (or compile) the kernels now, not at a run's first state."""
    ones = np.ones(3)       # the argument types of ClosedPath's calls: contiguous float64
    table = np.ones((10, 3))
    nearest(ones, ones, ones, ones, ones, 0.5, 0.5)
    nearest_in(table, 0.5, 0.5)
    max_curvature(np.zeros(3), ones, 3.0, 0.5, 1.0)
    pursuit(table, 3.0, 0.5, 0.5, 0.0, 1.0, 1.0, 1.0, 0.5)
    command(table, 3.0, 0.5, 0.5, 0.0, 1.0, 2.0, 1.0, 1.0, 0.5, 0.6, 10.0, 2.5, 3.0)
    hypot(3.0, 4.0)
    hypot_each(ones, ones, np.empty(3))
    nearest_many(table, ones, ones, np.zeros(3, dtype=np.int64), ones, ones, ones, ones)
