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
loads, so one 4x4 solve gives the exact coupled solution that the document
approaches by fixed-point iteration. A wheel whose load would be negative is
lifted: its load is zero (and so is its force), and the remaining wheels carry
the car through R1-R3, dropping first the warp condition, then, with two wheels
left, the balance they cannot meet. Loads always sum to m g.
"""

import numpy as np

from .jit import njit

_SIDE = (-1.0, 1.0, -1.0, 1.0)   # -1 left wheels (fl, rl), +1 right wheels
_WARP = (1.0, -1.0, -1.0, 1.0)


@njit
def _solve_in_place(a: np.ndarray, b: np.ndarray, n: int) -> bool:
    """Solve a[:n,:n] x = b[:n] by Gaussian elimination; x replaces b. False if singular."""
    for col in range(n):
        pivot = col
        for row in range(col + 1, n):
            if abs(a[row, col]) > abs(a[pivot, col]):
                pivot = row
        if abs(a[pivot, col]) < 1e-12:
            return False
        if pivot != col:
            for k in range(n):
                a[col, k], a[pivot, k] = a[pivot, k], a[col, k]
            b[col], b[pivot] = b[pivot], b[col]
        for row in range(col + 1, n):
            factor = a[row, col] / a[col, col]
            for k in range(col, n):
                a[row, k] -= factor * a[col, k]
            b[row] -= factor * b[col]
    for row in range(n - 1, -1, -1):
        total = b[row]
        for k in range(row + 1, n):
            total -= a[row, k] * b[k]
        b[row] = total / a[row, row]
    return True


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
def _conditions_for(support: np.ndarray, n: int, chosen: np.ndarray) -> None:
    """Pick which of R1..R4 determine the loads of the `n` supporting wheels."""
    chosen[0], chosen[1], chosen[2], chosen[3] = 0, 1, 2, 3
    if n == 2:
        same_axle = (support[0] and support[1]) or (support[2] and support[3])
        chosen[1] = 2 if same_axle else 1


@njit
def wheel_loads(ax: np.ndarray, ay: np.ndarray, mass: float, gravity: float,
                cg_to_front: float, cg_to_rear: float, half_track: float,
                cg_height: float) -> np.ndarray:
    """
    Return the four wheel loads [N] (fl, fr, rl, rr), all >= 0, summing to m g.

    ax, ay: vehicle-frame tyre force of each wheel per newton of its load.
    """
    wheelbase = cg_to_front + cg_to_rear
    weight = mass * gravity
    rhs_all = (weight, cg_to_rear * weight, 0.0, 0.0)
    support = np.ones(4, dtype=np.bool_)
    chosen = np.zeros(4, dtype=np.int64)
    loads = np.zeros(4)
    a = np.zeros((4, 4))
    b = np.zeros(4)
    index = np.zeros(4, dtype=np.int64)
    for _ in range(4):
        n = 0
        for wheel in range(4):
            if support[wheel]:
                index[n] = wheel
                n += 1
        _conditions_for(support, n, chosen)
        for row in range(n):
            for col in range(n):
                a[row, col] = _coefficient(chosen[row], index[col], ax, ay,
                                           wheelbase, half_track, cg_height)
            b[row] = rhs_all[chosen[row]]
        if not _solve_in_place(a, b, n):
            break
        loads[:] = 0.0
        lowest = 0
        for k in range(n):
            loads[index[k]] = b[k]
            if b[k] < b[lowest]:
                lowest = k
        if b[lowest] >= 0.0 or n == 1:
            return loads
        support[index[lowest]] = False
    # Singular coupling (never met with physical tyre data): static loads.
    loads[0] = loads[1] = 0.5 * weight * cg_to_rear / wheelbase
    loads[2] = loads[3] = 0.5 * weight * cg_to_front / wheelbase
    return loads
