"""
Write the inputs of document 002's three scenarios as replay CSV files.

    python -m rally_sim.document_scenarios DIR

Writes DIR/u_turn.csv, DIR/spin_out.csv and DIR/drift.csv and prints the
replay command for each (with the scenario's initial speed), as pasted
from the repository's root (./rally exec: the project's environment); the
replays write into DIR too.
"""

import os
import sys

from .replay import write_inputs
from ..physics.scenarios import document_scenario, SCHEDULES
from ..runtime.entry import answered_help


def main(argv=None) -> int:
    """Write the files; return the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if answered_help(__doc__, argv):
        return 0
    if len(argv) != 1 or argv[0].startswith('-'):
        print(__doc__, file=sys.stderr)
        return 2
    folder = argv[0]
    os.makedirs(folder, exist_ok=True)
    for name in SCHEDULES:
        scenario = document_scenario(name)
        path = os.path.join(folder, name + '.csv')
        write_inputs(path, scenario.inputs)
        out = os.path.join(folder, name)
        print(f'./rally exec python -m rally_sim.replay --vehicle volvo_v40_document '
              f'--inputs {path} --output {out}_out.csv --initial-speed '
              f'{scenario.initial_speed_m_s:g} --plot {out}.png')
    return 0


if __name__ == '__main__':
    sys.exit(main())
