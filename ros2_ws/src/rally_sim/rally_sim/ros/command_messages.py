"""
Command messages to and from the plain commands of control/interface.py.

The simulator node converts what it receives (the session's intake takes
the commands); a controller node converts what its law answers, stamped
with the state it answers.
"""

from typing import Callable, Dict, Union

from ackermann_msgs.msg import AckermannDriveStamped
from builtin_interfaces.msg import Time
from rally_sim_msgs.msg import DriverCommand, WheelTorqueCommand

from ..control.interface import Ackermann, Pedals, WheelTorques
from ..sim.intake import CommandIntake

COMMAND_TYPES = {'ackermann_cmd': AckermannDriveStamped, 'wheel_torque_cmd': WheelTorqueCommand,
                 'driver_cmd': DriverCommand}
"""The message type of each command topic."""
TOPIC_OF = {Ackermann: 'ackermann_cmd', WheelTorques: 'wheel_torque_cmd', Pedals: 'driver_cmd'}
"""The topic each plain command goes on."""
Command = Union[Ackermann, WheelTorques, Pedals]


def command_of(msg) -> Command:
    """Return the plain command a command message carries."""
    if isinstance(msg, AckermannDriveStamped):
        d = msg.drive
        return Ackermann(d.steering_angle, d.steering_angle_velocity, d.speed, d.acceleration,
                         d.jerk)
    if isinstance(msg, WheelTorqueCommand):
        return WheelTorques(msg.drive_torque, msg.brake_torque, msg.handbrake)
    return Pedals(msg.throttle, msg.brake, msg.handbrake, msg.gear)


def message_handlers(intake: CommandIntake) -> Dict[str, Callable]:
    """Return, per command topic, a handler of its messages that feeds `intake`."""
    return {topic: (lambda msg, take=take: take(command_of(msg)))
            for topic, take in intake.handlers().items()}


def message_of(command: Command, stamp: Time, frame_id: str = ''):
    """Return the message of a plain command, stamped (frame_id: an ackermann command's)."""
    if isinstance(command, Ackermann):
        msg = AckermannDriveStamped()
        msg.header.frame_id = frame_id
        d = msg.drive
        d.steering_angle, d.steering_angle_velocity = (command.steering_angle,
                                                       command.steering_angle_velocity)
        d.speed, d.acceleration, d.jerk = command.speed, command.acceleration, command.jerk
    elif isinstance(command, WheelTorques):
        msg = WheelTorqueCommand()
        msg.drive_torque, msg.brake_torque = list(command.drive_torque), list(
            command.brake_torque)
        msg.handbrake = command.handbrake
    else:
        msg = DriverCommand(throttle=command.throttle, brake=command.brake,
                            handbrake=command.handbrake, gear=command.gear)
    msg.header.stamp = stamp
    return msg
