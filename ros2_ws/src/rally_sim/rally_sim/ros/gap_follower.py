"""
Entry point of the example gap follower.

    ros2 run rally_sim gap_follower
    python -m rally_sim.ros.gap_follower

Light on purpose: the stop handler is installed before the node's heavy
imports (ros/process.py); the node itself is in controllers/gap_follower_node.py.
"""

import sys

from .process import run_node_process


def main(args=None) -> int:
    """Run the example gap follower until Ctrl-C or SIGTERM (exit 0); 2: a bad parameter."""
    return run_node_process('rally_sim.ros.controllers.gap_follower_node', 'GapFollower',
                            'gap_follower', args)


if __name__ == '__main__':
    sys.exit(main())
