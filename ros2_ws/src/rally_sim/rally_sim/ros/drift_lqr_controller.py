"""
Entry point of the reference drift controller.

    ros2 run rally_sim drift_lqr_controller
    python -m rally_sim.ros.drift_lqr_controller

Light on purpose: the stop handler is installed before the node's heavy
imports (ros/process.py); the node itself is in controllers/drift_lqr_controller_node.py.
"""

import sys

from .process import run_node_process


def main(args=None) -> int:
    """Run the reference drift controller until Ctrl-C or SIGTERM (exit 0); 2: a bad parameter."""
    return run_node_process('rally_sim.ros.controllers.drift_lqr_controller_node', 'DriftLqrNode',
                            'drift_lqr_controller', args)


if __name__ == '__main__':
    sys.exit(main())
