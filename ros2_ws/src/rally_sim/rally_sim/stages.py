"""`python -m rally_sim.stages`, kept where users call it: the stages are in world/stages.py."""

import sys

from .world.stages import main

if __name__ == '__main__':
    sys.exit(main())
