"""
Offline replay: timed inputs from a CSV file in, the trajectory CSV out.

    python -m rally_sim.replay --vehicle VEHICLE.yaml --inputs IN.csv \
        --output OUT.csv [--initial-speed V] [--set key=value ...] [--plot OUT.png] \
    [--surface MAP.yaml|TYPE] [--sensors PROFILE --seed N --measurements DIR]
    python -m rally_sim.replay --vehicle VEHICLE.yaml --initial-state EQ.json[#K] \
        --output OUT.csv [--inputs IN.csv | --duration S] ...

--initial-state starts from an equilibrium of `./rally equilibria --json`
(the K-th of a family): its full model state; without --inputs, its inputs
are held for --duration seconds in rows of 0.01 s.

IN.csv columns: t, steer [rad, bicycle-equivalent front angle], torque_fl,
torque_fr, torque_rl, torque_rr [N m]; optional brake_fl .. brake_rr [N m]
and handbrake [0..1]. For a vehicle with a drivetrain, instead of the
torques: throttle [0..1], optional brake (pedal, 0..1 of the vehicle's brake
torques), handbrake and gear (-1 reverse, 0 neutral, 1..N; empty or absent:
automatic). Row k holds on [t_k, t_k+1); the step is the row spacing.
OUT.csv: t,x,y,yaw,vx,vy,yaw_rate,omega_fl..omega_rr, then per-wheel slip
ratio, slip angle, load and tyre-frame forces, and for a vehicle with a
drivetrain engine_rpm and gear; one row for the initial state, then one
after each input row; floats at full precision. With --sensors, the
profile's channels measure the run on the rows' grid (evenly spaced rows:
the step of the sensors) and DIR/<channel>.csv gets each measurement that
is delivered: t (when measured), delivered_t, the values and their error
variances (GNSS also latitude, longitude, altitude from the surface's datum).
The same --seed gives the same measurements.
"""

import argparse
import csv
import math
import os
import sys
from typing import Dict, List, Sequence

import numpy as np

from .. import WHEELS
from ..physics import CommandError, ConfigError, load_vehicle, SURFACE_GRIP, Vehicle
from ..physics.drivetrain.equations import AUTOMATIC
from ..physics.equilibria import read_equilibrium
from ..physics.trajectory import InputTable, simulate, Trajectory
from ..resources import shipped, surface_from, vehicle_path
from ..sensors import load_profile, QUANTITIES, SensorError, Sensors
from ..sensors.profiles import COMPONENTS

REQUIRED = ('t', 'steer') + tuple(f'torque_{w}' for w in WHEELS)
OPTIONAL = tuple(f'brake_{w}' for w in WHEELS) + ('handbrake',)
DRIVER_REQUIRED = ('t', 'steer', 'throttle')
DRIVER_OPTIONAL = ('brake', 'handbrake', 'gear')
"""The columns of a driver's inputs (a vehicle with a drivetrain)."""
MAX_NOTES = 10


class InputError(ValueError):
    """An inputs file that cannot be used; the message names the row and column."""


def read_inputs(path: str) -> InputTable:
    """Read and check an inputs CSV file: per-wheel torques, or a driver's (throttle ...)."""
    try:
        with open(path, newline='', encoding='utf-8') as stream:
            reader = csv.DictReader(stream)
            header = [name.strip() for name in (reader.fieldnames or [])]
            rows = list(reader)
    except OSError as error:
        raise InputError(f'cannot read inputs file {path}: {error.strerror}') from None
    driver = 'throttle' in header
    required, optional = (DRIVER_REQUIRED, DRIVER_OPTIONAL) if driver else (REQUIRED, OPTIONAL)
    missing = [c for c in required if c not in header]
    unknown = [c for c in header if c not in required + optional]
    if missing or unknown:
        raise InputError(
            f'{path}: columns must be {", ".join(REQUIRED)} (optional: {", ".join(OPTIONAL)}),'
            f' or for a driver {", ".join(DRIVER_REQUIRED)} (optional: '
            f'{", ".join(DRIVER_OPTIONAL)}); missing {missing}, unknown {unknown}')
    data = {c: np.zeros(len(rows)) for c in REQUIRED + OPTIONAL + DRIVER_REQUIRED
            + DRIVER_OPTIONAL}
    data['gear'][:] = AUTOMATIC
    for k, row in enumerate(rows):
        row = {key.strip(): value for key, value in row.items() if key is not None}
        for column in header:
            text = row.get(column)
            if column == 'gear' and (text is None or not text.strip()):
                continue            # automatic
            data[column][k] = _number(path, k, column, text)
    try:
        return InputTable(
            t=data['t'], steer=data['steer'],
            drive=np.column_stack([data[f'torque_{w}'] for w in WHEELS]),
            brake=np.column_stack([data[f'brake_{w}'] for w in WHEELS]),
            handbrake=data['handbrake'],
            **({'throttle': data['throttle'], 'pedal': data['brake'], 'gear': data['gear']}
               if driver else {}))
    except ValueError as error:
        raise InputError(f'{path}: {error}') from None


