"""
A node's process, from its light entry module (ros/node.py, ros/path_follower.py ...).

The entry modules import only this and the runtime (no rclpy): a signal is
handled from the process's first moment, and ROS starts after the node's
slow preparation (runtime/entry.py says how a stop is handled).
"""

import importlib
import sys

from ..runtime.entry import ignore_signals, StopRequest


def run_node_process(module: str, class_name: str, name: str, args=None) -> int:
    """
    Run a node's process: stop handler first, then the imports, then the node.

    The node module's `prepare()`, if it has one, runs before ROS starts
    (the simulator loads its compiled physics there, so a signal during the
    slow part of start-up needs no clean-up). Exits 0 on a signal at any
    moment, 2 on a bad parameter or without ROS.
    """
    stop = StopRequest()
    try:
        node_module = importlib.import_module(module)
    except ModuleNotFoundError as error:    # the core pip-installed alone
        print(f'{name}: error: this is a ROS 2 node and ROS 2 is not available here '
              f'({error}); source your ROS 2 installation and workspace (the README says '
              'how). The physics, replay, batch and Gymnasium parts run without ROS.',
              file=sys.stderr)
        return 2
    prepare = getattr(node_module, 'prepare', None)
    if prepare is not None:
        prepare()
    from .spinning import run_node      # rclpy: after the preparation
    stop.hold()
    try:
        return run_node(getattr(node_module, class_name), name, args, stop)
    finally:
        ignore_signals()
