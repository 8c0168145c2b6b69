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
from .odometry import planar_state
from .parameters import declare, ParameterError, Spec
from ..control.path import ClosedPath
from ..control.path_following import PathFollowing
from ..control.speed import PedalSpeedController
from ..resources import config_file
from ..stages import read_path

SPECS = {
    'path_file': Spec('', 'path CSV (x, y in odom); empty: the shipped rally_stage path'),
    'target_speed_m_s': Spec(10.0, 'cruising speed [m/s]', 0.5, 60.0),
    'lateral_accel_limit_m_s2': Spec(2.5, 'slow down so that v^2 curvature stays below it',
                                     0.5, 20.0),
    'acceleration_m_s2': Spec(2.0, 'acceleration limit sent with each speed command '
                              '(gentle enough for snow)', 0.1, 20.0),
    'lookahead_min_m': Spec(4.0, 'shortest look-ahead distance [m]', 0.5, 50.0),
    'lookahead_gain_s': Spec(0.6, 'look-ahead distance per speed [s]', 0.0, 5.0),
    'wheelbase_m': Spec(2.647, 'wheelbase of the car [m]', 0.5, 10.0),
    'cg_to_rear_m': Spec(1.497, 'CG to rear axle [m] (base_link is at the CG)', 0.0, 10.0),
    'max_steer_rad': Spec(0.6, 'largest steer command [rad]', 0.05, 1.0),
    'delay_compensation_s': Spec(0.0, 'steer for the pose this long after the odometry '
                                 'stamp: sensor latency plus steering dead time and lag '
                                 '[s], 0: none', 0.0, 2.0),
    'command': Spec('speed', "speed: the speed on ackermann_cmd (the simulator's command_mode "
                    'speed); driver: also throttle and brake on driver_cmd (command_mode '
                    'driver, a car with a drivetrain)', choices=('speed', 'driver')),
}
PEDAL_PERIOD_S = 0.02
"""The pedal controller's time step when two odometry stamps do not give one."""


def prepare() -> None:
    """Load (or compile) the path's kernels before ROS starts: the first answer is not late."""
    from ..control import path_kernels
    path_kernels.prepare()


class PathFollower(Node):
    """Pure pursuit over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, load the path, subscribe and publish."""
        super().__init__('path_follower', **kwargs)
        p = declare(self, SPECS)
        path_file = p['path_file'] or config_file('stages/rally_stage_path.csv')
        try:
            path = ClosedPath(read_path(path_file))
        except (OSError, ValueError) as error:
            raise ParameterError(f"parameter 'path_file': {error}") from None
        self.law = PathFollowing(path, p)
        self.publisher = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.pedals = PedalSpeedController() if p['command'] == 'driver' else None
        self.driver_pub = (self.create_publisher(DriverCommand, 'driver_cmd', 10)
                           if self.pedals else None)
        self._last_stamp_ns = None
        self.answers = Answers()
        self.create_subscription(Odometry, 'odom', self._on_odom, 10)
        self.create_subscription(Path, 'path', self._on_path, 1)
        self.get_logger().info(f'following {path_file} ({path.length_m:.0f} m) at up to '
                               f'{self.law.settings.target_speed_m_s:g} m/s')

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
        state = planar_state(msg)
        stamp_s = msg.header.stamp.sec + msg.header.stamp.nanosec / 1e9
        steer, speed = self.law.answer(stamp_s, state.x, state.y, state.yaw, state.vx)
        command = AckermannDriveStamped()
        command.header.stamp = msg.header.stamp
        command.header.frame_id = msg.child_frame_id
        command.drive.steering_angle = float(steer)
        command.drive.speed = float(speed)
        command.drive.acceleration = self.law.acceleration
        self.answers.publish(self.publisher, command)
        if self.pedals is not None:
            self._work_pedals(msg, float(speed), state.vx)

    def _work_pedals(self, msg: Odometry, target_m_s: float, speed_m_s: float) -> None:
        """Publish throttle and brake for the speed asked (driver mode, gears automatic)."""
        stamp_ns = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        dt = PEDAL_PERIOD_S
        if self._last_stamp_ns is not None and 0 < stamp_ns - self._last_stamp_ns < 1e8:
            dt = (stamp_ns - self._last_stamp_ns) / 1e9
        self._last_stamp_ns = stamp_ns
        throttle, brake = self.pedals.pedals(target_m_s, speed_m_s, dt)
        pedals = DriverCommand(throttle=throttle, brake=brake)
        pedals.header.stamp = msg.header.stamp
        self.answers.publish(self.driver_pub, pedals)
