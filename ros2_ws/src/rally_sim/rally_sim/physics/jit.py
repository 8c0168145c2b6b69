"""
Optional JIT compilation of the physics hot path.

The equations are written once, as plain Python/NumPy functions in the subset
numba compiles. With numba installed they run compiled; without it, or with
RALLY_SIM_NO_JIT=1 set, the very same functions run as plain Python (used by
the tests to check that both agree).
"""

import os

try:
    import numba
except ImportError:  # pragma: no cover - numba is part of the project's venv
    numba = None

ENABLED = numba is not None and os.environ.get('RALLY_SIM_NO_JIT', '') not in ('1', 'true')


def njit(function):
    """Compile `function` in nopython mode (cached on disk) when JIT is enabled."""
    if not ENABLED:
        return function
    return numba.njit(cache=True, fastmath=False)(function)
