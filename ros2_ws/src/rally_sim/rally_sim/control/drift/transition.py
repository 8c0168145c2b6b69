"""
A drift transition: from a right-hand drift circle into the left-hand one touching it. ROS-free.

The figure eight's crossing asks the car to swap its sideslip (+beta to
-beta) while its path's curvature flips: there is no equilibrium in between
to regulate about. The transition is planned instead, once, on the
simulator's own compiled model: the steer angle and the rear wheel speed
(held by the drift LQR's inner loop) on knots over a window that starts lead_s
before the crossing, optimised (Levenberg-Marquardt on finite differences,
from the three best of a few starting bumps) so that the car stays on the
two circles and ends in the left drift, where the left circle's LQR takes
over. The frame is canonical: the crossing at the origin, the car heading
+y, the right circle's centre at (R, 0), the left's at (-R, 0); the
left-to-right transition is its mirror (x -> -x). A car on springs starts
with its body mirrored too.

A design takes tens of seconds, so it is written to a file
(python -m rally_sim.drift_transition) that the controller reads.
"""

from dataclasses import dataclass, field
import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .knots import KnotDesign, read_knots, read_plan, write_plan
from .lqr import DriftLqr
from ...physics.equilibria import mirror_body
from ...physics.model import OMEGA, VX, VY, X, Y, YAW, YAW_RATE
from ...physics.vehicle import Command, DriverCommand

KEYS = ('vehicle', 'surface', 'radius_m', 'sideslip_deg', 'mode', 'gear')
"""What a transition was designed for: the controller's law must be the same."""
ROW = ('t', 'x', 'y', 'yaw', 'vx', 'vy', 'yaw_rate', 'lateral_m')
"""The columns of a rollout's rows, one per control instant (canonical frame)."""
REGAIN_DEG = 15.0
"""The sideslip [deg] of the new side a transition regains (figure_eight.py: within 2 s)."""
STARTS = 3
"""The best starting bumps the optimiser descends from (starts()); the lowest end is kept."""


@dataclass
class Transition:
    """The planned inputs of the right-to-left transition, in the canonical frame (SI units)."""

    design: Dict                     # KEYS
    lead_s: float                    # the window starts this long before the crossing
    knot_times_s: np.ndarray         # from the window's start; the last one ends it
    steer_rad: np.ndarray            # at the knots, linear between
    rear_wheel_speed_rad_s: np.ndarray
    measured: Dict = field(default_factory=dict)   # what the design's own run showed

    @property
    def window_s(self) -> float:
        """Return the window's length [s]."""
        return float(self.knot_times_s[-1])

    def inputs(self, time_s: float) -> Tuple[float, float]:
        """Return (steer [rad], rear wheel speed [rad/s]) planned time_s into the window."""
        return (float(np.interp(time_s, self.knot_times_s, self.steer_rad)),
                float(np.interp(time_s, self.knot_times_s, self.rear_wheel_speed_rad_s)))

    def save(self, path: str) -> None:
        """Write the transition as YAML."""
        tree = {'design': dict(self.design), 'lead_s': self.lead_s,
                'knot_times_s': self.knot_times_s.tolist(),
                'steer_rad': self.steer_rad.tolist(),
                'rear_wheel_speed_rad_s': self.rear_wheel_speed_rad_s.tolist(),
                'measured': dict(self.measured)}
        write_plan(path, 'A drift transition: python -m rally_sim.drift_transition. Canonical '
                   'frame: the right\ncircle into the left one, crossing the origin heading +y; '
                   'the reverse is its mirror.', tree)


def load_transition(path: str) -> Transition:
    """Read a transition file; ValueError names the field that is wrong."""
    tree = read_plan(path, 'transition file')
    design = tree.get('design')
    if not isinstance(design, dict) or any(key not in design for key in KEYS):
        raise ValueError(f"transition file {path}: 'design' must hold {', '.join(KEYS)}")
    arrays = read_knots(tree, ('steer_rad', 'rear_wheel_speed_rad_s'),
                        f'transition file {path}')
    times = arrays['knot_times_s']
    lead = tree.get('lead_s')
    if isinstance(lead, bool) or not isinstance(lead, (int, float)) or not (
            0.0 < lead < times[-1]):
        raise ValueError(f"transition file {path}: 'lead_s' must be a number of seconds "
                         f'in (0, {times[-1]:g}), within the window')
    return Transition(dict(design), float(lead), times, arrays['steer_rad'],
                      arrays['rear_wheel_speed_rad_s'], dict(tree.get('measured') or {}))


