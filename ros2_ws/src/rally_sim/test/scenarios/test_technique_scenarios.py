"""
Reference 000's techniques as scenarios: each run through the ROS simulator, judged as in-process.

`./rally scenario NAME` runs the technique driver once per run; the
signature read from what the simulator published equals the technique's
own in-process runs (control/techniques.py, test/control/test_techniques.py).
"""

import json
import subprocess
import sys

import pytest
from rally_sim.control.techniques import MARGINS, TECHNIQUES
from rally_sim.resources import config_file
from rally_sim.scenarios.spec import load_scenario, ScenarioError
from support import ros_process
from support.bags import decode_everything
import yaml


def run_scenario(scenario, output, *extra):
    result = subprocess.run([sys.executable, '-m', 'rally_sim.scenario', str(scenario),
                             '--output', str(output), *extra], capture_output=True, text=True,
                            timeout=600, env=ros_process.tagged_environment(''))
    reports = sorted(output.glob('scenario-*/report.json'))
    return result, (json.loads(reports[-1].read_text()) if reports else None)


def test_each_technique_has_its_scenario_with_its_runs_and_a_threshold_on_its_margin():
    for name, technique in TECHNIQUES.items():
        spec = load_scenario(name)
        runs = technique(spec['vehicle']).runs
        assert spec['runs'] == list(runs) and len(runs) >= 2
        assert spec['controller']['params'] == {'technique': name, 'vehicle': spec['vehicle']}
        assert spec['thresholds']['emerged'] == {'min': 1}
        assert spec['thresholds'][MARGINS[name]]['min'] > 0.0


@pytest.mark.parametrize('change, said', [
    ({'runs': ['flick']}, "key 'runs' must name scandinavian_flick's runs"),
    ({'controller': {'command': ['python', '-m', 'rally_sim.ros.technique_driver'],
                     'params': {'technique': 'donut'}}}, 'needs controller.params.technique'),
    ({'metrics': 'path', 'thresholds': {}}, "key 'runs' is for 'metrics: technique' only"),
    ({'thresholds': {'overshoot': {'min': 0}}}, "threshold 'overshoot' must be one of"),
])
def test_a_bad_technique_scenario_is_refused_naming_the_key(tmp_path, change, said):
    with open(config_file('scenarios/scandinavian_flick.yaml'), encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec.update(change)
    path = tmp_path / 'bad.yaml'
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(ScenarioError, match=said):
        load_scenario(str(path))


@pytest.mark.parametrize('name', ['handbrake_hairpin', 'left_foot_braking'])
def test_a_technique_scenario_through_ros_equals_its_in_process_runs(tmp_path, name):
    # The handbrake and gear (driver_cmd), the brake with the throttle and the front axle's
    # loads (wheel_slip); the start pose on the stage's path, rotated into the start's frame.
    result, report = run_scenario(name, tmp_path, '--record', str(tmp_path / 'bag'))
    assert result.returncode == 0, result.stdout + result.stderr
    assert report['passed'] and 'PASSED' in result.stdout
    expected = TECHNIQUES[name]().run()
    print(report['metrics'], expected.signature)
    assert report['metrics']['emerged'] == 1.0
    for key, value in expected.signature.items():
        assert report['metrics'][key] == pytest.approx(value, rel=1e-6, abs=1e-9), key
    assert list(tmp_path.glob('scenario-*/report.png'))
    for run in report['runs']:      # a bag of each run, every reader takes it
        decoded = decode_everything(tmp_path / 'bag' / run)
        assert {'/odom', '/wheel_slip', '/ground_truth/odom', '/driver_cmd'} <= set(decoded)


def test_on_the_arcade_car_the_driver_sends_the_pedals_as_wheel_torques(tmp_path):
    # Reference 000's own model has no drivetrain: torque mode, wheel_torque_cmd. The runner
    # steps its physics at 1 kHz, the car's file at 500 Hz: equal to within 1 %.
    with open(config_file('scenarios/handbrake_hairpin.yaml'), encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec.update(vehicle='arcade_group2', command_mode='torque')
    (tmp_path / 'arcade.yaml').write_text(yaml.safe_dump(spec))
    result, report = run_scenario(tmp_path / 'arcade.yaml', tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = TECHNIQUES['handbrake_hairpin']('arcade_group2').run()
    print(report['metrics'], expected.signature)
    for key, value in expected.signature.items():
        assert report['metrics'][key] == pytest.approx(value, rel=0.01), key


def test_the_technique_driver_refuses_a_run_its_technique_has_not():
    process = subprocess.run(
        [sys.executable, '-m', 'rally_sim.ros.technique_driver', '--ros-args', '-p',
         'technique:=handbrake_hairpin', '-p', 'run:=flick'], capture_output=True, text=True,
        timeout=120, env=ros_process.tagged_environment(''))
    assert process.returncode == 2
    assert "parameter 'run' = 'flick' must be one of ['handbrake', 'control']" in process.stderr
