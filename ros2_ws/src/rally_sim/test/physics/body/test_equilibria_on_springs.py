"""
Equilibria of a car on its springs: the steady roll and pitch, a rest of the simulator.

The analytic roll and pitch are written here from the moments on the sprung
body (support/suspension.py's figures), not from the kernels' code.
"""

import json
import math

import numpy as np
import pytest
from rally_sim.physics import Surface, Vehicle
from rally_sim.physics.body.layout import (
    BODY_DOF, BODY_POSITIONS, BODY_RATES, HEAVE, PITCH, ROLL, SPRUNG_STATE_SIZE, WHEEL_Z)
from rally_sim.physics.config import from_mapping
from rally_sim.physics.equilibria import (
    CONSTRAINT_MULTIPLIER, mirror_body, read_equilibrium, SOLVED, SteadyState)
from rally_sim.physics.model import (
    FORCE_X, FORCE_Y, OMEGA, STATE_SIZE, STEER_ANGLE, VX, VY, YAW_RATE)
from support.random_cars import on_springs, random_car
from support.suspension import both, Figures, sprung
from support.vehicles import vehicle

RADIUS_M = 15.0
DRIFT_RAD = math.radians(-25.0)
STIFF = {**both('spring_rate_n_m', 5e7), **both('tyre_rate_n_m', 1e9),
         **both('anti_roll_bar_n_m_rad', 0.0), **both('roll_centre_height_m', 0.0),
         **both('unsprung_mass_kg', 30.0), **both('bump_stop_rate_n_m', 1e9)}
"""Springs so stiff the body barely moves, equal front and rear, roll centres on the ground:
the planar exact load transfer (test_suspension.py's stiff loads)."""


def solver_for(config, surface='gravel', mode='driver', gear=2):
    """Return the steady-state solver of a car on a uniform surface."""
    return SteadyState(Vehicle(config, Surface.uniform(surface)), mode,
                       gear if mode == 'driver' else None)


@pytest.fixture(scope='module')
def family():
    """Return the solver and the family of rwd_gravel_suspension at 15 m, 0 to -25 deg."""
    solver = solver_for(sprung('rwd_gravel_suspension'))
    equilibria, ended = solver.family(np.radians(np.linspace(0.0, -25.0, 6)), radius_m=RADIUS_M)
    assert ended == ''
    return solver, equilibria


def body_accelerations(solver, e):
    """Return the body's accelerations one simulator sub-step from an equilibrium."""
    after = solver.step_once(e.state, solver.command_of(e.unknowns))
    return after[BODY_RATES:BODY_RATES + BODY_DOF] / solver.h


def held(solver, e, seconds):
    """Return the dynamic states, planar and body, after seconds of the inputs held."""
    car = solver.vehicle
    car.restore(e.state)
    car.command[:] = solver.command_of(e.unknowns)
    car.advance(round(seconds / 0.001), 0.001)
    rows = solver.dynamic_rows()
    return car.state[rows], e.state[rows]


def body_frame_forces(car):
    """Return each wheel's force (x, y) in the body frame [N] (from its tyre frame)."""
    out = car.outputs
    c, s = np.cos(out[STEER_ANGLE]), np.sin(out[STEER_ANGLE])
    return out[FORCE_X] * c - out[FORCE_Y] * s, out[FORCE_X] * s + out[FORCE_Y] * c


def test_along_a_family_the_car_and_its_body_are_at_rest_on_its_springs(family):
    solver, equilibria = family
    g = solver.vehicle.params.gravity_m_s2
    for e in equilibria:
        assert e.state.shape == (SPRUNG_STATE_SIZE,)
        assert e.residual <= SOLVED
        assert np.all(e.state[BODY_RATES:] == 0.0)
        assert np.max(np.abs(body_accelerations(solver, e))) < 1e-9 * g
        assert e.roll_rad == e.state[ROLL] and e.pitch_rad == e.state[PITCH]
    rolls = np.degrees([e.roll_rad for e in equilibria])
    assert np.all(rolls > 1.0)              # a left turn: the body leans out, left side up
    pitches = np.degrees([e.pitch_rad for e in equilibria])
    assert np.all(np.diff(pitches) < 0.0)   # deeper in the slide, the drive lifts the nose


def test_the_simulator_holds_a_grip_equilibrium_and_the_drift_until_its_saddle_grows(family):
    solver, equilibria = family
    grip, drift = equilibria[0], equilibria[-1]
    assert grip.stable and not drift.stable
    for e, seconds in ((grip, 10.0), (drift, 1.0)):
        now, start = held(solver, e, seconds)
        assert np.max(np.abs(now - start) / np.maximum(np.abs(start), 1.0)) < 1e-6, seconds


