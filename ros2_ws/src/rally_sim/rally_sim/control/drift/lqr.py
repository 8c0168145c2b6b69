"""
The reference drift controller: held on the car's own drift equilibria. ROS-free.

Four parts, after Hindiyeh & Gerdes (2014) and Goh, Goel & Gerdes (2020):

1. Feed-forward: the equilibrium (physics/equilibria.py) of the car on its
   surface at the circle's radius and the sideslip aimed at: steer angle,
   rear wheel spins and drive input (rear torques, or the throttle in the
   held gear).
2. An inner loop on the rear wheel speed: the drive input is the
   equilibrium's plus a proportional answer to the rear wheels' speed
   error, scaled by the inertia the drive accelerates (the wheels, and in
   driver mode the engine through the gear). It removes the slow speed
   mode that the equilibria show with the drive input held, and makes the
   rear wheel speed the outer loop's second input.
3. State feedback: a discrete LQR on the linearisation at the equilibrium,
   with the front wheel spins (fast, stable) residualised and the rear
   spins as an input (on springs, the body too: it rests where the car's
   motion puts it); its inputs are the steer angle and the rear wheel
   speed, its states the body velocities, the yaw rate and:
4. The path: the distance outside the circle and the course error (the
   velocity's direction less the circle's tangent), in the same state, so
   the regulator holds the car on the circle, not only in the slide.

The entry from grip driving: the sideslip aimed at ramps from 0 to the
target over entry_s (a smoothstep), the feed-forward and the gain
interpolated along the family of equilibria solved from 0 at init. A
right-hand circle (negative radius) is the left one mirrored.
"""

import copy
from dataclasses import dataclass, replace
import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .lqr_design import discretise, dlqr
from ..angles import wrap_angle
from ...physics import model, Surface, Vehicle
from ...physics.body.layout import BODY_POSITIONS, SPRUNG_STATE_SIZE
from ...physics.config import VehicleConfig
from ...physics.continuation import jacobian
from ...physics.drivetrain.driveline import gear_ratio
from ...physics.drivetrain.equations import curve_torque
from ...physics.equilibria import DRIVER, Equilibrium, EquilibriumError, SteadyState
from ...physics.integrators import C_DRIVE, C_STEER, COMMAND_SIZE, IMPLICIT_EULER
from ...physics.model import OMEGA, P_DRIVETRAIN, STEER, VX

STATES = ('vx', 'vy', 'yaw_rate', 'outside_m', 'course_rad', 'outside_integral_m_s',
          'sideslip_integral_rad_s')
"""The regulator's states (deviations from the equilibrium's), with two integrals: of the
distance outside the circle and of the sideslip error, so that a car unlike the one the law
was designed on (grip, mass) still ends on the circle at the sideslip aimed at."""
SCHEDULE_STEP_DEG = 1.0


class Act(NamedTuple):
    """A drift law's whole answer: steer [rad], drive, handbrake 0..1, gear (None: torque mode)."""

    steer_rad: float
    drive: object          # rear torques (rl, rr) [N m], or the throttle 0..1
    handbrake: float
    gear: Optional[int]    # driver mode: the gear (0 neutral)


@dataclass
class DriftDesign:
    """What the controller holds and how hard (SI units; sideslip signed, REP-103)."""

    radius_m: float = 15.0                 # positive: counter-clockwise
    sideslip_rad: float = math.radians(-25.0)
    center_x_m: float = 0.0
    center_y_m: float = 0.0
    mode: str = DRIVER                     # or 'torque' (rear drive torques)
    gear: Optional[int] = None             # driver mode; default: SteadyState's choice
    entry_s: float = 6.0                   # the sideslip aimed at ramps up over this
    control_period_s: float = 0.02
    wheel_speed_bandwidth_rad_s: float = 15.0
    sideslip_weight_rad: float = math.radians(1.0)     # Bryson: the error worth one unit
    yaw_rate_weight_rad_s: float = 0.02
    speed_weight_m_s: float = 0.1
    outside_weight_m: float = 0.1
    course_weight_rad: float = math.radians(2.0)
    steer_weight_rad: float = math.radians(2.0)
    wheel_speed_weight_rad_s: float = 2.0
    outside_integral_weight_m_s: float = 0.3
    sideslip_integral_weight_rad_s: float = math.radians(3.0)


