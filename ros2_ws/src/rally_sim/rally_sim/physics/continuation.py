"""
Pseudo-arclength continuation: a curve of solutions of F(y) = 0 through folds and kinks.

F maps n + 1 unknowns y = (u, lambda) to n equations (lambda, the last
entry, is the parameter the curve is followed in). From a solution y_k and
the curve's unit tangent t_k (the null vector of dF/dy), the predictor is
y_k + ds t_k and the corrector solves F(y) = 0 together with
t_k . (y - y_pred) = 0 by Newton's method (Keller's pseudo-arclength
condition). Because the step is measured along the curve, not in lambda, a
fold (lambda turning back) is passed like any other point; the sign change
of the tangent's lambda component marks it.

The step adapts: it grows after an easy correction, halves after a failed
one. Where it falls below the smallest step without converging (a kink of
a non-smooth model: a differential's lock, a clutch engaging), the trace
leaps: it tries steps of 2, 4, ... 64 times the smallest along the last
tangent and goes on from the first that converges with a tangent that
still points the same way. Only when every leap fails does the curve end,
and the trace says where.

The unknowns should be scaled to order one (the caller's choice): the
arclength and every tolerance here are measured in them.
"""

from dataclasses import dataclass, field
import math
from typing import Callable, List, Optional, Tuple

import numpy as np

Function = Callable[[np.ndarray], np.ndarray]
MAX_CORRECTIONS = 12
EASY_CORRECTIONS = 3
"""A correction within this many iterations lets the step grow."""
LEAPS = (2, 4, 8, 16, 32, 64)
"""Multiples of the smallest step tried across a kink before the curve ends."""


@dataclass
class Trace:
    """One traced curve: its points (scaled unknowns, the parameter last) and how it ended."""

    points: List[np.ndarray] = field(default_factory=list)
    tangents: List[np.ndarray] = field(default_factory=list)
    folds: List[int] = field(default_factory=list)
    """Indices of points after which the parameter turns back."""
    leaps: int = 0
    """Kinks stepped across."""
    ended: str = ''
    """Why the trace stopped: the stop rule's words, or where the curve could not be followed."""

    @property
    def parameter(self) -> np.ndarray:
        """Return each point's parameter, its last unknown."""
        return np.array([p[-1] for p in self.points])


def jacobian(function: Function, y: np.ndarray) -> np.ndarray:
    """Return dF/dy by central differences (steps 1e-6 x max(1, |y_j|))."""
    columns = []
    for j in range(len(y)):
        eps = 1e-6 * max(1.0, abs(y[j]))
        up, down = y.copy(), y.copy()
        up[j] += eps
        down[j] -= eps
        columns.append((function(up) - function(down)) / (2.0 * eps))
    return np.column_stack(columns)


def tangent(jac: np.ndarray, previous: Optional[np.ndarray] = None) -> np.ndarray:
    """Return the unit null vector of an n x (n + 1) Jacobian, turned along `previous`."""
    t = np.linalg.svd(jac)[2][-1]
    if previous is not None and float(np.dot(t, previous)) < 0.0:
        t = -t
    return t


def correct(function: Function, predicted: np.ndarray, t: np.ndarray, tolerance: float,
            first_jacobian: Optional[np.ndarray] = None) -> Tuple[np.ndarray, float, int]:
    """
    Return the point on the curve in the plane through `predicted` normal to t.

    Newton's method on [F(y); t . (y - predicted)] = 0. Returns the point,
    the largest |F| left there (inf when the iteration broke down) and the
    iterations taken.
    """
    y = predicted.copy()
    jac = first_jacobian
    for iteration in range(MAX_CORRECTIONS + 1):
        f = function(y)
        norm = float(np.max(np.abs(f)))
        if not math.isfinite(norm):
            return y, math.inf, iteration
        if norm < tolerance:
            return y, norm, iteration
        if iteration == MAX_CORRECTIONS:
            break
        if jac is None:
            jac = jacobian(function, y)
        system = np.vstack([jac, t])
        rhs = -np.append(f, np.dot(t, y - predicted))
        try:
            y = y + np.linalg.solve(system, rhs)
        except np.linalg.LinAlgError:
            return y, math.inf, iteration
        jac = None
    return y, norm, MAX_CORRECTIONS


def trace(function: Function, start: np.ndarray, direction: np.ndarray,
          stop: Callable[[np.ndarray], str], tolerance: float, step: float = 0.05,
          min_step: float = 1e-4, max_step: float = 0.25, max_points: int = 400) -> Trace:
    """
    Follow the curve of F(y) = 0 from a solution `start`, first along `direction`.

    stop(y) returns '' to go on, or why to stop (the point is kept). The
    trace ends there, at max_points, or where no step converges.
    """
    jac = jacobian(function, start)
    t = tangent(jac, direction)
    result = Trace([start.copy()], [t.copy()])
    y, ds = start.copy(), step
    while len(result.points) < max_points:
        found = _step(function, y, t, jac, ds, tolerance)
        if found is None:
            if ds > min_step:
                ds = max(0.5 * ds, min_step)
                continue
            found = _leap(function, y, t, jac, min_step, tolerance)
            if found is None:
                result.ended = (f'no step of {min_step:g} to {LEAPS[-1] * min_step:g} '
                                'along the curve converges')
                return result
            result.leaps += 1
        z, t_new, jac, iterations = found
        if t_new[-1] * t[-1] < 0.0:
            result.folds.append(len(result.points) - 1)
        y, t = z, t_new
        result.points.append(y.copy())
        result.tangents.append(t.copy())
        if iterations <= EASY_CORRECTIONS:
            ds = min(1.5 * ds, max_step)
        why = stop(y)
        if why:
            result.ended = why
            return result
    result.ended = f'{max_points} points'
    return result


def _step(function: Function, y: np.ndarray, t: np.ndarray, jac: np.ndarray, ds: float,
          tolerance: float, least_cosine: float = 0.5):
    """
    Return (point, tangent, Jacobian, iterations) one step of ds on, or None.

    A step whose new tangent turns from t by more than acos(least_cosine)
    is refused: it jumped to another branch (a leap across a kink allows more).
    """
    predicted = y + ds * t
    z, norm, iterations = correct(function, predicted, t, tolerance, jac)
    if not norm < tolerance or np.linalg.norm(z - y) > 2.0 * ds:
        return None
    jac_z = jacobian(function, z)
    t_z = tangent(jac_z, t)
    if float(np.dot(t_z, t)) < least_cosine:
        return None
    return z, t_z, jac_z, iterations


def _leap(function: Function, y: np.ndarray, t: np.ndarray, jac: np.ndarray,
          min_step: float, tolerance: float):
    """Return the first step across a kink (LEAPS times min_step) that converges, or None."""
    for multiple in LEAPS:
        found = _step(function, y, t, jac, multiple * min_step, tolerance, 0.0)
        if found is not None:
            return found
    return None
