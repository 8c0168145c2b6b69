"""
What the page is sent of each car: its fixed facts once, its state at every frame.

ROS-free: the view node fills CarSample from the simulator's messages, the
in-process source (Gymnasium) from the session's vehicles; both then build
the same JSON here. A car's facts are its footprint and wheels in base_link
(drawn at the pose), its colour and label. Its state adds to the sample
what the page shows but the messages do not carry: the acceleration for
the g-g circle (from the velocity's change in the turning body frame,
smoothed), the surface under each wheel (dust), the lap and sector times.
"""

import math
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from .ground import Ground
from ..drive.laps import LapTimer

COLOURS = ('#e8432e', '#2e8be8', '#f2c12e', '#9b59d6', '#2ecc71', '#e67e22', '#ecf0f1',
           '#ff6fb0')
"""Each car's colour, in the order the cars are listed."""
ACCELERATION_TAU_S = 0.08
"""The g-g circle's low-pass time constant: the acceleration from 100 Hz states is noisy."""
CABIN_HEIGHT_M = 1.0
"""Where the body's roll and pitch are shown to act, per metre of a full-size car's length."""


class CarSample(NamedTuple):
    """One car at one instant, in REP-103 units, wheel order fl, fr, rl, rr."""

    name: str
    t: float
    x: float
    y: float
    yaw: float
    vx: float
    vy: float
    yaw_rate: float
    roll: float = 0.0
    pitch: float = 0.0
    steer: Sequence[float] = (0.0,) * 4
    slip_ratio: Sequence[float] = (0.0,) * 4
    slip_angle: Sequence[float] = (0.0,) * 4
    load: Sequence[float] = (0.0,) * 4
    travel: Sequence[float] = (0.0,) * 4
    acceleration: Optional[Tuple[float, float]] = None   # measured (x, y), if known


def car_facts(name: str, index: int, footprint: Sequence[Sequence[float]],
              wheels: Sequence[Sequence[float]], wheel_radius_m: float,
              label: str = '') -> Dict[str, object]:
    """Return a car's fixed facts: its outline and wheels in base_link, colour, label."""
    xs = [p[0] for p in footprint]
    ys = [p[1] for p in footprint]
    length, width = max(xs) - min(xs), max(ys) - min(ys)
    centre = (0.5 * (max(xs) + min(xs)), 0.5 * (max(ys) + min(ys)))
    return {'name': name, 'label': label or name, 'colour': COLOURS[index % len(COLOURS)],
            'footprint': [[round(x, 4), round(y, 4)] for x, y in footprint],
            'wheels': [[round(x, 4), round(y, 4)] for x, y in wheels],
            'wheel_radius': wheel_radius_m, 'length': length,
            'cabin': [centre[0] - 0.05 * length, centre[1], 0.5 * length, 0.75 * width],
            'cabin_height': CABIN_HEIGHT_M * length / 4.5}


def rectangle(front_m: float, rear_m: float, half_width_m: float) -> List[List[float]]:
    """Return a rectangular footprint: front_m ahead of base_link, rear_m behind."""
    return [[front_m, half_width_m], [-rear_m, half_width_m], [-rear_m, -half_width_m],
            [front_m, -half_width_m]]


class CarTrack:
    """One car seen over time: its acceleration, its laps; its frame for the page."""

    def __init__(self, wheels: Sequence[Sequence[float]], path=None):
        """wheels: the four in base_link; path: the reference path (N, 2) to time laps on."""
        self.wheels = [tuple(w) for w in wheels]
        self.laps = LapTimer(path) if path is not None and len(path) >= 3 else None
        self._last: Optional[CarSample] = None
        self.acceleration = (0.0, 0.0)
        self.moved = False

    def reset(self) -> None:
        """Forget the last sample and void the lap: the car was put somewhere else."""
        self._last = None
        self.moved = True
        if self.laps is not None:
            self.laps.reset()

    def frame(self, s: CarSample, ground: Optional[Ground] = None,
              extra: Optional[Dict[str, object]] = None) -> Dict[str, object]:
        """Return the car's state for the page (extra: drivetrain, pedals, gear name)."""
        self._accelerate(s)
        lap = self._lap(s)
        moved, self.moved = self.moved, False
        out = {'name': s.name, 'x': s.x, 'y': s.y, 'yaw': s.yaw, 'vx': s.vx, 'vy': s.vy,
               'r': s.yaw_rate, 'roll': s.roll, 'pitch': s.pitch,
               'ax': self.acceleration[0], 'ay': self.acceleration[1],
               'steer': _round(s.steer), 'slip_ratio': _round(s.slip_ratio),
               'slip_angle': _round(s.slip_angle), 'load': _round(s.load, 1),
               'travel': _round(s.travel), 'surface': self._surfaces(s, ground), 'reset': moved,
               'lap': lap, 'lap_s': None if lap is None else lap['current']}
        if extra:
            out.update(extra)
        return out

    def _accelerate(self, s: CarSample) -> None:
        """Update the smoothed body-frame acceleration (measured, or from the velocities)."""
        last, self._last = self._last, s
        if s.acceleration is not None:
            measured = s.acceleration
        elif last is None or not s.t > last.t:
            return
        else:
            dt = s.t - last.t
            r = 0.5 * (s.yaw_rate + last.yaw_rate)
            measured = ((s.vx - last.vx) / dt - r * 0.5 * (s.vy + last.vy),
                        (s.vy - last.vy) / dt + r * 0.5 * (s.vx + last.vx))
        dt = 0.0 if last is None else max(s.t - last.t, 0.0)
        share = 1.0 if last is None else min(dt / ACCELERATION_TAU_S, 1.0)
        self.acceleration = tuple(a + share * (m - a)
                                  for a, m in zip(self.acceleration, measured))

    def _lap(self, s: CarSample) -> Optional[Dict[str, object]]:
        """Return the lap timer's figures after this sample (None without a path)."""
        timer = self.laps
        if timer is None:
            return None
        timer.update(s.t, s.x, s.y, s.yaw)
        return {'count': len(timer.laps), 'current': timer.current_s(s.t),
                'last': timer.laps[-1] if timer.laps else None, 'best': timer.best_s,
                'sectors': timer.sector_times(), 'best_sectors': timer.best_sectors}

    def _surfaces(self, s: CarSample, ground: Optional[Ground]) -> Optional[List[Optional[int]]]:
        """Return the index of the surface under each wheel (None off the map), or None."""
        if ground is None:
            return None
        c, n = math.cos(s.yaw), math.sin(s.yaw)
        return [ground.index_at(s.x + c * x - n * y, s.y + n * x + c * y)
                for x, y in self.wheels]


def _round(values: Sequence[float], digits: int = 4) -> List[float]:
    return [round(float(v), digits) if math.isfinite(v) else 0.0 for v in values]
