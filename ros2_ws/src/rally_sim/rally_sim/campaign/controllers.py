"""
Our example controllers' laws, answering states in-process as their nodes answer messages.

Each answers the odometry (and, for MPPI, the wheel state of the same
stamp) with the command messages its node publishes, built as the node
builds them, so the simulator's command intake takes the same values: the
float32 fields of ackermann_msgs are rounded as on the wire (the ackermann
command as a tuple of the fields the intake reads: nothing is sent). The nodes'
parameter specs and checks are used, so a value the node refuses is refused
here with the same words.
"""

from abc import ABC, abstractmethod
from array import array
import functools
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

import numpy as np
from rally_sim_msgs.msg import DriverCommand, WheelTorqueCommand
from transforms3d.euler import quat2euler

from ..control.path import ClosedPath
from ..physics.model import OMEGA, STATE_SIZE, STEER
from ..resources import config_file
from ..ros.conversions import quaternion
from ..ros.odometry import PlanarState
from ..ros.parameters import check, Spec
from ..scenario_runner import module_of
from ..stages import read_path


class WheelState(NamedTuple):
    """What MPPI reads from wheel_slip: wheel spins [rad/s] and the two front steer angles."""

    wheel_angular_speed: Sequence[float]
    steer_angle: Sequence[float]


def planar(m) -> PlanarState:
    """Return the planar state a node reads from the odometry message of measurement `m`."""
    (x, y), (yaw,) = m.values['position'].tolist(), m.values['yaw'].tolist()
    _, pitch, roll = m.values['ground'].tolist()
    (vx, vy), (yaw_rate,) = m.values['velocity'].tolist(), m.values['yaw_rate'].tolist()
    return planar_of(x, y, quaternion(roll, pitch, yaw), vx, vy, yaw_rate)


def planar_of(x: float, y: float, orientation: Sequence[float], vx: float, vy: float,
              yaw_rate: float) -> PlanarState:
    """Return the planar state a node reads from odometry with these fields (x, y, z, w)."""
    qx, qy, qz, qw = orientation
    return PlanarState(x, y, quat2euler((qw, qx, qy, qz), 'sxyz')[2], vx, vy, yaw_rate)


@functools.lru_cache(maxsize=8)
def closed_path(path_file: str) -> ClosedPath:
    """Return the closed path of a path file, read once per process (nothing changes it)."""
    return ClosedPath(read_path(path_file))


class Drive(NamedTuple):
    """The fields of ackermann_msgs/AckermannDrive that the simulator's intake reads."""

    steering_angle: float
    steering_angle_velocity: float
    speed: float
    acceleration: float
    jerk: float


class Steering(NamedTuple):
    """An ackermann command as the intake reads it (AckermannDriveStamped's `drive`)."""

    drive: Drive


def steering(angle: float, speed: float = 0.0, acceleration: float = 0.0) -> Steering:
    """
    Return an ackermann command with its float32 fields rounded as on the wire.

    A plain tuple, not the ROS message: nothing is sent, and building the
    message cost a tenth of an in-process run.
    """
    angle, speed, acceleration = array('f', (angle, speed, acceleration)).tolist()  # float32
    return Steering(Drive(angle, 0.0, speed, acceleration, 0.0))


def node_params(specs: Dict[str, Spec], given: Dict[str, Any]) -> Dict[str, Any]:
    """Return a node's parameters (its defaults, then `given`) as its node declares them."""
    values = {name: spec.default for name, spec in specs.items()}
    values.update(given)
    for name, value in given.items():
        if name not in specs:
            raise ValueError(f"controller parameter '{name}' is not a parameter of the "
                             f"controller; its parameters: {', '.join(specs)}")
        reason = check(name, value, specs)
        if reason:
            raise ValueError(f'controller {reason}')
        if isinstance(specs[name].default, float):
            values[name] = float(value)
    return values


class Controller(ABC):
    """A controller's law: answers a state with the messages its node publishes."""

    wants_wheels = False
    """Whether it answers a state only with its wheel state (wheel_slip) too."""

    @staticmethod
    @abstractmethod
    def specs() -> Dict[str, Spec]:
        """Return its node's parameter specs."""

    @abstractmethod
    def answer(self, stamp_ns: int, state: PlanarState, wheels: Optional[WheelState]
               ) -> List[Any]:
        """Return the command messages answering the state measured at stamp_ns."""


class PathFollowerLaw(Controller):
    """rally_sim.ros.path_follower: pure pursuit, and in driver mode the pedals."""

    @staticmethod
    def specs():
        """Return the path follower node's specs."""
        from ..ros.path_follower_node import SPECS
        return SPECS

    def __init__(self, given: Dict[str, Any]):
        """Take the node's parameters; load its path."""
        from ..control.path_following import PathFollowing
        from ..control.speed import PedalSpeedController
        p = node_params(self.specs(), given)
        self.law = PathFollowing(closed_path(
            p['path_file'] or config_file('stages/rally_stage_path.csv')), p)
        from ..ros.path_follower_node import PEDAL_PERIOD_S
        self.pedals = PedalSpeedController() if p['command'] == 'driver' else None
        self.pedal_period_s = PEDAL_PERIOD_S
        self.last_stamp_ns = None

    def answer(self, stamp_ns, state, wheels):
        """Steer and speed; in driver mode throttle and brake as the node works them."""
        sec, nanosec = divmod(stamp_ns, 1_000_000_000)
        steer, speed = self.law.answer(sec + nanosec / 1e9, state.x, state.y, state.yaw,
                                       state.vx)
        messages = [steering(steer, speed, self.law.acceleration)]
        if self.pedals is not None:
            dt = self.pedal_period_s
            if self.last_stamp_ns is not None and 0 < stamp_ns - self.last_stamp_ns < 1e8:
                dt = (stamp_ns - self.last_stamp_ns) / 1e9
            self.last_stamp_ns = stamp_ns
            throttle, brake = self.pedals.pedals(float(speed), state.vx, dt)
            messages.append(DriverCommand(throttle=throttle, brake=brake))
        return messages


