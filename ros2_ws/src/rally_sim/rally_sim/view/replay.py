"""
A bag in the view: its messages fed to the pages as they were recorded, with play, pause, seek.

ROS-free: the bag (rosbag2, MCAP or SQLite) is read with the rosbags
library, which decodes every message by the definitions stored in the bag
itself (rally_sim's own messages included), so a replay needs no ROS. The
messages go through the same feed as a live view's (feed.py). The replay
clock runs at real time from where play started; seeking back replays the
latched topics and the bag from its start up to the new time, quickly and
without pacing, so laps, skid marks and the ground are as they were.
"""

import bisect
from pathlib import Path
import threading
import time
from typing import List, Optional, Tuple

from .feed import Feed

GROUND_TRUTH = 'ground_truth/odom'
STEP_S = 1.0 / 120.0
"""How often the replay thread wakes to send what is due [wall s]."""


def read_bag(folder: str) -> Tuple[List[Tuple[int, str, object]], float]:
    """Return a bag's messages, (log time ns, topic, message) in time order, and its length."""
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import get_typestore, Stores
    messages = []
    with AnyReader([Path(folder)], default_typestore=get_typestore(Stores.ROS2_HUMBLE)) as bag:
        for connection, stamp_ns, raw in bag.messages():
            messages.append((stamp_ns, connection.topic,
                             bag.deserialize(raw, connection.msgtype)))
    messages.sort(key=lambda item: item[0])
    if not messages:
        raise ValueError(f'{folder}: the bag holds no message')
    return messages, (messages[-1][0] - messages[0][0]) * 1e-9


class Replay:
    """Plays a bag's messages into a feed."""

    def __init__(self, feed: Feed, folder: str):
        """Read the bag (ValueError if it cannot be read or is empty)."""
        self.feed = feed
        self.messages, self.duration_s = read_bag(folder)
        self.start_ns = self.messages[0][0]
        self.times = [(stamp - self.start_ns) * 1e-9 for stamp, _, _ in self.messages]
        self.position = 0           # the next message to feed
        self.t = 0.0
        self.playing = False
        self._anchor: Optional[Tuple[float, float]] = None     # (wall, bag time) at play
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def start(self, play: bool = True) -> None:
        """Feed the latched topics and the first instant, then play (or hold) in a thread."""
        self._seek(0.0)
        if play:
            self.play()
        self._thread = threading.Thread(target=self._run, name='replay', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the replay thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def play(self) -> None:
        """Play from where the replay stands (from the start again once it ended)."""
        with self._lock:
            if self.t >= self.duration_s:
                self._seek(0.0)
            self.playing = True
            self._anchor = (time.monotonic(), self.t)
        self._tell()

    def pause(self) -> None:
        """Hold the replay where it stands."""
        with self._lock:
            self.playing = False
        self._tell()

    def seek(self, t: float) -> None:
        """Jump to t seconds into the bag (ValueError past its end)."""
        if not 0.0 <= t <= self.duration_s + 1e-9:
            raise ValueError(f"replay: field 't' = {t!r}: in [0, {self.duration_s:.3f}] s")
        with self._lock:
            self._seek(t)
            if self.playing:
                self._anchor = (time.monotonic(), self.t)
        self._tell()

    def _seek(self, t: float) -> None:
        """Feed everything up to t (from the start when going back)."""
        if t < self.t or self.position == 0:
            self.position = 0
            self.feed.reset()
        self.t = t
        self._feed_until(t, paced=False)
        self.feed.refresh()

    def _feed_until(self, t: float, paced: bool) -> None:
        end = bisect.bisect_right(self.times, t)
        for k in range(self.position, end):
            _, topic, msg = self.messages[k]
            self.feed.take(topic, msg, self.times[k], quick=not paced and k < end - 1)
        self.position = end

    def _run(self) -> None:
        while not self._stop.wait(STEP_S):
            with self._lock:
                if not self.playing:
                    continue
                wall, bag = self._anchor
                t = min(bag + time.monotonic() - wall, self.duration_s)
                self.t = t
                self._feed_until(t, paced=True)
                ended = t >= self.duration_s
                if ended:
                    self.playing = False
            self.feed.server.publish('replay_position', {'t': t})
            if ended:
                self._tell()

    def _tell(self) -> None:
        """Latch what the page's replay bar shows."""
        self.feed.server.latch('replay', {'duration': self.duration_s, 'playing': self.playing,
                                          't': self.t})
