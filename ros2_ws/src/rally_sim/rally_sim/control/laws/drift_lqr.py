"""The reference drift controller's law: LQR on the drift equilibria, circle or figure eight."""

import math
import os
import sys
from typing import Any, Dict, List, Union

from . import Law, parameters, steering
from ..drift.entry import EnteringDrift, needs_plan
from ..drift.figure_eight import DriftFigureEight
from ..drift.lqr import DriftDesign, DriftLqr
from ..drift.planned import planned_entry, planned_transition
from ..drift.transition import describe, design_keys, load_transition, Transition
from ..interface import Pedals, WheelTorques
from ..parameters import ParameterError, Spec
from ...physics import SURFACE_GRIP
from ...physics.config import ConfigError, load_vehicle
from ...resources import preset, shipped, vehicle_path

DEFAULTS = DriftDesign()
SPECS = {
    'vehicle': Spec('rwd_gravel', 'the car the law is designed on: a preset ('
                    + ', '.join(shipped('vehicles')) + ') or a vehicle file'),
    'surface': Spec('gravel', 'the surface type it drifts on', choices=tuple(SURFACE_GRIP)),
    'course': Spec('circle', 'circle: one circle round (center_x_m, center_y_m); figure_eight: '
                   'two circles of radius_m touching at (center_x_m, center_y_m), crossed '
                   'heading heading_deg, with a planned transition (the transition file)',
                   choices=('circle', 'figure_eight')),
    'radius_m': Spec(DEFAULTS.radius_m, 'circle radius [m]: positive counter-clockwise '
                     '(a left-hand drift, negative sideslip), negative clockwise; on a '
                     'figure eight, the first circle', -500.0, 500.0),
    'center_x_m': Spec(DEFAULTS.center_x_m, 'circle centre x in odom [m]; on a figure eight, '
                       'the crossing', -1e5, 1e5),
    'center_y_m': Spec(DEFAULTS.center_y_m, 'circle centre y in odom [m]; on a figure eight, '
                       'the crossing', -1e5, 1e5),
    'heading_deg': Spec(90.0, 'figure eight: the direction of travel through the crossing, '
                        'from odom x [deg]', -360.0, 360.0),
    'transition': Spec('', 'figure eight: the planned transition, a shipped one ('
                       + ', '.join(shipped('transitions')) + ') or a file written by '
                       'python -m rally_sim.drift_transition for this vehicle, surface, '
                       'radius, sideslip, command and gear; empty: planned on first use '
                       'and cached (tens of seconds once)'),
    'sideslip_deg': Spec(math.degrees(DEFAULTS.sideslip_rad), 'the sideslip held [deg] '
                         '(REP-103: negative round a left-hand circle)', -80.0, 80.0),
    'command': Spec('driver', 'driver: throttle in the held gear on driver_cmd (the '
                    "simulator's command_mode driver); torque: rear drive torques on "
                    'wheel_torque_cmd (command_mode torque)', choices=('driver', 'torque')),
    'gear': Spec(0, 'driver mode: the gear held (0: the highest with the clutch engaged at '
                 "the circle's speed)", 0, 12),
    'entry_s': Spec(DEFAULTS.entry_s, 'time over which the sideslip aimed at ramps up from '
                    'grip driving [s]; with a planned entry, the time driven in grip before '
                    'it', 0.0, 120.0),
    'entry': Spec('auto', 'circle: how the drift is entered from grip. ramp: the sideslip '
                  'aimed at ramps up along the family of equilibria; planned: a technique '
                  "(power-over, flick, handbrake, clutch kick) planned on the car's model "
                  'and cached (up to a minute once); auto: planned where the ramp would not '
                  'enter (simulated from grip driving on the circle), the ramp otherwise, and '
                  'with entry_s 0 (a car started in its drift)',
                  choices=('auto', 'ramp', 'planned')),
    'wheel_speed_bandwidth_rad_s': Spec(DEFAULTS.wheel_speed_bandwidth_rad_s,
                                        "the rear wheel speed loop's bandwidth [rad/s]",
                                        0.1, 100.0),
}


def design_of(p: Dict) -> DriftDesign:
    """Return the law's design from the node's parameters."""
    return DriftDesign(radius_m=p['radius_m'], sideslip_rad=math.radians(p['sideslip_deg']),
                       center_x_m=p['center_x_m'], center_y_m=p['center_y_m'],
                       mode=p['command'], gear=p['gear'] or None, entry_s=p['entry_s'],
                       wheel_speed_bandwidth_rad_s=p['wheel_speed_bandwidth_rad_s'])


