"""
Closed-loop scenarios: simulator and controller in step, metrics, pass or fail.

    ./rally scenario NAME|FILE.yaml [--output DIR] [--record BAG_DIR]

A scenario names the vehicle, the stage, the controller (a command line: one
of ours or a user's executable), the initial speed, the duration and pass
thresholds (see config/scenarios/path_follow.yaml); optionally the sensor
profile (`sensors`, default ideal), the `seed` of its errors (default 0;
`random`: drawn, printed and reported) and `actuation` overrides of the
vehicle's actuators (see config/scenarios/path_follow_typical.yaml). The
controller sees the sensors; the metrics are computed on the ground truth.
The runner starts the simulator in synchronous mode (pacing fast,
sync_controllers naming the controller) and the controller with use_sim_time
(ours, which read no clock, without it): every control period the simulator
publishes its state and advances only when the controller has answered it
with commands stamped with the state's time. Nothing sits between the two;
the runner only watches the states (and records the bag when recording). So
the same scenario gives the same result every time. It writes report.json
and report.png, prints a summary, and exits 1 if a threshold fails (2: a
bad scenario file; 130 or 143: stopped by Ctrl-C or SIGTERM, after stopping
the simulator and the controller, with no verdict).
"""

import argparse
import functools
import json
import math
import os
import struct
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
import numpy as np
from rally_sim_msgs.msg import DriverCommand, WheelSlip, WheelTorqueCommand
import yaml

from .control.drift_transition import REGAIN_DEG
from .control.path import ClosedPath
from .entry import Stopped, StopRequest
from .physics import ConfigError, SURFACE_GRIP
from .physics.config import STEER_ALIASES
from .processes import quick_discovery, start_logged, stop_all
from .resources import config_file, read_shipped, surface_from, vehicle_path
from .ros.serialized import byte_order, FieldReader
from .stages import read_path, STAGES

OUTPUTS = {'ackermann_cmd': AckermannDriveStamped, 'wheel_torque_cmd': WheelTorqueCommand,
           'driver_cmd': DriverCommand}
MODE_OUTPUTS = {'speed': ['ackermann_cmd'], 'torque': ['ackermann_cmd', 'wheel_torque_cmd'],
                'driver': ['ackermann_cmd', 'driver_cmd']}
"""The command topics a controller answers on in each command mode (by default)."""
KEYS = {'name': str, 'vehicle': str, 'stage': str, 'command_mode': str, 'controller': dict,
        'initial_speed_m_s': (int, float), 'duration_s': (int, float),
        'control_period_s': (int, float), 'stop_after_laps': int, 'metrics': str,
        'settle_s': (int, float), 'thresholds': dict}
OPTIONAL = {'sensors': (str, 'ideal'), 'seed': ((int, str), 0), 'actuation': (dict, {}),
            'vehicle_overrides': (dict, {}), 'sensor_overrides': (dict, {}),
            'equilibrium': (dict, {})}
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
}
TARGET_METRICS = ('sideslip_error_rms_deg', 'yaw_rate_error_rms_rad_s', 'speed_error_rms_m_s')
"""Drift metrics against the scenario's `equilibrium` (the car's own, solved): only with one."""
EQUILIBRIUM_KEYS = {'radius_m': (int, float), 'sideslip_deg': (int, float), 'surface': str,
                    'gear': int}
"""An equilibrium target's keys (gear: driver mode's held gear, optional)."""
DRIFT_SIDESLIP_DEG = 10.0
"""A car with more sideslip than this counts as drifting."""
START_M = 0.5
"""A turn flip this close ahead of the run's start is where the car starts, not a transition."""
REGAIN_WITHIN_S = 2.0
"""A crossing this close to the run's end without the drift regained is not judged."""
ANSWER_TIMEOUT_S = 10.0
"""Wall seconds the runner waits for the answer to one state."""
START_TIMEOUT_S = 60.0
"""Wall seconds for the simulator's first state and the controller's first answer
(start-up, on a loaded machine); also the simulator's sync_timeout_s."""
QUEUE_DEPTH = 100000
"""The simulator runs ahead of the runner; no state may be dropped from the queue."""
PHYSICS_RATE_HZ = 1000.0
LAP_CHECK_EVERY = 10
"""While running, laps are counted on every this-many states (the exact end is found after)."""


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
    kinds = {**KEYS, **{key: kind for key, (kind, _) in OPTIONAL.items()}}
    for key, kind in kinds.items():
        if not isinstance(spec[key], kind) or isinstance(spec[key], bool):
            raise ScenarioError(f"{path}: key '{key}' = {spec[key]!r} has the wrong type")
    if spec['stage'] not in STAGES:
        raise ScenarioError(f"{path}: key 'stage' must be one of {sorted(STAGES)}")
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
    for metric, bound in spec['thresholds'].items():
        if metric not in known or not isinstance(bound, dict) or \
                not set(bound) <= {'min', 'max'} or not bound:
            raise ScenarioError(f"{path}: threshold '{metric}' must be one of {known} "
                                'with min and/or max')
    _check_equilibrium(spec, path)
    spec['file'] = path
    return spec


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
    from .physics import load_vehicle, Surface, Vehicle
    from .physics.equilibria import SteadyState
    config = load_vehicle(vehicle_path(vehicle)).with_overrides(json.loads(overrides))
    solver = SteadyState(Vehicle(config, Surface.uniform(surface)), mode, gear)
    return solver.solve(math.radians(sideslip_deg), radius_m=radius_m)


