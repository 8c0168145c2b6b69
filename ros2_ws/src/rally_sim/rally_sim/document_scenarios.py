"""
Write the inputs of document 002's three scenarios as replay CSV files.

    python -m rally_sim.document_scenarios DIR

Writes DIR/u_turn.csv, DIR/spin_out.csv and DIR/drift.csv and prints the
replay command for each (with the scenario's initial speed).
"""

import os
import sys

from .physics.scenarios import document_scenario, SCHEDULES
from .replay import write_inputs


def main(argv=None) -> int:
    """Write the files; return the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0].startswith('-'):
        print(__doc__, file=sys.stderr)
        return 2
    folder = argv[0]
    os.makedirs(folder, exist_ok=True)
    for name in SCHEDULES:
        scenario = document_scenario(name)
        path = os.path.join(folder, name + '.csv')
        write_inputs(path, scenario.inputs)
        print(f'python -m rally_sim.replay --vehicle volvo_v40_document --inputs {path} '
              f'--output {name}_out.csv --initial-speed {scenario.initial_speed_m_s:g} '
              f'--plot {name}.png')
    return 0


if __name__ == '__main__':
    sys.exit(main())
