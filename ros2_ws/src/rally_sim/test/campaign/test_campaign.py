"""
./rally campaign end to end: real runs in parallel ROS domains.

A killed worker, a timeout, Ctrl-C and --resume; every run's metrics as the
scenario's alone.
"""

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pyarrow.parquet as pq
import pytest
from support import ros_process
from support.scenarios import short_scenario
import yaml

POINTS = [0.6, 1.0]
"""friction_scale of the two runs: the short path_follow on a slippery and the real stage."""


def campaign_file(tmp_path, name='campaign', **tree):
    scenario = short_scenario(tmp_path, 'short')
    path = tmp_path / f'{name}.yaml'
    path.write_text(yaml.safe_dump({'scenario': str(scenario),
                                    'matrix': {'friction_scale': POINTS}, **tree}))
    return path


def start(path, output, *extra, tag, env=None):
    return subprocess.Popen([sys.executable, '-m', 'rally_sim.campaign', str(path),
                             '--output', str(output), *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            env=dict(ros_process.tagged_environment(tag), **(env or {})))


def finish(process, timeout_s=600):
    output, _ = process.communicate(timeout=timeout_s)
    return process.returncode, output


def table(output):
    return pq.read_table(str(output / 'results.parquet')).to_pylist()


def without_timing(rows):
    return [{k: v for k, v in row.items() if k not in ('wall_s', 'cpu_s', 'folder', 'attempts')}
            for row in rows]


def run_domains(folder):
    """Return {run_id: (worker log, ROS domain)} from the campaign's worker logs."""
    domains = {}
    for log in sorted((folder / 'workers').glob('worker-*.log')):
        for line in log.read_text().splitlines():
            if line.startswith('run ') and ' in ROS domain ' in line:
                run_id, domain = line[4:].split(' in ROS domain ')
                domains[run_id] = (log.name, int(domain))
    return domains


@pytest.fixture(scope='module')
def uninterrupted(tmp_path_factory):
    """Run the campaign whole on two workers (two domains at once): (folder, rows, output)."""
    tmp_path = tmp_path_factory.mktemp('whole')
    watch = ros_process.ShmWatch(str(tmp_path)).start()
    code, output = finish(start(campaign_file(tmp_path), tmp_path / 'out', '--workers', '2',
                                tag=str(tmp_path)))
    watch.stop()
    assert code == 0, output
    assert not ros_process.tagged_processes(str(tmp_path))
    assert not watch.leaked()
    return tmp_path, table(tmp_path / 'out'), output


def test_each_run_is_the_scenario_run_alone_bit_for_bit_in_domains_of_their_own(
        uninterrupted, tmp_path):
    folder, rows, output = uninterrupted
    assert [row['friction_scale'] for row in rows] == POINTS
    assert all(row['passed'] and row['error'] == '' and row['attempts'] == 1 for row in rows)
    assert '2 runs: 2 passed, 0 failed, 0 could not run (100 % pass)' in output
    assert (folder / 'out' / 'report.png').exists() and (folder / 'out' / 'results.csv').exists()
    domains = run_domains(folder / 'out')
    assert sorted(domains) == [row['run_id'] for row in rows]
    assert len(set(domains.values())) == 2 and 0 not in [d for _, d in domains.values()]
    # The two were given at once to two workers, in two domains, with the same topic
    # names: had one message crossed, a runner would have judged the other's states,
    # or a simulator taken the other's commands, and the metrics would not be the solo
    # runs'. (Whether their wall-clock spans overlap depends on this machine's load.)
    for row in rows:
        report = json.loads((folder / 'out' / 'runs' / row['run_id'] / 'attempt-1' /
                             'report.json').read_text())
        solo = short_scenario(tmp_path, f"solo{row['run_id']}", seed=row['seed'],
                              vehicle_overrides=report['vehicle_overrides'])
        result = subprocess.run([sys.executable, '-m', 'rally_sim.scenario', str(solo),
                                 '--output', str(tmp_path / row['run_id'])],
                                capture_output=True, text=True, timeout=300)
        alone = json.loads(next((tmp_path / row['run_id']).glob('*/report.json')).read_text())
        assert result.returncode == 0, result.stderr
        assert alone['metrics'] == report['metrics']
        assert all(row[m] == v for m, v in alone['metrics'].items())
    assert rows[0]['cross_track_max_m'] != rows[1]['cross_track_max_m']     # two real runs


def names(pid):
    """Return a process's name (comm) and command-line words; none once it is gone."""
    try:
        with open(f'/proc/{pid}/comm', 'rb') as comm, open(f'/proc/{pid}/cmdline', 'rb') as cmd:
            return [comm.read().strip()] + cmd.read().split(b'\0')
    except OSError:
        return []


def test_a_worker_killed_mid_run_costs_a_retry_and_the_table_is_complete(
        uninterrupted, tmp_path):
    tag = str(tmp_path)
    watch = ros_process.ShmWatch(tag).start()
    campaign = start(campaign_file(tmp_path), tmp_path / 'out', '--workers', '1', tag=tag)
    worker = None
    deadline = time.monotonic() + 120
    while worker is None and time.monotonic() < deadline:
        procs = {pid: names(pid) for pid in ros_process.tagged_processes(tag)}
        # mid-run: the simulator is up, forked warm (named node) or started cold
        if any(b'node' in args or b'rally_sim.ros.node' in args for args in procs.values()):
            worker = next(pid for pid, args in procs.items()
                          if b'rally_sim.campaign.worker' in args)
        time.sleep(0.05)
    assert worker is not None, 'no run started'
    os.kill(worker, signal.SIGKILL)
    code, output = finish(campaign)
    watch.stop()
    assert code == 0, output
    rows = table(tmp_path / 'out')
    assert [row['attempts'] for row in rows] == [2, 1]
    assert without_timing(rows) == without_timing(uninterrupted[1])
    assert not ros_process.tagged_processes(tag)              # the dead worker's runs killed
    assert not watch.leaked()                                 # and their segments removed


def test_ctrl_c_keeps_the_finished_runs_and_resume_completes_the_same_table(
        uninterrupted, tmp_path):
    tag = str(tmp_path)
    path = campaign_file(tmp_path)
    campaign = start(path, tmp_path / 'out', '--workers', '1', tag=tag)
    csv = tmp_path / 'out' / 'results.csv'
    deadline = time.monotonic() + 120
    while (not csv.exists() or len(csv.read_text().splitlines()) < 2) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    campaign.send_signal(signal.SIGINT)
    code, output = finish(campaign)
    assert code == 130, output
    assert 'runs in' in output and '--resume continues' in output
    kept = table(tmp_path / 'out')
    assert 1 <= len(kept) <= 2
    assert not ros_process.tagged_processes(tag)
    refused, output = finish(start(path, tmp_path / 'out', tag=tag))
    assert refused == 2 and '--resume to continue' in output
    code, output = finish(start(path, tmp_path / 'out', '--resume', tag=tag))
    assert code == 0, output
    assert without_timing(table(tmp_path / 'out')) == without_timing(uninterrupted[1])


def test_a_run_past_its_timeout_is_tried_twice_then_recorded_failed(tmp_path):
    watch = ros_process.ShmWatch(str(tmp_path)).start()
    path = campaign_file(tmp_path, matrix={'friction_scale': [1.0]}, timeout_s=0.5)
    code, output = finish(start(path, tmp_path / 'out', tag=str(tmp_path)))
    watch.stop()
    assert code == 1, output
    row, = table(tmp_path / 'out')
    assert row['error'] == 'timed out after 0.5 s' and row['attempts'] == 2
    assert not row['passed']
    assert 'could not run' in output
    assert not ros_process.tagged_processes(str(tmp_path))
    assert not watch.leaked()


def test_a_bad_campaign_exits_2_naming_the_key(tmp_path):
    path = campaign_file(tmp_path, matrix={'friction_scale': [1.0], 'grip': [2]})
    code, output = finish(start(path, tmp_path / 'out', tag=str(tmp_path)))
    assert code == 2 and "unknown key 'grip'" in output and 'Traceback' not in output
    assert not (tmp_path / 'out').exists()


def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def listening(port):
    import socket
    try:
        with socket.create_connection(('127.0.0.1', port), timeout=1.0):
            return True
    except OSError:
        return False


def test_a_local_ray_head_runs_the_campaign_as_the_local_pool_does(uninterrupted, tmp_path):
    port = free_port()
    short = tempfile.mkdtemp(prefix='ray-', dir='/tmp')    # Ray's sockets: at most 107 bytes
    secret = {'RAY_AUTH_MODE': 'token', 'RAY_AUTH_TOKEN': secrets.token_hex(16)}
    head = subprocess.Popen(
        [sys.executable, '-m', 'ray.scripts.scripts', 'start', '--head', '--block',
         f'--port={port}', '--num-cpus=2', '--include-dashboard=false',
         '--disable-usage-stats', f'--temp-dir={short}'],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, process_group=0,
        env=dict(ros_process.tagged_environment(str(tmp_path)), **secret))
    try:
        deadline = time.monotonic() + 60
        while not listening(port) and head.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        code, output = finish(start(campaign_file(tmp_path), tmp_path / 'out', '--ray',
                                    f'127.0.0.1:{port}', tag=str(tmp_path), env=secret))
        assert code == 0, output
        assert 'on Ray (127.0.0.1:' in output and '2 CPUs' in output
        assert without_timing(table(tmp_path / 'out')) == without_timing(uninterrupted[1])
    finally:
        if head.poll() is None:
            os.killpg(head.pid, signal.SIGTERM)
        print(head.communicate(timeout=60)[0][-2000:])
        shutil.rmtree(short, ignore_errors=True)
    deadline = time.monotonic() + 30
    while ros_process.tagged_processes(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not ros_process.tagged_processes(str(tmp_path))


def test_an_unreachable_ray_address_exits_2_at_once(tmp_path):
    began = time.monotonic()
    code, output = finish(start(campaign_file(tmp_path), tmp_path / 'out', '--ray',
                                f'127.0.0.1:{free_port()}', tag=str(tmp_path)))
    assert code == 2 and 'cannot reach a Ray head there' in output, output
    assert time.monotonic() - began < 60


def test_the_inprocess_engine_gives_the_ros_runs_metrics_bit_for_bit(uninterrupted, tmp_path):
    code, output = finish(start(campaign_file(tmp_path), tmp_path / 'out', '--engine',
                                'inprocess', tag=str(tmp_path)))
    assert code == 0, output
    assert '2 workers in-process' in output
    assert without_timing(table(tmp_path / 'out')) == without_timing(uninterrupted[1])
    assert not (tmp_path / 'out' / 'runs' / '00000' / 'attempt-1' / 'simulator.log').exists()


def test_inprocess_refuses_a_controller_it_does_not_run(tmp_path):
    own = short_scenario(tmp_path, 'own', controller={
        'command': [sys.executable, str(tmp_path / 'my_controller.py')]})
    path = tmp_path / 'own_campaign.yaml'
    path.write_text(yaml.safe_dump({'scenario': str(own), 'matrix': {'seed': [1]}}))
    code, output = finish(start(path, tmp_path / 'out', '--engine', 'inprocess',
                                tag=str(tmp_path)))
    assert code == 2 and 'is not one of ours' in output and 'Traceback' not in output


def test_an_inprocess_worker_killed_holding_two_runs_retries_only_the_one_it_ran(tmp_path):
    # An in-process worker is given its next run before it ends the one it runs: the
    # killed worker's running run costs a retry, the one it held goes back untried.
    tag = str(tmp_path)
    scales = [round(0.8 + 0.01 * k, 2) for k in range(30)]
    path = tmp_path / 'campaign.yaml'
    path.write_text(yaml.safe_dump({'scenario': str(short_scenario(tmp_path, 'long',
                                                                   duration_s=50.0)),
                                    'matrix': {'friction_scale': scales}}))
    campaign = start(path, tmp_path / 'out', '--workers', '1', '--engine', 'inprocess', tag=tag)
    journal = tmp_path / 'out' / 'results.journal.jsonl'
    deadline = time.monotonic() + 120
    while not (journal.exists() and journal.read_text()) and time.monotonic() < deadline:
        time.sleep(0.01)
    worker, = [pid for pid in ros_process.tagged_processes(tag)
               if b'rally_sim.campaign.worker' in names(pid)]
    os.kill(worker, signal.SIGKILL)
    code, output = finish(campaign)
    rows = table(tmp_path / 'out')
    assert code in (0, 1) and [row['friction_scale'] for row in rows] == scales, output
    assert all(row['error'] == '' for row in rows)
    assert sorted(row['attempts'] for row in rows) == [1] * 29 + [2]
    for row in rows:
        assert (tmp_path / 'out' / 'runs' / row['run_id'] / f"attempt-{row['attempts']}" /
                'report.json').exists()
    assert not ros_process.tagged_processes(tag)