def _check_sensors(spec: Dict[str, Any], path: str) -> None:
    """Check the keys sensors, seed and actuation (ScenarioError naming the key)."""
    from .sensors import load_profile, SensorError
    try:
        load_profile(spec['sensors'], spec['sensor_overrides'])
    except SensorError as error:
        keys = "s 'sensors', 'sensor_overrides'" if spec['sensor_overrides'] else " 'sensors'"
        raise ScenarioError(f'{path}: key{keys}: {error}') from None
    seed = spec['seed']
    if seed != 'random' and not (isinstance(seed, int) and 0 <= seed <= MAX_SEED):
        raise ScenarioError(f"{path}: key 'seed' = {seed!r} must be an integer in "
                            f'[0, {MAX_SEED}] or random')
    from .physics import load_vehicle
    config = load_vehicle(vehicle_path(spec['vehicle']))
    try:
        config = config.with_overrides(actuation_overrides(spec))
    except ConfigError as error:
        raise ScenarioError(f"{path}: key 'actuation': {error}") from None
    try:
        config.with_overrides(spec['vehicle_overrides'])
    except ConfigError as error:
        raise ScenarioError(f"{path}: key 'vehicle_overrides': {error}") from None


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
    from .physics import load_vehicle
    return load_vehicle(vehicle_path(spec['vehicle'])).with_overrides(vehicle_overrides(spec))


def sensor_file(spec: Dict[str, Any], folder: str) -> str:
    """Return the sensor profile the simulator loads: the scenario's, or one with its overrides."""
    from .sensors.profiles import profile_path, profile_tree
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


SIMULATOR_NODE = 'rally_sim'
CONTROLLER_NODE = 'scenario_controller'
"""The runner names the controller's node so, whatever its own name, the simulator knows
whom to wait for."""
CLOCKLESS_CONTROLLERS = ('rally_sim.ros.path_follower', 'rally_sim.ros.drift_controller',
                         'rally_sim.ros.drift_lqr_controller', 'rally_sim.ros.mppi_controller')
"""Our example controllers, which read no clock (each answer carries its state's stamp):
started without use_sim_time, as /clock would cost each control period a message in the
simulator and a callback in the controller, and change nothing."""
RUNNER_NODE = 'scenario_runner'
"""The runner's node: an observer of the run (sync_observers), the recorder when recording."""


def module_of(command: Sequence[str]) -> Optional[str]:
    """Return the module a controller command runs (`python -m MODULE ...`), or None."""
    command = list(command)
    if len(command) >= 3 and command[1] == '-m' and command[0].rsplit('/', 1)[-1].startswith(
            'python'):
        return command[2]
    return None


def _controller_command(spec: Dict[str, Any]) -> List[str]:
    command = list(spec['controller']['command'])
    clockless = module_of(command) in CLOCKLESS_CONTROLLERS
    if command[0] == 'python':
        command[0] = sys.executable
    command += ['--ros-args', '-r', f'__node:={CONTROLLER_NODE}']
    if not clockless:
        command += ['-p', 'use_sim_time:=true']
    for name, value in spec['controller'].get('params', {}).items():
        command += ['-p', f'{name}:={value}']
    return command


def _outputs(spec: Dict[str, Any]) -> List[str]:
    """Return the command topics the controller answers on."""
    default = MODE_OUTPUTS[spec['command_mode']]
    outputs = spec['controller'].get('outputs', default)
    if not set(outputs) <= set(OUTPUTS) or not outputs:
        raise ScenarioError(f'controller.outputs must be a subset of {list(OUTPUTS)}')
    return outputs


