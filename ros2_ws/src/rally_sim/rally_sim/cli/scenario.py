"""
Entry point of the scenario runner: `./rally scenario` or `python -m rally_sim.scenario`.

Light on purpose: the stop handler is installed before the heavy imports
(see rally_sim.runtime.entry); the runner itself is in scenarios/runner.py.
"""

import sys

from ..runtime.entry import run_tool


def main(argv=None) -> int:
    """Run a scenario (see scenarios/runner.main); 130 or 143 when stopped by a signal."""
    return run_tool('rally_sim.scenarios.runner', argv)


if __name__ == '__main__':
    sys.exit(main())
