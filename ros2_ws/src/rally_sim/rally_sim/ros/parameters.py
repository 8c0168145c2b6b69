"""
The simulator node's parameters, declared once with types, ranges and meanings.

Each is declared on the node with a description and, for numbers, a range
that rclpy enforces; choices and file names are checked here. A bad value at
start-up raises ParameterError naming it; at run time the node refuses it
with the same reason and changes nothing.
"""

import re
import sys
from typing import Any, Dict, List, Optional

from rcl_interfaces.msg import (FloatingPointRange, IntegerRange, ParameterDescriptor,
                                SetParametersResult)
from rclpy.node import Node
import yaml

from ..control.parameters import check as check_spec, is_integer, names
from ..control.parameters import ParameterError, Spec  # noqa: F401  (imported from here too)
from ..resources import shipped
from ..world.stages import STAGES

NONE = ['']
"""An empty list of names as rcl's YAML can hold it: `['']` (`[]` has no type there)."""
STANDARD = ('use_sim_time', 'start_type_description_service')
"""Parameters rclpy declares on every node itself."""

SPECS: Dict[str, Spec] = {
    'vehicle': Spec('volvo_v40', 'vehicle file (YAML) or preset name: '
                    + ', '.join(shipped('vehicles'))),
    'surface': Spec('tarmac_dry', 'surface type everywhere (tarmac_dry, tarmac_wet, gravel, '
                    'dirt, mud, grass, snow, ice), a surface map YAML, or a shipped stage '
                    f"({', '.join(sorted(STAGES))})", live=True),
    'map': Spec('', "occupancy map whose walls the car touches and its lidar sees: '' the "
                "stage's own (<stage>_map.yaml beside its surface map, following the surface), "
                "'none', a shipped stage's name, or a map_server YAML file"),
    'cmd_vel_stamped': Spec(False, 'cmd_vel carries geometry_msgs/TwistStamped; false: '
                            'geometry_msgs/Twist, as teleop_twist_keyboard publishes it'),
    'cars': Spec(NONE, 'several cars in one simulator: their names, each its namespace '
                 '(topics NAME/odom, NAME/ackermann_cmd, ...; frames NAME/base_link, ... in '
                 'one shared odom frame), with parameters NAME.vehicle, NAME.initial_x, '
                 "NAME.initial_y, NAME.initial_yaw; [''] for one car in the node's own "
                 'namespace'),
    'contact': Spec('stop', 'a car that touches a wall or another car: stop (halts where it '
                    'touched until a reset or a teleport), bounce (takes an impulse with '
                    'restitution and friction and drives on), each reported on collision; or '
                    'off (drives through)', choices=('stop', 'bounce', 'off')),
    'physics_rate_hz': Spec(1000.0, 'fixed physics steps per simulated second', 10.0, 10000.0),
    'publish_rate_hz': Spec(100.0, 'outputs per simulated second', 1.0, 1000.0),
    'marker_rate_hz': Spec(20.0, 'markers per simulated second, 0: none', 0.0, 200.0),
    'pacing': Spec('realtime', 'realtime (scaled by real_time_factor), fast (as fast as '
                   'possible) or lockstep (steps only on the step service)',
                   choices=('realtime', 'fast', 'lockstep')),
    'sync_controllers': Spec(NONE, 'synchronous mode: node names of the controllers to wait '
                             'for; simulated time starts when each has answered the first '
                             'state, and after publishing the state at t the simulator '
                             'advances only when each has answered with commands stamped t '
                             "(or sync_timeout_s passed). [''] (written so in a parameter "
                             "file: rcl's YAML cannot hold an empty list): off. With pacing "
                             'realtime or fast, not lockstep'),
    'sync_observers': Spec(NONE, 'node names of the observers (recorders, loggers) that must '
                           'see the run from t = 0: nothing is published and simulated time '
                           'does not start until each subscribes to the outputs and is '
                           "matched. [''] (written so in a parameter file): none. With "
                           'pacing realtime or fast, not lockstep'),
    'sync_paused': Spec(False, 'hold simulated time while true (pacing realtime or fast; in '
                        'synchronous mode the state is still published and answered): '
                        'start with it true and set it false once recorders and viewers '
                        'are connected', live=True),
    'sync_timeout_s': Spec(5.0, 'wall seconds to wait for a controller in synchronous mode '
                           'before reporting it and going on without it until it answers '
                           'again; before time starts (first answers, observers) nothing is '
                           'given up: who is waited for is reported this often', 0.01, 3600.0),
    'real_time_factor': Spec(1.0, 'simulated seconds per wall second in realtime pacing',
                             0.01, 100.0, live=True),
    'max_catch_up_s': Spec(0.1, 'largest backlog of simulated time caught up at once in '
                           'realtime pacing; beyond it time is dropped and reported',
                           0.001, 10.0),
    'publish_clock': Spec(True, 'publish /clock (simulated time) for use_sim_time nodes'),
    'command_mode': Spec('torque', 'torque: drive and brakes from wheel_torque_cmd; speed: '
                         'from ackermann_cmd speed through a speed controller (and the '
                         'drivetrain, if the vehicle has one); driver: throttle, brake, '
                         'handbrake and gear from driver_cmd (a vehicle with a drivetrain)',
                         choices=('torque', 'speed', 'driver'), live=True),
    'command_timeout_s': Spec(0.5, 'simulated seconds without a command before the '
                              'watchdog cuts drive and brakes, 0: never', 0.0, 3600.0,
                              live=True),
    'shutdown_flush_s': Spec(2.0, 'wall seconds the node waits at shutdown for its subscribers '
                             'to acknowledge what it published (Fast DDS acknowledges on its '
                             'heartbeat, every 3 s; a bag recorder gets the last messages), 0: '
                             'none', 0.0, 10.0),
    'timeout_brake_torque_n_m': Spec(1000.0, 'brake torque per wheel applied by the watchdog '
                                     "(at most the car's brakes' own limit)", 0.0, 100000.0,
                                     live=True),
    'odom_frame': Spec('odom', 'frame of the odometry pose (REP-105); in a namespace NS, '
                       'every frame is prefixed NS/'),
    'base_frame': Spec('base_link', 'vehicle frame, at the CG projected to the ground'),
    'initial_x': Spec(0.0, 'initial x in odom [m]; when none of initial_x, initial_y and '
                      "initial_yaw is given, on a stage with a reference path: the path's "
                      'first point, heading along it', -1.0e6, 1.0e6),
    'initial_y': Spec(0.0, 'initial y in odom [m] (see initial_x)', -1.0e6, 1.0e6),
    'initial_yaw': Spec(0.0, 'initial yaw in odom [rad] (see initial_x)', -10.0, 10.0),
    'initial_speed': Spec(0.0, 'initial forward speed [m/s], wheels rolling', -100.0, 100.0),
    'initial_lateral_speed': Spec(0.0, 'initial lateral speed in base_link [m/s] (a car started '
                                  'sliding, e.g. in a drift)', -100.0, 100.0),
    'initial_yaw_rate': Spec(0.0, 'initial yaw rate [rad/s]', -10.0, 10.0),
    'argument_names': Spec('', 'the launch arguments that set parameters, for errors to name '
                           'them: PARAMETER=ARGUMENT pairs separated by spaces (the f1tenth '
                           'launch: ego_racecar.initial_x=sx ...); empty: none'),
    'sensors': Spec('ideal', 'sensor profile: a shipped one (ideal: the ground truth as it is; '
                    'typical: a production car; rough: low-cost sensors) or a profile file. '
                    'odom, imu, wheel_encoders, steering_angle and gnss/fix carry its '
                    'measurements; ground_truth/odom the truth'),
    'seed': Spec(0, 'seed of every random draw (sensor errors, dropouts): the same seed, the '
                 'same run; random: one is drawn, logged and kept in the parameter', 0,
                 2 ** 31 - 1, also=('random',)),
    'tf_source': Spec('measured', 'what TF odom -> base_link carries: measured (the odometry '
                      'channel, as a localisation would publish), truth, or none (for your '
                      'own estimator); odom -> base_link_ground_truth is always published',
                      choices=('measured', 'truth', 'none')),
    'publish_stage': Spec(True, 'publish the stage once, latched (transient local): its '
                          'surfaces on stage/surface (MarkerArray) and its reference path on '
                          'stage/path; false for a second car on the same stage'),
    'trail_length_s': Spec(30.0, 'the last this many simulated seconds of the CG path on '
                           'trail (a line strip, at the marker rate), 0: no trail', 0.0, 600.0),
    'trail_colour': Spec('speed', 'what colours the trail, blue (none) through green to red: '
                         'speed (0..30 m/s) or slip (the largest tyre slip angle, 0..0.3 rad); '
                         'or one colour (white, magenta, cyan, yellow: a second car)',
                         choices=('speed', 'slip', 'white', 'magenta', 'cyan', 'yellow')),
}