class Observer:
    """
    The runner's node: watches the states, records; never steps anything.

    States are kept serialized, keyed by their stamp, and decoded when read:
    the runner shares the machine with the simulator and the controller.
    """

    def __init__(self, spec: Dict[str, Any], stop: StopRequest, record: str = None,
                 slip: bool = True):
        """
        Create the node and its subscriptions (deep queues: the simulator runs ahead).

        slip: watch wheel_slip too, for the largest tyre slip angle of each state
        (report.png plots it; no metric reads it): without, the simulator builds
        and sends it only if the controller reads it, and the runner takes one
        message a state fewer.
        """
        import rclpy
        from rclpy.parameter import Parameter
        from rclpy.experimental import EventsExecutor
        self.rclpy = rclpy
        self.stop = stop
        # Simulated time only for the bag's log times: /clock is one more callback.
        self.node = rclpy.create_node(RUNNER_NODE, parameter_overrides=[
            Parameter('use_sim_time', value=bool(record))])
        self.executor = EventsExecutor()
        self.executor.add_node(self.node)
        self.outputs = _outputs(spec)
        self.odom: Dict[int, bytes] = {}      # the ground truth: what the metrics judge
        self.slip: Dict[int, bytes] = {}
        self.odom_fields = FieldReader(Odometry, ODOMETRY_FIELDS)
        self.slip_fields = FieldReader(WheelSlip, [f'slip_angle.{i}' for i in range(4)])
        self.watch_slip = slip
        for kind, topic, store in ((Odometry, 'ground_truth/odom', self.odom),
                                   (WheelSlip, 'wheel_slip', self.slip))[:2 if slip else 1]:
            self.node.create_subscription(kind, topic, lambda data, store=store: store.__setitem__(
                _cdr_stamp(data), data), QUEUE_DEPTH, raw=True)
        self.recorder = None
        if record:
            from .recording import BagRecorder
            from .demo_driver import RECORDED_TOPICS
            self.recorder = BagRecorder(self.node, record, RECORDED_TOPICS, {
                'rally_sim.seed': str(spec['seed_in_use']), 'rally_sim.sensors': spec['sensors'],
                'rally_sim.sensor_overrides': json.dumps(spec['sensor_overrides']),
                'rally_sim.scenario': spec['name']})

    def spin_until(self, done, timeout_s: float, processes) -> bool:
        """Spin until done() or timeout; raise naming a process that exits, or on a stop."""
        deadline = time.monotonic() + timeout_s
        while not done():
            if self.stop.requested:
                raise Stopped(self.stop.number)
            if time.monotonic() > deadline:
                return False
            for process in processes:
                if process.poll() is not None:
                    if self.stop.requested:     # the runner is stopping
                        raise Stopped(self.stop.number)
                    raise RuntimeError(f'{" ".join(process.args[:3])} exited with '
                                       f'{process.returncode}')
            self.executor.spin_once(timeout_sec=0.01)
        return True

    def recorder_hears(self, topics: List[str]) -> bool:
        """Return whether the recorder (if any) is matched to a publisher on each topic."""
        if self.recorder is None:
            return True
        wanted = {self.node.resolve_topic_name(t) for t in topics}
        heard = {s.topic_name for s in self.node.subscriptions
                 if s.topic_name in wanted and s.get_publisher_count() > 0}
        return heard == wanted

    def unpause(self, processes) -> None:
        """Let the simulator advance (it starts held: sync_paused)."""
        from rclpy.parameter import Parameter
        from rclpy.parameter_client import AsyncParameterClient
        client = AsyncParameterClient(self.node, SIMULATOR_NODE)
        if not client.wait_for_services(timeout_sec=START_TIMEOUT_S):
            raise RuntimeError('the simulator offers no parameter services')
        future = client.set_parameters([Parameter('sync_paused', value=False)])
        # A later state shows it too: a service drops its answer while it has not yet
        # matched the caller's response reader (ROS 2 services are two topics), and the
        # simulator may have taken the parameter all the same.
        if not self.spin_until(lambda: future.done() or len(self.odom) > 1, START_TIMEOUT_S,
                               processes):
            raise RuntimeError('the simulator did not take sync_paused:=false')

    def has_state(self, stamp: int) -> bool:
        """Return whether the state at `stamp` arrived (odometry, and wheel slip if watched)."""
        return stamp in self.odom and (stamp in self.slip or not self.watch_slip)

    def position(self, stamp: int) -> List[float]:
        """Return the true x, y [m] at `stamp`."""
        return self.odom_fields.read(self.odom[stamp])[:2]

    def state(self, stamp: int) -> tuple:
        """Return the state at `stamp` as the metrics read it (a row of STATE_COLUMNS)."""
        x, y, qx, qy, qz, qw, vx, vy, yaw_rate = self.odom_fields.read(self.odom[stamp])
        slip = (float(np.max(np.abs(self.slip_fields.read(self.slip[stamp]))))
                if self.watch_slip else math.nan)
        return (stamp / 1e9, x, y, quaternion_yaw(qx, qy, qz, qw), vx, vy, yaw_rate, slip)


