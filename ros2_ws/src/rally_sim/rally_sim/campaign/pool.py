"""
The local engine: a pool of long-lived workers on this machine, one ROS domain each.

Each worker (worker.py) is a process of its own with a domain this process
holds for it (domains.py) and a tag in its environment that its simulator and
controller inherit. A run that passes its timeout, or whose worker dies (a
crash, SIGKILL), costs the worker: everything carrying its tag is killed,
Fast DDS segments nobody uses any more are removed, a fresh worker takes
the domain, and the run is tried once more, then recorded as failed with the
reason. A run that fails by itself (a process exits, the controller stops
answering) is also tried once more. On a stop (Ctrl-C) the workers end
their runs cleanly and nothing more starts.
"""

from collections import deque
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from typing import Any, Callable, Deque, Dict, List, Optional

from .domains import DomainLease, lease
from ..runtime.entry import StopRequest
from ..runtime.processes import kill_tagged, quick_discovery, remove_dead_shm, SHM_AGE_S

TAG = 'RALLY_SIM_CAMPAIGN_WORKER'
"""Environment variable marking a worker's processes (its runs' inherit it)."""
ATTEMPTS = 2
"""A run is tried at most this often."""
STOP_GRACE_S = 20.0
"""Wall seconds the workers get to end their runs cleanly on a stop."""
QUEUED = {'inprocess': 2, 'ros': 1}
"""Tasks a worker holds at once, by engine: an in-process run takes a tenth of a
second, so its worker gets the next one beforehand and never waits on this
process between runs; a ROS run takes seconds, and one at a time keeps the last
runs spread over the workers."""


class Task:
    """A run on its way: what to send a worker, and how often it was tried."""

    def __init__(self, run_id: str, spec: Dict[str, Any], folder: str, engine: str = 'ros'):
        """Wrap a run's id, scenario and folder, and the engine that runs it."""
        self.run_id, self.spec, self.folder, self.engine = run_id, spec, folder, engine
        self.attempts = 0
        self.errors: List[str] = []

    def line(self) -> bytes:
        """Return the task as the worker reads it."""
        folder = os.path.join(self.folder, f'attempt-{self.attempts}')
        return (json.dumps({'run_id': self.run_id, 'spec': self.spec, 'folder': folder,
                            'engine': self.engine}, default=str) + '\n').encode()


class Worker:
    """One worker process, its domain and tag, and the tasks it holds (the first one runs)."""

    def __init__(self, index: int, domain: DomainLease, log_folder: str, tag_base: str,
                 engine: str = 'ros'):
        """Start the worker in `domain` for `engine`'s runs, its stderr into worker-INDEX.log."""
        self.index, self.domain = index, domain
        self.tag = f'{tag_base}-{index}-{time.monotonic_ns()}'
        env = dict(os.environ, ROS_DOMAIN_ID=str(domain.domain),
                   ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', **{TAG: self.tag})
        quick_discovery(env)
        log = open(os.path.join(log_folder, f'worker-{index}.log'), 'ab')
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'rally_sim.campaign.worker', engine], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=log, env=env, process_group=0)
        log.close()
        self.tasks: Deque[Task] = deque()
        self.deadline = float('inf')
        self.buffer = b''

    @property
    def task(self) -> Optional[Task]:
        """Return the task the worker runs now, or None."""
        return self.tasks[0] if self.tasks else None

    def send(self, task: Task, timeout_s: float) -> None:
        """Give the worker a task, to run within timeout_s of when it starts."""
        task.attempts += 1
        self.tasks.append(task)
        if len(self.tasks) == 1:
            self.deadline = time.monotonic() + timeout_s
        try:
            self.process.stdin.write(task.line())
            self.process.stdin.flush()
        except BrokenPipeError:     # it died: its stdout's end tells the pool, which retries
            pass

    def finish(self, timeout_s: float) -> Task:
        """Take the task that ended off the worker; the next one it holds starts its clock."""
        task = self.tasks.popleft()
        self.deadline = time.monotonic() + timeout_s if self.tasks else float('inf')
        return task

    def take_back(self) -> List[Task]:
        """Return the tasks held behind the running one, unsent (their attempt not counted)."""
        waiting = list(self.tasks)[1:]
        for task in waiting:
            task.attempts -= 1
        return waiting

    def kill(self) -> None:
        """Kill the worker and every process of its runs."""
        kill_tagged(TAG, self.tag)      # the worker carries the tag too
        self.process.kill()
        self.process.wait()


