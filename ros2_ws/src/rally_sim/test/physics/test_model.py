"""The chassis and wheel equations, geometry and steady states (document 002, A.1-A.4)."""

import math

import numpy as np
import pytest

from rally_sim.physics.model import (
    derivatives, DIAG_SIZE, FORCE_X, FORCE_Y, NORMAL_LOAD, road_wheel_angles, SLIP_ANGLE,
    STEER_ANGLE)


def evaluate(config, z, steer=0.0, drive=(0.0, 0.0, 0.0, 0.0)):
    diag = np.zeros((DIAG_SIZE, 4))
    dz = derivatives(np.asarray(z, float), steer, np.asarray(drive, float),
                     config.tyre('mu'), config.model_params().flat(), diag)
    return dz, diag


def rolling(config, speed):
    return [speed, 0.0, 0.0] + [speed / config['wheel_radius_m']] * 4


@pytest.mark.parametrize('name', ['v40_document', 'v40'])
def test_free_rolling_with_nothing_applied_keeps_its_state(name, request):
    config = request.getfixturevalue(name)
    config = config.with_overrides({'resistance.drag_coefficient_kg_m': 0.0,
                                    'resistance.rolling_resistance_n_s_m': 0.0})
    dz, diag = evaluate(config, rolling(config, 15.0))
    assert np.all(dz == 0.0)
    assert diag[NORMAL_LOAD].sum() == pytest.approx(1600.0 * 9.82)


def test_chassis_equations_sum_the_tyre_forces(v40_document):
    z = [12.0, 0.8, 0.4, 36.0, 37.5, 38.0, 35.0]
    steer = 0.2
    dz, diag = evaluate(v40_document, z, steer, drive=(0.0, 0.0, 300.0, -200.0))
    delta = diag[STEER_ANGLE]
    fx = diag[FORCE_X] * np.cos(delta) - diag[FORCE_Y] * np.sin(delta)   # A.3
    fy = diag[FORCE_X] * np.sin(delta) + diag[FORCE_Y] * np.cos(delta)
    m, iz, c, lf, lr = 1600.0, 2700.0, 0.776, 1.15, 1.497
    assert dz[0] == pytest.approx(z[1] * z[2] + fx.sum() / m, rel=1e-12)       # A.2
    assert dz[1] == pytest.approx(-z[0] * z[2] + fy.sum() / m, rel=1e-12)
    assert dz[2] == pytest.approx((lf * (fy[0] + fy[1]) - lr * (fy[2] + fy[3])
                                   + c * (fx[1] + fx[3] - fx[0] - fx[2])) / iz, rel=1e-12)
    torque = np.array([0.0, 0.0, 300.0, -200.0])
    assert dz[3:] == pytest.approx((torque - diag[FORCE_X] * 0.327) / 1.5, rel=1e-12)
    assert np.all(delta == [steer, steer, 0.0, 0.0])      # document: equal front steer


def test_document_tyre_frame_projection_by_hand(v40_document):
    # vx=10, r=0.5, delta=0.1: fl wheel centre (10 - 0.5*0.776, 0 + 0.5*1.15).
    z = [10.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0]
    _, diag = evaluate(v40_document, z, steer=0.1)
    vx_w, vy_w = 10.0 - 0.5 * 0.776, 0.5 * 1.15
    vx_t = vx_w * math.cos(0.1) + vy_w * math.sin(0.1)
    vy_t = -vx_w * math.sin(0.1) + vy_w * math.cos(0.1)
    assert diag[SLIP_ANGLE][0] == pytest.approx(math.atan2(vy_t, vx_t), rel=1e-12)


def test_ackermann_geometry():
    lf, lr, c = 1.15, 1.497, 0.776
    assert road_wheel_angles(0.2, lf, lr, c, 0.0) == (0.2, 0.2)
    left, right = road_wheel_angles(0.2, lf, lr, c, 1.0)
    assert left > 0.2 > right > 0.0                      # inner wheel steers more
    # Full Ackermann: both wheel axes meet on the rear-axle line.
    wheelbase = lf + lr
    turn_radius = wheelbase / math.tan(0.2)
    assert wheelbase / math.tan(left) == pytest.approx(turn_radius - c)
    assert wheelbase / math.tan(right) == pytest.approx(turn_radius + c)
    # Mirror symmetry for a right turn.
    assert road_wheel_angles(-0.2, lf, lr, c, 1.0) == pytest.approx((-right, -left))
