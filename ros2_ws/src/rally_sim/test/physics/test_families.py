"""Families of equilibria on cars a user brings: no branch lost, folds and gaps, the ends named."""

import math
from typing import Tuple

import numpy as np
import pytest

from rally_sim.physics import Surface, Vehicle
from rally_sim.physics.config import from_mapping
from rally_sim.physics.continuation import trace
from rally_sim.physics.equilibria import EquilibriumError, SteadyState
from rally_sim.physics.families import FamilyTracer
from support.random_cars import random_car

CARS = 100
CHECKED_DEG = (-8.0, -20.0, -32.0)
"""The sideslips where direct solves look for equilibria the family must contain."""
GUESSES = 3


def fifty_fifty_car() -> Tuple[SteadyState, float]:
    """
    Return a car like issue 47's, and its circle's radius.

    1,620 kg, 50/50, rear drive, a clutch-pack differential, on gravel, in
    torque mode: the fixed-step continuation lost its drift at 15.9 m.
    """
    tree, radius, _ = random_car(4)
    assert tree['mass_kg'] == pytest.approx(1622.7, abs=0.1)
    assert radius == pytest.approx(15.91, abs=0.01)
    assert tree['cg_to_rear_axle_m'] == pytest.approx(tree['cg_to_front_axle_m'], rel=0.02)
    return SteadyState(Vehicle(from_mapping(tree), Surface.uniform('gravel')), 'torque'), radius


def test_continuation_follows_a_circle_round_both_of_its_folds():
    # x^2 + lambda^2 = 1 from (1, 0): lambda turns back at (0, 1) and at (0, -1).
    def circle(y):
        return np.array([y[0] ** 2 + y[1] ** 2 - 1.0])

    stops = []

    def stop(y):
        stops.append(y.copy())
        return 'round' if len(stops) > 5 and np.linalg.norm(y - [1.0, 0.0]) < 0.1 else ''

    curve = trace(circle, np.array([1.0, 0.0]), np.array([0.0, 1.0]), stop, 1e-12,
                  max_step=0.2)
    assert curve.ended == 'round'
    points = np.array(curve.points)
    assert np.allclose(np.hypot(points[:, 0], points[:, 1]), 1.0, atol=1e-10)
    assert len(curve.folds) == 2
    assert points[:, 0].max() > 0.99 and points[:, 0].min() < -0.99


def test_continuation_steps_across_a_kink():
    # u = |lambda - 0.3| + lambda: a corner at lambda 0.3, no derivative there.
    def kinked(y):
        return np.array([y[0] - abs(y[1] - 0.3) - y[1]])

    curve = trace(kinked, np.array([0.3, 0.0]), np.array([0.0, 1.0]),
                  lambda y: 'far' if y[1] > 1.0 else '', 1e-12)
    assert curve.ended == 'far'
    assert all(abs(p[0] - abs(p[1] - 0.3) - p[1]) < 1e-10 for p in curve.points)
    assert curve.leaps == 1                 # the tangent turns by 63 deg at the corner


def test_the_fifty_fifty_car_drifts_past_the_fold_of_its_grip_branch():
    solver, radius = fifty_fifty_car()
    family = solver.trace(np.radians(np.linspace(0.0, -45.0, 46)), radius_m=radius)
    assert family.ended == ''
    grip, drift = family.branches
    assert grip.folds and grip.name == 'grip' and drift.name == 'drift'
    (start, end), = family.gaps
    assert -3.0 < math.degrees(start) < -0.5 and -9.0 < math.degrees(end) < -3.0
    assert 'folds back' in family.note()
    betas = [round(math.degrees(e.sideslip_rad)) for e in family.equilibria]
    assert betas[:2] == [0, -1] and betas[-1] == -45
    assert not any(end < e.sideslip_rad < start for e in family.equilibria)
    deep = family.equilibria[-20]
    assert not deep.stable and deep.residual <= solver.solved
    e = solver.solve(math.radians(-25.0), radius_m=radius)        # the single point
    assert e.sideslip_rad == pytest.approx(math.radians(-25.0))
    assert e.speed_m_s == pytest.approx(family.equilibria[betas.index(-25)].speed_m_s, 1e-8)


