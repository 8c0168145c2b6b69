"""The scenario runner: built-in scenario passes, runs are identical, a bad controller fails."""

import json
import os
import subprocess
import sys

import pytest
from rally_sim.resources import config_file
from rosbags.rosbag2 import Reader
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def run_scenario(scenario, output, *extra):
    result = subprocess.run([sys.executable, '-m', 'rally_sim.scenario', str(scenario),
                             '--output', str(output), *extra],
                            capture_output=True, text=True, timeout=600, env=dict(os.environ))
    reports = sorted(output.glob('scenario-*/report.json'))
    report = json.loads(reports[-1].read_text()) if reports else None
    return result, report


def short_scenario(tmp_path, name, **changes):
    with open(config_file('scenarios/path_follow.yaml'), encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec.update(name=name, duration_s=8.0,
                thresholds={'cross_track_max_m': {'max': 1.0}, 'off_road_time_s': {'max': 0.0}})
    spec.update(changes)
    path = tmp_path / f'{name}.yaml'
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize('name', ['path_follow', 'drift_skid_pad'])
def test_builtin_scenarios_pass(tmp_path, name):
    result, report = run_scenario(name, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert report['passed'] and all(v['passed'] for v in report['thresholds'].values())
    assert 'PASSED' in result.stdout
    assert (tmp_path / os.path.dirname(os.path.relpath(
        sorted(tmp_path.glob('scenario-*/report.json'))[-1], tmp_path)) / 'report.png').exists()


def test_same_scenario_twice_gives_identical_metrics_and_records_a_bag(tmp_path):
    scenario = short_scenario(tmp_path, 'short')
    first, report_1 = run_scenario(scenario, tmp_path / 'one', '--record', str(tmp_path / 'bag'))
    second, report_2 = run_scenario(scenario, tmp_path / 'two')
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert report_1['metrics'] == report_2['metrics']
    assert report_1['simulated_s'] == pytest.approx(8.0, abs=0.03)
    with Reader(tmp_path / 'bag') as reader:
        counts = {c.topic: c.msgcount for c in reader.connections}
    # One command relayed per 20 ms (the last may end the run before it is
    # recorded), one answer per odometry (t = 0 may be asked more than once).
    assert counts['/ackermann_cmd'] == pytest.approx(401, abs=1)
    assert counts['/scenario/ackermann_cmd'] == pytest.approx(counts['/odom'], abs=1)
    assert counts['/odom'] >= 401


def test_bad_controller_fails_its_scenario(tmp_path):
    scenario = short_scenario(tmp_path, 'flipped', controller={
        'command': ['python', os.path.join(HERE, 'support', 'bad_controller.py')]})
    result, report = run_scenario(scenario, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert not report['passed'] and not report['thresholds']['cross_track_max_m']['passed']
    assert 'FAILED' in result.stdout


def test_bad_scenario_file_exits_2_naming_the_key(tmp_path):
    scenario = short_scenario(tmp_path, 'broken', stage='moon')
    result, _ = run_scenario(scenario, tmp_path)
    assert result.returncode == 2
    assert "key 'stage' must be one of" in result.stderr
