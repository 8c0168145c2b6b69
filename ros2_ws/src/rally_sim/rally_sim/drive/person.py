"""
The person at the wheel: inputs in, the commands a controller would send out.

A car with a drivetrain is driven as a driver drives it (command_mode
driver): steering on ackermann_cmd, throttle, brake pedal, handbrake and
gear on driver_cmd. A car without one is driven by wheel torques (command
mode torque): the throttle asks each driven wheel for its share of the
car's largest drive torque (backwards in reverse), the brake pedal each
wheel's largest brake torque, the handbrake its lever. Either way the
commands go into the simulator's own intake, so the person drives exactly
the car a controller drives: its limits, rates, dead time and actuators.
"""

from dataclasses import dataclass
import math
from typing import NamedTuple, Optional, Sequence, Tuple

from .assists import Assists, counter_steer, WheelGuard
from .inputs import Inputs
from .steering import KeyboardSteering, speed_factor, stick
from ..control.interface import GEAR_AUTOMATIC, Pedals, WheelTorques

DEFAULT_DEAD_ZONE = 0.08
DEFAULT_CURVE = 1.5
"""A gamepad stick's dead zone (share of the axis) and steering curve (power) by default."""
FALLBACK_TOP_SPEED_M_S = 40.0
"""Reference 000's maxSpeed for a car driven by wheel torques, at most (no power limit)."""
GEAR_NAMES = {-1: 'R', 0: 'N'}


class CarFacts(NamedTuple):
    """What driving a car by hand needs to know of it (from its vehicle file)."""

    lock_rad: float
    top_speed_m_s: float
    gears: int                           # forward gears; 0: no drivetrain (torque mode)
    drive_n_m: Tuple[float, ...]         # largest drive torque per wheel (torque mode)
    brake_n_m: Tuple[float, ...]         # largest brake torque per wheel (torque mode)
    driven: Tuple[bool, ...]             # which wheels the engine or motors drive

    @classmethod
    def of(cls, config) -> 'CarFacts':
        """Return the facts of a vehicle file (a VehicleConfig)."""
        gears = len(config['gearbox.ratios']) if config['drivetrain.layout'] != 'none' else 0
        drive = tuple(config.per_wheel('drive.max_torque_front_n_m',
                                       'drive.max_torque_rear_n_m').tolist())
        if gears:
            layout = config['drivetrain.layout']
            driven = (layout in ('fwd', 'awd'),) * 2 + (layout in ('rwd', 'awd'),) * 2
        else:
            driven = tuple(torque > 0.0 for torque in drive)
        return cls(config['steering.max_angle_rad'], top_speed_m_s(config), gears, drive,
                   tuple(config.per_wheel('brakes.max_torque_front_n_m',
                                          'brakes.max_torque_rear_n_m').tolist()), driven)

    @property
    def mode(self) -> str:
        """Return the command mode this car is driven in: driver or torque."""
        return 'driver' if self.gears else 'torque'


def top_speed_m_s(config) -> float:
    """
    Return the car's top speed (reference 000's maxSpeed, for the speed-sensitive lock).

    With a drivetrain: at the rev limit in top gear. Without (wheel torques, no
    power limit): where drag eats the largest drive, at most FALLBACK_TOP_SPEED_M_S.
    """
    radius = config['wheel_radius_m']
    if config['drivetrain.layout'] != 'none':
        ratio = config['gearbox.ratios'][-1] * config['gearbox.final_drive']
        return config['engine.limit_rpm'] * 2.0 * math.pi / 60.0 / ratio * radius
    drive = 2.0 * (config['drive.max_torque_front_n_m'] + config['drive.max_torque_rear_n_m'])
    drag = config['resistance.drag_coefficient_kg_m']
    if drag <= 0.0 or drive <= 0.0:
        return FALLBACK_TOP_SPEED_M_S
    return min(math.sqrt(drive / radius / drag), FALLBACK_TOP_SPEED_M_S)


class DrivenState(NamedTuple):
    """What the person's aids read of the car: body velocities and the wheels' slip ratios."""

    vx: float
    vy: float
    yaw_rate: float
    slip_ratio: Sequence[float]