def _number(path: str, k: int, column: str, text) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(f'{path}: data row {k + 1}, column {column}: {text!r} is not a '
                         'number') from None
    if not math.isfinite(value):
        raise InputError(f'{path}: data row {k + 1}, column {column}: {text!r} is not finite')
    return value


def write_inputs(path: str, table: InputTable) -> None:
    """Write an inputs CSV (every optional column) at full precision."""
    with open(path, 'w', newline='', encoding='utf-8') as stream:
        writer = csv.writer(stream)
        writer.writerow(DRIVER_REQUIRED + DRIVER_OPTIONAL if table.driver
                        else REQUIRED + OPTIONAL)
        for k in range(len(table.t)):
            writer.writerow(_input_row(table, k))


def _input_row(table: InputTable, k: int) -> List[str]:
    """Return row k of an inputs CSV: floats as repr, an automatic gear as empty."""
    if not table.driver:
        values = [table.t[k], table.steer[k], *table.drive[k], *table.brake[k],
                  table.handbrake[k]]
        return [repr(float(v)) for v in values]
    values = (table.t[k], table.steer[k], table.throttle[k], table.pedal[k], table.handbrake[k])
    gear = '' if table.gear[k] == AUTOMATIC else str(int(table.gear[k]))
    return [repr(float(v)) for v in values] + [gear]


def write_trajectory(path: str, trajectory: Trajectory) -> None:
    """Write the trajectory CSV, floats at full precision (repr)."""
    names = list(trajectory.columns)
    columns = [trajectory.columns[name] for name in names]
    with open(path, 'w', newline='', encoding='utf-8') as stream:
        writer = csv.writer(stream)
        writer.writerow(names)
        for k in range(len(columns[0])):
            writer.writerow([repr(float(column[k])) for column in columns])


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog='python -m rally_sim.replay', description=__doc__.split('\n\n')[0])
    parser.add_argument('--vehicle', required=True,
                        help='vehicle file (YAML), or a preset name: '
                             + ', '.join(shipped('vehicles')))
    parser.add_argument('--inputs', help='inputs CSV file (needed unless --initial-state)')
    parser.add_argument('--initial-state', metavar='EQ.json[#K]',
                        help='start from an equilibrium of `./rally equilibria --json` (the '
                             'K-th of a family); without --inputs its inputs are held')
    parser.add_argument('--duration', type=float, default=2.0, metavar='S',
                        help='with --initial-state and no --inputs: how long to hold the '
                             "equilibrium's inputs [s] (default 2)")
    parser.add_argument('--output', required=True, help='trajectory CSV file to write')
    parser.add_argument('--initial-speed', type=float, default=0.0, metavar='V',
                        help='initial forward speed [m/s], wheels free rolling; may be < 0')
    parser.add_argument('--set', action='append', default=[], metavar='KEY=VALUE',
                        help='override a vehicle key (dotted for nesting), e.g. dt=0.001')
    parser.add_argument('--surface', default='tarmac_dry', metavar='MAP.yaml|TYPE',
                        help='surface map (map_server-style YAML + image) or a surface '
                             f'type for everywhere ({", ".join(SURFACE_GRIP)}); '
                             'default tarmac_dry')
    parser.add_argument('--plot', metavar='OUT.png', help='also write a plot of the run')
    parser.add_argument('--sensors', metavar='PROFILE',
                        help='measure the run with a sensor profile (ideal, typical, rough or '
                             'a file); needs --measurements')
    parser.add_argument('--seed', type=int, default=0, help='seed of the sensor errors')
    parser.add_argument('--measurements', metavar='DIR',
                        help='folder for the measurements, one CSV per channel')
    return parser.parse_args(argv)


def main(argv: List[str] = None) -> int:
    """Run the replay; return the exit status (2: bad input, 1: physics failure)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        config = load_vehicle(vehicle_path(args.vehicle), args.set)
        vehicle = Vehicle(config, surface_from(args.surface))
        vehicle.reset(vx=args.initial_speed)
        inputs = _initial_state(args, vehicle)
        sensing = _sensing(args, inputs, vehicle)
    except (ConfigError, InputError, ValueError) as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    try:
        trajectory = simulate(vehicle, inputs, sensing.on_row if sensing else None)
    except FloatingPointError as error:
        print(f'error: {error}', file=sys.stderr)
        return 1
    except CommandError as error:      # a gear the gearbox has not, a driver for no drivetrain
        print(f'error: {args.inputs or args.initial_state}: {error}', file=sys.stderr)
        return 2
    for note in trajectory.notes[:MAX_NOTES]:
        print(f'warning: {note}', file=sys.stderr)
    if len(trajectory.notes) > MAX_NOTES:
        print(f'warning: ... and {len(trajectory.notes) - MAX_NOTES} more clamped values',
              file=sys.stderr)
    write_trajectory(args.output, trajectory)
    if sensing:
        sensing.write(args.measurements)
    if args.plot:
        from ..world.plotting import plot_run
        plot_run(trajectory, config, args.plot,
                 title=os.path.basename(args.inputs or args.initial_state),
                 surface=vehicle.surface)
    return 0


def _initial_state(args, vehicle: Vehicle) -> InputTable:
    """Restore --initial-state if given; return the inputs (--inputs, or the held ones)."""
    if not args.initial_state:
        if not args.inputs:
            raise InputError('--inputs IN.csv is needed (or --initial-state EQ.json)')
        return read_inputs(args.inputs)
    if args.initial_speed:
        raise ValueError('--initial-speed and --initial-state exclude each other')
    equilibrium = read_equilibrium(args.initial_state)
    vehicle.restore(equilibrium['state'])
    if args.inputs:
        return read_inputs(args.inputs)
    if not (math.isfinite(args.duration) and args.duration >= 2 * HOLD_STEP_S):
        raise ValueError(f'--duration {args.duration} s must be at least {2 * HOLD_STEP_S} s')
    return held_inputs(equilibrium['inputs'], args.duration)


HOLD_STEP_S = 0.01
"""The rows of an equilibrium's held inputs [s]."""


