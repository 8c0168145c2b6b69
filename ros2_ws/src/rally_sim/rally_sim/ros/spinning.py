"""Run a node until Ctrl-C or an external shutdown, then clean up."""

import sys
from typing import Callable

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.experimental import EventsExecutor
from rclpy.node import Node

from .parameters import ParameterError

SPIN_TIMEOUT_S = 0.1
"""How long one spin waits for work; bounds how late Ctrl-C is noticed."""


def make_executor(node: Node):
    """
    Return the executor for `node`: rclpy's events executor, unless the node needs
    message info (node.needs_message_info), which only the single-threaded one gives.

    The events executor dispatches from C++ and costs far less per callback.
    """
    if getattr(node, 'needs_message_info', False):
        executor = SingleThreadedExecutor()
    else:
        executor = EventsExecutor()
    executor.add_node(node)
    return executor


def spin_until_shutdown(node: Node) -> None:
    """Spin `node`; on Ctrl-C (SIGINT) or shutdown destroy it and shut rclpy down cleanly."""
    executor = make_executor(node)
    try:
        # spin_once in a loop, not spin(): the events executor's spin() does not
        # return on Ctrl-C.
        while rclpy.ok():
            executor.spin_once(timeout_sec=SPIN_TIMEOUT_S)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        executor.shutdown()
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
