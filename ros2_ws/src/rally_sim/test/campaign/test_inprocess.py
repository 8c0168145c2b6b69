"""
The in-process engine against the ROS run: each of our controllers, every mode it commands.

Each case is a shipped scenario, shortened, run once by `rally_sim.scenario`
(the simulator and the controller as ROS processes) and once in-process;
their metrics must be the same to the last bit.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
from rally_sim.campaign.controllers import check_controller, module_of
from rally_sim.campaign.inprocess import InProcessError, run_scenario
from rally_sim.resources import config_file
from rally_sim.scenarios.spec import load_scenario
from rally_sim.world.stages import read_path
from support.bags import decode_everything
import yaml

DRIFT = {'duration_s': 4.0, 'settle_s': 1.0,
         'thresholds': {'sideslip_mean_deg': {'min': 5.0}}}
CASES = {
    # the reference drift controller: typical sensors, a steering delay and lag, driver mode
    'drift_typical': ('drift_skid_pad_typical', DRIFT),
    # the heuristic drift controller, its delay compensation
    'drift_heuristic': ('drift_skid_pad', dict(DRIFT, controller={
        'command': ['python', '-m', 'rally_sim.ros.drift_controller'],
        'params': {'radius_m': 15.0, 'delay_compensation_s': 0.04}})),
    # the reference drift controller (equilibria, LQR) in torque mode
    'drift_lqr_torque': ('drift_skid_pad', dict(DRIFT, command_mode='torque', controller={
        'command': ['python', '-m', 'rally_sim.ros.drift_lqr_controller'],
        'params': {'sideslip_deg': -25.0, 'command': 'torque', 'entry_s': 2.0}})),
    # the reference drift controller on the figure eight: the entry, then one transition
    'drift_figure_eight': ('drift_figure_eight', {'duration_s': 13.0, 'thresholds': {
        'transitions': {'min': 1}, 'regain_max_s': {'max': 2.0}}}),
    # the same on springs: the controller node solves and plans on the car on its springs
    'drift_figure_eight_suspension': ('drift_figure_eight_suspension', {
        'duration_s': 13.0, 'thresholds': {'transitions': {'min': 1},
                                           'regain_max_s': {'max': 2.0}}}),
    # the reference drift controller with the car started in its drift (initial_state)
    'drift_started_on_equilibrium': ('drift_skid_pad', dict(
        DRIFT, initial_speed_m_s=0.0, initial_state={'equilibrium': True}, controller={
            'command': ['python', '-m', 'rally_sim.ros.drift_lqr_controller'],
            'params': {'sideslip_deg': -25.0, 'gear': 2, 'entry_s': 0.0}})),
    'follower_driver': ('path_follow_driver', {'duration_s': 4.0}),
    'mppi': ('mppi_rally_stage', {'duration_s': 1.0}),
    # path_follow_typical (typical sensors, steering dead time and lag), its profile with two
    # keys changed (the simulator loads the profile written for the run)
    'follower_sensor_overrides': ('path_follow_typical', {'duration_s': 6.0, 'sensor_overrides': {
        'odometry.position.stddev': 0.3, 'odometry.delay_s': 0.04}}),
    # the gap follower, which answers the lidar's scan: a third of a lap of the track
    'gap_follower': ('gap_follow_track', {'duration_s': 7.0, 'thresholds': {}}),
    # the car on its springs over jump_stage's kicker: the jump's metrics from the body
    'jump': ('jump', {'duration_s': 8.0, 'thresholds': {'airtime_s': {'min': 0.2},
                                                        'off_road_time_s': {'max': 0.0}}}),
}


def shortened(tmp_path, base, changes):
    """Write the shipped scenario `base` with `changes` into tmp_path; return its path."""
    with open(config_file(f'scenarios/{base}.yaml'), encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec.update(changes, name=f'{base}_short')
    path = tmp_path / f'{base}_short.yaml'
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize('case', sorted(CASES))
def test_each_controller_in_process_gives_its_ros_runs_metrics(case, tmp_path):
    path = shortened(tmp_path, *CASES[case])
    result = subprocess.run([sys.executable, '-m', 'rally_sim.scenario', str(path),
                             '--output', str(tmp_path / 'ros')], capture_output=True,
                            text=True, timeout=600)
    reports = list((tmp_path / 'ros').glob('*/report.json'))
    assert reports, result.stdout + result.stderr
    ros = json.loads(reports[0].read_text())
    spec = load_scenario(str(path))
    spec['seed_in_use'] = ros['seed']
    alone = run_scenario(spec)
    # json: NaN (a metric with nothing to measure) equals NaN
    assert json.dumps(alone['metrics'], sort_keys=True) == json.dumps(ros['metrics'],
                                                                      sort_keys=True)
    assert alone['passed'] == ros['passed']
    assert ros['metrics'], ros
    if spec['sensor_overrides']:
        assert ros['sensor_overrides'] == spec['sensor_overrides']
        spec['sensor_overrides'] = {}
        assert run_scenario(spec)['metrics'] != alone['metrics']


def test_a_controller_parameter_the_node_refuses_is_refused_with_its_words():
    spec = load_scenario('drift_skid_pad')
    spec['controller']['params'] = {'sideslip_deg': 95.0}
    with pytest.raises(ValueError, match=r"'sideslip_deg' = 95.0 is out of range \[-80, 80\]"):
        check_controller(spec['controller'])
    spec['controller']['params'] = {'gain': 1.0}
    with pytest.raises(ValueError, match="'gain' is not a parameter of the controller"):
        check_controller(spec['controller'])
    spec['controller']['command'] = ['python', '-m', 'my_team.controller']
    spec['seed_in_use'] = 0
    with pytest.raises(InProcessError, match='my_team.controller.*use --engine ros'):
        run_scenario(spec)


def test_the_module_of_a_controller_command():
    assert module_of(['python', '-m', 'rally_sim.ros.mppi_controller']) == (
        'rally_sim.ros.mppi_controller')
    assert module_of(['/usr/bin/python3', '-m', 'a.b', '--x']) == 'a.b'
    assert module_of(['./my_controller']) is None


def test_drift_robustness_holds_the_cars_furthest_from_the_design():
    """The shipped campaign's runs with the least and the most grip pass in-process."""
    from rally_sim.campaign.spec import load_campaign
    campaign = load_campaign('drift_robustness')
    assert len(campaign.runs) == 40
    friction = [run.params['friction_scale'] for run in campaign.runs]
    assert 0.8 <= min(friction) < 0.85 and 1.15 < max(friction) <= 1.2
    for run in (campaign.runs[int(np.argmin(friction))], campaign.runs[int(np.argmax(friction))]):
        spec = dict(run.spec, seed_in_use=run.seed)
        result = run_scenario(spec)
        assert result['passed'], (run.params, result['metrics'])
        assert result['metrics']['sideslip_error_rms_deg'] < 0.1


