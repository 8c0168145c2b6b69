"""Run a node until Ctrl-C or an external shutdown, then clean up."""

import signal
import sys
from typing import Callable

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from .parameters import ParameterError

SPIN_TIMEOUT_S = 0.1
"""How long one spin waits for work; bounds how late Ctrl-C is noticed."""


def make_executor(node: Node):
    """
    Return the executor for `node`, with the node added.

    rclpy's events executor, unless the node needs message info
    (node.needs_message_info), which only the single-threaded one gives. The
    events executor dispatches from C++ and costs far less per callback.
    """
    if getattr(node, 'needs_message_info', False):
        executor = SingleThreadedExecutor()
    else:
        executor = EventsExecutor()
    executor.add_node(node)
    return executor


class _StopRequest:
    """Ctrl-C (SIGINT) and SIGTERM as a flag the spin loop reads between callbacks."""

    def __init__(self):
        self.requested = False
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, self._on_signal)

    def _on_signal(self, number, frame) -> None:
        self.requested = True


def spin_until_shutdown(node: Node, stop: _StopRequest = None) -> None:
    """
    Spin `node` until Ctrl-C, SIGTERM or shutdown, then clean up.

    A signal ends the loop between callbacks, never inside one; before the
    node is destroyed, what it published is delivered (its `flush()`, if it
    has one), so subscribers lose nothing at the end of a run.
    """
    executor = make_executor(node)
    try:
        # spin_once in a loop, not spin(): the events executor's spin() does not
        # return on Ctrl-C.
        while rclpy.ok() and not (stop and stop.requested):
            executor.spin_once(timeout_sec=SPIN_TIMEOUT_S)
        if rclpy.ok() and hasattr(node, 'flush'):
            node.flush()
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
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    stop = _StopRequest()
    try:
        node = make_node()
    except ParameterError as error:
        print(f'{name}: error: {error}', file=sys.stderr)
        rclpy.try_shutdown()
        return 2
    spin_until_shutdown(node, stop)
    return 0
