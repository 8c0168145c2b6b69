"""
Families of steady cornering states: branches followed through folds and kinks, grip to drift.

At a fixed radius (or speed) a car's equilibria lie on curves in the
unknowns and the sideslip beta that need not be graphs over beta:
- the grip branch may fold back before any drift: the front axle saturates
  first (the car pushes) and the branch turns into understeer with ever
  more steer; the drift branch is then a curve of its own further out;
- a branch may fold twice (an S) and hold three equilibria at one beta;
- a differential's lock or a clutch makes kinks in it.
So each branch is followed by pseudo-arclength continuation
(continuation.py) in the solver's unknowns and beta, each scaled to order
one. Where the branch from grip driving does not reach the sideslip asked
for, direct solves from several guesses at sideslips between its reach and
the target look for the drift branch, which is then followed both ways.

The family is the path from grip to the target along these branches. The
sideslips asked for are taken on it in order, each solved exactly at its
beta from the path's nearest points; those between two branches (no
equilibrium there: the car passes them as a transient) are left out and
reported as a gap. When the family ends short of the target, why is said
in the car's terms: the fold (what the car needs there), the limit that
bites (steer lock, drive torque, revs, throttle), or where no guess found
an equilibrium.
"""

from dataclasses import dataclass, field
import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .continuation import trace

SIDESLIP_SCALE_RAD = 0.1
"""The sideslip's scale in the continuation's unknowns: a step of 0.25 is at most 1.4 deg."""
STEER_SCALE_RAD = 0.1
LARGEST_SIDESLIP_RAD = math.radians(80.0)
LARGEST_STEER_RAD = 1.2
"""A branch needing more steer than this (69 deg) is past any car's lock: its trace stops."""
RETREAT_RAD = 0.35
"""How far a branch may turn back from its reach toward the target before its trace stops."""
SLOWEST_SHARE = 0.1
"""A branch slower than this share of the grip speed sqrt(mu g R) runs down to standstill."""
FASTEST_SPIN = 20.0
"""A wheel spinning at this many times the grip speed's rolling rate spins away unbounded."""
WHEELS = ('fl', 'fr', 'rl', 'rr')
OVERSHOOT_RAD = math.radians(0.5)
DIRECT_SIDESLIPS = 5
"""Sideslips between a branch's reach and the target where direct solves look for a drift."""
SPEED_SHARES = (0.4, 0.7, 1.0, 1.3)
"""Direct solves' speeds: these shares of sqrt(mu g R) squared (radius) or of the grip."""
REAR_SLIPS = (0.05, 0.3, 0.8)
"""Direct solves' driven-wheel slip ratios."""
CORRECTION_TOLERANCE = 1e-9
DEEPER_DEG = (5.0, 15.0, 30.0)
"""How much deeper than an unreached target direct solves look for a drift, for the message."""
ENDINGS = {
    'folds back': 'folds back there: past it the tyres hold no steadier slide on this circle '
                  '(the grip is used up)',
    'runs down to standstill': 'runs down to standstill there',
    f'needs steer past {math.degrees(LARGEST_STEER_RAD):.0f} deg':
        f'needs ever more steer from there, past {math.degrees(LARGEST_STEER_RAD):.0f} deg',
    'past 80 deg of sideslip': 'goes past 80 deg of sideslip',
    'tightens below the wheelbase': 'tightens to a circle smaller than the wheelbase',
    'reached': 'reaches the target, where no exact solve converges',
    **{f'the {w} wheel spins away': f'ends in the {w} wheel spinning away without bound (its '
       'tyre holds no more force however fast it spins: with an open differential the unloaded '
       'wheel takes the drive)' for w in WHEELS},
}
"""Why a branch's trace stopped, in words for the message that ends a family."""


@dataclass
class Branch:
    """One followed curve of equilibria: rows of (unknowns, beta), in path order."""

    points: np.ndarray
    ended: str
    """Why its trace stopped at the far end."""
    name: str = 'grip'
    """'grip' (followed from beta 0) or 'drift' (found by a direct solve)."""
    folds: List[int] = field(default_factory=list)
    """Indices of the points after which beta turns back."""
    leaps: int = 0
    start: int = 0
    """Where the family's path along it begins (a drift branch: its fold nearest grip)."""

    @property
    def sideslips_rad(self) -> np.ndarray:
        """Return the sideslip of each point of the path's part."""
        return self.points[self.start:, -1]

    def crossings(self, beta: float) -> List[np.ndarray]:
        """Return the unknowns interpolated wherever the whole curve passes beta."""
        found = []
        for i in range(len(self.points) - 1):
            a, b = self.points[i, -1] - beta, self.points[i + 1, -1] - beta
            if a * b <= 0.0 and a != b:
                w = a / (a - b)
                found.append((1.0 - w) * self.points[i, :-1] + w * self.points[i + 1, :-1])
        return found


