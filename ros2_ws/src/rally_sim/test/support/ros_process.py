"""Start and stop ROS processes for tests, and wait on ROS events."""

import glob
import os
import signal
import subprocess
import sys
import time
from typing import Callable, Dict, Iterable, List, Set

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
    found = []
    marker = f'{TAG}={tag}'.encode()
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/environ', 'rb') as environ:
                tagged = marker in environ.read().split(b'\0')
            with open(f'/proc/{entry}/stat', encoding='ascii', errors='replace') as stat:
                zombie = stat.read().rsplit(')', 1)[1].split()[0] == 'Z'
        except OSError:     # gone meanwhile, or not ours to read
            continue
        if tagged and not zombie:
            found.append(int(entry))
    return found


SHM_PATTERN = '/dev/shm/fastdds_*'


def shm_segments() -> Set[str]:
    """Return the Fast DDS shared-memory files present now."""
    return set(glob.glob(SHM_PATTERN))


def _shm_in_use() -> Set[str]:
    """Return the /dev/shm files some live process maps or holds open."""
    used = set()
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/maps', encoding='utf-8', errors='replace') as maps:
                used.update(line.split()[-1] for line in maps if '/dev/shm/' in line)
            for fd in os.listdir(f'/proc/{entry}/fd'):
                used.add(os.readlink(f'/proc/{entry}/fd/{fd}'))
        except OSError:     # gone meanwhile
            continue
    return used


def leaked_shm_segments(before: Set[str]) -> Set[str]:
    """
    Return the Fast DDS files made since `before` that no live process uses.

    A segment left behind by a process that exited is used by nobody; one
    that another DDS program on the machine (a concurrent test run, a user's
    simulator) still maps is not a leak of ours.
    """
    new = shm_segments() - before
    return new - _shm_in_use() if new else new


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
