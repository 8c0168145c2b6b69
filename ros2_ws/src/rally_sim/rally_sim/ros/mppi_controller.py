"""
Entry point of the example MPPI controller.

    ros2 run rally_sim mppi_controller
    python -m rally_sim.ros.mppi_controller

Light on purpose: the stop handler is installed before the node's heavy
imports (ros/process.py); the node itself is in controllers/mppi_controller_node.py.
"""

import sys

from .process import run_node_process


def main(args=None) -> int:
    """Run the example MPPI controller until Ctrl-C or SIGTERM (exit 0); 2: a bad parameter."""
    return run_node_process('rally_sim.ros.controllers.mppi_controller_node', 'MppiNode',
                            'mppi_controller', args)


if __name__ == '__main__':
    sys.exit(main())
