"""The scenario runner: built-in scenario passes, runs are identical, a bad controller fails."""

import json
import math
import os
import subprocess
import sys

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
import numpy as np
import pytest
from support import ros_process
from support.bags import decode_everything
from support.scenarios import short_scenario
import yaml

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # test/
BUILT_IN = sorted(name[:-len('.yaml')] for name in os.listdir(
    os.path.join(HERE, '..', 'config', 'scenarios')) if name.endswith('.yaml'))
IN_PROCESS_ONLY = ('drift_snow', 'drift_tarmac', 'drift_skid_pad_mf', 'drift_figure_eight',
                   'drift_figure_eight_suspension', 'path_follow_arcade',
                   'path_follow_kinematic', 'path_follow_hills', 'path_follow_driver',
                   'path_follow_typical', 'mppi_rally_stage', 'gap_follow_track',
                   'two_cars_track')
"""Built-in scenarios whose ROS runs and bags are drift_skid_pad's or path_follow's but for
the car's surface, tyres and target, the course (the figure eight, whose first transition
test_inprocess.py also runs as ROS, on the planar car and on springs), the car's model
(arcade, kinematic: their nodes run in test_node.py) or the stage's heights
(test_stage_topics.py publishes them); the driver-mode car's, MPPI's and
path_follow_typical's (test_inprocess.py runs them as ROS, shorter, against their
in-process runs; drift_skid_pad_typical's bag has the typical profile's topics);
and the gap followers' (test_inprocess.py runs the gap follower and two cars as ROS,
shorter, against their in-process runs, and records the two cars' bag):
test/campaign/test_inprocess.py runs them in-process, full length, and the README's block
of scenarios runs each through ROS for 2 s (test_docs.py): the suite's time."""
ROS_ELSEWHERE = ('drift_skid_pad', 'scandinavian_flick', 'left_foot_braking', 'trail_braking',
                 'handbrake_hairpin', 'power_oversteer', 'lift_off_oversteer')
"""Run through ROS elsewhere, as written: the user guide's block (test_docs.py); its bag is
drift_skid_pad_typical's but for the sensors. The techniques' (one bag a run):
test_technique_scenarios.py runs two through ROS, against their in-process runs, which
test/control/test_techniques.py runs for all six."""


PATH_FOLLOW_BEFORE_SENSORS = {
    'cross_track_rms_m': 0.17543969162458858, 'cross_track_max_m': 0.6208365663019005,
    'heading_error_rms_rad': 0.06782109106711814, 'completion_time_s': 47.9,
    'off_road_time_s': 0.0, 'mean_speed_m_s': 7.262580692086434}
"""path_follow's metrics with ideal sensors and no actuators (as at 160689d, before sensor
profiles and actuators, issue 24), since speed mode's eased reference (issue 59)."""


def run_scenario(scenario, output, *extra, tag=''):
    result = subprocess.run([sys.executable, '-m', 'rally_sim.scenario', str(scenario),
                             '--output', str(output), *extra],
                            capture_output=True, text=True, timeout=600,
                            env=ros_process.tagged_environment(tag))
    reports = sorted(output.glob('scenario-*/report.json'))
    report = json.loads(reports[-1].read_text()) if reports else None
    return result, report


@pytest.mark.parametrize('name', [n for n in BUILT_IN
                                  if n not in IN_PROCESS_ONLY + ROS_ELSEWHERE])
