"""
Dynamic load transfer (document 002, A.7), solved exactly, with wheel lift.

The document gives each wheel load as an affine function of the total tyre
forces F_X, F_Y, which in turn are the loads times each tyre's force per unit
load. Written as conditions on the four loads, the document's formulas are:

  R1  sum of loads                        = m g           (vertical balance)
  R2  L (Fz_fl + Fz_fr) + h F_X           = L_r m g       (pitch balance)
  R3  c (Fz_fr + Fz_rr - Fz_fl - Fz_rl)   = h F_Y         (roll balance)
  R4  Fz_fl - Fz_fr - Fz_rl + Fz_rr       = 0             (no chassis warp:
                                            the lateral transfer is shared
                                            equally by the two axles)

With F_X = sum a_x,i Fz_i and F_Y = sum a_y,i Fz_i these are linear in the
loads, so they have one exact coupled solution, which the document approaches
by fixed-point iteration: in closed form with all wheels down, else by a 4x4
(or smaller) solve. A wheel whose load would be negative is
lifted: its load is zero (and so is its force), and the remaining wheels carry
the car through R1-R3, dropping first the warp condition, then, with two wheels
left, the balance they cannot meet. Loads always sum to m g.

Document mode (vehicle key load_transfer: document) instead runs the
document's own fixed-point iteration (document_loads_work): its formula's
loads, negative ones included, and no force from a tyre whose load is not
positive.
"""

import numpy as np

from .jit import njit
from .linear import solve_in_place

_SIDE = (-1.0, 1.0, -1.0, 1.0)   # -1 left wheels (fl, rl), +1 right wheels
_WARP = (1.0, -1.0, -1.0, 1.0)


@njit
def _coefficient(condition: int, wheel: int, ax: np.ndarray, ay: np.ndarray,
                 wheelbase: float, half_track: float, cg_height: float) -> float:
    """Coefficient of wheel `wheel`'s load in condition R1..R4 (0..3)."""
    if condition == 0:
        return 1.0
    if condition == 1:
        return (wheelbase if wheel < 2 else 0.0) + cg_height * ax[wheel]
    if condition == 2:
        return half_track * _SIDE[wheel] - cg_height * ay[wheel]
    return _WARP[wheel]


@njit
def _condition(row: int, n: int, support: int) -> int:
    """Which of R1..R4 (0..3) is row `row` of the system for the `n` supporting wheels."""
    if row == 1 and n == 2:
        same_axle = (support & 3) == 3 or (support & 12) == 12
        return 2 if same_axle else 1
    return row


@njit
def _supporting(support: int, k: int) -> int:
    """Return the k-th supporting wheel (bit i of `support` set: wheel i carries load)."""
    for wheel in range(4):
        if support & (1 << wheel):
            if k == 0:
                return wheel
            k -= 1
    return -1


@njit
def _fill_system(support: int, n: int, ax: np.ndarray, ay: np.ndarray, wheelbase: float,
                 half_track: float, cg_height: float, weight: float, pitch: float,
                 a: np.ndarray, b: np.ndarray) -> None:
    """Write the conditions that fix the supporting wheels' loads as a x = b."""
    if support == 15:       # all four wheels on the ground: R1-R4 in wheel order
        for wheel in range(4):
            for condition in range(4):
                a[condition, wheel] = _coefficient(condition, wheel, ax, ay, wheelbase,
                                                   half_track, cg_height)
        b[0], b[1], b[2], b[3] = weight, pitch, 0.0, 0.0
        return
    for row in range(n):
        condition = _condition(row, n, support)
        for col in range(n):
            a[row, col] = _coefficient(condition, _supporting(support, col), ax, ay,
                                       wheelbase, half_track, cg_height)
        b[row] = weight if condition == 0 else (pitch if condition == 1 else 0.0)


DOCUMENT_TOLERANCE_N = 1e-10
"""Document 002's stopping tolerance of its load iteration [N]."""

AX, AY, LOAD, SYSTEM, RHS = 0, 1, 4, 8, 12
"""Rows of the (at least 13 x 4) work array of wheel_loads_work(): inputs a_x and
a_y, output loads, and scratch (SYSTEM: 4 rows, RHS: 1 row)."""


@njit
def load_formula(mass: float, gravity: float, cg_to_front: float, cg_to_rear: float,
                 half_track: float, cg_height: float) -> tuple:
    """
    Return the document's load formula Fz_i = base_i + gx_i F_X + gy_i F_Y as coefficients.

    (static front load, static rear load, gx of a front wheel (-gx at the
    rear), gy of a right wheel (-gy on the left)).
    """
    wheelbase = cg_to_front + cg_to_rear
    weight = mass * gravity
    return (0.5 * weight * cg_to_rear / wheelbase, 0.5 * weight * cg_to_front / wheelbase,
            -cg_height / (2.0 * wheelbase), cg_height / (4.0 * half_track))


