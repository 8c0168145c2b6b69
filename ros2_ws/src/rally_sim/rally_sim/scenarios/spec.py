"""
A scenario file: its keys, their checks and defaults, and what a run is made of.

ROS-free: the scenario runner (ROS processes) and the in-process engine read
scenarios through it. See scenarios/runner.py for what a scenario is.
"""

import functools
import json
import math
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml

from .techniques import TECHNIQUE_METRICS
from ..control.path import ClosedPath
from ..physics import ConfigError, SURFACE_GRIP
from ..physics.config import STEER_ALIASES
from ..resources import config_file, read_shipped, surface_from, vehicle_path, walls_from
from ..sim.intake import COMMAND_TOPICS
from ..world.stages import (
    MADE_SHAPES, made_stage, made_stage_file, read_path, stage_named, STAGES)

MODE_OUTPUTS = {'speed': ['ackermann_cmd'], 'torque': ['ackermann_cmd', 'wheel_torque_cmd'],
                'driver': ['ackermann_cmd', 'driver_cmd']}
"""The command topics a controller answers on in each command mode (by default)."""
KEYS = {'name': str, 'vehicle': str, 'stage': (str, dict), 'command_mode': str, 'controller': dict,
        'initial_speed_m_s': (int, float), 'duration_s': (int, float),
        'control_period_s': (int, float), 'stop_after_laps': int, 'metrics': str,
        'settle_s': (int, float), 'thresholds': dict}
OPTIONAL = {'sensors': (str, 'ideal'), 'seed': ((int, str), 0), 'actuation': (dict, {}),
            'vehicle_overrides': (dict, {}), 'sensor_overrides': (dict, {}),
            'equilibrium': (dict, {}), 'opponents': (list, []), 'path': (str, ''),
            'stop_on_spin': (bool, None), 'initial_state': (dict, {}), 'runs': (list, [])}
"""Keys a scenario may leave out: their types and defaults."""
MAX_SEED = 2 ** 31 - 1
INITIAL_SPEED_LIMIT_M_S = 100.0
METRICS = {
    'path': ('cross_track_rms_m', 'cross_track_max_m', 'heading_error_rms_rad',
             'completion_time_s', 'off_road_time_s', 'mean_speed_m_s'),
    'drift': ('sideslip_mean_deg', 'sideslip_std_deg', 'yaw_rate_mean_rad_s',
              'radius_error_rms_m', 'time_in_drift_s', 'mean_speed_m_s',
              'sideslip_error_rms_deg', 'yaw_rate_error_rms_rad_s', 'speed_error_rms_m_s'),
    'figure_eight': ('lateral_error_rms_m', 'lateral_error_max_m', 'transitions',
                     'regain_max_s', 'sideslip_mean_deg', 'time_in_drift_s', 'mean_speed_m_s'),
    'jump': ('cross_track_rms_m', 'cross_track_max_m', 'heading_error_rms_rad',
             'completion_time_s', 'off_road_time_s', 'mean_speed_m_s', 'airtime_s',
             'longest_flight_s', 'flights', 'peak_height_m', 'landing_load_g'),
    'technique': TECHNIQUE_METRICS,
}
WORLD_METRICS = ('collisions', 'min_clearance_m')
"""Metrics of every scenario on a stage with walls or with opponents (scenarios/metrics.py's
world_metrics; with opponents `passes` too); one with no threshold on collisions fails on the
first (collisions: {max: 0})."""
TARGET_METRICS = ('sideslip_error_rms_deg', 'yaw_rate_error_rms_rad_s', 'speed_error_rms_m_s')
"""Drift metrics against the scenario's `equilibrium` (the car's own, solved): only with one."""
INITIAL_STATE_KEYS = ('x_m', 'y_m', 'yaw_rad', 'lateral_speed_m_s', 'yaw_rate_rad_s',
                      'equilibrium')
