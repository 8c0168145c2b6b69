"""
Steady cornering of the four-wheel model: drift equilibria and their stability.

An equilibrium is a state in which the car slides round a circle at a
constant speed V, sideslip beta = atan2(vy, vx) and yaw rate r = V / R, its
four wheels spinning at constant rates, with its inputs held: the steer
angle and either a drive torque per axle (torque mode) or a throttle in a
held gear through the car's drivetrain (driver mode). Given the radius (or
the speed) and the sideslip, the speed (or the radius), the steer angle, the
wheel spins and the drive input are the unknowns, and the equations are the
model's own: every derivative is zero.

The derivatives are those the simulator integrates: one sub-step of the
compiled kernel (integrators.advance) from the state, (z_new - z) / h, for
the chassis velocities, the four wheel spins and, in driver mode, the
engine. A step of the model's integrator leaves z unchanged exactly when the
model's derivative vanishes there (implicit Euler: (I - h J) dz = h f), and
the drivetrain's clutch and differentials act inside that step as they do in
every run, with load transfer as the model computes it.

Stability comes from the same step: its Jacobian M by central differences,
each multiplier mu mapped back to a continuous eigenvalue by the inverse of
the integrator's amplification (implicit Euler: lambda = (mu - 1) / (h mu),
exact for a linear model). A coupling that holds two speeds together (the
clutch, a locked differential) removes a direction in one step (mu about 0):
those are constraints, not modes, and are left out.

A car on springs (body: suspension) rests on them in an equilibrium: its
body's positions are where its accelerations vanish under the car's steady
motion (its rates 0), solved inside every evaluation (settle), so the
equations and the unknowns are the planar car's, the loads the tyres' at
the steady roll and pitch; its stability has the body's modes too.

Sign conventions are REP-103's: a positive radius turns left (counter-
clockwise, r > 0), where a drift has negative sideslip (the nose inside the
circle, the velocity to the car's right).
"""

from dataclasses import dataclass, field
import json
import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .body.layout import (
    BODY_DOF, BODY_POSITIONS, BODY_RATES, PITCH, ROLL, ROLL_RATE, SPRUNG_STATE_SIZE, WHEEL_VZ,
    WHEEL_Z)
from .continuation import jacobian
from .drivetrain.driveline import gear_ratio
from .drivetrain.equations import curve_torque, D_WEIGHTS, RPM_PER_RAD_S
from .drivetrain.torque_mode import coupled_axles
from .families import Family, trace_family
from .integrators import (
    advance, C_DRIVE, C_DRIVER, C_GEAR, C_STEER, C_THROTTLE, COMMAND_SIZE, EULER,
    I_AGE, IMPLICIT_EULER, JACOBIAN_REFRESH_SUBSTEPS, O_DRIVE, OUTPUT_ROWS, Workspace)
from .model import (
    ENGINE, FOUR_WHEEL, GEAR, MF_COLD_PASSES, OMEGA, P_DRIVETRAIN, P_LOAD_PASSES, P_MODEL,
    P_RELAX, STATE_SIZE, STEER, VX, VY, X, YAW, YAW_RATE)
from .vehicle import state_size, Vehicle

STATE_NAMES = ('x', 'y', 'yaw', 'vx', 'vy', 'yaw_rate', 'omega_fl', 'omega_fr', 'omega_rl',
               'omega_rr', 'steer', 'engine', 'gear', 'shift_left')
"""The model's state entries (model.py's layout), as an equilibrium's JSON names them."""
BODY_STATE_NAMES = ('heave', 'roll', 'pitch', 'wheel_z_fl', 'wheel_z_fr', 'wheel_z_rl',
                    'wheel_z_rr', 'heave_rate', 'roll_rate', 'pitch_rate', 'wheel_vz_fl',
                    'wheel_vz_fr', 'wheel_vz_rl', 'wheel_vz_rr')
"""A car on springs' further entries (body/layout.py), after STATE_NAMES."""
TORQUE, DRIVER = 'torque', 'driver'
RESIDUAL_TOLERANCE = 1e-10
"""Newton stops when every scaled derivative is below this (the target is 1e-9)."""
CONSTRAINT_MULTIPLIER = 0.01
"""A step multiplier below this is a coupling's constraint, not a mode: a locked clutch or
differential makes two speeds one within a sub-step (mu about 0, what its passes leave);
a mode decaying that fast (faster than 99 / h) is beyond what a step of h resolves."""
MAX_ITERATIONS = 40
SOLVED = 1e-9
"""The largest scaled derivative an equilibrium may leave."""
BODY_TOLERANCE = 1e-11
"""A body on springs is settled when its accelerations are below this share of g."""
BODY_ITERATIONS = 30
BODY_LARGEST_ANGLE_RAD = 0.5
"""A settled roll or pitch beyond this is no rest on the springs (the body's angles are small
ones): the car would be on its side or its nose."""


class EquilibriumError(ValueError):
    """
    No equilibrium where asked; the message says which limit bites.

    Input that cannot be asked at all (a radius below the wheelbase, a
    model without tyre slip) is a plain ValueError.
    """


