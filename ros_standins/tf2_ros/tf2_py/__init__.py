"""
rally_sim's stand-in for tf2_py (apt-only): BufferCore and the tf2 exceptions, in plain Python.

Installed by `./rally setup` only where no real tf2_py exists; a ROS 2 install's
own package always wins.
"""

from .buffer_core import (BufferCore, ConnectivityException, ExtrapolationException,  # noqa
                          InvalidArgumentException, LookupException, TimeoutException,
                          TransformException)
