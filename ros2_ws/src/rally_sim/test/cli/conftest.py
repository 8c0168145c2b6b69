"""The commands' tests: the simulator in its own process, a client node here, where needed."""

from support.simulator import simulator  # noqa: F401  (the fixture)
