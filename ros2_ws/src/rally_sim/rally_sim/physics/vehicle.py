"""
A simulated car: validated commands in, state and per-wheel tyre state out.

This is the stateful, plain-Python face of the physics: it checks and clamps
commands, applies actuator limits, looks up the friction under each wheel,
runs the kernel on a copy of the state, and commits the result only if it is
finite, so no input can corrupt the simulation.
"""

from dataclasses import dataclass, field
import math
import operator
from typing import List, Sequence, Tuple

import numpy as np

from .actuation import Actuation
from .body.layout import (
    B_SPRUNG_HEIGHT, B_SPRUNG_X, HEAVE, PITCH, PITCH_RATE, ROLL, ROLL_RATE, SPRUNG_STATE_SIZE)
from .body.suspension import travels
from .config import VehicleConfig
from .drivetrain.driveline import gear_ratio, input_speed
from .drivetrain.equations import AUTOMATIC, curve_torque, RPM_PER_RAD_S
from .integrators import (
    advance, C_BRAKE, C_DRIVE, C_DRIVER, C_GEAR, C_HANDBRAKE, C_RATE, C_STEER, C_THROTTLE,
    COMMAND_SIZE, friction_under, INTEGRATORS, O_ACCEL, O_DRIVE, O_ENGINE, O_FRICTION,
    O_GROUND, O_WHEEL_ANGLE, OUTPUT_ROWS, refresh_outputs, rollout, Workspace)
from .model import (
    ALIGNING_MOMENT, DIAG_SIZE, E_CLUTCH_SLIP, E_CLUTCH_TORQUE, E_THROTTLE, E_TORQUE, ENGINE,
    FORCE_X, FORCE_Y, GEAR, NORMAL_LOAD, OMEGA, P_BODY, P_DRIVETRAIN, RELAXED_SLIP_ANGLE,
    RELAXED_SLIP_RATIO, SHIFT_LEFT, SLIP_ANGLE, SLIP_RATIO, STATE_SIZE, STEER, STEER_ANGLE, VX, VY,
    X, Y, YAW, YAW_RATE)
from .surfaces import Surface
from .. import WHEELS


class CommandError(ValueError):
    """A command that cannot be used (non-finite or malformed); nothing was changed."""


@dataclass
class Command:
    """What the driver asks for, held until the next command."""

    steer_rad: float = 0.0
    steer_rate_rad_s: float = 0.0
    drive_torque_n_m: Sequence[float] = (0.0, 0.0, 0.0, 0.0)
    brake_torque_n_m: Sequence[float] = (0.0, 0.0, 0.0, 0.0)
    handbrake: float = 0.0


@dataclass
class DriverCommand:
    """
    What a driver asks of a car with a drivetrain: pedals, handbrake, gear; held.

    throttle and brake are pedal travel 0..1 (brake: of the vehicle's front
    and rear brake torques, its balance); gear: AUTOMATIC, -1 reverse, 0
    neutral or 1..N.
    """

    steer_rad: float = 0.0
    steer_rate_rad_s: float = 0.0
    throttle: float = 0.0
    brake: float = 0.0
    handbrake: float = 0.0
    gear: float = AUTOMATIC


@dataclass
class DrivetrainState:
    """The drivetrain after the last step (a car without one: all zero)."""

    engine_rpm: float
    engine_torque_n_m: float
    gear: int
    shifting: bool
    clutch_torque_n_m: float
    clutch_slip_rad_s: float
    throttle: float
    drive_torque_n_m: np.ndarray


@dataclass
class WheelState:
    """Per-wheel tyre state, arrays in wheel order fl, fr, rl, rr."""

    slip_ratio: np.ndarray
    slip_angle_rad: np.ndarray
    normal_load_n: np.ndarray
    force_x_n: np.ndarray
    force_y_n: np.ndarray
    omega_rad_s: np.ndarray
    steer_rad: np.ndarray
    friction: np.ndarray
    aligning_moment_n_m: np.ndarray = field(default_factory=lambda: np.zeros(4))
    """About each wheel's z axis, counter-clockwise positive (a .tir tyre's; else 0)."""
    relaxed_slip_ratio: np.ndarray = field(default_factory=lambda: np.zeros(4))
    relaxed_slip_angle_rad: np.ndarray = field(default_factory=lambda: np.zeros(4))
    """The slips the forces come from (with tyre relaxation lagging the others)."""
    names: Sequence[str] = field(default=WHEELS)


