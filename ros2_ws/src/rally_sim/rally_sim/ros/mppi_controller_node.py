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
import numpy as np
from rally_sim_msgs.msg import WheelSlip, WheelTorqueCommand
from rclpy.node import Node

from .answers import Answers
from .odometry import planar_state
from .parameters import declare, ParameterError, Spec
from .state_pairs import OdometryWithWheels
from ..control.mppi import Mppi, MppiSettings
from ..control.path import ClosedPath
from ..physics import batch
from ..physics.config import ConfigError, load_vehicle
from ..physics.model import OMEGA, STATE_SIZE, STEER
from ..physics.surfaces import SurfaceError
from ..resources import config_file, shipped, surface_from, vehicle_path
from ..stages import read_path

DEFAULTS = MppiSettings()
SPECS = {
    'vehicle': Spec('volvo_v40', "the simulator's vehicle file or preset name: "
                    + ', '.join(shipped('vehicles'))),
    'stage': Spec('rally_stage', 'the shipped stage to lap (its surface map and path): '
                  + ', '.join(shipped('stages'))),
    'samples': Spec(DEFAULTS.samples, 'sampled futures per control period', 2, 100000),
    'horizon': Spec(DEFAULTS.horizon, 'control periods per future', 1, 1000),
    'period_s': Spec(DEFAULTS.period_s, "control period [s]: the simulator's output period",
                     0.001, 1.0),
    'model_dt_s': Spec(DEFAULTS.model_dt_s, "the model's integration step [s]", 1e-4, 0.1),
    'temperature': Spec(DEFAULTS.temperature, 'weighting temperature [cost units]', 1e-3, 1e4),
    'target_speed_m_s': Spec(DEFAULTS.target_speed_m_s, 'speed above which it pays [m/s]',
                             0.5, 80.0),
    'seed': Spec(DEFAULTS.seed, 'seed of the sampling noise', 0, 2 ** 31 - 1),
}


def prepare() -> None:
    """Load (or compile) the batch kernel before ROS starts (see entry.run_node_process)."""
    batch.prepare(load_vehicle(vehicle_path('volvo_v40')))


class MppiNode(Node):
    """The MPPI controller over ROS topics."""

    def __init__(self, **kwargs):
        """Declare parameters, build the batch model, subscribe and publish."""
        super().__init__('mppi_controller', **kwargs)
        p = declare(self, SPECS)
        try:
            config = load_vehicle(vehicle_path(p['vehicle']))
        except ConfigError as error:
            raise ParameterError(f"parameter 'vehicle': {error}") from None
        try:
            surface = surface_from(p['stage'])
            path = ClosedPath(read_path(config_file(f"stages/{p['stage']}_path.csv")))
        except (SurfaceError, OSError, ValueError) as error:
            raise ParameterError(f"parameter 'stage': {error}") from None
        settings = MppiSettings(**{name: p[name] for name in SPECS
                                   if name not in ('vehicle', 'stage')})
        self.mppi = Mppi(config, surface, path, settings)
        self.steer_pub = self.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
        self.torque_pub = self.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10)
        self.answers = Answers()
        self.state = OdometryWithWheels(self, self.answers, self._answer)
        self.get_logger().info(
            f"MPPI on {p['stage']} with {p['vehicle']}: {settings.samples} samples x "
            f'{settings.horizon} periods of {settings.period_s:g} s')

    def _answer(self, odom: Odometry, slip: WheelSlip) -> None:
        """Answer the state of one stamp: its odometry and wheel state."""
        state = np.zeros(STATE_SIZE)
        state[:6] = planar_state(odom)
        state[OMEGA:OMEGA + 4] = slip.wheel_angular_speed
        state[STEER] = 0.5 * (slip.steer_angle[0] + slip.steer_angle[1])
        steer, drive, brake, _ = self.mppi.command(state)
        steering = AckermannDriveStamped()
        steering.header.stamp = odom.header.stamp
        steering.header.frame_id = odom.child_frame_id
        steering.drive.steering_angle = steer
        torques = WheelTorqueCommand()
        torques.header.stamp = odom.header.stamp
        torques.drive_torque = drive.tolist()
        torques.brake_torque = brake.tolist()
        self.answers.publish(self.steer_pub, steering)
        self.answers.publish(self.torque_pub, torques)
