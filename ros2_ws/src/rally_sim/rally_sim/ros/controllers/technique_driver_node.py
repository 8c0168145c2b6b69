"""
The technique driver: drives one run of a rally technique's scripted inputs over ROS.

A separate ROS 2 node, talking to the simulator only over topics, as a test
driver with a script would. Every `odom` message is answered with the
inputs the run (control/techniques.py, by `technique` and `run`) has at the
odometry's stamp: an `ackermann_cmd` (the steer) and a `driver_cmd` (the
pedals and gear; `command_mode: driver`) or, for a car without a
drivetrain, a `wheel_torque_cmd` (`command_mode: torque`), stamped with the
odometry's stamp (lockstep-friendly). The scenarios of the techniques
(`./rally scenario handbrake_hairpin`) run it once per run.
"""

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
from rally_sim_msgs.msg import DriverCommand, WheelTorqueCommand
from rclpy.node import Node

from .answers import Answers
from .odometry import planar_state, stamp_ns
from ..command_messages import message_of
from ..parameters import declare, ParameterError
from ...control.laws.technique import SPECS, TechniqueLaw


class TechniqueDriver(Node):
    """One run of a technique's inputs over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, pick the run, subscribe to odometry, publish the inputs."""
        super().__init__('technique_driver', **kwargs)
        p = declare(self, SPECS)
        try:
            self.law = TechniqueLaw(p)
        except ValueError as error:
            raise ParameterError(str(error).replace('controller parameter', 'parameter')) from None
        self.steer_pub = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.drive_pub = (self.create_publisher(DriverCommand, 'driver_cmd', 10) if self.law.pedals
                          else self.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10))
        self.answers = Answers()
        self.create_subscription(Odometry, 'odom', self._on_odom, 10)
        self.get_logger().info(f"driving {p['technique']}'s run {p['run']!r} on {p['vehicle']}")

    def _on_odom(self, msg: Odometry) -> None:
        if self.answers.repeated(msg):
            return
        steering, drive = self.law.answer(stamp_ns(msg), planar_state(msg))
        self.answers.publish(self.steer_pub, message_of(steering, msg.header.stamp,
                                                        msg.child_frame_id))
        self.answers.publish(self.drive_pub, message_of(drive, msg.header.stamp))