CAR_NAME = re.compile(r'[A-Za-z][A-Za-z0-9_]*$')
MAX_CARS = 16


def car_specs(cars: List[str]) -> Dict[str, Spec]:
    """Return the parameters of each listed car (cars): its vehicle and start pose."""
    specs = {}
    for car in cars:
        specs[f'{car}.vehicle'] = Spec('', f"vehicle of car {car}: a preset name or file; '' "
                                       "the node's vehicle")
        for key in ('initial_x', 'initial_y', 'initial_yaw'):
            base = SPECS[key]
            specs[f'{car}.{key}'] = Spec(base.default, f'{key[8:]} of car {car} at the start: '
                                         'none given, on a stage with a path: on it, each car '
                                         'behind the one listed before', base.low, base.high)
    return specs


def _check_cars(cars: List[str]) -> None:
    """Raise ParameterError unless the car names are distinct ROS names (at most MAX_CARS)."""
    bad = [c for c in cars if not CAR_NAME.match(c)]
    if bad or len(set(cars)) < len(cars) or len(cars) > MAX_CARS:
        raise ParameterError(
            f"parameter 'cars'{source_of('cars')} = {cars!r}: each name must be a distinct "
            'ROS name (a letter, then letters, digits and _), at most '
            f'{MAX_CARS} of them' + (f'; not {bad[0]!r}' if bad else ''))


