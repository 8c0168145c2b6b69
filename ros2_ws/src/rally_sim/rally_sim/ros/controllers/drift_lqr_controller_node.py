"""
The reference drift controller: holds the car on one of its drift equilibria round a circle.

A separate ROS 2 node, talking to the simulator only over topics. Every
control period it takes the car's state from `odom` and the rear wheels'
spins from `wheel_slip` of the same stamp, and answers with an
`ackermann_cmd` (steering) and a `driver_cmd` (throttle in the held gear)
or a `wheel_torque_cmd` (rear drive torques), stamped with the state's stamp
(lockstep-friendly). The law (rally_sim.control.drift.lqr) is designed at
start-up on the equilibria of the car named by `vehicle` on `surface`:
feed-forward, an inner loop on the rear wheel speed, an LQR on the
linearisation with the circle's offset and course error in its state.
"""

import math

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
from rally_sim_msgs.msg import DriverCommand, WheelSlip, WheelTorqueCommand
from rclpy.node import Node

from .answers import Answers
from .odometry import planar_state, stamp_ns
from .state_pairs import OdometryWithWheels
from ..command_messages import message_of
from ..parameters import declare
from ...control.drift.entry import EnteringDrift
from ...control.drift.figure_eight import DriftFigureEight
from ...control.interface import WheelState
from ...control.laws.drift_lqr import DriftLqrLaw, SPECS


class DriftLqrNode(Node):
    """The reference drift controller over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, design the law, subscribe to the state, publish commands."""
        super().__init__('drift_lqr_controller', **kwargs)
        p = declare(self, SPECS)
        self.controller = DriftLqrLaw(p)
        self.law = self.controller.law
        self.steer_pub = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.drive_pub = (self.create_publisher(DriverCommand, 'driver_cmd', 10)
                          if self.law.driver
                          else self.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10))
        self.answers = Answers()
        self.state = OdometryWithWheels(self, self.answers, self._answer)
        target = self.law.target
        gear = f' in gear {self.law.gear}' if self.law.driver else ''
        self.get_logger().info(
            f"holding {p['vehicle']}'s equilibrium on {p['surface']}: R {p['radius_m']:g} m, "
            f'beta {math.degrees(target.sideslip_rad):.1f} deg, {target.speed_m_s:.2f} m/s, '
            f'steer {math.degrees(target.steer_rad):.1f} deg{gear}')
        if isinstance(self.law, EnteringDrift):
            entry = self.law.entry
            self.get_logger().info(
                f'entering by a planned {entry.family.replace("_", " ")} from grip driving at '
                f'{entry.start[0]:.2f} m/s (after entry_s, once the car is there): '
                f'{self.law.entry_note or "the ramp would not enter"}')
        elif self.law_entry_note():
            self.get_logger().warning(
                f'{self.law_entry_note()}. This controller holds the drift once the car is in '
                'it; from grip driving it may not get there, and may spin (entry:=planned '
                'plans a way in)')

    def law_entry_note(self) -> str:
        """Return why the car may not get from grip into the drift ('' when it can)."""
        circle = self.law.left if isinstance(self.law, DriftFigureEight) else self.law
        return circle.entry_note

    def _answer(self, odom: Odometry, slip: WheelSlip) -> None:
        """Answer the state of one stamp: its odometry and its rear wheels' spins."""
        steering, drive = self.controller.answer(
            stamp_ns(odom), planar_state(odom),
            WheelState(slip.wheel_angular_speed, slip.steer_angle))
        self.answers.publish(self.steer_pub, message_of(steering, odom.header.stamp,
                                                        odom.child_frame_id))
        self.answers.publish(self.drive_pub, message_of(drive, odom.header.stamp))
