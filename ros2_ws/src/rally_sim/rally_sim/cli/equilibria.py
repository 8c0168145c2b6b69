"""
The car's steady cornering states: `./rally equilibria` or `python -m rally_sim.equilibria`.

    python -m rally_sim.equilibria [VEHICLE] [--surface S] [--radius R | --speed V]
        [--sideslip-deg B | --to-deg B --points N] [--mode torque|driver] [--gear N]
        [--json FILE] [--plot FILE]

Prints a table of equilibria: one at --sideslip-deg, or a family from grip
driving (beta 0) to --to-deg (default 45 deg deep, on the drift's side of
the turn); a car on springs has its steady roll and pitch too (REP-103:
roll left side up, pitch nose down). --json writes each one's full model
state (a car on springs: its body's too) and inputs
(`python -m rally_sim.replay --initial-state FILE` starts from one);
--plot draws steer, drive and speed against sideslip, stability marked.
Exit status: 0 found, 1 no equilibrium (the message says which limit
bites), 2 bad input.
"""

import argparse
import json
import math
import sys
from typing import List, Sequence

import numpy as np

from ..physics import CommandError, ConfigError, load_vehicle, Surface, SURFACE_GRIP, Vehicle
from ..physics.equilibria import DRIVER, Equilibrium, EquilibriumError, SteadyState, TORQUE
from ..physics.model import STATE_SIZE
from ..resources import shipped, vehicle_path

DEFAULT_RADIUS_M = 15.0


