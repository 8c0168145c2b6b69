"""Drift equilibria: residuals, the model's own derivatives, stability, the simulator's hold."""

import json
import math

import numpy as np
import pytest

from rally_sim.physics import model, Surface, Vehicle
from rally_sim.physics.equilibria import (
    CONSTRAINT_MULTIPLIER, EquilibriumError, read_equilibrium, SOLVED, STATE_NAMES, SteadyState)
from rally_sim.physics.model import OMEGA, STATE_SIZE, VX
from support.vehicles import vehicle

RADIUS_M = 15.0


def gravel_car() -> Vehicle:
    """Return rwd_gravel on gravel: the drift skid pad's car (friction 0.6)."""
    return Vehicle(vehicle('rwd_gravel'), Surface.uniform('gravel'))


@pytest.fixture(scope='module')
def families():
    """Return the torque- and driver-mode families of rwd_gravel at 15 m, 0 to -40 deg."""
    sideslips = np.radians(np.linspace(0.0, -40.0, 21))
    result = {}
    for mode in ('torque', 'driver'):
        solver = SteadyState(gravel_car(), mode, gear=2 if mode == 'driver' else None)
        family, ended = solver.family(sideslips, radius_m=RADIUS_M)
        assert ended == ''
        result[mode] = solver, family
    return result


def held_run(solver: SteadyState, e, seconds: float, kick=None):
    """Run the simulator from an equilibrium with its inputs held; return the dynamic states."""
    car = solver.vehicle
    car.restore(e.state)
    car.command[:] = solver.command_of(e.unknowns)
    rows = solver.dynamic_rows()
    if kick is not None:
        car.state[rows] += kick
    states = []
    for _ in range(round(seconds / 0.01)):
        car.advance(10, 0.001)
        states.append(car.state[rows].copy())
    return np.array(states)


@pytest.mark.parametrize('mode', ['torque', 'driver'])
def test_every_derivative_is_zero_along_a_family(families, mode):
    solver, family = families[mode]
    assert len(family) == 21
    for e in family:
        assert e.residual <= SOLVED
        command = solver.command_of(e.unknowns)
        assert np.max(np.abs(solver.scaled(solver.derivatives(e.state, command)))) <= SOLVED
        assert e.radius_m == pytest.approx(RADIUS_M)
        assert e.yaw_rate_rad_s == pytest.approx(e.speed_m_s / RADIUS_M)
        assert math.atan2(e.state[VX + 1], e.state[VX]) == pytest.approx(e.sideslip_rad)
    # Grip at beta 0 steers into the turn; the deep drift counter-steers with more drive.
    assert family[0].steer_rad > 0.0 > family[-1].steer_rad
    assert family[-1].axle_torque_n_m()[1] > 2.0 * family[0].axle_torque_n_m()[1]
    assert family[-1].omega_rad_s[2] > 1.3 * family[-1].speed_m_s / 0.31    # rear wheels spin


def test_torque_mode_equilibria_zero_the_models_continuous_derivatives(families):
    """Checked without the step: model.derivatives(), document 002's equations, vanish."""
    solver, family = families['torque']
    car = solver.vehicle
    diag = np.zeros((model.DIAG_SIZE, 4))
    for e in family:
        drive = np.array(e.drive_torque_n_m)
        f = model.derivatives(e.state[VX:OMEGA + 4], e.steer_rad, drive, car.friction,
                              car.flat_params, diag)
        assert np.max(np.abs(f / solver.scales)) <= SOLVED
        # the front wheels roll free; the loads carry the car
        assert abs(diag[model.FORCE_X, 0]) < 1e-6 and abs(diag[model.FORCE_X, 1]) < 1e-6
        assert diag[model.NORMAL_LOAD].sum() == pytest.approx(1050.0 * 9.81, rel=1e-9)


def test_eigenvalues_are_the_continuous_models(families):
    """The step map's multipliers, mapped back, equal the eigenvalues of d f / d z."""
    solver, family = families['torque']
    e = family[10]                               # beta -20 deg
    car = solver.vehicle
    diag = np.zeros((model.DIAG_SIZE, 4))
    z = e.state[VX:OMEGA + 4]

    def f(values):
        return model.derivatives(values, e.steer_rad, np.array(e.drive_torque_n_m),
                                 car.friction, car.flat_params, diag)
    steps = 1e-6 * np.maximum(1.0, np.abs(z))
    jacobian = np.column_stack([(f(z + s * u) - f(z - s * u)) / (2 * s)
                                for s, u in zip(steps, np.eye(7))])
    expected = np.sort_complex(np.linalg.eigvals(jacobian))[::-1]
    assert np.allclose(e.eigenvalues, expected, rtol=1e-4, atol=1e-3)


def test_the_drift_branch_is_a_saddle_and_the_wheel_speed_loop_leaves_one_mode(families):
    """
    A rear-drive car on gravel (friction 0.6): grip is stable, the drift unstable.

    With the inputs held (torque or throttle) two real modes grow: the
    saddle of Hindiyeh & Gerdes (about 1.8/s) and a slow speed mode (under
    0.2/s, the wheels and vx together). Holding the driven wheels' spins
    removes the slow one; the saddle stays, one unstable real mode.
    """
    for mode in ('torque', 'driver'):
        _, family = families[mode]
        assert family[0].stable
        for e in family[5:]:                     # -10 deg and deeper
            unstable = e.unstable
            assert len(unstable) == 2 and np.all(unstable.imag == 0.0)
            assert 1.0 < unstable[0].real < 2.5 and 0.0 < unstable[1].real < 0.2
            held = e.spin_held_eigenvalues[e.spin_held_eigenvalues.real > 0.0]
            assert len(held) == 1 and held[0].imag == 0.0
            assert held[0].real == pytest.approx(unstable[0].real, rel=0.15)
    assert families['driver'][1][10].constraints == 2     # the clutch and the locked LSD