@dataclass
class Family:
    """The equilibria asked for on the path from grip to the target, and what was found."""

    equilibria: list
    ended: str = ''
    """'' when the last sideslip asked for was reached; otherwise why not, in the car's terms."""
    gaps: List[Tuple[float, float]] = field(default_factory=list)
    """(from, to) sideslips [rad] between branches: no equilibrium, a transient."""
    branches: List[Branch] = field(default_factory=list)
    """Every branch followed, whole (the grip branch first)."""
    direct_solves: int = 0
    grip_found: bool = True
    """Whether grip driving at beta 0 was found (a car may push before its sideslip is 0)."""

    def note(self) -> str:
        """Return the gaps, and a missing grip start, in words ('' when none)."""
        start = [] if self.grip_found else [
            'no grip driving at beta 0 deg: on this circle the front tyres saturate (the car '
            'pushes) while the sideslip is still positive; the family starts on the drift branch']
        return '; '.join(start + [
            f'no steady state on the way from grip to the drift between beta '
            f'{math.degrees(a):.1f} and {math.degrees(b):.1f} deg: the grip branch folds back '
            '(the front tyres saturate first: the car pushes) before the drift branch begins; '
            'the car passes there as a transient' for a, b in self.gaps])


class FamilyTracer:
    """Follows one car's equilibria on one circle (a SteadyState's equations)."""

    def __init__(self, solver, radius_m: Optional[float], speed_m_s: Optional[float]):
        """Trace `solver`'s equations at a radius or a speed (one of them None)."""
        self.solver, self.radius_m, self.speed_m_s = solver, radius_m, speed_m_s
        self.scale = np.append(solver.unknown_scales(radius_m, speed_m_s), SIDESLIP_SCALE_RAD)
        vehicle = solver.vehicle
        grip = float(np.mean(vehicle.friction)) * vehicle.params.gravity_m_s2
        if radius_m is not None:
            self.grip_unknown = math.sqrt(grip * abs(radius_m))       # a speed
        else:
            self.grip_unknown = grip / speed_m_s ** 2                 # a curvature
        self.direct_solves = 0

    def residual(self, y: np.ndarray) -> np.ndarray:
        """Return the scaled derivatives at scaled unknowns y (beta last)."""
        x = y * self.scale
        return self.solver.residual(x[:-1], x[-1], self.radius_m, self.speed_m_s)

    # ---- following one branch ----------------------------------------------------

    def follow(self, unknowns: np.ndarray, beta: float, toward: float, goal: float) -> Branch:
        """
        Return the branch through a solution, followed toward sideslip `goal` (sign `toward`).

        The trace stops past the goal, or where the branch turns back from
        its reach by RETREAT_RAD, runs down to standstill, needs steer past
        any lock, or cannot be followed; `ended` says which.
        """
        reach = [0.0]
        start_beta = beta

        def stop(y: np.ndarray) -> str:
            x = y * self.scale
            progress = (x[-1] - start_beta) * toward
            reach[0] = max(reach[0], progress)
            if progress >= abs(goal - start_beta) + OVERSHOOT_RAD:
                return 'reached'
            if abs(x[-1]) > LARGEST_SIDESLIP_RAD:
                return 'past 80 deg of sideslip'
            if reach[0] - progress > RETREAT_RAD:
                return 'folds back'
            if self.radius_m is not None and x[0] < SLOWEST_SHARE * self.grip_unknown:
                return 'runs down to standstill'
            if self.radius_m is None and abs(x[0]) > 1.0 / self.solver.wheelbase_m:
                return 'tightens below the wheelbase'
            if abs(x[1]) > LARGEST_STEER_RAD:
                return f'needs steer past {math.degrees(LARGEST_STEER_RAD):.0f} deg'
            spins = np.abs(y[2:6])
            if np.max(spins) > FASTEST_SPIN:
                return f'the {WHEELS[int(np.argmax(spins))]} wheel spins away'
            return ''

        start = np.append(unknowns, beta) / self.scale
        direction = np.zeros(len(start))
        direction[-1] = toward
        result = trace(self.residual, start, direction, stop, CORRECTION_TOLERANCE)
        points = np.array(result.points) * self.scale
        return Branch(points, result.ended, 'grip', result.folds, result.leaps)

    def through(self, unknowns: np.ndarray, beta: float, target: float) -> Branch:
        """
        Return the drift branch through a solution: from its near end to the target.

        The near end is where the branch, followed back toward grip, first
        folds (where the drift begins); beyond that fold it turns onto
        another sheet (more steer, less speed), which is not the drift's.
        """
        side = math.copysign(1.0, target)
        back = self.follow(unknowns, beta, -side, 0.0)
        ahead = self.follow(unknowns, beta, side, target)
        count = len(back.points)
        points = np.vstack([back.points[::-1], ahead.points[1:]])
        folds = [count - 2 - i for i in back.folds] + [count - 1 + i for i in ahead.folds]
        start = count - 1 - (back.folds[0] + 1) if back.folds else 0
        return Branch(points, ahead.ended, 'drift', sorted(folds), back.leaps + ahead.leaps,
                      start)

    # ---- direct solves --------------------------------------------------------------

    def grip_start(self) -> Optional[np.ndarray]:
        """Return the unknowns of grip driving at beta 0, tried from several speeds, or None."""
        solver = self.solver
        guesses = [solver.first_guess(0.0, self.radius_m, self.speed_m_s)]
        guesses += self.guesses(0.0, rear_slips=(0.0,))
        return self._first_solution(guesses, 0.0)

    def guesses(self, beta: float, rear_slips: Sequence[float] = REAR_SLIPS) -> List[np.ndarray]:
        """Return starting points at a sideslip: several speeds and driven-wheel slips."""
        solver = self.solver
        base = solver.first_guess(beta, self.radius_m, self.speed_m_s)
        weights = solver.command_of_drive_share()
        driven = weights > 0.0
        p = solver.vehicle.params
        axle_torque = 0.3 * p.mass_kg * p.gravity_m_s2 * float(weights @ p.radii())
        result = []
        for share in SPEED_SHARES:
            for slip in rear_slips:
                guess = base[:7].copy()
                if self.radius_m is not None:
                    factor = math.sqrt(share / 0.4)           # first_guess is at 0.4 of grip
                    guess[0] *= factor
                    guess[2:6] *= factor
                else:
                    guess[0] = share * self.grip_unknown
                guess[2:6] = np.where(driven, guess[2:6] * (1.0 + slip), guess[2:6])
                guess[6] = axle_torque * (0.5 + slip)
                result.append(guess)
        if solver.mode == 'driver':
            return [solver.driver_guess(beta, self.radius_m, self.speed_m_s, g) for g in result]
        return result

    def direct(self, beta: float) -> Optional[np.ndarray]:
        """Return the first equilibrium at a sideslip that a direct solve finds, or None."""
        return self._first_solution(self.guesses(beta), beta)

    def _first_solution(self, guesses: List[np.ndarray], beta: float) -> Optional[np.ndarray]:
        for guess in guesses:
            self.direct_solves += 1
            unknowns = self.solve_at(guess, beta)
            if unknowns is not None:
                return unknowns
        return None

    def solve_at(self, guess: np.ndarray, beta: float) -> Optional[np.ndarray]:
        """Return the equilibrium Newton's method finds at beta from a guess, if a car's."""
        unknowns, norm = self.solver.newton(guess, beta, self.radius_m, self.speed_m_s)
        return unknowns if norm <= self.solver.solved and self.plausible(unknowns) else None

    def plausible(self, unknowns: np.ndarray) -> bool:
        """
        Return False for a solution no car drives.

        Steer past LARGEST_STEER_RAD, a wheel turning backwards, or (radius
        given) the car going backwards.
        """
        scaled = unknowns[2:6] / self.scale[2:6]
        return bool(abs(unknowns[1]) <= LARGEST_STEER_RAD and np.all(scaled > -0.05)
                    and (unknowns[0] > 0.0 if self.radius_m is not None else True))


