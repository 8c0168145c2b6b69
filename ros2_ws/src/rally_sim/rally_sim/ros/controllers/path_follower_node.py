"""
Example path follower: pure pursuit on odometry, commanding steering and speed.

A separate ROS 2 node, talking to the simulator only over topics, written to
be copied. Run the simulator in speed mode (`command_mode: speed`), or for a
car with a drivetrain in driver mode (`command_mode: driver` and this node's
`command: driver`: it works the pedals itself). The path comes from
`path_file` (CSV with columns x, y in the odom frame, a closed lap; default:
the rally_stage path) and is replaced by any nav_msgs/Path received on
`path`. It answers every `odom` message with one `ackermann_cmd` (and in
driver mode one `driver_cmd`), stamped with the odometry's stamp
(lockstep-friendly). With `delay_compensation_s` (the sensor latency plus
the steering's dead time and lag) it steers for where the car will be when
the command acts (control/delay.py).
"""


from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry, Path
import numpy as np
from rally_sim_msgs.msg import DriverCommand
from rclpy.node import Node

from .answers import Answers
from .odometry import planar_state, stamp_ns
from ..command_messages import message_of
from ..parameters import declare, ParameterError
from ...control.laws.path_follower import PathFollowerLaw, SPECS
from ...control.path import ClosedPath
from ...resources import path_of
from ...world.stages import read_path


def prepare() -> None:
    """Load (or compile) the path's kernels before ROS starts: the first answer is not late."""
    from ...control import path_kernels
    path_kernels.prepare()


class PathFollower(Node):
    """Pure pursuit over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, load the path, subscribe and publish."""
        super().__init__('path_follower', **kwargs)
        p = declare(self, SPECS)
        path_file = path_of(p['path_file'])
        try:
            path = ClosedPath(read_path(path_file))
        except (OSError, ValueError) as error:
            raise ParameterError(f"parameter 'path_file': {error}") from None
        self.law = PathFollowerLaw(path, p)
        self.publisher = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.driver_pub = (self.create_publisher(DriverCommand, 'driver_cmd', 10)
                           if self.law.pedals else None)
        self.answers = Answers()
        self.create_subscription(Odometry, 'odom', self._on_odom, 10)
        self.create_subscription(Path, 'path', self._on_path, 1)
        self.get_logger().info(f'following {path_file} ({path.length_m:.0f} m) at up to '
                               f"{p['target_speed_m_s']:g} m/s")

    def _on_path(self, msg: Path) -> None:
        points = np.array([[p.pose.position.x, p.pose.position.y] for p in msg.poses])
        try:
            self.law.follow(ClosedPath(points))
        except ValueError as error:
            self.get_logger().warning(f'path ignored: {error}')
            return
        self.get_logger().info(f'following a new path of {len(points)} points')

    def _on_odom(self, msg: Odometry) -> None:
        if self.answers.repeated(msg):
            return
        steering, *pedals = self.law.answer(stamp_ns(msg), planar_state(msg))
        self.answers.publish(self.publisher, message_of(steering, msg.header.stamp,
                                                        msg.child_frame_id))
        for command in pedals:
            self.answers.publish(self.driver_pub, message_of(command, msg.header.stamp))
