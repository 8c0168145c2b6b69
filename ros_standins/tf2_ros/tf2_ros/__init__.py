"""
rally_sim's stand-in for tf2_ros (apt-only, on no package registry), written to its Python API.

Buffer (lookup_transform, can_transform, their _full and _async forms, with
time interpolation and timeouts), TransformListener, TransformBroadcaster,
StaticTransformBroadcaster and tf2's exceptions, so that nodes which import
tf2_ros run unmodified on a pip install of ROS 2. `./rally setup` installs it
only where no real tf2_ros exists.
"""

from tf2_py import (BufferCore, ConnectivityException, ExtrapolationException,  # noqa
                    InvalidArgumentException, LookupException, TimeoutException,
                    TransformException)

from .buffer import Buffer  # noqa
from .static_transform_broadcaster import StaticTransformBroadcaster  # noqa
from .transform_broadcaster import TransformBroadcaster  # noqa
from .transform_listener import TransformListener  # noqa
