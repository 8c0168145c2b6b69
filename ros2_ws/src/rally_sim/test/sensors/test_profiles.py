"""Sensor profiles: the shipped ones load and say where their numbers come from; bad ones fail."""

import pytest

from rally_sim.resources import shipped
from rally_sim.sensors import CHANNELS, load_profile, SensorError
from rally_sim.sensors.profiles import from_mapping


def test_shipped_profiles_load_state_their_numbers_and_sources():
    assert shipped('sensors') == ['f1tenth', 'ideal', 'rough', 'typical']
    for name in shipped('sensors'):
        profile = load_profile(name)
        assert profile.description and profile.sources
    assert all(c.exact and c.rate_hz is None for c in load_profile('ideal').channels.values())
    for name in ('typical', 'rough'):       # a road car's sensors: all but a lidar
        assert set(load_profile(name).channels) == set(CHANNELS) - {'lidar'}
    f1tenth = load_profile('f1tenth').channels       # f1tenth_gym's scan, exact
    assert set(f1tenth) == {'odometry', 'imu', 'lidar'} and all(c.exact for c in f1tenth.values())
    assert {k: f1tenth['lidar'].geometry[k] for k in ('beams', 'field_of_view_rad',
                                                      'range_max_m')} == {
        'beams': 1080, 'field_of_view_rad': 4.7, 'range_max_m': 30.0}


@pytest.mark.parametrize('tree, message', [
    ({'imu': {'gyro': {'stddev': -0.1}}},
     r"key 'imu.gyro.stddev' = -0.1 in bad.yaml must be a number in \[0, 1000\]"),
    ({'odometry': {'delay_s': 1.5}},
     r"key 'odometry.delay_s' = 1.5 in bad.yaml must be a number in \[0, 1\]"),
    ({'gnss': {'rate_hz': 0}}, "key 'gnss.rate_hz' = 0 in bad.yaml must be above 0"),
    ({'radar': {}}, "unknown key 'the file.radar' in bad.yaml; known here: description"),
    ({'imu': {'magnetometer': {}}}, "unknown key 'imu.magnetometer' in bad.yaml"),
    ({'imu': {'gyro': {'sigma': 1}}}, "unknown key 'imu.gyro.sigma' in bad.yaml; known here: "
     'stddev, bias_stddev, random_walk, correlation_time_s, quantisation'),
    ({'steering': {'dropout_probability': 1.0}}, r'must be a number in \[0, 0.999\]'),
    ({'steering': {'angle': {'stddev': 'large'}}}, "'steering.angle.stddev' = 'large'"),
    ({'odometry': {'rate_hz': float('nan')}}, "'odometry.rate_hz' = nan"),
    ([1, 2], "key 'the file' in bad.yaml must be a mapping"),
])
def test_a_bad_profile_names_the_key_the_file_and_the_range(tree, message):
    with pytest.raises(SensorError, match=message):
        from_mapping(tree, 'bad.yaml')


def test_a_profile_that_does_not_exist_lists_the_shipped_ones(tmp_path):
    with pytest.raises(SensorError, match=r"no sensor profile 'perfect'.*\(shipped: f1tenth, "
                       'ideal, rough, typical'):
        load_profile('perfect')
    bad = tmp_path / 'mine.yaml'
    bad.write_text('imu: [1\n')
    with pytest.raises(SensorError, match='is not valid YAML'):
        load_profile(str(bad))
