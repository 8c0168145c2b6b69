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
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .controllers import check_controller, closed_path, law_for, planar, planar_of
from ..control.interface import PlanarState, quaternion, scan_of, WheelState
from ..control.path import ClosedPath
from ..physics.model import OMEGA, SLIP_ANGLE, STEER_ANGLE, X, YAW, YAW_RATE
from ..physics.vehicle import Vehicle
from ..resources import config_file
from ..scenarios.metrics import (
    cut, evaluate, judge, LAP_CHECK_EVERY, lap_end, LapCounter, quaternion_yaw, STATE_COLUMNS)
from ..scenarios.spec import PHYSICS_RATE_HZ, stage_surface, stage_walls, vehicle_config
from ..sensors import load_profile
from ..sim import Front, Session, Start

NODE_DEFAULTS = {'command_timeout_s': 0.5, 'timeout_brake_torque_n_m': 1000.0}
"""The simulator's parameters that a scenario run leaves at their defaults."""
MAX_STEPS = 1_000_000


class InProcessError(ValueError):
    """A scenario the in-process engine cannot run; the message says why."""


def supported(spec: Dict[str, Any]) -> Optional[str]:
    """Return why the in-process engine cannot run `spec`, or None if it can."""
    try:
        check_controller(spec['controller'])
    except ValueError as error:
        return str(error)
    return None


