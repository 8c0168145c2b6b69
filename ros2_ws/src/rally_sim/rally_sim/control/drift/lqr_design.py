"""
Linear-quadratic regulators in NumPy: matrix exponential, discretisation, discrete LQR. ROS-free.

For controllers designed on a linearisation of the model (lqr.py):
the continuous model x' = A x + B u is held over a control period T
(zero-order hold, Van Loan's block exponential), and the discrete
Riccati equation solved (structured doubling) for the gain of u = -K x
that minimises sum(x'Qx + u'Ru).
"""

from typing import Tuple

import numpy as np

TAYLOR_TERMS = 18
DOUBLING_STEPS = 100
RICCATI_TOLERANCE = 1e-12


def expm(a: np.ndarray) -> np.ndarray:
    """Return the matrix exponential of a square matrix (scaling and squaring, Taylor)."""
    norm = float(np.max(np.sum(np.abs(a), axis=1))) if a.size else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0.5 else 0
    scaled = a / (2.0 ** squarings)
    result = np.eye(len(a))
    term = np.eye(len(a))
    for k in range(1, TAYLOR_TERMS + 1):
        term = term @ scaled / k
        result = result + term
    for _ in range(squarings):
        result = result @ result
    return result


def discretise(a: np.ndarray, b: np.ndarray, period_s: float) -> Tuple[np.ndarray, np.ndarray]:
    """Return (Phi, Gamma) of x' = A x + B u with u held over period_s."""
    n, m = b.shape
    block = np.zeros((n + m, n + m))
    block[:n, :n] = a
    block[:n, n:] = b
    exponential = expm(block * period_s)
    return exponential[:n, :n], exponential[:n, n:]


def dlqr(phi: np.ndarray, gamma: np.ndarray, q: np.ndarray, r: np.ndarray) -> np.ndarray:
    """
    Return the gain K of u = -K x for x+ = Phi x + Gamma u, cost sum(x'Qx + u'Ru).

    The discrete Riccati equation's stabilising solution P by the
    structured doubling algorithm (quadratic convergence, a few dozen
    steps); ValueError when it does not settle (the pair cannot be
    stabilised).
    """
    n = len(phi)
    a, g, h = phi.copy(), gamma @ np.linalg.solve(r, gamma.T), q.copy()
    for _ in range(DOUBLING_STEPS):
        w = np.eye(n) + g @ h
        a_w = a @ np.linalg.inv(w)
        new_h = h + a.T @ h @ np.linalg.solve(w, a)
        g = g + a_w @ g @ a.T
        a = a_w @ a
        settled = np.max(np.abs(new_h - h)) <= RICCATI_TOLERANCE * max(1.0, np.max(np.abs(new_h)))
        h = 0.5 * (new_h + new_h.T)
        if settled:
            return np.linalg.solve(r + gamma.T @ h @ gamma, gamma.T @ h @ phi)
    raise ValueError('the discrete Riccati equation did not settle: the linearisation cannot '
                     'be stabilised with these inputs')