def _checked(name: str, values, size: int) -> np.ndarray:
    """Return values as float rows of `size` columns (1: a column vector squeezed)."""
    array = np.asarray(values, dtype=float)
    rows = array.reshape(len(array), -1) if array.ndim else array.reshape(1, 1)
    if rows.shape[1] != size:
        raise CommandError(f'{name} must have {size} values (wheel order fl, fr, rl, rr), '
                           f'got {rows.shape[1]}')
    if not np.isfinite(rows).all():
        bad = np.argwhere(~np.isfinite(rows))
        row, col = bad[0]
        label = name if size == 1 else f'{name}[{WHEELS[col]}]'
        where = f' (row {row})' if len(rows) > 1 else ''
        raise CommandError(f'{label} = {rows[row, col]} is not finite{where}; '
                           'command rejected')
    return rows[:, 0] if size == 1 else rows


def state_size(config: VehicleConfig) -> int:
    """Return how many states a car of `config` has: the planar model's, or with its body's."""
    return SPRUNG_STATE_SIZE if config['body'] == 'suspension' else STATE_SIZE


class Vehicle:
    """One car on a surface, advanced in fixed steps by `step(dt)`."""

    def __init__(self, config: VehicleConfig, surface: Surface = None):
        """Build the car at rest at the origin, on `surface` (default: dry tarmac)."""
        self.config = config
        self.params = config.model_params()
        self.flat_params = self.params.flat()
        self.surface = surface or Surface.uniform()
        self.method = INTEGRATORS[config['integrator']]
        self.tyre_mu = config.tyre('mu')
        self.drive_limit = config.per_wheel('drive.max_torque_front_n_m',
                                            'drive.max_torque_rear_n_m')
        self.brake_limit = config.per_wheel('brakes.max_torque_front_n_m',
                                            'brakes.max_torque_rear_n_m')
        self.handbrake_torque = np.array(
            [0.0, 0.0, 1.0, 1.0]) * config['brakes.handbrake_torque_n_m']
        self.has_drivetrain = config['drivetrain.layout'] != 'none'
        self.gears = len(config['gearbox.ratios']) if self.has_drivetrain else 0
        self._limits = _ScalarLimits(self)
        self.actuation = Actuation(config, self.drive_limit, self.brake_limit)
        self.acting = not self.actuation.trivial
        """Whether the actuators do more than the kernel's steering (see actuation.py)."""
        self.state = np.zeros(state_size(config))
        self.command = np.zeros(COMMAND_SIZE)     # checked and clamped, as the kernel reads it;
        #                                           with actuators: the last step's
        self.outputs = np.zeros((OUTPUT_ROWS, 4))  # tyre state, friction, wheel angles, accel
        self.work = Workspace()
        self._scratch_outputs = np.zeros((1, OUTPUT_ROWS, 4))
        self._unmerged_row = np.zeros(COMMAND_SIZE)
        self.time_s = 0.0
        self.step_count = 0
        self._substeps = {}
        self.reset()

    @property
    def surface(self) -> Surface:
        """Where each surface type lies; may be replaced between steps."""
        return self._surface

    @surface.setter
    def surface(self, surface: Surface) -> None:
        self._surface = surface
        self._grid, self._grid_meta = surface.grid.layers, surface.grid.meta

    # ---- state -------------------------------------------------------------

    def reset(self, x: float = 0.0, y: float = 0.0, yaw: float = 0.0, vx: float = 0.0,
              vy: float = 0.0, yaw_rate: float = 0.0) -> None:
        """Place the car, wheels free rolling and at angle 0, commands zeroed, time at 0."""
        values = _checked('initial state', [[x, y, yaw, vx, vy, yaw_rate]], 6)[0]
        self.state[:] = 0.0
        self.state[[X, Y, YAW, VX, VY, YAW_RATE]] = values
        self.state[OMEGA:OMEGA + 4] = self.free_rolling_omega(vx, yaw_rate)
        if self.has_drivetrain:
            self._start_engine()
        self.time_s = 0.0
        self.step_count = 0
        self.work.refresh_jacobian()
        self.outputs[:] = 0.0
        friction_under(self.state, self.flat_params, self.tyre_mu, self._grid, self._grid_meta,
                       self.outputs[O_FRICTION])
        self.set_command(Command())
        if self.acting:
            self.actuation.reset(self._unmerged_row)
            self.command[:] = self.merged(self.actuation.rows(0.0, 1.0, 1))[0]
        self._refresh_outputs()

    def restore(self, state: Sequence[float]) -> None:
        """
        Put the car in a full model state (STATE_SIZE entries, model.py's layout).

        A car on springs takes its SPRUNG_STATE_SIZE entries (body/layout.py),
        or the planar STATE_SIZE: its body then starts at static ride. As
        reset() does otherwise: time at 0, commands zeroed. Raises
        ValueError, changing nothing, for a non-finite entry, a gear the
        gearbox has not or a steer angle beyond the car's.
        """
        size = len(self.state)
        given = np.asarray(state, dtype=float).reshape(-1)
        if size != STATE_SIZE and len(given) == STATE_SIZE:
            given = np.concatenate([given, np.zeros(size - STATE_SIZE)])
        values = _checked('state', [given], size)[0]
        max_steer = self.config['steering.max_angle_rad']
        if abs(values[STEER]) > max_steer:
            raise ValueError(f"state steer {values[STEER]} rad is beyond the car's "
                             f'{max_steer} rad (steering.max_angle_rad)')
        gear = values[GEAR]
        gears = range(-1, self.gears + 1) if self.has_drivetrain else (0,)
        if gear not in gears or values[ENGINE] < 0.0 or values[SHIFT_LEFT] < 0.0 or (
                not self.has_drivetrain and (values[ENGINE] or values[SHIFT_LEFT])):
            raise ValueError(f'state gear {gear:g}, engine {values[ENGINE]:g} rad/s and '
                             f'shift_left {values[SHIFT_LEFT]:g} s do not fit '
                             f"vehicle '{self.config['name']}' (gears {gears[0]}..{gears[-1]},"
                             ' engine and shift time >= 0; all 0 without a drivetrain)')
        self.reset()
        self.state[:] = values
        friction_under(self.state, self.flat_params, self.tyre_mu, self._grid, self._grid_meta,
                       self.outputs[O_FRICTION])
        self._refresh_outputs()

    def _start_engine(self) -> None:
        """Put the gearbox in the lowest gear below its upshift speed, the engine in step."""
        p = self.flat_params
        turning = abs(input_speed(self.state, p))
        gear = 1
        while (gear < self.gears and gear_ratio(gear, p) * turning * RPM_PER_RAD_S
               > self.config['gearbox.shift_up_rpm']):
            gear += 1
        idle = self.config['engine.idle_rpm'] / RPM_PER_RAD_S
        self.state[GEAR] = gear
        self.state[ENGINE] = max(idle, gear_ratio(gear, p) * turning)
        self.state[SHIFT_LEFT] = 0.0

    def free_rolling_omega(self, vx: float, yaw_rate: float = 0.0) -> np.ndarray:
        """Wheel spin rates that roll without slip at body speed vx (straight or turning)."""
        c = self.params.half_track_m
        wheel_vx = vx - yaw_rate * np.array([c, -c, c, -c])
        return wheel_vx / self.params.radii()

    # ---- commands ----------------------------------------------------------

    def set_command(self, command) -> List[str]:
        """
        Take a Command or DriverCommand; return messages for each value clamped to a limit.

        Raises CommandError, changing nothing, if any value is non-finite, an
        array has the wrong length, a gear does not exist or a DriverCommand
        goes to a car without a drivetrain. This is the only check: steps
        take the held command as it is. With actuators (see actuation.py) the
        command arrives now and takes effect as they let it.
        """
        merge = not self.acting
        if isinstance(command, DriverCommand):
            self._need_drivetrain()
            values, notes = self._limits.driver(command, merge)
        else:
            values, notes = self._limits.apply(command, merge)
        if merge:
            self.command[:] = values
        else:
            self._unmerged_row = np.array(values)
            self.actuation.push(self.time_s, self._unmerged_row)
        return notes

    def merged(self, rows: np.ndarray) -> np.ndarray:
        """Add the handbrake's torque to the rear brakes of command rows (in place)."""
        rows[:, C_BRAKE:C_BRAKE + 4] += rows[:, C_HANDBRAKE, None] * self.handbrake_torque
        return rows

    def check_gear(self, gear: float) -> None:
        """Raise CommandError if this gearbox has no such gear request (DriverCommand.gear)."""
        self._need_drivetrain()
        self._limits.check_gears([gear])

    def full_drive_torque_n_m(self) -> float:
        """
        Return the total drive torque at the wheels at full throttle now [N m].

        At the engine's present speed in the present gear (first gear in
        neutral or reverse, magnitude), through the gearbox's efficiency;
        0 for a car without a drivetrain. What a speed controller scales
        its torque demand by to make a throttle.
        """
        if not self.has_drivetrain:
            return 0.0
        p = self.flat_params
        gear = max(int(self.state[GEAR]), 1)
        full = curve_torque(self.state[ENGINE] * RPM_PER_RAD_S, p, P_DRIVETRAIN)
        return full * abs(gear_ratio(gear, p)) * self.config['gearbox.efficiency']

    def _need_drivetrain(self) -> None:
        if not self.has_drivetrain:
            raise CommandError(f"vehicle '{self.config['name']}' has no drivetrain "
                               '(drivetrain.layout none): send per-wheel drive torques')

    def limit_commands(self, steer, rate, drive, brake, handbrake, merge: bool = True):
        """
        Check and clamp N commands at once (arrays with N rows).

        Returns steer, rate limit, drive and total brake torque (brakes plus
        handbrake; without it if not merge), the handbrake lever per row, and
        (row, message) for each clamped value. Raises
        CommandError, naming the field (and row), for a non-finite value.
        """
        steer = _checked('steer_rad', steer, 1)
        rate = np.abs(_checked('steer_rate_rad_s', rate, 1))
        drive = _checked('drive_torque_n_m', drive, 4)
        brake = _checked('brake_torque_n_m', brake, 4)
        handbrake = _checked('handbrake', handbrake, 1)
        notes: List[Tuple[int, str]] = []
        max_steer = self.config['steering.max_angle_rad']
        steer = _clamp(notes, 'steer_rad', steer, -max_steer, max_steer)
        handbrake = _clamp(notes, 'handbrake', handbrake, 0.0, 1.0)
        drive = _clamp(notes, 'drive_torque_n_m', drive, -self.drive_limit, self.drive_limit)
        brake = _clamp(notes, 'brake_torque_n_m', brake, 0.0, self.brake_limit)
        notes.sort()
        if merge:
            brake = brake + handbrake[:, None] * self.handbrake_torque
        return steer, rate, drive, brake, handbrake, notes

    # ---- stepping ----------------------------------------------------------

    def substeps_for(self, dt: float) -> int:
        """Return the number of equal sub-steps of at most config dt that make dt."""
        substeps = self._substeps.get(dt)
        if substeps is None:
            if not math.isfinite(dt) or dt <= 0.0:
                raise ValueError(
                    f'step dt = {dt!r} must be a positive finite number of seconds')
            substeps = self._substeps[dt] = max(1, math.ceil(dt / self.config['dt'] - 1e-9))
        return substeps

    def step(self, dt: float) -> None:
        """Advance by dt [s] with the held command; the state stays finite."""
        self.advance(1, dt)

    def advance(self, steps: int, dt: float) -> None:
        """
        Take `steps` fixed steps of dt [s] with the held command, in one compiled call.

        With actuators, each step takes the command they give it then.
        Raises FloatingPointError at a non-finite state, keeping the last finite one.
        """
        if self.acting:
            self._act(steps, dt)
            return
        w = self.work
        done = advance(self.state, self.command, dt, steps, self.substeps_for(dt), self.method,
                       self.flat_params, self.tyre_mu, self._grid, self._grid_meta,
                       w.vectors, w.wheel, w.matrices, w.ints, self.outputs)
        self.step_count += done
        self.time_s += done * dt
        if done < steps:
            self._non_finite()

    def _act(self, steps: int, dt: float) -> None:
        """advance() through the actuators: each step's command as they give it."""
        if not self.actuation.lagged:
            self._act_in_stretches(steps, dt)
            return
        rows = self.actuation.rows(self.time_s, dt, steps)
        own = rows[:, C_BRAKE:C_BRAKE + 4].copy()
        self.merged(rows)
        w = self.work
        dts = np.full(steps, dt)
        substeps = np.full(steps, self.substeps_for(dt), dtype=np.int64)
        states = np.empty((steps, len(self.state)))
        done = rollout(self.state, rows, dts, substeps, self.method, self.flat_params,
                       self.tyre_mu, self._grid, self._grid_meta, w.vectors, w.wheel,
                       w.matrices, w.ints, self.outputs, states, self._scratch_outputs)
        self.step_count += done
        self.time_s += done * dt
        last = rows[max(done - 1, 0)].copy()
        self.command[:] = last
        if done < steps:
            last[C_BRAKE:C_BRAKE + 4] = own[max(done - 1, 0)]
            self.actuation.settle(last)
            self._non_finite()
        self._refresh_outputs()

    def _act_in_stretches(self, steps: int, dt: float) -> None:
        """_act() when commands change only as delayed ones fall due: a kernel call each."""
        stretches = self.actuation.stretches(self.time_s, dt, steps)
        ends = [k for k, _ in stretches[1:]] + [steps]
        w = self.work
        for (first, row), end in zip(stretches, ends):
            self.command[:] = self.merged(row[None].copy())[0]
            done = advance(self.state, self.command, dt, end - first, self.substeps_for(dt),
                           self.method, self.flat_params, self.tyre_mu, self._grid,
                           self._grid_meta, w.vectors, w.wheel, w.matrices, w.ints,
                           self.outputs)
            self.step_count += done
            self.time_s += done * dt
            if done < end - first:
                self._non_finite()

    def run(self, steer, steer_rate, drive, brake, handbrake, dts):
        """
        Apply N timed commands (row k for dts[k] seconds) in one compiled loop.

        Commands are checked and clamped first (CommandError changes nothing).
        Returns the states (N, STATE_SIZE) and tyre states (N, DIAG_SIZE, 4)
        after each row, and the (row, message) clamp notes. Friction is looked
        up under each wheel at the start of each row.
        """
        dts = _positive_dts(dts)
        commands, notes = self.torque_commands(steer, steer_rate, drive, brake, handbrake,
                                               merge=not self.acting)
        return self._run(commands, dts) + (notes,)

    def run_driver(self, steer, steer_rate, throttle, brake, handbrake, gear, dts):
        """
        run() for a car with a drivetrain: N timed driver commands (DriverCommand's fields).

        throttle, brake and handbrake are 0..1 (clamped, noted); gear per row
        AUTOMATIC, -1, 0 or 1..N (CommandError for one that does not exist).
        """
        dts = _positive_dts(dts)
        commands, notes = self.driver_commands(steer, steer_rate, throttle, brake, handbrake,
                                               gear, merge=not self.acting)
        return self._run(commands, dts) + (notes,)

    def torque_commands(self, steer, steer_rate, drive, brake, handbrake, merge: bool = True):
        """
        Return N kernel command rows (N, COMMAND_SIZE) of per-wheel torques, and the notes.

        merge False: the handbrake's torque is left out of the brake columns.
        """
        steer, rate, drive, brake, handbrake, notes = self.limit_commands(
            steer, steer_rate, drive, brake, handbrake, merge)
        commands = np.zeros((len(steer), COMMAND_SIZE))     # C_DRIVER 0: torque mode
        commands[:, C_STEER], commands[:, C_RATE] = steer, rate
        commands[:, C_DRIVE:C_DRIVE + 4], commands[:, C_BRAKE:C_BRAKE + 4] = drive, brake
        commands[:, C_HANDBRAKE] = handbrake
        return commands, notes

    def driver_commands(self, steer, steer_rate, throttle, brake, handbrake, gear,
                        merge: bool = True):
        """
        Return N kernel command rows of a driver (DriverCommand's fields), and the notes.

        merge False: the handbrake's torque is left out of the brake columns.

        Raises CommandError for a car without a drivetrain, a non-finite value
        or a gear that does not exist (naming the row).
        """
        self._need_drivetrain()
        rows = np.zeros((len(np.atleast_1d(np.asarray(steer, dtype=float))), 4))
        steer, rate, _, _, handbrake, notes = self.limit_commands(
            steer, steer_rate, rows, rows, handbrake)
        throttle = _checked('throttle', throttle, 1)
        pedal = _checked('brake', brake, 1)
        gear = _checked('gear', gear, 1)
        self._limits.check_gears(gear)
        extra: List[Tuple[int, str]] = []
        throttle = _clamp(extra, 'throttle', throttle, 0.0, 1.0)
        pedal = _clamp(extra, 'brake', pedal, 0.0, 1.0)
        commands = np.zeros((len(steer), COMMAND_SIZE))
        commands[:, C_STEER], commands[:, C_RATE] = steer, rate
        commands[:, C_BRAKE:C_BRAKE + 4] = pedal[:, None] * self.brake_limit
        if merge:
            commands[:, C_BRAKE:C_BRAKE + 4] += handbrake[:, None] * self.handbrake_torque
        commands[:, C_HANDBRAKE] = handbrake
        commands[:, C_DRIVER], commands[:, C_THROTTLE], commands[:, C_GEAR] = 1.0, throttle, gear
        return commands, sorted(notes + extra)

    def _run(self, commands: np.ndarray, dts: np.ndarray):
        """Run the checked kernel commands; return the states and tyre states after each."""
        if self.acting:
            return self._run_acting(commands, dts)
        # substeps_for() for every row at once (same arithmetic, same results)
        substeps = np.maximum(1, np.ceil(dts / self.config['dt'] - 1e-9)).astype(np.int64)
        states = np.zeros((len(dts), len(self.state)))
        outputs = np.zeros((len(dts), OUTPUT_ROWS, 4))
        w = self.work
        done = rollout(self.state, commands, dts, substeps, self.method, self.flat_params,
                       self.tyre_mu, self._grid, self._grid_meta, w.vectors, w.wheel,
                       w.matrices, w.ints, self.outputs, states, outputs)
        self.step_count += done
        self.time_s += float(np.sum(dts[:done]))
        self.command[:] = commands[max(done - 1, 0)]
        if done < len(dts):
            self._non_finite()
        return states, outputs[:, :DIAG_SIZE]

    def _run_acting(self, commands: np.ndarray, dts: np.ndarray):
        """
        _run() through the actuators: row k arrives at its start, each sub-step a step.

        The command rows have no handbrake torque merged in. Each row is
        taken in its sub-steps, so that a delayed command takes effect at
        the sub-step it falls due (rows end on a sub-step).
        """
        states = np.zeros((len(dts), len(self.state)))
        outputs = np.zeros((len(dts), DIAG_SIZE, 4))
        for k, dt in enumerate(dts):
            self._unmerged_row = commands[k].copy()
            self.actuation.push(self.time_s, self._unmerged_row)
            substeps = self.substeps_for(float(dt))
            self._act(substeps, float(dt) / substeps)
            states[k] = self.state
            outputs[k] = self.outputs[:DIAG_SIZE]
        return states, outputs

    def _non_finite(self) -> None:
        self._refresh_outputs()
        raise FloatingPointError(
            f'the physics produced a non-finite state at t = {self.time_s:.4f} s; '
            'the step was discarded, the state is the last finite one (try a smaller '
            'dt or the implicit_euler integrator)')

    def _refresh_outputs(self) -> None:
        w = self.work
        refresh_outputs(self.state, self.command, self.flat_params, self._grid,
                        self._grid_meta, w.vectors, w.wheel, self.outputs)

    # ---- outputs -----------------------------------------------------------

    @property
    def diag(self) -> np.ndarray:
        """Per-wheel tyre state of the last step (DIAG_SIZE x 4, rows SLIP_RATIO...)."""
        return self.outputs[:DIAG_SIZE]

    @property
    def friction(self) -> np.ndarray:
        """Friction coefficient under each wheel during the last step."""
        return self.outputs[O_FRICTION]

    @property
    def wheel_angle_rad(self) -> np.ndarray:
        """Spin angle of each wheel in [-pi, pi), 0 at the last reset."""
        return self.outputs[O_WHEEL_ANGLE]

    def drivetrain(self) -> DrivetrainState:
        """Return the drivetrain's state after the last step."""
        engine = self.outputs[O_ENGINE]
        return DrivetrainState(
            engine_rpm=float(self.state[ENGINE] * RPM_PER_RAD_S),
            engine_torque_n_m=float(engine[E_TORQUE]), gear=int(self.state[GEAR]),
            shifting=bool(self.state[SHIFT_LEFT] > 0.0),
            clutch_torque_n_m=float(engine[E_CLUTCH_TORQUE]),
            clutch_slip_rad_s=float(engine[E_CLUTCH_SLIP]), throttle=float(engine[E_THROTTLE]),
            drive_torque_n_m=self.outputs[O_DRIVE].copy())

    def wheels(self) -> WheelState:
        """Return the tyre state of the last step."""
        d = self.outputs
        return WheelState(
            slip_ratio=d[SLIP_RATIO].copy(), slip_angle_rad=d[SLIP_ANGLE].copy(),
            normal_load_n=d[NORMAL_LOAD].copy(), force_x_n=d[FORCE_X].copy(),
            force_y_n=d[FORCE_Y].copy(), omega_rad_s=self.state[OMEGA:OMEGA + 4].copy(),
            steer_rad=d[STEER_ANGLE].copy(), friction=d[O_FRICTION].copy(),
            aligning_moment_n_m=d[ALIGNING_MOMENT].copy(),
            relaxed_slip_ratio=d[RELAXED_SLIP_RATIO].copy(),
            relaxed_slip_angle_rad=d[RELAXED_SLIP_ANGLE].copy())

    @property
    def steer_rad(self) -> float:
        """Actual bicycle-equivalent steer angle after the actuator [rad]."""
        return float(self.state[STEER])

    @property
    def map_arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        """Return the map as the kernels read it: GripGrid.layers and .meta of the surface."""
        return self._grid, self._grid_meta

    def ground(self) -> Tuple[float, float, float]:
        """Return the ground under the CG: height z [m], pitch and roll of its slope [rad]."""
        return (float(self.outputs[O_GROUND, 0]), float(self.outputs[O_GROUND, 1]),
                float(self.outputs[O_GROUND, 2]))

    @property
    def sprung(self) -> bool:
        """Whether the car's body is on its suspension (body: suspension)."""
        return len(self.state) == SPRUNG_STATE_SIZE

    def body_pose(self) -> Tuple[float, float, float]:
        """
        Return base_link's height z [m], pitch and roll [rad] (REP-103: pitch nose down).

        The planar body: the ground under the CG (ground()). On springs: the
        point of the sprung body under the car's CG, at ground level at static
        ride, tilted with the body.
        """
        if not self.sprung:
            return self.ground()
        s, p = self.state, self.flat_params
        ahead = p[P_BODY + B_SPRUNG_X]          # the sprung mass's CG ahead of the car's
        z = s[HEAVE] - p[P_BODY + B_SPRUNG_HEIGHT] + ahead * s[PITCH]
        return float(z), float(s[PITCH]), float(s[ROLL])

    def specific_force_m_s2(self):
        """Return what an accelerometer at the CG reads in the body frame (x, y) [m/s^2]."""
        return self.specific_force_body()[:2]

    def specific_force_body(self) -> Tuple[float, float, float]:
        """
        Return what an accelerometer at the CG reads in base_link's axes (x, y, z) [m/s^2].

        The planar body: along its ground (x, y) and g normal to it. On springs:
        the acceleration less gravity in the yawed, level frame (the car's x, y;
        the sprung mass's z), turned into the tilted body's axes.
        """
        out = self.outputs
        if not self.sprung:
            _, pitch, roll = self.ground()
            normal = self.params.gravity_m_s2 * math.cos(pitch) * math.cos(roll)
            return float(out[O_ACCEL, 0]), float(out[O_ACCEL, 1]), normal
        fx, fy = float(out[O_ACCEL, 0]), float(out[O_ACCEL, 1])
        fz = float(out[O_ACCEL, 2]) + self.params.gravity_m_s2
        _, pitch, roll = self.body_pose()
        cp, sp, cr, sr = math.cos(pitch), math.sin(pitch), math.cos(roll), math.sin(roll)
        x, z = cp * fx - sp * fz, sp * fx + cp * fz      # un-pitched, then un-rolled
        return x, cr * fy + sr * z, -sr * fy + cr * z

    def suspension_travel(self) -> np.ndarray:
        """Return each wheel's compression from static ride [m] (bump +); zeros when planar."""
        if not self.sprung:
            return np.zeros(4)
        return travels(self.state[None], self.flat_params)[0]

    def angular_velocity(self) -> Tuple[float, float, float]:
        """Return the body's rates about x, y, z [rad/s]: roll, pitch (on springs) and yaw."""
        s = self.state
        if not self.sprung:
            return 0.0, 0.0, float(s[YAW_RATE])
        return float(s[ROLL_RATE]), float(s[PITCH_RATE]), float(s[YAW_RATE])

    def speed_m_s(self) -> float:
        """Return the magnitude of the CG velocity."""
        return math.hypot(self.state[VX], self.state[VY])


