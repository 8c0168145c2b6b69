"""Slip definitions and the combined-slip magic formula (document 002, A.5-A.6)."""

import math

from hypothesis import given, strategies as st
import pytest

from rally_sim.physics.tyre import (
    slip_angle, SLIP_DOCUMENT, SLIP_REGULARIZED, slips, unit_forces)

V40_TYRE = (10.0, 1.3, 1.0)  # B, C, D


def test_document_sigma_when_wheel_spins_faster_than_it_travels():
    sx, sy = slips(10.0, 0.5, 11.0, SLIP_DOCUMENT, 0.0)
    assert sx == pytest.approx(1.0 / 11.0)      # sigma = (wR - v) / wR
    assert sy == pytest.approx(0.5 / 11.0)      # v_y' / (wR)


def test_document_kappa_when_wheel_turns_slower_than_it_travels():
    sx, sy = slips(10.0, 0.5, 9.0, SLIP_DOCUMENT, 0.0)
    assert sx == pytest.approx(-0.1)            # kappa = (wR - v) / v
    assert sy == pytest.approx(0.5 / 9.0)


def test_document_guard_at_standstill_is_finite():
    sx, sy = slips(0.0, 0.0, 0.0, SLIP_DOCUMENT, 0.0)
    assert (sx, sy) == (0.0, 0.0)


def test_regularized_matches_document_forward_above_low_speed():
    for omega_r in (9.0, 11.0):
        assert slips(10.0, 0.0, omega_r, SLIP_REGULARIZED, 0.5)[0] == pytest.approx(
            slips(10.0, 0.0, omega_r, SLIP_DOCUMENT, 0.0)[0])
    # Free rolling: lateral slips agree too (v_y' / wR).
    assert slips(10.0, 0.7, 10.0, SLIP_REGULARIZED, 0.5)[1] == pytest.approx(0.07)


def test_regularized_reverse_mirrors_forward():
    forward = slips(10.0, 0.5, 11.0, SLIP_REGULARIZED, 0.5)
    reverse = slips(-10.0, 0.5, -11.0, SLIP_REGULARIZED, 0.5)
    assert reverse[0] == pytest.approx(-forward[0])    # drives backwards
    assert reverse[1] == pytest.approx(forward[1])     # lateral force still opposes v_y'


def test_regularized_low_speed_is_linear_in_slip_velocity():
    sx, sy = slips(0.1, -0.05, 0.2, SLIP_REGULARIZED, 0.5)
    assert sx == pytest.approx(0.1 / 0.5)
    assert sy == pytest.approx(-0.05 / 0.5)


def test_magic_formula_pure_longitudinal_by_hand():
    # D sin(C atan(B s)) with B=10, C=1.3, D=1, s=0.1: sin(1.3 * pi/4) = 0.852640...
    fx, fy = unit_forces(0.1, 0.0, *V40_TYRE)
    assert fx == pytest.approx(math.sin(1.3 * math.pi / 4.0), rel=1e-12)
    assert fx == pytest.approx(0.8526401643540922, rel=1e-12)
    assert fy == 0.0


def test_magic_formula_combined_splits_along_slip_direction():
    # s = 0.05 (3-4-5 triangle): magnitude D sin(C atan(0.5)) shared 0.6 / -0.8.
    fx, fy = unit_forces(0.03, 0.04, *V40_TYRE)
    magnitude = math.sin(1.3 * math.atan(0.5))
    assert fx == pytest.approx(0.6 * magnitude, rel=1e-12)
    assert fy == pytest.approx(-0.8 * magnitude, rel=1e-12)


def test_zero_slip_gives_zero_force():
    assert unit_forces(0.0, 0.0, *V40_TYRE) == (0.0, 0.0)


@given(st.floats(-50, 50), st.floats(-50, 50), st.floats(0.1, 30), st.floats(0.5, 2.5),
       st.floats(0.1, 2.0))
def test_friction_circle(sx, sy, b, c, d):
    fx, fy = unit_forces(sx, sy, b, c, d)
    assert math.hypot(fx, fy) <= d * (1.0 + 1e-12)


def test_locked_wheel_force_opposes_sliding_velocity():
    # Wheel locked (omega = 0) sliding at (10, 1) m/s: force along -(10, 1).
    sx, sy = slips(10.0, 1.0, 0.0, SLIP_REGULARIZED, 0.5)
    fx, fy = unit_forces(sx, sy, *V40_TYRE)
    assert fx < 0.0 and fy < 0.0
    assert fy / fx == pytest.approx(0.1)


def test_slip_angle_sign_and_reverse():
    assert slip_angle(10.0, 1.0) == pytest.approx(math.atan(0.1))
    assert slip_angle(-10.0, 1.0) == pytest.approx(math.atan(0.1))
    assert slip_angle(0.0, 0.0) == 0.0
    assert slip_angle(1e-4, 5e-3) == 0.0            # creeping patch: no direction