def design_keys(vehicle: str, left: DriftLqr) -> Dict:
    """Return what a transition for `left` (a left-circle law on its target) is designed for."""
    return {'vehicle': vehicle, 'surface': left.surface, 'radius_m': left.radius_m,
            'sideslip_deg': round(math.degrees(left.target.sideslip_rad), 6),
            'mode': left.solver.mode, 'gear': int(left.gear) if left.driver else 0}


def describe(design: Dict) -> str:
    """Return a transition design's keys in words."""
    gear = f", gear {design['gear']}" if design['mode'] == 'driver' else ''
    return (f"{design['vehicle']} on {design['surface']}, R {design['radius_m']:g} m, "
            f"beta {design['sideslip_deg']:g} deg, {design['mode']} command{gear}")


def right_circle_state(left_state: np.ndarray, radius_m: float, arc_m: float) -> np.ndarray:
    """
    Return the left equilibrium's model state mirrored onto the right circle, arc_m before (0, 0).

    Canonical frame: the right circle's centre (R, 0), driven clockwise,
    reaching the origin heading +y.
    """
    z = mirror_body(left_state)
    angle = math.pi + arc_m / radius_m           # from the centre, clockwise to pi
    z[X], z[Y] = radius_m + radius_m * math.cos(angle), radius_m * math.sin(angle)
    course = math.atan2(-math.cos(angle), math.sin(angle))
    z[VY], z[YAW_RATE] = -z[VY], -z[YAW_RATE]
    z[YAW] = course - math.atan2(z[VY], z[VX])
    z[OMEGA:OMEGA + 4] = left_state[[OMEGA + 1, OMEGA, OMEGA + 3, OMEGA + 2]]
    return z


def as_command(law: DriftLqr, steer: float, drive) -> object:
    """Return the physics core's command of a law's (steer, drive) answer."""
    if law.driver:
        return DriverCommand(steer_rad=steer, throttle=drive, gear=law.gear)
    return Command(steer_rad=steer, drive_torque_n_m=(0.0, 0.0, drive[0], drive[1]))


class Rollout:
    """The canonical transition simulated: planned inputs, then the left circle's LQR."""

    def __init__(self, left: DriftLqr, lead_s: float, after_s: float):
        """Place the car on the right circle's equilibrium lead_s before the crossing."""
        self.radius = left.radius_m
        self.law = left.placed(self.radius, -self.radius, 0.0)
        self.car = left.vehicle
        self.period = left.design.control_period_s
        self.dt = float(self.car.config['dt'])
        self.substeps = max(1, round(self.period / self.dt))
        target = left.target
        self.start = right_circle_state(target.state, self.radius, lead_s * target.speed_m_s)
        self.lead_s, self.after_s = lead_s, after_s

    def steps(self, times: np.ndarray) -> int:
        """Return the control steps of a run: the window's and after_s."""
        return int(round((times[-1] + self.after_s) / self.period))

    def run(self, times: np.ndarray, steer: np.ndarray, wheel: np.ndarray,
            from_step: int = 0, states: Optional[List[np.ndarray]] = None,
            keep: bool = False) -> Tuple[np.ndarray, List[np.ndarray]]:
        """
        Return the rows (ROW) from from_step on, and the car's states if `keep`.

        states: a run's kept states to start from_step from (the window is
        open loop: an earlier input change is all that changes a step).
        Raises FloatingPointError if the car's state goes non-finite.
        """
        law, car = self.law, self.car
        window = float(times[-1])
        car.restore(self.start if states is None else states[from_step])
        law.reset()
        rows, kept = [], []
        for k in range(from_step, self.steps(times)):
            s = car.state
            if keep:
                kept.append(s.copy())
            x, y, yaw, vx, vy, r = (float(v) for v in s[[X, Y, YAW, VX, VY, YAW_RATE]])
            t = k * self.period
            rear = (float(s[OMEGA + 2]), float(s[OMEGA + 3]))
            if t < window:
                command = law.actuate(float(np.interp(t, times, steer)),
                                      np.full(2, np.interp(t, times, wheel)),
                                      law.schedule[-1].drive, rear, True)
            else:
                command = law.command_at(1.0, True, x, y, yaw, vx, vy, r, rear)
            car.set_command(as_command(law, *command))
            car.advance(self.substeps, self.dt)
            centre = -self.radius if y > 0.0 else self.radius     # past the crossing: left
            rows.append((t, x, y, yaw, vx, vy, r, math.hypot(x - centre, y) - self.radius))
        return np.array(rows), kept


