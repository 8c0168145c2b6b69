"""
Batch rollouts: N cars, each with its own state, advanced over H inputs in one call.

For sampling-based controllers (MPPI and kin): the very equations of the
simulated car, the single car's compiled rollout run for every car in a
parallel loop over the machine's cores. Vehicle parameters are shared, or
given per car (domain randomisation). A car whose inputs or state are not
finite is marked invalid (its rows NaN) and never touches the others.
"""

from typing import Mapping, NamedTuple, Optional, Sequence

import numpy as np

from .actuator_bank import ActuatorBank
from .lanes import rollout_lanes, rollout_lanes_mf
from ..config import ConfigError, VehicleConfig
from ..drivetrain.equations import AUTOMATIC, D_TORQUE_MODE
from ..integrators import (
    COMMAND_SIZE, EULER, INTEGRATORS, JACOBIAN_REFRESH_SUBSTEPS, OUTPUT_ROWS, rollout,
    Workspace)
from ..jit import njit, njit_parallel, prange
from ..model import (
    DIAG_SIZE, FOUR_WHEEL, LOAD_DOCUMENT, P_ACKERMANN, P_BODY, P_DRIVETRAIN, P_LOAD_ITERATIONS,
    P_LOAD_TRANSFER, P_MODEL, P_RADIUS, P_RADIUS_REAR, P_RELAX, P_SLIP_MODEL, P_STEER_TAU,
    P_TYRE_MODEL, STATE_SIZE, TYRE_MF, VX, W_LOAD, W_RELAXING)
from ..surfaces import G_FLAT, G_OUTSIDE, GRID_GRIP, Surface
from ..tyre import SLIP_DOCUMENT
from ..vehicle import Vehicle


class BatchResult(NamedTuple):
    """What a batch rollout returns: per car and input row, after the row."""

    states: np.ndarray      # (N, H, STATE_SIZE), layout model.X ... STEER
    tyres: Optional[np.ndarray]  # (N, H, DIAG_SIZE, 4): slip ratio, slip angle, load,
    #                              forces, steer; None unless asked for
    valid: np.ndarray       # (N,) bool: False where the car's input or state was not finite


@njit_parallel
def _rollout_cars(states, commands, dts, substeps, method, params, tyre_mu, grid, meta,
                  vectors, wheel, matrices, ints, out, states_out, outs_out, done):
    """Run the single car's rollout for every car, the cars spread over the cores."""
    for car in prange(states.shape[0]):
        done[car] = rollout(states[car], commands[car], dts, substeps, method, params[car],
                            tyre_mu[car], grid, meta, vectors[car], wheel[car], matrices[car],
                            ints[car], out[car], states_out[car], outs_out[car])


@njit
def _rollout_few(states, commands, dts, substeps, method, params, tyre_mu, grid, meta,
                 vectors, wheel, matrices, ints, out, states_out, outs_out, done):
    """_rollout_cars() on this thread: for a few cars, waking the cores costs more."""
    for car in range(states.shape[0]):
        done[car] = rollout(states[car], commands[car], dts, substeps, method, params[car],
                            tyre_mu[car], grid, meta, vectors[car], wheel[car], matrices[car],
                            ints[car], out[car], states_out[car], outs_out[car])


FEW_CARS = 4
"""Up to this many cars a batch runs on the calling thread (a parallel launch cost ~1.7 ms)."""


def _shaped(name: str, value, shape: Sequence[int]) -> np.ndarray:
    """Return `value` as float64 of `shape`, or raise ValueError naming it and the shape."""
    array = np.asarray(value, dtype=float)
    if array.shape != tuple(shape):
        raise ValueError(f'{name} has shape {array.shape}; expected {tuple(shape)}')
    return array


def _check_dt(dt: float) -> None:
    """Raise ValueError unless dt is a positive finite number of seconds."""
    if not (np.isfinite(dt) and dt > 0.0):
        raise ValueError(f'dt = {dt!r} must be a positive finite number of seconds')