@dataclass
class Equilibrium:
    """One steady cornering state with its inputs and stability (SI units, REP-103)."""

    radius_m: float
    speed_m_s: float
    sideslip_rad: float
    yaw_rate_rad_s: float
    steer_rad: float
    omega_rad_s: Tuple[float, float, float, float]
    drive_torque_n_m: Tuple[float, float, float, float]
    """Each wheel's drive torque at the equilibrium (driver mode: the drivetrain's)."""
    mode: str
    throttle: Optional[float]
    gear: Optional[int]
    engine_rpm: Optional[float]
    state: np.ndarray
    """The model's full state (STATE_NAMES, and BODY_STATE_NAMES on springs), on a circle
    centred at the origin."""
    residual: float
    """The largest derivative at the solution, each over its scale (derivative_scales)."""
    eigenvalues: np.ndarray = field(default_factory=lambda: np.zeros(0, complex))
    constraints: int = 0
    """How many directions the locked couplings (clutch, differentials) remove."""
    spin_held_eigenvalues: np.ndarray = field(default_factory=lambda: np.zeros(0, complex))
    """The eigenvalues with the driven wheels' spins held by an ideal inner loop."""
    limit: str = ''
    """Which of the car's limits the equilibrium needs more than ('' when none)."""
    unknowns: np.ndarray = field(default=None, repr=False)
    """The solver's unknowns, to continue a family from."""
    roll_rad: float = 0.0
    pitch_rad: float = 0.0
    """The body's steady roll (left side up positive) and pitch (nose down positive) on its
    springs; 0 for the planar body."""

    @property
    def unstable(self) -> np.ndarray:
        """Return the eigenvalues with a positive real part."""
        return self.eigenvalues[self.eigenvalues.real > 0.0]

    @property
    def stable(self) -> bool:
        """Return True when no eigenvalue has a positive real part."""
        return len(self.unstable) == 0

    def axle_torque_n_m(self) -> Tuple[float, float]:
        """Return the (front, rear) axle drive torques [N m]."""
        t = self.drive_torque_n_m
        return t[0] + t[1], t[2] + t[3]

    def to_json(self) -> dict:
        """Return a JSON-ready description: the full state, the inputs, the stability."""
        inputs = {'mode': self.mode, 'steer_rad': self.steer_rad}
        if self.mode == DRIVER:
            inputs.update(throttle=self.throttle, gear=self.gear)
        else:
            inputs['drive_torque_n_m'] = list(self.drive_torque_n_m)
        return {
            'radius_m': self.radius_m, 'speed_m_s': self.speed_m_s,
            'sideslip_rad': self.sideslip_rad, 'sideslip_deg': math.degrees(self.sideslip_rad),
            'yaw_rate_rad_s': self.yaw_rate_rad_s,
            'roll_rad': self.roll_rad, 'roll_deg': math.degrees(self.roll_rad),
            'pitch_rad': self.pitch_rad, 'pitch_deg': math.degrees(self.pitch_rad),
            'state': dict(zip(STATE_NAMES + BODY_STATE_NAMES, (float(v) for v in self.state))),
            'inputs': inputs,
            'drive_torque_n_m': list(self.drive_torque_n_m),
            'engine_rpm': self.engine_rpm,
            'residual': self.residual,
            'within_limits': not self.limit, 'limit': self.limit,
            'stable': self.stable, 'constraints': self.constraints,
            'eigenvalues': [[float(v.real), float(v.imag)] for v in self.eigenvalues],
            'unstable_eigenvalues': [[float(v.real), float(v.imag)] for v in self.unstable],
            'spin_held_eigenvalues': [[float(v.real), float(v.imag)]
                                      for v in self.spin_held_eigenvalues],
        }


