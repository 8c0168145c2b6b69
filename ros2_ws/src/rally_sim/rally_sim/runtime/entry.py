"""
Process entry points that stop cleanly on Ctrl-C (SIGINT) or SIGTERM at any moment.

Deliberately light (standard library only): the stop handler is installed
before the heavy imports (rclpy, numpy, numba), so a signal during start-up
ends the process quietly instead of with a KeyboardInterrupt traceback.
Only the interpreter's own start-up, before its first line of ours, is not
covered. Two phases:

- until `StopRequest.hold()` nothing needs cleaning up (no ROS context, no
  child process): the handler ends the process on the spot. Not by raising
  an exception, which could land in a callback from C (numba's compiler)
  that prints and swallows it;
- after it, a signal only sets a flag that the spin loop reads between
  callbacks, never inside one, so the process cleans up (flushes,
  destroys its nodes, shuts ROS down) and exits.
"""

import atexit
import importlib
import os
import signal
import sys
from typing import Optional

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(BaseException):
    """Raised by a tool that noticed the stop flag, to end its run where it is."""

    def __init__(self, number: int):
        """Remember which signal stopped the process."""
        super().__init__(signal.Signals(number).name)
        self.number = number


class StopRequest:
    """SIGINT and SIGTERM: the end of the process at first, a flag once `hold()` is called."""

    def __init__(self, tool: bool = False):
        """
        Install the handler for SIGINT and SIGTERM (call first thing in a process).

        Before hold(), a node's process exits 0 quietly; a tool's (`tool`)
        says it was stopped and exits 128 + the signal's number, as a
        shell does: an interrupted run has no verdict.
        """
        self.number: Optional[int] = None
        self._held = False
        self._tool = tool
        for number in SIGNALS:
            signal.signal(number, self._on_signal)

    @property
    def requested(self) -> bool:
        """Return whether a stop was asked for."""
        return self.number is not None

    def hold(self) -> None:
        """From now on a signal only sets the flag: the caller checks it and cleans up."""
        self._held = True

    def _on_signal(self, number: int, frame) -> None:
        if self.number is None:
            self.number = number
        if not self._held:
            if self._tool:
                print(stopped_message(number), flush=True)
            sys.stdout.flush()
            os._exit(stopped_status(number) if self._tool else 0)


def stopped_message(number: int) -> str:
    """Return what a tool says when a signal stopped it."""
    return f'stopped by {signal.Signals(number).name}: no result'


def stopped_status(number: int) -> int:
    """Return a tool's exit status when a signal stopped it (a shell's 128 + number)."""
    return 128 + number


def ignore_signals() -> None:
    """
    Ignore SIGINT and SIGTERM from now on: the process has cleaned up and is exiting.

    Python restores the default handlers while the interpreter shuts down
    (not an ignored signal's), so a second Ctrl-C then (ros2 launch sends
    one more after the terminal's; late on a loaded machine) would kill the
    process with -2 instead of its exit status.
    """
    for number in SIGNALS:
        signal.signal(number, signal.SIG_IGN)


def run_tool(module: str, argv=None) -> int:
    """
    Run a command-line tool's `main(argv, stop)` with the stop handler installed first.

    The tool calls `stop.hold()` once it has something to clean up (from
    then on it checks the flag, and may raise Stopped once it has); a signal
    exits with 128 + its number and a one-line message.
    """
    stop = StopRequest(tool=True)
    try:
        return importlib.import_module(module).main(argv, stop)
    except Stopped as stopped:
        print(stopped_message(stopped.number), flush=True)
        return stopped_status(stopped.number)
    finally:
        ignore_signals()


def exit_at_once(status: int) -> None:
    """
    End this process with `status`, skipping the interpreter's teardown.

    For a command whose work is done and whose files are closed: with numba
    and matplotlib loaded the teardown takes 0.3 s and does nothing needed.
    The atexit handlers still run (Ray's shutdown, logging's flush), and the
    standard streams are flushed.
    """
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # closed or gone: nothing more can be said
            pass
    os._exit(status)


def answered_help(doc: str, argv=None) -> bool:
    """
    Print `doc` and return True when the command line asks for help (-h, --help).

    For the entry points without argparse: they answer --help, and start
    nothing and write nothing, as every entry point does.
    """
    argv = sys.argv[1:] if argv is None else argv
    if '-h' in argv or '--help' in argv:
        print(doc.strip())
        return True
    return False
