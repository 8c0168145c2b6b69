"""Run a node until Ctrl-C or an external shutdown, then clean up."""

import sys
from typing import Callable

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node

from .parameters import ParameterError


def spin_until_shutdown(node: Node) -> None:
    """Spin `node`; on Ctrl-C (SIGINT) or shutdown destroy it and shut rclpy down cleanly."""
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


def run_node(make_node: Callable[[], Node], name: str, args=None) -> int:
    """
    Run a node's process: init, build the node, spin until Ctrl-C.

    Returns the exit status: 2 (with the reason on stderr) when the node
    refuses its parameters, else 0.
    """
    rclpy.init(args=args)
    try:
        node = make_node()
    except ParameterError as error:
        print(f'{name}: error: {error}', file=sys.stderr)
        rclpy.try_shutdown()
        return 2
    spin_until_shutdown(node)
    return 0
