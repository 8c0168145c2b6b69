"""The LQR toolkit: matrix exponential, zero-order hold, the discrete Riccati solution."""

import numpy as np

from rally_sim.control.drift.lqr_design import discretise, dlqr, expm


def test_expm_of_a_rotation_and_of_a_diagonal():
    angle = 2.5
    rotation = expm(np.array([[0.0, -angle], [angle, 0.0]]))
    assert np.allclose(rotation, [[np.cos(angle), -np.sin(angle)],
                                  [np.sin(angle), np.cos(angle)]], atol=1e-13)
    assert np.allclose(expm(np.diag([-120.0, 3.0])), np.diag(np.exp([-120.0, 3.0])),
                       rtol=1e-12, atol=1e-60)


def test_zero_order_hold_of_a_double_integrator():
    phi, gamma = discretise(np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([[0.0], [1.0]]), 0.1)
    assert np.allclose(phi, [[1.0, 0.1], [0.0, 1.0]], atol=1e-15)
    assert np.allclose(gamma, [[0.005], [0.1]], atol=1e-15)


def test_the_gain_solves_the_riccati_equation_and_stabilises_a_saddle():
    rng = np.random.default_rng(3)
    a = np.array([[1.9, 0.3, 0.0], [0.5, -4.0, 1.0], [0.0, 2.0, -0.7]])   # one unstable mode
    b = rng.standard_normal((3, 2))
    phi, gamma = discretise(a, b, 0.02)
    q, r = np.diag([3.0, 1.0, 2.0]), np.diag([0.5, 2.0])
    gain = dlqr(phi, gamma, q, r)
    closed = phi - gamma @ gain
    assert np.max(np.abs(np.linalg.eigvals(closed))) < 1.0
    # P from the gain: P = Q + K'RK + (Phi - Gamma K)' P (Phi - Gamma K), and K is its optimum
    p = q + gain.T @ r @ gain
    for _ in range(20000):
        p = q + gain.T @ r @ gain + closed.T @ p @ closed
    assert np.allclose(gain, np.linalg.solve(r + gamma.T @ p @ gamma, gamma.T @ p @ phi),
                       rtol=1e-8)
