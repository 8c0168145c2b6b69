"""
Entry point of the demo: `./rally run` or `python -m rally_sim.demo`.

Light on purpose: the stop handler is installed before the heavy imports
(see rally_sim.runtime.entry); the demo itself is in demo_driver.py.
"""

import sys

from ..runtime.entry import run_tool


def main(argv=None) -> int:
    """Run the demo (see demo_driver.main) until its duration or Ctrl-C."""
    return run_tool('rally_sim.cli.demo_driver', argv)


if __name__ == '__main__':
    sys.exit(main())
