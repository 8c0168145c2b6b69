"""
atan, sin, cos, tan and exp the compiler can vectorise: branch-free, no library calls.

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

import numpy as np

from ..jit import fma, njit_inline

SQRT3 = math.sqrt(3.0)
TAN_PI_12 = 2.0 - SQRT3
COT_PI_12 = 2.0 + SQRT3
"""atan's reduction to |u| <= tan(pi/12): atan(a) = off +- atan(u) (lane_atan)."""

HALF_PI_1 = 1.5707963267341256
HALF_PI_2 = 6.077100506303966e-11
HALF_PI_3 = 2.0222662487959506e-21
"""pi/2 = HALF_PI_1 + HALF_PI_2 + HALF_PI_3 (to 1e-37); the first two have 33
significant bits, so k * HALF_PI_1 and k * HALF_PI_2 are exact for |k| < 2^20
(arguments up to about 1.6e6 rad)."""
TWO_OVER_PI = 0.6366197723675814

LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
"""ln 2 = LN2_HI + LN2_LO (fdlibm's split): LN2_HI has 32 significant bits, so k * LN2_HI
is exact for the |k| <= 1010 lane_exp meets."""
INV_LN2 = 1.4426950408889634
EXP_LIMIT = 700.0
"""lane_exp's arguments are clamped to +-EXP_LIMIT (e^700 is 1e304: no overflow)."""


@njit_inline
def lane_atan(x: float) -> float:
    """Return atan(x) [rad] (within 2 ulp of math.atan)."""
    a = abs(x)
    # atan(a) = off + sign atan(num / den) with |num / den| <= tan(pi/12), one division:
    # a; pi/6 + atan((a sqrt3 - 1) / (a + sqrt3)); pi/3 - atan((sqrt3 - a) / (1 + a sqrt3)),
    # which is pi/2 - (pi/6 + the former's of 1/a); pi/2 - atan(1 / a).
    low, one, high = a <= TAN_PI_12, a <= 1.0, a <= COT_PI_12
    num = a if low else (a * SQRT3 - 1.0 if one else (SQRT3 - a if high else 1.0))
    den = 1.0 if low else (a + SQRT3 if one else (1.0 + a * SQRT3 if high else a))
    off = 0.0 if low else (math.pi / 6.0 if one else (math.pi / 3.0 if high else math.pi / 2.0))
    u = num / den
    z = u * u       # <= 0.072: the series to u^27 reaches 1e-17 relative
    y = fma(u, z * _estrin13(z), u)
    return math.copysign(off + y if one else off - y, x)


@njit_inline
def _estrin13(z: float) -> float:
    """Return sum (-1)^n z^(n-1) / (2n+1), n = 1..13 (atan's series after u), by Estrin."""
    z2 = z * z
    z4 = z2 * z2
    z8 = z4 * z4
    r0 = fma(z2, fma(z, 1.0 / 9.0, -1.0 / 7.0), fma(z, 1.0 / 5.0, -1.0 / 3.0))
    r1 = fma(z2, fma(z, 1.0 / 17.0, -1.0 / 15.0), fma(z, 1.0 / 13.0, -1.0 / 11.0))
    r2 = fma(z2, fma(z, 1.0 / 25.0, -1.0 / 23.0), fma(z, 1.0 / 21.0, -1.0 / 19.0))
    return fma(z8, fma(z4, -1.0 / 27.0, r2), fma(z4, r1, r0))


@njit_inline
def _sin_poly(r: float, z: float) -> float:
    """Return sin(r) for |r| <= pi/4 (z = r^2): Taylor series to r^17, by Estrin."""
    z2 = z * z
    z4 = z2 * z2
    r0 = fma(z2, fma(z, 1.0 / 362880.0, -1.0 / 5040.0), fma(z, 1.0 / 120.0, -1.0 / 6.0))
    r1 = fma(z2, fma(z, 1.0 / 355687428096000.0, -1.0 / 1307674368000.0),
             fma(z, 1.0 / 6227020800.0, -1.0 / 39916800.0))
    return fma(r, z * fma(z4, r1, r0), r)


@njit_inline
def _cos_poly(z: float) -> float:
    """Return cos(r) for |r| <= pi/4 (z = r^2): Taylor series to r^18, by Estrin."""
    z2 = z * z
    z4 = z2 * z2
    r0 = fma(z2, fma(z, -1.0 / 3628800.0, 1.0 / 40320.0), fma(z, -1.0 / 720.0, 1.0 / 24.0))
    r1 = fma(z2, fma(z, -1.0 / 6402373705728000.0, 1.0 / 20922789888000.0),
             fma(z, -1.0 / 87178291200.0, 1.0 / 479001600.0))
    return fma(z, z * fma(z4, r1, r0), 1.0 - 0.5 * z)


