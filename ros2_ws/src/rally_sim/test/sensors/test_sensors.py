"""The sensor suite: schedule, latency, dropout, one seed with a stream per channel."""

import dataclasses
import math

import numpy as np
import pytest

from rally_sim.physics import Command, Vehicle
from rally_sim.sensors import load_profile, SensorError, Sensors
from rally_sim.sensors.profiles import from_mapping
from support.vehicles import vehicle

STEP_NS = 1_000_000     # 1 kHz physics
PUBLISH_NS = 10_000_000  # 100 Hz outputs
REAR = (0.0, 0.0, 300.0, 300.0)


def drive(sensors, seconds=2.0, command=Command(steer_rad=0.1, drive_torque_n_m=REAR)):
    """Run a car with `sensors` as the node does; return every delivered measurement."""
    car = Vehicle(vehicle('volvo_v40'))
    car.reset(vx=8.0)
    car.set_command(command)
    delivered = []
    step = 0
    end = round(seconds * 1e9 / STEP_NS)
    while step <= end:
        sensors.measure(step, car)
        delivered += [(step, m) for m in sensors.delivered(step)]
        event = sensors.next_event()
        nxt = min(end + 1, event if event is not None and event > step else step + 1)
        car.advance(nxt - step, STEP_NS / 1e9)
        step = nxt
    return delivered


def by_channel(delivered, name):
    return [(step, m) for step, m in delivered if m.channel == name]


def profile(tree):
    return from_mapping(tree, 'test.yaml')


def test_each_channel_at_its_rate_stamped_when_measured_delivered_when_due():
    sensors = Sensors(load_profile('typical'), 1, STEP_NS, PUBLISH_NS)
    delivered = drive(sensors)
    for name, spec in load_profile('typical').channels.items():
        got = by_channel(delivered, name)
        stamps = np.array([m.stamp_ns for _, m in got])
        period_ns = round(1e9 / spec.rate_hz)
        assert np.all(stamps % STEP_NS == 0)
        assert set(np.diff(stamps)) <= {period_ns, 2 * period_ns}   # a gap: a dropout only
        delay_ns = round(spec.delay_s * 1e9)
        for step, m in got:
            assert step * STEP_NS == m.stamp_ns + delay_ns        # exactly delay_s later
        assert len(got) >= 0.9 * 2.0 * spec.rate_hz


def test_a_rate_that_does_not_divide_the_physics_rate_samples_on_the_next_step():
    sensors = Sensors(profile({'imu': {'rate_hz': 30.0, 'delay_s': 0.0137}}), 1, STEP_NS,
                      PUBLISH_NS)
    got = drive(sensors, 1.0)
    stamps = [m.stamp_ns for _, m in got]
    assert stamps[:4] == [0, 34_000_000, 67_000_000, 100_000_000]   # ceil(k / 30 s)
    assert [step for step, _ in got][:2] == [14, 48]                 # 13.7 ms later: next step


def test_ideal_is_the_truth_whenever_the_state_is_published():
    sensors = Sensors(load_profile('ideal'), 5, STEP_NS, 20_000_000)
    assert sensors.channels == {} and sensors.with_outputs == ['odometry', 'imu']
    assert sensors.next_event() is None
    car = Vehicle(vehicle('volvo_v40'))
    car.reset(vx=8.0, yaw=0.3)
    odometry, imu = sensors.measure_now(123_000_000, car, sensors.with_outputs)
    assert odometry.stamp_ns == 123_000_000 and odometry.exact
    assert odometry.values['yaw'][0] == 0.3 and odometry.values['velocity'][0] == 8.0


def test_a_noisy_channel_without_a_rate_runs_at_the_publishing_period():
    sensors = Sensors(profile({'odometry': {'yaw': {'stddev': 0.01}}}), 5, STEP_NS, 20_000_000)
    stamps = [m.stamp_ns for _, m in drive(sensors, 0.1)]
    assert stamps == list(range(0, 100_000_001, 20_000_000))


def test_one_seed_one_run_another_seed_another():
    def run(seed):
        return [(s, m.channel, m.stamp_ns, [v.tolist() for v in m.values.values()])
                for s, m in drive(Sensors(load_profile('rough'), seed, STEP_NS, PUBLISH_NS), 1.0)]
    first = run(42)
    assert first == run(42)
    assert first != run(43)