class _ScalarLimits:
    """set_command's checks and clamps for one command, in plain floats (fast)."""

    def __init__(self, car: 'Vehicle'):
        self.max_steer = car.config['steering.max_angle_rad']
        self.drive = car.drive_limit.tolist()
        self.brake = car.brake_limit.tolist()
        self.handbrake = car.handbrake_torque.tolist()
        self.gears = car.gears
        # Bounds of (steer, drive x4, brake x4, handbrake), for the check of the common case.
        self.low = [-self.max_steer] + [-d for d in self.drive] + [0.0] * 4 + [0.0]
        self.high = [self.max_steer] + self.drive + self.brake + [1.0]

    def apply(self, command: Command, merge: bool = True) -> Tuple[List[float], List[str]]:
        """
        Return the kernel's command array values and clamp messages, or raise CommandError.

        merge False: the handbrake's torque is left out of the brake values.
        """
        try:    # common case: all finite and within the limits, nothing to say
            drive = [float(v) for v in command.drive_torque_n_m]
            brake = [float(v) for v in command.brake_torque_n_m]
            steer, handbrake = float(command.steer_rad), float(command.handbrake)
            rate = abs(float(command.steer_rate_rad_s))
            bounded = [steer] + drive + brake + [handbrake]
            if len(bounded) == 10 and math.isfinite(rate) and all(
                    map(operator.le, self.low, bounded)) and all(
                    map(operator.le, bounded, self.high)):
                if merge:
                    brake = [b + handbrake * h for b, h in zip(brake, self.handbrake)]
                return [steer, rate] + drive + brake + [handbrake] + TORQUE_MODE, []
        except (TypeError, ValueError):
            pass
        return self._checked(command, merge)

    def _checked(self, command: Command, merge: bool) -> Tuple[List[float], List[str]]:
        """apply() for a command with something to reject or clamp: say what."""
        drive = _four('drive_torque_n_m', command.drive_torque_n_m)
        brake = _four('brake_torque_n_m', command.brake_torque_n_m)
        steer = _finite('steer_rad', command.steer_rad)
        rate = abs(_finite('steer_rate_rad_s', command.steer_rate_rad_s))
        handbrake = _finite('handbrake', command.handbrake)
        notes: List[str] = []
        steer = _clamp_one(notes, 'steer_rad', steer, -self.max_steer, self.max_steer)
        handbrake = _clamp_one(notes, 'handbrake', handbrake, 0.0, 1.0)
        for i in range(4):
            drive[i] = _clamp_one(notes, f'drive_torque_n_m[{WHEELS[i]}]', drive[i],
                                  -self.drive[i], self.drive[i])
        for i in range(4):
            brake[i] = _clamp_one(notes, f'brake_torque_n_m[{WHEELS[i]}]', brake[i], 0.0,
                                  self.brake[i])
            if merge:
                brake[i] += handbrake * self.handbrake[i]
        return [steer, rate] + drive + brake + [handbrake] + TORQUE_MODE, notes

    def driver(self, command: DriverCommand, merge: bool = True
               ) -> Tuple[List[float], List[str]]:
        """Return the kernel's command for a DriverCommand and its clamp messages (see apply)."""
        steer = _finite('steer_rad', command.steer_rad)
        rate = abs(_finite('steer_rate_rad_s', command.steer_rate_rad_s))
        throttle = _finite('throttle', command.throttle)
        pedal = _finite('brake', command.brake)
        handbrake = _finite('handbrake', command.handbrake)
        gear = _finite('gear', command.gear)
        self.check_gears([gear])
        notes: List[str] = []
        steer = _clamp_one(notes, 'steer_rad', steer, -self.max_steer, self.max_steer)
        throttle = _clamp_one(notes, 'throttle', throttle, 0.0, 1.0)
        pedal = _clamp_one(notes, 'brake', pedal, 0.0, 1.0)
        handbrake = _clamp_one(notes, 'handbrake', handbrake, 0.0, 1.0)
        brake = ([pedal * b + handbrake * h for b, h in zip(self.brake, self.handbrake)]
                 if merge else [pedal * b for b in self.brake])
        return [steer, rate] + [0.0] * 4 + brake + [handbrake, 1.0, throttle, gear], notes

    def check_gears(self, gears) -> None:
        """Raise CommandError for a gear request this gearbox does not have (naming the row)."""
        gears = np.asarray(gears, dtype=float)
        bad = np.flatnonzero((gears != AUTOMATIC) & ((gears != np.round(gears)) | (gears < -1)
                                                     | (gears > self.gears)))
        if bad.size:
            where = f' (row {bad[0]})' if len(gears) > 1 else ''
            raise CommandError(
                f'gear = {gears[bad[0]]:g}{where} does not exist: -1 (reverse), 0 (neutral), '
                f'1..{self.gears} or {AUTOMATIC:g} (automatic); command rejected')