def car_parser(prog: str, doc: str) -> argparse.ArgumentParser:
    """Return a parser with the car's arguments: VEHICLE (rwd_gravel) and --surface (gravel)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split('\n\n')[0].strip())
    parser.add_argument('vehicle', nargs='?', default='rwd_gravel',
                        help='vehicle file or preset (' + ', '.join(shipped('vehicles'))
                        + '); default rwd_gravel')
    parser.add_argument('--surface', default='gravel', choices=list(SURFACE_GRIP),
                        help='surface type everywhere; default gravel')
    return parser


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = car_parser('./rally equilibria', __doc__)
    circle = parser.add_mutually_exclusive_group()
    circle.add_argument('--radius', type=float, metavar='R',
                        help='circle radius [m], positive turns left (default '
                             f'{DEFAULT_RADIUS_M:g})')
    circle.add_argument('--speed', type=float, metavar='V', help='speed [m/s] instead')
    single = parser.add_mutually_exclusive_group()
    single.add_argument('--sideslip-deg', type=float, metavar='B',
                        help='one equilibrium at this sideslip [deg] (REP-103: negative in a '
                             'left-hand drift)')
    single.add_argument('--to-deg', type=float, metavar='B', default=45.0,
                        help='a family from 0 to this sideslip magnitude [deg] (default 45)')
    parser.add_argument('--points', type=int, default=46,
                        help='points of the family (default 46: every degree)')
    parser.add_argument('--mode', choices=(TORQUE, DRIVER),
                        help='drive input: a torque per axle, or the throttle in a held gear '
                             'through the drivetrain (default: driver where there is one)')
    parser.add_argument('--gear', type=int, help='the held gear in driver mode (default: the '
                                                 'highest with the clutch engaged at the speed)')
    parser.add_argument('--json', metavar='FILE', help='write the equilibria as JSON')
    parser.add_argument('--plot', metavar='FILE', help='draw the diagrams into a PNG')
    args = parser.parse_args(argv)
    if args.radius is None and args.speed is None:
        args.radius = DEFAULT_RADIUS_M
    if args.points < 2:
        parser.error('--points must be at least 2')
    return args


def sideslips(args: argparse.Namespace) -> np.ndarray:
    """
    Return the sideslips to solve [rad]: 0 to the target, on the drift's side of the turn.

    One equilibrium (--sideslip-deg): the family is followed from grip to it
    (folds, kinks and a drift branch of its own included) and solved there.
    """
    if args.sideslip_deg is not None:
        return np.radians([0.0, args.sideslip_deg])
    side = -1.0 if (args.radius is None or args.radius > 0.0) else 1.0
    return np.radians(np.linspace(0.0, side * abs(args.to_deg), args.points))


def table(equilibria: List[Equilibrium]) -> str:
    """Return the equilibria as an aligned text table, a line each."""
    driver = equilibria and equilibria[0].mode == DRIVER
    sprung = equilibria and len(equilibria[0].state) > STATE_SIZE
    head = (f"{'beta':>6} {'R':>7} {'V':>6} {'r':>6} {'steer':>6} {'omega fl  fr  rl  rr':>24}"
            f" {'T front':>8} {'T rear':>8}" + (f" {'throttle':>8} {'rpm':>5}" if driver else '')
            + (f" {'roll':>5} {'pitch':>5}" if sprung else '') + '  stability')
    units = (f"{'deg':>6} {'m':>7} {'m/s':>6} {'rad/s':>6} {'deg':>6} {'rad/s':>24}"
             f" {'N m':>8} {'N m':>8}" + (f" {'':>8} {'':>5}" if driver else '')
             + (f" {'deg':>5} {'deg':>5}" if sprung else ''))
    lines = [head, units]
    for e in equilibria:
        front, rear = e.axle_torque_n_m()
        spins = ' '.join(f'{w:5.1f}' for w in e.omega_rad_s)
        line = (f'{math.degrees(e.sideslip_rad):6.1f} {e.radius_m:7.2f} {e.speed_m_s:6.2f} '
                f'{e.yaw_rate_rad_s:6.3f} {math.degrees(e.steer_rad):6.2f} {spins:>24} '
                f'{front:8.1f} {rear:8.1f}')
        if driver:
            line += f' {e.throttle:8.3f} {e.engine_rpm:5.0f}'
        if sprung:
            line += f' {math.degrees(e.roll_rad):5.2f} {math.degrees(e.pitch_rad):5.2f}'
        line += '  ' + stability(e)
        if e.limit:
            line += f'  [beyond: {e.limit.split(":")[0]}]'
        lines.append(line)
    return '\n'.join(lines)


def stability(e: Equilibrium) -> str:
    """Return 'stable', or 'unstable' with its unstable eigenvalues [1/s]."""
    if e.stable:
        return 'stable'
    values = ', '.join(f'{v.real:.3f}' + (f'{v.imag:+.3f}j' if v.imag else '')
                       for v in e.unstable)
    held = [v.real for v in e.spin_held_eigenvalues if v.real > 0.0]
    spin = ', '.join(f'{v:.3f}' for v in held) or 'none'
    return f'unstable ({values}); driven spins held: {spin}'


def document(args: argparse.Namespace, solver: SteadyState, equilibria: List[Equilibrium],
             ended: str, gaps: Sequence = ()) -> dict:
    """Return the JSON document: what was asked, each equilibrium, its gaps, why it ended."""
    return {
        'vehicle': solver.vehicle.config['name'], 'surface': args.surface,
        'mode': solver.mode, 'gear': solver.gear if solver.mode == DRIVER else None,
        'radius_m': args.radius, 'speed_m_s': args.speed,
        'state_names': list(equilibria[0].to_json()['state']) if equilibria else [],
        'equilibria': [e.to_json() for e in equilibria], 'ended': ended,
        'gaps_deg': [[math.degrees(a), math.degrees(b)] for a, b in gaps],
    }


def main(argv: List[str] = None) -> int:
    """Solve and report; return the exit status."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        vehicle = Vehicle(load_vehicle(vehicle_path(args.vehicle)), Surface.uniform(args.surface))
        solver = SteadyState(vehicle, args.mode, args.gear)
        family = solver.trace(sideslips(args), args.radius, args.speed)
        equilibria, ended = family.equilibria, family.ended
    except EquilibriumError as error:
        print(f'error: {error}', file=sys.stderr)
        return 1
    except (ConfigError, CommandError, ValueError) as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    if args.sideslip_deg is not None:
        if ended:
            print(f'error: {ended}', file=sys.stderr)
            return 1
        equilibria = equilibria[-1:]
    elif family.note():
        print(f'note: {family.note()}', file=sys.stderr)
    gear = f', gear {solver.gear}' if solver.mode == DRIVER else ''
    circle = f'R = {args.radius:g} m' if args.radius is not None else f'V = {args.speed:g} m/s'
    print(f"{vehicle.config['name']} on {args.surface}, {circle}, {solver.mode} mode{gear}")
    if equilibria:
        print(table(equilibria))
    if ended:
        print(f'note: {ended}', file=sys.stderr)
    if args.json and equilibria:
        with open(args.json, 'w', encoding='utf-8') as stream:
            json.dump(document(args, solver, equilibria, ended, family.gaps), stream,
                      indent=1)
    if args.plot and equilibria:
        from .equilibria_plot import plot_equilibria
        plot_equilibria(equilibria, args.plot,
                        f"{vehicle.config['name']} on {args.surface}, {circle}{gear}")
    if args.sideslip_deg is not None and equilibria[0].limit:
        where = solver.where(equilibria[0].sideslip_rad, args.radius, args.speed)
        print(f"error: no equilibrium {where} within the car's limits: {equilibria[0].limit}",
              file=sys.stderr)
        return 1
    return 0 if equilibria else 1


if __name__ == '__main__':
    sys.exit(main())
