"""
What the view knows of a simulation, gathered from its messages, and what the pages are told.

ROS-free: the live view node hands it each message as a subscription
delivers it, the bag replay each message of a bag in its order; either way
the pages get the same things (server.py):

- scene (latched): the stage's bounds, its ground picture's placement and
  surfaces (the picture itself at /ground.png), the reference path;
- cars (latched): each car's footprint, wheels, colour, label, once its
  wheels are known from /tf;
- state (at most rate_hz): every car's pose, velocities, per-wheel slips,
  loads and steer, the acceleration, the surface under each wheel, laps;
  simulated time and the real-time factor;
- scan (at most scan_rate_hz per lidar): the beams from the lidar's pose.

The first car in drawing order (the driven one, then by name) paces the
states: a frame goes out with its odometry.
"""

import collections
import math
import time
from typing import Callable, Dict, List, Optional

import numpy as np

from . import ground as ground_module
from .frames import car_facts, CarTrack, rectangle
from .messages import (extra_of, frame_prefix, outline_of, path_points, sample_of, scan_beams,
                       seconds, triangles_of, walls_of)
from ..control.path import ClosedPath

GROUND_TRUTH = 'ground_truth/odom'
WHEEL_FRAMES = ('wheel_fl_steer', 'wheel_fr_steer', 'wheel_rl', 'wheel_rr')
"""The child frames of base_link at each wheel's centre, fl, fr, rl, rr."""
RTF_WINDOW_S = 1.0
MAX_PATH_POINTS = 4000
MAX_BEAMS = 1080


class CarRecord:
    """One car's newest messages."""

    def __init__(self, name: str):
        """Know a car by its name ('' for a lone car)."""
        self.name = name
        self.odometry = None
        self.slip = None
        self.drivetrain = None
        self.pedal: Optional[float] = None
        self.footprint: Optional[List[List[float]]] = None
        self.prefix: Optional[str] = None

    def sample(self):
        """Return the car's newest state (None before its first odometry)."""
        return None if self.odometry is None else sample_of(self.name, self.odometry, self.slip)


