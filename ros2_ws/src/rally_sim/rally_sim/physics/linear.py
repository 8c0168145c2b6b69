"""
Small dense linear solves for the compiled kernels, allocation-free.

solve_in_place() is Gaussian elimination with partial pivoting. factor() and
solve_factored() split it in two so that one matrix can serve many right-hand
sides; they replay exactly the operations solve_in_place() applies to b, so
both give bit-identical results. Back substitution multiplies by each
pivot's reciprocal (a multiplication is far quicker than a division on the
solve's serial chain); factor() keeps the reciprocals on the diagonal.
"""

import numpy as np

from .jit import njit

SINGULAR = 1e-12
"""A pivot smaller than this in magnitude makes the matrix singular."""


@njit
def solve_in_place(a: np.ndarray, b: np.ndarray, n: int) -> bool:
    """Solve a[:n,:n] x = b[:n] by Gaussian elimination; x replaces b. False if singular."""
    for col in range(n):
        pivot = col
        for row in range(col + 1, n):
            if abs(a[row, col]) > abs(a[pivot, col]):
                pivot = row
        if abs(a[pivot, col]) < SINGULAR:
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
    _back_substitute(a, b, n)
    return True


@njit
def _back_substitute(a: np.ndarray, b: np.ndarray, n: int) -> None:
    """Solve the upper triangle of a[:n,:n] x = b[:n]; x replaces b."""
    for row in range(n - 1, -1, -1):
        total = b[row]
        for k in range(row + 1, n):
            total -= a[row, k] * b[k]
        b[row] = total * (1.0 / a[row, row])


@njit
def factor(a: np.ndarray, pivots: np.ndarray, n: int) -> bool:
    """
    Factor a[:n,:n] in place for solve_factored(); False if singular.

    The upper triangle becomes solve_in_place()'s reduced matrix but for its
    diagonal, which holds the pivots' reciprocals; below it, each elimination
    factor stays where it was computed, and pivots[col] records the row
    swapped with row col.
    """
    for col in range(n):
        pivot = col
        for row in range(col + 1, n):
            if abs(a[row, col]) > abs(a[pivot, col]):
                pivot = row
        if abs(a[pivot, col]) < SINGULAR:
            return False
        pivots[col] = pivot
        if pivot != col:
            for k in range(col, n):
                a[col, k], a[pivot, k] = a[pivot, k], a[col, k]
        for row in range(col + 1, n):
            ratio = a[row, col] / a[col, col]
            for k in range(col + 1, n):
                a[row, k] -= ratio * a[col, k]
            a[row, col] = ratio
        a[col, col] = 1.0 / a[col, col]
    return True


@njit
def solve_factored(lus: np.ndarray, which: int, ints: np.ndarray, first_pivot: int,
                   rhs: np.ndarray, row: int, n: int) -> None:
    """
    Solve with lus[which], factored by factor(); x replaces rhs[row, :n].

    The row swaps are ints[first_pivot:first_pivot + n]. Indexing whole
    arrays (no views) keeps this hot path free of reference counting.
    """
    for col in range(n):
        pivot = ints[first_pivot + col]
        if pivot != col:
            rhs[row, col], rhs[row, pivot] = rhs[row, pivot], rhs[row, col]
        for k in range(col + 1, n):
            rhs[row, k] -= lus[which, k, col] * rhs[row, col]
    for k in range(n - 1, -1, -1):
        total = rhs[row, k]
        for j in range(k + 1, n):
            total -= lus[which, k, j] * rhs[row, j]
        rhs[row, k] = total * lus[which, k, k]
