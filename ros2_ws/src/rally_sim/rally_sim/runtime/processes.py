"""Start the simulator and controllers as processes, stop them, and find what they left."""

import fcntl
import glob
import os
import signal
import subprocess
import time
from typing import Callable, Dict, Iterable, List, Set


def start_logged(command: List[str], log_path: str) -> subprocess.Popen:
    """
    Start `command` with its output (stdout and stderr) into a log file.

    In a process group of its own: a terminal's Ctrl-C reaches the tool that
    started it, which stops it with stop_all(), never the process itself,
    which could still be in its interpreter's start-up, where Python answers
    SIGINT with a KeyboardInterrupt traceback. The same session (not a new
    one): a session is a scheduling group of its own, which would take the
    tool's CPU share from it.
    """
    with open(log_path, 'w', encoding='utf-8') as log:
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, process_group=0)


PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """
    Have this process (a child, before its exec: Popen's preexec_fn) end with its parent.

    Linux sends it SIGTERM when the thread that started it exits, however
    that ends (a benchmark killed mid-run, even by SIGKILL): no simulator is
    left running. Call Popen from the main thread.
    """
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


PROFILES = 'FASTDDS_DEFAULT_PROFILES_FILE'
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DISCOVERY_PROFILE = os.path.join(PACKAGE, 'ros', 'discovery.xml')


def quick_discovery(env) -> None:
    """Give `env` (os.environ or a child's) our Fast DDS discovery profile, unless it has one."""
    env.setdefault(PROFILES, DISCOVERY_PROFILE)


def stop_all(processes: Iterable[subprocess.Popen], timeout_s: float = 10.0,
             while_waiting: Callable[[], None] = None) -> None:
    """
    Stop processes with SIGTERM, killing any that hang.

    A node (ours, or any rclpy node) takes SIGTERM as Ctrl-C: it shuts DDS
    down cleanly and exits. One still starting, before it handles signals,
    ends silently (SIGINT would print a KeyboardInterrupt traceback there).
    while_waiting: called again and again until they exit (a caller's
    executor, so that its subscriptions take what the stopping nodes flush).
    """
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    for process in processes:
        while while_waiting is not None and process.poll() is None \
                and time.monotonic() < deadline:
            while_waiting()
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def tag_values(variable: str, prefix: str = '') -> Dict[int, str]:
    """Return {pid: value} of the live processes whose `variable` starts with `prefix`."""
    found = {}
    marker = f'{variable}={prefix}'.encode()
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/environ', 'rb') as environ:
                tags = [v for v in environ.read().split(b'\0') if v.startswith(marker)]
            with open(f'/proc/{entry}/stat', encoding='ascii', errors='replace') as stat:
                zombie = stat.read().rsplit(')', 1)[1].split()[0] == 'Z'
        except OSError:     # gone meanwhile, or not ours to read
            continue
        if tags and not zombie:
            found[int(entry)] = tags[0].decode(errors='replace').split('=', 1)[1]
    return found


def tagged_processes(variable: str, value: str) -> List[int]:
    """Return the ids of live processes whose environment sets `variable` to `value`."""
    return [pid for pid, tag in tag_values(variable, value).items() if tag == value]


def kill_tagged(variable: str, value: str, timeout_s: float = 5.0) -> List[int]:
    """SIGKILL every live process tagged so (children inherit the tag); return their ids."""
    pids = [pid for pid in tagged_processes(variable, value) if pid != os.getpid()]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:     # gone meanwhile
            pass
    deadline = time.monotonic() + timeout_s
    while tagged_processes(variable, value) and time.monotonic() < deadline:
        time.sleep(0.01)
    return pids


def shm_in_use() -> Set[str]:
    """Return the /dev/shm files some live process maps or holds open."""
    return shm_used_by(int(entry) for entry in os.listdir('/proc') if entry.isdigit())


def shm_used_by(pids: Iterable[int]) -> Set[str]:
    """Return the /dev/shm files the processes `pids` map or hold open now."""
    used = set()
    for entry in pids:
        try:
            with open(f'/proc/{entry}/maps', encoding='utf-8', errors='replace') as maps:
                used.update(line.split()[-1] for line in maps if '/dev/shm/' in line)
            for fd in os.listdir(f'/proc/{entry}/fd'):
                used.add(os.readlink(f'/proc/{entry}/fd/{fd}'))
        except OSError:     # gone meanwhile
            continue
    return used


SHM_AGE_S = 1.0
"""A segment younger than this is left alone: its process may be about to lock it."""


def remove_dead_shm(since: float = 0.0) -> List[str]:
    """
    Remove the Fast DDS segments made after `since` (epoch s) whose every user died.

    Fast DDS holds a lock (flock) on a segment's `_el` file while a process
    uses it; a free lock is a segment that a killed process could not
    remove (`fastdds shm clean` tells them so). Returns the files removed.
    """
    removed = []
    now = time.time()
    for lock_path in glob.glob('/dev/shm/fastdds_*_el'):
        segment = lock_path[:-len('_el')]
        try:
            made = os.stat(lock_path).st_mtime
            if not since <= made <= now - SHM_AGE_S:
                continue
            fd = os.open(lock_path, os.O_RDWR)
        except OSError:     # gone meanwhile
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:     # held: in use
            os.close(fd)
            continue
        name = os.path.basename(segment)
        mutex = f'/dev/shm/sem.{name}_mutex' if name.startswith('fastdds_port') else None
        for path in (segment, mutex, lock_path):
            if path is not None and os.path.exists(path):
                os.remove(path)
                removed.append(path)
        os.close(fd)
    return removed