def law_of(p: Dict) -> Union[DriftLqr, DriftFigureEight]:
    """Return the law the parameters name; ParameterError says which one is wrong."""
    if abs(p['radius_m']) < 1.0:
        raise ParameterError(f"parameter 'radius_m': {p['radius_m']} m is too small a circle")
    try:
        config = load_vehicle(vehicle_path(p['vehicle']))
    except ConfigError as error:
        raise ParameterError(f"parameter 'vehicle': {error}") from None
    try:
        law = DriftLqr(config, p['surface'], design_of(p))
    except ValueError as error:
        raise ParameterError(f'parameters radius_m, sideslip_deg, vehicle and surface: '
                             f'{error}') from None
    if p['course'] == 'circle':
        return entered_by(p, law)
    transition = transition_of(p, law)
    return DriftFigureEight(config, p['surface'], design_of(p), math.radians(p['heading_deg']),
                            transition, left=law)


def wants_plan(p: Dict, law: DriftLqr) -> bool:
    """Return whether the parameters enter the circle's drift by a planned entry."""
    if p['course'] != 'circle':
        return False
    if p['entry'] == 'planned':
        return True
    # auto plans only where the simulated ramp fails; entry_s 0: the car starts in its drift
    return p['entry'] == 'auto' and p['entry_s'] > 0.0 and bool(needs_plan(law))


def entered_by(p: Dict, law: DriftLqr, log=sys.stderr) -> Union[DriftLqr, EnteringDrift]:
    """Return the law with the entry the parameters ask for (the ramp: the law itself)."""
    if not wants_plan(p, law):
        return law
    try:
        entry, _ = planned_entry(vehicle_name(p), law, log)
    except ValueError as error:
        if p['entry'] == 'planned':
            raise ParameterError(f"parameter 'entry': {error}") from None
        print(f'rally_sim: warning: {error}; entering by the ramp instead', file=log, flush=True)
        return law
    return EnteringDrift(law, entry)


def vehicle_name(p: Dict) -> str:
    """Return the name a transition is planned for: the vehicle parameter's file stem."""
    return os.path.splitext(os.path.basename(p['vehicle']))[0]


def transition_of(p: Dict, law: DriftLqr) -> Transition:
    """Return the transition file's plan if it was designed for this law (none: planned now)."""
    name = p['transition']
    vehicle = vehicle_name(p)
    if not name:
        try:
            return planned_transition(vehicle, law)[0]
        except ValueError as error:
            raise ParameterError(f"parameter 'transition' (none: planned now): {error}") from None
    path = preset(name, 'transitions', '.yaml')
    try:
        transition = load_transition(path)
    except ValueError as error:
        raise ParameterError(f"parameter 'transition': {error}") from None
    wanted = design_keys(vehicle, law)
    if transition.design != wanted:
        raise ParameterError(
            f"parameter 'transition': {name} was planned for {describe(transition.design)}, "
            f'not for {describe(wanted)}: plan one with python -m rally_sim.drift_transition')
    return transition


def plan_ahead(given: Dict) -> str:
    """
    Plan now the transition the parameters leave to first use; return its file ('' if none).

    For a runner that cannot wait on the controller's start (a scenario in
    lockstep answers within 60 s). A circle's planned entry is planned into
    the cache likewise (the controller reads it there; '' is returned).
    Parameters the law refuses return '' (the controller says why when it
    starts); ValueError: no transition found.
    """
    try:
        p = parameters(SPECS, given)
        if p['transition'] or abs(p['radius_m']) < 1.0:
            return ''
        law = DriftLqr(load_vehicle(vehicle_path(p['vehicle'])), p['surface'], design_of(p))
    except (ConfigError, ParameterError, ValueError):
        return ''
    if wants_plan(p, law):             # into the cache, where the controller finds it
        try:
            planned_entry(vehicle_name(p), law)
        except ValueError:
            pass                       # the controller warns and takes the ramp
        return ''
    if p['course'] != 'figure_eight':
        return ''
    return planned_transition(vehicle_name(p), law)[1]


class DriftLqrLaw(Law):
    """Steering first, then the throttle (driver) or the rear torques, on the rear spins."""

    SPECS = SPECS
    wants_wheels = True

    def __init__(self, given: Dict[str, Any]):
        """Design the law of the node's parameters; ParameterError says which one is wrong."""
        self.law = law_of(parameters(SPECS, given))
        self.start_ns = None

    def answer(self, stamp_ns, state, wheels) -> List[Any]:
        """Answer a state and its rear wheels' spins; time counts from the first state."""
        if self.start_ns is None:
            self.start_ns = stamp_ns
        act = self.law.act((stamp_ns - self.start_ns) / 1e9, *state,
                           wheels.wheel_angular_speed[2:])
        if self.law.driver:
            return [steering(act.steer_rad), Pedals(throttle=float(act.drive),
                                                    handbrake=act.handbrake, gear=act.gear)]
        return [steering(act.steer_rad),
                WheelTorques([0.0, 0.0, float(act.drive[0]), float(act.drive[1])],
                             handbrake=act.handbrake)]
