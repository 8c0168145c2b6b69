"""The path follower's law: pure pursuit on a closed path, and in driver mode the pedals."""

from typing import Any, Dict, List

from . import Law, parameters, steering
from ..interface import Pedals
from ..parameters import Spec
from ..path import ClosedPath
from ..path_following import PathFollowing
from ..speed import PedalSpeedController

SPECS = {
    'path_file': Spec('', "path CSV (x, y in odom), or a shipped stage's name (its reference "
                      'line); empty: the shipped rally_stage path'),
    'target_speed_m_s': Spec(10.0, 'cruising speed [m/s]', 0.5, 60.0),
    'lateral_accel_limit_m_s2': Spec(2.5, 'slow down so that v^2 curvature stays below it',
                                     0.5, 20.0),
    'acceleration_m_s2': Spec(2.0, 'acceleration limit sent with each speed command '
                              '(gentle enough for snow)', 0.1, 20.0),
    'lookahead_min_m': Spec(4.0, 'shortest look-ahead distance [m]', 0.5, 50.0),
    'lookahead_gain_s': Spec(0.6, 'look-ahead distance per speed [s]', 0.0, 5.0),
    'wheelbase_m': Spec(2.647, 'wheelbase of the car [m]', 0.05, 10.0),
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


class PathFollowerLaw(Law):
    """Steer and speed by pure pursuit; in driver mode throttle and brake too."""

    SPECS = SPECS

    def __init__(self, path: ClosedPath, given: Dict[str, Any]):
        """Follow `path` with the node's parameters (`given` over the defaults)."""
        p = parameters(SPECS, given)
        self.law = PathFollowing(path, p)
        self.pedals = PedalSpeedController() if p['command'] == 'driver' else None
        self.last_stamp_ns = None

    def follow(self, path: ClosedPath) -> None:
        """Follow another path from now on."""
        self.law.follow(path)

    def answer(self, stamp_ns, state, wheels=None) -> List[Any]:
        """Return the ackermann command and, in driver mode, the pedals."""
        sec, nanosec = divmod(stamp_ns, 1_000_000_000)
        steer, speed = self.law.answer(sec + nanosec / 1e9, state.x, state.y, state.yaw,
                                       state.vx)
        commands = [steering(steer, speed, self.law.acceleration)]
        if self.pedals is not None:
            dt = PEDAL_PERIOD_S
            if self.last_stamp_ns is not None and 0 < stamp_ns - self.last_stamp_ns < 1e8:
                dt = (stamp_ns - self.last_stamp_ns) / 1e9
            self.last_stamp_ns = stamp_ns
            throttle, brake = self.pedals.pedals(float(speed), state.vx, dt)
            commands.append(Pedals(throttle=throttle, brake=brake))
        return commands