@dataclass
class PersonCommand:
    """The commands of one moment: a steering angle, and pedals or wheel torques."""

    steer_rad: float
    pedals: Optional[Pedals] = None
    torques: Optional[WheelTorques] = None


class Person:
    """A person driving one car: keys or a stick, assists, a gear lever."""

    def __init__(self, car: CarFacts, assists: Assists = None,
                 dead_zone: float = DEFAULT_DEAD_ZONE, curve: float = DEFAULT_CURVE):
        """Start at rest: wheels straight, first gear (forward), no pedal."""
        self.car = car
        self.assists = assists or Assists()
        self.dead_zone, self.curve = dead_zone, curve
        self.inputs = Inputs()
        self.keyboard = KeyboardSteering(car.lock_rad, car.top_speed_m_s)
        self.gear = 1
        self.abs, self.traction = WheelGuard(-1.0), WheelGuard(1.0)
        self.steer_rad = 0.0

    def take(self, inputs: Inputs) -> None:
        """Hold the newest inputs."""
        self.inputs = inputs

    def shift(self, up: bool) -> int:
        """Move the gear lever one step (R, N, 1..N; without a gearbox R and forward)."""
        low, high = -1, max(self.car.gears, 1)
        step = 1 if up else -1
        self.gear = min(max(self.gear + step, low), high)
        if not self.car.gears and self.gear == 0:
            self.gear += step
        return self.gear

    def gear_name(self) -> str:
        """Return the lever's position as the HUD shows it."""
        if self.assists.automatic_gearbox and self.gear >= 1:
            return 'A'
        return GEAR_NAMES.get(self.gear, str(self.gear) if self.car.gears else 'D')

    def reset(self) -> None:
        """Straighten the wheels and forget the aids' state (the car was put back)."""
        self.keyboard.angle_rad = self.steer_rad = 0.0
        self.abs.reset()
        self.traction.reset()

    def command(self, state: DrivenState, dt_s: float) -> PersonCommand:
        """Return the commands after dt_s of driving in `state`."""
        steer = self._steer(state, dt_s)
        i = self.inputs
        reverse = self.gear < 0
        brake = [i.brake] * 4
        drive = [i.throttle if driven else 0.0 for driven in self.car.driven]
        speed = state.vx
        if self.assists.abs:
            factors = self.abs.update(state.slip_ratio, [True] * 4, speed, dt_s)
            brake = [b * f for b, f in zip(brake, factors)]
        if self.assists.traction_control:
            factors = self.traction.update(state.slip_ratio, self.car.driven, speed, dt_s,
                                           reverse)
            drive = [d * f for d, f in zip(drive, factors)]
        if self.car.gears:
            throttle = max(drive) if any(self.car.driven) else 0.0
            gear = (GEAR_AUTOMATIC if self.assists.automatic_gearbox and self.gear >= 1
                    else self.gear)
            return PersonCommand(steer, pedals=Pedals(throttle, min(brake), i.handbrake, gear))
        sign = -1.0 if reverse else 1.0
        return PersonCommand(steer, torques=WheelTorques(
            [sign * d * limit for d, limit in zip(drive, self.car.drive_n_m)],
            [b * limit for b, limit in zip(brake, self.car.brake_n_m)], i.handbrake))

    def _steer(self, state: DrivenState, dt_s: float) -> float:
        """Return the road-wheel angle: the keys' ramp or the stick, then counter-steer."""
        i = self.inputs
        speed = math.hypot(state.vx, state.vy)
        if i.source == 'keyboard':
            angle = self.keyboard.update(i.steer, speed, dt_s)
        else:
            angle = stick(i.steer, self.dead_zone, self.curve) * self.car.lock_rad
            if self.assists.speed_sensitive_steering:
                angle *= speed_factor(speed, self.car.top_speed_m_s)
        angle = counter_steer(angle, state.yaw_rate, state.vx, state.vy,
                              self.assists.counter_steer, dt_s)
        lock = self.car.lock_rad            # a sideslip past the lock is steered to the lock
        angle = min(max(angle, -lock), lock)
        self.keyboard.angle_rad = angle       # a switch of hands does not jump
        self.steer_rad = angle
        return angle
