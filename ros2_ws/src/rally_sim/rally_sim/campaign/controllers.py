"""
Our example controllers' laws (control/laws/), by the module their scenario command runs.

Each answers the odometry (and, for MPPI and the reference drift
controller, the wheel state of the same stamp) with the commands its node
publishes: the laws are the nodes' own, so the simulator's intake takes the
same values. A parameter the node refuses is refused here with the same words.
"""

import functools
from typing import Any, Dict, Sequence

from ..control.interface import PlanarState, quaternion, yaw_of
from ..control.laws import Law, parameters
from ..control.path import ClosedPath
from ..resources import path_of
from ..scenarios.spec import module_of
from ..world.stages import read_path


def planar(m) -> PlanarState:
    """Return the planar state a node reads from the odometry message of measurement `m`."""
    (x, y), (yaw,) = m.values['position'].tolist(), m.values['yaw'].tolist()
    _, pitch, roll = m.values['ground'].tolist()
    (vx, vy), (yaw_rate,) = m.values['velocity'].tolist(), m.values['yaw_rate'].tolist()
    return planar_of(x, y, quaternion(roll, pitch, yaw), vx, vy, yaw_rate)


def planar_of(x: float, y: float, orientation: Sequence[float], vx: float, vy: float,
              yaw_rate: float) -> PlanarState:
    """Return the planar state a node reads from odometry with these fields (x, y, z, w)."""
    return PlanarState(x, y, yaw_of(*orientation), vx, vy, yaw_rate)


@functools.lru_cache(maxsize=8)
def closed_path(path_file: str) -> ClosedPath:
    """Return the closed path of a path file, read once per process (nothing changes it)."""
    return ClosedPath(read_path(path_file))


def path_follower(given: Dict[str, Any]) -> Law:
    """Return the path follower's law on its path (the shipped rally_stage path by default)."""
    from ..control.laws.path_follower import PathFollowerLaw
    return PathFollowerLaw(closed_path(path_of(given.get('path_file', ''))), given)


def drift(given: Dict[str, Any]) -> Law:
    """Return the drift controller's law."""
    from ..control.laws.drift import DriftLaw
    return DriftLaw(given)


def drift_lqr(given: Dict[str, Any]) -> Law:
    """Return the reference drift controller's law, designed as its node designs it."""
    from ..control.laws.drift_lqr import DriftLqrLaw
    return DriftLqrLaw(given)


def mppi(given: Dict[str, Any]) -> Law:
    """Return the MPPI controller's law."""
    from ..control.laws.mppi import MppiLaw
    return MppiLaw(given)


def gap_follower(given: Dict[str, Any]) -> Law:
    """Return the gap follower's law (it reads the lidar's scan, not odometry)."""
    from ..control.laws.gap_follower import GapFollowerLaw
    return GapFollowerLaw(given)


def specs_of(module: str):
    """Return the parameter specs of the controller whose node `module` runs."""
    from ..control.laws import drift as drift_law, drift_lqr as lqr_law, mppi as mppi_law
    from ..control.laws import gap_follower as gap_law, path_follower as follower_law
    return {'rally_sim.ros.gap_follower': gap_law.SPECS,
            'rally_sim.ros.path_follower': follower_law.SPECS,
            'rally_sim.ros.drift_controller': drift_law.DriftLaw.SPECS,
            'rally_sim.ros.drift_lqr_controller': lqr_law.SPECS,
            'rally_sim.ros.mppi_controller': mppi_law.SPECS}[module]


LAWS = {'rally_sim.ros.path_follower': path_follower,
        'rally_sim.ros.drift_controller': drift,
        'rally_sim.ros.drift_lqr_controller': drift_lqr,
        'rally_sim.ros.mppi_controller': mppi,
        'rally_sim.ros.gap_follower': gap_follower}
"""The controllers the in-process engine runs, by the module their scenario command runs."""


def check_controller(controller: Dict[str, Any]) -> None:
    """Raise ValueError saying why the in-process engine cannot run a scenario's controller."""
    module = module_of(controller['command'])
    if module not in LAWS:
        raise ValueError(
            f"its controller ({' '.join(controller['command'])}) is not one of ours that the "
            f"in-process engine runs ({', '.join(LAWS)}); use --engine ros")
    parameters(specs_of(module), controller.get('params', {}))


def law_for(controller: Dict[str, Any]) -> Law:
    """Return the law of a scenario's controller; ValueError says why there is none."""
    check_controller(controller)
    return LAWS[module_of(controller['command'])](controller.get('params', {}))
