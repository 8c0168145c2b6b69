"""
Offline replay: timed inputs from a CSV file in, the trajectory CSV out.

    python -m rally_sim.replay --vehicle VEHICLE.yaml --inputs IN.csv \
        --output OUT.csv [--initial-speed V] [--set key=value ...] [--plot OUT.png] \
    [--surface MAP.yaml|TYPE]

IN.csv columns: t, steer [rad, bicycle-equivalent front angle], torque_fl,
torque_fr, torque_rl, torque_rr [N m]; optional brake_fl .. brake_rr [N m]
and handbrake [0..1]. Row k holds on [t_k, t_k+1); the step is the row spacing.
OUT.csv: t,x,y,yaw,vx,vy,yaw_rate,omega_fl..omega_rr, then per-wheel slip
ratio, slip angle, load and tyre-frame forces; one row for the initial state,
then one after each input row; floats at full precision.
"""

import argparse
import csv
import math
import os
import sys
from typing import List, Sequence

import numpy as np

from . import WHEELS
from .physics import ConfigError, load_vehicle, Surface, SURFACE_GRIP, Vehicle
from .physics.trajectory import InputTable, simulate, Trajectory
from .resources import preset, shipped

REQUIRED = ('t', 'steer') + tuple(f'torque_{w}' for w in WHEELS)
OPTIONAL = tuple(f'brake_{w}' for w in WHEELS) + ('handbrake',)
MAX_NOTES = 10


class InputError(ValueError):
    """An inputs file that cannot be used; the message names the row and column."""


def vehicle_path(name: str) -> str:
    """Return a vehicle file path: an existing path, or a preset of the package."""
    return preset(name, 'vehicles', '.yaml')


def surface_from(text: str) -> Surface:
    """Return a uniform surface for a type name, else a map file or a shipped stage's map."""
    if text in SURFACE_GRIP:
        return Surface.uniform(text)
    return Surface.load(preset(text, 'stages', '.yaml'))


def read_inputs(path: str) -> InputTable:
    """Read and check an inputs CSV file."""
    try:
        with open(path, newline='', encoding='utf-8') as stream:
            reader = csv.DictReader(stream)
            header = [name.strip() for name in (reader.fieldnames or [])]
            rows = list(reader)
    except OSError as error:
        raise InputError(f'cannot read inputs file {path}: {error.strerror}') from None
    missing = [c for c in REQUIRED if c not in header]
    unknown = [c for c in header if c not in REQUIRED + OPTIONAL]
    if missing or unknown:
        raise InputError(f'{path}: columns must be {", ".join(REQUIRED)} (optional: '
                         f'{", ".join(OPTIONAL)}); missing {missing}, unknown {unknown}')
    data = {c: np.zeros(len(rows)) for c in REQUIRED + OPTIONAL}
    for k, row in enumerate(rows):
        row = {key.strip(): value for key, value in row.items() if key is not None}
        for column in header:
            data[column][k] = _number(path, k, column, row.get(column))
    try:
        return InputTable(
            t=data['t'], steer=data['steer'],
            drive=np.column_stack([data[f'torque_{w}'] for w in WHEELS]),
            brake=np.column_stack([data[f'brake_{w}'] for w in WHEELS]),
            handbrake=data['handbrake'])
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
    """Write an inputs CSV (with brake and handbrake columns) at full precision."""
    with open(path, 'w', newline='', encoding='utf-8') as stream:
        writer = csv.writer(stream)
        writer.writerow(REQUIRED + OPTIONAL)
        for k, t in enumerate(table.t):
            values = [t, table.steer[k], *table.drive[k], *table.brake[k], table.handbrake[k]]
            writer.writerow([repr(float(v)) for v in values])


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
