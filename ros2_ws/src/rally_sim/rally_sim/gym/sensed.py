"""
Cars observed through a sensor profile: each in a simulation session, as the node runs it.

Each car is a sim.Session (the simulator node's own: intake, actuators,
sensors, stepping at the node's physics rate), so an episode with a profile
and a seed is the node's lockstep run with them, measurement for
measurement (test). The actions reach the car as the node's commands would:
the steer angle on ackermann_cmd (float32 on the wire), the torques on
wheel_torque_cmd (command_mode torque). The observation is the task's,
read from the newest measurements (sim/readings.py: a profile without
steering or encoders reads them from the truth published with the outputs,
as the node's wheel_slip carries it); the reward and the
ends are judged on the truth. info['measurements']: what was delivered
during the step (sensors.Measurement: channel, stamp, values).
"""

from typing import Dict, List, Optional

import numpy as np

from ..control.interface import WheelTorques
from ..control.laws import steering
from ..physics.model import OMEGA
from ..physics.vehicle import state_size, Vehicle
from ..resources import surface_from
from ..sensors import load_profile, Measurement
from ..sim import Front, Session, Start
from ..sim.readings import Readings

PHYSICS_RATE_HZ = 1000.0
"""The simulator node's default physics rate."""


class Sensed(Front):
    """One car's session as a front end sees it: its readings and this step's measurements."""

    def __init__(self, config, task, surface, profile, seed: int):
        """Build the session of one car (command_mode torque), publishing once a period."""
        self.readings = Readings()
        self.delivered: List[Measurement] = []
        self.session = Session(Vehicle(config, surface), profile, seed,
                               physics_rate_hz=PHYSICS_RATE_HZ,
                               publish_rate_hz=1.0 / task.period_s, front=self)
        self.start_state = np.zeros(state_size(config))
        self.published = np.zeros(state_size(config))
        self.failure: Optional[FloatingPointError] = None

    def emit(self, now_ns, publish, markers, delivered) -> bool:
        """Keep what is delivered, and at a publishing instant what is measured with it."""
        session = self.session
        got = list(delivered)
        if publish and session.sensors.with_outputs:
            got = session.sensors.measure_now(now_ns, session.vehicle,
                                              session.sensors.with_outputs) + got
        self.readings.take(got, session.vehicle.state[OMEGA:OMEGA + 4])
        self.delivered += got
        if publish:
            self.published = session.vehicle.state.copy()
        return publish

    def failed(self, error: FloatingPointError) -> None:
        """Leave the car at its last finite state: the fleet ends its episode."""
        self.failure = error


class SensedFleet:
    """N cars of a task, each in its own session with the profile (sensor seeds seed + i)."""

    def __init__(self, config, task, stage: str, cars: int, sensors: str, seed: int):
        """Build the sessions; ValueError if the profile has no odometry (the pose)."""
        profile = load_profile(sensors)
        if 'odometry' not in profile.channels:
            raise ValueError(f'sensors = {sensors!r}: the profile has no odometry channel, '
                             'which the observation reads the pose from')
        surface = surface_from(stage)
        self.task = task
        self.cars = [Sensed(config, task, surface, profile, seed + i) for i in range(cars)]
        self.period_steps = round(task.period_s * PHYSICS_RATE_HZ)
        self.states = np.zeros((cars, state_size(config)))

    def place(self, rows, starts) -> None:
        """Put the cars of `rows` at `starts` (x, y, yaw, vx, vy, yaw rate); commands forgotten."""
        for row, start in zip(rows, starts):
            car = self.cars[row]
            session = car.session
            session.start = Start(*map(float, start))
            session.reset()
            car.readings.forget()
            car.delivered = []
            car.failure = None
            session.at_step(publish=True)
            car.start_state = session.vehicle.state.copy()
            self.states[row] = session.vehicle.state

    def step(self, steer: np.ndarray, drive: np.ndarray, brake: np.ndarray) -> np.ndarray:
        """Command and advance each car one period; return which cars' physics failed."""
        failed = np.zeros(len(self.cars), dtype=bool)
        for row, car in enumerate(self.cars):
            session = car.session
            car.delivered = []
            session.take(steering(float(steer[row])))
            session.take(WheelTorques(drive[row].tolist(), brake[row].tolist()))
            session.advance(self.period_steps)
            failed[row] = car.failure is not None
            self.states[row] = session.vehicle.state
        return failed

    def measured(self) -> np.ndarray:
        """Return each car's state as read from its newest measurements."""
        return np.array([car.readings.state(car.start_state, car.published)
                         for car in self.cars])

    def measurements(self) -> List[List[Measurement]]:
        """Return each car's measurements delivered during the last step (or the reset)."""
        return [car.delivered for car in self.cars]

    def info(self) -> Dict[str, list]:
        """Return the per-car extras of a step."""
        return {'measurements': self.measurements()}