def test_builtin_scenarios_pass_and_record_bags_every_reader_takes(tmp_path, name):
    result, report = run_scenario(name, tmp_path, '--record', str(tmp_path / 'bag'))
    assert result.returncode == 0, result.stdout + result.stderr
    assert report['passed'] and all(v['passed'] for v in report['thresholds'].values())
    assert 'PASSED' in result.stdout
    assert (tmp_path / os.path.dirname(os.path.relpath(
        sorted(tmp_path.glob('scenario-*/report.json'))[-1], tmp_path)) / 'report.png').exists()
    decoded = decode_everything(tmp_path / 'bag')
    assert {'/odom', '/tf', '/wheel_slip', '/joint_states', '/clock',
            '/ground_truth/odom'} <= set(decoded)
    assert len(decoded['/stage/surface']) == len(decoded['/stage/path']) == 1    # latched
    metadata = yaml.safe_load((tmp_path / 'bag' / 'metadata.yaml').read_text())
    custom = metadata['rosbag2_bagfile_information']['custom_data']
    assert custom['rally_sim.seed'] == str(report['seed']) == '0'
    assert custom['rally_sim.sensors'] == report['sensors']
    if name == 'path_follow':   # ideal sensors, no actuators: the run of before, bit for bit
        assert {k: report['metrics'][k] for k in PATH_FOLLOW_BEFORE_SENSORS} == \
            PATH_FOLLOW_BEFORE_SENSORS
        assert report['metrics']['collisions'] == 0.0     # the stage's barriers since issue 36
    if name.endswith('_typical'):
        assert report['sensors'] == 'typical' and report['actuation']['steer']['delay_s'] > 0
        assert {'/gnss/fix', '/wheel_encoders', '/steering_angle'} <= set(decoded)
        assert 'sensors typical, seed 0; actuation actuation.steer.delay_s' in result.stdout


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


@pytest.mark.parametrize('mode, reasons', [
    ('wrong_stamp', ['the simulator says: /scenario_controller answered with stamp 3.000 s, '
                     'not the state time 2.000 s']),
    ('die', ['exited with 3; its last lines:\n',               # the log's, not only its path
             '\n    error: the controller gives up here\n'])])
def test_misbehaving_controller_fails_with_the_reason(tmp_path, mode, reasons):
    scenario = short_scenario(tmp_path, mode, controller={'command': [
        'python', os.path.join(HERE, 'support', 'misbehaving_controller.py'), mode, '2.0']})
    watch = ros_process.ShmWatch(str(tmp_path)).start()
    result, report = run_scenario(scenario, tmp_path, tag=str(tmp_path))
    watch.stop()
    assert result.returncode == 1, result.stdout + result.stderr
    assert all(reason in result.stderr for reason in reasons), result.stderr
    assert report is None
    assert not ros_process.tagged_processes(str(tmp_path))     # no orphan process
    assert not watch.leaked()                                  # no shared memory left


def test_a_car_driven_backwards_has_spun_and_its_run_ends_there_failed(tmp_path):
    scenario = short_scenario(tmp_path, 'reverse', controller={'command': [
        'python', os.path.join(HERE, 'support', 'misbehaving_controller.py'), 'reverse', '2.0']})
    result, report = run_scenario(scenario, tmp_path, tag=str(tmp_path))
    assert result.returncode == 1, result.stdout + result.stderr
    spin = report['spin']
    assert 2.0 < spin['time_s'] < 8.0 and abs(spin['sideslip_deg']) > 90.0
    assert spin['speed_m_s'] > 1.0
    assert report['simulated_s'] == spin['time_s'] and report['passed'] is False
    assert all(v['passed'] for v in report['thresholds'].values())     # only the spin fails
    assert f"SPUN at {spin['time_s']:.2f} s" in result.stdout
    assert 'FAILED (spun)' in result.stdout


def test_bad_scenario_file_exits_2_naming_the_key(tmp_path):
    scenario = short_scenario(tmp_path, 'broken', stage='moon')
    result, _ = run_scenario(scenario, tmp_path)
    assert result.returncode == 2
    assert "key 'stage' must be one of" in result.stderr


