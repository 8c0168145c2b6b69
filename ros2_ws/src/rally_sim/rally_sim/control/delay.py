"""
Delay compensation: where the car will be when a steering command takes effect. ROS-free.

A measurement stamped t reaches the controller late (sensor latency), and
the command it answers acts later still (steering dead time and lag). With
the sum, delay_s, a command answering the state at t acts from about
t + delay_s. The compensator keeps the steer commands sent, each with the
stamp of the state it answered, and rolls a kinematic bicycle forward from
the measured state over delay_s, steering as the commands sent will steer
then (the one answering t - delay_s + u acts at t + u). The controller
then steers for the predicted pose: a Smith predictor with a kinematic
model, at constant speed.
"""

from collections import deque
import math
from typing import Deque, Tuple

STEP_S = 0.01
"""Integration step of the prediction [s]."""


class DelayCompensator:
    """The steer commands on their way, and the pose they will have taken the car to."""

    def __init__(self, delay_s: float, wheelbase_m: float, cg_to_rear_m: float):
        """Compensate delay_s [s] for a car of this wheelbase and CG position."""
        if not (math.isfinite(delay_s) and delay_s >= 0.0):
            raise ValueError(f'delay_s = {delay_s!r} must be a finite number >= 0')
        self.delay_s = delay_s
        self.wheelbase_m = wheelbase_m
        self.rear_share = cg_to_rear_m / wheelbase_m
        self._sent: Deque[Tuple[float, float]] = deque()   # (stamp answered [s], steer [rad])

    def sent(self, stamp_s: float, steer_rad: float) -> None:
        """Record the steer command answering the state stamped stamp_s."""
        if self._sent and stamp_s <= self._sent[-1][0]:
            self._sent.clear()      # time went back (a reset): the history no longer holds
        self._sent.append((stamp_s, steer_rad))
        while len(self._sent) > 1 and self._sent[1][0] <= stamp_s - self.delay_s - 1.0:
            self._sent.popleft()

    def predict(self, stamp_s: float, x: float, y: float, yaw: float, speed_m_s: float
                ) -> Tuple[float, float, float]:
        """Return the CG pose (x, y, yaw) delay_s after the state measured at stamp_s."""
        steps = math.ceil(self.delay_s / STEP_S - 1e-9)
        if steps == 0:
            return x, y, yaw
        h = self.delay_s / steps
        sent, index, steer = list(self._sent), 0, 0.0
        for k in range(steps):
            # the command answering the latest state at or before this instant (0: none)
            acting = stamp_s - self.delay_s + k * h + 1e-9
            while index < len(sent) and sent[index][0] <= acting:
                steer = sent[index][1]
                index += 1
            slip = math.atan(self.rear_share * math.tan(steer))
            x += h * speed_m_s * math.cos(yaw + slip)
            y += h * speed_m_s * math.sin(yaw + slip)
            yaw += h * speed_m_s * math.cos(slip) * math.tan(steer) / self.wheelbase_m
        return x, y, yaw


def extrapolate(x: float, y: float, yaw: float, vx: float, vy: float, yaw_rate: float,
                horizon_s: float) -> Tuple[float, float, float]:
    """
    Return the CG pose horizon_s ahead at constant body velocity and yaw rate.

    The prediction for a sliding car, where a kinematic bicycle does not
    hold: the velocity turns with the body (an arc of radius speed / yaw
    rate), exact for a steady drift.
    """
    if horizon_s <= 0.0:
        return x, y, yaw
    turned = yaw_rate * horizon_s
    if abs(turned) < 1e-9:
        along, across = vx * horizon_s, vy * horizon_s
    else:   # the body-frame velocity integrated over the arc, in the start's body frame
        s, c = math.sin(turned), math.cos(turned)
        along = (vx * s - vy * (1.0 - c)) / yaw_rate
        across = (vx * (1.0 - c) + vy * s) / yaw_rate
    cy, sy = math.cos(yaw), math.sin(yaw)
    return x + along * cy - across * sy, y + along * sy + across * cy, yaw + turned