def test_the_steady_roll_and_pitch_are_the_springs_answer_to_the_equilibrium_s_forces():
    # Rigid tyres, so that roll and pitch are the suspension's alone (test_suspension.py's
    # roll gradient and braking pitch, here at an equilibrium of a drift)
    config = sprung('rwd_gravel_suspension', **both('tyre_rate_n_m', 1e9))
    f = Figures(config)
    solver = solver_for(config)
    e = solver.solve(DRIFT_RAD, radius_m=RADIUS_M)
    car = solver.vehicle
    car.restore(e.state)
    s = e.state
    a_x, a_y = -s[VY] * s[YAW_RATE], s[VX] * s[YAW_RATE]
    fx, fy = body_frame_forces(car)
    links_y = np.array([fy[0] + fy[1], fy[2] + fy[3]]) - 2.0 * f.mu[[0, 2]] * a_y
    roll_moment = f.h_s * links_y.sum() - (f.h_rc * links_y).sum()
    roll_stiffness = (2 * f.k[[0, 2]] * f.c ** 2).sum() + f.bar.sum()
    lean = f.m_s * f.g * (f.h_s - f.h_ra)
    assert e.roll_rad == pytest.approx(roll_moment / (roll_stiffness - lean), rel=1e-3)
    k, px = f.k, f.px
    stiffness = np.array([[k.sum(), -(k * px).sum()],
                          [-(k * px).sum(), (k * px ** 2).sum() - f.m_s * f.g * f.h_s]])
    links_x = fx.sum() - f.mu.sum() * a_x
    heave, pitch = np.linalg.solve(stiffness, [0.0, -f.h_s * links_x])
    assert a_x > 2.0 and e.pitch_rad < 0.0          # the nose inside, the car pushed ahead
    assert e.pitch_rad == pytest.approx(pitch, rel=1e-3)
    assert s[HEAVE] - f.h_s == pytest.approx(heave, rel=1e-3)


def test_with_very_stiff_springs_the_equilibrium_is_the_planar_twin_s():
    twin = solver_for(vehicle('rwd_gravel')).solve(DRIFT_RAD, radius_m=RADIUS_M)
    stiff_car = sprung('rwd_gravel_suspension', **STIFF)
    stiff = solver_for(stiff_car).solve(DRIFT_RAD, radius_m=RADIUS_M)
    assert abs(math.degrees(stiff.roll_rad)) < 0.01
    assert stiff.speed_m_s == pytest.approx(twin.speed_m_s, rel=1e-3)
    assert stiff.steer_rad == pytest.approx(twin.steer_rad, rel=2e-3)
    assert stiff.throttle == pytest.approx(twin.throttle, rel=2e-3)
    assert stiff.omega_rad_s == pytest.approx(twin.omega_rad_s, rel=1e-3)


def test_the_drift_s_saddle_is_its_planar_twin_s_and_the_body_s_modes_are_stable(family):
    solver, equilibria = family
    e = equilibria[-1]
    twin = solver_for(vehicle('rwd_gravel')).solve(DRIFT_RAD, radius_m=RADIUS_M)
    assert len(e.unstable) == len(twin.unstable) == 2
    assert e.unstable.real == pytest.approx(twin.unstable.real, rel=0.05)
    multipliers = np.linalg.eigvals(solver.step_jacobian(e.state, solver.command_of(e.unknowns)))
    assert len(e.eigenvalues) + e.constraints == len(multipliers) == 8 + 14
    assert np.sum(np.abs(multipliers) < CONSTRAINT_MULTIPLIER) == e.constraints
    # the body's modes: heave, pitch and roll at about their ride frequencies (1.5-2.1 Hz)
    body = e.eigenvalues[(np.abs(e.eigenvalues.imag) > 2 * math.pi * 1.0)
                         & (np.abs(e.eigenvalues.imag) < 2 * math.pi * 2.5)]
    assert len(body) >= 4 and np.all(body.real < 0.0)


def test_a_right_hand_drift_on_springs_is_the_left_one_mirrored(family):
    solver, equilibria = family
    left = equilibria[-1]
    right = solver_for(sprung('rwd_gravel_suspension')).solve(-DRIFT_RAD, radius_m=-RADIUS_M)
    assert right.roll_rad == pytest.approx(-left.roll_rad, rel=1e-6)
    assert right.pitch_rad == pytest.approx(left.pitch_rad, rel=1e-6)
    np.testing.assert_allclose(right.state[BODY_POSITIONS:],
                               mirror_body(left.state)[BODY_POSITIONS:], rtol=1e-6, atol=1e-12)
    assert right.state[WHEEL_Z] == pytest.approx(left.state[WHEEL_Z + 1], rel=1e-6)


