"""`python -m rally_sim.document_scenarios`, where users run it: see cli/document_scenarios.py."""

import sys

from .cli.document_scenarios import main

if __name__ == '__main__':
    sys.exit(main())
