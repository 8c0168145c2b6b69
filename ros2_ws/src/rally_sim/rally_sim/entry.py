"""
Process entry points that stop cleanly on Ctrl-C (SIGINT) or SIGTERM at any moment.

Deliberately light (standard library only): the stop handler is installed
before the heavy imports (rclpy, numpy, numba), so a signal during start-up
ends the process quietly instead of with a KeyboardInterrupt traceback.
Only the interpreter's own start-up, before its first line of ours, is not
covered. Two phases:

- until `StopRequest.hold()` nothing needs cleaning up: the first signal
  raises `Stopped` where the process is, and it exits at once;
- after it, a signal only sets a flag that the spin loop reads between
  callbacks, never inside one, so the process cleans up (flushes,
  destroys its nodes, shuts ROS down) and exits.
"""

import importlib
import signal
from typing import Optional

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(BaseException):
    """Raised by the first SIGINT or SIGTERM while a process has nothing to clean up."""

    def __init__(self, number: int):
        """Remember which signal stopped the process."""
        super().__init__(signal.Signals(number).name)
        self.number = number

    @property
    def exit_status(self) -> int:
        """Return the shell's status of a process stopped by this signal (128 + number)."""
        return 128 + self.number


class StopRequest:
    """SIGINT and SIGTERM as `Stopped` at first, as a flag once `hold()` is called."""

    def __init__(self):
        """Install the handler for SIGINT and SIGTERM (call first thing in a process)."""
        self.number: Optional[int] = None
        self._raise = True
        for number in SIGNALS:
            signal.signal(number, self._on_signal)

    @property
    def requested(self) -> bool:
        """Return whether a stop was asked for."""
        return self.number is not None

    def hold(self) -> None:
        """From now on a signal only sets the flag: the caller checks it and cleans up."""
        self._raise = False
        if self.requested:
            raise Stopped(self.number)

    def _on_signal(self, number: int, frame) -> None:
        first = self.number is None
        self.number = number if first else self.number
        if self._raise and first:
            self._raise = False     # a second signal during the clean-up changes nothing
            raise Stopped(number)


def run_node_process(module: str, class_name: str, name: str, args=None) -> int:
    """
    Run a node's process: stop handler first, then the imports, then the node.

    The node module's `prepare()`, if it has one, runs before ROS starts
    (the simulator loads its compiled physics there, so a signal during the
    slow part of start-up needs no clean-up). Exits 0 on a signal at any
    moment, 2 on a bad parameter.
    """
    stop = StopRequest()
    try:
        node_module = importlib.import_module(module)
        prepare = getattr(node_module, 'prepare', None)
        if prepare is not None:
            prepare()
        from .ros.spinning import run_node
        stop.hold()
    except Stopped:
        return 0
    return run_node(getattr(node_module, class_name), name, args, stop)


def run_tool(module: str, argv=None) -> int:
    """
    Run a command-line tool's `main(argv, stop)` with the stop handler installed first.

    The tool calls `stop.hold()` once it has something to clean up; a
    signal before that exits with 128 + its number and a one-line message.
    """
    stop = StopRequest()
    try:
        return importlib.import_module(module).main(argv, stop)
    except Stopped as stopped:
        print(f'stopped by {stopped}', flush=True)
        return stopped.exit_status