"""An initial_state's keys: the pose (all three or none), body velocities, or equilibrium: true
(the scenario's equilibrium's velocities, the car heading so that it moves along the path)."""
EQUILIBRIUM_KEYS = {'radius_m': (int, float), 'sideslip_deg': (int, float), 'surface': str,
                    'gear': int}
"""An equilibrium target's keys (gear: driver mode's held gear, optional)."""
PHYSICS_RATE_HZ = 1000.0
SIMULATOR_NODE = 'rally_sim'
CONTROLLER_NODE = 'scenario_controller'
"""The runner names the controller's node so, whatever its own name, the simulator knows
whom to wait for."""
CLOCKLESS_CONTROLLERS = ('rally_sim.ros.path_follower', 'rally_sim.ros.drift_controller',
                         'rally_sim.ros.drift_lqr_controller', 'rally_sim.ros.mppi_controller',
                         'rally_sim.ros.gap_follower', 'rally_sim.ros.technique_driver')
"""Our example controllers, which read no clock (each answer carries its input's stamp):
started without use_sim_time, as /clock would cost each control period a message in the
simulator and a callback in the controller, and change nothing."""
RUNNER_NODE = 'scenario_runner'
"""The runner's node: an observer of the run (sync_observers), the recorder when recording."""


class ScenarioError(ValueError):
    """A scenario file that cannot be run; the message names the key."""


def load_scenario(name: str) -> Dict[str, Any]:
    """Load and check a scenario by shipped name or file path."""
    path, spec = read_shipped(name, 'scenarios', 'scenario', ScenarioError)
    if not isinstance(spec, dict):
        raise ScenarioError(f'{path}: a scenario is a mapping of keys')
    return check_scenario(spec, path)


def check_scenario(spec: Dict[str, Any], path: str) -> Dict[str, Any]:
    """Check a scenario's keys and values (ScenarioError naming `path` and the key)."""
    unknown = sorted(set(spec) - set(KEYS) - set(OPTIONAL) - {'file'})
    missing = sorted(set(KEYS) - set(spec))
    if unknown or missing:
        raise ScenarioError(f'{path}: unknown key(s) {unknown}, missing key(s) {missing}')
    for key, (_, default) in OPTIONAL.items():
        spec.setdefault(key, default)
    if spec['stop_on_spin'] is None:    # a car started in reverse drives backwards on purpose
        spec['stop_on_spin'] = not (isinstance(spec['initial_speed_m_s'], (int, float))
                                    and spec['initial_speed_m_s'] < 0.0)
    kinds = {**KEYS, **{key: kind for key, (kind, _) in OPTIONAL.items()}}
    for key, kind in kinds.items():
        if not isinstance(spec[key], kind) or (kind is not bool and isinstance(spec[key], bool)):
            raise ScenarioError(f"{path}: key '{key}' = {spec[key]!r} has the wrong type")
    _find_beside(spec, path)
    if isinstance(spec['stage'], dict):
        spec['stage'] = _made_stage(spec['stage'], path)
    elif stage_named(spec['stage']) is None or (spec['stage'] not in STAGES and
                                                not os.path.isfile(spec['stage'])):
        raise ScenarioError(f"{path}: key 'stage' must be one of {sorted(STAGES)}, or made "
                            f'to order: {MADE_FORMS}')
    try:
        vehicle_path(spec['vehicle'])
    except ConfigError as error:
        raise ScenarioError(f"{path}: key 'vehicle': {error}") from None
    _check_sensors(spec, path)
    if spec['command_mode'] not in MODE_OUTPUTS:
        raise ScenarioError(f"{path}: key 'command_mode' must be one of "
                            f'{", ".join(MODE_OUTPUTS)}')
    command = spec['controller'].get('command')
    if not (isinstance(command, list) and command and all(isinstance(c, str) for c in command)):
        raise ScenarioError(f"{path}: key 'controller.command' must be a list of strings")
    if not 0.001 <= spec['control_period_s'] <= 1.0 or spec['duration_s'] <= 0.0:
        raise ScenarioError(f"{path}: 'control_period_s' must be in [0.001, 1] and "
                            "'duration_s' positive")
    if not abs(spec['initial_speed_m_s']) <= INITIAL_SPEED_LIMIT_M_S:
        raise ScenarioError(f"{path}: key 'initial_speed_m_s' = {spec['initial_speed_m_s']!r} "
                            f'must be in [-{INITIAL_SPEED_LIMIT_M_S:g}, '
                            f"{INITIAL_SPEED_LIMIT_M_S:g}] m/s (the node's initial_speed)")
    if spec['metrics'] not in METRICS:
        raise ScenarioError(f"{path}: key 'metrics' must be one of {sorted(METRICS)}")
    known = METRICS[spec['metrics']]
    if stage_walls(spec['stage']) is not None or spec['opponents']:
        known += WORLD_METRICS + (('passes',) if spec['opponents'] else ())
        spec['thresholds'].setdefault('collisions', {'max': 0})
    for metric, bound in spec['thresholds'].items():
        if metric not in known or not isinstance(bound, dict) or \
                not set(bound) <= {'min', 'max'} or not bound:
            raise ScenarioError(f"{path}: threshold '{metric}' must be one of {known} "
                                'with min and/or max')
    _check_equilibrium(spec, path)
    _check_initial_state(spec, path)
    _check_opponents(spec, path)
    _check_path(spec, path)
    _check_runs(spec, path)
    spec['file'] = path
    return spec


