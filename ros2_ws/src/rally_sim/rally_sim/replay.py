"""`python -m rally_sim.replay`, where users run it: see cli/replay.py."""

import sys

from .cli.replay import main

if __name__ == '__main__':
    sys.exit(main())
