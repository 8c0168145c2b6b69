"""
What stands in the world at an instant: an occupancy map's walls and the cars' footprints.

The session keeps one Scene for its cars: the lidar casts its beams
through it (each car's own footprint left out), and contact is checked
against it. A car's footprint is a rectangle (footprint_of: its vehicle
file's footprint.length_m and footprint.width_m) centred midway between
its axles, turned with the car.
"""

import math
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from .occupancy import OccupancyMap
from .raycast import (
    BOX_HALF_LENGTH, BOX_HALF_WIDTH, BOX_X, BOX_Y, BOX_YAW, cast, clearance_cells, NO_BOXES)
from ..physics.model import X, Y, YAW

NOTHING = (np.zeros((1, 1), dtype=np.uint8), np.array([1.0, 0.0, 0.0, 1.0, 0.0]))
"""A map of one free cell: the walls of a scene without an occupancy map."""


_WALLS: Dict[int, tuple] = {}
"""walls_of()'s answers by the map's id, each with its map (so that the id stays its own)."""
KEPT_MAPS = 8


def walls_of(occupancy: Optional[OccupancyMap]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """
    Return a map's occupied cells (uint8), placement and clearance_cells (None: NOTHING's).

    Worked out once per map (the last KEPT_MAPS): a campaign's runs share
    their stage's map. The arrays are shared: nobody writes into them.
    """
    kept = _WALLS.get(id(occupancy))
    if kept is None or kept[0] is not occupancy:
        blocked, meta = (occupancy.blocked, occupancy.meta) if occupancy is not None else NOTHING
        kept = (occupancy, blocked, meta, clearance_cells(blocked))
        if len(_WALLS) >= KEPT_MAPS:
            del _WALLS[next(iter(_WALLS))]
        _WALLS[id(occupancy)] = kept
    return kept[1], kept[2], kept[3]


class Footprint(NamedTuple):
    """A car's outline and how fast it can change its motion, as contact needs them."""

    length_m: float
    width_m: float
    ahead_of_cg_m: float
    """Its centre this far ahead of the CG [m]."""
    acceleration_m_s2: float = 0.0
    """A bound on how fast the CG's speed changes [m/s^2]."""
    yaw_acceleration_rad_s2: float = 0.0
    """A bound on how fast the yaw rate changes [rad/s^2]; 0: from the steering (kinematic)."""
    steer_m: float = 0.0
    """Kinematic model: tan(largest steer) / wheelbase and that over cos^2 times the
    steer rate: yaw acceleration <= steer_m * acceleration + steer_rate_m * speed."""
    steer_rate_m: float = 0.0


FASTEST_STEER_RAD_S = 50.0
"""The steer rate assumed of a car whose file sets no limit (steering.max_rate_rad_s 0)."""


def footprint_of(config) -> Footprint:
    """
    Return a vehicle's footprint from its file.

    footprint.length_m / width_m as given; 0 (their default) stands for
    the wheelbase plus four wheel radii, and the track plus a wheel
    radius. The centre is midway between the axles.
    """
    front, rear = config['cg_to_front_axle_m'], config['cg_to_rear_axle_m']
    radius = config['wheel_radius_m']
    length = config['footprint.length_m'] or front + rear + 4.0 * radius
    width = config['footprint.width_m'] or 2.0 * config['half_track_m'] + radius
    # tyres at twice their peak grip (load transfer, a margin), gravity along a slope
    grip = max(config[f'tyres.{a}.mu'] * config[f'tyres.{a}.D'] for a in ('front', 'rear'))
    acceleration = (2.0 * grip + 1.0) * config['gravity_m_s2']
    if config['model'] == 'kinematic_bicycle':       # yaw rate v tan(steer) / wheelbase
        steer = config['steering.max_angle_rad']
        rate = config['steering.max_rate_rad_s'] or FASTEST_STEER_RAD_S
        return Footprint(length, width, 0.5 * (front - rear), acceleration, 0.0,
                         math.tan(steer) / (front + rear),
                         rate / math.cos(steer) ** 2 / (front + rear))
    yaw = acceleration * config['mass_kg'] * max(front, rear) / config['yaw_inertia_kg_m2']
    return Footprint(length, width, 0.5 * (front - rear), acceleration, yaw)


class Scene:
    """The walls (an occupancy map, or none) and the cars in them, as beams and contact see."""

    def __init__(self, occupancy: Optional[OccupancyMap] = None):
        """Hold `occupancy`'s walls (None: open ground) and no car yet."""
        self.set_walls(occupancy)
        self.cars: List = []
        self.outlines: List[Footprint] = []

    def set_walls(self, occupancy: Optional[OccupancyMap]) -> None:
        """Stand `occupancy`'s walls in the scene (None: open ground), in place of any before."""
        self.occupancy = occupancy
        self.blocked, self.meta, self.clearance = walls_of(occupancy)
        """The occupied cells, the map's placement (the kernels' meta), and each cell's
        distance to the walls in cells, as beams leap across open space."""
        self.walls = bool(self.blocked.any())
        """Whether any cell is occupied (anything for a car to touch but other cars)."""

    def add(self, vehicle, footprint: Footprint) -> None:
        """Put a car (its Vehicle, whose state moves it) into the scene."""
        self.cars.append(vehicle)
        self.outlines.append(footprint)

    def remove(self, vehicle) -> None:
        """Take a car out of the scene."""
        k = next(i for i, car in enumerate(self.cars) if car is vehicle)
        del self.cars[k], self.outlines[k]

    def boxes(self, leave_out=None) -> np.ndarray:
        """Return the cars' footprints now (raycast's rows), but `leave_out`'s."""
        rows = [box(car.state, outline) for car, outline in zip(self.cars, self.outlines)
                if car is not leave_out]
        return np.array(rows).reshape(-1, 5)

    def cast(self, vehicle, x: float, y: float, headings: np.ndarray, max_range: float
             ) -> np.ndarray:
        """Return each beam's range from (x, y) to a wall or another car (inf: none in range)."""
        out = np.empty(len(headings))
        cast(self.clearance, self.meta, self.boxes(leave_out=vehicle), float(x), float(y),
             np.ascontiguousarray(headings, dtype=np.float64), float(max_range), out)
        return out


def prepare() -> None:
    """Load (or compile) the kernels of beams and contact: a scan and a clearance, once."""
    from .contact import corners, least_clearance, quad_clearance, wall_clearance
    row = np.array([0.0, 0.0, 0.0, 1.0, 0.5])
    cast(clearance_cells(NOTHING[0]), NOTHING[1], NO_BOXES, 0.0, 0.0, np.zeros(1), 1.0,
         np.empty(1))
    wall_clearance(*NOTHING, row, 1.0)
    least_clearance(*walls_of(None), row[None], 1.0)
    quad_clearance(corners(row), corners(row))


def box(state: np.ndarray, outline: Footprint) -> np.ndarray:
    """Return a footprint row (raycast's BOX_* columns) of a car in `state`."""
    return box_at(float(state[X]), float(state[Y]), float(state[YAW]), outline)


def boxes_at(x: np.ndarray, y: np.ndarray, yaw: np.ndarray, outline: Footprint) -> np.ndarray:
    """Return the footprint rows (n, 5) of a car whose CG stands at each (x, y) heading yaw."""
    rows = np.empty((len(x), 5))
    rows[:, BOX_X] = x + np.cos(yaw) * outline.ahead_of_cg_m
    rows[:, BOX_Y] = y + np.sin(yaw) * outline.ahead_of_cg_m
    rows[:, BOX_YAW] = yaw
    rows[:, BOX_HALF_LENGTH] = 0.5 * outline.length_m
    rows[:, BOX_HALF_WIDTH] = 0.5 * outline.width_m
    return rows


def box_at(x: float, y: float, yaw: float, outline: Footprint) -> np.ndarray:
    """Return the footprint row of a car whose CG stands at (x, y) heading yaw."""
    row = np.empty(5)
    row[BOX_X] = x + math.cos(yaw) * outline.ahead_of_cg_m
    row[BOX_Y] = y + math.sin(yaw) * outline.ahead_of_cg_m
    row[BOX_YAW] = yaw
    row[BOX_HALF_LENGTH] = 0.5 * outline.length_m
    row[BOX_HALF_WIDTH] = 0.5 * outline.width_m
    return row