class Batch:
    """N cars of one vehicle file (parameters shared or per car), rolled out together."""

    def __init__(self, config: VehicleConfig, cars: int, surface: Optional[Surface] = None,
                 per_car: Optional[Mapping[str, Sequence[float]]] = None):
        """
        Prepare `cars` cars; per_car maps vehicle-file keys to one value per car.

        Each per-car value is validated as the vehicle file's key is (a
        ConfigError names the key and the car).
        """
        if cars < 1:
            raise ValueError(f'cars = {cars} must be at least 1')
        self.cars = cars
        self.template = Vehicle(config, surface)
        configs = [config] * cars
        for key, values in (per_car or {}).items():
            if key.startswith('actuation.') and self.template.acting:
                raise ConfigError(f"per_car[{key!r}]: the cars of a batch share the vehicle's "
                                  'actuation: section (one delay for all: see actuator_bank.py)')
            values = list(values)
            if len(values) != cars:
                raise ValueError(f'per_car[{key!r}] has {len(values)} values; expected {cars}')
            configs = [c.with_overrides({key: v}) for c, v in zip(configs, values)]
        self.params = np.stack([c.model_params().flat() for c in configs])
        self.tyre_mu = np.stack([c.tyre('mu') for c in configs])
        self.method = INTEGRATORS[config['integrator']]
        self.dt_max = config['dt']
        work = Workspace()
        self._vectors = np.repeat(work.vectors[None], cars, axis=0)
        self._wheel = np.repeat(work.wheel[None], cars, axis=0)
        self._matrices = np.repeat(work.matrices[None], cars, axis=0)
        self._ints = np.repeat(work.ints[None], cars, axis=0)

    def actuators(self) -> Optional[ActuatorBank]:
        """Return the cars' actuators as Vehicle.reset leaves them (None: the file has none)."""
        return ActuatorBank(self.template.actuation, self.cars) if self.template.acting else None

    def _lanes_refusal(self) -> Optional[str]:
        """
        Return why these cars cannot run in vector lanes, or None if they can.

        They can in document numerics (explicit Euler, the document's slips
        and load iteration) without steering lag or Ackermann, on flat ground
        of one grip (lanes.py), all on document 002's tyres or all on .tir
        tyres, all with tyre relaxation or all without.
        """
        p = self.params
        grid, meta = self.template.map_arrays
        needs = [(self.method == EULER, "integrator 'euler'"),
                 ((p[:, P_MODEL] == FOUR_WHEEL).all(), "model 'four_wheel'"),
                 ((p[:, P_SLIP_MODEL] == SLIP_DOCUMENT).all(), "slip_model 'document'"),
                 ((p[:, P_TYRE_MODEL] == p[0, P_TYRE_MODEL]).all(),
                  "one tyre model for all cars (document 002's or .tir files)"),
                 ((p[:, P_RELAX] == p[0, P_RELAX]).all(), 'one tyre_relaxation for all cars'),
                 ((p[:, P_LOAD_TRANSFER] == LOAD_DOCUMENT).all(), "load_transfer 'document'"),
                 ((p[:, P_STEER_TAU] == 0.0).all(), 'steering.time_constant_s 0'),
                 ((p[:, P_BODY] == 0.0).all(), "body 'planar' (a car on springs runs per car)"),
                 ((p[:, P_ACKERMANN] == 0.0).all(), 'steering.ackermann 0'),
                 (meta[G_FLAT] == 1.0 and (grid[GRID_GRIP] == meta[G_OUTSIDE]).all(),
                  'a uniform surface'),
                 (not self.template.acting, 'an actuation: section of nothing but steering'),
                 ((p[:, P_RADIUS_REAR] == p[:, P_RADIUS]).all(), 'one wheel radius for all four'),
                 ((p[:, P_DRIVETRAIN + D_TORQUE_MODE] == 0.0).all(),
                  'torque_mode: independent wheels and no motor limits')]
        missing = [text for met, text in needs if not met]
        return ', '.join(missing) if missing else None

    @property
    def work_bytes(self) -> int:
        """Return the memory the cars' parameters and work arrays hold [bytes]."""
        return sum(a.nbytes for a in (self.params, self.tyre_mu, self._vectors, self._wheel,
                                      self._matrices, self._ints))

    def rollout(self, states, steer, drive, brake=None, handbrake=None, steer_rate=None,
                dt: float = 0.01, tyres: bool = True, lanes: bool = False,
                actuators: Optional[ActuatorBank] = None) -> BatchResult:
        """
        Advance every car over H rows of inputs, row k held for dt.

        states: (N, STATE_SIZE) full states (Vehicle.state layout; a car on
        springs: SPRUNG_STATE_SIZE, or the planar ones, its body at static ride); steer,
        steer_rate, handbrake: (N, H); drive, brake: (N, H, 4) [N m], wheel
        order fl, fr, rl, rr. Inputs are clamped to the vehicle's limits as
        Vehicle.set_command does. Returns the state and tyre state after each
        row (tyres=False: no tyre state, faster, less memory); a car with a
        non-finite input or state gets NaN rows and valid False.

        lanes=True (document numerics, tyres=False) runs the cars in vector
        lanes, several times faster (lanes.py; on .tir tyres lane_tyres.py):
        the single car's arithmetic with atan, sin, cos, tan and exp of its
        own, within 4 ulp of the C library's,
        so not bit for bit: where the explicit scheme amplifies rounding (a
        stiff wheel spin, a spin-out) cars drift apart from Vehicle.run as
        they would between two C libraries. Raises ValueError naming what the
        vehicle lacks for lanes.

        A vehicle with an `actuation:` section: row k arrives at its start and
        acts as the actuators let it, each of its sub-steps a step of theirs,
        as Vehicle.run takes it (bit for bit). actuators (from actuators()):
        what the cars' actuators hold, moved on by the rollout (copy() it to
        roll out from one state again); None: as Vehicle.reset leaves them.
        """
        self._check_steer(steer)
        inputs = [('steer_rate', steer_rate, 0.0, ()), ('drive', drive, None, (4,)),
                  ('brake', brake, 0.0, (4,)), ('handbrake', handbrake, 0.0, ())]
        if lanes:
            if tyres:
                raise ValueError('lanes=True gives no tyre states: pass tyres=False')
            refusal = self._lanes_refusal()
            if refusal:
                raise ValueError(f'lanes=True needs document numerics; this vehicle lacks '
                                 f'{refusal}')
            return self._roll_lanes(states, steer, inputs, dt)
        return self._roll(states, steer, inputs, self.template.torque_commands, dt, tyres,
                          actuators)

    def rollout_driver(self, states, steer, throttle, brake=None, handbrake=None, gear=None,
                       steer_rate=None, dt: float = 0.01, tyres: bool = True,
                       actuators: Optional[ActuatorBank] = None) -> BatchResult:
        """
        rollout() for a vehicle with a drivetrain, driven by pedals and gears (driver mode).

        throttle, brake (pedal), handbrake: (N, H), 0..1; gear: (N, H) of
        drivetrain.AUTOMATIC (the default), -1, 0 or 1..N. A gear that does
        not exist raises CommandError naming it. actuators: as rollout().
        """
        self._check_steer(steer)
        inputs = [('steer_rate', steer_rate, 0.0, ()), ('throttle', throttle, None, ()),
                  ('brake', brake, 0.0, ()), ('handbrake', handbrake, 0.0, ()),
                  ('gear', gear, AUTOMATIC, ())]
        return self._roll(states, steer, inputs, self.template.driver_commands, dt, tyres,
                          actuators)

    def _check_steer(self, steer) -> None:
        """Raise ValueError naming steer unless it is (N, H)."""
        shape = np.shape(steer)
        if len(shape) != 2 or shape[0] != self.cars:
            raise ValueError(f'steer has shape {shape}; expected (N, H) with N = '
                             f'{self.cars} cars and H input rows')

    def _roll(self, states, steer, inputs, make, dt: float, tyres: bool,
              actuators: Optional[ActuatorBank]) -> BatchResult:
        """
        Check the inputs' shapes and finiteness, make the kernel commands, run every car.

        inputs: (name, value, default when None (None: required), trailing
        shape) in the order `make` (Vehicle.torque_commands or
        driver_commands) takes them after steer.
        """
        steer = np.asarray(steer, dtype=float)
        n, horizon = steer.shape
        size = len(self.template.state)     # (a car on springs: its body's states too)
        if size != STATE_SIZE and np.shape(states) == (n, STATE_SIZE):
            states = np.concatenate([states, np.zeros((n, size - STATE_SIZE))], axis=1)
        states = _shaped('states', states, (n, size))
        arrays = [_shaped(name, np.full((n, horizon) + tail, default) if value is None
                          and default is not None else value, (n, horizon) + tail)
                  for name, value, default, tail in inputs]
        _check_dt(dt)
        valid = np.isfinite(states).all(axis=1) & np.isfinite(steer).all(axis=1)
        for array in arrays:
            valid &= np.isfinite(array).reshape(n, -1).all(axis=1)
        commands = self._commands(valid, make, steer, arrays, merge=not self.template.acting)
        dts = np.full(horizon, float(dt))
        substeps = np.full(horizon, self.template.substeps_for(float(dt)), dtype=np.int64)
        every = 1
        if self.template.acting:    # each sub-step a row of its own, as the actuators give it
            every = int(substeps[0])
            step_s = float(dt) / every
            commands = self._acted(commands, every, step_s, actuators)
            dts, substeps = np.full(horizon * every, step_s), np.ones(horizon * every, np.int64)
        start = np.where(valid[:, None], states, 0.0)
        states_out = np.zeros((n, len(dts), size))
        outs_out = np.zeros((n, len(dts) if tyres else 1, OUTPUT_ROWS, 4))
        self._ints[:, 0] = JACOBIAN_REFRESH_SUBSTEPS      # each rollout starts afresh
        self._wheel[:, W_LOAD] = 0.0                      # (and the tyres' loads and slips)
        self._wheel[:, W_RELAXING] = 0.0
        done = np.zeros(n, dtype=np.int64)
        grid, meta = self.template.map_arrays
        run = _rollout_few if n <= FEW_CARS else _rollout_cars
        run(np.ascontiguousarray(start), commands, dts, substeps, self.method, self.params,
            self.tyre_mu, grid, meta, self._vectors, self._wheel, self._matrices, self._ints,
            np.zeros((n, OUTPUT_ROWS, 4)), states_out, outs_out, done)
        valid &= done == len(dts)
        states_out = states_out[:, every - 1::every]
        states_out[~valid] = np.nan
        if not tyres:
            return BatchResult(states_out, None, valid)
        outs_out = outs_out[:, every - 1::every, :DIAG_SIZE]
        outs_out[~valid] = np.nan
        return BatchResult(states_out, outs_out, valid)

    def _acted(self, commands: np.ndarray, substeps: int, step_s: float,
               actuators: Optional[ActuatorBank]) -> np.ndarray:
        """Return the sub-steps' kernel commands as the actuators give them, handbrake merged."""
        if actuators is None:
            actuators = self.actuators()
        elif actuators.cars != self.cars:
            raise ValueError(f'actuators are of {actuators.cars} cars; expected {self.cars}')
        rows = actuators.rows(commands, substeps, step_s)
        self.template.merged(rows.reshape(-1, COMMAND_SIZE))        # in place
        return rows

    def _roll_lanes(self, states, steer, inputs, dt: float) -> BatchResult:
        """rollout() in vector lanes: the kernel checks and clamps the inputs itself."""
        steer = np.ascontiguousarray(steer, dtype=float)
        n, horizon = steer.shape
        states = np.ascontiguousarray(_shaped('states', states, (n, STATE_SIZE)))
        rate, drive, brake, handbrake = (     # one row of zeros for each not given
            np.zeros((1, 1) + tail) if value is None and default is not None else
            np.ascontiguousarray(_shaped(name, value, (n, horizon) + tail))
            for name, value, default, tail in inputs)
        _check_dt(dt)
        car = self.template
        limits = np.concatenate([[car.config['steering.max_angle_rad']], car.drive_limit,
                                 car.brake_limit, car.handbrake_torque])     # lanes.L_*
        friction = self.tyre_mu * car.map_arrays[1][G_OUTSIDE]      # one grip everywhere
        states_out = np.empty((n, horizon, STATE_SIZE))
        bad = np.zeros(n)
        kernel = rollout_lanes_mf if self.params[0, P_TYRE_MODEL] == TYRE_MF else rollout_lanes
        kernel(states, steer, rate, drive, brake, handbrake, self.params, friction, limits,
               float(dt), car.substeps_for(float(dt)),
               int(self.params[:, P_LOAD_ITERATIONS].max()), bool(self.params[0, P_RELAX]),
               states_out, bad)
        valid = bad == 0.0
        states_out[~valid] = np.nan
        return BatchResult(states_out, None, valid)

    @staticmethod
    def _commands(valid, make, steer, arrays, merge: bool) -> np.ndarray:
        """
        Return the kernel commands (N, H, COMMAND_SIZE), clamped as one car's are.

        merge False: the handbrake's torque is left out of the brake columns.
        """
        n, horizon = steer.shape
        rows = n * horizon
        keep = None if valid.all() else np.repeat(valid, horizon)[:, None]

        def flat(values):
            width = values.size // rows
            values = values.reshape(rows, width)
            values = values if keep is None else np.where(keep, values, 0.0)
            return values[:, 0] if width == 1 else values
        commands, _ = make(flat(steer), *(flat(a) for a in arrays), merge=merge)
        return commands.reshape(n, horizon, COMMAND_SIZE)


def prepare(config: VehicleConfig) -> None:
    """Load (or compile, ~10 s) the batch kernels: rollouts of a few cars and of many."""
    for cars in (1, FEW_CARS + 1):
        Batch(config, cars).rollout(np.zeros((cars, STATE_SIZE)), np.zeros((cars, 1)),
                                    np.zeros((cars, 1, 4)))


def prepare_lanes(config: VehicleConfig) -> None:
    """Load (or compile, a minute and more) the vector-lane kernel of the config's tyres."""
    cars = FEW_CARS + 1
    states = np.zeros((cars, STATE_SIZE))
    states[:, VX] = 5.0
    Batch(config, cars).rollout(states, np.zeros((cars, 1)), np.zeros((cars, 1, 4)),
                                tyres=False, lanes=True)
