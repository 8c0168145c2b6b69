"""
Closed-loop scenarios: simulator and controller in step, metrics, pass or fail.

    ./rally scenario NAME|FILE.yaml [--output DIR] [--record BAG_DIR] [--duration S]

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
import json
import math
import os
import struct
import sys
import time
from typing import Any, Callable, Dict, List, Optional

from nav_msgs.msg import Odometry
import numpy as np
from rally_sim_msgs.msg import Collision, WheelSlip

from .metrics import (
    contact_report, cut, evaluate, judge, LAP_CHECK_EVERY, lap_end, LapCounter, quaternion_yaw,
    spun, state_table, until_spin)
from .spec import (
    actuation_overrides, car_names, car_starts, controller_command, CONTROLLER_NODE, draw_seed,
    first_answered_ns, load_scenario, module_of, outputs, PHYSICS_RATE_HZ, reference_path_file,
    RUNNER_NODE, ScenarioError, sensor_file, SIMULATOR_NODE, stage_label, start_velocities,
    vehicle_file)
from .techniques import FRONT_FIELDS, judged, plot as plot_technique, technique_metrics
from ..control.laws.drift_lqr import plan_ahead
from ..control.path import ClosedPath
from ..resources import surface_from, vehicle_path
from ..ros.serialized import byte_order, FieldReader
from ..runtime.entry import Stopped, StopRequest
from ..runtime.processes import quick_discovery, start_logged, stop_all
from ..world.stages import read_path

ANSWER_TIMEOUT_S = 10.0
"""Wall seconds the runner waits for the answer to one state."""
START_TIMEOUT_S = 60.0
"""Wall seconds for the simulator's first state and the controller's first answer
(start-up, on a loaded machine); also the simulator's sync_timeout_s."""
QUEUE_DEPTH = 100000
"""The simulator runs ahead of the runner; no state may be dropped from the queue."""
DRIFT_LQR_CONTROLLER = 'rally_sim.ros.drift_lqr_controller'
"""The reference drift controller's module (its figure eight's transition is planned first)."""


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
        cars = car_names(spec)
        ego = f'{cars[0]}/' if cars[0] else ''
        self.outputs = [ego + topic for topic in outputs(spec)]
        self.odom: Dict[int, bytes] = {}      # the ground truth: what the metrics judge
        self.slip: Dict[int, bytes] = {}
        self.others: List[Dict[int, bytes]] = [{} for _ in cars[1:]]   # the other cars' truth
        self.odom_fields = FieldReader(Odometry, ODOMETRY_FIELDS)
        self.slip_fields = FieldReader(WheelSlip, [f'slip_angle.{i}' for i in range(4)])
        self.height_field = FieldReader(Odometry, ['pose.pose.position.z'])
        self.load_fields = FieldReader(WheelSlip, [f'normal_load.{i}' for i in range(4)])
        self.front_fields = FieldReader(WheelSlip, FRONT_FIELDS)
        slip = slip or spec['metrics'] in ('jump', 'technique')    # (their metrics read loads)
        self.watch_slip = slip
        watched = [(Odometry, ego + 'ground_truth/odom', self.odom)] + [
            (Odometry, f'{car}/ground_truth/odom', store)
            for car, store in zip(cars[1:], self.others)]
        if slip:
            watched.append((WheelSlip, ego + 'wheel_slip', self.slip))
        for kind, topic, store in watched:
            self.node.create_subscription(kind, topic, lambda data, store=store: store.__setitem__(
                _cdr_stamp(data), data), QUEUE_DEPTH, raw=True)
        self.contacts: List[Dict[str, Any]] = []      # every car's collisions
        self.node.create_subscription(Collision, 'collision', lambda m: self.contacts.append(
            contact_report(m.header.stamp.sec * 1_000_000_000 + m.header.stamp.nanosec,
                           m.car, m.other, m.x, m.y)), QUEUE_DEPTH)
        self.recorder = None
        if record:
            from ..ros.recording import BagRecorder, recorded_topics
            self.recorder = BagRecorder(self.node, record, recorded_topics(cars), {
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
                                       f'{process.returncode}' + last_lines(process))
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
        return stamp in self.odom and (stamp in self.slip or not self.watch_slip) and all(
            stamp in other for other in self.others)

    def poses(self, stamps: List[int]) -> List[np.ndarray]:
        """Return each other car's true x, y, yaw at the stamps."""
        rows = []
        for other in self.others:
            fields = [self.odom_fields.read(other[s]) for s in stamps]
            rows.append(np.array([(x, y, quaternion_yaw(qx, qy, qz, qw))
                                  for x, y, qx, qy, qz, qw, *_ in fields]).reshape(-1, 3))
        return rows

    def body(self, stamps: List[int]) -> Dict[str, np.ndarray]:
        """Return base_link's height [m] and the wheels' summed load [N] at the stamps."""
        return {'z': np.array([self.height_field.read(self.odom[s])[0] for s in stamps]),
                'load': np.array([sum(self.load_fields.read(self.slip[s])) for s in stamps])}

    def front(self, stamps: List[int]) -> np.ndarray:
        """Return the front wheels' loads and lateral forces [N] at the stamps (FRONT_FIELDS)."""
        return np.array([self.front_fields.read(self.slip[s]) for s in stamps]).reshape(-1, 4)

    def position(self, stamp: int) -> List[float]:
        """Return the true x, y [m] at `stamp`."""
        return self.odom_fields.read(self.odom[stamp])[:2]

    def velocity(self, stamp: int) -> List[float]:
        """Return the true body velocity vx, vy [m/s] at `stamp`."""
        return self.odom_fields.read(self.odom[stamp])[6:8]

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


ODOMETRY_FIELDS = ['pose.pose.position.x', 'pose.pose.position.y'] + [
    f'pose.pose.orientation.{axis}' for axis in 'xyzw'] + [
    'twist.twist.linear.x', 'twist.twist.linear.y', 'twist.twist.angular.z']
"""The fields of the true odometry a state row is made of."""


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
    cars = car_names(spec)
    controllers = ','.join(f'{car}/{CONTROLLER_NODE}' if car else CONTROLLER_NODE
                           for car in cars)
    speed, lateral_speed, yaw_rate = start_velocities(spec)
    velocities = ['-p', f'initial_speed:={speed}', '-p', f'initial_lateral_speed:={lateral_speed}',
                  '-p', f'initial_yaw_rate:={yaw_rate}']
    poses = []
    for k, (car, (x, y, yaw)) in enumerate(zip(cars, car_starts(spec, path))):
        key = f'{car}.' if car else ''
        poses += ['-p', f'{key}initial_x:={x}', '-p', f'{key}initial_y:={y}',
                  '-p', f'{key}initial_yaw:={yaw}']
        if k > 0:
            vehicle = spec['opponents'][k - 1].get('vehicle', spec['vehicle'])
            poses += ['-p', f'{car}.vehicle:={vehicle_path(vehicle)}']
    if spec['opponents']:
        poses += ['-p', f"cars:=[{','.join(cars)}]",
                  '-p', f'{cars[0]}.vehicle:={vehicle_file(spec, folder)}']
    return [sys.executable, '-m', 'rally_sim.ros.node', '--ros-args',
            '-p', 'pacing:=fast', '-p', f'physics_rate_hz:={PHYSICS_RATE_HZ}',
            '-p', f'sync_controllers:=[{controllers}]', '-p', 'sync_paused:=true',
            '-p', f'sync_observers:=[{RUNNER_NODE}]',
            '-p', f'sync_timeout_s:={START_TIMEOUT_S}',
            '-p', 'shutdown_flush_s:=0.0',      # the runner has every state it needs
            '-p', f'vehicle:={vehicle_file(spec, folder)}',
            '-p', f'sensors:={sensor_file(spec, folder)}', '-p', f"seed:={spec['seed_in_use']}",
            '-p', f"surface:={spec['stage']}", '-p', f"command_mode:={spec['command_mode']}",
            '-p', f'publish_rate_hz:={1.0 / spec["control_period_s"]}',
            '-p', 'marker_rate_hz:=0.0', *poses,
            *velocities,
            '-p', f'publish_stage:={str(record).lower()}', '-p', 'trail_length_s:=0.0']


LAST_LINES = 8
"""How many of its log's last lines a process that exits in a run has said in the error."""


def logged(start: Callable, command: List[str], log_path: str):
    """Start a process with start(command, log_path); the process knows its log."""
    process = start(command, log_path)
    process.log_path = log_path
    return process


def last_lines(process) -> str:
    """Return the last lines of a process's log, indented, for an error (or '')."""
    try:
        with open(process.log_path, encoding='utf-8', errors='replace') as log:
            lines = [line.rstrip() for line in log if line.strip()]
    except (AttributeError, OSError):
        return ''
    if not lines:
        return ''
    return '; its last lines:\n' + '\n'.join('    ' + line for line in lines[-LAST_LINES:])


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
    path = ClosedPath(read_path(reference_path_file(spec)))
    period_ns = round(spec['control_period_s'] * 1e9)
    processes, observer = [], None
    quick_discovery(os.environ)     # the runner's participant and the two it starts
    try:
        rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
        observer = Observer(spec, stop, record, slip)
        # Both start at once: simulated time holds at 0 until the runner has the
        # first state (the simulator waits for its observer) and unpauses it.
        processes.append(logged(start, _simulator_command(spec, path, folder, bool(record)),
                                os.path.join(folder, 'simulator.log')))
        cars = car_names(spec)
        for car, controller in zip(cars, [spec['controller']] + [
                o['controller'] for o in spec['opponents']]):
            processes.append(logged(start, controller_command(controller, car), os.path.join(
                folder, f'controller_{car}.log' if car else 'controller.log')))
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
                    and laps.add(path.locate(*observer.position(stamp)).progress_m)) or (
                    spec['stop_on_spin'] and spun(*observer.velocity(stamp))):
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
    states, spin = until_spin(spec, cut(states, lap_end(spec, path, states)))
    result = {'states': states, 'path': path, 'wall_s': wall, 'loop_wall_s': loop_wall,
              'contacts': list(observer.contacts), 'spin': spin,
              'others': observer.poses(stamps[:len(states['t'])])}
    if spec['metrics'] == 'jump':
        result['body'] = observer.body(stamps[:len(states['t'])])
    if spec['metrics'] == 'technique':
        result['front'] = observer.front(stamps[:len(states['t'])])
    return result