def trace_family(solver, sideslips_rad: Sequence[float], radius_m: Optional[float],
                 speed_m_s: Optional[float]) -> Family:
    """
    Return the equilibria at the sideslips asked for, on the path from grip to the last.

    The sideslips are taken in the order given (from grip toward the
    target, the last one). See the module's docstring for the path.
    """
    tracer = FamilyTracer(solver, radius_m, speed_m_s)
    target = float(sideslips_rad[-1])
    side = math.copysign(1.0, target) if target else -1.0
    pieces: List[Branch] = []
    grip = tracer.grip_start()
    if grip is not None:
        pieces.append(tracer.follow(grip, 0.0, side, target))
    reach = _reach(pieces, side)
    if reach * side < abs(target) and target:
        drift = _drift_branch(tracer, reach, target)
        if drift is not None:
            pieces.append(drift)
    family = _select(tracer, pieces, sideslips_rad)
    family.branches, family.direct_solves = pieces, tracer.direct_solves
    family.grip_found = grip is not None
    if len(pieces) == 2 and pieces[0].name == 'grip':
        near = float(pieces[1].sideslips_rad[0])
        if (near - reach) * side > 0.0:
            family.gaps = [(reach, near)]
    if not family.equilibria or family.equilibria[-1].sideslip_rad != target:
        family.ended = _why_ended(solver, tracer, pieces, target, family)
    return family


