"""
Contact between a session's cars and the walls, found on the physics step it happens.

The clearances are looked at once for the next HORIZON_S, and the steps
that no car can touch anything in are taken without looking again. No
point of a car moves faster than the speed of its CG plus its yaw rate
times the reach of its farthest corner, and each of these grows at most
at its bound (world/scene.py's footprint_of: from its tyres' grip, mass
and yaw inertia, or its steering). So within a time T no point moves
farther than (speed + yaw rate x reach) T + (acceleration + yaw
acceleration x reach) T^2 / 2, and n steps are safe while that distance
at T = n dt (two cars: the sum of theirs) stays within the clearance;
chunks end there (on a control period's start where it is far), so near a
wall they shrink to single steps, and once the safe steps are taken a
footprint that overlaps a wall or another car has touched on that very step. Physics steps
do not depend on how they are chunked: a run that touches nothing is the
same run to the bit as one without walls.

Mode `stop`: a car that touches halts where it is (velocities and wheel
spins zero; not stepped again until a restart, a reset or a teleport), and
the contact goes to its front end (Front.touched) and into `events`. Mode
`bounce`: it takes an impulse (sim/bounce.py: restitution and friction;
two cars share it) and is moved clear, and drives on; the contact goes
likewise to the front end of each car struck.
"""

from dataclasses import dataclass
import math
from typing import List, Optional, Tuple

import numpy as np

from .bounce import Body, bounce, overlap_axis, push_out
from ..physics.model import OMEGA, VX, VY, X, Y, YAW_RATE
from ..world.contact import corners, quad_clearance, wall_clearance
from ..world.raycast import BOX_HALF_LENGTH, BOX_HALF_WIDTH, BOX_X, BOX_Y, BOX_YAW
from ..world.scene import box, box_at

MODES = ('off', 'stop', 'bounce')
HORIZON_S = 0.1
"""How far ahead the clearances are looked at once [s of simulated time]."""


@dataclass(frozen=True)
class Contact:
    """A car touched a wall or another car: when, where, and what it touched."""

    time_ns: int
    car: str
    other: str
    """'wall', or the other car's name."""
    x: float
    y: float
    """A point of the contact in odom [m]: the wall cell's centre, or the corner that touched."""