TORQUE_MODE = [0.0, 0.0, AUTOMATIC]
"""The command's C_DRIVER, C_THROTTLE, C_GEAR for per-wheel torques (drivetrain idle)."""


def _positive_dts(dts) -> np.ndarray:
    """Return the step lengths as floats, or raise ValueError if any is not positive and finite."""
    dts = np.asarray(dts, dtype=float)
    if not np.all(np.isfinite(dts)) or np.any(dts <= 0.0):
        raise ValueError('every step dt must be a positive finite number of seconds')
    return dts


def _finite(name: str, value) -> float:
    """Return value as a float, or raise CommandError naming the field."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise CommandError(f'{name} = {value!r} is not a number; command rejected') from None
    if not math.isfinite(value):
        raise CommandError(f'{name} = {value} is not finite; command rejected')
    return value


def _four(name: str, values) -> List[float]:
    """Return four per-wheel floats, or raise CommandError naming the field."""
    try:
        values = [float(v) for v in values]
    except (TypeError, ValueError):
        raise CommandError(f'{name} must be 4 numbers (wheel order fl, fr, rl, rr)') from None
    if len(values) != 4:
        raise CommandError(f'{name} must have 4 values (wheel order fl, fr, rl, rr), '
                           f'got {len(values)}')
    for i, value in enumerate(values):
        _finite(f'{name}[{WHEELS[i]}]', value)
    return values


FLOAT32_ROUNDING = 2.0 ** -23
"""A command past its limit by no more than float32's rounding (relative) is at the limit: a
float32 action of full lock (Gymnasium's Box, ackermann_msgs' float32) is not worth a note."""


def _past_limit(value, clamped):
    """Return where a clamped value moved by more than float32's rounding of the limit."""
    return np.abs(value - clamped) > FLOAT32_ROUNDING * np.maximum(1.0, np.abs(clamped))