def test_a_channels_errors_do_not_depend_on_the_other_channels():
    typical = load_profile('typical')
    alone = dataclasses.replace(typical, channels={'imu': typical.channels['imu']})
    faster = dataclasses.replace(typical, channels={
        **typical.channels,
        'odometry': dataclasses.replace(typical.channels['odometry'], rate_hz=200.0),
        'gnss': dataclasses.replace(typical.channels['gnss'], rate_hz=20.0)})

    def imu(prof):
        return [(s, m.stamp_ns, m.values['gyro'].tolist(), m.values['accelerometer'].tolist())
                for s, m in by_channel(drive(Sensors(prof, 9, STEP_NS, PUBLISH_NS), 1.0), 'imu')]
    reference = imu(typical)
    assert imu(alone) == reference
    assert imu(faster) == reference


def test_dropout_rate_within_bounds_and_nothing_stands_in():
    p = 0.2
    sensors = Sensors(profile({'steering': {'rate_hz': 1000.0, 'dropout_probability': p}}), 3,
                      STEP_NS, PUBLISH_NS)
    got = drive(sensors, 5.0)
    samples = 5001
    kept = len(got)
    expected = samples * (1 - p)
    assert abs(kept - expected) < 4.0 * math.sqrt(samples * p * (1 - p))
    stamps = [m.stamp_ns for _, m in got]
    assert len(set(stamps)) == len(stamps)              # never the same measurement twice


def test_wheel_encoder_angles_count_whole_turns_and_ticks():
    sensors = Sensors(profile({'wheel_speeds': {'rate_hz': 20.0, 'angle': {
        'quantisation': 2 * math.pi / 48}}}), 1, STEP_NS, PUBLISH_NS)
    got = drive(sensors, 2.0, Command())         # coasting from 8 m/s: 24 rad/s, 1.2 rad/sample
    angles = np.array([m.values['angle'] for _, m in got])
    assert np.all(np.diff(angles[:, 0]) > 0.5)    # unwrapped: it keeps counting up
    total = angles[-1, 0] - angles[0, 0]
    assert total == pytest.approx(7.6 * 2.0 / 0.327, rel=0.1)
    ticks = angles / (2 * math.pi / 48)
    assert np.allclose(ticks, np.round(ticks), atol=1e-9)


def test_gnss_is_placed_by_the_datum():
    datum = (66.4979, 25.7180, 105.0)
    sensors = Sensors(profile({'gnss': {'rate_hz': 10.0}}), 1, STEP_NS, PUBLISH_NS, datum)
    got = drive(sensors, 0.2, Command())
    lat, lon, alt = sensors.geodetic(got[0][1])
    assert (lat, lon, alt) == pytest.approx(datum, abs=1e-9)
    lat, lon, alt = sensors.geodetic(got[-1][1])
    assert lat == pytest.approx(datum[0], abs=1e-9)
    assert (lon - datum[1]) * math.pi / 180 * 6_384_000 * math.cos(math.radians(datum[0])) \
        == pytest.approx(got[-1][1].values['horizontal'][0], rel=0.01)
    assert not Sensors(profile({'gnss': {}}), 1, STEP_NS, PUBLISH_NS).datum_given


def test_covariance_comes_from_the_model():
    sensors = Sensors(load_profile('rough'), 1, STEP_NS, PUBLISH_NS)
    got = by_channel(drive(sensors, 1.0), 'odometry')
    first, last = got[0][1].variances['position'], got[-1][1].variances['position']
    assert first == pytest.approx(0.05 ** 2)
    walked_s = got[-1][1].stamp_ns / 1e9                # variance: stddev^2 + walk^2 t
    assert last == pytest.approx(0.05 ** 2 + 0.05 ** 2 * walked_s)


def test_a_rate_above_the_physics_rate_is_refused():
    with pytest.raises(SensorError, match=r"'imu.rate_hz' = 2000 in test.yaml is above the "
                       r'physics rate: it must be in \(0, 1000\]'):
        Sensors(profile({'imu': {'rate_hz': 2000.0}}), 1, STEP_NS, PUBLISH_NS)
    with pytest.raises(SensorError, match='seed'):
        Sensors(profile({}), -1, STEP_NS, PUBLISH_NS)
