"""
A campaign worker: scenario runs one after another, in the ROS domain it was given.

    python -m rally_sim.campaign.worker [ENGINE]

Reads one task per line on stdin (JSON: run_id, spec, folder, engine), runs
it as `./rally scenario` runs a scenario (scenarios/runner.execute: simulator
and controller processes in synchronous mode), or in this process (engine
inprocess: inprocess.py), and writes one result per line on stdout.
Long-lived, so a run costs its own processes' start-up only, not this
one's imports; and those are forked warm, their imports done
(warm_start.py). With ENGINE inprocess it loads the compiled physics
before the first task, as the warm start's server does for the ros engine.
A signal ends the run in progress cleanly and the worker.
"""

import json
import os
import resource
import sys
import time
from typing import Any, Callable, Dict

from ..runtime.entry import (
    answered_help, exit_at_once, Stopped, stopped_status, StopRequest)


def execute_task(task: Dict[str, Any], stop: StopRequest, start_process: Callable = None
                 ) -> Dict[str, Any]:
    """
    Run one task; return its result (error: why it failed, '' if it ran).

    start_process(command, log_path): how the run's processes start (default: as
    `./rally scenario` starts them).
    """
    from ..scenarios.runner import execute
    os.makedirs(task['folder'], exist_ok=True)
    start, cpu = time.monotonic(), cpu_seconds()
    result = {'run_id': task['run_id'], 'folder': task['folder'], 'passed': False,
              'metrics': {}, 'simulated_s': 0.0, 'error': ''}
    try:
        if task.get('engine') == 'inprocess':
            from .inprocess import run_scenario
            report = run_scenario(task['spec'])
            with open(os.path.join(task['folder'], 'report.json'), 'w', encoding='utf-8') as out:
                json.dump(report, out, indent=2, default=str)
        else:
            # no wheel_slip watched: no metric reads it, and a run has no plot
            report, _, _ = execute(task['spec'], task['folder'], stop, slip=False,
                                   **({'start': start_process} if start_process else {}))
        result.update(passed=report['passed'], metrics=report['metrics'],
                      simulated_s=report['simulated_s'])
    except RuntimeError as error:
        result['error'] = str(error)
    except Exception as error:      # noqa: B902  a run's own failure, not the campaign's
        result['error'] = f'{type(error).__name__}: {error}'
    result['wall_s'] = time.monotonic() - start
    result['cpu_s'] = cpu_seconds() - cpu
    return result


def cpu_seconds() -> float:
    """Return the CPU seconds of this process and its finished children so far."""
    own, children = (resource.getrusage(who) for who in (
        resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def prepare_inprocess() -> None:
    """Load the kernels in-process runs call (physics, path, compiled loop), before any run."""
    from . import compiled_loop
    from ..control import path_kernels
    from ..sim import prepare
    prepare()
    path_kernels.prepare()
    compiled_loop.prepare()


def main() -> int:
    """Serve tasks until stdin closes or a signal comes."""
    if answered_help(__doc__):
        return 0
    stop = StopRequest(tool=True)
    if sys.argv[1:] == ['inprocess']:
        prepare_inprocess()
    else:
        from ..scenarios import runner  # noqa: F401  the heavy imports, once
    starter = None          # at the first run of the ros engine
    try:
        for line in sys.stdin:
            if stop.requested:
                break
            task = json.loads(line)
            print(f"run {task['run_id']} in ROS domain {os.environ.get('ROS_DOMAIN_ID', '0')}",
                  file=sys.stderr, flush=True)
            if starter is None and task.get('engine') != 'inprocess':
                from .warm_start import WarmStarter
                starter = WarmStarter()
            print(json.dumps(execute_task(task, stop, starter and starter.start)), flush=True)
    except Stopped as stopped:
        return stopped_status(stopped.number)
    finally:
        if starter is not None:
            starter.close()
    return stopped_status(stop.number) if stop.requested else 0


if __name__ == '__main__':
    exit_at_once(main())       # every result is out: no 0.3 s teardown, which the pool waits for