def _cdr_stamp(data: bytes) -> int:
    """Return the header stamp [ns] of a serialized stamped message (after the CDR header)."""
    sec, nanosec = struct.unpack_from(byte_order(data) + 'iI', data, 4)
    return sec * 1_000_000_000 + nanosec


class LapCounter:
    """
    Distance driven along a closed path, from the positions seen.

    Any spacing under half a lap will do: progress adds up the same on fewer
    positions.
    """

    def __init__(self, spec: Dict[str, Any], path: ClosedPath, margin_m: float = 0.0):
        """Count towards the scenario's stop_after_laps laps, plus margin_m."""
        self.path = path
        self.goal_m = spec['stop_after_laps'] * path.length_m + margin_m
        self.wanted = spec['stop_after_laps'] > 0
        self.progress_m, self.driven_m = None, 0.0

    def add(self, progress_m: float) -> bool:
        """Take the next located progress [m]; return whether the laps are done."""
        if self.progress_m is not None:
            self.driven_m += self.path.progress_step(self.progress_m, progress_m)
        self.progress_m = progress_m
        return self.wanted and self.driven_m >= self.goal_m


def lap_end(spec: Dict[str, Any], path: ClosedPath, states: Dict[str, np.ndarray]) -> int:
    """Return the number of states up to the one where the laps are done (all if never)."""
    laps = LapCounter(spec, path)
    for index, progress_m in enumerate(path.locate_many(states['x'], states['y'])[0]):
        if laps.add(progress_m):
            return index + 1
    return len(states['t'])


def state_table(rows) -> Dict[str, np.ndarray]:
    """
    Return the columns of state rows (Observer.state), as the metrics read them.

    t [s], x, y [m], yaw [rad] (of the pose's quaternion), vx, vy [m/s] and
    yaw_rate [rad/s] (body frame), max_slip_angle_rad (the largest tyre's).
    """
    rows = list(rows)
    columns = list(zip(*rows)) if rows else [()] * len(STATE_COLUMNS)
    return {name: np.array(values, dtype=float) for name, values in zip(STATE_COLUMNS,
                                                                        columns)}


STATE_COLUMNS = ('t', 'x', 'y', 'yaw', 'vx', 'vy', 'yaw_rate', 'max_slip_angle_rad')
ODOMETRY_FIELDS = ['pose.pose.position.x', 'pose.pose.position.y'] + [
    f'pose.pose.orientation.{axis}' for axis in 'xyzw'] + [
    'twist.twist.linear.x', 'twist.twist.linear.y', 'twist.twist.angular.z']
"""The fields of the true odometry a state row is made of."""


def quaternion_yaw(x: float, y: float, z: float, w: float) -> float:
    """Return the yaw [rad] of a quaternion, as the metrics read a pose's heading."""
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def cut(states: Dict[str, np.ndarray], count: int) -> Dict[str, np.ndarray]:
    """Return the first `count` states."""
    return {name: values[:count] for name, values in states.items()}


def _simulator_says(folder: str) -> str:
    """Return the simulator's last synchronous-mode complaint from its log, if any."""
    try:
        with open(os.path.join(folder, 'simulator.log'), encoding='utf-8') as log:
            lines = [line.split(': synchronous mode: ', 1)[1].strip() for line in log
                     if ': synchronous mode: ' in line]
    except OSError:
        return ''
    return f'; the simulator says: {lines[-1]}' if lines else ''


def _simulator_command(spec: Dict[str, Any], path: ClosedPath, folder: str,
                       record: bool = False) -> List[str]:
    """Return the simulator's command line (no markers nor trail; the stage for a recording)."""
    start_x, start_y = path.points[0]
    return [sys.executable, '-m', 'rally_sim.ros.node', '--ros-args',
            '-p', 'pacing:=fast', '-p', f'physics_rate_hz:={PHYSICS_RATE_HZ}',
            '-p', f'sync_controllers:=[{CONTROLLER_NODE}]', '-p', 'sync_paused:=true',
            '-p', f'sync_observers:=[{RUNNER_NODE}]',
            '-p', f'sync_timeout_s:={START_TIMEOUT_S}',
            '-p', 'shutdown_flush_s:=0.0',      # the runner has every state it needs
            '-p', f'vehicle:={vehicle_file(spec, folder)}',
            '-p', f'sensors:={sensor_file(spec, folder)}', '-p', f"seed:={spec['seed_in_use']}",
            '-p', f"surface:={spec['stage']}", '-p', f"command_mode:={spec['command_mode']}",
            '-p', f'publish_rate_hz:={1.0 / spec["control_period_s"]}',
            '-p', 'marker_rate_hz:=0.0',
            '-p', f'initial_x:={float(start_x)}', '-p', f'initial_y:={float(start_y)}',
            '-p', f'initial_yaw:={path.locate(start_x, start_y).heading_rad}',
            '-p', f"initial_speed:={float(spec['initial_speed_m_s'])}",
            '-p', f'publish_stage:={str(record).lower()}', '-p', 'trail_length_s:=0.0']