def crossing_time(rows: np.ndarray) -> float:
    """Return the first instant past the crossing (y > 0); the end if none."""
    past = rows[:, 2] > 0.0
    return float(rows[np.argmax(past), 0] if past.any() else rows[-1, 0])


def regain_s(rows: np.ndarray, target_rad: float) -> float:
    """Return the time from the crossing until the new side's |beta| is REGAIN_DEG (inf: never)."""
    crossing = crossing_time(rows)
    beta = np.arctan2(rows[:, 5], rows[:, 4])
    regained = (rows[:, 0] >= crossing) & (beta * math.copysign(1.0, target_rad)
                                           >= math.radians(REGAIN_DEG))
    return float(rows[np.argmax(regained), 0] - crossing) if regained.any() else math.inf


@dataclass
class TransitionWeights:
    """The errors worth one unit of the design's least squares (Bryson's rule)."""

    lateral_m: float = 0.15
    speed_m_s: float = 1.5               # everywhere: the car keeps going
    sideslip_rad: float = math.radians(3.0)    # 1.5 s after the crossing on
    settled_yaw_rate_rad_s: float = 0.1  # 2.5 s after the crossing on
    settled_speed_m_s: float = 0.5
    steer_bend_rad: float = math.radians(3.0)  # second differences of the knots
    wheel_bend_rad_s: float = 3.0
    steer_offset_rad: float = math.radians(30.0)   # from the equilibria's inputs
    wheel_offset_rad_s: float = 30.0