class Feed:
    """The simulation as the pages see it."""

    def __init__(self, server, rate_hz: float = 60.0, scan_rate_hz: float = 20.0,
                 driven: Optional[str] = None):
        """Tell `server`'s pages (driven: the name of the car a person drives, if any)."""
        self.server = server
        self.rate_hz, self.scan_rate_hz, self.driven = rate_hz, scan_rate_hz, driven
        self.cars: Dict[str, CarRecord] = {}
        self._order: List[CarRecord] = []
        self.wheels: Dict[str, Dict[str, List[float]]] = {}
        self.lasers: Dict[str, List[float]] = {}
        self.locks_rad: Dict[str, float] = {}
        self.tracks: Dict[str, CarTrack] = {}
        self.triangles: Dict[str, np.ndarray] = {}
        self.walls = None
        self.points: Optional[np.ndarray] = None
        self.ground = None
        self.path: Optional[ClosedPath] = None
        self.version = 0
        self.facts_sent: List[dict] = []
        self.facts_due = True
        """Whether the cars' facts may have changed (a car, its wheels, footprint, the scene)."""
        self.last_frame = -math.inf
        self.scan_sent: Dict[str, float] = {}
        self.clock = collections.deque()
        self.paused = False
        self.extra_for: Callable[[str], dict] = lambda name: {}
        self.on_frame: Callable[[str, CarTrack], None] = lambda name, track: None
        self.before_frame: Callable[[], None] = lambda: None
        """Called before each state is made (the view node takes its polled topics)."""

    # ---- the cars ------------------------------------------------------------

    def car(self, name: str) -> CarRecord:
        """Return the car of that name, known from now on."""
        car = self.cars.get(name)
        if car is None:
            car = self.cars[name] = CarRecord(name)
            self.facts_due = True
            self._order = sorted(self.cars.values(),
                                 key=lambda c: (c.name != self.driven, c.name))
        return car

    def ordered(self) -> List[CarRecord]:
        """Return the cars in drawing order: the driven one first, then by name."""
        return self._order

    def odometry(self, name: str, msg, now_s: float, publish: bool = True) -> None:
        """
        Take a car's ground truth; with the first car's, send the pages a state.

        The message's fields are read only when a state is sent (a message kept
        serialized until then is read at the pages' rate, not the simulator's).
        """
        car = self.car(name)
        car.odometry = msg
        cars = self.ordered()
        if cars[0] is not car or now_s - self.last_frame < 1.0 / self.rate_hz - 1e-3 or (
                publish and not self.server.watched()):
            return
        self.last_frame = now_s
        self.before_frame()
        self.clock_at(seconds(msg.header.stamp), now_s)
        for each in cars:
            if each.prefix is None and each.odometry is not None:
                each.prefix = frame_prefix(each.odometry.child_frame_id)
                self.facts_due = True
        self._frame(cars, publish)

    def refresh(self) -> None:
        """Send the cars' newest states now (a replay that jumped)."""
        cars = self.ordered()
        if cars and cars[0].odometry is not None:
            self._frame(cars)

    def slip(self, name: str, msg) -> None:
        """Take a car's wheel_slip."""
        self.car(name).slip = msg

    def drivetrain(self, name: str, msg) -> None:
        """Take a car's drivetrain_state."""
        self.car(name).drivetrain = msg

    def pedal(self, name: str, msg) -> None:
        """Take a car's driver_cmd (the brake pedal shown on the HUD)."""
        self.car(name).pedal = float(msg.brake)

    def footprint(self, name: str, msg) -> None:
        """Take a car's outline (a PolygonStamped in base_link)."""
        self.car(name).footprint = outline_of(msg)
        self.facts_sent, self.facts_due = [], True

    def wheels_known(self) -> bool:
        """Return whether every car's wheels are known (then /tf has nothing more to say)."""
        return bool(self.cars) and all(
            car.prefix is not None and len(self.wheels.get(car.prefix, {})) == 4
            for car in self.cars.values())

    def transforms(self, msg) -> None:
        """Take /tf or /tf_static: each car's wheel centres, each lidar's mount."""
        for t in msg.transforms:
            parent, child = t.header.frame_id, t.child_frame_id
            v = t.transform.translation
            slot = next((s for s in WHEEL_FRAMES if child.endswith(s)), None)
            if slot is not None and parent == child[:-len(slot)] + 'base_link':
                self.wheels.setdefault(child[:-len(slot)], {})[slot] = [v.x, v.y, v.z]
                self.facts_due = True
            elif child.endswith('laser'):
                q = t.transform.rotation
                self.lasers[child] = [v.x, v.y, 2.0 * math.atan2(q.z, q.w)]

    def clock_at(self, t: float, now_s: float) -> None:
        """Take simulated time t at wall time now_s (each state's), for the real-time factor."""
        self.clock.append((now_s, t))
        while len(self.clock) > 2 and now_s - self.clock[0][0] > RTF_WINDOW_S:
            self.clock.popleft()

    def rtf(self) -> float:
        """Return simulated seconds per wall second over the last second."""
        if len(self.clock) < 2:
            return 0.0
        (w0, t0), (w1, t1) = self.clock[0], self.clock[-1]
        return (t1 - t0) / (w1 - w0) if w1 > w0 else 0.0

    def scan(self, msg, now_s: float) -> None:
        """Take a LaserScan: its car by its frame, its pose from the car's and the mount."""
        frame = msg.header.frame_id
        prefix = frame_prefix(frame)
        car = next((c for c in self.cars.values() if c.prefix == prefix), None)   # seen in a state
        if car is None or car.odometry is None or self.scan_rate_hz <= 0.0 \
                or now_s - self.scan_sent.get(frame, -math.inf) < 1.0 / self.scan_rate_hz:
            return
        self.scan_sent[frame] = now_s
        s = car.sample()
        x, y, yaw = self.lasers.get(frame, [0.0, 0.0, 0.0])
        c, n = math.cos(s.yaw), math.sin(s.yaw)
        self.server.publish('scan', dict(scan_beams(msg, MAX_BEAMS), car=car.name, pose=[
            s.x + c * x - n * y, s.y + n * x + c * y, s.yaw + yaw]))

    def take(self, topic: str, msg, now_s: float, quick: bool = False) -> None:
        """Take any message by its topic's name (a bag's); quick: send no state for it."""
        name = topic.strip('/')
        if name.endswith(GROUND_TRUTH):
            self.odometry(name[:-len(GROUND_TRUTH)].rstrip('/'), msg, now_s, not quick)
        elif name in ('tf', 'tf_static'):
            self.transforms(msg)
        elif hasattr(msg, 'ranges') and hasattr(msg, 'angle_increment'):
            if not quick:
                self.scan(msg, now_s)
        elif name.endswith('stage/surface') or name.endswith('stage/path') or (
                name.endswith('map') and hasattr(msg, 'info')):
            {'surface': self.surface, 'path': self.reference}.get(
                name.rsplit('/', 1)[-1], self.grid)(msg)
            self.settle()
        else:
            car, _, kind = name.rpartition('/')
            take = {'wheel_slip': self.slip, 'drivetrain_state': self.drivetrain,
                    'driver_cmd': self.pedal, 'footprint': self.footprint}.get(kind)
            if take is not None and car in self.cars:
                take(car, msg)

    def reset(self) -> None:
        """Forget everything (a replay seeking back starts again from its bag's start)."""
        server, rate, scan_rate, driven = self.server, self.rate_hz, self.scan_rate_hz, self.driven
        hooks, version = (self.extra_for, self.on_frame, self.before_frame), self.version
        self.__init__(server, rate, scan_rate, driven)
        (self.extra_for, self.on_frame, self.before_frame), self.version = hooks, version

    # ---- the stage -----------------------------------------------------------

    def surface(self, msg) -> None:
        """Take stage/surface's triangles (settle() builds the scene once all is in)."""
        self.triangles = triangles_of(msg)

    def grid(self, msg) -> None:
        """Take map, the walls' occupancy grid."""
        self.walls = walls_of(msg)

    def reference(self, msg) -> None:
        """Take stage/path."""
        self.points = path_points(msg)

    def settle(self) -> None:
        """Build the ground again and tell the pages of the new scene (laps start afresh)."""
        self.ground = ground_module.build(self.triangles, self.walls)
        self.path = ClosedPath(self.points) if self.points is not None else None
        self.tracks = {}
        self.facts_sent, self.facts_due = [], True
        self.version += 1
        self.server.set_ground(self.ground.png if self.ground else None)
        bounds = ground_module.bounds_of(self.triangles, self.walls)
        if bounds is None and self.points is not None:
            bounds = (*self.points.min(axis=0).tolist(), *self.points.max(axis=0).tolist())
        path = None
        if self.points is not None:
            step = max(1, len(self.points) // MAX_PATH_POINTS)
            path = [[round(x, 3), round(y, 3)] for x, y in self.points[::step].tolist()]
        self.server.latch('scene', {
            'version': self.version, 'bounds': bounds, 'path': path,
            'ground': None if self.ground is None else self.ground.description()})

    # ---- what the pages get ------------------------------------------------

    def _frame(self, cars: List[CarRecord], publish: bool = True) -> None:
        """Send the cars' newest states (publish False: only count the laps)."""
        if self.facts_due:
            self.facts_due = False
            self._send_facts(cars)
        states = []
        for car in cars:
            sample, track = car.sample(), self.tracks.get(car.name)
            if sample is None or track is None:
                continue
            extra = extra_of(car.drivetrain, car.pedal, car.slip, self.locks_rad.get(car.name))
            extra.update(self.extra_for(car.name))
            states.append(track.frame(sample, self.ground, extra))
            self.on_frame(car.name, track)
        if states and publish:
            self.server.publish('state', {
                't': seconds(cars[0].odometry.header.stamp), 'rtf': self.rtf(),
                'wall_ms': time.time() * 1e3, 'paused': self.paused, 'cars': states})

    def _send_facts(self, cars: List[CarRecord]) -> None:
        """Latch the cars' facts whenever a car's wheels become known or the cars change."""
        facts = []
        for index, car in enumerate(cars):
            wheels = self.wheels.get(car.prefix, {}) if car.prefix is not None else {}
            if len(wheels) < 4:
                continue
            points = [wheels[slot][:2] for slot in WHEEL_FRAMES]
            radius = max(min(w[2] for w in wheels.values()), 0.01)
            label = 'you' if car.name == self.driven and not car.name else car.name
            facts.append(car_facts(car.name, index, self._outline(car, points, radius), points,
                                   radius, label))
            if car.name not in self.tracks:
                self.tracks[car.name] = CarTrack(points, self.points)
        if facts != self.facts_sent:
            self.facts_sent = facts
            self.server.latch('cars', {'cars': facts})

    @staticmethod
    def _outline(car: CarRecord, wheels: List[List[float]], radius: float) -> List[List[float]]:
        """Return the car's footprint, or one around its wheels if the simulator gives none."""
        if car.footprint and len(car.footprint) >= 3:
            return car.footprint
        xs, ys = [w[0] for w in wheels], [w[1] for w in wheels]
        return rectangle(max(xs) + 2.0 * radius, -min(xs) + 2.0 * radius,
                         max(abs(y) for y in ys) + 0.5 * radius)