def run(spec: Dict[str, Any], folder: str, stop: StopRequest,
        record: str = None, start: Callable = start_logged, slip: bool = True
        ) -> Dict[str, Any]:
    """
    Run a scenario on the simulator's synchronous mode; return the samples and timing.

    A signal (read from `stop`) raises Stopped once the processes are stopped.
    start(command, log_path): starts a process (a campaign worker's warm start).
    slip: watch each state's tyre slip angles (max_slip_angle_rad; NaN without).
    """
    import rclpy
    from rclpy.signals import SignalHandlerOptions
    stop.hold()
    path = ClosedPath(read_path(config_file(f"stages/{spec['stage']}_path.csv")))
    period_ns = round(spec['control_period_s'] * 1e9)
    processes, observer = [], None
    quick_discovery(os.environ)     # the runner's participant and the two it starts
    try:
        rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
        observer = Observer(spec, stop, record, slip)
        # Both start at once: simulated time holds at 0 until the runner has the
        # first state (the simulator waits for its observer) and unpauses it.
        processes.append(start(_simulator_command(spec, path, folder, bool(record)),
                               os.path.join(folder, 'simulator.log')))
        processes.append(start(_controller_command(spec),
                               os.path.join(folder, 'controller.log')))
        wall_start = time.monotonic()
        if not observer.spin_until(lambda: observer.has_state(0),
                                   START_TIMEOUT_S, processes):
            raise RuntimeError(f'no state from the simulator within {START_TIMEOUT_S:g} s')
        # The simulator holds at t = 0 until the recorder hears the controller, so
        # that the bag has its commands from the first.
        if not observer.spin_until(lambda: observer.recorder_hears(observer.outputs),
                                   START_TIMEOUT_S, processes):
            raise RuntimeError(f'the recorder found no publisher on {observer.outputs} '
                               f'within {START_TIMEOUT_S:g} s')
        observer.unpause(processes)
        stamps = []
        # Laps are counted on every LAP_CHECK_EVERY-th state while running, so the
        # run ends at most that many states after the exact end, cut below; the
        # margin keeps rounding from ending it before.
        laps = LapCounter(spec, path, margin_m=1e-6)
        stamp, answered = 0, wall_start
        first = first_answered_ns(spec, period_ns)
        while True:
            # The next state comes once the controller has answered this one.
            timeout = START_TIMEOUT_S if stamp <= first else ANSWER_TIMEOUT_S
            if not observer.spin_until(lambda: observer.has_state(stamp + period_ns), timeout,
                                       processes):
                raise RuntimeError(f'the controller did not answer the state at '
                                   f'{stamp / 1e9:.3f} s within {timeout:g} s (it must answer '
                                   f'each odometry on {", ".join(observer.outputs)} with the '
                                   "odometry's stamp)" + _simulator_says(folder))
            if stamp == first:
                answered = time.monotonic()     # the loop runs from the first answer
            stamps.append(stamp)
            if stamp >= spec['duration_s'] * 1e9 or (
                    laps.wanted and stamp % (LAP_CHECK_EVERY * period_ns) == 0
                    and laps.add(path.locate(*observer.position(stamp)).progress_m)):
                break
            stamp += period_ns
        wall = time.monotonic() - wall_start
        loop_wall = time.monotonic() - answered
    finally:
        # The runner spins meanwhile: its recorder takes what is still on its way.
        stop_all(processes, while_waiting=None if observer is None else (
            lambda: observer.executor.spin_once(timeout_sec=0.01)))
        if observer is not None:
            if observer.recorder is not None:
                observer.recorder.drain(lambda: observer.executor.spin_once(timeout_sec=0.05))
                observer.recorder.close()
            observer.executor.shutdown()
            observer.node.destroy_node()
        rclpy.try_shutdown()
    states = state_table(observer.state(s) for s in stamps)   # read once the others stopped
    states = cut(states, lap_end(spec, path, states))
    return {'states': states, 'path': path, 'wall_s': wall, 'loop_wall_s': loop_wall}


