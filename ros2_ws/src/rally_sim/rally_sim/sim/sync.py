"""
Synchronous mode's bookkeeping: which listed controllers answered which state.

In synchronous mode the simulator publishes its state at time t, then waits
until every listed controller has answered with commands stamped t, on every
command topic the controller publishes, before it advances. A controller is
known by its node name; its answers by their publishers' GIDs, which the ROS
graph maps to node names. ROS-free: the node feeds in the graph and the
answers, and asks what to do.
"""

from collections import deque
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Set, Tuple

APPLY, STALE, WRONG, UNLISTED = 'apply', 'stale', 'wrong', 'unlisted'
"""What to do with a command: apply it (an answer, or not from a listed controller),
drop it silently (an answer to an earlier state), or drop and report it (wrong stamp)."""
RECENT_STATES = 1000
"""Answers to this many earlier states count as late, not wrong."""


def full_name(name: str, namespace: str) -> str:
    """Return a node name resolved against `namespace` ('/a/b' stays, 'b' becomes '/ns/b')."""
    if name.startswith('/'):
        return name
    namespace = namespace.rstrip('/')
    return f'{namespace}/{name}'


@dataclass
class Controller:
    """One listed controller: its command publishers and what it answered."""

    name: str
    publishers: Set[bytes] = field(default_factory=set)   # GIDs on the command topics
    answered: Set[bytes] = field(default_factory=set)     # GIDs that answered the stamp
    lagging: bool = False      # missed a deadline: not waited for until it answers again
    answers: int = 0


class SyncGate:
    """The controllers the simulator waits for, and their answers to the current state."""

    def __init__(self, names: Iterable[str]):
        """Wait for the named controllers (full node names)."""
        self.controllers: Dict[str, Controller] = {n: Controller(n) for n in names}
        self.owner: Dict[bytes, str] = {}
        self.stamp_ns: Optional[int] = None
        self.published: Set[int] = set()
        self._recent = deque()
        self.since_s = 0.0

    def update_graph(self, publishers: Iterable[Tuple[str, bytes]]) -> None:
        """Take the (node name, GID) of every publisher on the command topics."""
        for controller in self.controllers.values():
            controller.publishers = set()
        self.owner = {}
        for name, gid in publishers:
            self.owner[gid] = name
            if name in self.controllers:
                self.controllers[name].publishers.add(gid)

    def knows(self, gid: bytes) -> bool:
        """Return whether the graph has told which node this publisher belongs to."""
        return gid in self.owner

    def expect(self, stamp_ns: int, now_s: float) -> None:
        """Start waiting for answers to the state just published at stamp_ns (again: no-op)."""
        if stamp_ns == self.stamp_ns:
            return
        if stamp_ns not in self.published:
            self.published.add(stamp_ns)
            self._recent.append(stamp_ns)
            if len(self._recent) > RECENT_STATES:
                self.published.discard(self._recent.popleft())
        self.stamp_ns = stamp_ns
        self.since_s = now_s
        for controller in self.controllers.values():
            controller.answered = set()

    def answer(self, gid: bytes, stamp_ns: int) -> Tuple[str, Optional[str]]:
        """Classify a command from publisher `gid` stamped stamp_ns; return (verdict, name)."""
        name = self.owner.get(gid)
        controller = self.controllers.get(name)
        if controller is None:
            return UNLISTED, name
        if stamp_ns == self.stamp_ns:
            controller.answered.add(gid)
            controller.publishers.add(gid)
            if controller.lagging and self.answered(controller):
                controller.lagging = False
            controller.answers += 1
            return APPLY, name
        if stamp_ns in self.published:
            return STALE, name
        return WRONG, name

    @staticmethod
    def answered(controller: Controller) -> bool:
        """Return whether a controller answered on all its command publishers."""
        return bool(controller.publishers) and controller.publishers <= controller.answered

    def missing(self) -> List[str]:
        """Return the controllers still waited for (not answered, not lagging)."""
        return [c.name for c in self.controllers.values()
                if not c.lagging and not self.answered(c)]

    def starting(self) -> bool:
        """Return whether a listed controller has never answered yet."""
        return bool(self.unstarted())

    def unstarted(self) -> List[str]:
        """Return the listed controllers that have never answered (time waits for them)."""
        return [c.name for c in self.controllers.values() if c.answers == 0]

    def give_up(self) -> List[str]:
        """Stop waiting for the missing controllers until they answer; return their names."""
        names = self.missing()
        for name in names:
            self.controllers[name].lagging = True
        return names

    def absent(self) -> List[str]:
        """Return the listed controllers with no publisher on a command topic."""
        return [c.name for c in self.controllers.values() if not c.publishers]