@njit
def wheel_loads_work(work: np.ndarray, mass: float, gravity: float, cg_to_front: float,
                     cg_to_rear: float, half_track: float, cg_height: float) -> None:
    """
    wheel_loads_into() on the rows of one work array (no array views: fast).

    With all four wheels down the loads are found in closed form: given the
    totals F_X, F_Y, R1-R4 give the document's affine formula
    Fz_i = base_i + gx_i F_X + gy_i F_Y, and F_X = sum a_x,i Fz_i,
    F_Y = sum a_y,i Fz_i leave a 2 x 2 system for (F_X, F_Y).
    """
    base_front, base_rear, gx_front, gy_right = load_formula(
        mass, gravity, cg_to_front, cg_to_rear, half_track, cg_height)
    a11, a12, a21, a22, r1, r2 = 1.0, 0.0, 0.0, 1.0, 0.0, 0.0
    for i in range(4):
        base = base_front if i < 2 else base_rear
        gx = gx_front if i < 2 else -gx_front
        gy = _SIDE[i] * gy_right
        ax, ay = work[AX, i], work[AY, i]
        a11 -= ax * gx
        a12 -= ax * gy
        a21 -= ay * gx
        a22 -= ay * gy
        r1 += ax * base
        r2 += ay * base
    det = a11 * a22 - a12 * a21
    if abs(det) >= 1e-9:
        force_x = (r1 * a22 - a12 * r2) / det
        force_y = (a11 * r2 - a21 * r1) / det
        down = True
        for i in range(4):
            base = base_front if i < 2 else base_rear
            gx = gx_front if i < 2 else -gx_front
            work[LOAD, i] = base + gx * force_x + _SIDE[i] * gy_right * force_y
            down = down and work[LOAD, i] >= 0.0
        if down:
            return
    wheel_loads_into(work[AX], work[AY], mass, gravity, cg_to_front, cg_to_rear, half_track,
                     cg_height, work[LOAD], work[SYSTEM:SYSTEM + 4], work[RHS])


@njit
def document_loads_work(work: np.ndarray, mass: float, gravity: float, cg_to_front: float,
                        cg_to_rear: float, half_track: float, cg_height: float,
                        iterations: int) -> None:
    """
    Document 002's own load transfer on the rows of a work array (document mode).

    The document's fixed-point iteration as its reference code runs it: from
    the static loads, at most `iterations` passes of "forces at these loads,
    then the formula's loads from their totals", stopping once no load moves
    by more than DOCUMENT_TOLERANCE_N. A load may come out negative (the
    formula knows no lift); a tyre whose load is not positive gives no force,
    in the iteration and in the caller (model._chassis).
    """
    base_front, base_rear, gx_front, gy_right = load_formula(
        mass, gravity, cg_to_front, cg_to_rear, half_track, cg_height)
    for i in range(4):
        work[LOAD, i] = base_front if i < 2 else base_rear
    for _ in range(iterations):
        force_x = 0.0
        force_y = 0.0
        for i in range(4):
            load = work[LOAD, i]
            if load > 0.0:
                force_x += work[AX, i] * load
                force_y += work[AY, i] * load
        change = 0.0
        for i in range(4):
            base = base_front if i < 2 else base_rear
            gx = gx_front if i < 2 else -gx_front
            load = base + gx * force_x + _SIDE[i] * gy_right * force_y
            change = max(change, abs(load - work[LOAD, i]))
            work[LOAD, i] = load
        if change <= DOCUMENT_TOLERANCE_N:
            return


@njit
def wheel_loads_into(ax: np.ndarray, ay: np.ndarray, mass: float, gravity: float,
                     cg_to_front: float, cg_to_rear: float, half_track: float,
                     cg_height: float, loads: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """
    Write the four wheel loads [N] (fl, fr, rl, rr), all >= 0, summing to m g, into `loads`.

    ax, ay: vehicle-frame tyre force of each wheel per newton of its load;
    a (4 x 4) and b (4) are work space. Allocates nothing.
    """
    wheelbase = cg_to_front + cg_to_rear
    weight = mass * gravity
    support = 15
    for _ in range(4):
        n = 0
        for wheel in range(4):
            if support & (1 << wheel):
                n += 1
        _fill_system(support, n, ax, ay, wheelbase, half_track, cg_height, weight,
                     cg_to_rear * weight, a, b)
        if not solve_in_place(a, b, n):
            break
        for wheel in range(4):
            loads[wheel] = 0.0
        lowest = 0
        for k in range(n):
            loads[_supporting(support, k)] = b[k]
            if b[k] < b[lowest]:
                lowest = k
        if b[lowest] >= 0.0 or n == 1:
            return
        support &= ~(1 << _supporting(support, lowest))
    # Singular coupling (never met with physical tyre data): static loads.
    loads[0] = loads[1] = 0.5 * weight * cg_to_rear / wheelbase
    loads[2] = loads[3] = 0.5 * weight * cg_to_front / wheelbase


@njit
def wheel_loads(ax: np.ndarray, ay: np.ndarray, mass: float, gravity: float,
                cg_to_front: float, cg_to_rear: float, half_track: float,
                cg_height: float) -> np.ndarray:
    """Return the four wheel loads [N] of wheel_loads_work() as a new array."""
    work = np.zeros((RHS + 1, 4))
    work[AX] = ax
    work[AY] = ay
    wheel_loads_work(work, mass, gravity, cg_to_front, cg_to_rear, half_track, cg_height)
    return work[LOAD].copy()
