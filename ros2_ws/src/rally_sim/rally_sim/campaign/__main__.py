"""
Entry point of campaigns: `./rally campaign` or `python -m rally_sim.campaign`.

Light on purpose: the stop handler is installed before the heavy imports
(see rally_sim.entry); the command itself is in cli.py.
"""

import sys

from ..entry import run_tool


def main(argv=None) -> int:
    """Run a campaign (see cli.main); 130 or 143 when stopped by a signal."""
    return run_tool('rally_sim.campaign.cli', argv)


if __name__ == '__main__':
    sys.exit(main())