class InProcessRun(Front):
    """One scenario run: the simulator's session and the controller's law, in turn."""

    def __init__(self, spec: Dict[str, Any], path: ClosedPath):
        """Build the session with the car at the path's start, and the law."""
        try:
            self.law = law_for(spec['controller'])
        except ValueError as error:
            raise InProcessError(str(error)) from None
        self.spec, self.path = spec, path
        start_x, start_y = path.points[0]
        self.session = Session(
            Vehicle(vehicle_config(spec), stage_surface(spec['stage'])),
            load_profile(spec['sensors'], spec['sensor_overrides']), spec['seed_in_use'],
            physics_rate_hz=PHYSICS_RATE_HZ, publish_rate_hz=1.0 / spec['control_period_s'],
            settings=dict(NODE_DEFAULTS, command_mode=spec['command_mode']),
            start=Start(float(start_x), float(start_y),
                        path.locate(start_x, start_y).heading_rad,
                        float(spec['initial_speed_m_s'])),
            logger=logging.getLogger('rally_sim.inprocess'), front=self,
            occupancy=stage_walls(spec['stage']))
        self.vehicle = self.session.vehicle
        self.reads_scan = getattr(self.law, 'reads', 'odometry') == 'scan'
        sensors = self.session.sensors
        self.odometry_is_truth = 'odometry' in sensors.with_outputs
        self.scan_is_truth = self.reads_scan and 'lidar' in sensors.with_outputs
        if self.reads_scan and 'lidar' not in sensors.profile.channels:
            raise InProcessError(f"the controller reads scan: sensors '{spec['sensors']}' "
                                 'has no lidar')
        self.truth: Dict[int, tuple] = {}
        self.wheels: Dict[int, WheelState] = {}
        self.odometry: Optional[Tuple[int, PlanarState]] = None   # stamp [ns], as read
        self.scan = None        # (stamp [ns], Scan) for a law that reads the lidar

    def failed(self, error: FloatingPointError) -> None:
        """Raise RuntimeError: non-finite physics (the node would restart from the start)."""
        raise RuntimeError(f'{error} (the ROS run would restart from the initial state)')

    def emit(self, now_ns: int, publish: bool, markers: bool, delivered) -> bool:
        """Keep the truth at a publishing instant; note the odometry (or scan) delivered."""
        odometry = None
        if publish:
            orientation = self._keep_truth(now_ns)
            if self.odometry_is_truth:     # measured with the outputs: the truth, now
                _, x, y, _, vx, vy, yaw_rate, _ = self.truth[now_ns]
                odometry = (now_ns, planar_of(x, y, orientation, vx, vy, yaw_rate))
            if self.scan_is_truth:
                delivered = delivered + self.session.sensors.measure_now(
                    now_ns, self.vehicle, ['lidar'])
        for measurement in delivered:
            if measurement.channel == 'odometry':
                odometry = (measurement.stamp_ns, planar(measurement))
            elif measurement.channel == 'lidar' and self.reads_scan:
                self.scan = (measurement.stamp_ns, self._scan(measurement))
        if odometry is not None:
            self.odometry = odometry
        return (self.scan if self.reads_scan else odometry) is not None

    def _scan(self, measurement):
        """Return the Scan a node reads from the simulator's LaserScan of a measurement."""
        geometry = self.session.sensors.profile.channels['lidar'].geometry
        return scan_of(measurement.values['ranges'], geometry['field_of_view_rad'],
                       geometry['range_min_m'], geometry['range_max_m'])

    def _keep_truth(self, now_ns: int) -> List[float]:
        """
        Keep the true state now as the runner reads ground_truth/odom and wheel_slip.

        Returns the orientation quaternion (x, y, z, w) of the truth's messages.
        """
        s = self.vehicle.state
        _, pitch, roll = self.vehicle.ground()
        orientation = quaternion(roll, pitch, float(s[YAW]))
        slip = max(map(abs, self.vehicle.outputs[SLIP_ANGLE].tolist()))    # finite: as np.max
        x, y, _, vx, vy, yaw_rate = s[X:YAW_RATE + 1].tolist()   # X Y YAW VX VY YAW_RATE
        self.truth[now_ns] = (now_ns / 1e9, x, y, quaternion_yaw(*orientation), vx, vy,
                              yaw_rate, slip)
        if self.law.wants_wheels:       # the controller's wheel_slip message
            self.wheels[now_ns] = WheelState(s[OMEGA:OMEGA + 4].tolist(),
                                             self.vehicle.outputs[STEER_ANGLE].tolist())
        return orientation

    def answer(self) -> None:
        """Answer the odometry (or scan) with the law; take its messages as the node does."""
        if self.reads_scan:
            (stamp_ns, scan), self.scan = self.scan, None
            for command in self.law.answer(stamp_ns, scan, None):
                self.session.take(command)
            return
        (stamp_ns, state), self.odometry = self.odometry, None
        wheels = None
        if self.law.wants_wheels:       # answered once wheel_slip of its stamp is there
            wheels = self.wheels.get(stamp_ns)
            if wheels is None:
                raise RuntimeError(
                    f'no wheel_slip stamped {stamp_ns} ns for the odometry: this controller '
                    'answers odometry stamped at the publishing instants only (a sensor '
                    'profile whose odometry is measured with the outputs)')
            self.wheels = {t: w for t, w in self.wheels.items() if t > stamp_ns}
        for command in self.law.answer(stamp_ns, state, wheels):
            self.session.take(command)

    def run(self) -> Dict[str, Any]:
        """Run to the scenario's end as the runner ends it; return its metrics and verdict."""
        spec, path = self.spec, self.path
        period_ns = round(spec['control_period_s'] * 1e9)
        laps = LapCounter(spec, path, margin_m=1e-6)
        session = self.session
        session.at_step(publish=True, markers=False)
        stamp, stamps = 0, []
        while True:
            while stamp + period_ns not in self.truth:
                if (self.scan if self.reads_scan else self.odometry) is not None:
                    self.answer()
                before = session.sim_steps
                session.advance(MAX_STEPS, until_state=True)
                if session.sim_steps == before:
                    raise RuntimeError('simulated time did not advance')
            stamps.append(stamp)
            if stamp >= spec['duration_s'] * 1e9 or (
                    laps.wanted and stamp % (LAP_CHECK_EVERY * period_ns) == 0
                    and laps.add(path.locate(*self.truth[stamp][1:3]).progress_m)):
                break
            stamp += period_ns
        columns = list(zip(*(self.truth[s] for s in stamps)))
        states = {name: np.array(values) for name, values in zip(STATE_COLUMNS, columns)}
        result = {'path': path, 'states': cut(states, lap_end(spec, path, states))}
        evaluated = evaluate(spec, result, [c.time_ns for c in session.contacts.events])
        verdicts, passed = judge(evaluated['metrics'], spec['thresholds'])
        return {'metrics': evaluated['metrics'], 'passed': passed, 'thresholds': verdicts,
                'simulated_s': float(evaluated['series']['t'][-1])}


def run_scenario(spec: Dict[str, Any]) -> Dict[str, Any]:
    """Run a checked scenario (seed_in_use set) in-process; return metrics and verdict."""
    path = closed_path(config_file(f"stages/{spec['stage']}_path.csv"))
    return InProcessRun(spec, path).run()