def test_a_figure_eight_needs_a_transition_planned_for_its_car_and_drift():
    spec = load_scenario('drift_figure_eight')
    spec['seed_in_use'] = 0
    params = spec['controller']['params']
    for changes, message in [
            ({'transition': 'nowhere.yaml'}, "parameter 'transition': transition file "
                                             'nowhere.yaml: .*No such file'),
            ({'sideslip_deg': 25.0}, "parameter 'transition': rwd_gravel_gravel_15m was "
                                     'planned for rwd_gravel on gravel, R 15 m, beta -20 deg, '
                                     'driver command, gear 2, not for rwd_gravel on gravel, R '
                                     '15 m, beta -25 deg')]:
        spec['controller']['params'] = dict(params, **changes)
        with pytest.raises(InProcessError, match=message):
            run_scenario(spec)


def test_the_figure_eight_passes_in_process_and_holds_cars_it_was_not_planned_on():
    """Full length: the nominal car, and 10 % less and 5 % more grip (the plan's feedback)."""
    from rally_sim.physics.config import load_vehicle
    from rally_sim.resources import vehicle_path
    config = load_vehicle(vehicle_path('rwd_gravel'))
    for scale in (1.0, 0.9, 1.05):
        spec = load_scenario('drift_figure_eight')
        spec['seed_in_use'] = 0
        spec['vehicle_overrides'] = {key: config[key] * scale
                                     for key in ('tyres.front.mu', 'tyres.rear.mu')}
        result = run_scenario(spec)
        assert result['passed'], (scale, result['metrics'])
        assert result['metrics']['transitions'] == 4
        if scale == 1.0:
            assert result['metrics']['lateral_error_rms_m'] < 0.1