class Contacts:
    """The contact rule of a session: chunks cut short near walls and cars, touches found."""

    def __init__(self, session, mode: str = 'stop'):
        """Watch `session`'s cars in its scene; mode 'off' (never look), 'stop' or 'bounce'."""
        if mode not in MODES:
            raise ValueError(f"contact = {mode!r} must be one of {', '.join(MODES)}")
        self.session = session
        self.mode = mode
        self.events: List[Contact] = []
        self.safe_until = 0
        """No car can touch anything before this step: nothing to look at until then."""

    @property
    def active(self) -> bool:
        """Return whether there is anything to touch: walls, or a second car."""
        return self.mode != 'off' and (self.session.scene.walls or len(self.session.cars) > 1)

    def forget(self) -> None:
        """Look again before the next step: a car was placed, added or the walls changed."""
        self.safe_until = 0

    def safe_steps(self, steps: int) -> int:
        """Return how many of `steps` the cars may take before one could touch something (>= 1)."""
        now = self.session.sim_steps
        if now >= self.safe_until:
            self._plan(self._look(self._rows())[0])
        return min(steps, self.safe_until - now)

    def _plan(self, clear: int) -> None:
        """Take `clear` steps unchecked from now (ending on a control period's start if far)."""
        now = self.session.sim_steps
        period = self.session.cars[0].intake.control_steps
        if clear >= period:     # end on a period's start: no chunk is cut in two
            clear = (now + clear) // period * period - now
        self.safe_until = now + clear

    def _look(self, rows: List[np.ndarray]) -> Tuple[int, List[Optional[float]]]:
        """
        Return how many steps (1 to HORIZON_S's) no car can reach a wall or another car in.

        And each car's clearance to the walls, as far as it could move within
        the horizon (None: not looked at, a halted car or no walls).
        """
        session, scene = self.session, self.session.scene
        dt = session.dt
        horizon = max(1, round(HORIZON_S / dt))
        bounds = [(0.0, 0.0) if car.halted is not None else _bound(car.vehicle.state, row, o)
                  for car, row, o in zip(session.cars, rows, scene.outlines)]
        safe, walls = horizon, []
        for row, bound in zip(rows, bounds):
            clearance = None
            if bound[0] + bound[1] > 0.0 and scene.walls:
                clearance, _, _ = wall_clearance(scene.blocked, scene.meta, row,
                                                 _reach(bound, horizon * dt))
                safe = min(safe, _steps(bound, clearance, dt))
            walls.append(clearance)
        for i in range(len(rows)):
            for j in range(i + 1, len(rows)):
                both = (bounds[i][0] + bounds[j][0], bounds[i][1] + bounds[j][1])
                if both[0] + both[1] > 0.0:
                    clearance = quad_clearance(corners(rows[i]), corners(rows[j]))
                    safe = min(safe, _steps(both, clearance, dt))
        return max(1, safe), walls

    def refuse_overlap(self, k: int, off_map: bool = True) -> None:
        """
        Raise ValueError, naming the position, if car k stands in a wall or on another car.

        off_map: outside the map too (a start: the rule /initialpose has).
        """
        session = self.session
        occupancy = session.scene.occupancy
        x, y = (float(v) for v in session.cars[k].vehicle.state[[X, Y]])
        if off_map and occupancy is not None and not occupancy.contains(x, y):
            raise ValueError(f"car '{session.cars[k].name}' starts at x = {x:.3f}, y = {y:.3f} m "
                             f'outside the map ({occupancy.extent_text()}): start it on the map')
        if self.mode == 'off':
            return
        rows = self._rows()
        touched = self._wall(rows[k]) or self._other_car(k, rows)
        if touched is not None:
            what = 'a wall' if touched[0] == 'wall' else f"car '{touched[0]}'"
            raise ValueError(f"car '{session.cars[k].name}' starts at x = {x:.3f}, y = {y:.3f} "
                             f'm where its footprint overlaps {what} (near x = '
                             f'{touched[1]:.3f}, y = {touched[2]:.3f}): start it clear of walls '
                             'and cars')

    def refuse_pose(self, k: int, x: float, y: float, yaw: float) -> None:
        """
        Raise ValueError naming the pose and why if car k may not be put there.

        Outside the map (a scene with walls), or (contact not off) with its
        footprint in a wall or on another car: the rule a start pose has.
        """
        scene = self.session.scene
        car = self.session.cars[k]
        pose = f'x = {x:.3f}, y = {y:.3f} m, yaw = {yaw:.3f} rad'
        who = f"car '{car.name}'" if car.name else 'the car'
        occupancy = scene.occupancy
        if occupancy is not None and not occupancy.contains(x, y):
            raise ValueError(f'{who} cannot be put at {pose}: outside the map '
                             f'({occupancy.extent_text()})')
        if self.mode == 'off':
            return
        rows = self._rows()
        rows[k] = box_at(x, y, yaw, scene.outlines[k])
        touched = self._wall(rows[k]) if scene.walls else None
        touched = touched or self._other_car(k, rows)
        if touched is not None:
            what = 'a wall' if touched[0] == 'wall' else f"car '{touched[0]}'"
            raise ValueError(f'{who} cannot be put at {pose}: its footprint would '
                             f'overlap {what} (near x = {touched[1]:.3f}, y = {touched[2]:.3f})')

    def check(self) -> None:
        """Find the cars that touch now (once the safe steps are taken); halt or strike them."""
        session = self.session
        if session.sim_steps < self.safe_until:
            return
        rows = self._rows()
        clear, walls = self._look(rows)         # the next safe steps, if nothing touches
        touching = False
        for k, car in enumerate(session.cars):
            if car.halted is not None:
                continue
            touched = (self._wall(rows[k]) if walls[k] in (None, 0.0) else None
                       ) or self._other_car(k, rows)
            if touched is None:
                continue
            touching = True
            other, x, y = touched
            if self.mode == 'bounce':
                self._bounce(k, other, x, y, rows)
                rows = self._rows()         # the cars struck have moved
            else:
                self._halt(car, Contact(session.now_ns, car.name, other, x, y))
        if not touching:
            self._plan(clear)

    def _bounce(self, k: int, other: str, x: float, y: float, rows: List[np.ndarray]) -> None:
        """Strike car k off the wall cell at (x, y) or the car named `other`; tell each struck."""
        session = self.session
        cars = session.cars
        mine = corners(rows[k])
        if other == 'wall':         # out of every cell it overlaps, along its axes or the map's
            cells = self._cells_under(rows[k], mine)
            meta = session.scene.meta
            yaw = float(rows[k][BOX_YAW])
            depth, nx, ny = push_out(mine, cells, ((math.cos(yaw), math.sin(yaw)),
                                                   (-math.sin(yaw), math.cos(yaw)),
                                                   (meta[3], meta[4]), (-meta[4], meta[3])))
            point = tuple(np.mean([cell.mean(axis=0) for cell in cells], axis=0).tolist())
            hit = None
        else:
            j = next(i for i, c in enumerate(cars) if c.name == other)
            theirs, hit = corners(rows[j]), cars[j]
            depth, nx, ny = overlap_axis(mine, theirs)
            point = _touching_point(mine, theirs)
        struck = bounce(_body(cars[k]), _body(hit) if hit is not None else None, point,
                        (nx, ny), depth)
        self.forget()
        if struck:
            for car, what in ((cars[k], other), (hit, cars[k].name)):
                if car is not None:
                    contact = Contact(session.now_ns, car.name, what, x, y)
                    self.events.append(contact)
                    car.front.touched(contact)

    def _rows(self) -> List[np.ndarray]:
        """Return each car's footprint now (raycast's rows)."""
        scene = self.session.scene
        return [box(car.vehicle.state, outline)
                for car, outline in zip(self.session.cars, scene.outlines)]

    def _cells_under(self, row: np.ndarray, mine: np.ndarray) -> List[np.ndarray]:
        """Return the corners of every occupied cell a footprint overlaps."""
        scene = self.session.scene
        blocked, meta = scene.blocked, scene.meta
        resolution, ox, oy, c, s = (float(v) for v in meta)
        rows, cols = blocked.shape
        u = (c * (mine[:, 0] - ox) + s * (mine[:, 1] - oy)) / resolution
        v = (-s * (mine[:, 0] - ox) + c * (mine[:, 1] - oy)) / resolution
        cells = []
        for r in range(max(int(v.min()) - 1, 0), min(int(v.max()) + 2, rows)):
            for col in range(max(int(u.min()) - 1, 0), min(int(u.max()) + 2, cols)):
                if blocked[rows - 1 - r, col]:
                    cu, cv = (col + 0.5) * resolution, (r + 0.5) * resolution
                    cell = _cell(ox + c * cu - s * cv, oy + s * cu + c * cv, meta)
                    if quad_clearance(mine, cell) == 0.0:
                        cells.append(cell)
        return cells or [_cell(*self._wall(row)[1:], meta)]

    def _wall(self, row: np.ndarray):
        scene = self.session.scene
        clearance, x, y = wall_clearance(scene.blocked, scene.meta, row, scene.meta[0])
        return ('wall', float(x), float(y)) if clearance == 0.0 else None

    def _other_car(self, k: int, rows: List[np.ndarray]):
        mine = corners(rows[k])
        for j, other in enumerate(self.session.cars):
            theirs = corners(rows[j])
            if j != k and quad_clearance(mine, theirs) == 0.0:
                x, y = _touching_point(mine, theirs)
                return other.name, x, y
        return None

    def _halt(self, car, contact: Contact) -> None:
        """Stop the car where it stands and report the contact."""
        state = car.vehicle.state
        state[[VX, VY, YAW_RATE]] = 0.0
        state[OMEGA:OMEGA + 4] = 0.0
        car.halted = contact
        self.events.append(contact)
        car.front.touched(contact)


