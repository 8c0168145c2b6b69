"""
Entry point of the technique driver (one run of a rally technique's scripted inputs).

    ros2 run rally_sim technique_driver --ros-args -p technique:=handbrake_hairpin -p run:=control
    python -m rally_sim.ros.technique_driver

Light on purpose: the stop handler is installed before the node's heavy
imports (ros/process.py); the node itself is in controllers/technique_driver_node.py.
"""

import sys

from .process import run_node_process


def main(args=None) -> int:
    """Run the technique driver until Ctrl-C or SIGTERM (exit 0); 2: a bad parameter."""
    return run_node_process('rally_sim.ros.controllers.technique_driver_node', 'TechniqueDriver',
                            'technique_driver', args)


if __name__ == '__main__':
    sys.exit(main())