def first_answered_ns(spec: Dict[str, Any], period_ns: int) -> int:
    """
    Return the stamp of the first state the controller must have answered to pass.

    The controller answers odometry; late odometry (a sensor latency) comes
    first at the publishing instant at or after its delay, so simulated time
    runs to there before the controller's first answer is needed.
    """
    from .sensors import load_profile
    odometry = load_profile(spec['sensors'], spec['sensor_overrides']).channels.get('odometry')
    delay_ns = round(odometry.delay_s * 1e9) if odometry is not None else 0
    return -(-delay_ns // period_ns) * period_ns


@functools.lru_cache(maxsize=8)
def stage_surface(stage: str):
    """Return surface_from(stage), loaded once per process (nothing changes a surface)."""
    return surface_from(stage)


def path_metrics(spec: Dict[str, Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """Return the path-following metrics and their time series (result: path, states)."""
    path, states = result['path'], result['states']
    surface = stage_surface(spec['stage'])
    off_road_grip = SURFACE_GRIP[STAGES[spec['stage']].beside]
    heading, speed = [], []
    laps, completion = LapCounter(spec, path), None
    progress, cross, path_heading = path.locate_many(states['x'], states['y'])
    for t, yaw, vx, vy, progress_m, path_yaw in zip(
            *(states[c] for c in ('t', 'yaw', 'vx', 'vy')), progress, path_heading):
        if laps.add(progress_m) and completion is None:
            completion = float(t)
        heading.append((yaw - path_yaw + math.pi) % (2.0 * math.pi) - math.pi)
        speed.append(math.hypot(vx, vy))
    off = surface.grip_at(states['x'], states['y']) == off_road_grip
    t, cross, heading = states['t'], np.array(cross), np.array(heading)
    dt = np.diff(t, append=t[-1])
    metrics = {
        'cross_track_rms_m': float(np.sqrt(np.mean(cross ** 2))),
        'cross_track_max_m': float(np.max(np.abs(cross))),
        'heading_error_rms_rad': float(np.sqrt(np.mean(heading ** 2))),
        'completion_time_s': completion if completion is not None else math.inf,
        'off_road_time_s': float(np.sum(dt[off])),
        'mean_speed_m_s': float(np.mean(speed)),
    }
    series = {'t': t, 'speed_m_s': np.array(speed),
              'max_slip_angle_rad': states['max_slip_angle_rad'], 'x': states['x'],
              'y': states['y'],
              'curves': {'cross-track error [m]': cross, 'heading error [rad]': heading}}
    return {'metrics': metrics, 'series': series}


def drift_metrics(spec: Dict[str, Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """Return the drift metrics (after settle_s) and their time series (result: path, states)."""
    points, s = result['path'].points, result['states']
    center = points.mean(axis=0)
    radius = float(np.mean(np.hypot(*(points - center).T)))
    beta = np.array([math.degrees(math.atan2(vy, vx)) if abs(vx) > 0.5 else 0.0
                     for vx, vy in zip(s['vx'], s['vy'])])
    radius_error = np.array([math.hypot(x - center[0], y - center[1]) - radius
                             for x, y in zip(s['x'], s['y'])])
    speed = np.array([math.hypot(vx, vy) for vx, vy in zip(s['vx'], s['vy'])])
    t, yaw_rate = s['t'], s['yaw_rate']
    window = t >= spec['settle_s']
    dt = np.diff(t, append=t[-1])
    metrics = {
        'sideslip_mean_deg': float(np.mean(np.abs(beta[window]))),
        'sideslip_std_deg': float(np.std(np.abs(beta[window]))),
        'yaw_rate_mean_rad_s': float(np.mean(yaw_rate[window])),
        'radius_error_rms_m': float(np.sqrt(np.mean(radius_error[window] ** 2))),
        'time_in_drift_s': float(np.sum(dt[window & (np.abs(beta) > DRIFT_SIDESLIP_DEG)])),
        'mean_speed_m_s': float(np.mean(speed[window])),
    }
    series = {'t': t, 'speed_m_s': speed, 'max_slip_angle_rad': s['max_slip_angle_rad'],
              'x': s['x'], 'y': s['y'],
              'curves': {'sideslip [deg / 10]': beta / 10.0, 'yaw rate [rad/s]': yaw_rate,
                         'radius error [m]': radius_error}, 'targets': {}}
    if spec['equilibrium']:
        target = drift_target(spec)
        aimed = (math.degrees(target.sideslip_rad), target.yaw_rate_rad_s, target.speed_m_s)
        for name, values, goal in zip(TARGET_METRICS, (beta, yaw_rate, speed), aimed):
            metrics[name] = float(np.sqrt(np.mean((values[window] - goal) ** 2)))
        series['targets'] = {'sideslip [deg / 10]': aimed[0] / 10.0,
                             'yaw rate [rad/s]': aimed[1], 'speed': aimed[2]}
    return {'metrics': metrics, 'series': series}


def figure_eight_metrics(spec: Dict[str, Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """
    Return the metrics of drifts with transitions (after settle_s) and their time series.

    The lateral error is to the path followed continuously from its start
    (its branches touch at the crossing); a transition is the car passing a
    point where the path's turn changes side after the start, and its regain
    time how long after it |sideslip| reached REGAIN_DEG on the new
    side (negative turning left, REP-103); inf if never.
    """
    path, s = result['path'], result['states']
    t = s['t']
    progress, lateral = path.track(s['x'], s['y'], start_m=0.0)
    beta = np.degrees(np.arctan2(s['vy'], s['vx']))
    speed = np.hypot(s['vx'], s['vy'])
    window = t >= spec['settle_s']
    dt = np.diff(t, append=t[-1])
    regains = []
    for flip_m, side in path.turn_flips():
        laps = np.arange(math.floor((progress[0] + START_M - flip_m) / path.length_m) + 1,
                         math.floor((progress[-1] - flip_m) / path.length_m) + 1)
        for at_m in flip_m + laps * path.length_m:
            k = int(np.argmax(progress >= at_m))
            if t[k] < spec['settle_s']:
                continue
            regained = (t >= t[k]) & (-side * beta >= REGAIN_DEG)
            if regained.any():
                regains.append(float(t[np.argmax(regained)] - t[k]))
            elif t[-1] - t[k] >= REGAIN_WITHIN_S:
                regains.append(math.inf)
    metrics = {
        'lateral_error_rms_m': float(np.sqrt(np.mean(lateral[window] ** 2))),
        'lateral_error_max_m': float(np.max(np.abs(lateral[window]))),
        'transitions': float(len(regains)),
        'regain_max_s': max(regains) if regains else math.inf,
        'sideslip_mean_deg': float(np.mean(np.abs(beta[window]))),
        'time_in_drift_s': float(np.sum(dt[window & (np.abs(beta) > DRIFT_SIDESLIP_DEG)])),
        'mean_speed_m_s': float(np.mean(speed[window])),
    }
    series = {'t': t, 'speed_m_s': speed, 'max_slip_angle_rad': s['max_slip_angle_rad'],
              'x': s['x'], 'y': s['y'], 'targets': {},
              'curves': {'sideslip [deg / 10]': beta / 10.0, 'yaw rate [rad/s]': s['yaw_rate'],
                         'lateral error [m]': lateral}}
    return {'metrics': metrics, 'series': series}


METRIC_FUNCTIONS = {'path': path_metrics, 'drift': drift_metrics,
                    'figure_eight': figure_eight_metrics}
"""Each `metrics` kind's function: (spec, result) -> {'metrics', 'series'}."""


def judge(metrics: Dict[str, float], thresholds: Dict[str, Dict[str, float]]):
    """Return {metric: {value, min/max, passed}} and whether all passed."""
    verdicts = {}
    for metric, bound in thresholds.items():
        value = metrics[metric]
        passed = bool(value >= bound.get('min', -math.inf) and value <= bound.get('max', math.inf))
        verdicts[metric] = {**bound, 'value': value, 'passed': passed}
    return verdicts, all(v['passed'] for v in verdicts.values())


def plot_report(spec, result, series, path_png: str) -> None:
    """Write the path against the reference, coloured by slip, and metrics over time."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from .stage_view import draw_stage
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6.5))
    draw_stage(left, surface_from(spec['stage']))
    reference = np.vstack([result['path'].points, result['path'].points[:1]])
    left.plot(reference[:, 0], reference[:, 1], color='0.6', linewidth=6, alpha=0.5,
              label='reference path')
    dots = left.scatter(series['x'], series['y'], c=np.degrees(series['max_slip_angle_rad']),
                        cmap='plasma', s=4, label='CG path')
    fig.colorbar(dots, ax=left, label='largest tyre slip angle [deg]')
    left.set_aspect('equal', adjustable='datalim')
    left.set_xlabel('x [m]')
    left.set_ylabel('y [m]')
    left.set_title(f"{spec['name']}: {spec['vehicle']} on {spec['stage']}")
    left.legend(loc='upper right', fontsize=8)
    targets = series.get('targets', {})
    for label, values in series['curves'].items():
        line, = right.plot(series['t'], values, label=label)
        if label in targets:       # the equilibrium aimed at, in the curve's colour
            right.axhline(targets[label], color=line.get_color(), linestyle='--', linewidth=1,
                          label=f'{label}: equilibrium')
    right.set_xlabel('simulated time [s]')
    right.grid(True)
    speed = right.twinx()
    speed.plot(series['t'], series['speed_m_s'], color='0.3', linestyle=':', label='speed')
    if 'speed' in targets:
        speed.axhline(targets['speed'], color='0.3', linestyle='--', linewidth=1)
    speed.set_ylabel('speed [m/s]' + (' (dashed: equilibrium)' if 'speed' in targets else ''))
    right.legend(loc='upper left', fontsize=8)
    right.set_title(f"{spec['metrics']} metrics and speed over time")
    fig.tight_layout()
    fig.savefig(path_png, dpi=90)
    plt.close(fig)


def execute(spec: Dict[str, Any], folder: str, stop: StopRequest, record: str = None,
            start: Callable = start_logged, slip: bool = True):
    """
    Run a checked scenario (seed_in_use set) into `folder`; write and return its report.

    Returns (report, the run's result, the metrics' time series).
    RuntimeError: the run failed (its message says how; logs in folder).
    slip: see run() (the metrics do not read it).
    """
    result = run(spec, folder, stop, record, start, slip)
    evaluated = METRIC_FUNCTIONS[spec['metrics']](spec, result)
    verdicts, passed = judge(evaluated['metrics'], spec['thresholds'])
    simulated = evaluated['series']['t'][-1]
    report = {'scenario': spec['name'], 'file': spec['file'], 'vehicle': spec['vehicle'],
              'stage': spec['stage'], 'controller': spec['controller'],
              'sensors': spec['sensors'], 'seed': spec['seed_in_use'],
              'sensor_overrides': spec['sensor_overrides'], 'actuation': spec['actuation'],
              'vehicle_overrides': spec['vehicle_overrides'],
              'simulated_s': simulated, 'wall_s': result['wall_s'],
              'real_time_factor': simulated / result['wall_s'],
              'loop_wall_s': result['loop_wall_s'],
              'loop_real_time_factor': simulated / result['loop_wall_s'],
              'metrics': evaluated['metrics'], 'thresholds': verdicts, 'passed': passed}
    with open(os.path.join(folder, 'report.json'), 'w', encoding='utf-8') as out:
        json.dump(report, out, indent=2, default=str)
    return report, result, evaluated['series']


def main(argv=None, stop: StopRequest = None) -> int:
    """
    Run a scenario; exit 0 when every threshold passes, 1 when one fails, 2 on bad input.

    On Ctrl-C or SIGTERM (`stop`, see rally_sim.entry) the simulator and the
    controller are stopped and Stopped is raised: there is no verdict.
    """
    stop = stop or StopRequest(tool=True)
    parser = argparse.ArgumentParser(prog='./rally scenario', description=__doc__.split('\n\n')[0])
    parser.add_argument('scenario', help='shipped scenario name (path_follow) or a YAML file')
    parser.add_argument('--output', default='out', help='folder for the report (default out)')
    parser.add_argument('--record', metavar='DIR', help='record a rosbag2 MCAP bag into DIR')
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        spec = load_scenario(args.scenario)
        _outputs(spec)
    except ScenarioError as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    if args.record and os.path.exists(args.record):
        print(f'error: --record {args.record}: the folder exists already', file=sys.stderr)
        return 2
    folder = os.path.join(args.output, f"scenario-{spec['name']}-"
                          f"{time.strftime('%Y%m%d-%H%M%S')}")
    os.makedirs(folder, exist_ok=True)
    spec['seed_in_use'] = draw_seed(spec)
    actuation = ', '.join(f'{k} {v}' for k, v in actuation_overrides(spec).items())
    drawn = ' (drawn: seed random)' if spec['seed'] == 'random' else ''
    print(f"scenario {spec['name']}: {spec['vehicle']} on {spec['stage']}, controller "
          f"{' '.join(spec['controller']['command'])}; synchronous every "
          f"{spec['control_period_s']:g} s; sensors {spec['sensors']}, seed "
          f"{spec['seed_in_use']}{drawn}" + (f'; actuation {actuation}' if actuation else ''))
    try:
        report, result, series = execute(spec, folder, stop, args.record)
    except RuntimeError as error:
        print(f'error: {error}; logs in {folder}', file=sys.stderr)
        return 1
    plot_report(spec, result, series, os.path.join(folder, 'report.png'))
    verdicts, passed, simulated = report['thresholds'], report['passed'], report['simulated_s']
    for metric, value in report['metrics'].items():
        verdict = verdicts.get(metric)
        bound = '' if verdict is None else (
            f"  [{'PASS' if verdict['passed'] else 'FAIL'}: "
            + ', '.join(f'{k} {verdict[k]:g}' for k in ('min', 'max') if k in verdict) + ']')
        print(f'  {metric:<24} {value:10.4f}{bound}')
    print(f"{'PASSED' if passed else 'FAILED'}: {simulated:.2f} s simulated in "
          f"{result['wall_s']:.1f} s (x{report['real_time_factor']:.2f} real time; the loop "
          f"after the controller's first answer x{report['loop_real_time_factor']:.2f}); "
          f'report in {folder}')
    return 0 if passed else 1


if __name__ == '__main__':
    sys.exit(main())