def plot_report(spec, result, series, path_png: str) -> None:
    """Write the path against the reference, coloured by slip, and metrics over time."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from ..world.stage_view import draw_stage
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
    left.set_title(f"{spec['name']}: {spec['vehicle']} on {stage_label(spec['stage'])}")
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


def plan_transitions(spec: Dict[str, Any]) -> None:
    """
    Plan the figure eights' transitions the drift controllers leave to first use, before the run.

    Planning takes tens of seconds, longer than a controller may take to
    answer its first state; planned here (once, then from the cache), each
    controller gets the file. RuntimeError: no transition found.
    """
    for controller in [spec['controller']] + [o['controller'] for o in spec['opponents']]:
        if module_of(controller['command']) != DRIFT_LQR_CONTROLLER:
            continue
        try:
            planned = plan_ahead(controller.get('params', {}))
        except ValueError as error:
            raise RuntimeError(f"controller parameter 'transition': {error}") from None
        if planned:
            controller['params'] = dict(controller['params'], transition=planned)


def execute(spec: Dict[str, Any], folder: str, stop: StopRequest, record: str = None,
            start: Callable = start_logged, slip: bool = True):
    """
    Run a checked scenario (seed_in_use set) into `folder`; write and return its report.

    Returns (report, the run's result, the metrics' time series).
    RuntimeError: the run failed (its message says how; logs in folder).
    slip: see run() (the metrics do not read it).
    """
    plan_transitions(spec)
    if spec['runs']:
        return execute_runs(spec, folder, stop, record, start)
    result = run(spec, folder, stop, record, start, slip)
    evaluated = evaluate(spec, result, [c['time_ns'] for c in result['contacts']])
    verdicts, passed = judge(evaluated['metrics'], spec['thresholds'])
    passed = passed and result['spin'] is None
    simulated = evaluated['series']['t'][-1]
    return write_report(spec, folder, result, evaluated['metrics'], simulated, verdicts,
                        passed), result, evaluated['series']


def execute_runs(spec: Dict[str, Any], folder: str, stop: StopRequest, record: str = None,
                 start: Callable = start_logged):
    """
    Run a technique scenario: each of its runs, into folder/RUN (and record/RUN); judge them.

    Returns (report, result, None): result['technique'] is the judged
    control/techniques.py Result (its runs, its signature), which report.png draws.
    """
    results, wall, loop_wall = {}, 0.0, 0.0
    if record:
        os.makedirs(record)
    for name in spec['runs']:
        params = dict(spec['controller'].get('params', {}), run=name)
        one = dict(spec, controller=dict(spec['controller'], params=params))
        os.makedirs(os.path.join(folder, name), exist_ok=True)
        results[name] = run(one, os.path.join(folder, name), stop,
                            record and os.path.join(record, name), start)
        wall += results[name]['wall_s']
        loop_wall += results[name]['loop_wall_s']
    technique = judged(spec, results)
    metrics = technique_metrics(technique)
    verdicts, passed = judge(metrics, spec['thresholds'])
    simulated = sum(float(r['states']['t'][-1]) for r in results.values())
    result = {'technique': technique, 'wall_s': wall, 'loop_wall_s': loop_wall, 'spin': None,
              'contacts': [c for r in results.values() for c in r['contacts']]}
    return write_report(spec, folder, result, metrics, simulated, verdicts, passed,
                        runs=list(spec['runs'])), result, None


def write_report(spec: Dict[str, Any], folder: str, result: Dict[str, Any],
                 metrics: Dict[str, float], simulated: float, verdicts, passed: bool,
                 **more) -> Dict[str, Any]:
    """Write and return report.json: the run, its metrics and verdicts (more: added keys)."""
    report = {'scenario': spec['name'], 'file': spec['file'], 'vehicle': spec['vehicle'],
              'stage': spec['stage'], 'controller': spec['controller'],
              'sensors': spec['sensors'], 'seed': spec['seed_in_use'],
              'sensor_overrides': spec['sensor_overrides'], 'actuation': spec['actuation'],
              'vehicle_overrides': spec['vehicle_overrides'],
              'simulated_s': simulated, 'wall_s': result['wall_s'],
              'real_time_factor': simulated / result['wall_s'],
              'loop_wall_s': result['loop_wall_s'],
              'loop_real_time_factor': simulated / result['loop_wall_s'],
              'metrics': metrics, 'thresholds': verdicts, 'passed': passed,
              'contacts': result['contacts'], 'spin': result['spin'], **more}
    if 'cut_from_s' in spec:        # --duration: a quick look, not judged
        report.update(cut_from_s=spec['cut_from_s'], passed=None)
    with open(os.path.join(folder, 'report.json'), 'w', encoding='utf-8') as out:
        json.dump(report, out, indent=2, default=str)
    return report


def main(argv=None, stop: StopRequest = None) -> int:
    """
    Run a scenario; exit 0 when every threshold passes, 1 when one fails, 2 on bad input.

    On Ctrl-C or SIGTERM (`stop`, see rally_sim.runtime.entry) the simulator and the
    controller are stopped and Stopped is raised: there is no verdict.
    """
    stop = stop or StopRequest(tool=True)
    parser = argparse.ArgumentParser(prog='./rally scenario', description=__doc__.split('\n\n')[0])
    parser.add_argument('scenario', help='shipped scenario name (path_follow) or a YAML file')
    parser.add_argument('--output', default='out', help='folder for the report (default out)')
    parser.add_argument('--record', metavar='DIR', help='record a rosbag2 MCAP bag into DIR')
    parser.add_argument('--duration', type=float, metavar='S',
                        help='a quick look: only the first S s of simulated time, when '
                        "shorter than the scenario's duration_s; the cut run's metrics are "
                        'printed beside the thresholds, without a verdict (exit 0 unless the '
                        'run breaks)')
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        spec = load_scenario(args.scenario)
        outputs(spec)
        cut_from_s = shorten(spec, args.duration)
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
    print(f"scenario {spec['name']}: {spec['vehicle']} on {stage_label(spec['stage'])}, "
          f"controller {' '.join(spec['controller']['command'])}; synchronous every "
          f"{spec['control_period_s']:g} s; sensors {spec['sensors']}, seed "
          f"{spec['seed_in_use']}{drawn}" + (f'; actuation {actuation}' if actuation else ''))
    try:
        report, result, series = execute(spec, folder, stop, args.record)
    except RuntimeError as error:
        print(f'error: {error}; logs in {folder}', file=sys.stderr)
        return 1
    if 'technique' in result:
        plot_technique(result['technique'], os.path.join(folder, 'report.png'))
    else:
        plot_report(spec, result, series, os.path.join(folder, 'report.png'))
    verdicts, passed, simulated = report['thresholds'], report['passed'], report['simulated_s']
    for metric, value in report['metrics'].items():
        verdict = verdicts.get(metric)
        said = 'threshold' if cut_from_s is not None else 'PASS' if verdict and verdict[
            'passed'] else 'FAIL'
        bound = '' if verdict is None else (
            f'  [{said}: '
            + ', '.join(f'{k} {verdict[k]:g}' for k in ('min', 'max') if k in verdict) + ']')
        print(f'  {metric:<24} {value:10.4f}{bound}')
    spin = report['spin']
    if spin is not None:
        print(f"  SPUN at {spin['time_s']:.2f} s: sideslip {spin['sideslip_deg']:.1f} deg at "
              f"{spin['speed_m_s']:.1f} m/s (moving backwards); the run ended there")
    verdict = (f'CUT at {args.duration:g} s of {cut_from_s:g} (--duration; no verdict)'
               if cut_from_s is not None else 'PASSED' if passed else
               'FAILED (spun)' if spin is not None else 'FAILED')
    print(f'{verdict}: {simulated:.2f} s simulated in '
          f"{result['wall_s']:.1f} s (x{report['real_time_factor']:.2f} real time; the loop "
          f"after the controller's first answer x{report['loop_real_time_factor']:.2f}); "
          f'report in {folder}')
    return 0 if passed or cut_from_s is not None else 1


def shorten(spec: Dict[str, Any], duration_s: Optional[float]) -> Optional[float]:
    """
    Cut the run to duration_s (--duration) when shorter than the scenario's.

    Returns the scenario's own duration when cut (the run is not judged, and
    its report says so in cut_from_s), else None. ScenarioError: not a
    positive number of seconds.
    """
    if duration_s is None:
        return None
    if not (math.isfinite(duration_s) and duration_s > 0.0):
        raise ScenarioError(f'--duration {duration_s:g}: must be a positive number of seconds')
    if duration_s >= spec['duration_s']:
        return None
    cut_from_s, spec['duration_s'] = spec['duration_s'], duration_s
    spec['cut_from_s'] = cut_from_s
    return cut_from_s


if __name__ == '__main__':
    sys.exit(main())
