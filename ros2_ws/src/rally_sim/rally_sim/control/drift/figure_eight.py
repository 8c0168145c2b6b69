"""
The reference drift controller on a figure eight: two drift circles, a planned transition.

Two circles of one radius touch at the crossing. On each, the drift LQR (lqr.py) holds
the car's equilibrium (the left one mirrored on the right circle). lead_s
before each crossing the planned transition (transition.py) takes over:
its steer angle and rear wheel speed, timed so that its crossing falls
where the car's does, then the next circle's LQR, its integrals fresh. The
first circle starts from grip driving, the sideslip aimed at ramping up
over entry_s; a transition begins once the entry is done and the car has
driven half its circle.

All geometry is in the transition's canonical frame (crossing at the
origin, heading +y): the pose is moved there; the body velocities, the
steer angle and the drive do not change with the frame.
"""

import math
from typing import Sequence

import numpy as np

from .lqr import Act, DriftDesign, DriftLqr
from .transition import Tracking, Transition
from ...physics.config import VehicleConfig

TWO_PI = 2.0 * math.pi


class DriftFigureEight:
    """Steer and drive for drifts round a figure eight, from the car's state."""

    def __init__(self, config: VehicleConfig, surface: str, design: DriftDesign,
                 heading_rad: float, transition: Transition, left: DriftLqr = None):
        """
        Design both circles' laws; take the transition as planned.

        design.radius_m: the first circle's (negative: the right one,
        clockwise); design.center_x_m, center_y_m: the crossing; heading_rad:
        the direction of travel through it. left: a DriftLqr of the design
        already made (either circle), to take its family instead of solving it.
        """
        radius = abs(design.radius_m)
        self.left = (left or DriftLqr(config, surface, design)).placed(radius, -radius, 0.0)
        self.right = self.left.placed(-radius, radius, 0.0)
        self.design, self.transition = design, transition
        self.tracking = Tracking(self.left, transition)
        self.crossing = (design.center_x_m, design.center_y_m)
        self.turn = 0.5 * math.pi - heading_rad       # rotates the heading onto +y
        self.first_left = design.radius_m > 0.0
        speed = self.left.target.speed_m_s
        self.lead_m = transition.lead_s * speed
        self.half_lap_s = math.pi * radius / speed
        self.reset()

    @property
    def target(self):
        """Return the left circle's equilibrium (the right one's is its mirror)."""
        return self.left.target

    @property
    def driver(self) -> bool:
        """Return whether the drive is the throttle (else the rear torques)."""
        return self.left.driver

    @property
    def gear(self):
        """Return the gear held in driver mode."""
        return self.left.gear

    def reset(self) -> None:
        """Start again on the first circle (a new run, or time that went back)."""
        self.on_left = self.first_left
        self.window_start_s = None          # in a transition: when its window began
        self.circle_start_s = 0.0
        self.transitions = 0
        self._last_time_s = -math.inf
        self.left.reset()
        self.right.reset()

    def canonical(self, x: float, y: float, yaw: float):
        """Return a pose in the canonical frame (crossing at the origin, heading +y)."""
        dx, dy = x - self.crossing[0], y - self.crossing[1]
        c, s = math.cos(self.turn), math.sin(self.turn)
        return c * dx - s * dy, s * dx + c * dy, yaw + self.turn

    def remaining_m(self, x: float, y: float) -> float:
        """Return the arc [m] from a canonical position to the crossing on the current circle."""
        radius = self.left.radius_m
        if self.on_left:
            return radius * ((-math.atan2(y, x + radius)) % TWO_PI)
        return radius * ((math.atan2(y, x - radius) - math.pi) % TWO_PI)

    def command(self, time_s: float, x: float, y: float, yaw: float, vx: float, vy: float,
                yaw_rate: float, rear_omega: Sequence[float]):
        """Return (steer [rad], drive) as DriftLqr's command does; time_s since the start."""
        if time_s < self._last_time_s:
            self.reset()
        self._last_time_s = time_s
        x, y, yaw = self.canonical(x, y, yaw)
        if self.window_start_s is None and time_s >= max(
                self.design.entry_s, self.circle_start_s + self.half_lap_s):
            remaining = self.remaining_m(x, y)
            if remaining <= self.lead_m:            # the planned window, aligned to here
                speed = self.left.target.speed_m_s
                self.window_start_s = time_s - (self.lead_m - remaining) / speed
        if self.window_start_s is not None:
            into = time_s - self.window_start_s
            if into < self.transition.window_s:
                return self._planned(into, (x, y, yaw, vx, vy, yaw_rate), rear_omega)
            self.on_left, self.window_start_s = not self.on_left, None
            self.transitions += 1
            self.circle_start_s = time_s
            (self.left if self.on_left else self.right).reset()
        law = self.left if self.on_left else self.right
        if self.transitions == 0:
            return law.command_at(law.share(time_s), time_s >= self.design.entry_s,
                                  x, y, yaw, vx, vy, yaw_rate, rear_omega)
        return law.command_at(1.0, True, x, y, yaw, vx, vy, yaw_rate, rear_omega)

    def act(self, *args) -> Act:
        """Return command()'s answer as an Act (no handbrake; the held gear in driver mode)."""
        return Act(*self.command(*args), 0.0, int(self.gear) if self.driver else None)

    def _planned(self, into_s: float, pose_state: Sequence[float], rear_omega: Sequence[float]):
        """Return the transition's inputs into_s into its window (mirrored from the left)."""
        rl, rr = rear_omega
        into_left = not self.on_left
        if not into_left:               # the left-to-right transition: the plan's mirror
            x, y, yaw, vx, vy, yaw_rate = pose_state
            pose_state = (-x, y, math.pi - yaw, vx, -vy, -yaw_rate)
            rl, rr = rr, rl
        steer, wheel = self.tracking.inputs_at(into_s, pose_state)
        return self.left.actuate(steer, np.full(2, wheel), self.left.schedule[-1].drive,
                                 (rl, rr), into_left)
