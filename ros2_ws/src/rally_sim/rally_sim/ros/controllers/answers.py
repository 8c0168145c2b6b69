"""
A controller's answers to the newest state, sent again when that state comes again.

In synchronous mode the simulator publishes a state again while it waits
(an answer may have been lost while discovery matched the publishers). A
controller with memory (integrators, filters, a warm-started optimiser)
must not step twice on the same state: it sends the same answers again, so
a run is the same however often a state was repeated.
"""

from typing import List, Tuple

from rclpy.publisher import Publisher


class Answers:
    """The messages published in answer to the newest state stamp."""

    def __init__(self):
        """Start with no state answered."""
        self.stamp: Tuple[int, int] = None
        self.sent: List[Tuple[Publisher, object]] = []

    def repeated(self, state) -> bool:
        """If `state` was answered already, publish the same answers again and return True."""
        stamp = (state.header.stamp.sec, state.header.stamp.nanosec)
        if stamp == self.stamp:
            for publisher, message in self.sent:
                publisher.publish(message)
            return True
        self.stamp, self.sent = stamp, []
        return False

    def publish(self, publisher: Publisher, message) -> None:
        """Publish an answer to the current state and keep it."""
        publisher.publish(message)
        self.sent.append((publisher, message))