def test_the_figure_eight_on_springs_passes_in_process_with_its_own_transition():
    """Full length: equilibria, gains and transition solved and planned on the sprung car."""
    spec = load_scenario('drift_figure_eight_suspension')
    spec['seed_in_use'] = 0
    result = run_scenario(spec)
    m = result['metrics']
    print('drift_figure_eight_suspension:', m)
    assert result['passed'], m
    assert m['transitions'] == 4 and m['lateral_error_rms_m'] < 0.1
    assert m['regain_max_s'] < 1.5


@pytest.mark.parametrize('name', ['path_follow_arcade', 'path_follow_kinematic',
                                  'path_follow_hills', 'path_follow_driver',
                                  'path_follow_typical', 'mppi_rally_stage'])
def test_the_path_follower_s_other_cars_and_stage_pass_in_process(name):
    """
    The arcade and kinematic bicycles round the rally stage, the V40 over the hills.

    And the AWD car on its pedals, the V40 on typical sensors with a slow steering
    actuator, and the MPPI controller's lap.
    """
    spec = load_scenario(name)
    spec['seed_in_use'] = 0
    result = run_scenario(spec)
    assert result['passed'], result['metrics']
    assert result['metrics']['completion_time_s'] < spec['duration_s']


def test_the_gap_followers_lap_the_track_in_process_and_the_faster_passes():
    alone = load_scenario('gap_follow_track')
    alone['seed_in_use'] = 0
    lap = run_scenario(alone)
    assert lap['passed'], lap['thresholds']        # two laps, on the lidar alone, no contact
    assert lap['metrics']['collisions'] == 0.0 and lap['metrics']['min_clearance_m'] > 0.05
    two = load_scenario('two_cars_track')
    two['seed_in_use'] = 0
    race = run_scenario(two)
    assert race['passed'], race['thresholds']
    assert race['metrics']['passes'] >= 1.0 and race['contacts'] == []


@pytest.mark.parametrize('name', ['drift_snow', 'drift_tarmac', 'drift_skid_pad_mf'])
def test_the_drifts_on_snow_tarmac_and_tir_tyres_pass_in_process(name):
    """The reference drift controller on the least and the most grip, and on .tir tyres."""
    spec = load_scenario(name)
    spec['seed_in_use'] = 0
    result = run_scenario(spec)
    assert result['passed'], result['metrics']
    assert result['metrics']['sideslip_error_rms_deg'] < 0.01


def test_too_fast_on_the_rally_stage_the_path_follower_hits_a_barrier_and_fails_on_it():
    spec = load_scenario('path_follow')
    spec['seed_in_use'] = 0
    spec['controller']['params'] = {'target_speed_m_s': 20.0, 'lateral_accel_limit_m_s2': 20.0}
    result = run_scenario(spec)
    assert result['metrics']['collisions'] == 1.0       # halted where it touched: only once
    assert result['metrics']['min_clearance_m'] == 0.0
    assert result['thresholds']['collisions'] == {'max': 0, 'value': 1.0, 'passed': False}
    assert not result['passed']
    # at the shipped speed it clears every barrier and tree
    spec['controller']['params'] = {}
    clear = run_scenario(spec)['metrics']
    assert clear['collisions'] == 0.0 and clear['min_clearance_m'] > 1.0


