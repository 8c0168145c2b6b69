"""
The command intake: commands in (control/interface.py), the vehicle's command held.

Checks each command (a non-finite field drops it, a command for another
command_mode is ignored), holds what it asks for, runs the watchdog and, in
speed mode, the speed controller once per control period, and gives the
vehicle the command in force. The reports name the topic a command came on
(ackermann_cmd, wheel_torque_cmd, driver_cmd) and its message's fields: the
node converts the messages, the in-process engine and Gymnasium give the
commands directly.
"""

from math import isfinite
from typing import Callable, Dict

import numpy as np

from .reports import non_finite, Reports
from ..control.interface import Ackermann, Pedals, Twist, WheelTorques
from ..control.speed import APPROACH_DRIVETRAIN_S, APPROACH_S, SpeedController
from ..control.twist import steer_for
from ..physics import Command, CommandError, DriverCommand, Vehicle
from ..physics.drivetrain.equations import AUTOMATIC
from ..physics.model import OMEGA, VX

CONTROL_PERIOD_S = 0.01
"""Commands, the watchdog and the speed controller are applied per this much sim time."""
COMMAND_TOPICS = ('ackermann_cmd', 'wheel_torque_cmd', 'driver_cmd')
"""The topics of the node's commands, named in reports: Ackermann, WheelTorques, Pedals."""


