"""
A simulation session: cars on one clock, each with its command intake and sensors.

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
from .contacts import Contacts
from .intake import CommandIntake, CONTROL_PERIOD_S
from .reports import CarReports, Reports
from .walk import Walker
from ..physics import DriverCommand, load_vehicle, Vehicle
from ..resources import vehicle_path
from ..sensors import load_profile, Measurement, Profile, Sensors
from ..world.scene import footprint_of, prepare as prepare_world, Scene

SEED_STRIDE = 7919
"""Car k of a session of several draws its sensor errors from car_seed(seed, k)."""


def car_seed(seed: int, k: int) -> int:
    """Return the seed of car k's sensors (the first car's: `seed`): each car its own errors."""
    return (seed + k * SEED_STRIDE) % 2 ** 31


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
    prepare_world()                 # beams and contact
    session = Session(Vehicle(load_vehicle(vehicle_path('volvo_v40'))), load_profile('ideal'),
                      0, settings=dict(DEFAULT_SETTINGS, command_mode='speed'))
    session.advance(session.publish_every, until_state=True)    # the walk (walk.py)


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

    def touched(self, contact) -> None:
        """Take a contact of this front end's car (sim/contacts.py: it has halted)."""

    def stop_requested(self) -> bool:
        """Return whether a long advance should stop early (the process is asked to stop)."""
        return False


class Car:
    """One car of a session: its vehicle, command intake, sensors, start and front end."""

    def __init__(self, name: str, vehicle: Vehicle, profile: Profile, seed: int,
                 session: 'Session', settings: Optional[Dict], start: Start, front: Front):
        """Hold `vehicle` at `start`; SensorError if the profile cannot be used."""
        self.name = name
        self.vehicle = vehicle
        self.settings = dict(DEFAULT_SETTINGS) if settings is None else settings
        reports = CarReports(session.reports, name) if name else session.reports
        self.intake = CommandIntake(vehicle, self.settings, reports, session.dt,
                                    lambda: session.sim_steps)
        self.start = start
        self.front = front
        self.halted = None
        """The Contact that halted the car (sim/contacts.py), until a restart or teleport."""
        self.moved = session.contacts.forget     # a jump: contact looks again
        self.contacts = session.contacts
        self.place(start)
        self.sensors = Sensors(profile, seed, session.step_ns,
                               session.publish_every * session.step_ns, vehicle.surface.datum)

    def take(self, command) -> None:
        """Take a command (control/interface.py: Ackermann, WheelTorques, Pedals)."""
        self.intake.take(command)

    def place(self, start: Start) -> None:
        """Put the car at `start`, wheels rolling, and give it the command in force."""
        self.vehicle.reset(x=start.x, y=start.y, yaw=start.yaw, vx=start.speed,
                           vy=start.lateral_speed, yaw_rate=start.yaw_rate)
        self.halted = None
        self.moved()
        self.intake.speed.reset()
        self.intake.push(integrate=False)

    def restart(self) -> None:
        """Put the car back at its start; what its sensors measured before is dropped."""
        self.place(self.start)
        self.sensors.reset()

    def teleport(self, x: float, y: float, yaw: float) -> None:
        """
        Put the car at rest at a pose, its commands and actuators as at a start.

        Wheels straight, no drive or brake, the dead times and lags emptied
        (as f1tenth_gym's reset does): the controller's next command takes
        over. Its earlier measurements are dropped. ValueError, the car left
        where it was, for a pose outside the map, in a wall or on another car
        (Contacts.refuse_pose).
        """
        self.contacts.refuse_pose(self.contacts.session.cars.index(self), x, y, yaw)
        self.intake.reset()
        self.place(Start(x, y, yaw))
        self.sensors.reset()