def read_equilibrium(path: str) -> dict:
    """
    Return one equilibrium of a JSON file (`./rally equilibria --json`): its state, its inputs.

    PATH or PATH#K (the K-th of a family, from 0). The result has 'state'
    (STATE_SIZE floats, or SPRUNG_STATE_SIZE from a car on springs) and
    'inputs' (mode, steer_rad, and throttle and gear or drive_torque_n_m).
    ValueError names the file and the field.
    """
    name, _, index = path.partition('#')
    try:
        with open(name, encoding='utf-8') as stream:
            data = json.load(stream)
    except (OSError, ValueError) as error:
        raise ValueError(f'cannot read equilibrium file {name}: {error}') from None
    items = data.get('equilibria') if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise ValueError(f'{name}: equilibria: a non-empty list is needed (the file that '
                         '`./rally equilibria --json` writes)')
    if not index and len(items) > 1:
        raise ValueError(f'{name} holds {len(items)} equilibria: choose one with '
                         f'{name}#K (K from 0 to {len(items) - 1})')
    try:
        k = int(index or 0)
        item = items[k]
    except (ValueError, IndexError):
        raise ValueError(f'{path}: no equilibrium {index!r} (0 to {len(items) - 1})') from None
    field_name = f'{name}: equilibria[{k}]'
    state = item.get('state') if isinstance(item, dict) else None
    if not isinstance(state, dict):
        raise ValueError(f'{field_name}.state: a mapping of {", ".join(STATE_NAMES)} is needed')
    names = STATE_NAMES + (BODY_STATE_NAMES if BODY_STATE_NAMES[0] in state else ())
    values = [_finite_field(f'{field_name}.state.{key}', state.get(key)) for key in names]
    inputs = item.get('inputs')
    if not isinstance(inputs, dict) or inputs.get('mode') not in (TORQUE, DRIVER):
        raise ValueError(f"{field_name}.inputs: a mapping with mode 'torque' or 'driver' "
                         'is needed')
    checked = {'mode': inputs['mode'],
               'steer_rad': _finite_field(f'{field_name}.inputs.steer_rad',
                                          inputs.get('steer_rad'))}
    if inputs['mode'] == DRIVER:
        checked['throttle'] = _finite_field(f'{field_name}.inputs.throttle',
                                            inputs.get('throttle'))
        checked['gear'] = _finite_field(f'{field_name}.inputs.gear', inputs.get('gear'))
    else:
        torques = inputs.get('drive_torque_n_m')
        if not isinstance(torques, list) or len(torques) != 4:
            raise ValueError(f'{field_name}.inputs.drive_torque_n_m: 4 numbers are needed '
                             '(fl, fr, rl, rr)')
        checked['drive_torque_n_m'] = [
            _finite_field(f'{field_name}.inputs.drive_torque_n_m[{i}]', t)
            for i, t in enumerate(torques)]
    return {'state': np.array(values), 'inputs': checked}


def mirror_body(state: np.ndarray) -> np.ndarray:
    """
    Return a copy of a state with its body mirrored left to right (a right-hand turn's).

    Roll and its rate change sign, each axle's wheels swap heights and rates;
    heave and pitch stay. A planar state (STATE_SIZE) is copied unchanged.
    """
    mirrored = np.array(state, dtype=float)
    if len(mirrored) == STATE_SIZE:
        return mirrored
    swap = [1, 0, 3, 2]
    mirrored[[ROLL, ROLL_RATE]] *= -1.0
    mirrored[WHEEL_Z:WHEEL_Z + 4] = state[WHEEL_Z:WHEEL_Z + 4][swap]
    mirrored[WHEEL_VZ:WHEEL_VZ + 4] = state[WHEEL_VZ:WHEEL_VZ + 4][swap]
    return mirrored


