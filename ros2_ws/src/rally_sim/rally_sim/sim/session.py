"""
A simulation session: one car, its command intake, its sensors and the stepping rule.

ROS-free, and the same for every front end: the simulator node converts
messages to commands and the session's outputs to messages (and adds
pacing, the synchronous gate and publishing); the in-process campaign
engine and the Gymnasium environments drive it directly. So a run is the
same run whichever drives it.

A front end gives the session what it does with each instant's outputs
(Front.emit: the truth is the vehicle's state then, the measurements those
delivered then) and what to do when the physics fails.
"""

from dataclasses import dataclass
import logging
from typing import Dict, List, Optional

from . import stepping
from .intake import CommandIntake, CONTROL_PERIOD_S
from .reports import Reports
from ..physics import DriverCommand, load_vehicle, Vehicle
from ..resources import vehicle_path
from ..sensors import Measurement, Profile, Sensors

DEFAULT_SETTINGS = {'command_mode': 'torque', 'command_timeout_s': 0.5,
                    'timeout_brake_torque_n_m': 1000.0}
"""The intake's settings (the simulator node's parameters of the same names)."""


def prepare() -> None:
    """
    Load (or compile) the physics kernels a session calls, before the first step needs them.

    The simulator's entry point calls it while a signal still needs no
    clean-up (ros/process.py); the in-process workers before their
    first run.
    """
    car = Vehicle(load_vehicle(vehicle_path('volvo_v40')))
    car.advance(1, CONTROL_PERIOD_S)
    car.run([0.0], [0.0], [[0.0] * 4], [[0.0] * 4], [0.0], [CONTROL_PERIOD_S])  # replay's
    car = Vehicle(load_vehicle(vehicle_path('corvette_c5')))    # a drivetrain's helpers
    car.set_command(DriverCommand(throttle=0.5))
    car.advance(1, CONTROL_PERIOD_S)
    car.full_drive_torque_n_m()


@dataclass
class Start:
    """Where a reset puts the car: pose in odom [m, rad], body velocities [m/s, rad/s]."""

    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0
    speed: float = 0.0
    lateral_speed: float = 0.0
    yaw_rate: float = 0.0


class Front:
    """What a front end does with the session's outputs; this one keeps nothing."""

    def emit(self, now_ns: int, publish: bool, markers: bool,
             delivered: List[Measurement]) -> bool:
        """
        Take an instant's outputs: the truth (publish), markers, delivered measurements.

        Returns whether the state controllers answer (odometry) was output.
        """
        return publish

    def failed(self, error: FloatingPointError) -> None:
        """Take a failure of the physics: the state is the last finite one."""
        raise RuntimeError(str(error))

    def stop_requested(self) -> bool:
        """Return whether a long advance should stop early (the process is asked to stop)."""
        return False


class Session:
    """One car, its intake, its sensors and simulated time, stepped by stepping.advance."""

    def __init__(self, vehicle: Vehicle, profile: Profile, seed: int, *,
                 physics_rate_hz: float = 1000.0, publish_rate_hz: float = 100.0,
                 marker_rate_hz: float = 0.0, settings: Optional[Dict] = None,
                 start: Start = Start(), logger=None, front: Front = None):
        """
        Hold `vehicle` at `start`, at simulated time 0.

        settings: the intake's (DEFAULT_SETTINGS), kept by reference: the node
        changes them live. SensorError if the profile cannot be used.
        """
        self.vehicle = vehicle
        self.settings = dict(DEFAULT_SETTINGS) if settings is None else settings
        self.step_ns = round(1e9 / physics_rate_hz)
        self.dt = self.step_ns / 1e9
        self.sim_steps = 0
        self.publish_every = max(1, round(1.0 / (publish_rate_hz * self.dt)))
        self.marker_every = (max(1, round(1.0 / (marker_rate_hz * self.dt)))
                             if marker_rate_hz > 0 else 0)
        self.markers_at = 0
        self.reports = Reports(logger or logging.getLogger('rally_sim'))
        self.intake = CommandIntake(vehicle, self.settings, self.reports, self.dt,
                                    lambda: self.sim_steps)
        self.start = start
        self.front = front or Front()
        self.place(start)
        self.sensors = Sensors(profile, seed, self.step_ns, self.publish_every * self.step_ns,
                               vehicle.surface.datum)

    @property
    def now_ns(self) -> int:
        """Return simulated time [ns]."""
        return self.sim_steps * self.step_ns

    # ---- commands ------------------------------------------------------------

    def take(self, command) -> None:
        """Take a command (control/interface.py: Ackermann, WheelTorques, Pedals)."""
        self.intake.take(command)

    # ---- stepping ------------------------------------------------------------

    def advance(self, steps: int, until_state: bool = False) -> None:
        """Take up to `steps` physics steps (stepping.advance); until_state: to the next state."""
        stepping.advance(self, steps, until_state)

    def at_step(self, publish: bool, markers: bool = False) -> bool:
        """Measure what is due now; hand the front end the instant's outputs."""
        self.sensors.measure(self.sim_steps, self.vehicle)
        delivered = self.sensors.delivered(self.sim_steps)
        return self.front.emit(self.now_ns, publish, markers, delivered)

    def failed(self, error: FloatingPointError) -> None:
        """Hand the front end a failure of the physics (non-finite): it says what follows."""
        self.front.failed(error)

    def stop_requested(self) -> bool:
        """Return whether the front end asks a long advance to stop."""
        return self.front.stop_requested()

    # ---- reset and teleport --------------------------------------------------

    def place(self, start: Start) -> None:
        """Put the car at `start`, wheels rolling, and give it the command in force."""
        self.vehicle.reset(x=start.x, y=start.y, yaw=start.yaw, vx=start.speed,
                           vy=start.lateral_speed, yaw_rate=start.yaw_rate)
        self.intake.speed.reset()
        self.intake.push(integrate=False)

    def restart(self) -> None:
        """Put the car back at its start; what the sensors measured before is dropped."""
        self.place(self.start)
        self.sensors.reset()

    def reset(self) -> None:
        """Forget every command and restart (the reset service)."""
        self.intake.reset()
        self.restart()

    def teleport(self, x: float, y: float, yaw: float) -> None:
        """Put the car at rest at a pose (/initialpose); earlier measurements are dropped."""
        self.vehicle.reset(x=x, y=y, yaw=yaw)
        self.sensors.reset()
        self.intake.speed.reset()
        self.intake.push(integrate=False)

    def set_surface(self, surface) -> None:
        """Put the car on another surface (a live parameter); GNSS follows its datum."""
        self.vehicle.surface = surface
        self.sensors.place(surface.datum)