def declare(node: Node, specs: Dict[str, Spec] = None) -> Dict[str, Any]:
    """Declare every parameter of `specs` (default: the simulator's, its cars') on `node`."""
    if specs is None:
        values = _declare(node, SPECS)
        _check_cars(values['cars'])
        extra = car_specs(values['cars'])
        values.update(_declare(node, extra))
        specs = {**SPECS, **extra}
    else:
        values = _declare(node, specs)
    unknown = sorted(n for n in node._parameter_overrides if n not in specs
                     and n not in STANDARD and not n.startswith('qos_overrides.'))
    if unknown:
        raise ParameterError(
            f"parameter '{unknown[0]}'{source_of(unknown[0])} is not a parameter of "
            f"{node.get_name()}; its parameters: {', '.join(specs)}")
    return values


def _declare(node: Node, specs: Dict[str, Spec]) -> Dict[str, Any]:
    """Declare the parameters of `specs` on `node`; return their values, checked."""
    values = {}
    for name, spec in specs.items():
        descriptor = ParameterDescriptor(description=spec.description, read_only=not spec.live)
        if isinstance(spec.default, (float, list)) or spec.also:
            descriptor.dynamic_typing = True      # 1000 as well as 1000.0; [] as strings
        if spec.low is not None and is_integer(spec.default):
            descriptor.integer_range = [IntegerRange(
                from_value=int(spec.low), to_value=int(spec.high), step=1)]
        elif spec.low is not None:
            descriptor.floating_point_range = [FloatingPointRange(
                from_value=spec.low, to_value=spec.high, step=0.0)]
        if spec.choices:
            descriptor.additional_constraints = f'one of: {", ".join(spec.choices)}'
        try:
            values[name] = node.declare_parameter(name, spec.default, descriptor).value
        except Exception as error:  # rclpy's range and type errors
            raise ParameterError(f"parameter '{name}'{source_of(name)}: {error}") from None
        reason = check(name, values[name], specs)
        if reason:
            raise ParameterError(reason + source_of(name))
        if isinstance(spec.default, float):
            values[name] = float(values[name])
        if isinstance(spec.default, list):
            values[name] = names(values[name])
    return values


def given(node: Node, name: str) -> bool:
    """Return whether the node's command line or a parameter file sets `name`."""
    return name in node._parameter_overrides


def parameter_files(argv: List[str]) -> List[str]:
    """Return the files given with --params-file in a command line's ROS arguments."""
    return [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == '--params-file']


def source_of(name: str) -> str:
    """Return ' (in FILE)' for the last parameter file that sets `name` (the one that holds)."""
    argv = sys.argv
    if any(flag in ('-p', '--param') and value.startswith(f'{name}:=')
           for flag, value in zip(argv, argv[1:])):
        return ''                   # given with -p, which no file overrides
    found = ''
    for path in parameter_files(sys.argv):
        try:
            with open(path, encoding='utf-8') as stream:
                sections = yaml.safe_load(stream) or {}
        except (OSError, yaml.YAMLError):
            continue
        for section in sections.values() if isinstance(sections, dict) else ():
            params = section.get('ros__parameters') if isinstance(section, dict) else None
            if isinstance(params, dict) and name in params:
                found = f' (in {path})'
    return found


def check(name: str, value: Any, specs: Dict[str, Spec] = None) -> Optional[str]:
    """Return why `value` is not allowed for `name` (default: of the simulator), or None."""
    return check_spec(name, value, SPECS if specs is None else specs)


def refuse_or_accept(parameters, apply) -> SetParametersResult:
    """Check a run-time change; apply it only if every value is allowed."""
    for parameter in parameters:
        if parameter.name not in SPECS:
            continue
        reason = check(parameter.name, parameter.value)
        if reason is None:
            try:
                apply(parameter.name, parameter.value, dry_run=True)
            except ValueError as error:
                reason = f"parameter '{parameter.name}': {error}"
        if reason:
            return SetParametersResult(successful=False, reason=reason)
    for parameter in parameters:
        if parameter.name in SPECS:
            apply(parameter.name, parameter.value, dry_run=False)
    return SetParametersResult(successful=True)