def test_duration_cuts_a_run_short_without_a_verdict(tmp_path):
    for value in ('0', '-1', 'nan', 'inf'):
        result, _ = run_scenario('path_follow', tmp_path / 'bad', '--duration', value)
        assert result.returncode == 2 and 'Traceback' not in result.stderr, value
        assert '--duration' in result.stderr and 'positive number of seconds' in result.stderr
    # the first second of a lap: its completion time cannot pass, and is not judged
    result, report = run_scenario('path_follow', tmp_path, '--duration', '1')
    assert result.returncode == 0, result.stdout + result.stderr
    assert report['cut_from_s'] == 60.0 and report['passed'] is None
    assert report['simulated_s'] == pytest.approx(1.0, abs=0.03)
    assert report['metrics']['completion_time_s'] == math.inf
    assert 'completion_time_s               inf  [threshold: max 55]' in result.stdout
    assert 'CUT at 1 s of 60 (--duration; no verdict)' in result.stdout


def test_a_name_that_does_not_exist_says_what_does_and_exits_2(tmp_path):
    result, _ = run_scenario('nosuch', tmp_path)
    assert result.returncode == 2 and 'Traceback' not in result.stderr
    assert "no scenario 'nosuch'" in result.stderr
    assert 'built-in: ' + ', '.join(BUILT_IN) in result.stderr
    assert 'drift_skid_pad, drift_skid_pad_mf' in result.stderr and 'handbrake_hairpin' in BUILT_IN
    scenario = short_scenario(tmp_path, 'no_car', vehicle='nosuchcar')
    result, _ = run_scenario(scenario, tmp_path)
    assert result.returncode == 2 and "key 'vehicle': no vehicle 'nosuchcar'" in result.stderr
    for option, value, said in (('--vehicle', 'nosuchcar', 'presets: arcade_group2'),
                                ('--surface', 'lava', 'a stage (figure_eight, hill_stage')):
        demo = subprocess.run([sys.executable, '-m', 'rally_sim.demo', option, value,
                               '--output', str(tmp_path)], capture_output=True, text=True,
                              timeout=300)
        assert demo.returncode == 2 and said in demo.stderr, demo.stderr
        assert 'Traceback' not in demo.stderr


