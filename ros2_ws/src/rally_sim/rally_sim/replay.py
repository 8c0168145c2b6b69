"""
Offline replay: timed inputs from a CSV file in, the trajectory CSV out.

    python -m rally_sim.replay --vehicle VEHICLE.yaml --inputs IN.csv \
        --output OUT.csv [--initial-speed V] [--set key=value ...] [--plot OUT.png] \
    [--surface MAP.yaml|TYPE]

IN.csv columns: t, steer [rad, bicycle-equivalent front angle], torque_fl,
torque_fr, torque_rl, torque_rr [N m]; optional brake_fl .. brake_rr [N m]
and handbrake [0..1]. For a vehicle with a drivetrain, instead of the
torques: throttle [0..1], optional brake (pedal, 0..1 of the vehicle's brake
torques), handbrake and gear (-1 reverse, 0 neutral, 1..N; empty or absent:
automatic). Row k holds on [t_k, t_k+1); the step is the row spacing.
OUT.csv: t,x,y,yaw,vx,vy,yaw_rate,omega_fl..omega_rr, then per-wheel slip
ratio, slip angle, load and tyre-frame forces, and for a vehicle with a
drivetrain engine_rpm and gear; one row for the initial state, then one
after each input row; floats at full precision.
"""

import argparse
import csv
import math
import os
import sys
from typing import List, Sequence

import numpy as np

from . import WHEELS
from .physics import CommandError, ConfigError, load_vehicle, SURFACE_GRIP, Vehicle
from .physics.drivetrain import AUTOMATIC
from .physics.trajectory import InputTable, simulate, Trajectory
from .resources import shipped, surface_from, vehicle_path

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
    parser.add_argument('--inputs', required=True, help='inputs CSV file')
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
    return parser.parse_args(argv)


def main(argv: List[str] = None) -> int:
    """Run the replay; return the exit status (2: bad input, 1: physics failure)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        config = load_vehicle(vehicle_path(args.vehicle), args.set)
        inputs = read_inputs(args.inputs)
        vehicle = Vehicle(config, surface_from(args.surface))
        vehicle.reset(vx=args.initial_speed)
    except (ConfigError, InputError, ValueError) as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    try:
        trajectory = simulate(vehicle, inputs)
    except FloatingPointError as error:
        print(f'error: {error}', file=sys.stderr)
        return 1
    except CommandError as error:      # a gear the gearbox has not, a driver for no drivetrain
        print(f'error: {args.inputs}: {error}', file=sys.stderr)
        return 2
    for note in trajectory.notes[:MAX_NOTES]:
        print(f'warning: {note}', file=sys.stderr)
    if len(trajectory.notes) > MAX_NOTES:
        print(f'warning: ... and {len(trajectory.notes) - MAX_NOTES} more clamped values',
              file=sys.stderr)
    write_trajectory(args.output, trajectory)
    if args.plot:
        from .plotting import plot_run
        plot_run(trajectory, config, args.plot, title=os.path.basename(args.inputs))
    return 0


if __name__ == '__main__':
    sys.exit(main())