def test_an_equilibrium_file_on_springs_round_trips_and_restores_the_body(family, tmp_path):
    solver, equilibria = family
    e = equilibria[-1]
    data = e.to_json()
    assert data['roll_deg'] == pytest.approx(math.degrees(e.roll_rad))
    assert data['state']['roll'] == e.roll_rad and len(data['state']) == SPRUNG_STATE_SIZE
    path = tmp_path / 'eq.json'
    path.write_text(json.dumps({'equilibria': [data]}))
    read = read_equilibrium(str(path))
    assert np.array_equal(read['state'], e.state)
    car = Vehicle(sprung('rwd_gravel_suspension'), Surface.uniform('gravel'))
    car.restore(read['state'])
    assert car.state[ROLL] == e.roll_rad
    planar = Vehicle(vehicle('rwd_gravel'), Surface.uniform('gravel'))
    with pytest.raises(ValueError, match='state'):
        planar.restore(read['state'])           # a body's state is not a planar car's
    del data['state']['roll']
    path.write_text(json.dumps({'equilibria': [data]}))
    with pytest.raises(ValueError, match=r'state\.roll: None is not a finite number'):
        read_equilibrium(str(path))


def test_random_cars_on_springs_find_their_drift_at_rest_on_their_springs():
    """Twelve seeded random cars (support/random_cars.py), 1/10 scale to rally cars."""
    rolls = []
    for seed in range(12):
        tree, radius, mode = random_car(seed)
        solver = solver_for(from_mapping(on_springs(tree, seed)), mode=mode, gear=None)
        equilibria, ended = solver.family(np.radians(np.linspace(0.0, -20.0, 11)),
                                          radius_m=radius)
        assert ended == '', (seed, ended)
        g = solver.vehicle.params.gravity_m_s2
        for e in (equilibria[0], equilibria[-1]):
            assert e.residual <= SOLVED, seed
            assert np.max(np.abs(body_accelerations(solver, e))) < 1e-9 * g, seed
            assert e.roll_rad > 0.0, seed
        now, start = held(solver, equilibria[-1], 0.5)
        assert np.max(np.abs(now - start) / np.maximum(np.abs(start), 1.0)) < 1e-6, seed
        assert equilibria[-1].state[OMEGA + 2] > equilibria[-1].state[OMEGA]    # the rear spins
        rolls.append(math.degrees(equilibria[-1].roll_rad))
    print('random cars on springs, roll at -20 deg:', np.round(rolls, 2))
    assert len(rolls) == 12 and min(rolls) > 0.5


def test_a_planar_state_has_no_body_to_mirror():
    state = np.arange(float(STATE_SIZE))
    assert np.array_equal(mirror_body(state), state)


def test_every_settle_starts_from_static_ride_so_no_rest_depends_on_the_last():
    # Found by trying a user's own car: random car 22 with its front bar doubled, on tarmac.
    # Its grip branch ends in a wheel spinning away; a settle started from the body found
    # there once wandered to a "rest" on the car's side, and the family came back empty.
    tree, radius, mode = random_car(22)
    tree = on_springs(tree, 22)
    tree['suspension']['front']['anti_roll_bar_n_m_rad'] *= 2.0
    solver = solver_for(from_mapping(tree), surface='tarmac_dry', mode=mode, gear=None)
    equilibria, ended = solver.family(np.radians(np.linspace(0.0, -20.0, 21)),
                                      radius_m=round(1.3 * radius, 2))
    assert len(equilibria) == 12 and 'at beta = -11.5 deg' in ended     # as with its bar
    assert equilibria[0].sideslip_rad == 0.0 and equilibria[-1].residual <= SOLVED
    assert all(abs(e.roll_rad) < 0.2 and abs(e.pitch_rad) < 0.2 for e in equilibria)
    ends = []
    for points in (6, 26):                   # the same drift, reached by other paths
        solver = solver_for(sprung('rwd_gravel_suspension'))
        family, _ = solver.family(np.radians(np.linspace(0.0, -25.0, points)),
                                  radius_m=RADIUS_M)
        ends.append(family[-1].state)
    assert np.array_equal(ends[0], ends[1])
