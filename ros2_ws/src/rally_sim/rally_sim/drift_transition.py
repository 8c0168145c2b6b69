"""`python -m rally_sim.drift_transition`, where users run it: see cli/drift_transition.py."""

import sys

from .cli.drift_transition import main

if __name__ == '__main__':
    sys.exit(main())