def _finite_field(name: str, value) -> float:
    """Return value as a float; ValueError naming the field unless a finite number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f'{name}: {value!r} is not a finite number')
    return float(value)


class SteadyState:
    """The steady-cornering equations of one car on one surface, solved by Newton's method."""

    def __init__(self, vehicle: Vehicle, mode: str = None, gear: int = None,
                 front_share: float = None):
        """
        Solve for `vehicle` on its surface (a uniform one: the circle is centred at the origin).

        mode: 'driver' (throttle through the drivetrain in `gear`) or
        'torque' (a drive torque per axle, split front_share to the front
        and each axle's equally between its wheels); default: driver for a
        car with a drivetrain.
        """
        config = vehicle.config
        if vehicle.flat_params[P_MODEL] != FOUR_WHEEL:
            raise ValueError(
                f"vehicle '{config['name']}' uses the {config['model']} model: equilibria need "
                "the four_wheel model's tyre slip and wheel spin (its drift is a state of "
                'slipping, spinning tyres, which this model has not)')
        self.vehicle = vehicle
        self.size = state_size(config)
        self.sprung = self.size == SPRUNG_STATE_SIZE
        self._static_body = None
        """On springs: the body's positions at static ride (where every settle starts), and
        the Jacobian of its accelerations (kept while it serves)."""
        self._body_jacobian = None
        self.mode = mode or (DRIVER if vehicle.has_drivetrain else TORQUE)
        if self.mode not in (TORQUE, DRIVER):
            raise ValueError(f"mode '{self.mode}' must be 'torque' or 'driver'")
        if self.mode == DRIVER:         # a drivetrain and the gear (CommandError names them)
            vehicle.check_gear(1 if gear is None else gear)
            if gear is not None and gear < 1:
                raise ValueError(f'gear {gear}: steady cornering needs a forward gear (1..'
                                 f'{vehicle.gears})')
        self.gear = gear
        self.front_share = self._front_share(front_share)
        p = vehicle.params
        self.h = config['dt']
        self.wheelbase_m = wheelbase = p.cg_to_front_m + p.cg_to_rear_m
        self.solved = SOLVED
        g = p.gravity_m_s2
        self.scales = np.array([g, g, g / wheelbase, *(g / p.radii())])
        self._work = Workspace()
        self._outputs = np.zeros((OUTPUT_ROWS, 4))
        self._command = np.zeros(COMMAND_SIZE)
        self._params = vehicle.flat_params.copy()
        self._params[P_LOAD_PASSES] = MF_COLD_PASSES
        self._params[P_RELAX] = 0.0
        """The simulator's parameters, but Magic Formula loads solved to convergence in every
        evaluation (the simulator's loads converge over its steps: the same in steady state),
        and no tyre relaxation (in steady state the tyres' slips are their motion's)."""

    # ---- the equations ------------------------------------------------------

    def _front_share(self, share: Optional[float]) -> float:
        """Return the front axle's share of the drive torque in torque mode."""
        if share is not None:
            if not 0.0 <= share <= 1.0:
                raise ValueError(f'front_share {share} must be within [0, 1]')
            return share
        front, rear = self.vehicle.drive_limit[0], self.vehicle.drive_limit[2]
        if front + rear <= 0.0:
            raise ValueError(f"vehicle '{self.vehicle.config['name']}' has no drive "
                             'torque in torque mode (drive.max_torque_*_n_m are 0)')
        return front / (front + rear)

    def state_of(self, curvature: float, speed_m_s: float, sideslip_rad: float,
                 unknowns: np.ndarray) -> np.ndarray:
        """
        Return the model state for a circle (1 / radius) and the unknowns, centred at 0, 0.

        On springs the body's entries are 0 (not placed): settle() puts it.
        """
        state = np.zeros(self.size)
        if curvature != 0.0:
            state[X] = 1.0 / curvature
        state[YAW] = math.copysign(math.pi / 2.0, curvature) - sideslip_rad
        state[VX] = speed_m_s * math.cos(sideslip_rad)
        state[VY] = speed_m_s * math.sin(sideslip_rad)
        state[YAW_RATE] = speed_m_s * curvature
        state[OMEGA:OMEGA + 4] = unknowns[2:6]
        state[STEER] = unknowns[1]
        if self.mode == DRIVER:
            state[ENGINE] = unknowns[7]
            state[GEAR] = self.gear
        return state

    def command_of(self, unknowns: np.ndarray) -> np.ndarray:
        """Return the kernel command that holds the unknowns' inputs."""
        command = self._command
        command[:] = 0.0
        command[C_STEER] = unknowns[1]
        if self.mode == DRIVER:
            command[C_DRIVER] = 1.0
            command[C_THROTTLE] = unknowns[6]
            command[C_GEAR] = self.gear
        else:
            front, rear = self.front_share * unknowns[6], (1.0 - self.front_share) * unknowns[6]
            command[C_DRIVE:C_DRIVE + 4] = 0.5 * front, 0.5 * front, 0.5 * rear, 0.5 * rear
        return command

    def step_once(self, state: np.ndarray, command: np.ndarray) -> np.ndarray:
        """Return the state after one sub-step of the simulator's kernel, Jacobian fresh."""
        v, w = self.vehicle, self._work
        new = state.copy()
        w.ints[I_AGE] = JACOBIAN_REFRESH_SUBSTEPS
        advance(new, command, self.h, 1, 1, v.method, self._params, v.tyre_mu, v.map_arrays[0],
                v.map_arrays[1], w.vectors, w.wheel, w.matrices, w.ints, self._outputs)
        return new

    def settle(self, state: np.ndarray, command: np.ndarray) -> bool:
        """
        On springs: put the body where it rests under the state's motion; False if it cannot.

        Its positions (heave, roll, pitch, wheel heights) solve the body's
        accelerations = 0 with its rates 0, the planar states and the
        inputs held: Newton's method on the kernel's own sub-step (the
        rates after one step of h from rest, over h), from the static ride
        the kernel places the body at (every time: the rest found does not
        depend on the last one, and a start far from it, left by a wheel
        spinning away, cannot lead to a nonsense rest), its Jacobian kept
        while each step shrinks the accelerations tenfold. A rest rolled or
        pitched beyond BODY_LARGEST_ANGLE_RAD is none. The planar body:
        nothing to do (True).
        """
        if not self.sprung:
            return True
        positions = slice(BODY_POSITIONS, BODY_POSITIONS + BODY_DOF)
        rates = slice(BODY_RATES, BODY_RATES + BODY_DOF)
        trial = state.copy()

        def accelerations(q: np.ndarray) -> np.ndarray:
            trial[positions] = q
            trial[rates] = 0.0
            return self.step_once(trial, command)[rates] / self.h

        if self._static_body is None:       # the kernel places a car at rest at static ride
            rest = self.step_once(np.zeros(self.size), np.zeros(COMMAND_SIZE))
            self._static_body = rest[positions]
        q = self._static_body.copy()
        a = accelerations(q)
        norm = float(np.max(np.abs(a)))
        tolerance = BODY_TOLERANCE * self.vehicle.params.gravity_m_s2
        fresh = False
        for _ in range(BODY_ITERATIONS):
            if not math.isfinite(norm) or norm < tolerance:
                break
            if self._body_jacobian is None:
                self._body_jacobian, fresh = jacobian(accelerations, q), True
            try:
                q_new = q - np.linalg.solve(self._body_jacobian, a)
            except np.linalg.LinAlgError:
                return False
            a_new = accelerations(q_new)
            norm_new = float(np.max(np.abs(a_new)))
            if not norm_new < 0.1 * norm and not fresh:
                self._body_jacobian = None          # stale: compute it here and try again
                continue
            q, a, norm, fresh = q_new, a_new, norm_new, False
        if not norm < tolerance or max(abs(q[ROLL - BODY_POSITIONS]),
                                       abs(q[PITCH - BODY_POSITIONS])) > BODY_LARGEST_ANGLE_RAD:
            return False
        state[positions] = q
        state[rates] = 0.0
        return True

    def dynamic_rows(self, body: bool = True) -> np.ndarray:
        """Return the indices of the dynamic states: velocities, spins (the engine, the body)."""
        rows = list(range(VX, OMEGA + 4)) + ([ENGINE] if self.mode == DRIVER else [])
        if self.sprung and body:
            rows += list(range(BODY_POSITIONS, SPRUNG_STATE_SIZE))
        return np.array(rows)

    def derivatives(self, state: np.ndarray, command: np.ndarray) -> np.ndarray:
        """Return the planar dynamic states' derivatives as the simulator integrates them."""
        rows = self.dynamic_rows(body=False)
        return (self.step_once(state, command)[rows] - state[rows]) / self.h

    def scaled(self, derivatives: np.ndarray) -> np.ndarray:
        """Return each derivative over its scale (the engine's: the wheels' times the gear)."""
        if self.mode == DRIVER:
            ratio = abs(gear_ratio(self.gear, self.vehicle.flat_params))
            scales = np.append(self.scales, self.scales[-1] * ratio)
        else:
            scales = self.scales
        return derivatives / scales

    def unknown_scales(self, radius_m: Optional[float], speed_m_s: Optional[float]) -> np.ndarray:
        """
        Return each unknown's scale, for continuation in unknowns of order one.

        Speed: the grip speed sqrt(mu g R) (or curvature mu g / V^2); steer
        0.1 rad; spins: that speed over the wheel radius; drive: a tenth of
        m g R_w (torque) or 0.1 (throttle); the engine: the spins times the gear.
        """
        v = self.vehicle
        p = v.params
        grip = float(np.mean(v.friction)) * p.gravity_m_s2
        if radius_m is not None:
            speed = math.sqrt(grip * abs(radius_m))
            first = speed
        else:
            speed, first = speed_m_s, grip / speed_m_s ** 2
        spins = speed / p.radii()
        driven_radius = float(self.command_of_drive_share() @ p.radii())
        if self.mode == DRIVER:
            ratio = abs(gear_ratio(self.gear, v.flat_params))
            return np.array([first, 0.1, *spins, 0.1, speed / driven_radius * ratio])
        torque = 0.1 * p.mass_kg * p.gravity_m_s2 * driven_radius
        return np.array([first, 0.1, *spins, torque])

    # ---- Newton's method ----------------------------------------------------

    def _circle(self, unknowns: np.ndarray, radius_m: Optional[float],
                speed_m_s: Optional[float]) -> Tuple[float, float]:
        """Return (curvature, speed): the given one and the unknown one (unknowns[0])."""
        if radius_m is not None:
            return 1.0 / radius_m, unknowns[0]
        return unknowns[0], speed_m_s

    def residual(self, unknowns: np.ndarray, sideslip_rad: float, radius_m: float = None,
                 speed_m_s: float = None) -> np.ndarray:
        """Return the scaled derivatives at the unknowns (zero at an equilibrium)."""
        curvature, speed = self._circle(unknowns, radius_m, speed_m_s)
        state = self.state_of(curvature, speed, sideslip_rad, unknowns)
        command = self.command_of(unknowns)
        if not self.settle(state, command):
            return np.full(len(unknowns), math.nan)     # no rest on its springs there
        return self.scaled(self.derivatives(state, command))

    def first_guess(self, sideslip_rad: float, radius_m: float = None,
                    speed_m_s: float = None) -> np.ndarray:
        """Return a starting point: a gentle turn at 0.4 of the grip, wheels rolling."""
        v = self.vehicle
        p = v.params
        grip = float(np.mean(v.friction)) * p.gravity_m_s2
        if radius_m is not None:
            speed = math.sqrt(0.4 * grip * abs(radius_m))
            curvature = 1.0 / radius_m
        else:
            speed, curvature = speed_m_s, 0.4 * grip / speed_m_s ** 2
        vx, vy = speed * math.cos(sideslip_rad), speed * math.sin(sideslip_rad)
        r = speed * curvature
        steer = math.atan2(vy + p.cg_to_front_m * r, vx)
        c = p.half_track_m
        spins = (vx - r * np.array([c, -c, c, -c])) / p.radii()
        if self.mode == TORQUE:     # an axle coupled in torque mode starts at one speed:
            for axle in coupled_axles(self.vehicle.flat_params):    # (else Newton may
                spins[2 * axle:2 * axle + 2] = spins[2 * axle:2 * axle + 2].mean()  # stop)
        unknowns = np.array([speed if radius_m is not None else curvature, steer, *spins, 0.0])
        if self.mode == DRIVER:
            return self.driver_guess(sideslip_rad, radius_m, speed_m_s, unknowns)
        return unknowns

    def driver_guess(self, sideslip_rad: float, radius_m: Optional[float],
                     speed_m_s: Optional[float], rolling: np.ndarray) -> np.ndarray:
        """Return a driver-mode start from a torque-mode one: its solution, torque as throttle."""
        v = self.vehicle
        p = v.flat_params
        weights = p[P_DRIVETRAIN + D_WEIGHTS:P_DRIVETRAIN + D_WEIGHTS + 4]
        helper = SteadyState(v, TORQUE, front_share=float(weights[0] + weights[1]))
        unknowns, _ = helper.newton(rolling, sideslip_rad, radius_m, speed_m_s)
        ratio = gear_ratio(self.gear, p)
        engine = ratio * float(np.dot(weights, unknowns[2:6]))
        full = curve_torque(engine * RPM_PER_RAD_S, p, P_DRIVETRAIN) * abs(ratio) * v.config[
            'gearbox.efficiency']
        throttle = min(max(unknowns[6] / full, 0.05), 1.0)
        return np.append(np.append(unknowns[:6], throttle), engine)

    def newton(self, guess: np.ndarray, sideslip_rad: float, radius_m: float = None,
               speed_m_s: float = None) -> Tuple[np.ndarray, float]:
        """Return the unknowns that zero the residual from `guess`, and the residual left."""
        def residual(u):
            return self.residual(u, sideslip_rad, radius_m, speed_m_s)
        u = guess.astype(float).copy()
        g = residual(u)
        norm = float(np.max(np.abs(g)))
        for _ in range(MAX_ITERATIONS):
            if not math.isfinite(norm) or norm < RESIDUAL_TOLERANCE:
                break
            try:
                du = np.linalg.solve(jacobian(residual, u), -g)
            except np.linalg.LinAlgError:
                break
            t = 1.0
            while t > 1e-3:
                trial = u + t * du
                g_trial = residual(trial)
                n_trial = float(np.max(np.abs(g_trial)))
                if math.isfinite(n_trial) and n_trial < (1.0 - 0.25 * t) * norm:
                    u, g, norm = trial, g_trial, n_trial
                    break
                t *= 0.5
            else:
                break
        return u, norm

    # ---- solutions ----------------------------------------------------------

    def solve(self, sideslip_rad: float, radius_m: float = None,
              speed_m_s: float = None) -> Equilibrium:
        """
        Return the equilibrium at a sideslip on a circle of radius_m or at speed_m_s.

        On the family from grip driving (beta 0), through folds, kinks and
        to a drift branch of its own (families.py). Raises EquilibriumError
        when there is none, or when it needs more than the car has (steer,
        drive torque, throttle, revs), saying which.
        """
        family, ended = self.family([0.0, sideslip_rad], radius_m, speed_m_s)
        if ended:
            raise EquilibriumError(ended)
        last = family[-1]
        if last.limit:
            where = self.where(sideslip_rad, radius_m, speed_m_s)
            raise EquilibriumError(f"no equilibrium {where} within the car's limits: "
                                   f'{last.limit}')
        return last

    def family(self, sideslips_rad: Sequence[float], radius_m: float = None,
               speed_m_s: float = None) -> Tuple[List[Equilibrium], str]:
        """
        Return the equilibria at each sideslip on the family from grip, and why it ended.

        trace() with its result as a pair: the equilibria found, and ''
        when the last sideslip asked for was reached (otherwise why not).
        """
        result = self.trace(sideslips_rad, radius_m, speed_m_s)
        return result.equilibria, result.ended

    def trace(self, sideslips_rad: Sequence[float], radius_m: float = None,
              speed_m_s: float = None) -> Family:
        """
        Return the family from grip driving to the last sideslip, with its gaps and branches.

        The sideslips are taken in the order given (start near 0, where
        grip driving is found from a gentle turn), each on the path from
        grip to the last one (families.py): a sideslip between the grip
        branch's fold and the drift branch's start has no equilibrium and
        is left out (Family.gaps). Solutions beyond a limit of the car are
        kept, their `limit` set.
        """
        self._check_circle(radius_m, speed_m_s)
        if self.mode == DRIVER and self.gear is None:
            self.gear = self.default_gear(radius_m, speed_m_s)
        for target in reversed(sideslips_rad):      # the far end named first
            self._check_sideslip(target, radius_m, speed_m_s)
        return trace_family(self, sideslips_rad, radius_m, speed_m_s)

    def default_gear(self, radius_m: Optional[float], speed_m_s: Optional[float]) -> int:
        """
        Return the highest gear whose clutch is fully engaged at the circle's speed.

        The speed is the given one, or the grip limit sqrt(mu g R); the
        clutch engages fully half way from idle to shift_down_rpm, so the
        engine is in its torque band with room for the rear wheels to spin.
        """
        v = self.vehicle
        if speed_m_s is None:
            grip = float(np.mean(v.friction)) * v.params.gravity_m_s2
            speed_m_s = math.sqrt(grip * abs(radius_m))
        weights = v.flat_params[P_DRIVETRAIN + D_WEIGHTS:P_DRIVETRAIN + D_WEIGHTS + 4]
        turning = speed_m_s / float(weights @ v.params.radii()) * RPM_PER_RAD_S
        idle = v.config['engine.idle_rpm']
        engaged = idle + 0.5 * (v.config['gearbox.shift_down_rpm'] - idle)
        gear = 1
        while gear < v.gears and gear_ratio(gear + 1, v.flat_params) * turning >= engaged:
            gear += 1
        return gear

    def equilibrium(self, unknowns: np.ndarray, sideslip_rad: float, radius_m: float = None,
                    speed_m_s: float = None) -> Equilibrium:
        """Return the Equilibrium at solved unknowns: the state, inputs, stability, limits."""
        curvature, speed = self._circle(unknowns, radius_m, speed_m_s)
        state = self.state_of(curvature, speed, sideslip_rad, unknowns)
        command = self.command_of(unknowns).copy()
        if not self.settle(state, command):
            raise EquilibriumError(f'the body finds no rest on its springs '
                                   f'{self.where(sideslip_rad, radius_m, speed_m_s)}')
        residual = float(np.max(np.abs(self.scaled(self.derivatives(state, command)))))
        drive = tuple(float(t) for t in self._outputs[O_DRIVE])
        eigenvalues, constraints = self.eigenvalues(state, command)
        driver = self.mode == DRIVER
        return Equilibrium(
            radius_m=1.0 / curvature, speed_m_s=speed, sideslip_rad=sideslip_rad,
            yaw_rate_rad_s=speed * curvature, steer_rad=float(unknowns[1]),
            omega_rad_s=tuple(float(w) for w in unknowns[2:6]), drive_torque_n_m=drive,
            mode=self.mode, throttle=float(unknowns[6]) if driver else None,
            gear=self.gear if driver else None,
            engine_rpm=float(state[ENGINE] * RPM_PER_RAD_S) if driver else None,
            state=state, residual=residual, eigenvalues=eigenvalues, constraints=constraints,
            spin_held_eigenvalues=self.spin_held_eigenvalues(state, command),
            limit=self._limit(unknowns, state, drive), unknowns=unknowns.copy(),
            roll_rad=float(state[ROLL]) if self.sprung else 0.0,
            pitch_rad=float(state[PITCH]) if self.sprung else 0.0)

    def where(self, sideslip_rad: float, radius_m: Optional[float],
              speed_m_s: Optional[float]) -> str:
        """Return 'for <car> on <surface> at R 15 m and beta -20 deg' for messages."""
        circle = f'R {radius_m:g} m' if radius_m is not None else f'{speed_m_s:g} m/s'
        gear = f' in gear {self.gear}' if self.mode == DRIVER else ' in torque mode'
        return (f"for {self.vehicle.config['name']} on {self.vehicle.surface.outside_type}"
                f'{gear} at {circle} and beta {math.degrees(sideslip_rad):.1f} deg')

    def _limit(self, unknowns: np.ndarray, state: np.ndarray, drive) -> str:
        """Return which limit of the car the solution is beyond ('' if none)."""
        config = self.vehicle.config
        steer, max_steer = abs(unknowns[1]), config['steering.max_angle_rad']
        if steer > max_steer:
            return (f'steer limit: it needs {math.degrees(steer):.1f} deg of steer, the car has '
                    f'{math.degrees(max_steer):.1f} (steering.max_angle_rad)')
        if self.mode == TORQUE:
            for i, name in enumerate(('front', 'rear', 'rear', 'rear')):
                if abs(drive[i]) > self.vehicle.drive_limit[i] + 1e-9:
                    return (f'not enough drive torque: it needs {abs(drive[i]):.0f} N m at a '
                            f'{name} wheel, the car gives at most '
                            f'{self.vehicle.drive_limit[i]:.0f} (drive.max_torque_{name}_n_m)')
            return ''
        rpm, limit_rpm = state[ENGINE] * RPM_PER_RAD_S, config['engine.limit_rpm']
        if rpm >= limit_rpm:
            return (f'rev limit: the engine would turn at {rpm:.0f} rpm in gear {self.gear}, past'
                    f' its limiter at {limit_rpm:.0f} rpm (a higher gear)')
        throttle = unknowns[6]
        if throttle > 1.0:
            return (f'not enough drive torque: too much grip for the engine, it needs throttle '
                    f'{throttle:.2f} in gear {self.gear} at {rpm:.0f} rpm (a lower gear, less '
                    'grip or less sideslip)')
        if throttle < 0.0:
            return (f'the engine brakes more than the slide allows in gear {self.gear} at '
                    f'{rpm:.0f} rpm (throttle {throttle:.2f}: a higher gear)')
        return ''

    def _check_circle(self, radius_m: Optional[float], speed_m_s: Optional[float]) -> None:
        """Raise ValueError unless exactly one of a radius and a speed is given, sane."""
        if (radius_m is None) == (speed_m_s is None):
            raise ValueError('give either a radius or a speed, not both or neither')
        self._given_radius = radius_m is not None
        wheelbase = self.vehicle.params.cg_to_front_m + self.vehicle.params.cg_to_rear_m
        if radius_m is not None and not (math.isfinite(radius_m) and abs(radius_m) >= wheelbase):
            raise ValueError(f'radius {radius_m} m must be finite and at least the '
                             f'wheelbase ({wheelbase:g} m) in size; negative turns right')
        if speed_m_s is not None and not (math.isfinite(speed_m_s) and speed_m_s >= 1.0):
            raise ValueError(f'speed {speed_m_s} m/s must be finite and at least 1 m/s')

    @staticmethod
    def _check_sideslip(sideslip_rad: float, radius_m: Optional[float],
                        speed_m_s: Optional[float]) -> None:
        """Raise ValueError for a sideslip out of range or on a turn's wrong side."""
        if not (math.isfinite(sideslip_rad) and abs(sideslip_rad) < math.radians(80.0)):
            raise ValueError(f'sideslip {math.degrees(sideslip_rad)} deg must be within '
                             '(-80, 80) deg')
        left = radius_m > 0.0 if radius_m is not None else True
        if speed_m_s is not None:
            left = sideslip_rad <= 0.0
        if abs(sideslip_rad) > math.radians(15.0) and (sideslip_rad > 0.0) == left:
            side = 'left (positive radius)' if left else 'right (negative radius)'
            raise ValueError(
                f'a drift round a {side} turn has {"negative" if left else "positive"} sideslip'
                f' (REP-103: the nose inside the circle): try {-math.degrees(sideslip_rad):g} '
                'deg')

    # ---- stability ----------------------------------------------------------

    def step_jacobian(self, state: np.ndarray, command: np.ndarray) -> np.ndarray:
        """Return d(one sub-step) / d(dynamic states) at a state, inputs held (central)."""
        rows = self.dynamic_rows()

        def step_map(values):
            trial = state.copy()
            trial[rows] = values
            return self.step_once(trial, command)[rows]

        return jacobian(step_map, state[rows])

    def eigenvalues(self, state: np.ndarray, command: np.ndarray) -> Tuple[np.ndarray, int]:
        """
        Return the continuous eigenvalues at an equilibrium, and the count of constraints.

        From the step map's Jacobian over the dynamic states (step_jacobian),
        each multiplier mu mapped back through the integrator (implicit
        Euler: (mu - 1) / (h mu); explicit Euler: (mu - 1) / h; RK4:
        log(mu) / h). Multipliers below CONSTRAINT_MULTIPLIER are the
        couplings' constraints and are left out. Sorted, largest real part first.
        """
        multipliers = np.linalg.eigvals(self.step_jacobian(state, command)).astype(complex)
        kept = multipliers[np.abs(multipliers) >= CONSTRAINT_MULTIPLIER]
        return np.sort_complex(self.continuous(kept))[::-1], len(multipliers) - len(kept)

    def spin_held_eigenvalues(self, state: np.ndarray, command: np.ndarray) -> np.ndarray:
        """
        Return the eigenvalues with the driven wheels' spins held (an ideal wheel-speed loop).

        The step map's Jacobian without the rows and columns of the driven
        wheels (and of the engine, which turns with them): what a fast inner
        loop on the wheel speeds leaves to the outer loops. Sorted as eigenvalues().
        """
        driven = self.command_of_drive_share() > 0.0
        keep = [k for k, row in enumerate(self.dynamic_rows()) if row != ENGINE and not (
            OMEGA <= row < OMEGA + 4 and driven[row - OMEGA])]
        jacobian = self.step_jacobian(state, command)[np.ix_(keep, keep)]
        multipliers = np.linalg.eigvals(jacobian).astype(complex)
        kept = multipliers[np.abs(multipliers) >= CONSTRAINT_MULTIPLIER]
        return np.sort_complex(self.continuous(kept))[::-1]

    def command_of_drive_share(self) -> np.ndarray:
        """Return each wheel's share of the drive (torque mode's split, or the drivetrain's)."""
        if self.mode == DRIVER:
            p = self.vehicle.flat_params
            return p[P_DRIVETRAIN + D_WEIGHTS:P_DRIVETRAIN + D_WEIGHTS + 4].copy()
        front = 0.5 * self.front_share
        rear = 0.5 * (1.0 - self.front_share)
        return np.array([front, front, rear, rear])

    def continuous(self, multipliers: np.ndarray) -> np.ndarray:
        """Return the continuous eigenvalues of step multipliers (the integrator's inverse)."""
        h = self.h
        if self.vehicle.method == IMPLICIT_EULER:
            return (multipliers - 1.0) / (h * multipliers)
        if self.vehicle.method == EULER:
            return (multipliers - 1.0) / h
        return np.log(multipliers) / h
