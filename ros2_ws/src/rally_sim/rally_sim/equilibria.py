"""`python -m rally_sim.equilibria`, where users run it: see cli/equilibria.py."""

import sys

from .cli.equilibria import main

if __name__ == '__main__':
    sys.exit(main())
