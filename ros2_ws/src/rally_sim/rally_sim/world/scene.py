"""
What stands in the world at an instant: an occupancy map's walls and the cars' footprints.

The session keeps one Scene for its cars: the lidar casts its beams
through it (each car's own footprint left out), and contact is checked
against it. A car's footprint is a rectangle (footprint_of: its vehicle
file's footprint.length_m and footprint.width_m) centred midway between
its axles, turned with the car.
"""

import math
from typing import List, NamedTuple, Optional

import numpy as np

from .occupancy import OccupancyMap
from ..physics.model import X, Y, YAW
from .raycast import BOX_HALF_LENGTH, BOX_HALF_WIDTH, BOX_X, BOX_Y, BOX_YAW, cast

NOTHING = (np.zeros((1, 1), dtype=np.uint8), np.array([1.0, 0.0, 0.0, 1.0, 0.0]))
"""A map of one free cell: the walls of a scene without an occupancy map."""


class Footprint(NamedTuple):
    """A car's outline: length and width [m], its centre this far ahead of the CG [m]."""

    length_m: float
    width_m: float
    ahead_of_cg_m: float


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
    return Footprint(length, width, 0.5 * (front - rear))


class Scene:
    """The walls (an occupancy map, or none) and the cars in them, as beams and contact see them."""

    def __init__(self, occupancy: Optional[OccupancyMap] = None):
        """Hold `occupancy`'s walls (None: open ground) and no car yet."""
        self.occupancy = occupancy
        self.blocked, self.meta = ((occupancy.blocked, occupancy.meta) if occupancy is not None
                                   else NOTHING)
        self.walls = bool(self.blocked.any())
        """Whether any cell is occupied (anything for a car to touch but other cars)."""
        self.cars: List = []
        self.outlines: List[Footprint] = []

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
        cast(self.blocked, self.meta, self.boxes(leave_out=vehicle), float(x), float(y),
             np.ascontiguousarray(headings, dtype=np.float64), float(max_range), out)
        return out


def box(state: np.ndarray, outline: Footprint) -> np.ndarray:
    """Return a footprint row (raycast's BOX_* columns) of a car in `state`."""
    x, y, yaw = float(state[X]), float(state[Y]), float(state[YAW])
    row = np.empty(5)
    row[BOX_X] = x + math.cos(yaw) * outline.ahead_of_cg_m
    row[BOX_Y] = y + math.sin(yaw) * outline.ahead_of_cg_m
    row[BOX_YAW] = yaw
    row[BOX_HALF_LENGTH] = 0.5 * outline.length_m
    row[BOX_HALF_WIDTH] = 0.5 * outline.width_m
    return row