def test_a_car_blind_to_the_one_ahead_runs_into_it_in_process_as_over_ros(tmp_path):
    """two_cars_track with the path follower behind (odometry only): contact, both halted."""
    follower = {'command': ['python', '-m', 'rally_sim.ros.path_follower'], 'params': {
        'path_file': config_file('stages/track_path.csv'), 'target_speed_m_s': 3.0,
        'lookahead_min_m': 1.0, 'lookahead_gain_s': 0.3, 'wheelbase_m': 0.3302,
        'cg_to_rear_m': 0.17145, 'max_steer_rad': 0.4189, 'lateral_accel_limit_m_s2': 5.0}}
    with open(config_file('scenarios/two_cars_track.yaml'), encoding='utf-8') as stream:
        slow = yaml.safe_load(stream)['opponents']
    slow[0]['controller']['params']['speed_max_m_s'] = 0.5
    path = shortened(tmp_path, 'two_cars_track', {'controller': follower, 'opponents': slow,
                                                  'duration_s': 4.0})
    result = subprocess.run([sys.executable, '-m', 'rally_sim.scenario', str(path),
                             '--output', str(tmp_path / 'ros'), '--record',
                             str(tmp_path / 'bag')], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr      # failed: a collision
    decoded = decode_everything(tmp_path / 'bag')     # each car's topics under its name
    assert {f'/{car}/{topic}' for car in ('ego', 'slow') for topic in (
        'odom', 'scan', 'ackermann_cmd', 'ground_truth/odom')} | {'/collision', '/map'} <= set(
        decoded)
    assert len(decoded['/ego/scan'][0].ranges) == 1080
    assert sorted(m.car for m in decoded['/collision']) == ['ego', 'slow']
    ros = json.loads(next((tmp_path / 'ros').glob('*/report.json')).read_text())
    spec = load_scenario(str(path))
    spec['seed_in_use'] = ros['seed']
    alone = run_scenario(spec)
    assert json.dumps(alone['metrics'], sort_keys=True) == json.dumps(ros['metrics'],
                                                                      sort_keys=True)
    assert sorted((c['car'], c['other']) for c in ros['contacts']) == [('ego', 'slow'),
                                                                       ('slow', 'ego')]
    assert sorted(alone['contacts'], key=lambda c: c['car']) == sorted(
        ros['contacts'], key=lambda c: c['car'])
    assert ros['metrics']['collisions'] == 2.0 and ros['metrics']['min_clearance_m'] == 0.0
    assert not ros['thresholds']['collisions']['passed']


def test_a_scenario_measures_and_follows_a_line_driven_by_hand(tmp_path):
    """A drive's best_lap.csv (t, x, y, yaw) beside a scenario file: its `path`."""
    points = read_path(config_file('stages/rally_stage_path.csv'))
    ahead = np.roll(points, -1, axis=0) - points
    left = np.column_stack([-ahead[:, 1], ahead[:, 0]]) / np.hypot(*ahead.T)[:, None]
    line = points + 0.8 * left                  # a person kept 0.8 m left of the stage's line
    t = np.arange(len(line)) * 0.1
    np.savetxt(tmp_path / 'best_lap.csv', np.column_stack([t, line, np.zeros(len(line))]),
               delimiter=',', header='t,x,y,yaw', comments='')
    spec = load_scenario('path_follow')
    spec.pop('file')
    (tmp_path / 'mine.yaml').write_text(yaml.safe_dump(dict(spec, path='best_lap.csv')))
    mine = load_scenario(str(tmp_path / 'mine.yaml'))
    assert mine['path'] == str(tmp_path / 'best_lap.csv')
    assert mine['controller']['params']['path_file'] == mine['path']      # followed, too
    mine['seed_in_use'] = 0
    result = run_scenario(mine)
    assert result['passed'], result['metrics']
    assert result['metrics']['cross_track_rms_m'] < 0.5                   # on the driven line
    (tmp_path / 'bad.yaml').write_text(yaml.safe_dump(dict(spec, path='nowhere.csv')))
    with pytest.raises(ValueError, match="key 'path' = 'nowhere.csv'"):
        load_scenario(str(tmp_path / 'bad.yaml'))


def test_a_scenario_started_on_its_equilibrium_is_in_its_drift_from_the_start(tmp_path):
    # Issue 59: "start the drift by hand" - a drift scenario may start in the drift
    # (its equilibrium's velocities, the car heading so that it moves along the path).
    changes = {'duration_s': 3.0, 'settle_s': 0.0, 'initial_speed_m_s': 0.0,
               'initial_state': {'equilibrium': True}, 'thresholds': {}, 'controller': {
                   'command': ['python', '-m', 'rally_sim.ros.drift_lqr_controller'],
                   'params': {'sideslip_deg': -25.0, 'gear': 2, 'entry_s': 0.0}}}
    spec = load_scenario(str(shortened(tmp_path, 'drift_skid_pad', changes)))
    spec['seed_in_use'] = 0
    drifting = run_scenario(spec)['metrics']
    assert drifting['sideslip_error_rms_deg'] < 1.0, drifting      # held from the first state
    assert drifting['time_in_drift_s'] > 2.9
    spec = load_scenario(str(shortened(tmp_path, 'drift_skid_pad', dict(
        changes, initial_speed_m_s=8.0, initial_state={}))))
    spec['seed_in_use'] = 0
    gripping = run_scenario(spec)['metrics']        # the same 3 s from grip driving at 8 m/s
    assert gripping['sideslip_error_rms_deg'] > 5.0, gripping
