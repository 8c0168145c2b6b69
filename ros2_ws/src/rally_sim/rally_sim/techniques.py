"""`python -m rally_sim.techniques`, where users run it: see cli/techniques.py."""

import sys

from .cli.techniques import main

if __name__ == '__main__':
    sys.exit(main())
