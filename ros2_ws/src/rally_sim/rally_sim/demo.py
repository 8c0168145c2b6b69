"""`python -m rally_sim.demo`, where users run it: see cli/demo.py."""

import sys

from .cli.demo import main

if __name__ == '__main__':
    sys.exit(main())
