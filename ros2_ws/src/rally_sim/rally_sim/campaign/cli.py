"""
./rally campaign: many scenario runs from one file, one table of results.

    ./rally campaign FILE|NAME [--workers N] [--ray auto|ADDRESS] [--output DIR] [--resume]
                     [--engine ros|inprocess]

Expands and checks every run of the campaign (spec.py) before any starts,
runs them on a pool of workers, one per core by default, each in a ROS
domain of its own (pool.py), or as tasks on Ray (--ray: ray_engine.py),
and keeps DIR/results.csv and
DIR/results.parquet as runs finish (results.py), then DIR/report.png and
report.html, and prints a summary. Each run is the scenario's own run
(simulator and controller processes, synchronous mode), so its metrics are
what `./rally scenario` gives for the same values. --resume skips the runs
the table in DIR has already. Exit status: 0 when every run passed, 1 when
one failed or could not run, 2 on a bad campaign or an unreachable Ray, 130
or 143 when stopped
(every finished run is in the table).
"""

import argparse
import os
import sys

from .pool import LocalPool, Task
from .progress import Progress
from .report import summary, write_report
from .results import ResultTable
from .spec import CampaignError, load_campaign
from ..runtime.entry import Stopped, StopRequest


def parse(argv):
    """Return the command line's arguments."""
    parser = argparse.ArgumentParser(prog='./rally campaign', description=__doc__.split('\n\n')[0])
    parser.add_argument('campaign', help='shipped campaign name (friction_sweep) or a YAML file')
    parser.add_argument('--workers', type=int, default=os.cpu_count() or 1,
                        help='runs at once on this machine (default: one per core)')
    parser.add_argument('--ray', metavar='auto|ADDRESS',
                        help="run on Ray: auto joins this machine's instance or starts one; "
                        'HOST:PORT joins the head of a cluster')
    parser.add_argument('--engine', choices=('ros', 'inprocess'), default='ros',
                        help='ros: each run the scenario with its ROS processes (default); '
                        "inprocess: our example controller's law (path follower, drift, "
                        "MPPI) and the simulator's parts in the worker, no ROS processes")
    parser.add_argument('--output', help='folder of the table and report (default '
                        'out/campaign-NAME)')
    parser.add_argument('--resume', action='store_true',
                        help='continue the campaign in --output: skip the runs it has')
    return parser.parse_args(argv)


def main(argv=None, stop: StopRequest = None) -> int:
    """Run a campaign; see the module's docstring for the exit status."""
    stop = stop or StopRequest(tool=True)
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        campaign = load_campaign(args.campaign)
    except CampaignError as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    if args.workers < 1:
        print(f'error: --workers {args.workers}: at least 1', file=sys.stderr)
        return 2
    if args.engine == 'inprocess':
        from .inprocess import supported
        for run in campaign.runs:
            refusal = supported(run.spec)
            if refusal:
                print(f'error: --engine inprocess: run {run.run_id} {run.params}: {refusal}',
                      file=sys.stderr)
                return 2
        if args.ray:
            print('error: --engine inprocess runs on the local workers, not on Ray',
                  file=sys.stderr)
            return 2
    folder = args.output or os.path.join('out', f'campaign-{campaign.name}')
    table = ResultTable(campaign, folder)
    if table.earlier() and not args.resume:
        print(f"error: {folder} holds a campaign's results already: --resume to continue "
              'it, or --output another folder', file=sys.stderr)
        return 2
    table.resume()
    todo = [run for run in campaign.runs if not table.done(run)]
    workers = min(args.workers, max(len(todo), 1))
    engine = 'Ray' if args.ray else f"{workers} worker{'s' if workers > 1 else ''}"
    engine += ' in-process' if args.engine == 'inprocess' else ''
    print(f'campaign {campaign.name}: scenario {campaign.scenario}, {len(campaign.runs)} runs '
          f'({len(campaign.runs) - len(todo)} done before), parameters '
          f"{', '.join(campaign.parameters)}; {engine}; timeout {campaign.timeout_s:g} s per "
          f'run; results in {folder}', flush=True)
    by_id = {run.run_id: run for run in campaign.runs}
    rows = table.ordered()
    progress = Progress(len(campaign.runs), sum(r['passed'] for r in rows),
                        sum(not r['passed'] for r in rows))

    def finished(task: Task, result) -> None:
        row = table.add(by_id[task.run_id], result)
        progress.add(row['passed'], task.run_id)

    tasks = [Task(run.run_id, run.spec, os.path.join(folder, 'runs', run.run_id), args.engine)
             for run in todo]
    if args.ray:
        from . import ray_engine
        try:
            cpus = ray_engine.connect(args.ray)
        except ray_engine.RayError as error:
            print(f'error: {error}', file=sys.stderr)
            return 2
        print(f'on Ray ({args.ray}): {cpus} CPUs, a run on each', flush=True)
        stop.hold()
        complete = ray_engine.run(tasks, campaign.timeout_s, finished, stop, cpus)
    else:
        stop.hold()
        os.makedirs(os.path.join(folder, 'workers'), exist_ok=True)
        complete = LocalPool(args.workers, os.path.join(folder, 'workers'), stop).run(
            tasks, campaign.timeout_s, finished)
    progress.close()
    table.write()
    rows = table.ordered()
    thresholds = {run.run_id: run.spec['thresholds'] for run in campaign.runs}   # each run's
    if not complete:
        print(f'stopped: {len(rows)} of {len(campaign.runs)} runs in {table.csv_path}; '
              '--resume continues', flush=True)
        raise Stopped(stop.number)
    print(summary(rows, campaign.parameters, thresholds))
    paths = write_report(rows, campaign.parameters, thresholds, folder, campaign.name)
    print(f"table: {table.csv_path}, {table.parquet_path}; report: {', '.join(paths)}")
    return 0 if all(r['passed'] for r in rows) else 1
