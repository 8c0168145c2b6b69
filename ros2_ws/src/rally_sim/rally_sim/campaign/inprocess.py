"""
The in-process engine: a scenario run without ROS processes, for our own controllers.

The simulator node's own session (sim/: the vehicle, the command intake,
the sensor profile and the stepping rule), with this engine as its front
end. At each state the controller answers (each odometry message in the
ROS run) the controller's law (control/laws/, as its node runs it) answers
it with the commands its node publishes, and the session takes them as the
node's intake takes them; then time runs to the next one. The metrics are
computed as the scenario runner computes them, on the ground truth at each
publishing instant. So a run gives the ROS run's metrics to the last bit:
the one thing a message changes, the ackermann_msgs fields being float32,
the laws do too (tests: each controller against its ROS run).

Other controllers run with the ros engine.
"""

import logging
from typing import Any, Dict, Optional, Tuple

import numpy as np

from .compiled_loop import CompiledLoop
from .controllers import check_controller, closed_path, law_for, planar, planar_of
from ..control.interface import quaternion, scan_of, WheelState
from ..control.laws import Law
from ..control.path import ClosedPath
from ..physics.model import NORMAL_LOAD, OMEGA, SLIP_ANGLE, STEER_ANGLE, X, YAW, YAW_RATE
from ..physics.vehicle import Vehicle
from ..scenarios.metrics import (
    contact_report, cut, evaluate, judge, LAP_CHECK_EVERY, lap_end, LapCounter, quaternion_yaw,
    spun, STATE_COLUMNS, until_spin)
from ..scenarios.spec import (
    car_names, car_starts, opponent_config, PHYSICS_RATE_HZ, reference_path_file, stage_surface,
    stage_walls, start_velocities, vehicle_config)
from ..sensors import load_profile
from ..sensors.profiles import beam_increment_rad
from ..sim import Front, Session, Start
from ..sim.session import car_seed

NODE_DEFAULTS = {'command_timeout_s': 0.5, 'timeout_brake_torque_n_m': 1000.0}
"""The simulator's parameters that a scenario run leaves at their defaults."""
MAX_STEPS = 1_000_000


class InProcessError(ValueError):
    """A scenario the in-process engine cannot run; the message says why."""


def supported(spec: Dict[str, Any]) -> Optional[str]:
    """Return why the in-process engine cannot run `spec`, or None if it can."""
    try:
        for controller in [spec['controller']] + [o['controller'] for o in spec['opponents']]:
            check_controller(controller)
    except ValueError as error:
        return str(error)
    return None


class Driver:
    """A car's controller in the run: its law, and the odometry or scan it is to answer."""

    def __init__(self, law: Law, car, spec: Dict[str, Any]):
        """Drive `car` (a session's Car) by `law`."""
        self.law, self.car = law, car
        self.reads_scan = getattr(law, 'reads', 'odometry') == 'scan'
        sensors = car.sensors
        self.odometry_is_truth = 'odometry' in sensors.with_outputs
        self.scan_is_truth = self.reads_scan and 'lidar' in sensors.with_outputs
        if self.reads_scan and 'lidar' not in sensors.profile.channels:
            raise InProcessError(f"the controller reads scan: sensors '{spec['sensors']}' "
                                 'has no lidar')
        self.wheels: Dict[int, WheelState] = {}
        self.pending = None
        """(stamp [ns], PlanarState or Scan): what the controller answers next."""

    def note(self, now_ns: int, truth: Optional[tuple], orientation, delivered) -> bool:
        """Note what the controller reads now (truth: the instant's row, if published)."""
        odometry = None
        if truth is not None:
            if self.odometry_is_truth:     # measured with the outputs: the truth, now
                _, x, y, _, vx, vy, yaw_rate, _ = truth
                odometry = (now_ns, planar_of(x, y, orientation, vx, vy, yaw_rate))
            if self.scan_is_truth:
                delivered = delivered + self.car.sensors.measure_now(
                    now_ns, self.car.vehicle, ['lidar'])
            if self.law.wants_wheels:       # the controller's wheel_slip message
                vehicle = self.car.vehicle
                self.wheels[now_ns] = WheelState(vehicle.state[OMEGA:OMEGA + 4].tolist(),
                                                 vehicle.outputs[STEER_ANGLE].tolist())
        scan = None
        for measurement in delivered:
            if measurement.channel == 'odometry':
                odometry = (measurement.stamp_ns, planar(measurement))
            elif measurement.channel == 'lidar' and self.reads_scan:
                scan = (measurement.stamp_ns, self._scan(measurement))
        read = scan if self.reads_scan else odometry
        if read is not None:
            self.pending = read
        return read is not None

    def _scan(self, measurement):
        """Return the Scan a node reads from the simulator's LaserScan of a measurement."""
        geometry = self.car.sensors.profile.channels['lidar'].geometry
        return scan_of(measurement.values['ranges'], geometry['field_of_view_rad'],
                       geometry['range_min_m'], geometry['range_max_m'],
                       beam_increment_rad(geometry))

    def answer(self) -> None:
        """Answer the odometry (or scan) with the law; take its messages as the node does."""
        (stamp_ns, read), self.pending = self.pending, None
        wheels = None
        if self.law.wants_wheels:       # answered once wheel_slip of its stamp is there
            wheels = self.wheels.get(stamp_ns)
            if wheels is None:
                raise RuntimeError(
                    f'no wheel_slip stamped {stamp_ns} ns for the odometry: this controller '
                    'answers odometry stamped at the publishing instants only (a sensor '
                    'profile whose odometry is measured with the outputs)')
            self.wheels = {t: w for t, w in self.wheels.items() if t > stamp_ns}
        for command in self.law.answer(stamp_ns, read, wheels):
            self.car.take(command)


