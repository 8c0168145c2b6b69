"""`python -m rally_sim.vehicle_keys`: every key of a vehicle file (cli/vehicle_keys.py)."""

import sys

from .cli.vehicle_keys import main

if __name__ == '__main__':
    sys.exit(main())
