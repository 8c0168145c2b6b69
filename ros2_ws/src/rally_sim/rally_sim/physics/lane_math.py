"""
atan, sin and cos the compiler can vectorise: branch-free, no library calls.

numba calls the C library for math.atan, math.sin and math.cos, one value at
a time; a loop over many cars that calls them cannot use the CPU's vector
units (numba's vector math library, SVML, is not in PyPI's llvmlite). These
versions are polynomials with range reduction written as selects, so a loop
over cars compiles to AVX2 instructions, four cars per instruction. They are
within a few units in the last place of the C library's (tests: lane_math),
so a car stepped with them stays within 1e-12 of the same car stepped with
math.* over a rollout.

Coefficients are Taylor series' (exact rationals); the split of pi/2 for the
reduction was computed with integer arithmetic (Machin's formula), see
test/physics/test_lane_math.py.
"""

import math

from .jit import njit_inline

SQRT3 = math.sqrt(3.0)
TAN_PI_12 = 2.0 - SQRT3
"""atan's reduction: |x| > 1 -> pi/2 - atan(1/x); t > tan(pi/12) -> pi/6 + atan(u)."""

HALF_PI_1 = 1.5707963267341256
HALF_PI_2 = 6.077100506303966e-11
HALF_PI_3 = 2.0222662487959506e-21
"""pi/2 = HALF_PI_1 + HALF_PI_2 + HALF_PI_3 (to 1e-37); the first two have 33
significant bits, so k * HALF_PI_1 and k * HALF_PI_2 are exact for |k| < 2^20
(arguments up to about 1.6e6 rad)."""
TWO_OVER_PI = 0.6366197723675814


@njit_inline
def lane_atan(x: float) -> float:
    """Return atan(x) [rad] (within 4 ulp of math.atan)."""
    a = abs(x)
    big = a > 1.0
    t = 1.0 / a if big else a
    mid = t > TAN_PI_12
    u = (t * SQRT3 - 1.0) / (t + SQRT3) if mid else t      # |u| <= tan(pi/12)
    z = u * u       # <= 0.072: 14 terms of the series reach 1e-17 relative
    p = -1.0 / 27.0
    p = p * z + 1.0 / 25.0
    p = p * z - 1.0 / 23.0
    p = p * z + 1.0 / 21.0
    p = p * z - 1.0 / 19.0
    p = p * z + 1.0 / 17.0
    p = p * z - 1.0 / 15.0
    p = p * z + 1.0 / 13.0
    p = p * z - 1.0 / 11.0
    p = p * z + 1.0 / 9.0
    p = p * z - 1.0 / 7.0
    p = p * z + 1.0 / 5.0
    p = p * z - 1.0 / 3.0
    r = u + u * (z * p)
    r = r + math.pi / 6.0 if mid else r
    r = math.pi / 2.0 - r if big else r
    return math.copysign(r, x)


@njit_inline
def _sin_poly(r: float, z: float) -> float:
    """Return sin(r) for |r| <= pi/4 (z = r^2), Taylor series to r^17."""
    p = 1.0 / 355687428096000.0                 # 1/17!
    p = p * z - 1.0 / 1307674368000.0           # 1/15!
    p = p * z + 1.0 / 6227020800.0              # 1/13!
    p = p * z - 1.0 / 39916800.0                # 1/11!
    p = p * z + 1.0 / 362880.0                  # 1/9!
    p = p * z - 1.0 / 5040.0
    p = p * z + 1.0 / 120.0
    p = p * z - 1.0 / 6.0
    return r + r * (z * p)


@njit_inline
def _cos_poly(z: float) -> float:
    """Return cos(r) for |r| <= pi/4 (z = r^2), Taylor series to r^18."""
    p = -1.0 / 6402373705728000.0               # 1/18!
    p = p * z + 1.0 / 20922789888000.0          # 1/16!
    p = p * z - 1.0 / 87178291200.0             # 1/14!
    p = p * z + 1.0 / 479001600.0               # 1/12!
    p = p * z - 1.0 / 3628800.0                 # 1/10!
    p = p * z + 1.0 / 40320.0
    p = p * z - 1.0 / 720.0
    p = p * z + 1.0 / 24.0
    return 1.0 - 0.5 * z + z * (z * p)


@njit_inline
def lane_sincos(x: float) -> tuple:
    """Return (sin(x), cos(x)) (within 2 ulp of math.sin, math.cos for |x| < 1.6e6)."""
    k = math.floor(x * TWO_OVER_PI + 0.5)
    r = ((x - k * HALF_PI_1) - k * HALF_PI_2) - k * HALF_PI_3      # |r| <= pi/4
    z = r * r
    s = _sin_poly(r, z)
    c = _cos_poly(z)
    quadrant = k - 4.0 * math.floor(0.25 * k)          # 0, 1, 2 or 3
    odd = quadrant == 1.0 or quadrant == 3.0
    sin_x = c if odd else s
    cos_x = s if odd else c
    sin_x = -sin_x if quadrant >= 2.0 else sin_x
    cos_x = -cos_x if quadrant == 1.0 or quadrant == 2.0 else cos_x
    return sin_x, cos_x