class DriftLaw(Controller):
    """rally_sim.ros.drift_controller: counter-steer, and throttle or rear torque."""

    @staticmethod
    def specs():
        """Return the drift controller node's specs."""
        from ..ros.drift_controller_node import COMMANDS, SPECS
        return {**SPECS, **COMMANDS}

    def __init__(self, given: Dict[str, Any]):
        """Take the node's parameters."""
        from ..control.drift import DriftController, DriftSettings
        from ..ros.drift_controller_node import SPECS
        p = node_params(self.specs(), given)
        self.controller = DriftController(DriftSettings(**{name: p[name] for name in SPECS}))
        self.delay_s = p['delay_compensation_s']
        self.driver = p['command'] == 'driver'

    def answer(self, stamp_ns, state, wheels):
        """Steering first, then the throttle (driver) or the rear torques, as the node."""
        from ..ros.drift_controller_node import answer_state
        steer, drive = answer_state(self.controller, self.driver, self.delay_s, state)
        return [steering(steer), drive]


class DriftLqrLaw(Controller):
    """rally_sim.ros.drift_lqr_controller: the reference drift controller on the equilibria."""

    wants_wheels = True

    @staticmethod
    def specs():
        """Return the reference drift controller node's specs."""
        from ..ros.drift_lqr_controller_node import SPECS
        return SPECS

    def __init__(self, given: Dict[str, Any]):
        """Take the node's parameters and design its law, as the node does."""
        from ..ros.drift_lqr_controller_node import law_of
        self.law = law_of(node_params(self.specs(), given))
        self.start_ns = None

    def answer(self, stamp_ns, state, wheels):
        """Steering first, then the throttle (driver) or the rear torques, as the node."""
        from ..ros.drift_lqr_controller_node import answer_state
        if self.start_ns is None:
            self.start_ns = stamp_ns
        steer, drive = answer_state(self.law, (stamp_ns - self.start_ns) / 1e9, state,
                                    wheels.wheel_angular_speed[2:])
        return [steering(steer), drive]


class MppiLaw(Controller):
    """rally_sim.ros.mppi_controller: sampled futures on the batch physics."""

    wants_wheels = True

    @staticmethod
    def specs():
        """Return the MPPI node's specs."""
        from ..ros.mppi_controller_node import SPECS
        return SPECS

    def __init__(self, given: Dict[str, Any]):
        """Take the node's parameters; build its model of the car and stage."""
        from ..control.mppi import Mppi, MppiSettings
        from ..physics.config import load_vehicle
        from ..resources import vehicle_path
        from ..scenario_runner import stage_surface
        from ..ros.mppi_controller_node import SPECS
        p = node_params(SPECS, given)
        settings = MppiSettings(**{name: p[name] for name in SPECS
                                   if name not in ('vehicle', 'stage')})
        self.mppi = Mppi(load_vehicle(vehicle_path(p['vehicle'])), stage_surface(p['stage']),
                         closed_path(config_file(f"stages/{p['stage']}_path.csv")),
                         settings)

    def answer(self, stamp_ns, state, wheels):
        """Steering, then drive and brake torques, for the full state of stamp_ns."""
        full = np.zeros(STATE_SIZE)
        full[:6] = state
        full[OMEGA:OMEGA + 4] = wheels.wheel_angular_speed
        full[STEER] = 0.5 * (wheels.steer_angle[0] + wheels.steer_angle[1])
        steer, drive, brake, _ = self.mppi.command(full)
        torques = WheelTorqueCommand()
        torques.drive_torque = drive.tolist()
        torques.brake_torque = brake.tolist()
        return [steering(steer), torques]


LAWS = {'rally_sim.ros.path_follower': PathFollowerLaw,
        'rally_sim.ros.drift_controller': DriftLaw,
        'rally_sim.ros.drift_lqr_controller': DriftLqrLaw,
        'rally_sim.ros.mppi_controller': MppiLaw}
"""The controllers the in-process engine runs, by the module their scenario command runs."""


def check_controller(controller: Dict[str, Any]) -> None:
    """Raise ValueError saying why the in-process engine cannot run a scenario's controller."""
    module = module_of(controller['command'])
    if module not in LAWS:
        raise ValueError(
            f"its controller ({' '.join(controller['command'])}) is not one of ours that the "
            f"in-process engine runs ({', '.join(LAWS)}); use --engine ros")
    node_params(LAWS[module].specs(), controller.get('params', {}))


def law_for(controller: Dict[str, Any]) -> Controller:
    """Return the law of a scenario's controller; ValueError says why there is none."""
    check_controller(controller)
    return LAWS[module_of(controller['command'])](controller.get('params', {}))
