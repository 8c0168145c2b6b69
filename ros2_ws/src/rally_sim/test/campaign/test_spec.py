"""Campaign files: expansion into runs, seeds, parameters applied, bad input named."""

import numpy as np
import pytest
from rally_sim.campaign.spec import CampaignError, derived_seed, load_campaign
from rally_sim.physics import load_vehicle
from rally_sim.scenarios.spec import load_scenario, vehicle_config, vehicle_file
import yaml


def campaign_file(tmp_path, **tree):
    path = tmp_path / 'campaign.yaml'
    path.write_text(yaml.safe_dump({'scenario': 'path_follow', **tree}))
    return str(path)


def test_a_matrix_runs_its_full_product_each_point_repeated_with_its_own_seed(tmp_path):
    tree = {'matrix': {'friction_scale': [0.5, 1.0],
                       'controller.params.target_speed_m_s': {'linspace': [6, 12, 3]}},
            'repeat': 2, 'seed': 5}
    campaign = load_campaign(campaign_file(tmp_path, **tree))
    assert len(campaign.runs) == 12 and campaign.metrics == 'path'
    assert campaign.parameters == ['controller.params.target_speed_m_s', 'friction_scale']
    points = {(r.params['friction_scale'], r.params['controller.params.target_speed_m_s'])
              for r in campaign.runs}
    assert points == {(f, v) for f in (0.5, 1.0) for v in (6.0, 9.0, 12.0)}
    seeds = [run.seed for run in campaign.runs]
    assert len(set(seeds)) == 12                    # repeats of a point draw other errors
    assert [r.seed for r in load_campaign(campaign_file(tmp_path, **tree)).runs] == seeds
    other = load_campaign(campaign_file(tmp_path, **dict(tree, seed=6)))
    assert not {r.seed for r in other.runs} & set(seeds)
    run = campaign.runs[0]
    assert run.seed == derived_seed(5, run.params, 0) and run.spec['seed_in_use'] == run.seed
    assert run.spec['controller']['params']['target_speed_m_s'] == 6.0


def test_parameters_reach_the_scenario_and_the_vehicle_file_the_simulator_loads(tmp_path):
    tree = {'matrix': {'friction_scale': [0.5], 'mass_scale': [1.2], 'seed': [42],
                       'vehicle.resistance.drag_coefficient_kg_m': [0.5],
                       'actuation.steer.delay_s': [0.05], 'initial_speed_m_s': [3.0],
                       'sensors': ['typical'], 'thresholds.cross_track_max_m.max': [3.0]}}
    run, = load_campaign(campaign_file(tmp_path, **tree)).runs
    spec = run.spec
    assert run.seed == spec['seed'] == 42          # the campaign's own seed key is the seed
    assert spec['initial_speed_m_s'] == 3.0 and spec['sensors'] == 'typical'
    assert spec['thresholds']['cross_track_max_m'] == {'max': 3.0}
    base = vehicle_config(load_scenario('path_follow'))
    loaded = load_vehicle(vehicle_file(spec, str(tmp_path)))
    assert loaded['tyres.front.mu'] == 0.5 * base['tyres.front.mu']
    assert loaded['tyres.rear.mu'] == 0.5 * base['tyres.rear.mu']
    assert loaded['mass_kg'] == 1.2 * base['mass_kg']
    assert loaded['yaw_inertia_kg_m2'] == 1.2 * base['yaw_inertia_kg_m2']
    assert loaded['resistance.drag_coefficient_kg_m'] == 0.5
    assert loaded['actuation.steer.delay_s'] == 0.05
    assert loaded['wheel_radius_m'] == base['wheel_radius_m']     # the rest as it was


def test_sensor_keys_reach_the_profile_the_simulator_loads(tmp_path):
    from rally_sim.scenarios.spec import sensor_file
    from rally_sim.sensors import load_profile
    tree = {'matrix': {'sensors': ['typical'], 'sensors.imu.gyro.stddev': [0.01],
                       'sensors.odometry.delay_s': [0.05]}}
    run, = load_campaign(campaign_file(tmp_path, **tree)).runs
    assert run.spec['sensor_overrides'] == {'imu.gyro.stddev': 0.01, 'odometry.delay_s': 0.05}
    loaded = load_profile(sensor_file(run.spec, str(tmp_path)))
    typical = load_profile('typical')
    assert loaded.channels['imu'].noise['gyro'].stddev == 0.01
    assert loaded.channels['odometry'].delay_s == 0.05
    assert loaded.channels['gnss'] == typical.channels['gnss']       # the rest as it was
    assert loaded.channels['imu'].noise['accelerometer'] == typical.channels['imu'].noise[
        'accelerometer']


def test_samples_are_drawn_from_the_campaign_seed_within_their_distributions(tmp_path):
    tree = {'sample': {'runs': 400, 'initial_speed_m_s': {'uniform': [2.0, 8.0]},
                       'mass_scale': {'normal': [1.0, 0.05]},
                       'sensors': {'choice': ['ideal', 'typical']}}, 'seed': 3}
    runs = load_campaign(campaign_file(tmp_path, **tree)).runs
    speeds = np.array([r.params['initial_speed_m_s'] for r in runs])
    masses = np.array([r.params['mass_scale'] for r in runs])
    assert speeds.min() >= 2.0 and speeds.max() <= 8.0 and abs(speeds.mean() - 5.0) < 0.3
    assert abs(masses.mean() - 1.0) < 4 * 0.05 / np.sqrt(400)
    assert abs(masses.std() - 0.05) < 0.01
    assert {r.params['sensors'] for r in runs} == {'ideal', 'typical'}
    again = load_campaign(campaign_file(tmp_path, **tree)).runs
    assert [r.params for r in again] == [r.params for r in runs]
    both = load_campaign(campaign_file(tmp_path, matrix={'friction_scale': [0.8, 1.0]},
                                       sample={'runs': 3, 'mass_scale': {'uniform': [1, 2]}}))
    assert len(both.runs) == 6