FOLLOWER = 'rally_sim.ros.path_follower'


def beside(value: Any, path: str) -> Any:
    """Return a relative name of a file beside the scenario `path` made absolute; else value."""
    if not isinstance(value, str) or not value or os.path.isabs(value):
        return value
    found = os.path.join(os.path.dirname(os.path.abspath(path)), value)
    return found if os.path.isfile(found) else value


def _find_beside(spec: Dict[str, Any], path: str) -> None:
    """
    Make the files a scenario names beside itself absolute: a scenario runs from any folder.

    Its vehicle, stage map, sensor profile and path; each controller's
    command words and parameters (a script, a vehicle, a transition), the
    opponents' too. A name that is no file beside the scenario stays as it
    is (a preset, or a file from the working folder).
    """
    for key in ('stage', 'sensors', 'path'):
        spec[key] = beside(spec[key], path)
    for owner in [spec] + [o for o in spec['opponents'] if isinstance(o, dict)]:
        if 'vehicle' in owner:
            owner['vehicle'] = beside(owner['vehicle'], path)
        controller = owner.get('controller')
        if not isinstance(controller, dict):
            continue
        if isinstance(controller.get('command'), list):
            controller['command'] = [beside(word, path) for word in controller['command']]
        if isinstance(controller.get('params'), dict):
            controller['params'] = {k: beside(v, path) for k, v in controller['params'].items()}


def _check_path(spec: Dict[str, Any], path: str) -> None:
    """
    Check the scenario's own reference path (key 'path'), beside the scenario file or not.

    A path CSV (columns x, y; a drive's best_lap.csv is one) replaces the
    stage's line for the metrics and the start; the example path follower
    follows it too, unless its params name a path_file of their own.
    """
    if not spec['path']:
        return
    given = spec['path']                    # beside the scenario: made absolute already
    try:
        ClosedPath(read_path(given))
    except (OSError, ValueError) as error:
        raise ScenarioError(f"{path}: key 'path' = {given!r}: {error}") from None
    spec['path'] = os.path.abspath(given)
    controller = spec['controller']
    if controller['command'][-1] == FOLLOWER:
        controller.setdefault('params', {}).setdefault('path_file', spec['path'])


