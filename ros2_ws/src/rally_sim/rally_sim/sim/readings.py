"""
What a car's sensors say, read as a controller reads their messages: the newest of each.

ROS-free. The node publishes each measurement as a message; a front end
without messages (Gymnasium) keeps them here and reads a state from them
the way the messages are read: the odometry's pose and twist, the measured
steer angle, the wheel speeds from the encoders' angles.
"""

from typing import Dict, List, Optional, Tuple

import numpy as np

from ..physics.model import OMEGA, STATE_SIZE, STEER, VX, VY, X, Y, YAW, YAW_RATE
from ..sensors import Measurement

OBSERVED_CHANNELS = ('odometry', 'steering', 'wheel_speeds')
"""The channels a measured state is read from (the odometry it cannot do without)."""


class EncoderSpeeds:
    """Wheel speeds from successive encoder angles, as the node's wheel_encoders carry them."""

    def __init__(self):
        """Start with no angles seen."""
        self.last: Optional[Tuple[int, np.ndarray]] = None

    def speeds(self, m: Measurement, omega: np.ndarray) -> np.ndarray:
        """
        Return the speeds [rad/s] of a wheel_speeds measurement (fl fr rl rr).

        The angle change over the time since the last delivered angles; the
        first (or one not after it) is the wheels' own speed `omega` now.
        """
        angle = m.values['angle']
        if self.last is None or self.last[0] >= m.stamp_ns:
            speed = np.array(omega, dtype=float)
        else:
            before_ns, before = self.last
            speed = (angle - before) / ((m.stamp_ns - before_ns) / 1e9)
        self.last = (m.stamp_ns, angle.copy())
        return speed

    def forget(self) -> None:
        """Forget the last angles (after a reset or teleport)."""
        self.last = None


class Readings:
    """The newest measurement of each channel, and a state read from them."""

    def __init__(self):
        """Start with nothing measured."""
        self.newest: Dict[str, Measurement] = {}
        self.encoders = EncoderSpeeds()
        self.wheel_speeds = np.zeros(4)

    def take(self, measurements: List[Measurement], omega: np.ndarray) -> None:
        """Take measurements as they are delivered (omega: the wheels' speeds now)."""
        for m in measurements:
            self.newest[m.channel] = m
            if m.channel == 'wheel_speeds':
                self.wheel_speeds = self.encoders.speeds(m, omega)

    def forget(self) -> None:
        """Forget every measurement (a reset)."""
        self.newest.clear()
        self.encoders.forget()

    def state(self, start: np.ndarray, published: np.ndarray) -> np.ndarray:
        """
        Return a full state, in the Vehicle.state layout, read from the newest measurements.

        Pose and twist from the odometry, the steer angle from the steering
        channel, wheel speeds from the encoders. A profile without steering
        or encoders reads them from `published`, the truth at the last
        publishing instant (the node's wheel_slip carries it); what no
        measurement has given yet comes from `start`, the state the car was
        put in.
        """
        state = np.zeros(STATE_SIZE)
        state[[X, Y, YAW, VX, VY, YAW_RATE]] = start[[X, Y, YAW, VX, VY, YAW_RATE]]
        state[STEER], state[OMEGA:OMEGA + 4] = published[STEER], published[OMEGA:OMEGA + 4]
        odometry = self.newest.get('odometry')
        if odometry is not None:
            v = odometry.values
            state[[X, Y]], state[YAW] = v['position'], v['yaw'][0]
            state[[VX, VY]], state[YAW_RATE] = v['velocity'], v['yaw_rate'][0]
        steering = self.newest.get('steering')
        if steering is not None:
            state[STEER] = steering.values['angle'][0]
        if 'wheel_speeds' in self.newest:
            state[OMEGA:OMEGA + 4] = self.wheel_speeds
        return state