@pytest.mark.parametrize('tree, message', [
    ({'matrix': {'grip': [1.0]}}, "unknown key 'grip'"),
    ({'matrix': {}}, "key 'matrix' is empty"),
    ({'matrix': {'friction_scale': []}}, "matrix key 'friction_scale' must have a non-empty"),
    ({'matrix': {'actuation.steer.delay_s': [0.1, 5.0]}},
     "run 00001 {'actuation.steer.delay_s': 5.0}: key 'actuation': key "
     "'actuation.steer.delay_s' = 5.0 is out of range [0, 1]"),
    ({'matrix': {'friction_scale': [1.0, -1.0]}},
     "run 00001 {'friction_scale': -1.0}: key 'friction_scale' = -1.0 must be a number in"),
    ({'matrix': {'vehicle.mass_kg': [-5.0]}}, "run 00000 {'vehicle.mass_kg': -5.0}: key "
     "'vehicle_overrides'"),
    ({'matrix': {'stage': ['moon']}}, "key 'stage' must be one of"),
    ({'matrix': {'vehicle': ['volvo_v40_kinematic'], 'friction_scale': [0.8]}},
     "key 'friction_scale' does not apply to vehicle 'volvo_v40_kinematic': its model "
     '(kinematic_bicycle) has no tyres.front.mu nor tyres.rear.mu'),
    ({'sample': {'runs': 2, 'mass_scale': {'gauss': [1, 0.1]}}},
     "sample key 'mass_scale' = {'gauss': [1, 0.1]}: write {uniform"),
    ({'sample': {'runs': 0, 'mass_scale': {'uniform': [1, 2]}}}, "'sample.runs' = 0"),
    ({'matrix': {'seed': {'range': [0, 1.5]}}}, '{range: [start, stop]}'),
    ({'repeat': 2}, "give 'matrix' and/or 'sample'"),
    ({'matrix': {'seed': [1]}, 'workers': 3}, "unknown key(s) ['workers']"),
    ({'matrix': {'sensors.imu.gyro.stddev': [0.01, -1.0]}},
     "run 00001 {'sensors.imu.gyro.stddev': -1.0}: keys 'sensors', 'sensor_overrides': key "
     "'imu.gyro.stddev' = -1.0 in "),
    ({'matrix': {'sensors.odometry.velocity.stdev': [0.1]}},
     "unknown key 'odometry.velocity.stdev' in "),
    ({'matrix': {'sensors.imu': [0.1]}}, "unknown key 'sensors.imu'"),
    ({'matrix': {'seed': [1]}, 'thresholds': {'completion_time_s': {'max': 'soon'}}},
     "key 'thresholds.completion_time_s.max' = 'soon' must be a number"),
    ({'matrix': {'seed': [1]}, 'thresholds': {'completion_time_s': {'max': {
        'times': 550.0, 'over': 'controller.params.target_speed_m_s'}}}},
     "'controller.params.target_speed_m_s' must be a campaign parameter with a non-zero "
     'number in every run (this run: None)'),
    ({'matrix': {'seed': [1]}, 'thresholds': {'completion_time_s': {'max': {'times': 1}}}},
     '{times: K, over: PARAMETER}'),
])
def test_a_bad_campaign_is_refused_naming_the_run_and_the_key(tmp_path, tree, message):
    with pytest.raises(CampaignError) as caught:
        load_campaign(campaign_file(tmp_path, **tree))
    assert message in str(caught.value)


def test_a_scenario_that_does_not_exist_and_a_campaign_that_does_not_are_named(tmp_path):
    with pytest.raises(CampaignError, match="key 'scenario': no scenario 'nosuch'"):
        load_campaign(campaign_file(tmp_path, scenario='nosuch', matrix={'seed': [1]}))
    with pytest.raises(CampaignError, match="no campaign 'nosuch'.*friction_sweep"):
        load_campaign('nosuch')
    with pytest.raises(CampaignError, match="handbrake_hairpin is a technique's scenario"):
        load_campaign(campaign_file(tmp_path, scenario='handbrake_hairpin',
                                    matrix={'seed': [1]}))


def test_the_shipped_campaigns_expand():
    sweep = load_campaign('friction_sweep')
    assert len(sweep.runs) == 20 and sweep.scenario == 'path_follow'
    # the lap time to beat scales with the speed aimed at: 550 m over it
    for run in sweep.runs:
        speed = run.params['controller.params.target_speed_m_s']
        assert run.spec['thresholds']['completion_time_s'] == {'max': 550.0 / speed}
        assert run.spec['thresholds']['off_road_time_s'] == {'max': 0.0}   # the scenario's
    robust = load_campaign('robustness_typical')
    assert [r.seed for r in robust.runs] == list(range(100))
    assert robust.runs[0].spec['sensors'] == 'typical'