def _check_runs(spec: Dict[str, Any], path: str) -> None:
    """
    Check a technique scenario: its controller's technique and `runs`, the technique's runs.

    The controller (the technique driver) runs once per run, with `run:=NAME`;
    it drives the scenario's car unless its params name another `vehicle`.
    """
    if spec['metrics'] != 'technique':
        if spec['runs']:
            raise ScenarioError(f"{path}: key 'runs' is for 'metrics: technique' only")
        return
    from ..control.techniques import TECHNIQUES
    params = spec['controller'].setdefault('params', {})
    name = params.get('technique')
    if name not in TECHNIQUES:
        raise ScenarioError(f"{path}: 'metrics: technique' needs controller.params.technique, "
                            f'one of {sorted(TECHNIQUES)}')
    params.setdefault('vehicle', spec['vehicle'])
    try:
        runs = list(TECHNIQUES[name](params['vehicle']).runs)
    except (ValueError, OSError) as error:
        raise ScenarioError(f"{path}: key 'controller.params.vehicle': {error}") from None
    if sorted(map(str, spec['runs'])) != sorted(runs):
        raise ScenarioError(f"{path}: key 'runs' must name {name}'s runs, {runs}, not "
                            f"{spec['runs']}")


def reference_path_file(spec: Dict[str, Any]) -> str:
    """Return the path a scenario is measured on: its own (key 'path'), or its stage's."""
    return spec['path'] or stage_path_file(spec['stage'])


EGO = 'ego'
"""The scenario's own car, among opponents: its name (namespace) in the simulator."""
OPPONENT_KEYS = {'name': str, 'controller': dict, 'vehicle': str, 'start_ahead_m': (int, float)}
"""An opponent's keys: its name, its controller, optionally its vehicle (default the
scenario's, without its overrides) and start (default 2 m ahead of the car before it)."""


def _check_opponents(spec: Dict[str, Any], path: str) -> None:
    """Check the other cars of a scenario (ScenarioError naming the key)."""
    import re
    names = [EGO]
    for k, opponent in enumerate(spec['opponents']):
        where = f"{path}: key 'opponents[{k}]'"
        if not isinstance(opponent, dict):
            raise ScenarioError(f'{where} must be a mapping (name, controller, ...)')
        unknown = sorted(set(opponent) - set(OPPONENT_KEYS))
        missing = sorted({'name', 'controller'} - set(opponent))
        if unknown or missing:
            raise ScenarioError(f'{where}: unknown key(s) {unknown}, missing key(s) {missing}')
        for key, kind in OPPONENT_KEYS.items():
            if key in opponent and (not isinstance(opponent[key], kind) or
                                    isinstance(opponent[key], bool)):
                raise ScenarioError(f"{where}: '{key}' = {opponent[key]!r} has the wrong type")
        name = opponent['name']
        if not re.match(r'[A-Za-z][A-Za-z0-9_]*$', name) or name in names:
            raise ScenarioError(f'{where}: name {name!r} must be a ROS name (a letter, then '
                                f'letters, digits and _) other than {names}')
        names.append(name)
        command = opponent['controller'].get('command')
        if not (isinstance(command, list) and command and all(isinstance(c, str)
                                                              for c in command)):
            raise ScenarioError(f"{where}: 'controller.command' must be a list of strings")
        try:
            vehicle_path(opponent.get('vehicle', spec['vehicle']))
        except ConfigError as error:
            raise ScenarioError(f"{where}: 'vehicle': {error}") from None


def car_names(spec: Dict[str, Any]) -> List[str]:
    """Return the simulator's car names: [''] alone, else the ego's and its opponents'."""
    if not spec['opponents']:
        return ['']
    return [EGO] + [o['name'] for o in spec['opponents']]