@dataclass
class Point:
    """One equilibrium of the schedule, as the controller uses it."""

    sideslip_rad: float
    velocity: np.ndarray          # vx, vy, yaw rate
    steer_rad: float
    rear_omega: np.ndarray        # rl, rr
    drive: np.ndarray             # rear torques (rl, rr), or [throttle]
    gain: np.ndarray              # 2 x 7: steer and rear wheel speed from STATES


class DriftLqr:
    """Steer and drive for a drift round a circle, from the car's state."""

    def __init__(self, config: VehicleConfig, surface: str, design: DriftDesign = DriftDesign()):
        """Solve the family of equilibria from grip to the target and a gain for each."""
        self.design = design
        self.left = design.radius_m > 0.0
        self.radius_m = abs(design.radius_m)
        self.surface = surface
        self.vehicle = Vehicle(config, Surface.uniform(surface))
        self.solver = SteadyState(self.vehicle, design.mode, design.gear)
        target = abs(design.sideslip_rad)
        count = max(2, math.ceil(math.degrees(target) / SCHEDULE_STEP_DEG) + 1)
        traced = self.solver.trace(-np.linspace(0.0, target, count), radius_m=self.radius_m)
        family, ended = traced.equilibria, traced.ended
        self.entry_note = traced.note()
        """Why the car may not get from grip into the drift ('' when its family is whole)."""
        if ended or family[-1].limit:
            raise EquilibriumError(f'no drift to hold: {ended or family[-1].limit}')
        self.target = family[-1]
        self.grip: Equilibrium = family[0]
        """Where the family starts: grip driving at beta 0 (if traced.grip_found)."""
        self.grip_found = traced.grip_found
        self.schedule: List[Point] = [self._point(e) for e in family]
        self.driver = self.solver.mode == DRIVER
        self.gear = self.solver.gear
        self._drive_gain = self._inner_loop_gain()
        self.reset()
        self._steer_limit = float(np.nextafter(np.float32(config['steering.max_angle_rad']),
                                               np.float32(0.0)))
        """The steer limit as the largest float32 within it (ackermann_msgs' field)."""

    def placed(self, radius_m: float, center_x_m: float, center_y_m: float) -> 'DriftLqr':
        """Return this law on another circle of the same radius (either way round), reset."""
        if abs(radius_m) != self.radius_m:
            raise ValueError(f"placed: radius {abs(radius_m)} m is not the law's "
                             f'{self.radius_m} m')
        law = copy.copy(self)
        law.design = replace(self.design, radius_m=radius_m, center_x_m=center_x_m,
                             center_y_m=center_y_m)
        law.left = radius_m > 0.0
        law.reset()
        return law

    # ---- design ---------------------------------------------------------------

    def _point(self, e: Equilibrium) -> Point:
        """Return the schedule's point of an equilibrium: its inputs and its LQR gain."""
        a, b = self.linearisation(e)
        period = self.design.control_period_s
        d = self.design
        out = self._outputs(e)
        phi, gamma = self._with_integrals(*discretise(a, b, period), out, period)
        weights = 1.0 / np.array([d.sideslip_weight_rad, d.yaw_rate_weight_rad_s,
                                  d.speed_weight_m_s, d.outside_weight_m,
                                  d.course_weight_rad]) ** 2
        q = np.zeros((7, 7))
        q[:5, :5] = out.T @ np.diag(weights) @ out
        q[5, 5] = 1.0 / d.outside_integral_weight_m_s ** 2
        q[6, 6] = 1.0 / d.sideslip_integral_weight_rad_s ** 2
        r = np.diag(1.0 / np.array([d.steer_weight_rad, d.wheel_speed_weight_rad_s]) ** 2)
        drive = (np.array([e.throttle]) if e.mode == DRIVER
                 else np.array(e.drive_torque_n_m[2:]))
        return Point(e.sideslip_rad, e.state[VX:VX + 3].copy(), e.steer_rad,
                     np.array(e.omega_rad_s[2:]), drive, dlqr(phi, gamma, q, r))

    def linearisation(self, e: Equilibrium) -> Tuple[np.ndarray, np.ndarray]:
        """
        Return (A, B) of the regulator's states and inputs at an equilibrium (continuous).

        From document 002's derivatives (model.derivatives) by central
        differences, the equilibrium's drive torques held; the front spins
        residualised (their derivatives set to 0), on springs the body's
        states too (kernel_jacobian); the path's rows: outside' = -V course,
        course' = dr + dbeta' - dV / R + V outside / R^2.
        """
        if self.vehicle.sprung:
            full = self.kernel_jacobian(e)
        else:
            full = self.planar_jacobian(e)
        slow, fast = [0, 1, 2], [3, 4] + list(range(7, len(full)))
        inputs = np.column_stack([full[:, -1], full[:, 5] + full[:, 6]])   # steer, rear spin
        a_ff = full[np.ix_(fast, fast)]
        a_chassis = full[np.ix_(slow, slow)] - full[np.ix_(slow, fast)] @ np.linalg.solve(
            a_ff, full[np.ix_(fast, slow)])
        b_chassis = inputs[slow] - full[np.ix_(slow, fast)] @ np.linalg.solve(a_ff, inputs[fast])
        vx, vy = e.state[VX], e.state[VX + 1]
        speed, radius = math.hypot(vx, vy), self.radius_m
        beta_row = np.array([-vy, vx, 0.0]) / speed ** 2          # dbeta / d(vx, vy, r)
        speed_row = np.array([vx, vy, 0.0]) / speed               # dV / d(vx, vy, r)
        a = np.zeros((5, 5))
        b = np.zeros((5, 2))
        a[:3, :3], b[:3] = a_chassis, b_chassis
        a[3, 4] = -speed
        a[4, :3] = np.array([0.0, 0.0, 1.0]) + beta_row @ a_chassis - speed_row / radius
        a[4, 3] = speed / radius ** 2
        b[4] = beta_row @ b_chassis
        return a, b

    def planar_jacobian(self, e: Equilibrium) -> np.ndarray:
        """Return d(vx, vy, r, omega x4)' / d(the same, steer) at an equilibrium (7 x 8)."""
        car = self.vehicle
        z0 = e.state[VX:OMEGA + 4].copy()
        drive = np.array(e.drive_torque_n_m)
        diag = np.zeros((model.DIAG_SIZE, 4))

        def f(z, steer):
            return model.derivatives(z, steer, drive, car.friction, car.flat_params, diag)
        full = np.zeros((7, 8))                  # columns: z (7), steer
        for j in range(8):
            step = 1e-6 * max(1.0, abs(z0[j]) if j < 7 else 1.0)
            up, down = z0.copy(), z0.copy()
            steer_up = steer_down = e.steer_rad
            if j < 7:
                up[j] += step
                down[j] -= step
            else:
                steer_up += step
                steer_down -= step
            full[:, j] = (f(up, steer_up) - f(down, steer_down)) / (2.0 * step)
        return full

    def kernel_jacobian(self, e: Equilibrium) -> np.ndarray:
        """
        Return the continuous Jacobian at an equilibrium from the simulator's own sub-step.

        Rows and columns: vx, vy, r, the four spins (on springs, then the
        body's 14 states); the last column the steer. From the sub-step map M
        (central differences, the drive torques held) through the
        integrator's inverse: implicit Euler's M = (I - h J)^-1 gives
        J = (I - M^-1) / h and the input's column M^-1 (dz+ / du) / h
        (another integrator: (M - I) / h, to first order). The way a body
        on springs enters the design (planar_jacobian has no body).
        """
        solver, state = self.solver, e.state
        rows = np.arange(VX, OMEGA + 4)
        if self.vehicle.sprung:
            rows = np.r_[rows, BODY_POSITIONS:SPRUNG_STATE_SIZE]
        command = np.zeros(COMMAND_SIZE)
        command[C_DRIVE:C_DRIVE + 4] = e.drive_torque_n_m

        def step_map(values: np.ndarray) -> np.ndarray:
            trial = state.copy()
            trial[rows] = values[:-1]
            trial[STEER] = command[C_STEER] = values[-1]
            return solver.step_once(trial, command)[rows]

        map_jacobian = jacobian(step_map, np.append(state[rows], e.steer_rad))
        m, dz_du = map_jacobian[:, :-1], map_jacobian[:, -1:]
        h, n = solver.h, len(rows)
        if self.vehicle.method == IMPLICIT_EULER:
            m_inverse = np.linalg.inv(m)
            return np.hstack([(np.eye(n) - m_inverse) / h, m_inverse @ dz_du / h])
        return np.hstack([(m - np.eye(n)) / h, dz_du / h])

    @staticmethod
    def _with_integrals(phi: np.ndarray, gamma: np.ndarray, out: np.ndarray,
                        period_s: float) -> Tuple[np.ndarray, np.ndarray]:
        """Return the discrete model with the integrals of outside_m and of the sideslip."""
        big_phi = np.eye(7)
        big_phi[:5, :5] = phi
        big_phi[5, :5] = period_s * out[3]       # outside_m
        big_phi[6, :5] = period_s * out[0]       # the sideslip error
        big_gamma = np.zeros((7, 2))
        big_gamma[:5] = gamma
        return big_phi, big_gamma

    def _outputs(self, e: Equilibrium) -> np.ndarray:
        """Return the rows that map STATES to (sideslip, yaw rate, speed, outside, course)."""
        vx, vy = e.state[VX], e.state[VX + 1]
        speed = math.hypot(vx, vy)
        out = np.zeros((5, 5))
        out[0, :2] = np.array([-vy, vx]) / speed ** 2
        out[1, 2] = 1.0
        out[2, :2] = np.array([vx, vy]) / speed
        out[3, 3] = out[4, 4] = 1.0
        return out

    def _inner_loop_gain(self) -> float:
        """Return the drive per rad/s of rear wheel speed error: N m per wheel, or throttle."""
        car = self.vehicle
        bandwidth = self.design.wheel_speed_bandwidth_rad_s
        wheel = car.params.wheel_inertia_kg_m2
        if not self.driver:
            return bandwidth * wheel
        p = car.flat_params
        ratio = abs(gear_ratio(self.gear, p))
        config = car.config
        axle_inertia = 2.0 * wheel + config['engine.inertia_kg_m2'] * ratio ** 2
        rpm = self.target.engine_rpm
        per_throttle = ratio * config['gearbox.efficiency'] * curve_torque(rpm, p, P_DRIVETRAIN)
        return bandwidth * axle_inertia / per_throttle

    # ---- control ----------------------------------------------------------------

    def reset(self) -> None:
        """Forget the integrals (a new run, or time that went back)."""
        self._integrals = np.zeros(2)
        self._last_time_s = -math.inf

    def share(self, time_s: float) -> float:
        """Return the share of the target sideslip aimed at time_s in: 0 grip .. 1 the target."""
        if self.design.entry_s <= 0.0:
            return 1.0
        u = min(max(time_s / self.design.entry_s, 0.0), 1.0)
        return 3.0 * u * u - 2.0 * u ** 3

    def aimed(self, share: float) -> Point:
        """Return the schedule's point at a share of the target sideslip, interpolated."""
        position = min(max(share, 0.0), 1.0) * (len(self.schedule) - 1)
        k = min(int(position), len(self.schedule) - 2)
        w = position - k
        a, b = self.schedule[k], self.schedule[k + 1]
        return Point(*(w * np.asarray(getattr(b, name)) + (1.0 - w) * np.asarray(getattr(a, name))
                       for name in ('sideslip_rad', 'velocity', 'steer_rad', 'rear_omega',
                                    'drive', 'gain')))

    def errors(self, point: Point, x: float, y: float, yaw: float, vx: float, vy: float,
               yaw_rate: float) -> np.ndarray:
        """Return the regulator's state (STATES) of a left-turn (mirrored) CG state."""
        dx, dy = x - self.design.center_x_m, y - self.design.center_y_m
        outside = math.hypot(dx, dy) - self.radius_m
        course = wrap_angle(yaw + math.atan2(vy, vx) - (math.atan2(dy, dx) + 0.5 * math.pi))
        return np.array([vx - point.velocity[0], vy - point.velocity[1],
                         yaw_rate - point.velocity[2], outside, course])

    def command(self, time_s: float, x: float, y: float, yaw: float, vx: float, vy: float,
                yaw_rate: float, rear_omega: Sequence[float]):
        """
        Return (steer [rad], drive) for the CG state and the rear wheels' spins (rl, rr).

        time_s: since the start (the entry ramps the sideslip up over
        entry_s; time that goes back resets the integrals). drive: the rear
        wheels' torques (rl, rr) [N m] in torque mode, or the throttle 0..1
        in driver mode (the gear is `gear`).
        """
        if time_s < self._last_time_s:
            self.reset()
        self._last_time_s = time_s
        return self.command_at(self.share(time_s), time_s >= self.design.entry_s,
                               x, y, yaw, vx, vy, yaw_rate, rear_omega)

    def act(self, *args) -> Act:
        """Return command()'s answer as an Act (no handbrake; the held gear in driver mode)."""
        return Act(*self.command(*args), 0.0, int(self.gear) if self.driver else None)

    def command_at(self, share: float, integrate: bool, x: float, y: float, yaw: float,
                   vx: float, vy: float, yaw_rate: float, rear_omega: Sequence[float]):
        """command() at a share of the target sideslip; the integrals move if `integrate`."""
        return self.actuate(*self.regulate(share, integrate, x, y, yaw, vx, vy, yaw_rate,
                                           rear_omega), self.left)

    def regulate(self, share: float, integrate: bool, x: float, y: float, yaw: float,
                 vx: float, vy: float, yaw_rate: float, rear_omega: Sequence[float]):
        """
        Return the outer loop's answer: (steer, rear wheel speeds wanted, drive, rear spins).

        In the left-turn frame (a right-hand circle's state mirrored, its
        rear spins swapped), before the inner loop (actuate()).
        """
        rl, rr = rear_omega
        if not self.left:              # mirror a right-hand circle onto the left one
            cy = self.design.center_y_m
            y, yaw, vy, yaw_rate, rl, rr = 2.0 * cy - y, -yaw, -vy, -yaw_rate, rr, rl
        point = self.aimed(share)
        errors = self.errors(point, x, y, yaw, vx, vy, yaw_rate)
        correction = -point.gain @ np.concatenate([errors, self._integrals])
        if integrate:
            sideslip_error = math.atan2(vy, vx) - point.sideslip_rad
            self._integrals += self.design.control_period_s * np.array(
                [errors[3], sideslip_error])
        return (point.steer_rad + correction[0], point.rear_omega + correction[1], point.drive,
                (rl, rr))

    def actuate(self, steer: float, wanted: np.ndarray, drive_ff: np.ndarray,
                rear_omega: Sequence[float], left: bool):
        """
        Return (steer, drive) of a left-turn steer and rear wheel speeds wanted, as command().

        drive_ff: the feed-forward drive (the equilibrium's); rear_omega: the
        rear spins in the left-turn frame. The inner loop adds the answer to
        the wheel speed error; left False mirrors steer and rear torques back.
        """
        rl, rr = rear_omega
        limit = self._steer_limit
        steer = min(max(steer, -limit), limit)
        if self.driver:
            error = float(np.mean(wanted) - 0.5 * (rl + rr))
            drive = min(max(drive_ff[0] + self._drive_gain * error, 0.0), 1.0)
            return (steer if left else -steer), drive
        limit_n_m = self.vehicle.drive_limit[2]
        torques = np.clip(drive_ff + self._drive_gain * (wanted - np.array([rl, rr])),
                          -limit_n_m, limit_n_m)
        if not left:
            return -steer, (float(torques[1]), float(torques[0]))
        return steer, (float(torques[0]), float(torques[1]))
