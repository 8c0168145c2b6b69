"""
Example MPPI controller: laps a stage with the simulator's own physics as its model.

A separate ROS 2 node, talking to the simulator only over topics, written to
be copied. Run the simulator in torque mode (`command_mode: torque`) with the
same vehicle and stage as this node's `vehicle` and `stage` parameters. Every
control period it takes the car's state from `odom` and `wheel_slip` of the
same stamp (pose, velocities, wheel spins, steer angle), samples futures
with the batch API (rally_sim.control.mppi) and answers with an
`ackermann_cmd` (steering) and a `wheel_torque_cmd` (drive and brake
torques), stamped with the state's stamp (lockstep-friendly).
"""

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
from rally_sim_msgs.msg import WheelSlip, WheelTorqueCommand
from rclpy.node import Node

from .answers import Answers
from .odometry import planar_state, stamp_ns
from .state_pairs import OdometryWithWheels
from ..command_messages import message_of
from ..parameters import declare
from ...control.interface import WheelState
from ...control.laws.mppi import MppiLaw, SPECS
from ...physics import batch
from ...physics.config import load_vehicle
from ...resources import vehicle_path


def prepare() -> None:
    """Load (or compile) the batch kernel before ROS starts (see ros/process.py)."""
    batch.prepare(load_vehicle(vehicle_path('volvo_v40')))


class MppiNode(Node):
    """The MPPI controller over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, build the batch model, subscribe and publish."""
        super().__init__('mppi_controller', **kwargs)
        p = declare(self, SPECS)
        self.law = MppiLaw(p)
        settings = self.law.settings
        self.steer_pub = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.torque_pub = self.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
        self.answers = Answers()
        self.state = OdometryWithWheels(self, self.answers, self._answer)
        self.get_logger().info(
            f"MPPI on {p['stage']} with {p['vehicle']}: {settings.samples} samples x "
            f'{settings.horizon} periods of {settings.period_s:g} s')

    def _answer(self, odom: Odometry, slip: WheelSlip) -> None:
        """Answer the state of one stamp: its odometry and wheel state."""
        steering, torques = self.law.answer(
            stamp_ns(odom), planar_state(odom),
            WheelState(slip.wheel_angular_speed, slip.steer_angle))
        self.answers.publish(self.steer_pub, message_of(steering, odom.header.stamp,
                                                        odom.child_frame_id))
        self.answers.publish(self.torque_pub, message_of(torques, odom.header.stamp))
