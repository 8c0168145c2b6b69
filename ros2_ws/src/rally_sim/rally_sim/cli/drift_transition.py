"""
Plan a figure eight's drift transition: `python -m rally_sim.drift_transition`.

    python -m rally_sim.drift_transition [VEHICLE] [--surface S] [--radius R]
        [--sideslip-deg B] [--command driver|torque] [--gear N] --output FILE

Plans, on the simulator's own model, the steer angle and rear wheel speed
that take the car from the drift on one circle into the drift on the
circle touching it (rally_sim.control.drift.transition), and writes them
to FILE for the reference drift controller's `transition` parameter
(course figure_eight). Takes tens of seconds. Prints what the planned run
showed: the largest distance off the circles, and how soon after the
crossing the new side's sideslip reached 15 deg. Exit status: 0 written,
1 no drift to hold or no transition found, 2 bad input.
"""

import argparse
import math
import os
import sys
from typing import Sequence

from .equilibria import car_parser
from ..control.drift.lqr import DriftDesign, DriftLqr
from ..control.drift.transition import describe, design_transition, REGAIN_DEG
from ..physics import ConfigError, load_vehicle
from ..physics.equilibria import EquilibriumError
from ..resources import vehicle_path


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = car_parser('python -m rally_sim.drift_transition', __doc__)
    parser.add_argument('--radius', type=float, default=15.0, metavar='R',
                        help="both circles' radius [m]; default 15")
    parser.add_argument('--sideslip-deg', type=float, default=20.0, metavar='B',
                        help='the sideslip magnitude held on the circles [deg]; default 20')
    parser.add_argument('--command', choices=('driver', 'torque'), default='driver',
                        help="the drive input, as the controller's parameter; default driver")
    parser.add_argument('--gear', type=int, default=0,
                        help='driver: the gear held (0, the default: the highest with the '
                             'clutch engaged)')
    parser.add_argument('--output', required=True, metavar='FILE',
                        help='the transition file to write (YAML)')
    return parser.parse_args(argv)


def main(argv: Sequence[str] = None) -> int:
    """Plan the transition and write it; return the exit status."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    for name in ('radius', 'sideslip_deg'):
        value = getattr(args, name)
        if not math.isfinite(value) or value <= 0.0:
            print(f"--{name.replace('_', '-')}: {value} is not a positive number",
                  file=sys.stderr)
            return 2
    try:
        config = load_vehicle(vehicle_path(args.vehicle))
    except ConfigError as error:
        print(f'vehicle: {error}', file=sys.stderr)
        return 2
    design = DriftDesign(radius_m=args.radius, sideslip_rad=-math.radians(args.sideslip_deg),
                         mode=args.command, gear=args.gear or None)
    try:
        left = DriftLqr(config, args.surface, design)
    except EquilibriumError as error:
        print(f'no drift to plan from: {error}', file=sys.stderr)
        return 1
    except ValueError as error:
        print(f'bad input: {error}', file=sys.stderr)
        return 2
    name = os.path.splitext(os.path.basename(args.vehicle))[0]
    transition = design_transition(name, left)
    m = transition.measured
    print(f'{describe(transition.design)}: the planned run stays within '
          f"{m['lateral_max_m']:.3f} m of the circles (RMS {m['lateral_rms_m']:.3f} m) and "
          f"holds {REGAIN_DEG:g} deg of the new side {m['regain_s']:.2f} s after the crossing "
          f"({m['runs']} runs)")
    if not math.isfinite(m['regain_s']):
        print('no transition found: the planned run never regains the drift', file=sys.stderr)
        return 1
    transition.save(args.output)
    print(f'written: {args.output}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
