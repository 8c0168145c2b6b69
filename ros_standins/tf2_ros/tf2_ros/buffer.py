"""tf2_ros.Buffer: BufferCore with waits (timeouts, futures) and the node's clock."""

import threading
import time as wall
from typing import Callable, List, Optional

from geometry_msgs.msg import TransformStamped
import rclpy
from rclpy.clock import Clock, JumpThreshold
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.task import Future
from tf2_py import BufferCore

POLL_S = 0.02
"""How often a blocking wait looks again (tf2_ros polls so, not to block the executor)."""


class Buffer(BufferCore):
    """Known frames over time; lookups that wait up to a timeout for data to arrive."""

    def __init__(self, cache_time: Optional[Duration] = None, node: Optional[Node] = None):
        super().__init__(cache_time)
        self._callbacks: List[Callable[[], None]] = []
        self._lock = threading.RLock()
        self.clock = node.get_clock() if node is not None else Clock()
        threshold = JumpThreshold(min_forward=None, min_backward=Duration(seconds=-1),
                                  on_clock_change=True)
        self.jump_handle = self.clock.create_jump_callback(
            threshold, post_callback=self.time_jump_callback)

    def time_jump_callback(self, time_jump) -> None:
        """Clear the buffer when the clock jumps back (a bag looping, a simulator restarting)."""
        rclpy.logging.get_logger('tf2_buffer').warning(
            'Detected jump back in time. Clearing tf buffer.')
        self.clear()

    def set_transform(self, transform: TransformStamped, authority: str) -> bool:
        """Add a sample and wake whoever waits for one."""
        with self._lock:
            added = super().set_transform(transform, authority)
        self._new_data()
        return added

    def set_transform_static(self, transform: TransformStamped, authority: str) -> bool:
        """Set a static frame and wake whoever waits for one."""
        with self._lock:
            added = super().set_transform_static(transform, authority)
        self._new_data()
        return added

    def _new_data(self) -> None:
        with self._lock:
            for callback in list(self._callbacks):
                callback()

    def _wait(self, ready: Callable[[], bool], timeout: Duration) -> None:
        """Poll `ready` for up to `timeout` of wall time (as tf2_ros does; sim time may stand)."""
        if timeout.nanoseconds <= 0:
            return
        end = wall.monotonic() + timeout.nanoseconds * 1e-9
        while not ready() and wall.monotonic() < end:
            wall.sleep(min(POLL_S, max(0.0, end - wall.monotonic())))

    def lookup_transform(self, target_frame: str, source_frame: str, time,
                         timeout: Duration = Duration()) -> TransformStamped:
        """Return source_frame into target_frame at `time` (0: latest), waiting up to timeout."""
        self.can_transform(target_frame, source_frame, time, timeout)
        with self._lock:
            return self.lookup_transform_core(target_frame, source_frame, time)

    def lookup_transform_full(self, target_frame: str, target_time, source_frame: str,
                              source_time, fixed_frame: str,
                              timeout: Duration = Duration()) -> TransformStamped:
        """Return source at source_time into target at target_time, via fixed_frame."""
        self.can_transform_full(target_frame, target_time, source_frame, source_time,
                                fixed_frame, timeout)
        with self._lock:
            return self.lookup_transform_full_core(target_frame, target_time, source_frame,
                                                   source_time, fixed_frame)

    def can_transform(self, target_frame: str, source_frame: str, time,
                      timeout: Duration = Duration(), return_debug_tuple: bool = False):
        """Return whether the lookup can be done, waiting up to timeout ((ok, why) if asked)."""
        def core():
            with self._lock:
                return self.can_transform_core(target_frame, source_frame, time)
        self._wait(lambda: core()[0], timeout)
        result = core()
        return result if return_debug_tuple else result[0]

    def can_transform_full(self, target_frame: str, target_time, source_frame: str,
                           source_time, fixed_frame: str, timeout: Duration = Duration(),
                           return_debug_tuple: bool = False):
        """Return whether the full form's lookup can be done, waiting up to timeout."""
        def core():
            with self._lock:
                return self.can_transform_full_core(target_frame, target_time, source_frame,
                                                    source_time, fixed_frame)
        self._wait(lambda: core()[0], timeout)
        result = core()
        return result if return_debug_tuple else result[0]

    def _future(self, ready: Callable[[], bool], result: Callable[[], TransformStamped]) -> Future:
        future = Future()

        def check() -> None:
            if future.done():
                return
            try:
                if ready():
                    future.set_result(result())
            except Exception as error:     # a lookup's exception goes to the awaiting side
                future.set_exception(error)

        check()
        if not future.done():
            with self._lock:
                self._callbacks.append(check)
            future.add_done_callback(lambda _: self._forget(check))
        return future

    def _forget(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

    def wait_for_transform_async(self, target_frame: str, source_frame: str, time) -> Future:
        """Return a future that resolves to the transform once it can be looked up."""
        return self._future(
            lambda: self.can_transform_core(target_frame, source_frame, time)[0],
            lambda: self.lookup_transform_core(target_frame, source_frame, time))

    def wait_for_transform_full_async(self, target_frame: str, target_time, source_frame: str,
                                      source_time, fixed_frame: str) -> Future:
        """Return a future of the full form's transform."""
        args = (target_frame, target_time, source_frame, source_time, fixed_frame)
        return self._future(lambda: self.can_transform_full_core(*args)[0],
                            lambda: self.lookup_transform_full_core(*args))

    async def lookup_transform_async(self, target_frame: str, source_frame: str,
                                     time) -> TransformStamped:
        """Await the transform (in a coroutine callback of an executor)."""
        return await self.wait_for_transform_async(target_frame, source_frame, time)

    async def lookup_transform_full_async(self, target_frame: str, target_time,
                                          source_frame: str, source_time,
                                          fixed_frame: str) -> TransformStamped:
        """Await the full form's transform."""
        return await self.wait_for_transform_full_async(target_frame, target_time,
                                                        source_frame, source_time, fixed_frame)