def _body(car) -> Body:
    """Return the rigid body of a session's car (its state, moved in place)."""
    config = car.vehicle.config
    return Body(car.vehicle.state, config['mass_kg'], config['yaw_inertia_kg_m2'])


def _cell(x: float, y: float, meta: np.ndarray) -> np.ndarray:
    """Return the corners (4, 2) of the map cell centred at (x, y) (meta: resolution, ...)."""
    half, c, s = 0.5 * meta[0], meta[3], meta[4]
    return np.array([[x + c * a * half - s * b * half, y + s * a * half + c * b * half]
                     for a, b in ((1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0))])


def _bound(state: np.ndarray, row: np.ndarray, outline) -> Tuple[float, float]:
    """
    Return how fast any point of a car's footprint moves now [m/s], and a bound on its growth.

    Within HORIZON_S (0, 0 when the physics went non-finite: it fails anyway).
    """
    reach = math.hypot(row[BOX_HALF_LENGTH], row[BOX_HALF_WIDTH]) + math.hypot(
        row[BOX_X] - state[X], row[BOX_Y] - state[Y])       # the farthest corner from the CG
    speed = math.hypot(state[VX], state[VY])
    fastest = speed + outline.acceleration_m_s2 * HORIZON_S
    yaw_acceleration = outline.yaw_acceleration_rad_s2 or (
        outline.steer_m * outline.acceleration_m_s2 + outline.steer_rate_m * fastest)
    now = speed + abs(state[YAW_RATE]) * reach
    growth = outline.acceleration_m_s2 + yaw_acceleration * reach
    return (now, growth) if math.isfinite(now) and math.isfinite(growth) else (0.0, 0.0)


def _reach(bound: Tuple[float, float], time_s: float) -> float:
    """Return the farthest a point may move in time_s under `bound` (_bound's) [m]."""
    now, growth = bound
    return now * time_s + 0.5 * growth * time_s * time_s


def _steps(bound: Tuple[float, float], clearance: float, dt: float) -> int:
    """Return the most steps of dt in which no point moves past `clearance` (0: touching)."""
    now, growth = bound
    if not clearance > 0.0:         # touching already (a car put into a wall): no safe step
        return 0
    if growth > 0.0:
        time_s = 2.0 * clearance / (now + math.sqrt(now * now + 2.0 * growth * clearance))
    else:
        time_s = clearance / now
    steps = math.floor(time_s / dt)
    while steps > 0 and _reach(bound, steps * dt) > clearance:   # rounding: never a step over
        steps -= 1
    return steps


def _inside(point: np.ndarray, quad: np.ndarray) -> bool:
    """Return whether a point lies in a counter-clockwise convex quad (edges included)."""
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        if (b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0]) < 0.0:
            return False
    return True


def _touching_point(mine: np.ndarray, theirs: np.ndarray) -> Tuple[float, float]:
    """Return a corner of either quad inside the other, else the midpoint of their centres."""
    for corner in mine:
        if _inside(corner, theirs):
            return float(corner[0]), float(corner[1])
    for corner in theirs:
        if _inside(corner, mine):
            return float(corner[0]), float(corner[1])
    middle = 0.5 * (mine.mean(axis=0) + theirs.mean(axis=0))
    return float(middle[0]), float(middle[1])
