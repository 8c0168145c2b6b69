"""The kernels' small dense solves: exact to rounding, and the factored one identical."""

import numpy as np

from rally_sim.physics.linear import factor, solve_factored, solve_in_place


def random_system(seed: int, n: int = 7):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, n)) + n * np.eye(n) * rng.choice([-1.0, 1.0]), rng.normal(size=n)


def test_solve_in_place_solves_with_pivoting():
    for seed in range(20):
        a, b = random_system(seed)
        a[[0, 3]] = a[[3, 0]]                     # a small leading pivot: needs a swap
        x = b.copy()
        assert solve_in_place(a.copy(), x, 7)
        assert np.allclose(a @ x, b, rtol=1e-12, atol=1e-12)


def test_factored_solves_are_bit_identical_to_solving_afresh():
    for seed in range(20):
        a, b = random_system(seed)
        lus = np.zeros((2, 7, 7))
        lus[1] = a
        pivots = np.zeros(9, dtype=np.int64)
        assert factor(lus[1], pivots[2:9], 7)
        for k in range(3):
            rhs = np.zeros((3, 7))
            rhs[1] = b * (k + 1)
            expected = rhs[1].copy()
            assert solve_in_place(a.copy(), expected, 7)
            solve_factored(lus, 1, pivots, 2, rhs, 1, 7)
            assert np.array_equal(rhs[1], expected)
            assert not rhs[0].any() and not rhs[2].any()


def test_a_singular_matrix_is_reported():
    a = np.ones((7, 7))
    assert not solve_in_place(a.copy(), np.ones(7), 7)
    assert not factor(a.copy(), np.zeros(7, dtype=np.int64), 7)