class Opponent(Front):
    """Another car of the run: its driver, and its poses at the publishing instants."""

    def __init__(self, run: 'InProcessRun'):
        """Fail as the run fails."""
        self.run = run
        self.driver: Optional[Driver] = None
        self.poses: Dict[int, Tuple[float, float, float]] = {}

    def emit(self, now_ns: int, publish: bool, markers: bool, delivered) -> bool:
        """Keep the pose at a publishing instant; note what the controller reads."""
        truth = orientation = None
        if publish:
            truth, orientation = truth_row(self.driver.car.vehicle, now_ns)
            self.poses[now_ns] = (truth[1], truth[2], truth[3])
        return self.driver.note(now_ns, truth, orientation, delivered)

    def failed(self, error: FloatingPointError) -> None:
        """Non-finite physics: as the run's first car."""
        self.run.failed(error)


def truth_row(vehicle: Vehicle, now_ns: int):
    """
    Return the true state now as the runner reads ground_truth/odom and wheel_slip.

    A row of STATE_COLUMNS, and the orientation quaternion (x, y, z, w) of
    the truth's messages.
    """
    s = vehicle.state
    _, pitch, roll = vehicle.body_pose()
    orientation = quaternion(roll, pitch, float(s[YAW]))
    slip = max(map(abs, vehicle.outputs[SLIP_ANGLE].tolist()))    # finite: as np.max
    x, y, _, vx, vy, yaw_rate = s[X:YAW_RATE + 1].tolist()   # X Y YAW VX VY YAW_RATE
    return (now_ns / 1e9, x, y, quaternion_yaw(*orientation), vx, vy, yaw_rate,
            slip), orientation