def car_starts(spec: Dict[str, Any], path) -> List[tuple]:
    """
    Return each car's start (x, y, yaw): the path's start, each opponent ahead on it.

    The scenario's car starts at initial_state's pose if it has one; started on
    the equilibrium, it heads so that it moves along the path (yaw = the
    path's heading less the sideslip).
    """
    from ..world.stages import pose_behind
    start_x, start_y = path.points[0]
    heading = path.locate(start_x, start_y).heading_rad
    state = spec['initial_state']
    if 'x_m' in state:
        first = (float(state['x_m']), float(state['y_m']), float(state['yaw_rad']))
    elif state.get('equilibrium'):
        first = (float(start_x), float(start_y), heading - drift_target(spec).sideslip_rad)
    else:
        first = (float(start_x), float(start_y), heading)
    starts = [first]
    ahead = 0.0
    for opponent in spec['opponents']:
        ahead += float(opponent.get('start_ahead_m', 2.0))
        starts.append(pose_behind(path.points, -ahead))
    return starts


def opponent_config(spec: Dict[str, Any], opponent: Dict[str, Any]):
    """Return an opponent's vehicle (its own, else the scenario's without the overrides)."""
    from ..physics import load_vehicle
    return load_vehicle(vehicle_path(opponent.get('vehicle', spec['vehicle'])))


def start_velocities(spec: Dict[str, Any]) -> Tuple[float, float, float]:
    """Return the scenario's car's starting forward and lateral speed [m/s], yaw rate [rad/s]."""
    state = spec['initial_state']
    if state.get('equilibrium'):
        e = drift_target(spec)
        return (e.speed_m_s * math.cos(e.sideslip_rad), e.speed_m_s * math.sin(e.sideslip_rad),
                e.yaw_rate_rad_s)
    return (float(spec['initial_speed_m_s']), float(state.get('lateral_speed_m_s', 0.0)),
            float(state.get('yaw_rate_rad_s', 0.0)))


