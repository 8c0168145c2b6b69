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
from .odometry import planar_state, PlanarState
from .parameters import declare, Spec
from ..control.delay import extrapolate
from ..control.drift import DriftController, DriftSettings

DEFAULTS = DriftSettings()
SPECS = {
    'radius_m': Spec(DEFAULTS.radius_m, 'circle radius [m] (counter-clockwise)', 2.0, 500.0),
    'center_x_m': Spec(DEFAULTS.center_x_m, 'circle centre x in odom [m]', -1e5, 1e5),
    'center_y_m': Spec(DEFAULTS.center_y_m, 'circle centre y in odom [m]', -1e5, 1e5),
    'sideslip_rad': Spec(DEFAULTS.sideslip_rad, 'sideslip magnitude aimed at [rad]', 0.0, 1.2),
    'speed_m_s': Spec(DEFAULTS.speed_m_s, 'speed aimed at [m/s]', 1.0, 40.0),
    'torque_n_m': Spec(DEFAULTS.torque_n_m, 'feed-forward rear torque per wheel [N m]',
                       0.0, 10000.0),
    'torque_per_sideslip': Spec(DEFAULTS.torque_per_sideslip, 'throttle gain [N m/rad]',
                                0.0, 1e5),
    'torque_per_speed': Spec(DEFAULTS.torque_per_speed, 'speed gain [N m s/m]', 0.0, 1e5),
    'steer_per_yaw_rate': Spec(DEFAULTS.steer_per_yaw_rate, 'steering gain [rad s/rad]',
                               0.0, 10.0),
    'cg_to_front_m': Spec(DEFAULTS.cg_to_front_m, 'CG to front axle [m]', 0.1, 10.0),
    'throttle': Spec(DEFAULTS.throttle, 'driver mode: feed-forward throttle 0..1', 0.0, 1.0),
    'throttle_per_sideslip': Spec(DEFAULTS.throttle_per_sideslip,
                                  'driver mode: throttle gain [1/rad]', 0.0, 100.0),
    'throttle_per_speed': Spec(DEFAULTS.throttle_per_speed,
                               'driver mode: throttle speed gain [s/m]', 0.0, 100.0),
    'gear': Spec(DEFAULTS.gear, 'driver mode: the gear held', 1, 12),
}
COMMANDS = {
    'delay_compensation_s': Spec(0.0, 'steer for the state this long after the odometry '
                                 'stamp (constant twist): sensor latency plus steering dead '
                                 'time and lag [s], 0: none', 0.0, 2.0),
    'command': Spec('driver', 'driver: throttle and gear on driver_cmd (the '
                    "simulator's command_mode driver); torque: rear drive torque "
                    'on wheel_torque_cmd (command_mode torque)',
                    choices=('driver', 'torque'))}


def answer_state(controller: DriftController, driver: bool, delay_s: float,
                 state: PlanarState):
    """
    Return the steer angle [rad] and the drive command for a planar state (odometry).

    The state is first taken delay_s ahead (delay compensation); the drive
    command is a DriverCommand (driver mode) or the rear WheelTorqueCommand.
    The in-process campaign engine answers with it too.
    """
    pose = extrapolate(*state, delay_s)    # where the steering will act
    state = state._replace(x=pose[0], y=pose[1], yaw=pose[2])
    if driver:
        steer, throttle = controller.pedals(*state)
        return steer, DriverCommand(throttle=float(throttle), gear=controller.settings.gear)
    steer, torque = controller.command(*state)
    drive = WheelTorqueCommand()
    drive.drive_torque = [0.0, 0.0, float(torque), float(torque)]
    return steer, drive


class DriftNode(Node):
    """The drift controller over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, subscribe to odom, publish steering and torque."""
        super().__init__('drift_controller', **kwargs)
        p = declare(self, {**SPECS, **COMMANDS})
        self.controller = DriftController(DriftSettings(**{
            name: p[name] for name in SPECS}))
        self.steer_pub = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.delay_s = p['delay_compensation_s']
        self.driver = p['command'] == 'driver'
        self.drive_pub = (self.create_publisher(DriverCommand, 'driver_cmd', 10) if self.driver
                          else self.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10))
        self.answers = Answers()
        self.create_subscription(Odometry, 'odom', self._on_odom, 10)
        self.get_logger().info(f"drifting round a {p['radius_m']:g} m circle")

    def _on_odom(self, msg: Odometry) -> None:
        if self.answers.repeated(msg):
            return
        steer, drive = answer_state(self.controller, self.driver, self.delay_s,
                                    planar_state(msg))
        steering = AckermannDriveStamped()
        steering.header.stamp = drive.header.stamp = msg.header.stamp
        steering.drive.steering_angle = float(steer)
        self.answers.publish(self.steer_pub, steering)
        self.answers.publish(self.drive_pub, drive)
