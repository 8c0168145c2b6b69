"""
When simulated time may start: once every observer that must see the run is there.

An observer (a recorder, a logger, a tool's own node: the parameter
`sync_observers`) must have every state from t = 0. The simulator holds time
at 0 and publishes nothing until each listed observer subscribes to the
simulator's outputs in the ROS graph and the simulator's publishers have
matched every such subscription (the writer side: from then on a message
published reaches it, retransmitted if need be, from the publishers'
history). The synchronous gate (sync.py) then waits for the controllers'
first answers as for any state.
"""

import time
from typing import Iterable, List

from rclpy.node import Node

from ..sim.sync import full_name

CHECK_EVERY_S = 0.1
"""The graph is asked at most this often [wall s] while waiting."""


class StartGate:
    """The listed observers of one simulator node, and whether all are matched."""

    def __init__(self, node: Node, observers: Iterable[str]):
        """Wait for the named observers (node names, resolved in the node's namespace)."""
        self.node = node
        self.observers = [full_name(n, node.get_namespace()) for n in observers]
        self.open = not self.observers
        self._missing = list(self.observers)
        self._checked_at = -CHECK_EVERY_S

    def ready(self, publishers) -> bool:
        """Return whether every observer is matched on the `publishers` it subscribes to."""
        if self.open:
            return True
        now = time.monotonic()
        if now - self._checked_at < CHECK_EVERY_S:
            return False
        self._checked_at = now
        self._missing = self._unmatched(publishers)
        self.open = not self._missing
        return self.open

    def _unmatched(self, publishers) -> List[str]:
        subscribed = set()
        unmatched = set()
        for publisher in publishers:
            readers = self.node.get_subscriptions_info_by_topic(publisher.topic_name)
            names = {full_name(r.node_name, r.node_namespace) for r in readers}
            ours = names & set(self.observers)
            subscribed |= ours
            if ours and publisher.get_subscription_count() < len(readers):
                unmatched |= ours     # in the graph, not yet matched by this publisher
        return [n for n in self.observers if n not in subscribed or n in unmatched]

    def missing(self) -> List[str]:
        """Return the observers not matched at the last check."""
        return [] if self.open else list(self._missing)
