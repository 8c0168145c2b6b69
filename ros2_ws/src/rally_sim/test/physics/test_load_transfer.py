"""Load transfer (document 002, A.7): exact with wheel lift, and the document's own iteration."""

from hypothesis import given, strategies as st
import numpy as np
import pytest

from rally_sim.physics.load_transfer import (
    AX, AY, document_loads_work, LOAD, RHS, wheel_loads)

# V40 of document 002: m, g, Lf, Lr, c, h
M, G, LF, LR, C, H = 1600.0, 9.82, 1.15, 1.497, 0.776, 0.55
L = LF + LR


def loads(ax, ay):
    return wheel_loads(np.asarray(ax, float), np.asarray(ay, float), M, G, LF, LR, C, H)


def document_formula(fx_total, fy_total):
    """Section A.7, written out."""
    k = 1.0 / (4.0 * C * L)
    return k * np.array([
        2 * LR * C * G * M - 2 * C * H * fx_total - H * L * fy_total,
        2 * LR * C * G * M - 2 * C * H * fx_total + H * L * fy_total,
        2 * LF * C * G * M + 2 * C * H * fx_total - H * L * fy_total,
        2 * LF * C * G * M + 2 * C * H * fx_total + H * L * fy_total])


def test_static_loads_by_hand():
    fz = loads(np.zeros(4), np.zeros(4))
    # m g Lr / (2 L) = 15712 * 1.497 / 5.294 = 4442.9286 (rear: 7856 - that)
    assert fz[:2] == pytest.approx([4442.9286, 4442.9286], abs=1e-3)
    assert fz[2:] == pytest.approx([3413.0714, 3413.0714], abs=1e-3)


def test_solution_is_the_fixed_point_of_the_document_formula():
    ax = np.array([0.3, 0.25, 0.8, 0.7])     # unequal forces per unit load
    ay = np.array([0.5, 0.6, 0.4, 0.45])
    fz = loads(ax, ay)
    assert fz == pytest.approx(document_formula(ax @ fz, ay @ fz), rel=1e-12)
    # ... which the document's fixed-point iteration approaches.
    guess = loads(np.zeros(4), np.zeros(4))
    for _ in range(200):
        guess = document_formula(ax @ guess, ay @ guess)
    assert fz == pytest.approx(guess, rel=1e-9)


def test_longitudinal_transfer_is_m_ax_h_over_l():
    ax = np.full(4, -0.9)                     # hard braking: F_X = -0.9 m g
    fz = loads(ax, np.zeros(4))
    transfer = fz[0] + fz[1] - M * G * LR / L
    assert transfer == pytest.approx(M * 0.9 * G * H / L, rel=1e-12)


@given(st.lists(st.floats(-1.5, 1.5), min_size=4, max_size=4),
       st.lists(st.floats(-1.5, 1.5), min_size=4, max_size=4))
def test_loads_are_non_negative_and_sum_to_weight(ax, ay):
    fz = loads(ax, ay)
    assert np.all(fz >= 0.0)
    assert fz.sum() == pytest.approx(M * G, rel=1e-9)


def test_overloaded_corner_lifts_one_wheel_and_keeps_balance():
    ax = np.full(4, -1.2)   # braking ...
    ay = np.full(4, 1.4)    # ... while pushed hard to the left: the rear left lifts
    fz = loads(ax, ay)
    assert fz[2] == 0.0 and np.all(fz[[0, 1, 3]] > 0.0)
    fx_total, fy_total = ax @ fz, ay @ fz
    assert fz.sum() == pytest.approx(M * G)
    assert L * (fz[0] + fz[1]) + H * fx_total == pytest.approx(LR * M * G)       # pitch
    assert C * (fz[1] + fz[3] - fz[0] - fz[2]) == pytest.approx(H * fy_total)     # roll


def document_loads(ax, ay, iterations):
    work = np.zeros((RHS + 1, 4))
    work[AX], work[AY] = ax, ay
    document_loads_work(work, M, G, LF, LR, C, H, iterations)
    return work[LOAD].copy()


def test_document_iteration_is_the_document_formula_pass_by_pass():
    ax = np.array([0.3, 0.25, 0.8, 0.7])
    ay = np.array([0.5, 0.6, 0.4, 0.45])
    guess = loads(np.zeros(4), np.zeros(4))          # the document starts from static loads
    for passes in range(4):
        assert document_loads(ax, ay, passes) == pytest.approx(guess, rel=1e-13)
        guess = document_formula(ax @ guess, ay @ guess)
    # Run to its tolerance, it reaches the exact coupled solution.
    assert document_loads(ax, ay, 1000) == pytest.approx(loads(ax, ay), rel=1e-12)


def test_document_iteration_keeps_a_negative_load_and_takes_no_force_from_it():
    # Hard cornering to the left on a car whose left wheels grip little: the
    # formula unloads the left side below zero.
    ax = np.zeros(4)
    ay = np.array([0.05, 1.5, 0.05, 1.5])
    fz = document_loads(ax, ay, 1000)
    assert fz[0] < 0.0 and fz[2] < 0.0
    assert fz.sum() == pytest.approx(M * G, rel=1e-12)
    supported = fz > 0.0                       # a fixed point in which only these push
    assert fz == pytest.approx(document_formula(ax[supported] @ fz[supported],
                                                ay[supported] @ fz[supported]), rel=1e-9)
    # The exact solve lifts those wheels instead.
    exact = loads(ax, ay)
    assert exact[0] == 0.0 and exact[2] == 0.0