def test_the_simulator_holds_an_unstable_equilibrium_then_leaves_along_its_eigenvector(
        families):
    solver, family = families['driver']
    e = family[10]                               # beta -20 deg, a saddle
    rows = solver.dynamic_rows()
    z0 = e.state[rows]
    scale = np.maximum(np.abs(z0), 1.0)
    kick = np.random.default_rng(34).standard_normal(len(rows)) * 1e-9 * scale
    states = held_run(solver, e, 12.0, kick)
    deviation = (states - z0) / scale
    size = np.max(np.abs(deviation), axis=1)
    assert np.all(size[:30] <= 1e-3)             # the first 0.3 s (and much longer)
    leaving = int(np.argmax(size > 1e-3))
    assert leaving > 30
    multipliers, vectors = np.linalg.eig(solver.step_jacobian(e.state, solver.command_of(
        e.unknowns)))
    modes = np.flatnonzero(np.abs(multipliers) >= CONSTRAINT_MULTIPLIER)   # not constraints
    values = solver.continuous(multipliers[modes].astype(complex))
    assert values.real.max() == pytest.approx(e.unstable[0].real)
    direction = vectors[:, modes[np.argmax(values.real)]].real
    away = states[leaving] - z0
    cosine = abs(away @ direction) / (np.linalg.norm(away) * np.linalg.norm(direction))
    assert cosine > 0.99


def test_a_stable_grip_equilibrium_holds_for_30_s(families):
    solver, family = families['driver']
    e = family[0]
    assert e.stable
    states = held_run(solver, e, 30.0)
    z0 = e.state[solver.dynamic_rows()]
    assert np.max(np.abs(states - z0) / np.maximum(np.abs(z0), 1.0)) < 1e-6


def test_limits_are_named():
    tarmac = SteadyState(Vehicle(vehicle('rwd_gravel'), Surface.uniform('tarmac_dry')),
                         'driver', gear=3)
    with pytest.raises(EquilibriumError, match='not enough drive torque: too much grip'):
        tarmac.solve(math.radians(-40.0), radius_m=RADIUS_M)
    with pytest.raises(EquilibriumError, match='steer limit'):
        SteadyState(gravel_car(), 'driver', gear=2).solve(math.radians(-50.0),
                                                          radius_m=RADIUS_M)
    torque = SteadyState(Vehicle(vehicle('rwd_gravel'), Surface.uniform('tarmac_dry')),
                         'torque')
    e = torque.solve(math.radians(-20.0), radius_m=-RADIUS_M * 0.7 * -1)
    assert e.limit == ''


def test_bad_requests_are_refused_with_the_reason():
    with pytest.raises(ValueError, match='four_wheel'):
        SteadyState(Vehicle(vehicle('volvo_v40_kinematic')))
    solver = SteadyState(gravel_car(), 'driver', gear=2)
    with pytest.raises(ValueError, match='negative sideslip.*try -20'):
        solver.solve(math.radians(20.0), radius_m=RADIUS_M)
    with pytest.raises(ValueError, match='wheelbase'):
        solver.solve(0.0, radius_m=1.0)
    with pytest.raises(ValueError, match='either a radius or a speed'):
        solver.family([0.0], RADIUS_M, 8.0)


def test_a_right_hand_drift_mirrors_the_left(families):
    _, family = families['torque']
    right = SteadyState(gravel_car(), 'torque').solve(math.radians(20.0), radius_m=-RADIUS_M)
    left = family[10]
    assert right.speed_m_s == pytest.approx(left.speed_m_s, rel=1e-9)
    assert right.steer_rad == pytest.approx(-left.steer_rad, rel=1e-9)
    assert right.omega_rad_s[2:] == pytest.approx(left.omega_rad_s[3:1:-1], rel=1e-9)


def test_a_given_speed_finds_the_radius(families):
    _, family = families['torque']
    left = family[10]
    e = SteadyState(gravel_car(), 'torque').solve(left.sideslip_rad, speed_m_s=left.speed_m_s)
    assert e.radius_m == pytest.approx(RADIUS_M, rel=1e-7)


def test_an_equilibrium_file_round_trips_and_a_bad_field_is_named(families, tmp_path):
    _, family = families['driver']
    path = tmp_path / 'eq.json'
    path.write_text(json.dumps({'equilibria': [e.to_json() for e in family[:3]]}))
    read = read_equilibrium(f'{path}#2')
    assert np.array_equal(read['state'], family[2].state)
    assert read['inputs']['throttle'] == family[2].throttle
    assert len(STATE_NAMES) == STATE_SIZE
    with pytest.raises(ValueError, match='holds 3 equilibria'):
        read_equilibrium(str(path))
    broken = family[2].to_json()
    broken['state']['vy'] = 'fast'
    path.write_text(json.dumps({'equilibria': [broken]}))
    with pytest.raises(ValueError, match=r'equilibria\[0\]\.state\.vy: .fast. is not a finite'):
        read_equilibrium(str(path))
    del broken['state']['vy']
    broken['inputs'] = {'mode': 'driver', 'steer_rad': 0.1, 'throttle': None, 'gear': 2}
    path.write_text(json.dumps({'equilibria': [broken]}))
    with pytest.raises(ValueError, match=r'state\.vy: None'):
        read_equilibrium(str(path))
