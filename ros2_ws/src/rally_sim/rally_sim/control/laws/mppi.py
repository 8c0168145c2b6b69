"""The MPPI controller's law: sampled futures on the batch physics, laps a stage."""

from typing import Any, Dict, List

import numpy as np

from . import Law, parameters, steering
from ..interface import WheelTorques
from ..mppi import Mppi, MppiSettings
from ..parameters import ParameterError, Spec
from ..path import ClosedPath
from ...physics.config import ConfigError, load_vehicle
from ...physics.model import OMEGA, STATE_SIZE, STEER
from ...physics.surfaces import SurfaceError
from ...resources import config_file, shipped, surface_from, vehicle_path
from ...world.stages import read_path

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


class MppiLaw(Law):
    """Steering, then drive and brake torques, for the full state of a stamp."""

    SPECS = SPECS
    wants_wheels = True

    def __init__(self, given: Dict[str, Any]):
        """Build the model of the car and stage its parameters name (ParameterError if bad)."""
        p = parameters(SPECS, given)
        try:
            config = load_vehicle(vehicle_path(p['vehicle']))
        except ConfigError as error:
            raise ParameterError(f"parameter 'vehicle': {error}") from None
        try:
            surface = surface_from(p['stage'])
            path = ClosedPath(read_path(config_file(f"stages/{p['stage']}_path.csv")))
        except (SurfaceError, OSError, ValueError) as error:
            raise ParameterError(f"parameter 'stage': {error}") from None
        self.settings = MppiSettings(**{name: p[name] for name in SPECS
                                        if name not in ('vehicle', 'stage')})
        self.mppi = Mppi(config, surface, path, self.settings)

    def answer(self, stamp_ns, state, wheels) -> List[Any]:
        """Answer the planar state and the wheel state (spins, front steer angles)."""
        full = np.zeros(STATE_SIZE)
        full[:6] = state
        full[OMEGA:OMEGA + 4] = wheels.wheel_angular_speed
        full[STEER] = 0.5 * (wheels.steer_angle[0] + wheels.steer_angle[1])
        steer, drive, brake, _ = self.mppi.command(full)
        return [steering(steer), WheelTorques(drive.tolist(), brake.tolist())]
