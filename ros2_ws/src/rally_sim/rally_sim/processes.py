"""Start the simulator and controllers as processes, and stop them cleanly."""

import signal
import subprocess
from typing import Iterable, List


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


def stop_all(processes: Iterable[subprocess.Popen], timeout_s: float = 10.0) -> None:
    """
    Stop processes with SIGTERM, killing any that hang.

    A node (ours, or any rclpy node) takes SIGTERM as Ctrl-C: it shuts DDS
    down cleanly and exits. One still starting, before it handles signals,
    ends silently (SIGINT would print a KeyboardInterrupt traceback there).
    """
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
