"""`python -m rally_sim.bench`: the physics benchmarks (bench/physics.py)."""

import sys

from .physics import main

if __name__ == '__main__':
    sys.exit(main())
