"""
Entry point of `./rally watch` (python -m rally_sim.cli.watch).

Light on purpose: the stop handler is installed before the heavy imports
(see rally_sim.runtime.entry); the view itself is in watch_run.py.
"""

import sys

from ..runtime.entry import run_tool


def main(argv=None) -> int:
    """Watch a simulation or a bag in the browser (see watch_run.main) until Ctrl-C."""
    return run_tool('rally_sim.cli.watch_run', argv)


if __name__ == '__main__':
    sys.exit(main())
