"""Drivetrain equations (reference 003): engine, gears, couplings, differentials."""

import math

import numpy as np
import pytest

from rally_sim.physics.drivetrain.equations import (
    CLUTCH_PACK, coupling_torque, curve_torque, D_CURVE_N_M, D_CURVE_POINTS, D_CURVE_RPM,
    D_EFFICIENCY, D_FINAL, D_GEARS, D_LAYOUT, D_RATIOS, differential_capacity, engine_torque,
    LOCKED, OPEN, overall_ratio, RPM_PER_RAD_S, RWD, TORQUE_BIAS)
from rally_sim.physics.model import P_DRIVETRAIN, P_TYRE_MODEL, PARAM_SIZE
from support.vehicles import vehicle

# Reference 003's LS1 (Corvette C5): 1000-6000 rpm, 475 N m at 4400 rpm.
CURVE_RPM = np.array([1000.0, 2000.0, 3000.0, 4000.0, 4400.0, 5000.0, 6000.0])
CURVE_N_M = np.array([390.0, 430.0, 450.0, 470.0, 475.0, 460.0, 390.0])
RATIOS = np.array([2.66, 1.78, 1.30, 1.00, 0.74, 0.50])
FINAL, REVERSE, EFFICIENCY, RADIUS = 3.42, 2.90, 0.7, 0.34


def rad_s(rpm):
    return rpm / RPM_PER_RAD_S


def block():
    """Return the drivetrain block of a Corvette with this test's torque curve."""
    config = vehicle('corvette_c5').with_overrides({
        'engine.torque_curve_rpm': CURVE_RPM.tolist(),
        'engine.torque_curve_n_m': CURVE_N_M.tolist(), 'engine.idle_rpm': 800.0,
        'engine.limit_rpm': 6000.0, 'engine.braking_n_m': 60.0})
    return config.model_params().drivetrain


BLOCK = block()


def test_the_curve_is_interpolated_and_held_at_its_ends():
    assert curve_torque(4400.0, BLOCK, 0) == 475.0
    assert curve_torque(4200.0, BLOCK, 0) == pytest.approx(472.5)
    assert curve_torque(500.0, BLOCK, 0) == 390.0
    assert curve_torque(7000.0, BLOCK, 0) == 390.0


def engine(rpm, throttle):
    return engine_torque(rad_s(rpm), throttle, BLOCK, 0)


def test_engine_torque_throttle_braking_limiter_and_idle():
    assert engine(4400.0, 1.0) == pytest.approx(475.0)
    assert engine(4400.0, 0.5) == pytest.approx(0.5 * 475.0 - 0.5 * 60.0 * 4400.0 / 6000.0)
    assert engine(3000.0, 0.0) == pytest.approx(-30.0)               # engine braking
    assert engine(6000.5, 1.0) == 0.0                                # fuel cut at the limiter
    assert engine(6500.0, 0.0) == pytest.approx(-65.0)               # braking beyond it
    assert engine(400.0, 0.0) == pytest.approx(390.0 * 0.5)          # idle governor
    assert engine(0.0, 0.0) == pytest.approx(390.0)


def test_first_gear_force_at_4400_rpm_is_reference_003s():
    ratio = overall_ratio(1, BLOCK, 0)
    force = engine(4400.0, 1.0) * ratio * EFFICIENCY / RADIUS
    assert force == pytest.approx(475 * 2.66 * 3.42 * 0.7 / 0.34)  # 9,353 N, before tyre limits
    # and the engine turns ratio times the wheels: 4400 rpm is 17.5 m/s in first
    wheel_rad_s = rad_s(4400.0) / ratio
    assert wheel_rad_s * RADIUS == pytest.approx(4400 / 9.0972 * 2 * math.pi / 60 * 0.34, rel=1e-3)
    assert overall_ratio(0, BLOCK, 0) == 0.0
    assert overall_ratio(-1, BLOCK, 0) == pytest.approx(-2.90 * 3.42)
    assert overall_ratio(6, BLOCK, 0) == pytest.approx(0.5 * 3.42)


def test_a_coupling_within_capacity_ends_the_step_at_one_speed():
    h, ia, ib, ratio = 0.001, 0.2, 3.0, 9.0972
    torque = coupling_torque(500.0, 40.0, ia, ib, ratio, math.inf, h)
    a, b = 500.0 - h * torque / ia, 40.0 + h * ratio * torque / ib
    assert a == pytest.approx(ratio * b, rel=1e-12)


def test_a_coupling_slips_at_its_capacity_and_never_adds_energy():
    rng = np.random.default_rng(0)
    for _ in range(500):
        wa, wb = rng.uniform(-300.0, 300.0, 2)
        ia, ib = rng.uniform(0.05, 5.0, 2)
        ratio = rng.uniform(0.5, 12.0)
        capacity = rng.choice([rng.uniform(0.0, 500.0), math.inf])
        h = rng.uniform(1e-4, 1e-2)
        torque = coupling_torque(wa, wb, ia, ib, ratio, capacity, h)
        assert abs(torque) <= capacity
        a, b = wa - h * torque / ia, wb + h * ratio * torque / ib
        before = 0.5 * ia * wa ** 2 + 0.5 * ib * wb ** 2
        after = 0.5 * ia * a ** 2 + 0.5 * ib * b ** 2
        assert after <= before * (1 + 1e-12) + 1e-9
        # the slip keeps its sign: a slipping coupling never overshoots
        assert (a - ratio * b) * (wa - ratio * wb) >= -1e-9 * (1 + abs(wa) + abs(wb))


def test_differential_capacities_follow_their_kind():
    assert differential_capacity(OPEN, 800.0, 50.0, 0.3, 3.0) == 0.0
    assert differential_capacity(LOCKED, 800.0, 0.0, 0.0, 1.0) == math.inf
    for input_n_m in (100.0, 800.0, -600.0):
        # clutch pack: outputs differ by at most preload + lock factor x |input|
        transfer = differential_capacity(CLUTCH_PACK, input_n_m, 50.0, 0.2, 1.0)
        assert 2.0 * transfer == pytest.approx(50.0 + 0.2 * abs(input_n_m))
        # torque bias: the slower output gets at most TBR times the faster one's
        transfer = differential_capacity(TORQUE_BIAS, input_n_m, 0.0, 0.0, 3.0)
        half = 0.5 * abs(input_n_m)
        assert (half + transfer) / (half - transfer) == pytest.approx(3.0)


def test_the_kernel_parameters_carry_the_vehicle_files_drivetrain():
    config = vehicle('corvette_c5')
    p = config.model_params().flat()
    assert len(p) == PARAM_SIZE
    block = p[P_DRIVETRAIN:]
    assert block[D_LAYOUT] == RWD and block[D_GEARS] == 6
    np.testing.assert_array_equal(block[D_RATIOS:D_RATIOS + 6], RATIOS)
    points = int(block[D_CURVE_POINTS])
    assert block[D_CURVE_RPM:D_CURVE_RPM + points].tolist() == [1000, 2500, 4400, 5600, 6000]
    assert block[D_CURVE_N_M:D_CURVE_N_M + points].tolist() == [390, 448, 475, 438, 400]
    assert curve_torque(4400.0, p, P_DRIVETRAIN) == 475.0
    assert block[D_FINAL] == FINAL and block[D_EFFICIENCY] == EFFICIENCY
    assert not vehicle('volvo_v40').model_params().flat()[P_DRIVETRAIN:P_TYRE_MODEL].any()