def test_an_end_is_said_in_the_cars_terms():
    solver, radius = fifty_fifty_car()
    with pytest.raises(EquilibriumError, match=r'steer limit: it needs .* deg of steer'):
        solver.solve(math.radians(-60.0), radius_m=radius)
    open_car, radius, _ = random_car(1)             # an open differential: a wheel spins away
    solver = SteadyState(Vehicle(from_mapping(open_car), Surface.uniform('gravel')), 'torque')
    family = solver.trace(np.radians(np.linspace(0.0, -45.0, 10)), radius_m=radius)
    assert 'the family ends at beta' in family.ended
    assert 'rl wheel spinning away' in family.ended and 'open differential' in family.ended


def direct_solutions(solver: SteadyState, tracer: FamilyTracer, beta: float,
                     rng: np.random.Generator):
    """Return the car's equilibria Newton's method finds at beta from seeded random guesses."""
    found = []
    base = solver.first_guess(beta, tracer.radius_m)
    scale = tracer.scale
    for _ in range(GUESSES):
        guess = base[:7].copy()
        factor = math.sqrt(rng.uniform(0.6, 3.0))
        guess[0] *= factor
        guess[1] += rng.uniform(-0.15, 0.15)
        guess[2:6] *= factor
        guess[4:6] *= 1.0 + rng.uniform(0.0, 1.0)
        guess[6] = rng.uniform(0.5, 6.0) * scale[6] if solver.mode == 'torque' else 0.0
        if solver.mode == 'driver':
            guess = solver.driver_guess(beta, tracer.radius_m, None, guess)
        unknowns = tracer.solve_at(guess, beta)
        if unknowns is not None and not any(np.allclose(unknowns, u, rtol=1e-6) for u in found):
            found.append(unknowns)
    return found


def pushing(solver: SteadyState, unknowns: np.ndarray, beta: float, radius_m: float) -> bool:
    """
    Return True when the front tyres slip at more than twice their peak slip angle.

    Such a state (the front axle saturated, the car pushing wide with ever
    more steer) may lie on a branch of its own, not joined to grip driving
    or to a drift: a drift family need not contain it.
    """
    config = solver.vehicle.config
    speed, steer = unknowns[0], unknowns[1]
    vx, vy, r = speed * math.cos(beta), speed * math.sin(beta), speed / radius_m
    front_slip = steer - math.atan2(vy + config['cg_to_front_axle_m'] * r, vx)
    b, c = config['tyres.front.B'], config['tyres.front.C']
    peak = math.tan(math.pi / (2.0 * c)) / b
    return abs(math.tan(front_slip)) > 2.0 * peak


def contained(solver: SteadyState, family, unknowns: np.ndarray, beta: float,
              radius_m: float) -> bool:
    """Return True when a branch of the family passes through that equilibrium."""
    for branch in family.branches:
        for guess in branch.crossings(beta):
            on_branch, norm = solver.newton(guess, beta, radius_m)
            if norm <= solver.solved and np.allclose(on_branch, unknowns, rtol=1e-5,
                                                     atol=1e-6):
                return True
    return False


def test_wherever_a_direct_solve_finds_a_drift_the_family_contains_it():
    """
    Check a seeded property of 100 random rear-drive cars on circles of their own.

    1/10 scale to rally cars, 30/70 to 70/30, open, clutch-pack and locked
    differentials, torque and driver modes. Every equilibrium that direct
    solves find at fixed sideslips from random guesses lies on a branch of
    the car's family (but states of the front axle pushing far past its
    peak, which can form branches of their own: counted, printed).
    """
    rng = np.random.default_rng(47)
    counts = dict.fromkeys(('cars', 'complete', 'points', 'direct', 'pushing', 'missed'), 0)
    missed = []
    for seed in range(CARS):
        tree, radius, mode = random_car(seed)
        solver = SteadyState(Vehicle(from_mapping(tree), Surface.uniform('gravel')), mode)
        family = solver.trace(np.radians(np.linspace(0.0, -40.0, 21)), radius_m=radius)
        counts['cars'] += 1
        counts['complete'] += family.ended == ''
        counts['points'] += len(family.equilibria)
        tracer = FamilyTracer(solver, radius, None)
        for beta in np.radians(CHECKED_DEG):
            for unknowns in direct_solutions(solver, tracer, beta, rng):
                counts['direct'] += 1
                if contained(solver, family, unknowns, beta, radius):
                    continue
                if pushing(solver, unknowns, beta, radius):
                    counts['pushing'] += 1
                else:
                    counts['missed'] += 1
                    missed.append((seed, round(math.degrees(beta)), unknowns[:2]))
    print('equilibrium families of random cars:', counts)
    assert counts['direct'] > 100, 'the direct solves should find drifts to check'
    assert missed == [], missed
    assert counts['complete'] >= 0.75 * CARS
