"""The drift controller's law: counter-steer round a circle, and throttle or rear torque."""

from typing import Any, Dict, List

from . import Law, parameters, steering
from ..delay import extrapolate
from ..drift.steady import DriftController, DriftSettings
from ..interface import Pedals, PlanarState, WheelTorques
from ..parameters import Spec

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


class DriftLaw(Law):
    """Steering first, then the throttle (driver) or the rear torques."""

    SPECS = {**SPECS, **COMMANDS}

    def __init__(self, given: Dict[str, Any]):
        """Take the node's parameters (`given` over the defaults)."""
        p = parameters(self.SPECS, given)
        self.controller = DriftController(DriftSettings(**{name: p[name] for name in SPECS}))
        self.delay_s = p['delay_compensation_s']
        self.driver = p['command'] == 'driver'

    def answer(self, stamp_ns: int, state: PlanarState, wheels=None) -> List[Any]:
        """
        Return the steering and the drive command for a planar state (odometry).

        The state is first taken delay_s ahead (delay compensation).
        """
        pose = extrapolate(*state, self.delay_s)    # where the steering will act
        state = state._replace(x=pose[0], y=pose[1], yaw=pose[2])
        if self.driver:
            steer, throttle = self.controller.pedals(*state)
            return [steering(steer), Pedals(throttle=float(throttle),
                                            gear=self.controller.settings.gear)]
        steer, torque = self.controller.command(*state)
        return [steering(steer), WheelTorques([0.0, 0.0, float(torque), float(torque)])]
