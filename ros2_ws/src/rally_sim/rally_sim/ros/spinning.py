"""Run a node until Ctrl-C or an external shutdown, then clean up."""

import sys
import threading
from typing import Callable, List

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.experimental import EventsExecutor
from rclpy.guard_condition import GuardCondition
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from .parameters import ParameterError
from ..runtime.entry import StopRequest

SPIN_TIMEOUT_S = 0.1
"""How long one spin waits for work; bounds how late Ctrl-C is noticed."""


class SideSpinner:
    """
    Spin small helper nodes' subscriptions in a thread of their own, on a bare wait set.

    For subscriptions that need their message info (the publisher's GID),
    which rclpy's events executor does not give: their callbacks take
    (message, info). The wait set holds just these subscriptions and a
    stop condition, made once and refilled for each wait; rclpy's
    single-threaded executor builds one in Python from every entity on each
    spin, and this thread is on the synchronous loop's path (each answer
    comes through it). Callbacks run in this thread: the node serializes
    them with its own (see SimulatorNode.serialized). The nodes get no
    subscription later.
    """

    def __init__(self, nodes: List[Node]):
        """Start one thread taking `nodes`' messages until stop()."""
        self._subscriptions = [s for node in nodes for s in node.subscriptions]
        self._context = nodes[0].context
        self._wake = GuardCondition(None, None, context=self._context)
        self._stop = threading.Event()
        self.error = None
        self._thread = threading.Thread(target=self._spin, name='side-spinner', daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        subscriptions = self._subscriptions
        wait_set = _rclpy.WaitSet(len(subscriptions), 1, 0, 0, 0, 0, self._context.handle)
        timeout_ns = round(SPIN_TIMEOUT_S * 1e9)
        try:
            while not self._stop.is_set() and self._context.ok():
                wait_set.clear_entities()
                for subscription in subscriptions:
                    wait_set.add_subscription(subscription.handle)
                wait_set.add_guard_condition(self._wake.handle)
                wait_set.wait(timeout_ns)
                ready = wait_set.get_ready_entities('subscription')
                for subscription in subscriptions:
                    if subscription.handle.pointer in ready:
                        taken = subscription.handle.take_message(subscription.msg_type,
                                                                 subscription.raw)
                        if taken is not None:
                            subscription.callback(*taken)
        except Exception as error:   # noqa: B902 -- raised again in the main thread
            if self._context.ok():      # else rclpy shut down under the wait: nothing wrong
                self.error = error

    def stop(self) -> None:
        """Stop the thread and wait for it (it wakes at once)."""
        self._stop.set()
        self._wake.trigger()
        self._thread.join()
        self._wake.destroy()


def spin_until_shutdown(node: Node, stop: StopRequest = None) -> None:
    """
    Spin `node` until Ctrl-C, SIGTERM or shutdown, then clean up.

    A signal ends the loop between callbacks, never inside one; before the
    node is destroyed, what it published is delivered (its `flush()`, if it
    has one), so subscribers lose nothing at the end of a run.
    """
    executor = EventsExecutor()
    executor.add_node(node)
    if stop is not None and hasattr(node, 'stop_requested'):
        node.stop_requested = lambda: stop.requested    # long callbacks end early on a stop
    side_nodes = getattr(node, 'side_nodes', [])
    side = SideSpinner(side_nodes) if side_nodes else None
    try:
        # spin_once in a loop, not spin(): the events executor's spin() does not
        # return on Ctrl-C.
        while rclpy.ok() and not (stop and stop.requested):
            executor.spin_once(timeout_sec=SPIN_TIMEOUT_S)
            if side is not None and side.error is not None:
                raise side.error
            if getattr(node, 'background_error', None) is not None:
                raise node.background_error     # the node's own thread failed (its pacing)
        if side is not None:
            side.stop()
            side = None
        if rclpy.ok() and hasattr(node, 'flush'):
            node.flush()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if side is not None:
            side.stop()
        executor.shutdown()
        for side_node in side_nodes:
            side_node.destroy_node()
        node.destroy_node()
        rclpy.try_shutdown()


def run_node(make_node: Callable[[], Node], name: str, args, stop: StopRequest) -> int:
    """
    Run a node's process: init, build the node, spin until `stop` is requested.

    `stop` (see entry.py) holds signals as a flag by now. Returns the exit
    status: 2 (with the reason on stderr) when the node refuses its
    parameters or rcl its arguments (a parameter file missing or not YAML),
    else 0, also when stopped while the node was being built.
    """
    try:
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    except _rclpy.RCLError as error:     # --ros-args rcl cannot read: a parameter file, say
        print(f"{name}: error: {str(error).split(', at /')[0]}", file=sys.stderr)
        return 2
    try:
        node = make_node()
    except ParameterError as error:
        print(f'{name}: error: {error}', file=sys.stderr)
        rclpy.try_shutdown()
        return 2
    spin_until_shutdown(node, stop)
    return 0
