"""
Entry point of the scenario runner: `./rally scenario` or `python -m rally_sim.scenario`.

Light on purpose: the stop handler is installed before the heavy imports
(see rally_sim.entry); the runner itself is in scenario_runner.py.
"""

import sys

from .entry import run_tool


def main(argv=None) -> int:
    """Run a scenario (see scenario_runner.main); 130 or 143 when stopped by a signal."""
    return run_tool('rally_sim.scenario_runner', argv)


if __name__ == '__main__':
    sys.exit(main())