class Session:
    """
    Cars on one clock: their intakes, their sensors and simulated time, stepped together.

    The first car is given at construction and is the one `vehicle`,
    `intake`, `sensors`, `start` and `take` speak of (a front end of one
    car needs nothing else); add_car adds the others. Every car takes the
    same physics steps at the same instants (stepping.advance), so whatever
    one day couples them (contact) sees them at one time.
    """

    def __init__(self, vehicle: Vehicle, profile: Profile, seed: int, *,
                 physics_rate_hz: float = 1000.0, publish_rate_hz: float = 100.0,
                 marker_rate_hz: float = 0.0, settings: Optional[Dict] = None,
                 start: Start = Start(), logger=None, front: Front = None,
                 name: str = '', occupancy=None, contact: str = 'stop'):
        """
        Hold `vehicle` (the first car, called `name`) at `start`, at simulated time 0.

        settings: the intake's (DEFAULT_SETTINGS), kept by reference: the node
        changes them live. occupancy: the walls (world/occupancy.py's map;
        None: open ground), which the cars' lidars see with the other cars.
        contact: what a car that touches a wall or another car does
        (sim/contacts.py: 'stop', or 'off' to drive through). SensorError if
        the profile cannot be used, ValueError for an unknown contact mode.
        """
        self.step_ns = round(1e9 / physics_rate_hz)
        self.dt = self.step_ns / 1e9
        self.sim_steps = 0
        self.publish_every = max(1, round(1.0 / (publish_rate_hz * self.dt)))
        self.marker_every = (max(1, round(1.0 / (marker_rate_hz * self.dt)))
                             if marker_rate_hz > 0 else 0)
        self.markers_at = 0
        self.reports = Reports(logger or logging.getLogger('rally_sim'))
        self.front = front or Front()
        self.scene = Scene(occupancy)
        self.cars: List[Car] = []
        self.contacts = Contacts(self, contact)
        self.walker = Walker(self)
        self.add_car(name, vehicle, profile, seed, settings=settings, start=start,
                     front=self.front)

    def add_car(self, name: str, vehicle: Vehicle, profile: Profile, seed: int, *,
                settings: Optional[Dict] = None, start: Start = Start(),
                front: Optional[Front] = None) -> Car:
        """
        Add a car at `start`, at the session's time; return it.

        Its measurements and truth go to `front` (the session's by default);
        ValueError if the name is taken or the car would start in a wall or on
        another car (contact not off), SensorError if the profile cannot be used.
        """
        if any(car.name == name for car in self.cars):
            raise ValueError(f'a car named {name!r} is in the session already')
        car = Car(name, vehicle, profile, seed, self, settings, start, front or self.front)
        self.cars.append(car)
        self.scene.add(vehicle, footprint_of(vehicle.config))
        try:
            self.contacts.refuse_overlap(len(self.cars) - 1)
        except ValueError:
            self.cars.pop()
            self.scene.remove(vehicle)
            raise
        self.contacts.forget()
        car.sensors.world = self.scene
        return car

    # ---- the first car, as a front end of one car sees the session ---------

    vehicle = property(lambda self: self.cars[0].vehicle)
    intake = property(lambda self: self.cars[0].intake)
    sensors = property(lambda self: self.cars[0].sensors)
    settings = property(lambda self: self.cars[0].settings)

    @property
    def start(self) -> Start:
        """Return where a restart puts the first car."""
        return self.cars[0].start

    @start.setter
    def start(self, start: Start) -> None:
        self.cars[0].start = start

    @property
    def now_ns(self) -> int:
        """Return simulated time [ns]."""
        return self.sim_steps * self.step_ns

    # ---- commands ------------------------------------------------------------

    def take(self, command) -> None:
        """Take a command for the first car (control/interface.py: Ackermann, ...)."""
        self.cars[0].intake.take(command)

    # ---- stepping ------------------------------------------------------------

    def advance(self, steps: int, until_state: bool = False) -> None:
        """Take up to `steps` physics steps (stepping.advance); until_state: to the next state."""
        stepping.advance(self, steps, until_state)

    def next_instant(self) -> int:
        """Return the next step after now with an output: a publishing instant, a sensor event."""
        steps = self.sim_steps
        instant = steps + self.publish_every - steps % self.publish_every
        for car in self.cars:
            event = car.sensors.next_event()
            if event is not None:
                instant = min(instant, max(event, steps + 1))
        return instant

    def at_step(self, publish: bool, markers: bool = False) -> bool:
        """
        Measure what is due now; hand each car's front end the instant's outputs.

        Returns whether any car output the state controllers answer (odometry).
        """
        state = False
        steps = self.sim_steps
        now_ns = steps * self.step_ns
        for car in self.cars:
            car.sensors.measure(steps, car.vehicle)
            state = car.front.emit(now_ns, publish, markers,
                                   car.sensors.delivered(steps)) or state
        if publish and self.scene.occupancy is not None:
            self._watch_unknown()
        return state

    def _watch_unknown(self) -> None:
        """Warn (at most every 2 s a car) of a car driving into the map's unknown space."""
        occupancy = self.scene.occupancy
        for car in self.cars:
            x, y = (float(v) for v in car.vehicle.state[:2])
            where = occupancy.unknown_at(x, y)
            if where:
                self.reports.count('unknown_space')
                who = f"car '{car.name}'" if car.name else 'the car'
                self.reports.warn(f'unknown_space {car.name}', (
                    f'{who} drives into unknown space: at x = {x:.2f}, y = {y:.2f} m it is '
                    f"{where} ({occupancy.source or 'the map'}); its walls and lidar know "
                    'nothing there'))

    def failed(self, error: FloatingPointError) -> None:
        """Hand the front end a failure of the physics (non-finite): it says what follows."""
        self.front.failed(error)

    def stop_requested(self) -> bool:
        """Return whether the front end asks a long advance to stop."""
        return self.front.stop_requested()

    # ---- reset and teleport --------------------------------------------------

    def place(self, start: Start) -> None:
        """Put the first car at `start`, wheels rolling, and give it the command in force."""
        self.cars[0].place(start)

    def restart(self) -> None:
        """Put every car back at its start; what the sensors measured before is dropped."""
        for car in self.cars:
            car.restart()

    def reset(self) -> None:
        """Forget every command and restart (the reset service)."""
        for car in self.cars:
            car.intake.reset()
        self.restart()

    def teleport(self, x: float, y: float, yaw: float) -> None:
        """
        Put the first car at rest at a pose (/initialpose); its earlier measurements drop.

        ValueError, nothing changed, for a pose outside the map, in a wall or on another car.
        """
        self.cars[0].teleport(x, y, yaw)

    def set_surface(self, surface) -> None:
        """Put every car on another surface (a live parameter); GNSS follows its datum."""
        for car in self.cars:
            car.vehicle.surface = surface
            car.sensors.place(surface.datum)

    def set_walls(self, occupancy) -> None:
        """
        Put other walls round the cars (an occupancy map, or None: none).

        ValueError, changing nothing, if a car would stand in one (contact not off).
        """
        before = self.scene.occupancy
        self.scene.set_walls(occupancy)
        self.contacts.forget()
        try:
            for k in range(len(self.cars)):
                self.contacts.refuse_overlap(k, off_map=False)
        except ValueError:
            self.scene.set_walls(before)
            raise
