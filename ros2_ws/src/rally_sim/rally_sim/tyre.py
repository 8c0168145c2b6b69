"""`python -m rally_sim.tyre`, where users run it: see cli/tyre_curves.py."""

import sys

from .cli.tyre_curves import main

if __name__ == '__main__':
    sys.exit(main())
