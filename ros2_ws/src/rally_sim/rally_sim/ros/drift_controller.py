"""
Entry point of the example drift controller.

    ros2 run rally_sim drift_controller
    python -m rally_sim.ros.drift_controller

Light on purpose: the stop handler is installed before the node's heavy
imports (ros/process.py); the node itself is in controllers/drift_controller_node.py.
"""

import sys

from .process import run_node_process


def main(args=None) -> int:
    """Run the example drift controller until Ctrl-C or SIGTERM (exit 0); 2: a bad parameter."""
    return run_node_process('rally_sim.ros.controllers.drift_controller_node', 'DriftNode',
                            'drift_controller', args)


if __name__ == '__main__':
    sys.exit(main())