def _reach(pieces: List[Branch], side: float) -> float:
    """Return the sideslip farthest toward the target on the pieces (0 when none)."""
    if not pieces:
        return 0.0
    return float(max(np.max(p.sideslips_rad * side) for p in pieces)) * side


def _drift_branch(tracer: FamilyTracer, reach: float, target: float) -> Optional[Branch]:
    """Return the branch a direct solve finds between the reach and the target, or None."""
    for beta in np.linspace(target, reach, DIRECT_SIDESLIPS, endpoint=False):
        unknowns = tracer.direct(float(beta))
        if unknowns is not None:
            return tracer.through(unknowns, float(beta), target)
    return None


def _select(tracer: FamilyTracer, pieces: List[Branch],
            sideslips_rad: Sequence[float]) -> Family:
    """Return the equilibria at the sideslips, each the next crossing along the path."""
    family = Family([])
    piece, index = 0, 0
    for beta in sideslips_rad:
        found = _next_crossing(pieces, piece, index, float(beta))
        unknowns = None
        if found is not None:
            piece, index, guess = found
            unknowns = tracer.solve_at(guess, float(beta))
        if unknowns is None:
            continue
        family.equilibria.append(tracer.solver.equilibrium(unknowns, float(beta), tracer.radius_m,
                                                           tracer.speed_m_s))
    return family


def _next_crossing(pieces: List[Branch], piece: int, index: int,
                   beta: float) -> Optional[Tuple[int, int, np.ndarray]]:
    """Return (piece, segment, interpolated unknowns) of the next point at beta, or None."""
    for k in range(piece, len(pieces)):
        points = pieces[k].points[pieces[k].start:]
        start = index if k == piece else 0
        if len(points) == 1 and start == 0 and points[0, -1] == beta:
            return k, 0, points[0, :-1].copy()
        for i in range(start, len(points) - 1):
            a, b = points[i, -1] - beta, points[i + 1, -1] - beta
            if a * b <= 0.0 and a != b:
                w = a / (a - b)
                return k, i, (1.0 - w) * points[i, :-1] + w * points[i + 1, :-1]
            if a == 0.0 == b:
                return k, i, points[i, :-1].copy()
    return None


def _deeper(tracer: FamilyTracer, target: float) -> str:
    """Return where a drift branch beyond the target begins, if direct solves find one."""
    side = math.copysign(1.0, target)
    for extra in DEEPER_DEG:
        beta = target + side * math.radians(extra)
        if abs(beta) >= LARGEST_SIDESLIP_RAD:
            break
        unknowns = tracer.direct(beta)
        if unknowns is not None:
            start = tracer.through(unknowns, beta, beta).sideslips_rad[0]
            return (f' (a drift branch begins deeper, at beta {math.degrees(start):.1f} deg: '
                    'ask for a sideslip past it)')
    return ''


def _why_ended(solver, tracer: FamilyTracer, pieces: List[Branch], target: float,
               family: Family) -> str:
    """Return why no equilibrium was found at the target, in the car's terms."""
    where = solver.where(target, tracer.radius_m, tracer.speed_m_s)
    if not pieces:
        return (f'no equilibrium found {where}: neither grip driving at beta 0 nor a drift '
                f'between 0 and the target from {tracer.direct_solves} starting points')
    last = pieces[-1]
    side = math.copysign(1.0, target)
    far = int(np.argmax(last.sideslips_rad * side))
    point = last.points[far]
    end = solver.equilibrium(point[:-1], float(point[-1]), tracer.radius_m, tracer.speed_m_s)
    if far < len(last.points) - 1 and last.ended != 'reached':
        how = ('folds back there (past it the tyres hold no steadier slide on this circle: '
               + ('the front tyres saturate first, the car pushes)' if last.name == 'grip'
                  else 'the grip is used up)'))
    else:
        how = ENDINGS.get(last.ended, f'cannot be followed past there ({last.ended})')
    detail = (f'speed {end.speed_m_s:.2f} m/s, radius {end.radius_m:.2f} m, steer '
              f'{math.degrees(end.steer_rad):.1f} deg, drive {sum(end.axle_torque_n_m()):.0f} N m')
    limit = f'; there it is beyond a limit: {end.limit}' if end.limit else ''
    searched = ''
    if len(pieces) == 1:
        searched = (f'; direct solves from {tracer.direct_solves} starting points between there '
                    'and the target found no drift branch' + _deeper(tracer, target))
    return (f'the family ends at beta = {math.degrees(point[-1]):.1f} deg: no equilibrium '
            f'{where}. The {last.name} branch {how} ({detail}){limit}{searched}')
