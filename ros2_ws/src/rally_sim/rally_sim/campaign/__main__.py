"""
Entry point of campaigns: `./rally campaign` or `python -m rally_sim.campaign`.

Light on purpose: the stop handler is installed before the heavy imports
(see rally_sim.runtime.entry); the command itself is in cli.py.
"""

from ..runtime.entry import exit_at_once, run_tool


def main(argv=None) -> int:
    """Run a campaign (see cli.main); 130 or 143 when stopped by a signal."""
    return run_tool('rally_sim.campaign.cli', argv)


if __name__ == '__main__':
    exit_at_once(main())       # the table and report are written: no 0.3 s teardown
