"""The simulator in its own process, a client node here (support/simulator.py)."""

from support.simulator import simulator  # noqa: F401  (the fixture)
