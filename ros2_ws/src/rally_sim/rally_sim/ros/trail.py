"""
The car's trail: its CG path over the last trail_length_s, a line strip coloured by speed or slip.

A point is kept every PERIOD_S of simulated time (300 for 30 s), in a ring;
the marker has room for all of them from the start (unused room repeats
the newest point, drawing nothing), so it keeps one layout and is refilled
in place (serialized.SerializedMessage) at the marker rate, only when
somebody subscribes. Colours run blue - green - red over 0..SPEED_SCALE_M_S
of speed, or 0..SLIP_SCALE_RAD of the largest tyre slip angle, or are one
colour (SOLID: a second car's). Cleared on reset and teleport.
"""

from geometry_msgs.msg import Point
import numpy as np
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker

from .conversions import Frames
from .serialized import SerializedMessage
from ..physics import Vehicle
from ..physics.model import SLIP_ANGLE, VX, VY, X, Y

PERIOD_S = 0.1
"""Simulated seconds between the trail's points."""
SPEED_SCALE_M_S = 30.0
SLIP_SCALE_RAD = 0.3
WIDTH_M = 0.15
ABOVE_GROUND_M = 0.08
"""The trail is drawn this far above the ground under the CG."""
SOLID = {'white': (1.0, 1.0, 1.0), 'magenta': (1.0, 0.0, 1.0), 'cyan': (0.0, 1.0, 1.0),
         'yellow': (1.0, 1.0, 0.0)}
"""The trail's one-colour choices (trail_colour), to tell a second car's apart."""


def colours(values: np.ndarray, scale: float) -> np.ndarray:
    """Return (n, 3) colours, blue at 0 through green to red at `scale` and above."""
    t = np.clip(values / scale, 0.0, 1.0)
    return np.stack([np.clip(2.0 * t - 1.0, 0.0, 1.0), 1.0 - np.abs(2.0 * t - 1.0),
                     np.clip(1.0 - 2.0 * t, 0.0, 1.0)], axis=1)


class Trail:
    """The last length_s of the car's path, kept and published as a coloured line strip."""

    def __init__(self, vehicle: Vehicle, frames: Frames, length_s: float, colour_by: str):
        """Keep room for length_s of points; colour by 'speed', 'slip' or one of SOLID."""
        self.vehicle = vehicle
        self.by_slip = colour_by == 'slip'
        self.solid = SOLID.get(colour_by)
        self.capacity = int(round(length_s / PERIOD_S)) + 1
        self.points = np.zeros((self.capacity, 3))
        self.values = np.zeros(self.capacity)
        self.count = 0
        self.newest = -1
        self.next_ns = 0
        marker = Marker(type=Marker.LINE_STRIP, action=Marker.ADD, ns='trail', id=0)
        marker.header.frame_id = frames.odom
        marker.pose.orientation.w = 1.0
        marker.scale.x = WIDTH_M
        marker.color.a = 1.0
        marker.points = [Point() for _ in range(self.capacity)]
        marker.colors = [ColorRGBA(a=1.0) for _ in range(self.capacity)]
        self._message = SerializedMessage(
            marker, [f'points.{i}.{axis}' for i in range(self.capacity) for axis in 'xyz'],
            [f'colors.{i}.{part}' for i in range(self.capacity) for part in 'rgb'])

    def clear(self) -> None:
        """Forget the trail (a reset or a teleport): it starts again at the next sample."""
        self.count, self.newest, self.next_ns = 0, -1, 0

    def sample(self, now_ns: int) -> None:
        """Keep the car's position now if a point is due (every PERIOD_S)."""
        if now_ns < self.next_ns:
            return
        self.next_ns = now_ns + int(PERIOD_S * 1e9)
        s = self.vehicle.state
        self.newest = (self.newest + 1) % self.capacity
        self.points[self.newest] = (s[X], s[Y], self.vehicle.ground()[0] + ABOVE_GROUND_M)
        self.values[self.newest] = (float(np.max(np.abs(self.vehicle.outputs[SLIP_ANGLE])))
                                    if self.by_slip else float(np.hypot(s[VX], s[VY])))
        self.count = min(self.count + 1, self.capacity)

    def ordered(self):
        """Return the kept points (oldest first) and their values."""
        order = (np.arange(self.newest + 1 - self.count, self.newest + 1)) % self.capacity
        return self.points[order], self.values[order]

    def message(self, now_ns: int) -> bytes:
        """Return the line strip: the kept points, the rest of its room at the newest one."""
        points, values = self.ordered()
        if self.count == 0:
            s = self.vehicle.state
            points = np.array([[s[X], s[Y], self.vehicle.ground()[0] + ABOVE_GROUND_M]])
            values = np.zeros(1)
        pad = self.capacity - len(points)
        points = np.concatenate([points, np.repeat(points[-1:], pad, axis=0)])
        if self.solid is not None:
            rgb = np.tile(self.solid, (self.capacity, 1))
        else:
            rgb = colours(np.concatenate([values, np.repeat(values[-1:], pad)]),
                          SLIP_SCALE_RAD if self.by_slip else SPEED_SCALE_M_S)
        return self._message.fill(points.ravel(), now_ns, rgb.ravel())
