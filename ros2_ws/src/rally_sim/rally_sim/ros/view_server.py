"""
Entry point of the view server node.

    ros2 run rally_sim view_server
    python -m rally_sim.ros.view_server

Light on purpose: the stop handler is installed before the node's heavy
imports (ros/process.py); the node itself is in view/node.py.
"""

import sys

from .process import run_node_process

SWITCH_INTERVAL_S = 0.001
"""
How long a thread holding the GIL runs before another may take it (Python's is 5 ms).

A page's key arrives on the page server's thread while the main thread makes frames;
it waited up to the default 5 ms for the GIL.
"""


def main(args=None) -> int:
    """Run the view server until Ctrl-C or SIGTERM (exit 0); 2: a bad parameter."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    return run_node_process('rally_sim.ros.view.node', 'ViewNode', 'view_server', args)


if __name__ == '__main__':
    sys.exit(main())
