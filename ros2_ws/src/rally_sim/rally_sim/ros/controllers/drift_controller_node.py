"""
Example drift controller: holds a rear-wheel-drive car in a drift round a circle.

A separate ROS 2 node, talking to the simulator only over topics, written to
be copied. Run the simulator with a rear-wheel-drive car (rwd_gravel) on a
loose surface (the skid_pad stage), in driver mode (`command_mode: driver`,
this node's `command: driver`, the default: throttle in a held gear through
the car's drivetrain) or torque mode (both `torque`: rear drive torques). It
answers every `odom` message with an `ackermann_cmd` (steering) and a
`driver_cmd` (throttle, gear) or a `wheel_torque_cmd`, stamped with the
odometry's stamp (lockstep-friendly). Gains and the circle are parameters.
"""


from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
from rally_sim_msgs.msg import DriverCommand, WheelTorqueCommand
from rclpy.node import Node

from .answers import Answers
from .odometry import planar_state, stamp_ns
from ..command_messages import message_of
from ..parameters import declare
from ...control.laws.drift import DriftLaw


class DriftNode(Node):
    """The drift controller over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, subscribe to odom, publish steering and torque."""
        super().__init__('drift_controller', **kwargs)
        p = declare(self, DriftLaw.SPECS)
        self.law = DriftLaw(p)
        self.steer_pub = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.drive_pub = (self.create_publisher(DriverCommand, 'driver_cmd', 10)
                          if self.law.driver
                          else self.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10))
        self.answers = Answers()
        self.create_subscription(Odometry, 'odom', self._on_odom, 10)
        self.get_logger().info(f"drifting round a {p['radius_m']:g} m circle")

    def _on_odom(self, msg: Odometry) -> None:
        if self.answers.repeated(msg):
            return
        steering, drive = self.law.answer(stamp_ns(msg), planar_state(msg))
        self.answers.publish(self.steer_pub, message_of(steering, msg.header.stamp))
        self.answers.publish(self.drive_pub, message_of(drive, msg.header.stamp))
