"""
Entry point of the simulator node.

    ros2 run rally_sim rally_sim_node
    python -m rally_sim.ros.node

Light on purpose: the stop handler is installed before the node's heavy
imports (ros/process.py); the node itself is in simulator_node.py.
"""

import sys

from .process import run_node_process


def main(args=None) -> int:
    """Run the simulator node until Ctrl-C or SIGTERM (exit 0); 2: a bad parameter."""
    return run_node_process('rally_sim.ros.simulator_node', 'SimulatorNode',
                            'rally_sim_node', args)


if __name__ == '__main__':
    sys.exit(main())