class TransitionDesign(KnotDesign):
    """The least squares whose minimum is the transition (solved by KnotDesign)."""

    def __init__(self, left: DriftLqr, lead_s: float = 1.0, window_s: float = 3.0,
                 after_s: float = 2.0, knots: int = 13,
                 weights: TransitionWeights = TransitionWeights()):
        """Set the knots and the equilibria's inputs they start from."""
        self.rollout = Rollout(left, lead_s, after_s)
        self.weights = weights
        self.times = np.linspace(0.0, window_s, knots)
        target = left.target
        self.target = target
        flip = 3.0 * np.clip((self.times - lead_s + 0.25) / 0.5, 0.0, 1.0) ** 2 - 2.0 * np.clip(
            (self.times - lead_s + 0.25) / 0.5, 0.0, 1.0) ** 3
        self.base = np.concatenate([-target.steer_rad + 2.0 * target.steer_rad * flip,
                                    np.full(knots, float(np.mean(target.omega_rad_s[2:])))])
        self.period = self.rollout.period
        self.evaluations = 0

    def split(self, p: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Return the steer and wheel speed knots of a parameter vector."""
        return p[:len(self.times)], p[len(self.times):]

    def residuals(self, rows: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Return the weighted errors of a run of parameters p."""
        w, e = self.weights, self.target
        t, vx, vy, r = rows[:, 0], rows[:, 4], rows[:, 5], rows[:, 6]
        crossing = crossing_time(rows)
        speed = np.hypot(vx, vy)
        late, settled = t >= crossing + 1.5, t >= crossing + 2.5
        steer, wheel = self.split(p - self.base)
        bend_s, bend_w = (np.diff(k, 2) for k in self.split(p))
        return np.concatenate([
            rows[:, 7] / w.lateral_m, (speed - e.speed_m_s) / w.speed_m_s,
            np.where(late, np.arctan2(vy, vx) - e.sideslip_rad, 0.0) / w.sideslip_rad,
            np.where(settled, r - e.yaw_rate_rad_s, 0.0) / w.settled_yaw_rate_rad_s,
            np.where(settled, speed - e.speed_m_s, 0.0) / w.settled_speed_m_s,
            bend_s / w.steer_bend_rad, bend_w / w.wheel_bend_rad_s,
            steer / w.steer_offset_rad, wheel / w.wheel_offset_rad_s,
            [0.0 if (rows[:, 2] > 0.0).any() else 100.0]])

    def simulate(self, p: np.ndarray, from_step: int = 0,
                 states: Optional[List[np.ndarray]] = None,
                 keep: bool = False) -> Tuple[np.ndarray, List[np.ndarray]]:
        """Return the rollout of parameters p from from_step (KnotDesign)."""
        return self.rollout.run(self.times, *self.split(p), from_step, states, keep)

    def difference_step(self, j: int) -> float:
        """Return the forward difference's step: 0.2 deg of steer, 0.2 rad/s of wheel speed."""
        return math.radians(0.2) if j < len(self.times) else 0.2

    def starts(self) -> List[np.ndarray]:
        """Return a few bumps of the steer (into the new circle) and wheel speed, best first."""
        tried = []
        lead = self.rollout.lead_s
        for steer_deg in (20.0, 35.0, 50.0):
            for shift in (-0.3, 0.0, 0.3):
                for wheel in (-20.0, 0.0, 20.0, 40.0):
                    bump = np.abs(self.times - (lead - 0.05 + shift)) <= 0.4
                    wheel_bump = np.abs(self.times - (lead + 0.05 + shift)) <= 0.3
                    tried.append(self.base + np.concatenate([math.radians(steer_deg) * bump,
                                                             wheel * wheel_bump]))
        return self.ranked(tried) or [self.base]

    def start(self) -> np.ndarray:
        """Return the best of the starting bumps (starts())."""
        return self.starts()[0]

    def solve(self, iterations: int = 25, tolerance: float = 1e-3,
              tries: int = STARTS) -> Tuple[np.ndarray, float]:
        """
        Return the knots and the cost where Levenberg-Marquardt ends lowest.

        From each of the `tries` best starts: the cost has local minima (a
        car on springs, whose roll must swing across, meets one from the
        best start that a start a little later escapes).
        """
        starts = self.starts()[:tries]
        best, best_cost = starts[0], math.inf
        for p in starts:
            p, cost = self.descend(p, iterations, tolerance)
            if cost < best_cost:
                best, best_cost = p, cost
        return best, best_cost


def design_transition(vehicle: str, left: DriftLqr, **settings) -> Transition:
    """Plan the right-to-left transition of `left`'s drift (a left-circle law); see module."""
    design = TransitionDesign(left, **settings)
    p, cost = design.solve()
    steer, wheel = design.split(p)
    rows, _ = design.rollout.run(design.times, steer, wheel)
    crossing = crossing_time(rows)
    measured = {'lateral_max_m': float(np.max(np.abs(rows[:, 7]))),
                'lateral_rms_m': float(np.sqrt(np.mean(rows[:, 7] ** 2))),
                'regain_s': regain_s(rows, left.target.sideslip_rad),
                'crossing_s': crossing, 'cost': cost, 'runs': design.evaluations}
    return Transition(design_keys(vehicle, left), design.rollout.lead_s, design.times,
                      steer, wheel, measured)


TRACKED = ('along_m', 'lateral_m', 'yaw_rad', 'vx_m_s', 'vy_m_s', 'yaw_rate_rad_s')
"""The states the transition's feedback regulates: the deviation from the planned run, the
position in the planned velocity's frame (along it, and to its left)."""


@dataclass
class TrackingWeights:
    """The deviations from the planned run worth one unit (Bryson's rule)."""

    along_m: float = 1.0
    lateral_m: float = 0.1
    yaw_rad: float = math.radians(3.0)
    vx_m_s: float = 0.5
    vy_m_s: float = 0.5
    yaw_rate_rad_s: float = 0.2
    steer_rad: float = math.radians(3.0)
    wheel_speed_rad_s: float = 3.0
    terminal: float = 10.0          # the end's weight, times the running one


class Tracking:
    """
    Feedback along a planned transition: a time-varying LQR on the deviation from the plan.

    The planned run is simulated again from the knots; at each control step
    the step map (one control period of the compiled model, the inner loop
    included) is linearised by central differences in TRACKED (the front
    wheels' spins moved with vx, as they roll; the rear ones are the
    inner loop's), and a backward Riccati sweep gives each step's gain.
    """

    def __init__(self, left: DriftLqr, transition: Transition,
                 weights: TrackingWeights = TrackingWeights()):
        """Simulate the plan, linearise along it and solve the Riccati sweep (about a second)."""
        self.transition = transition
        rollout = Rollout(left, transition.lead_s, after_s=0.0)
        self.period = rollout.period
        times, steer, wheel = (transition.knot_times_s, transition.steer_rad,
                               transition.rear_wheel_speed_rad_s)
        rows, states = rollout.run(times, steer, wheel, keep=True)
        self.reference = rows[:, 1:7].copy()             # x, y, yaw, vx, vy, r
        count = len(rows)
        self.inputs = np.array([transition.inputs(k * self.period) for k in range(count)])
        jacobians = [self._linearised(rollout, states[k], self.inputs[k]) for k in range(count)]
        self.gains = self._riccati(jacobians, weights)

    @staticmethod
    def frame(reference: np.ndarray) -> np.ndarray:
        """Return the 6 x 6 map from (x, y, yaw, vx, vy, r) deviations to TRACKED."""
        course = reference[2] + math.atan2(reference[4], reference[3])
        c, s = math.cos(course), math.sin(course)
        t = np.eye(6)
        t[:2, :2] = [[c, s], [-s, c]]
        return t

    def _linearised(self, rollout: Rollout, state: np.ndarray, u: np.ndarray):
        """Return (A, B) of one control period at a planned state, in TRACKED."""
        law, car = rollout.law, rollout.car
        radius = car.params.wheel_radius_m

        def step(delta: np.ndarray, du: np.ndarray) -> np.ndarray:
            z = state.copy()
            z[[X, Y, YAW, VX, VY, YAW_RATE]] += delta
            z[OMEGA:OMEGA + 2] += delta[3] / radius
            car.restore(z)
            rear = (float(z[OMEGA + 2]), float(z[OMEGA + 3]))
            command = law.actuate(u[0] + du[0], np.full(2, u[1] + du[1]),
                                  law.schedule[-1].drive, rear, True)
            car.set_command(as_command(law, *command))
            car.advance(rollout.substeps, rollout.dt)
            return car.state[[X, Y, YAW, VX, VY, YAW_RATE]].copy()

        base = state[[X, Y, YAW, VX, VY, YAW_RATE]]
        steps = np.array([1e-4, 1e-4, 1e-5, 1e-4, 1e-4, 1e-5, 1e-5, 1e-3])
        columns = []
        for j, h in enumerate(steps):
            delta, du = np.zeros(6), np.zeros(2)
            (delta if j < 6 else du)[j % 6 if j < 6 else j - 6] = h
            columns.append((step(delta, du) - step(-delta, -du)) / (2.0 * h))
        jac = np.column_stack(columns)
        after = step(np.zeros(6), np.zeros(2))
        into, out = self.frame(base), self.frame(after)
        return out @ jac[:, :6] @ np.linalg.inv(into), out @ jac[:, 6:]

    @staticmethod
    def _riccati(jacobians, w: TrackingWeights) -> np.ndarray:
        """Return each step's gain (N x 2 x 6) from the backward sweep."""
        q = np.diag(1.0 / np.array([w.along_m, w.lateral_m, w.yaw_rad, w.vx_m_s, w.vy_m_s,
                                    w.yaw_rate_rad_s]) ** 2)
        r = np.diag(1.0 / np.array([w.steer_rad, w.wheel_speed_rad_s]) ** 2)
        p = w.terminal * q
        gains = np.zeros((len(jacobians), 2, 6))
        for k in range(len(jacobians) - 1, -1, -1):
            a, b = jacobians[k]
            gain = np.linalg.solve(r + b.T @ p @ b, b.T @ p @ a)
            p = q + a.T @ p @ (a - b @ gain)
            p = 0.5 * (p + p.T)
            gains[k] = gain
        return gains

    def inputs_at(self, into_s: float, pose_state: Sequence[float]) -> Tuple[float, float]:
        """
        Return (steer, rear wheel speed) into_s into the window for a canonical state.

        pose_state: x, y, yaw, vx, vy, yaw rate in the canonical frame, right to left.
        """
        position = min(max(into_s / self.period, 0.0), len(self.reference) - 1.0)
        k = min(int(position), len(self.reference) - 2)
        w = position - k
        reference = (1.0 - w) * self.reference[k] + w * self.reference[k + 1]
        deviation = np.asarray(pose_state, dtype=float) - reference
        deviation[2] = (deviation[2] + math.pi) % (2.0 * math.pi) - math.pi
        correction = -self.gains[k] @ (self.frame(reference) @ deviation)
        steer, wheel = self.transition.inputs(into_s)
        return steer + float(correction[0]), wheel + float(correction[1])
