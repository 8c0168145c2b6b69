"""The scenario runner: built-in scenario passes, runs are identical, a bad controller fails."""

import json
import os
import subprocess
import sys

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
import pytest
from support import ros_process
from support.bags import decode_everything
from support.scenarios import short_scenario

HERE = os.path.dirname(os.path.abspath(__file__))
BUILT_IN = sorted(name[:-len('.yaml')] for name in os.listdir(
    os.path.join(HERE, '..', 'config', 'scenarios')) if name.endswith('.yaml'))


def run_scenario(scenario, output, *extra, tag=''):
    result = subprocess.run([sys.executable, '-m', 'rally_sim.scenario', str(scenario),
                             '--output', str(output), *extra],
                            capture_output=True, text=True, timeout=600,
                            env=ros_process.tagged_environment(tag))
    reports = sorted(output.glob('scenario-*/report.json'))
    report = json.loads(reports[-1].read_text()) if reports else None
    return result, report


@pytest.mark.parametrize('name', BUILT_IN)
def test_builtin_scenarios_pass_and_record_bags_every_reader_takes(tmp_path, name):
    result, report = run_scenario(name, tmp_path, '--record', str(tmp_path / 'bag'))
    assert result.returncode == 0, result.stdout + result.stderr
    assert report['passed'] and all(v['passed'] for v in report['thresholds'].values())
    assert 'PASSED' in result.stdout
    assert (tmp_path / os.path.dirname(os.path.relpath(
        sorted(tmp_path.glob('scenario-*/report.json'))[-1], tmp_path)) / 'report.png').exists()
    decoded = decode_everything(tmp_path / 'bag')
    assert {'/odom', '/tf', '/wheel_slip', '/joint_states', '/clock'} <= set(decoded)


def test_same_scenario_twice_gives_identical_metrics_and_records_a_bag(tmp_path):
    scenario = short_scenario(tmp_path, 'short')
    first, report_1 = run_scenario(scenario, tmp_path / 'one', '--record', str(tmp_path / 'bag'))
    second, report_2 = run_scenario(scenario, tmp_path / 'two')
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert report_1['metrics'] == report_2['metrics']
    assert report_1['simulated_s'] == pytest.approx(8.0, abs=0.03)
    stamps = {'/odom': [], '/ackermann_cmd': []}
    with open(next((tmp_path / 'bag').glob('*.mcap')), 'rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _, channel, _, msg in reader.iter_decoded_messages(topics=list(stamps)):
            stamps[channel.topic].append(msg.header.stamp.sec + msg.header.stamp.nanosec / 1e9)
    # The bag holds every state up to the run's end (nothing lost at the tail:
    # the simulator may run a little past it before it is stopped), and from the
    # first answer the recorder got on (it discovers the controller's publisher
    # while the run goes on) every state is answered with its own stamp.
    states = sorted(set(stamps['/odom']))
    assert states[0] == 0.0 and states[-1] >= report_1['simulated_s']
    assert states == pytest.approx([0.02 * k for k in range(len(states))], abs=1e-9)
    answered = {round(s, 6) for s in stamps['/ackermann_cmd']}
    first = min(answered)
    assert answered >= {round(s, 6) for s in states if first <= s <= report_1['simulated_s']}


@pytest.mark.parametrize('mode, reason', [
    ('wrong_stamp', 'the simulator says: /scenario_controller answered with stamp 3.000 s, '
                    'not the state time 2.000 s'),
    ('die', 'exited with 3')])
def test_misbehaving_controller_fails_with_the_reason(tmp_path, mode, reason):
    scenario = short_scenario(tmp_path, mode, controller={'command': [
        'python', os.path.join(HERE, 'support', 'misbehaving_controller.py'), mode, '2.0']})
    segments = ros_process.shm_segments()
    result, report = run_scenario(scenario, tmp_path, tag=str(tmp_path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert reason in result.stderr
    assert report is None
    assert not ros_process.tagged_processes(str(tmp_path))     # no orphan process
    assert not ros_process.leaked_shm_segments(segments)  # no shared memory left


def test_bad_scenario_file_exits_2_naming_the_key(tmp_path):
    scenario = short_scenario(tmp_path, 'broken', stage='moon')
    result, _ = run_scenario(scenario, tmp_path)
    assert result.returncode == 2
    assert "key 'stage' must be one of" in result.stderr


def test_a_name_that_does_not_exist_says_what_does_and_exits_2(tmp_path):
    result, _ = run_scenario('nosuch', tmp_path)
    assert result.returncode == 2 and 'Traceback' not in result.stderr
    assert "no scenario 'nosuch'" in result.stderr
    assert 'built-in: drift_skid_pad, mppi_rally_stage, path_follow' in result.stderr
    scenario = short_scenario(tmp_path, 'no_car', vehicle='nosuchcar')
    result, _ = run_scenario(scenario, tmp_path)
    assert result.returncode == 2 and "key 'vehicle': no vehicle 'nosuchcar'" in result.stderr
    for option, value, said in (('--vehicle', 'nosuchcar', 'presets: arcade_group2'),
                                ('--surface', 'lava', 'a stage (hill_stage')):
        demo = subprocess.run([sys.executable, '-m', 'rally_sim.demo', option, value,
                               '--output', str(tmp_path)], capture_output=True, text=True,
                              timeout=300)
        assert demo.returncode == 2 and said in demo.stderr, demo.stderr
        assert 'Traceback' not in demo.stderr
