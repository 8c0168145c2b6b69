"""
Entry point of `./rally bag` (python -m rally_sim.cli.bag): record, info, play.

Light on purpose: the stop handler is installed before the heavy imports
(see rally_sim.runtime.entry); the commands are in bag_run.py.
"""

import sys

from ..runtime.entry import run_tool


def main(argv=None) -> int:
    """Record, describe or play a rosbag2 bag (see bag_run.main)."""
    return run_tool('rally_sim.cli.bag_run', argv)


if __name__ == '__main__':
    sys.exit(main())
