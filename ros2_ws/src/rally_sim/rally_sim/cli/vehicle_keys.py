"""
Every key of a vehicle file, from the schema itself: `python -m rally_sim.vehicle_keys`.

    python -m rally_sim.vehicle_keys [--output FILE]

Writes the reference of docs/vehicle_files.md (Markdown): each key of
physics/config.py's FIELDS with whether it is required, its default, its
range or choices, its unit and meaning, and the models that use it. The
docs' page is this output, so it cannot drift from the schema (a test
compares them).
"""

import argparse
import sys
from typing import List

from ..physics.config import (
    ALL, DRIVETRAIN_FIELDS, Field, FIELDS, SUSPENSION_FIELDS)

INTRODUCTION = """\
# Vehicle files: every key

A vehicle file is YAML: nested mappings whose dotted paths are the keys
below (`tyres: {front: {mu: 1.0}}` sets `tyres.front.mu`). Required keys
must be in every file of the models that use them; optional keys take the
default shown. A file with unknown, missing or out-of-range keys is refused,
every problem named at once. `--set KEY=VALUE` (replay) and
`vehicle_overrides` (scenarios, Gymnasium) take the same keys. The
drivetrain's keys are required only with `drivetrain.layout` fwd, rwd or
awd, the suspension's only with `body: suspension`. Units are in each
meaning's brackets; SI throughout.

Generated from the schema (rally_sim/physics/config.py) by
`python -m rally_sim.vehicle_keys`: do not edit by hand.
"""


def _required(key: str, spec: Field) -> str:
    if spec.default is not None:
        return 'optional'
    if key in SUSPENSION_FIELDS:
        return 'with a suspension'
    return 'with a drivetrain' if key in DRIVETRAIN_FIELDS else 'required'


def _allowed(spec: Field) -> str:
    if spec.choices:
        return ', '.join(f'`{c}`' for c in spec.choices)
    if spec.kind is list:
        return f'{spec.length[0]} to {spec.length[1]} numbers, each {spec.low:g} to {spec.high:g}'
    if spec.kind is bool:
        return 'true or false'
    if spec.kind is str:
        return 'text'
    return f'{spec.low:g} to {spec.high:g}' + (' (whole)' if spec.kind is int else '')


def _default(spec: Field) -> str:
    if spec.default is None:
        return ''
    if isinstance(spec.default, bool):
        return f'`{str(spec.default).lower()}`'
    return f'`{spec.default}`' if not isinstance(spec.default, float) else f'`{spec.default:g}`'


def reference() -> str:
    """Return the Markdown reference of every key."""
    lines: List[str] = [INTRODUCTION, '| key | required | default | allowed | meaning | models |',
                        '|---|---|---|---|---|---|']
    for key, spec in FIELDS.items():
        models = 'all' if tuple(spec.models) == ALL else ', '.join(spec.models)
        meaning = spec.description.replace('|', '/').replace('\n', ' ')
        lines.append(f'| `{key}` | {_required(key, spec)} | {_default(spec)} | '
                     f'{_allowed(spec)} | {meaning} | {models} |')
    return '\n'.join(lines) + '\n'


def main(argv=None) -> int:
    """Print (or write) the reference."""
    parser = argparse.ArgumentParser(prog='python -m rally_sim.vehicle_keys',
                                     description=__doc__.split('\n\n')[0].strip())
    parser.add_argument('--output', metavar='FILE', help='write it there (default: stdout)')
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    text = reference()
    if args.output:
        with open(args.output, 'w', encoding='utf-8') as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