class LocalPool:
    """Runs tasks on `workers` worker processes; reports each finished run."""

    def __init__(self, workers: int, log_folder: str, stop: StopRequest):
        """Prepare (not start) the pool; the stop flag is read between events."""
        self.workers_wanted = workers
        self.log_folder = log_folder
        self.stop = stop
        self.tag_base = f'{os.getpid()}'
        self.started = time.time()
        self.last_kill = None

    def run(self, tasks: List[Task], timeout_s: float,
            finished: Callable[[Task, Dict[str, Any]], None]) -> bool:
        """
        Run every task; call finished(task, result) as each ends (for good).

        Returns False if a stop cut the campaign short.
        """
        pending: Deque[Task] = deque(tasks)
        self.engine = tasks[0].engine if tasks else 'ros'
        selector = selectors.DefaultSelector()
        workers: List[Worker] = []
        try:
            for index in range(min(self.workers_wanted, len(tasks))):
                workers.append(self._start(index, selector))
            queued = QUEUED.get(self.engine, 1)
            while (pending or any(w.task for w in workers)) and not self.stop.requested:
                for worker in workers:
                    while len(worker.tasks) < queued and pending:
                        worker.send(pending.popleft(), timeout_s)
                self._wait(selector, workers, pending, timeout_s, finished)
            return not self.stop.requested
        finally:
            self._shut_down(selector, workers)

    def _start(self, index: int, selector, domain: DomainLease = None) -> Worker:
        worker = Worker(index, domain or lease(), self.log_folder, self.tag_base, self.engine)
        os.set_blocking(worker.process.stdout.fileno(), False)
        selector.register(worker.process.stdout, selectors.EVENT_READ, worker)
        return worker

    def _wait(self, selector, workers: List[Worker], pending: Deque[Task], timeout_s: float,
              finished) -> None:
        """Wait for a result, a dead worker or a timeout, and handle what came."""
        now = time.monotonic()
        wait = max(0.0, min([w.deadline for w in workers if w.task] + [now + 0.5]) - now)
        for key, _ in selector.select(timeout=min(wait, 0.5)):
            worker = key.data
            try:
                data = os.read(worker.process.stdout.fileno(), 1 << 16)
            except BlockingIOError:
                continue
            if data:
                worker.buffer += data
                while b'\n' in worker.buffer:
                    line, worker.buffer = worker.buffer.split(b'\n', 1)
                    self._result(worker, json.loads(line), pending, timeout_s, finished)
            elif worker.task is not None or worker.process.poll() is not None:
                self._replace(selector, workers, worker, pending, finished,
                              f'the worker process died ({_exit_reason(worker.process)})')
        for worker in list(workers):
            if worker.task is not None and time.monotonic() > worker.deadline:
                self._replace(selector, workers, worker, pending, finished,
                              f'timed out after {timeout_s:g} s')

    def _result(self, worker: Worker, result: Dict[str, Any], pending: Deque[Task],
                timeout_s: float, finished) -> None:
        task = worker.finish(timeout_s)
        if result['error'] and task.attempts < ATTEMPTS and not self.stop.requested:
            task.errors.append(result['error'])
            pending.appendleft(task)
            return
        result['attempts'] = task.attempts
        finished(task, result)

    def _replace(self, selector, workers: List[Worker], worker: Worker, pending: Deque[Task],
                 finished, reason: str) -> None:
        """Kill a worker (and its runs), clean up, start another; retry or fail its task."""
        selector.unregister(worker.process.stdout)
        worker.kill()
        self.last_kill = time.time()
        remove_dead_shm(self.started)
        worker.process.stdout.close()
        try:
            worker.process.stdin.close()
        except BrokenPipeError:     # a task line it never read
            pass
        task = worker.task
        pending.extendleft(reversed(worker.take_back()))
        workers[workers.index(worker)] = self._start(worker.index, selector, worker.domain)
        if task is None:
            return
        if task.attempts < ATTEMPTS and not self.stop.requested:
            task.errors.append(reason)
            pending.appendleft(task)
        else:
            finished(task, {'run_id': task.run_id, 'passed': False, 'metrics': {},
                            'simulated_s': 0.0, 'wall_s': 0.0, 'error': reason,
                            'attempts': task.attempts,
                            'folder': os.path.join(task.folder, f'attempt-{task.attempts}')})

    def _shut_down(self, selector, workers: List[Worker]) -> None:
        """End every worker: cleanly (SIGTERM, stdin closed), killed if it hangs."""
        for worker in workers:
            try:
                worker.process.stdin.close()
            except OSError:
                pass
            if worker.task is not None:
                worker.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for worker in workers:
            try:
                worker.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            worker.kill()
            worker.process.stdout.close()
            worker.domain.release()
        selector.close()
        if self.last_kill is not None:     # what the last killed run left, once old enough
            time.sleep(max(0.0, self.last_kill + SHM_AGE_S + 0.05 - time.time()))
            remove_dead_shm(self.started)


def _exit_reason(process: subprocess.Popen) -> str:
    """Return how a process ended, e.g. 'killed by SIGKILL' or 'exit status 1'."""
    code = process.wait()
    if code < 0:
        return f'killed by {signal.Signals(-code).name}'
    return f'exit status {code}'
