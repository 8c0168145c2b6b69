"""
The Ray engine: each run a Ray task of one CPU, on this machine or a cluster.

`--ray auto` joins the Ray instance running on this machine, or starts one
(all its cores, no dashboard); `--ray ADDRESS` (host:port of a head) joins a
cluster, whose every node has the project installed and its Ray started in
the project's environment (`./rally exec ray start ...`, see the user
guide). A task takes a ROS domain on its node (domains.py: the node's runs
never share one), tags its processes, runs the scenario as a worker does
(worker.execute_task) and lets the domain go. At most as many tasks as the
cluster has CPUs are in flight, so a task's timeout counts from about its
start. A run that times out (its task is cancelled, its worker killed) or
whose task dies is tried once more, as on the local pool; a new attempt
first kills what an earlier one left on its node.
"""

import os
import socket
import time
from typing import Any, Callable, Dict, List, Optional

from .domains import lease
from .pool import ATTEMPTS, TAG, Task
from .worker import execute_task
from ..runtime.entry import StopRequest
from ..runtime.processes import kill_tagged, quick_discovery, remove_dead_shm

CONNECT_TIMEOUT_S = 5.0
LOCAL_OBJECT_STORE_BYTES = 100 * 1024 * 1024
"""A local instance's object store: results are small."""


class RayError(RuntimeError):
    """Ray cannot be reached or started; the message says which address and why."""


class _NoStop:
    """A stop that never comes: Ray stops a task by killing its worker."""

    number: Optional[int] = None
    requested = False

    def hold(self) -> None:
        """Nothing to hold."""


def run_task(task: Dict[str, Any]) -> Dict[str, Any]:
    """Run one attempt of a run in a domain of this node (the body of the Ray task)."""
    kill_tagged(TAG, task['tag'])             # what an earlier attempt left here
    remove_dead_shm()
    with lease() as domain:
        os.environ.update(ROS_DOMAIN_ID=str(domain.domain),
                          ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', **{TAG: task['tag']})
        quick_discovery(os.environ)
        result = execute_task(task, _NoStop())
    result['node'] = socket.gethostname()
    return result


def connect(address: str) -> int:
    """Join or start Ray as --ray says; return the cluster's CPUs (RayError if it cannot)."""
    import ray
    if address != 'auto':
        _reachable(address)
    try:
        if address == 'auto':
            try:
                ray.init(address='auto', logging_level='ERROR')
            except ConnectionError:     # none on this machine: start one
                ray.init(include_dashboard=False, logging_level='ERROR',
                         object_store_memory=LOCAL_OBJECT_STORE_BYTES)
        else:
            ray.init(address=address, logging_level='ERROR')
    except Exception as error:      # noqa: B902  Ray raises many kinds here
        raise RayError(f'--ray {address}: {type(error).__name__}: {error}') from None
    return max(1, int(ray.cluster_resources().get('CPU', 1)))


def _reachable(address: str) -> None:
    """Raise RayError unless host:port accepts a connection (ray.init would wait minutes)."""
    host, _, port = address.rpartition(':')
    if address.startswith('ray://'):
        host, _, port = address[len('ray://'):].rpartition(':')
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except (OSError, ValueError) as error:
        raise RayError(f'--ray {address}: cannot reach a Ray head there ({error}); give '
                       'HOST:PORT of a running head, or auto') from None


def run(tasks: List[Task], timeout_s: float, finished: Callable[[Task, Dict], None],
        stop: StopRequest, cpus: int) -> bool:
    """Run every task on Ray; call finished(task, result) as each ends. False: stopped."""
    import ray
    remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
    pending = list(tasks)
    flying: Dict[Any, Task] = {}
    started: Dict[Any, float] = {}
    try:
        while (pending or flying) and not stop.requested:
            while pending and len(flying) < cpus:
                task = pending.pop(0)
                task.attempts += 1
                ref = remote.remote(_payload(task))
                flying[ref], started[ref] = task, time.monotonic()
            done, _ = ray.wait(list(flying), num_returns=1, timeout=0.5)
            for ref in done:
                task = flying.pop(ref)
                started.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as error:      # noqa: B902  the task died: a retry
                    result = _failed(task, f'the Ray task died ({type(error).__name__})')
                _settle(task, result, pending, finished)
            for ref in [r for r in flying if time.monotonic() - started[r] > timeout_s]:
                ray.cancel(ref, force=True)
                task = flying.pop(ref)
                started.pop(ref)
                kill_tagged(TAG, _tag(task))         # here, when the node is this machine
                _settle(task, _failed(task, f'timed out after {timeout_s:g} s'), pending,
                        finished)
        return not stop.requested
    finally:
        for ref, task in flying.items():
            ray.cancel(ref, force=True)
            kill_tagged(TAG, _tag(task))
        ray.shutdown()


def _payload(task: Task) -> Dict[str, Any]:
    return {'run_id': task.run_id, 'spec': task.spec, 'tag': _tag(task),
            'folder': os.path.abspath(os.path.join(task.folder, f'attempt-{task.attempts}'))}


def _tag(task: Task) -> str:
    return f'ray-{os.getpid()}-{task.run_id}'


def _failed(task: Task, reason: str) -> Dict[str, Any]:
    return {'run_id': task.run_id, 'passed': False, 'metrics': {}, 'simulated_s': 0.0,
            'wall_s': 0.0, 'error': reason,
            'folder': os.path.join(task.folder, f'attempt-{task.attempts}')}


def _settle(task: Task, result: Dict[str, Any], pending: List[Task], finished) -> None:
    """Retry a failed attempt once; otherwise the run is finished."""
    if result['error'] and task.attempts < ATTEMPTS:
        task.errors.append(result['error'])
        pending.insert(0, task)
        return
    result['attempts'] = task.attempts
    finished(task, result)
