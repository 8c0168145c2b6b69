"""`python -m rally_sim.scenario`, where users run it: see cli/scenario.py."""

import sys

from .cli.scenario import main

if __name__ == '__main__':
    sys.exit(main())