def _clamp_one(notes: List[str], label: str, value: float, low: float, high: float) -> float:
    """Clamp one value to [low, high], noting a message if it changed beyond rounding."""
    clamped = min(max(value, low), high)
    if _past_limit(value, clamped):
        notes.append(f'{label} = {value:g} clamped to {clamped:g} (limit [{low:g}, {high:g}])')
    return clamped


def _clamp(notes: List[Tuple[int, str]], name: str, values: np.ndarray, low, high) -> np.ndarray:
    """Clamp values (N rows) to [low, high], noting (row, message) for each change."""
    low = np.broadcast_to(low, values.shape[1:]) if values.ndim > 1 else low
    high = np.broadcast_to(high, values.shape[1:]) if values.ndim > 1 else high
    clamped = np.clip(values, low, high)
    past = _past_limit(values, clamped)
    if not past.any():
        return clamped
    for index in np.argwhere(past):
        row = int(index[0])
        label = f'{name}[{WHEELS[index[1]]}]' if values.ndim > 1 else name
        lo = low[index[1]] if values.ndim > 1 else low
        hi = high[index[1]] if values.ndim > 1 else high
        notes.append((row, f'{label} = {values[tuple(index)]:g} clamped to '
                           f'{clamped[tuple(index)]:g} (limit [{lo:g}, {hi:g}])'))
    return clamped
