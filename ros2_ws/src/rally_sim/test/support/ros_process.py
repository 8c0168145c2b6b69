"""Start and stop ROS processes for tests, and wait on ROS events."""

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Dict, Iterable, List

from rally_sim.runtime import processes
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node


def start_python(script: str, *args: str) -> subprocess.Popen:
    """Start a Python script in its own process with this process's environment."""
    return subprocess.Popen(
        [sys.executable, script, *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ))


def start_module(module: str, *args: str) -> subprocess.Popen:
    """Start `python -m module args...` in its own process with this environment."""
    return subprocess.Popen(
        [sys.executable, '-m', module, *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ))


TAG = 'RALLY_SIM_TEST_TAG'
"""Environment variable that marks the processes a test started (children inherit it)."""


def tagged_environment(tag: str) -> Dict[str, str]:
    """Return this process's environment with `tag` set, to find the processes later."""
    return dict(os.environ, **{TAG: tag})


def tagged_processes(tag: str) -> List[int]:
    """Return the ids of live processes whose environment carries `tag` (zombies excluded)."""
    return processes.tagged_processes(TAG, tag)


def kill_tagged(tag: str) -> List[int]:
    """SIGKILL every live process carrying `tag`; return their ids."""
    return processes.kill_tagged(TAG, tag)


class ShmWatch:
    """
    The Fast DDS files that a test's own processes (by tag) map or hold, gathered as they run.

    leaked(): those of them still there that no live process uses, and that
    were not there before start(). Whatever other programs on the machine
    make or leave behind, meanwhile or before (a killed process's port file,
    which ours then open too), is not counted: the check is of what the
    test's processes made. A process that lived less than a sampling period
    is not seen (a miss, never a false alarm); ours live for seconds.
    """

    def __init__(self, tag: str, period_s: float = 0.1):
        """Watch the processes carrying `tag` every period_s, from start() to stop()."""
        self.tag, self.period_s = tag, period_s
        self.seen: set = set()
        self.before: set = set()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _sample(self) -> None:
        used = processes.shm_used_by(tagged_processes(self.tag))
        self.seen.update(path for path in used if os.path.basename(path).startswith(
            ('fastdds_', 'sem.fastdds_')))

    def _watch(self) -> None:
        while not self._done.wait(self.period_s):
            self._sample()

    def start(self) -> 'ShmWatch':
        """Start watching; return the watch."""
        self.before = {os.path.join('/dev/shm', name) for name in os.listdir('/dev/shm')}
        self._sample()
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop watching (a last look first)."""
        self._done.set()
        self._thread.join()
        self._sample()

    def leaked(self) -> set:
        """Return the files the processes used that are still there, used by nobody."""
        left = {path for path in self.seen - self.before if os.path.exists(path)}
        return left - processes.shm_in_use() if left else left


def stop(process: subprocess.Popen, timeout_s: float = 10.0) -> str:
    """
    Stop a process cleanly (SIGINT, then wait) and return its output.

    A clean stop lets Fast DDS release its shared-memory segments. Stopping
    twice returns the same output.
    """
    if getattr(process, 'output', None) is not None:
        return process.output
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    output, _ = process.communicate()
    process.output = output or ''
    return process.output


def spin_until(node: Node, done: Callable[[], bool], timeout_s: float = 15.0,
               processes: Iterable[subprocess.Popen] = ()) -> bool:
    """
    Spin `node` (in its own context) until `done()` or the timeout.

    Fails early, with the process's output, if one of `processes` exits
    while we wait.
    """
    deadline = time.monotonic() + timeout_s
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    try:
        while not done() and time.monotonic() < deadline:
            for process in processes:
                if process.poll() is not None:
                    raise RuntimeError(
                        f'process exited with {process.returncode}: {stop(process)}')
            executor.spin_once(timeout_sec=0.05)
    finally:
        executor.remove_node(node)
    return done()