@njit_inline
def lane_sincos(x: float) -> tuple:
    """Return (sin(x), cos(x)) (within 2 ulp of math.sin, math.cos for |x| < 1.6e6)."""
    k = np.floor(x * TWO_OVER_PI + 0.5)
    r = ((x - k * HALF_PI_1) - k * HALF_PI_2) - k * HALF_PI_3      # |r| <= pi/4
    z = r * r
    s = _sin_poly(r, z)
    c = _cos_poly(z)
    quadrant = k - 4.0 * np.floor(0.25 * k)          # 0, 1, 2 or 3
    odd = quadrant == 1.0 or quadrant == 3.0
    sin_x = c if odd else s
    cos_x = s if odd else c
    sin_x = -sin_x if quadrant >= 2.0 else sin_x
    cos_x = -cos_x if quadrant == 1.0 or quadrant == 2.0 else cos_x
    return sin_x, cos_x


@njit_inline
def lane_sin(x: float) -> float:
    """Return sin(x) (within 2 ulp of math.sin for |x| < 3e6): one polynomial, no cosine."""
    k = np.floor(x * (0.5 * TWO_OVER_PI) + 0.5)          # x = k pi + r, |r| <= pi/2
    r = ((x - k * (2.0 * HALF_PI_1)) - k * (2.0 * HALF_PI_2)) - k * (2.0 * HALF_PI_3)
    z = r * r
    z2 = z * z
    z4 = z2 * z2
    z8 = z4 * z4
    # Taylor series to r^23 (|r|^25 / 25! < 1e-20), by Estrin
    r0 = fma(z2, fma(z, 1.0 / 362880.0, -1.0 / 5040.0), fma(z, 1.0 / 120.0, -1.0 / 6.0))
    r1 = fma(z2, fma(z, 1.0 / 355687428096000.0, -1.0 / 1307674368000.0),
             fma(z, 1.0 / 6227020800.0, -1.0 / 39916800.0))
    r2 = fma(z2, -1.0 / 25852016738884976640000.0,
             fma(z, 1.0 / 51090942171709440000.0, -1.0 / 121645100408832000.0))
    sin_r = fma(r, z * fma(z8, r2, fma(z4, r1, r0)), r)
    odd = k - 2.0 * np.floor(0.5 * k) == 1.0
    return -sin_r if odd else sin_r


@njit_inline
def lane_cos(x: float) -> float:
    """Return cos(x) (within 2 ulp of math.cos for |x| < 1.6e6)."""
    return lane_sincos(x)[1]


@njit_inline
def lane_tan(x: float) -> float:
    """Return tan(x) as sin(x) / cos(x) (within 4 ulp of math.tan away from its poles)."""
    sin_x, cos_x = lane_sincos(x)
    return sin_x / cos_x


@njit_inline
def lane_exp(x: float) -> float:
    """Return e^x (within 2 ulp of math.exp for |x| <= EXP_LIMIT; e^+-EXP_LIMIT beyond)."""
    x = min(max(x, -EXP_LIMIT), EXP_LIMIT)
    k = np.floor(x * INV_LN2 + 0.5)
    r = (x - k * LN2_HI) - k * LN2_LO                     # |r| <= ln(2) / 2
    z2 = r * r
    z4 = z2 * z2
    z8 = z4 * z4
    # q = sum r^m / (m + 2)!, m = 0..15 (the next term is below 1e-22), by Estrin
    q01 = fma(r, 1.0 / 6.0, 1.0 / 2.0)
    q23 = fma(r, 1.0 / 120.0, 1.0 / 24.0)
    q45 = fma(r, 1.0 / 5040.0, 1.0 / 720.0)
    q67 = fma(r, 1.0 / 362880.0, 1.0 / 40320.0)
    q89 = fma(r, 1.0 / 39916800.0, 1.0 / 3628800.0)
    q1011 = fma(r, 1.0 / 6227020800.0, 1.0 / 479001600.0)
    q1213 = fma(r, 1.0 / 1307674368000.0, 1.0 / 87178291200.0)
    q1415 = fma(r, 1.0 / 355687428096000.0, 1.0 / 20922789888000.0)
    low = fma(z4, fma(z2, q67, q45), fma(z2, q23, q01))
    high = fma(z4, fma(z2, q1415, q1213), fma(z2, q1011, q89))
    e_r = 1.0 + fma(z2, fma(z8, high, low), r)           # e^r = 1 + r + r^2 q
    scale = _two_to(abs(k))
    return e_r * scale if k >= 0.0 else e_r / scale      # exact: scale is a power of two


@njit_inline
def _two_to(n: float) -> float:
    """Return 2^n for a whole n in [0, 1023], from its bits by selects (exact)."""
    scale = 1.0
    for factor in (2.0, 4.0, 16.0, 256.0, 65536.0, 2.0 ** 32, 2.0 ** 64, 2.0 ** 128,
                   2.0 ** 256, 2.0 ** 512):
        half = np.floor(0.5 * n)
        scale = scale * factor if n - 2.0 * half == 1.0 else scale
        n = half
    return scale