def noisy_odometry(bag):
    """Return (stamp, x, yaw rate) of every odometry message in a bag."""
    rows = []
    with open(next(bag.glob('*.mcap')), 'rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _, _, _, msg in reader.iter_decoded_messages(topics=['/odom']):
            rows.append((msg.header.stamp.sec, msg.header.stamp.nanosec,
                         msg.pose.pose.position.x, msg.twist.twist.angular.z))
    return sorted(set(rows))


def test_one_seed_one_noisy_run_in_synchronous_pacing(tmp_path):
    """Typical sensors, delayed steering: the same seed twice, bit for bit; another differs."""
    runs = {}
    for label, seed in (('a', 3), ('b', 3), ('c', 4)):
        scenario = short_scenario(
            tmp_path, f'noisy_{label}', sensors='typical', seed=seed, duration_s=4.0,
            actuation={'steer': {'delay_s': 0.2, 'time_constant_s': 0.1}},
            controller={'command': ['python', '-m', 'rally_sim.ros.path_follower'],
                        'params': {'target_speed_m_s': 8.0, 'delay_compensation_s': 0.3}})
        result, report = run_scenario(scenario, tmp_path / label, '--record',
                                      str(tmp_path / f'bag_{label}'))
        assert result.returncode == 0, result.stdout + result.stderr
        assert report['seed'] == seed
        end_ns = round(report['simulated_s'] * 1e9)   # the simulator may run on a little
        runs[label] = (report['metrics'], [row for row in noisy_odometry(tmp_path / f'bag_{label}')
                                           if row[0] * 1_000_000_000 + row[1] <= end_ns])
    assert runs['a'] == runs['b']
    assert len(runs['a'][1]) >= 190             # 50 Hz for the 4 s
    assert runs['c'][1] != runs['a'][1] and runs['c'][0] != runs['a'][0]


@pytest.mark.parametrize('changes, said', [
    ({'sensors': 'perfect'}, "key 'sensors': no sensor profile 'perfect'"),
    ({'seed': -1}, "key 'seed' = -1 must be an integer in [0, 2147483647] or random"),
    ({'seed': 'lucky'}, "key 'seed' = 'lucky' must be an integer"),
    ({'actuation': {'steer': {'delay_s': 3.0}}},
     "key 'actuation': key 'actuation.steer.delay_s' = 3.0 is out of range [0, 1]"),
    ({'actuation': {'clutch': {'delay_s': 0.1}}}, "unknown key 'actuation.clutch.delay_s'"),
    ({'actuation': {'steer': 0.2}}, "'actuation.steer' must be a mapping of keys")])
def test_bad_sensor_seed_or_actuation_exits_2_naming_the_key(tmp_path, changes, said):
    result, _ = run_scenario(short_scenario(tmp_path, 'bad', **changes), tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert said in result.stderr and 'Traceback' not in result.stderr


def test_seed_random_is_drawn_reported_and_printed(tmp_path):
    result, report = run_scenario(short_scenario(tmp_path, 'lucky', seed='random',
                                                 sensors='typical', duration_s=1.0),
                                  tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert isinstance(report['seed'], int)
    assert f"seed {report['seed']} (drawn: seed random)" in result.stdout


def test_exact_odometry_on_its_own_schedule_gives_the_ideal_run(tmp_path):
    """A profile whose odometry is exact at the control rate: the same run as ideal sensors."""
    profile = tmp_path / 'scheduled.yaml'
    profile.write_text('odometry: {rate_hz: 50.0}\nimu: {rate_hz: 100.0, delay_s: 0.005}\n')
    # in-process: the engine gives the ROS runs' metrics bit for bit (test_inprocess.py)
    from rally_sim.campaign.inprocess import run_scenario as run_in_process
    from rally_sim.scenarios.spec import load_scenario
    metrics = []
    for name, changes in (('ideal', {}), ('own', {'sensors': str(profile)})):
        spec = load_scenario(str(short_scenario(tmp_path, name, **changes)))
        spec['seed_in_use'] = 0
        metrics.append(run_in_process(spec)['metrics'])
    assert metrics[0] == metrics[1]


@pytest.mark.parametrize('change, said', [
    ({'equilibrium': {}}, r"thresholds \['sideslip_error_rms_deg', 'speed_error_rms_m_s'\] "
                          "need the key 'equilibrium'"),
    ({'equilibrium': {'radius_m': 15.0, 'sideslip_deg': -25.0}},
     r"key 'equilibrium': unknown key\(s\) \[\], missing key\(s\) \['surface'\]"),
    ({'equilibrium': {'radius_m': '15', 'sideslip_deg': -25.0, 'surface': 'gravel'}},
     "key 'equilibrium.radius_m' = '15' has the wrong type"),
    ({'equilibrium': {'radius_m': 15.0, 'sideslip_deg': -25.0, 'surface': 'lava'}},
     "key 'equilibrium.surface' must be one of"),
])
def test_a_bad_equilibrium_target_is_refused_naming_the_key(change, said):
    from rally_sim.scenarios.spec import check_scenario, load_scenario, ScenarioError
    spec = dict(load_scenario('drift_skid_pad'), **change)
    spec.pop('file')
    with pytest.raises(ScenarioError, match=said):
        check_scenario(spec, 'drift.yaml')


@pytest.mark.parametrize('change, said', [
    ({'opponents': [{'name': 'ego', 'controller': {'command': ['x']}}]},
     r"key 'opponents\[0\]': name 'ego' must be a ROS name"),
    ({'opponents': [{'name': 'b', 'controller': {'command': ['x']}, 'speed': 3}]},
     r"key 'opponents\[0\]': unknown key\(s\) \['speed'\]"),
    ({'opponents': [{'controller': {'command': ['x']}}]}, r"missing key\(s\) \['name'\]"),
    ({'opponents': [{'name': 'b', 'controller': {'command': 'x'}}]},
     r"'controller.command' must be a list of strings"),
    ({'opponents': [{'name': 'b', 'controller': {'command': ['x']}, 'vehicle': 'bus'}]},
     r"key 'opponents\[0\]': 'vehicle': "),
    ({'thresholds': {'passes': {'min': 1}}}, r"threshold 'passes' must be one of"),
])
def test_bad_opponents_are_refused_naming_the_key(change, said):
    from rally_sim.scenarios.spec import check_scenario, load_scenario, ScenarioError
    base = 'two_cars_track' if 'opponents' in change else 'gap_follow_track'
    spec = dict(load_scenario(base), **change)
    spec.pop('file')
    with pytest.raises(ScenarioError, match=said):
        check_scenario(spec, 'two.yaml')


def test_a_users_own_fifty_fifty_car_drifts_on_a_circle_made_to_order(tmp_path):
    # Issue 47: a 50/50 car whose grip branch folds back before its drift (families.py), at
    # a radius and on a pad we do not ship, through the command a user runs.
    from support.random_cars import random_car
    tree, _, _ = random_car(4)
    car = tmp_path / 'my_rwd.yaml'
    car.write_text(yaml.safe_dump(tree))
    with open(os.path.join(HERE, '..', 'config', 'scenarios', 'drift_skid_pad.yaml'),
              encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec.update(name='my_pad', vehicle=str(car), duration_s=35.0, settle_s=15.0,
                stage={'circle': {'radius_m': 12.0, 'surface': 'gravel'}},
                equilibrium={'radius_m': 12.0, 'sideslip_deg': -25.0, 'surface': 'gravel'})
    spec['controller']['params'] = {'vehicle': str(car), 'surface': 'gravel', 'radius_m': 12.0,
                                    'sideslip_deg': -25.0, 'entry_s': 6.0}
    spec['thresholds']['time_in_drift_s'] = {'min': 19.9}
    scenario = tmp_path / 'my_pad.yaml'
    scenario.write_text(yaml.safe_dump(spec))
    result, report = run_scenario(scenario, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'on circle_12m_gravel_12m' in result.stdout
    metrics = report['metrics']
    assert metrics['radius_error_rms_m'] < 0.05           # from the equilibrium's 12 m
    assert metrics['sideslip_mean_deg'] == pytest.approx(25.0, abs=0.1)
    (log,) = tmp_path.glob('scenario-*/controller.log')
    said = log.read_text()
    assert 'no grip driving at beta 0 deg: on this circle the front tyres saturate' in said
    assert '[WARN]' in said and 'from grip driving it may not get there, and may spin' in said


def test_a_figure_eight_made_to_order_plans_its_transition_on_first_use(tmp_path, monkeypatch):
    # Issue 59, item 6: a figure eight of the user's radius, no transition file: the runner
    # plans one (once, into the cache) and the drift controller passes drift_figure_eight's
    # thresholds on it; the second run takes the plan from the cache.
    import numba
    monkeypatch.setenv('NUMBA_CACHE_DIR', numba.config.CACHE_DIR)     # the kernels' cache
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))     # an empty plan cache
    with open(os.path.join(HERE, '..', 'config', 'scenarios', 'drift_figure_eight.yaml'),
              encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec.update(name='my_eight', stage={'figure_eight': {'radius_m': 12.0, 'surface': 'gravel'}},
                initial_speed_m_s=7.0, duration_s=45.0)
    params = spec['controller']['params']
    params.pop('transition')
    params['radius_m'] = -12.0
    scenario = tmp_path / 'my_eight.yaml'
    scenario.write_text(yaml.safe_dump(spec))
    for run in ('planned', 'cached'):
        result, report = run_scenario(scenario, tmp_path / run)
        assert result.returncode == 0, result.stdout + result.stderr
        assert 'on figure_eight_12m_gravel_12m' in result.stdout
        assert ('rally_sim: planning the figure eight' in result.stderr) == (run == 'planned')
        assert report['passed'] and report['metrics']['transitions'] >= 4, report['metrics']
    (plan,) = (tmp_path / 'cache' / 'rally_sim' / 'transitions').glob('*.yaml')
    assert plan.name.startswith('rwd_gravel_gravel_12m_-20deg_driver_gear2_')
    assert report['controller']['params']['transition'] == str(plan)


@pytest.mark.parametrize('stage, said', [
    ({'circle': {'radius_m': -12.0, 'surface': 'gravel'}},
     r"key 'stage.circle.radius_m = -12.0 must be a positive, finite number"),
    ({'circle': {'radius_m': 12.0, 'surface': 'gravel', 'width_m': float('nan')}},
     r"key 'stage.circle.width_m = nan must be a positive, finite number"),
    ({'circle': {'radius_m': 12.0, 'surface': 'lava'}},
     r"key 'stage.circle.surface = 'lava' must be one of"),
    ({'circle': {'radius_m': 12.0}}, r"key 'stage.circle': unknown key\(s\) \[\], missing "
                                     r"key\(s\) \['surface'\]"),
    ({'square': {'side_m': 12.0}}, r"key 'stage' as a mapping is \{circle: "),
    ({'figure_eight': {'radius_m': 0.0, 'surface': 'gravel'}},
     r"key 'stage.figure_eight.radius_m = 0.0 must be a positive, finite number"),
])
def test_a_bad_circle_is_refused_naming_the_key_and_value(stage, said):
    from rally_sim.scenarios.spec import check_scenario, load_scenario, ScenarioError
    spec = dict(load_scenario('drift_skid_pad'), stage=stage)
    spec.pop('file')
    with pytest.raises(ScenarioError, match=said):
        check_scenario(spec, 'drift.yaml')


def test_a_made_circle_is_a_ring_of_its_surface_with_its_path(tmp_path):
    from rally_sim.physics import Surface
    from rally_sim.world.stages import circle_stage, made_stage_file, read_path, stage_named
    stage = circle_stage(2.0, 'snow', 1.0)               # a 1/10-scale car's pad
    surface_file = made_stage_file(stage, str(tmp_path / stage.name))
    assert made_stage_file(stage, str(tmp_path / stage.name)) == surface_file  # made once
    surface = Surface.load(surface_file)
    grip = {r: float(surface.grip_at([r], [0.0])[0]) for r in (1.0, 1.6, 2.0, 2.4, 3.0)}
    assert grip[1.6] == grip[2.0] == grip[2.4] != grip[1.0] == grip[3.0]     # snow, tarmac
    path = read_path(surface_file[:-len('.yaml')] + '_path.csv')
    assert max(abs((path ** 2).sum(axis=1) ** 0.5 - 2.0)) < 1e-3
    assert stage_named(surface_file).name == 'circle_2m_snow_1m'


def test_a_made_figure_eight_is_two_circles_touching_at_the_origin(tmp_path):
    from rally_sim.world.stages import made_stage, made_stage_file, read_path, stage_named
    stage = made_stage('figure_eight', 9.0, 'snow')
    surface_file = made_stage_file(stage, str(tmp_path / stage.name))
    path = read_path(surface_file[:-len('.yaml')] + '_path.csv')
    right, left = path[path[:, 0] > 1e-9], path[path[:, 0] < -1e-9]
    assert max(abs(np.hypot(right[:, 0] - 9.0, right[:, 1]) - 9.0)) < 1e-3
    assert max(abs(np.hypot(left[:, 0] + 9.0, left[:, 1]) - 9.0)) < 1e-3
    assert path[0].tolist() == [0.0, 0.0] and path[1, 1] > 0.0       # heading +y at the start
    assert stage_named(surface_file).name == 'figure_eight_9m_snow_9m'