def _check_initial_state(spec: Dict[str, Any], path: str) -> None:
    """Check initial_state (ScenarioError naming the key)."""
    state = spec['initial_state']
    unknown = sorted(set(state) - set(INITIAL_STATE_KEYS))
    if unknown:
        raise ScenarioError(f"{path}: key 'initial_state': unknown key(s) {unknown}; known: "
                            f"{', '.join(INITIAL_STATE_KEYS)}")
    pose = [k for k in ('x_m', 'y_m', 'yaw_rad') if k in state]
    if pose and len(pose) < 3:
        raise ScenarioError(f"{path}: key 'initial_state' gives {', '.join(pose)}: a pose is "
                            'x_m, y_m and yaw_rad, all three')
    limits = {'x_m': 1.0e6, 'y_m': 1.0e6, 'yaw_rad': 10.0,
              'lateral_speed_m_s': INITIAL_SPEED_LIMIT_M_S, 'yaw_rate_rad_s': 10.0}
    for key, limit in limits.items():
        value = state.get(key, 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not abs(value) <= limit:
            raise ScenarioError(f"{path}: key 'initial_state.{key}' = {value!r} must be a "
                                f'number in [-{limit:g}, {limit:g}]')
    moving = [k for k in ('lateral_speed_m_s', 'yaw_rate_rad_s', 'equilibrium') if state.get(k)]
    if moving and spec['opponents']:
        raise ScenarioError(f"{path}: key 'initial_state.{moving[0]}': a scenario with "
                            'opponents starts every car at initial_speed_m_s only')
    on_equilibrium = state.get('equilibrium', False)
    if not isinstance(on_equilibrium, bool):
        raise ScenarioError(f"{path}: key 'initial_state.equilibrium' = {on_equilibrium!r} "
                            'must be true or false')
    if on_equilibrium:
        given = [k for k in ('lateral_speed_m_s', 'yaw_rate_rad_s') if k in state] + (
            ['initial_speed_m_s'] if spec['initial_speed_m_s'] else [])
        if not spec['equilibrium'] or given:
            raise ScenarioError(
                f"{path}: key 'initial_state.equilibrium' starts the car on the scenario's "
                "'equilibrium' (its velocities): it needs that key, and no "
                f"{', '.join(given) or 'other velocities'}")
        try:
            drift_target(spec)
        except ValueError as error:
            raise ScenarioError(f"{path}: key 'initial_state.equilibrium': the car's "
                                f'equilibrium cannot be found: {error}') from None


def _check_equilibrium(spec: Dict[str, Any], path: str) -> None:
    """Check the `equilibrium` target (ScenarioError naming the key)."""
    target = spec['equilibrium']
    needed = [m for m in spec['thresholds'] if m in TARGET_METRICS]
    if not target:
        if needed:
            raise ScenarioError(f"{path}: thresholds {needed} need the key 'equilibrium' "
                                '(radius_m, sideslip_deg, surface: the target they measure '
                                'from)')
        return
    if spec['metrics'] != 'drift':
        raise ScenarioError(f"{path}: key 'equilibrium' goes with metrics: drift")
    unknown = sorted(set(target) - set(EQUILIBRIUM_KEYS))
    missing = sorted({'radius_m', 'sideslip_deg', 'surface'} - set(target))
    if unknown or missing:
        raise ScenarioError(f"{path}: key 'equilibrium': unknown key(s) {unknown}, missing "
                            f'key(s) {missing}')
    for key, kind in EQUILIBRIUM_KEYS.items():
        if key in target and (not isinstance(target[key], kind) or
                              isinstance(target[key], bool)):
            raise ScenarioError(f"{path}: key 'equilibrium.{key}' = {target[key]!r} has the "
                                'wrong type')
    if target['surface'] not in SURFACE_GRIP:
        raise ScenarioError(f"{path}: key 'equilibrium.surface' must be one of "
                            f'{sorted(SURFACE_GRIP)}')


def drift_target(spec: Dict[str, Any]):
    """Return the Equilibrium a scenario's drift metrics measure from (its car, overrides)."""
    target = spec['equilibrium']
    mode = 'driver' if spec['command_mode'] == 'driver' else 'torque'
    return _solved_target(spec['vehicle'], json.dumps(vehicle_overrides(spec), sort_keys=True),
                          target['surface'], float(target['radius_m']),
                          float(target['sideslip_deg']), mode, target.get('gear'))


@functools.lru_cache(maxsize=16)
def _solved_target(vehicle: str, overrides: str, surface: str, radius_m: float,
                   sideslip_deg: float, mode: str, gear):
    """Solve an equilibrium target once per process (a campaign's runs share them)."""
    from ..physics import load_vehicle, Surface, Vehicle
    from ..physics.equilibria import SteadyState
    config = load_vehicle(vehicle_path(vehicle)).with_overrides(json.loads(overrides))
    solver = SteadyState(Vehicle(config, Surface.uniform(surface)), mode, gear)
    return solver.solve(math.radians(sideslip_deg), radius_m=radius_m)


def _check_sensors(spec: Dict[str, Any], path: str) -> None:
    """Check the keys sensors, seed and actuation (ScenarioError naming the key)."""
    from ..sensors import SensorError
    try:
        _checked_profile(spec['sensors'], json.dumps(spec['sensor_overrides'], sort_keys=True))
    except SensorError as error:
        keys = "s 'sensors', 'sensor_overrides'" if spec['sensor_overrides'] else " 'sensors'"
        raise ScenarioError(f'{path}: key{keys}: {error}') from None
    seed = spec['seed']
    if seed != 'random' and not (isinstance(seed, int) and 0 <= seed <= MAX_SEED):
        raise ScenarioError(f"{path}: key 'seed' = {seed!r} must be an integer in "
                            f'[0, {MAX_SEED}] or random')
    config = _vehicle_base(spec)
    try:
        actuation = actuation_overrides(spec)
        config = config.with_overrides(actuation) if actuation else config
    except ConfigError as error:
        raise ScenarioError(f"{path}: key 'actuation': {error}") from None
    try:
        if spec['vehicle_overrides']:
            config.with_overrides(spec['vehicle_overrides'])
    except ConfigError as error:
        raise ScenarioError(f"{path}: key 'vehicle_overrides': {error}") from None


@functools.lru_cache(maxsize=64)
def _checked_profile(sensors: str, overrides: str) -> None:
    """Load a sensor profile with overrides (JSON) once per process: SensorError if it fails."""
    from ..sensors import load_profile
    load_profile(sensors, json.loads(overrides))


def actuation_overrides(spec: Dict[str, Any]) -> Dict[str, Any]:
    """Return the scenario's actuation section as dotted vehicle keys (actuation.steer...)."""
    flat = {}
    for actuator, keys in spec['actuation'].items():
        if not isinstance(keys, dict):
            raise ConfigError(f"'actuation.{actuator}' must be a mapping of keys")
        flat.update({f'actuation.{actuator}.{key}': value for key, value in keys.items()})
    return flat


def vehicle_overrides(spec: Dict[str, Any]) -> Dict[str, Any]:
    """Return every dotted vehicle-file key the scenario sets: vehicle_overrides, actuation."""
    return {**spec['vehicle_overrides'], **actuation_overrides(spec)}


def vehicle_config(spec: Dict[str, Any]):
    """Return the scenario's vehicle with its overrides (ConfigError naming a bad key)."""
    return _vehicle_base(spec).with_overrides(vehicle_overrides(spec))


def _vehicle_base(spec: Dict[str, Any]):
    """Return the scenario's vehicle file's config as read (ConfigError naming the file)."""
    path = vehicle_path(spec['vehicle'])
    try:
        version = os.stat(path).st_mtime_ns
    except OSError:
        version = None      # load_vehicle says what is wrong with the path
    return _vehicle_file(path, version)


@functools.lru_cache(maxsize=16)
def _vehicle_file(path: str, version: Optional[int]):
    """Return a vehicle file's config, read once per version (callers take copies)."""
    from ..physics import load_vehicle
    return load_vehicle(path)


def sensor_file(spec: Dict[str, Any], folder: str) -> str:
    """Return the sensor profile the simulator loads: the scenario's, or one with its overrides."""
    from ..sensors.profiles import profile_path, profile_tree
    if not spec['sensor_overrides']:
        return spec['sensors']
    tree = profile_tree(profile_path(spec['sensors']), spec['sensor_overrides'])
    base = os.path.splitext(os.path.basename(spec['sensors']))[0]
    path = os.path.join(folder, f'{base}_with_overrides.yaml')     # the name the node logs
    with open(path, 'w', encoding='utf-8') as out:
        yaml.safe_dump(tree, out, sort_keys=False)
    return path


def vehicle_file(spec: Dict[str, Any], folder: str) -> str:
    """Return the vehicle file the simulator loads: the preset's, or one with the overrides."""
    source = vehicle_path(spec['vehicle'])
    overrides = vehicle_overrides(spec)
    if not overrides:
        return source
    with open(source, encoding='utf-8') as stream:
        tree = yaml.safe_load(stream)
    for key, value in overrides.items():
        *parents, leaf = key.split('.')
        branch = tree
        for parent in parents:
            branch = branch.setdefault(parent, {})
        branch[leaf] = value
    for new, old in STEER_ALIASES.items():     # the older name of a setting given anew
        if new in overrides and old not in overrides:
            tree.get('steering', {}).pop(old.split('.')[1], None)
    path = os.path.join(folder, 'vehicle.yaml')
    with open(path, 'w', encoding='utf-8') as out:
        out.write(f"# {spec['vehicle']} with the scenario's overrides (written by the runner)\n")
        yaml.safe_dump(tree, out, sort_keys=False)
    return path


def draw_seed(spec: Dict[str, Any]) -> int:
    """Return the scenario's seed; for `random`, one drawn now (to be reported)."""
    import secrets
    return secrets.randbelow(MAX_SEED + 1) if spec['seed'] == 'random' else spec['seed']


def module_of(command: Sequence[str]) -> Optional[str]:
    """Return the module a controller command runs (`python -m MODULE ...`), or None."""
    command = list(command)
    if len(command) >= 3 and command[1] == '-m' and command[0].rsplit('/', 1)[-1].startswith(
            'python'):
        return command[2]
    return None


def controller_command(controller: Dict[str, Any], namespace: str = '') -> List[str]:
    """Return a controller's command line (namespace: its car's, one of several)."""
    command = list(controller['command'])
    clockless = module_of(command) in CLOCKLESS_CONTROLLERS
    if command[0] == 'python':
        command[0] = sys.executable
    command += ['--ros-args', '-r', f'__node:={CONTROLLER_NODE}']
    if namespace:
        command += ['-r', f'__ns:=/{namespace}']
    if not clockless:
        command += ['-p', 'use_sim_time:=true']
    for name, value in controller.get('params', {}).items():
        command += ['-p', f'{name}:={value}']
    return command


def outputs(spec: Dict[str, Any]) -> List[str]:
    """Return the command topics the controller answers on."""
    default = MODE_OUTPUTS[spec['command_mode']]
    outputs = spec['controller'].get('outputs', default)
    if not set(outputs) <= set(COMMAND_TOPICS) or not outputs:
        raise ScenarioError(f'controller.outputs must be a subset of {list(COMMAND_TOPICS)}')
    return outputs


def first_answered_ns(spec: Dict[str, Any], period_ns: int) -> int:
    """
    Return the stamp of the first state the controller must have answered to pass.

    The controller answers odometry; late odometry (a sensor latency) comes
    first at the publishing instant at or after its delay, so simulated time
    runs to there before the controller's first answer is needed.
    """
    from ..sensors import load_profile
    odometry = load_profile(spec['sensors'], spec['sensor_overrides']).channels.get('odometry')
    delay_ns = round(odometry.delay_s * 1e9) if odometry is not None else 0
    return -(-delay_ns // period_ns) * period_ns


MADE_KEYS = {'radius_m': True, 'surface': True, 'width_m': False}
"""A made stage's keys (a circle's or a figure eight's), and whether each is required."""
MADE_FORMS = ('{circle: {radius_m: R, surface: S, width_m: W}} or {figure_eight: {radius_m: R, '
              'surface: S, width_m: W}} (width optional)')


def _made_stage(given: Dict[str, Any], path: str) -> str:
    """Return the surface map file of the stage `stage: {circle | figure_eight: ...}` asks for."""
    shape = next(iter(given)) if len(given) == 1 else None
    keys = given.get(shape)
    if shape not in MADE_SHAPES or not isinstance(keys, dict):
        raise ScenarioError(f"{path}: key 'stage' as a mapping is {MADE_FORMS}, not {given!r}")
    unknown = sorted(set(keys) - set(MADE_KEYS))
    missing = sorted(k for k, needed in MADE_KEYS.items() if needed and k not in keys)
    if unknown or missing:
        raise ScenarioError(f"{path}: key 'stage.{shape}': unknown key(s) {unknown}, missing "
                            f'key(s) {missing}')
    try:
        stage = made_stage(shape, keys['radius_m'], keys['surface'], keys.get('width_m'))
    except ValueError as error:
        raise ScenarioError(f"{path}: key 'stage.{error}") from None
    return made_stage_file(stage)


def stage_path_file(stage: str) -> str:
    """Return a stage's reference path CSV: a shipped one's, or the one beside a made map."""
    if stage in STAGES:
        return config_file(f'stages/{stage}_path.csv')
    return os.path.splitext(stage)[0] + '_path.csv'


def stage_label(stage: str) -> str:
    """Return a stage's name for reports (a made circle's, not its file's path)."""
    made = stage_named(stage)
    return made.name if made is not None else stage


@functools.lru_cache(maxsize=8)
def stage_surface(stage: str):
    """Return surface_from(stage), loaded once per process (nothing changes a surface)."""
    return surface_from(stage)


@functools.lru_cache(maxsize=8)
def stage_walls(stage: str):
    """Return the stage's occupancy map (the simulator's `map` default), loaded once, or None."""
    return walls_from('', stage_surface(stage))