class InProcessRun(Front):
    """One scenario run: the simulator's session and the controllers' laws, in turn."""

    def __init__(self, spec: Dict[str, Any], path: ClosedPath):
        """Build the session with the cars at their starts, and the laws."""
        try:
            laws = [law_for(c) for c in [spec['controller']] + [
                o['controller'] for o in spec['opponents']]]
        except ValueError as error:
            raise InProcessError(str(error)) from None
        self.spec, self.path = spec, path
        profile = load_profile(spec['sensors'], spec['sensor_overrides'])
        starts = car_starts(spec, path)
        names = car_names(spec)
        settings = dict(NODE_DEFAULTS, command_mode=spec['command_mode'])
        self.session = Session(
            Vehicle(vehicle_config(spec), stage_surface(spec['stage'])),
            profile, spec['seed_in_use'],
            physics_rate_hz=PHYSICS_RATE_HZ, publish_rate_hz=1.0 / spec['control_period_s'],
            settings=settings, start=Start(*starts[0], *start_velocities(spec)),
            logger=logging.getLogger('rally_sim.inprocess'), front=self,
            occupancy=stage_walls(spec['stage']), name=names[0])
        self.opponents = []
        for k, opponent in enumerate(spec['opponents'], start=1):
            front = Opponent(self)
            car = self.session.add_car(
                names[k], Vehicle(opponent_config(spec, opponent), stage_surface(spec['stage'])),
                profile, car_seed(spec['seed_in_use'], k), settings=settings,
                start=Start(*starts[k], float(spec['initial_speed_m_s'])), front=front)
            front.driver = Driver(laws[k], car, spec)
            self.opponents.append(front)
        self.vehicle = self.session.vehicle
        self.driver = Driver(laws[0], self.session.cars[0], spec)
        self.drivers = [self.driver] + [o.driver for o in self.opponents]
        self.truth: Dict[int, tuple] = {}
        self.body: Dict[int, tuple] = {}
        """A jump's metrics: base_link's height and the wheels' summed load at each state."""

    def failed(self, error: FloatingPointError) -> None:
        """Raise RuntimeError: non-finite physics (the node would restart from the start)."""
        raise RuntimeError(f'{error} (the ROS run would restart from the initial state)')

    def emit(self, now_ns: int, publish: bool, markers: bool, delivered) -> bool:
        """Keep the truth at a publishing instant; note what the controller reads."""
        truth = orientation = None
        if publish:
            truth, orientation = truth_row(self.vehicle, now_ns)
            self.truth[now_ns] = truth
            if self.spec['metrics'] == 'jump':
                self.body[now_ns] = (self.vehicle.body_pose()[0],
                                     float(self.vehicle.outputs[NORMAL_LOAD].sum()))
        return self.driver.note(now_ns, truth, orientation, delivered)

    def _stamps(self, laps: LapCounter, period_ns: int) -> list:
        """Step the session and answer its states up to the run's end; return their stamps."""
        spec, path, session = self.spec, self.path, self.session
        stamp, stamps = 0, []
        while True:
            while stamp + period_ns not in self.truth:
                for driver in self.drivers:
                    if driver.pending is not None:
                        driver.answer()
                before = session.sim_steps
                session.advance(MAX_STEPS, until_state=True)
                if session.sim_steps == before:
                    raise RuntimeError('simulated time did not advance')
            stamps.append(stamp)
            if stamp >= spec['duration_s'] * 1e9 or (
                    laps.wanted and stamp % (LAP_CHECK_EVERY * period_ns) == 0
                    and laps.add(path.locate(*self.truth[stamp][1:3]).progress_m)) or (
                    spec['stop_on_spin'] and spun(*self.truth[stamp][4:6])):
                return stamps
            stamp += period_ns

    def run(self) -> Dict[str, Any]:
        """Run to the scenario's end as the runner ends it; return its metrics and verdict."""
        spec, path = self.spec, self.path
        period_ns = round(spec['control_period_s'] * 1e9)
        laps = LapCounter(spec, path, margin_m=1e-6)
        session = self.session
        session.at_step(publish=True, markers=False)
        # compiled where it can be, else (or from where it hands the run back) in Python
        compiled = CompiledLoop.usable(self) and spec['metrics'] != 'jump'     # (the body)
        states = CompiledLoop(self, laps).to_end() if compiled else None
        stamps = None
        if states is None:
            stamps = self._stamps(laps, period_ns)
            columns = list(zip(*(self.truth[s] for s in stamps)))
            states = {name: np.array(values) for name, values in zip(STATE_COLUMNS, columns)}
        states, spin = until_spin(spec, cut(states, lap_end(spec, path, states)))
        others = [np.array([o.poses[s] for s in stamps[:len(states['t'])]])
                  for o in self.opponents]      # (the compiled loop drives one car alone)
        result = {'path': path, 'states': states, 'others': others}
        if spec['metrics'] == 'jump':
            z, load = zip(*(self.body[s] for s in stamps[:len(states['t'])]))
            result['body'] = {'z': np.array(z), 'load': np.array(load)}
        contacts = [contact_report(c.time_ns, c.car, c.other, c.x, c.y)
                    for c in session.contacts.events]
        evaluated = evaluate(spec, result, [c['time_ns'] for c in contacts])
        verdicts, passed = judge(evaluated['metrics'], spec['thresholds'])
        return {'metrics': evaluated['metrics'], 'passed': passed and spin is None,
                'thresholds': verdicts, 'simulated_s': float(evaluated['series']['t'][-1]),
                'contacts': contacts, 'spin': spin}


def run_scenario(spec: Dict[str, Any]) -> Dict[str, Any]:
    """Run a checked scenario (seed_in_use set) in-process; return metrics and verdict."""
    path = closed_path(reference_path_file(spec))
    return InProcessRun(spec, path).run()
