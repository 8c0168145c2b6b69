"""The gap follower's law: follow-the-gap on the lidar's scan alone (control/gap_follow.py)."""

import dataclasses
from typing import Any, Dict, List

from . import Law, parameters, steering
from ..gap_follow import command, GapSettings
from ..interface import Scan
from ..parameters import Spec

SPECS = {
    'speed_max_m_s': Spec(4.0, 'top speed [m/s]', 0.1, 60.0),
    'speed_min_m_s': Spec(0.5, 'least speed while the road ahead is open [m/s]', 0.0, 10.0),
    'decel_m_s2': Spec(4.0, 'braking assumed: slow enough to stop within the free distance '
                       'ahead [m/s^2]', 0.1, 20.0),
    'lateral_accel_limit_m_s2': Spec(5.0, 'slow down so that the steer asks no more [m/s^2]',
                                     0.1, 20.0),
    'acceleration_m_s2': Spec(4.0, 'acceleration limit sent with each speed command [m/s^2]',
                              0.1, 50.0),
    'wheelbase_m': Spec(0.3302, 'wheelbase of the car [m] (F1TENTH: 0.3302)', 0.05, 10.0),
    'max_steer_rad': Spec(0.4189, 'largest steer command [rad]', 0.05, 1.0),
    'half_width_m': Spec(0.2, "half the car's width plus a margin: how far a disparity is "
                         'carried [m]', 0.01, 5.0),
    'bubble_radius_m': Spec(0.35, 'beams within this of the nearest return are blocked [m]',
                            0.0, 10.0),
    'view_rad': Spec(3.1416, 'beams within half this of ahead are looked at [rad]', 0.1, 6.2832),
    'gap_m': Spec(1.0, 'a beam reaching farther is free [m]', 0.0, 100.0),
    'lookahead_m': Spec(2.0, 'pure pursuit to the aim, at most this far [m]', 0.1, 100.0),
    'smoothing_beams': Spec(3, 'running mean over this many beams', 1, 101),
    'ahead_rad': Spec(0.1, 'beams within this of ahead give the free distance [rad]', 0.0, 1.0),
}


class GapFollowerLaw(Law):
    """Steer and speed from the scan alone: one ackermann command per scan."""

    SPECS = SPECS
    reads = 'scan'

    def __init__(self, given: Dict[str, Any]):
        """Follow gaps with the node's parameters (`given` over the defaults)."""
        p = parameters(SPECS, given)
        self.acceleration = p['acceleration_m_s2']
        names = {f.name for f in dataclasses.fields(GapSettings)}
        self.settings = GapSettings(**{k: v for k, v in p.items() if k in names})

    def answer(self, stamp_ns: int, scan: Scan, wheels=None) -> List[Any]:
        """Return the ackermann command answering the scan measured at stamp_ns."""
        steer, speed = command(scan, self.settings)
        return [steering(steer, speed, self.acceleration)]
