"""
Run one of reference 000's rally techniques beside its control run; print and plot the signature.

    python -m rally_sim.techniques NAME [--vehicle VEHICLE] [--plot FILE.png]
    python -m rally_sim.techniques all [--plot-folder DIR]

NAME: scandinavian_flick, left_foot_braking, trail_braking,
handbrake_hairpin, power_oversteer, lift_off_oversteer (each with its own
default car). Exit status 0 when the signature emerged, 1 when not. Each
runs here, in-process; `./rally scenario NAME` runs the same inputs through
the ROS simulator (config/scenarios/NAME.yaml).
"""

import argparse
import os
import sys

from ..control.techniques import Result, TECHNIQUES
from ..scenarios.techniques import plot


def report(result: Result) -> str:
    """Return a result's signature and verdict in words."""
    lines = [f'{result.technique} on {result.vehicle}: '
             + ('emerged' if result.emerged else 'did NOT emerge')]
    lines += [f'  {key}: {value:.4g}' for key, value in result.signature.items()]
    return '\n'.join(lines)


def main(argv=None) -> int:
    """Run the technique(s); return 0 if every signature emerged."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('name', choices=sorted(TECHNIQUES) + ['all'])
    parser.add_argument('--vehicle', help='a preset or vehicle file with a drivetrain')
    parser.add_argument('--plot', help='the figure (one technique)')
    parser.add_argument('--plot-folder', help="all: each technique's figure, NAME.png")
    args = parser.parse_args(argv)
    names = sorted(TECHNIQUES) if args.name == 'all' else [args.name]
    emerged = True
    for name in names:
        result = (TECHNIQUES[name](args.vehicle) if args.vehicle else TECHNIQUES[name]()).run()
        print(report(result))
        emerged &= result.emerged
        path = args.plot if args.name != 'all' else (
            os.path.join(args.plot_folder, f'{name}.png') if args.plot_folder else None)
        if path:
            plot(result, path)
            print(f'  figure: {path}')
    return 0 if emerged else 1


if __name__ == '__main__':
    sys.exit(main())