def held_inputs(inputs: dict, duration_s: float) -> InputTable:
    """Return an InputTable that holds an equilibrium's inputs for duration_s."""
    n = int(round(duration_s / HOLD_STEP_S))
    t = np.arange(n) * HOLD_STEP_S
    zeros = np.zeros((n, 4))
    steer = np.full(n, inputs['steer_rad'])
    if inputs['mode'] == 'driver':
        return InputTable(t=t, steer=steer, drive=zeros, brake=zeros, handbrake=np.zeros(n),
                          throttle=np.full(n, inputs['throttle']), pedal=np.zeros(n),
                          gear=np.full(n, inputs['gear']))
    return InputTable(t=t, steer=steer, drive=np.tile(inputs['drive_torque_n_m'], (n, 1)),
                      brake=zeros, handbrake=np.zeros(n))


class Sensing:
    """A sensor suite measuring a replay on its rows' grid; the measurements delivered."""

    def __init__(self, sensors, vehicle: Vehicle, step_ns: int, start_ns: int):
        """Measure `vehicle` with `sensors` (steps of step_ns from start_ns)."""
        self.sensors, self.vehicle = sensors, vehicle
        self.step_ns, self.start_ns = step_ns, start_ns
        self.rows: Dict[str, List[List[float]]] = {}

    def on_row(self, k: int) -> None:
        """Measure at the start of row k, and keep what is delivered then."""
        self.sensors.measure(k, self.vehicle)
        for m in self.sensors.delivered(k):
            values = [float(v) for q in QUANTITIES[m.channel] for v in m.values[q]]
            variances = [m.variances[q] for q in QUANTITIES[m.channel]]
            extra = list(self.sensors.geodetic(m)) if m.channel == 'gnss' else []
            self.rows.setdefault(m.channel, []).append(
                [(self.start_ns + m.stamp_ns) / 1e9, (self.start_ns + k * self.step_ns) / 1e9]
                + values + variances + extra)

    def write(self, folder: str) -> None:
        """Write <folder>/<channel>.csv for every channel measured."""
        os.makedirs(folder, exist_ok=True)
        for channel, rows in self.rows.items():
            with open(os.path.join(folder, f'{channel}.csv'), 'w', newline='',
                      encoding='utf-8') as stream:
                writer = csv.writer(stream)
                writer.writerow(measurement_columns(channel))
                writer.writerows([[repr(v) for v in row] for row in rows])


def measurement_columns(channel: str) -> List[str]:
    """Return the column names of a channel's measurements CSV."""
    names = []
    for quantity in QUANTITIES[channel]:
        parts = WHEELS if channel == 'wheel_speeds' else COMPONENTS[quantity]
        names += [f'{quantity}_{p}' if p else quantity for p in parts]
    names += [f'variance_{q}' for q in QUANTITIES[channel]]
    return ['t', 'delivered_t'] + names + (
        ['latitude', 'longitude', 'altitude'] if channel == 'gnss' else [])


def _sensing(args, inputs: InputTable, vehicle: Vehicle):
    """Return the Sensing of --sensors (None without); ValueError for what does not fit."""
    if not args.sensors:
        if args.measurements:
            raise ValueError('--measurements needs --sensors PROFILE')
        return None
    if not args.measurements:
        raise ValueError('--sensors needs --measurements DIR (where to write them)')
    steps = inputs.step_sizes()
    if not np.allclose(steps, steps[0], rtol=1e-9, atol=0.0):
        raise ValueError(f'--sensors: {args.inputs} must have evenly spaced rows (the '
                         'sensors step with them)')
    step_ns = round(float(steps[0]) * 1e9)
    try:
        profile = load_profile(args.sensors)
        sensors = Sensors(profile, args.seed, step_ns, step_ns, vehicle.surface.datum)
    except SensorError as error:
        raise ValueError(f'--sensors: {error}') from None
    if 'lidar' in profile.channels:
        raise ValueError(f'--sensors: {profile.path} has a lidar, which a replay cannot '
                         'measure: it has no walls nor other cars to cast its beams at (run '
                         'the simulator node with a map)')
    return Sensing(sensors, vehicle, step_ns, round(float(inputs.t[0]) * 1e9))


if __name__ == '__main__':
    sys.exit(main())