class CommandIntake:
    """The commands held for one car, the watchdog and the speed controller."""

    def __init__(self, vehicle: Vehicle, settings: Dict, reports: Reports, dt: float,
                 steps: Callable[[], int]):
        """Hold commands for `vehicle`; `steps()` is the simulated step count, dt its length."""
        self.vehicle = vehicle
        self.settings = settings
        self.reports = reports
        self.dt = dt
        self._steps = steps
        self.control_steps = max(1, round(CONTROL_PERIOD_S / dt))
        config = vehicle.config
        radii = vehicle.params.radii()      # the wheels' spin is accelerated too
        inertia = config['wheel_inertia_kg_m2']
        spin = (4.0 * inertia / radii[0] ** 2 if radii[2] == radii[0] else   # (as it was)
                2.0 * inertia / radii[0] ** 2 + 2.0 * inertia / radii[2] ** 2)
        mass = config['mass_kg'] + spin
        driven = [r for r, limit in zip(radii, vehicle.drive_limit) if limit > 0.0]
        self.speed = SpeedController(mass, float(np.mean(driven)) if driven else radii[0],
                                     vehicle.drive_limit, vehicle.brake_limit,
                                     approach_s=APPROACH_DRIVETRAIN_S if vehicle.has_drivetrain
                                     else APPROACH_S, wheel_radii_m=radii.tolist())
        self._by_type = {Ackermann: self.on_ackermann, WheelTorques: self.on_torque,
                         Pedals: self.on_driver, Twist: self.on_twist}
        self.wheelbase_m = config['cg_to_front_axle_m'] + config['cg_to_rear_axle_m']
        self.reset()

    def handlers(self) -> Dict[str, Callable]:
        """Return the handler of each command topic's commands."""
        return {'ackermann_cmd': self.on_ackermann, 'wheel_torque_cmd': self.on_torque,
                'driver_cmd': self.on_driver}

    def take(self, command) -> None:
        """Take an Ackermann, WheelTorques or Pedals command (see its on_ handler)."""
        self._by_type[type(command)](command)

    def reset(self) -> None:
        """Forget every command: nothing steers, drives or brakes; the watchdog restarts."""
        self.steer_rad = 0.0
        self.steer_rate = 0.0
        self.target_speed = 0.0
        self.target_acceleration = 0.0
        self.drive = np.zeros(4)
        self.brake = np.zeros(4)
        self.handbrake = 0.0
        self.throttle = 0.0
        self.pedal = 0.0
        self.gear = AUTOMATIC
        self.last_command_steps = self._steps()
        self.timed_out = False
        self.commanded = False
        """Whether a command came since the start (before one, there is no drive to cut)."""

    # ---- commands ----------------------------------------------------------

    def on_ackermann(self, d: Ackermann) -> None:
        """Steering and, in speed mode, the target speed and acceleration."""
        steer, rate, speed, acceleration = (d.steering_angle, d.steering_angle_velocity,
                                            d.speed, d.acceleration)
        if not (isfinite(steer) and isfinite(rate) and isfinite(speed)
                and isfinite(acceleration) and isfinite(d.jerk)):
            self.reports.drop('ackermann_cmd', {f'drive.{name}': getattr(d, name) for name in (
                'steering_angle', 'steering_angle_velocity', 'speed', 'acceleration', 'jerk')})
            return
        self.steer_rad, self.steer_rate = float(steer), float(rate)
        self.target_speed, self.target_acceleration = float(speed), abs(float(acceleration))
        self._received()

    def on_twist(self, command: Twist) -> None:
        """
        Take a speed and a yaw rate (cmd_vel, command_mode speed), steered for by control/twist.py.

        It sets the steering and the target speed as an ackermann_cmd does
        (no steer rate limit, the speed controller's own acceleration):
        whichever of the two came last holds.
        """
        fields = {'linear.x': command.linear_x, 'angular.z': command.angular_z}
        if not self._usable('cmd_vel', fields, 'speed'):
            return
        self.steer_rad = steer_for(float(command.linear_x), float(command.angular_z),
                                   self.wheelbase_m, self.vehicle.config['steering.max_angle_rad'])
        self.steer_rate = 0.0
        self.target_speed, self.target_acceleration = float(command.linear_x), 0.0
        self._received()

    def on_torque(self, command: WheelTorques) -> None:
        """Per-wheel drive and brake torques and the handbrake (command_mode torque)."""
        fields = {'drive_torque': command.drive_torque, 'brake_torque': command.brake_torque,
                  'handbrake': command.handbrake}
        if not self._usable('wheel_torque_cmd', fields, 'torque'):
            return
        self.drive = np.array(command.drive_torque, dtype=float)
        self.brake = np.array(command.brake_torque, dtype=float)
        self.handbrake = float(command.handbrake)
        self._received()

    def on_driver(self, command: Pedals) -> None:
        """Pedals, handbrake and gear (command_mode driver)."""
        fields = {'throttle': command.throttle, 'brake': command.brake,
                  'handbrake': command.handbrake}
        if not self._usable('driver_cmd', fields, 'driver'):
            return
        try:
            self.vehicle.check_gear(command.gear)
        except CommandError as error:
            refused = self.reports.count('refused')
            self.reports.warn('refused', f'driver_cmd refused ({refused} so far): {error}')
            return
        self.throttle, self.pedal = float(command.throttle), float(command.brake)
        self.handbrake, self.gear = float(command.handbrake), float(command.gear)
        self._received()

    def _usable(self, topic: str, fields: dict, mode: str) -> bool:
        """Return whether a command is finite (else dropped) and for the mode (else ignored)."""
        if non_finite(fields):
            self.reports.drop(topic, fields)
            return False
        if self.settings['command_mode'] != mode:
            self.reports.warn('ignored', f'{topic} ignored: command_mode is '
                              f"{self.settings['command_mode']}")
            return False
        return True

    def _received(self) -> None:
        self.last_command_steps = self._steps()
        if self.timed_out:
            self.timed_out = False
            self.reports.logger.info('commands resumed' if self.commanded else
                                     'a first command: brakes off')
        self.commanded = True
        if not self._pushed_at_period_start():
            self.push(integrate=False)

    def _pushed_at_period_start(self) -> bool:
        """
        Return whether a control period starts before the next step and pushes the command.

        In speed mode a period's start gives the vehicle the command in force
        (stepping.advance starts one before the first step at each multiple of
        control_steps): pushed now as well, it would be replaced unused. Not so
        with actuators, which take every command pushed, nor in the other modes,
        whose periods push nothing.
        """
        return (self.settings['command_mode'] == 'speed' and not self.vehicle.acting
                and self._steps() % self.control_steps == 0)

    # ---- the command in force ----------------------------------------------

    def start_control_period(self) -> None:
        """Run the watchdog, and in speed mode the speed controller, for the next period."""
        timeout = self.settings['command_timeout_s']
        if (timeout > 0.0 and not self.timed_out
                and (self._steps() - self.last_command_steps) * self.dt >= timeout):
            self.timed_out = True
            if self.commanded:
                self.reports.logger.warning(
                    f'no command for {timeout:g} s of simulated time: drive cut, brakes on')
            else:
                self.reports.logger.info(
                    f'no command yet ({timeout:g} s of simulated time): brakes on until the '
                    'first (command_timeout_s)')
            self.push()
        elif self.settings['command_mode'] == 'speed' and not self.timed_out:
            self.push()

    def push(self, integrate: bool = True) -> None:
        """
        Give the vehicle the command in force (watchdog and speed mode applied).

        The speed controller integrates over a control period only when one
        starts (integrate); a command received in between is applied at once
        without integrating.
        """
        if self.timed_out:      # at most the car's brakes: no clamp to warn of
            brake = np.minimum(self.settings['timeout_brake_torque_n_m'],
                               self.vehicle.brake_limit)
            command = Command(self.steer_rad, self.steer_rate, np.zeros(4), brake, 0.0)
        elif self.settings['command_mode'] == 'speed':
            drive, brake = self.speed.torques(self.target_speed, self.target_acceleration,
                                              float(self.vehicle.state[VX]),
                                              self.control_steps * self.dt if integrate
                                              else 0.0, self._rims())
            command = (self._through_drivetrain(drive, brake) if self.vehicle.has_drivetrain
                       else Command(self.steer_rad, self.steer_rate, drive, brake, 0.0))
        elif self.settings['command_mode'] == 'driver':
            command = DriverCommand(self.steer_rad, self.steer_rate, self.throttle, self.pedal,
                                    self.handbrake, self.gear)
        else:
            command = Command(self.steer_rad, self.steer_rate, self.drive, self.brake,
                              self.handbrake)
        try:
            notes = self.vehicle.set_command(command)
        except CommandError as error:     # cannot happen after the checks above
            self.reports.warn('command', f'command rejected: {error}')
            return
        if notes:
            self.reports.count('clamped')
            self.reports.warn('clamped', 'command clamped to the vehicle limits: '
                              + '; '.join(notes))

    def _rims(self) -> list:
        """Return each wheel's rim speed [m/s]: omega times the wheel radius."""
        return (self.vehicle.state[OMEGA:OMEGA + 4] * self.speed.wheel_radii_m).tolist()

    def _through_drivetrain(self, drive, brake) -> DriverCommand:
        """Turn the speed controller's torques into pedals and a gear request."""
        wanted = sum(drive)
        full = self.vehicle.full_drive_torque_n_m()
        throttle = min(abs(wanted) / full, 1.0) if full > 0.0 else 0.0
        pedal = min(sum(brake) / float(np.sum(self.vehicle.brake_limit)), 1.0)
        gear = -1 if self.target_speed < 0.0 else AUTOMATIC
        return DriverCommand(self.steer_rad, self.steer_rate, throttle, pedal, 0.0, gear)
