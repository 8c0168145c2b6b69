"""
Entry point of `./rally drive` (python -m rally_sim.cli.drive).

Light on purpose: the stop handler is installed before the heavy imports
(see rally_sim.runtime.entry); the drive itself is in drive_run.py.
"""

import sys

from ..runtime.entry import run_tool


def main(argv=None) -> int:
    """Drive a car from the browser (see drive_run.main) until Ctrl-C or the duration."""
    return run_tool('rally_sim.cli.drive_run', argv)


if __name__ == '__main__':
    sys.exit(main())
