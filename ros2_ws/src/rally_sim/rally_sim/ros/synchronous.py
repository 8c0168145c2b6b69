"""
The simulator node's synchronous mode: the state published, the listed controllers' answers.

After publishing the state at t, the node advances only when each listed
controller (sync_controllers) has answered it with commands stamped t (the
bookkeeping is sync.SyncGate's). Answers are told apart by their publisher,
so they arrive on a node of their own (see _answer_node). While an answer
is missing, the state is published again (a controller that started late
may have missed it); after sync_timeout_s a controller is reported and
given up until it answers again, except before time starts, when it is only
reported.
"""

import time
from typing import Callable, Dict, List

from rclpy.node import Node
from rclpy.parameter import Parameter

from .command_messages import COMMAND_TYPES
from ..sim.intake import COMMAND_TOPICS
from ..sim.reports import Reports
from ..sim.sync import APPLY, full_name, STALE, SyncGate, WRONG

REPUBLISH_S = 1.0
"""The state waited on is published again after this many wall seconds without all
answers (a controller that started late may have missed it)..."""
REPUBLISH_START_S = 0.1
"""...and this often while a listed controller has never answered: its first answer can be
lost while discovery is still matching its publisher with the simulator."""


class SynchronousMode:
    """The listed controllers of one simulator node and their answers."""

    def __init__(self, node: Node, controllers, handlers: Dict[str, Callable], odom: List,
                 reports: Reports, settings: Dict):
        """
        Wait for `controllers` (node names) on `node`'s command topics.

        handlers: the command intakes' handler per command topic (each car's,
        under its name when the node has several); odom: the odometry
        publishers (a new subscriber gets the state again). The node provides
        serialized(), advance_period() (one publishing period, if due),
        republish() and stamp_s().
        """
        self.node = node
        self.odom = odom
        self.topics = list(handlers)
        self.gate = SyncGate(full_name(n, node.get_namespace()) for n in controllers)
        self.reports = reports
        self.settings = settings
        self._republished = 0
        self._odom_subscribers = 0
        self._unidentified = {}
        self._waiting_reports = 0
        self.answer_node = self._answer_node(handlers)

    @property
    def controllers(self):
        """Return the listed controllers' full names."""
        return self.gate.controllers

    def _answer_node(self, handlers: Dict[str, Callable]) -> Node:
        """
        Subscribe to the answers on a node of their own (to spin in its own thread).

        Answers are told apart by their publisher (message info), which
        rclpy's events executor does not give: the subscriptions get a node
        with nothing else (no parameters, services or rosout), whose messages
        spinning.SideSpinner takes on a bare wait set in a thread of its own,
        and the simulator node keeps the events executor. The topics are
        resolved by the simulator node, so its namespace and remappings apply.
        """
        parent = self.node
        node = Node(f'{parent.get_name()}_answers', namespace=parent.get_namespace(),
                    context=parent.context, use_global_arguments=False, enable_rosout=False,
                    start_parameter_services=False, parameter_overrides=[
                        Parameter('start_type_description_service', value=False)])
        for topic, apply in handlers.items():
            node.create_subscription(
                COMMAND_TYPES[topic.rsplit('/', 1)[-1]], parent.resolve_topic_name(topic),
                parent.serialized(lambda m, info, apply=apply: self._on_answer(m, info, apply)),
                100)
        return node

    def published(self, now_ns: int) -> None:
        """Expect answers to the state at now_ns, just published."""
        self.gate.expect(now_ns, time.monotonic())
        self._republished = 0
        self._odom_subscribers = self._subscribers()

    def _subscribers(self) -> int:
        """Return how many subscribe to the cars' odometry."""
        return sum(odom.get_subscription_count() for odom in self.odom)

    def ready(self) -> bool:
        """
        Return whether every listed controller has answered the state published last.

        Before the first odometry (a sensor that reports late has none at
        t = 0) there is nothing to answer: time runs to it.
        """
        return self.gate.stamp_ns is None or not self.gate.missing()

    # ---- answers -----------------------------------------------------------

    def _on_answer(self, msg, info, apply) -> None:
        """Apply a command, unless it answers an earlier or no state."""
        gid = bytes(info['publisher_gid']['data'])
        if not self.gate.knows(gid):
            self._refresh_graph()
        if not self.gate.knows(gid):
            # Discovery has matched the publisher but not yet told whose it is:
            # apply it now (as any command) and count it once the graph knows.
            self._unidentified[gid] = (msg, apply)
        self._take_answer(gid, msg, apply)

    def _take_answer(self, gid: bytes, msg, apply) -> None:
        stamp_ns = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        verdict, name = self.gate.answer(gid, stamp_ns)
        if verdict == WRONG:
            wrong = self.reports.count('wrong_stamp')
            self.reports.warn(
                'wrong_stamp', f'synchronous mode: {name} answered with stamp '
                f'{stamp_ns / 1e9:.3f} s, not the state time {self.node.stamp_s():.3f} s; '
                f'command ignored ({wrong} so far). Stamp each command with the header '
                'stamp of the odometry it answers')
            return
        if verdict != STALE:
            apply(msg)
        if verdict == APPLY and self.ready():
            self.node.advance_period()

    def _identify_pending(self) -> None:
        """Count the answers that came before the graph named their publisher."""
        self._refresh_graph()
        for gid in [g for g in self._unidentified if self.gate.knows(g)]:
            msg, apply = self._unidentified.pop(gid)
            self._take_answer(gid, msg, apply)

    def _refresh_graph(self) -> None:
        """Learn which node owns each publisher on the command topics."""
        publishers = []
        for topic in self.topics:
            resolved = self.node.resolve_topic_name(topic)
            for info in self.node.get_publishers_info_by_topic(resolved):
                if info.node_name and not info.node_name.startswith('_'):  # names known
                    name = full_name(info.node_name, info.node_namespace)
                    publishers.append((name, bytes(info.endpoint_gid)))
        self.gate.update_graph(publishers)

    # ---- waiting -----------------------------------------------------------

    def tick(self) -> None:
        """Timer: advance if answered, else publish again, report and time out."""
        if self._unidentified:
            self._identify_pending()
        if self.ready():
            self.node.advance_period()
            return
        odom_subscribers = self._subscribers()
        waited = time.monotonic() - self.gate.since_s
        every = REPUBLISH_START_S if self.gate.starting() else REPUBLISH_S
        if waited >= every * (1 + self._republished) or \
                odom_subscribers > self._odom_subscribers:
            self._refresh_graph()
            republished = self._republished + 1
            self.node.republish()
            self._republished = republished
            self._odom_subscribers = odom_subscribers
        timeout = self.settings['sync_timeout_s']
        if not self.gate.starting():
            if waited >= timeout:
                self._time_out()
        elif waited >= timeout * (1 + self._waiting_reports):   # no give-up
            self._waiting_reports += 1
            self.reports.logger.warning(
                f'synchronous mode: simulated time starts once every listed controller has '
                f"answered; waiting {waited:.0f} s so far for {', '.join(self.gate.unstarted())}")

    def _time_out(self) -> None:
        """Report the controllers that did not answer in time and go on without them."""
        absent = set(self.gate.absent())
        names = self.gate.give_up()
        self.reports.count('sync_timeouts')
        reasons = [f'{n} (no publisher on {" or ".join(COMMAND_TOPICS)})' if n in absent
                   else n for n in names]
        self.reports.logger.error(
            f'synchronous mode: no answer to the state at {self.node.stamp_s():.3f} s within '
            f"{self.settings['sync_timeout_s']:g} s from {', '.join(reasons)}; going on with "
            'the commands held, without waiting for it until it answers again')
        self.node.advance_period()
