"""
Warm starts of a campaign run's processes: forked from a process with their imports done.

A run starts the simulator and the controller with the command lines
`./rally scenario` uses. Most of their start-up, though, is the same for
every run: Python importing rclpy, NumPy and our modules, and the simulator
loading its compiled physics (about 1.1 CPU s for the simulator and 0.6 for
the controller on a 2-core machine here). So a campaign worker keeps one
process that has done it (the server, `python -m
rally_sim.campaign.warm_start`) and has it fork each process of a run that
runs one of our node modules; the fork runs its module as `python -m`
would, with the run's arguments, environment and log. It is handed to the
worker, a child subreaper, so the runner waits on it, signals it and kills
it as one it started itself (WarmProcess). Any other command (your own
controller) starts as before. The processes are the same programs with the
same inputs, so a run's metrics are the same to the last bit (test).
"""

import atexit
import ctypes
import json
import os
import runpy
import signal
import subprocess
import sys
import time
import traceback
from typing import Dict, List, Optional

from ..runtime.entry import answered_help
from ..runtime.processes import start_logged

MODULES = {
    'rally_sim.ros.node': 'rally_sim.ros.simulator_node',
    'rally_sim.ros.path_follower': 'rally_sim.ros.controllers.path_follower_node',
    'rally_sim.ros.drift_controller': 'rally_sim.ros.controllers.drift_controller_node',
    'rally_sim.ros.mppi_controller': 'rally_sim.ros.controllers.mppi_controller_node',
}
"""The modules a run's processes run (`python -m KEY`), and what each imports (its node)."""
PR_SET_NAME = 15
PR_SET_CHILD_SUBREAPER = 36


class WarmProcess:
    """A forked process of a run, as the runner handles a subprocess.Popen."""

    def __init__(self, pid: int, args: List[str]):
        """Wrap `pid`, this process's child once its forking parent has let it go."""
        self.pid, self.args = pid, args
        self.returncode: Optional[int] = None

    def poll(self) -> Optional[int]:
        """Return the exit status if it has exited (reaping it), else None."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:   # reaped elsewhere: gone
                self.returncode = -1
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> int:
        """Wait for the exit; subprocess.TimeoutExpired after `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(0.005)
        return self.returncode

    def send_signal(self, number: int) -> None:
        """Send a signal, unless it has exited."""
        if self.poll() is None:
            os.kill(self.pid, number)

    def terminate(self) -> None:
        """Send SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """Send SIGKILL."""
        self.send_signal(signal.SIGKILL)


def warm_module(command: List[str]) -> Optional[str]:
    """Return the module `command` runs if a warm start can run it (`python -m` ours)."""
    if (len(command) >= 3 and command[0] == sys.executable and command[1] == '-m'
            and command[2] in MODULES):
        return command[2]
    return None


class WarmStarter:
    """The worker's side: the server process, and starts through it."""

    def __init__(self):
        """Become a child subreaper and start the server (it imports while the run goes on)."""
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), 'prctl(PR_SET_CHILD_SUBREAPER)')
        self.server = subprocess.Popen(
            [sys.executable, '-m', 'rally_sim.campaign.warm_start'], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, process_group=0)

    def start(self, command: List[str], log_path: str):
        """Start `command` logged into log_path: forked warm if it can be, else as before."""
        module = warm_module(command)
        if module is None or self.server.poll() is not None:
            return start_logged(command, log_path)
        request = {'argv': command[2:], 'env': dict(os.environ), 'log': log_path,
                   'cwd': os.getcwd()}
        self.server.stdin.write(json.dumps(request) + '\n')
        self.server.stdin.flush()
        reply = json.loads(self.server.stdout.readline() or '{"error": "the server exited"}')
        if 'pid' not in reply:
            raise RuntimeError(f"warm start of {' '.join(command)}: {reply['error']}")
        return WarmProcess(reply['pid'], command)

    def close(self) -> None:
        """End the server (it exits when its input closes)."""
        if self.server.poll() is None:
            self.server.stdin.close()
            self.server.wait()


def _run_forked(argv: List[str], env: Dict[str, str], log: str, cwd: str) -> None:
    """
    In the forked process: become the run's process, run its module, exit with its status.

    Its command line stays the server's; its name (ps -o comm, top) becomes
    the module's last part: node (the simulator), path_follower, ...
    """
    os.setpgid(0, 0)            # a group of its own, as start_logged's processes
    ctypes.CDLL(None).prctl(PR_SET_NAME, argv[0].rsplit('.', 1)[-1].encode()[:15], 0, 0, 0)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(log, os.O_WRONLY)         # made by the server (_fork)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(null)
    os.close(out)
    code = 1
    try:
        sys.argv = list(argv)       # run_module puts the module's file first, as python -m
        runpy.run_module(argv[0], run_name='__main__', alter_sys=True)
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if not isinstance(done.code, (int, type(None))):
            print(done.code, file=sys.stderr)
    except BaseException:       # noqa: B902  as the interpreter reports an uncaught one
        traceback.print_exc()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _fork(request: dict) -> int:
    """
    Fork the run's process twice (so that it is the worker's to reap); return its pid.

    Its log exists when the pid is answered, as when start_logged returns: a
    caller reading it at once found none (1 in 2 fresh-clone CI runs), and the
    test's driver then died and left the forked node running in the suite's
    domain, answering the next tests' calls.
    """
    os.close(os.open(request['log'], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
    read, write = os.pipe()
    sys.stdout.flush()
    middle = os.fork()
    if middle == 0:
        try:
            os.close(read)
            pid = os.fork()
            if pid == 0:
                os.close(write)
                _run_forked(request['argv'], request['env'], request['log'], request['cwd'])
            os.write(write, str(pid).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(middle, 0)
    with os.fdopen(read) as answer:
        return int(answer.read())


def serve() -> int:
    """Import every node module and load the physics, then fork a process per request."""
    import importlib
    for node_module in MODULES.values():
        module = importlib.import_module(node_module)
        if hasattr(module, 'prepare'):
            module.prepare()
    for line in sys.stdin:
        try:
            reply = {'pid': _fork(json.loads(line))}
        except (OSError, ValueError, KeyError) as error:
            reply = {'error': f'{type(error).__name__}: {error}'}
        print(json.dumps(reply), flush=True)
    return 0


if __name__ == '__main__':
    if answered_help(__doc__):
        sys.exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the worker stops it by closing its input
    sys.exit(serve())
