"""The 2D lidar channel: beams through the scene's walls and cars, seeded errors, REP 117 reads."""

import math

import numpy as np
import pytest
from rally_sim.physics import Vehicle
from rally_sim.sensors import SensorError, Sensors
from rally_sim.sensors.profiles import from_mapping
from rally_sim.sensors.suite import beam_angles
from rally_sim.world.occupancy import OccupancyMap
from rally_sim.world.scene import footprint_of, Scene
from support.vehicles import vehicle

STEP_NS = 1_000_000
F1TENTH_LIDAR = {'rate_hz': 40.0, 'beams': 1081, 'field_of_view_rad': math.pi,
                 'range_min_m': 0.06, 'range_max_m': 30.0, 'mount_x_m': 0.275}
"""A half-circle scan with a beam straight ahead (index 540) and one to each side."""


def walled(resolution=0.05):
    """Return a 20 m x 10 m map from (-5, -5) with a wall two cells thick from x = 7 m."""
    cells = np.zeros((round(10 / resolution), round(20 / resolution)), dtype=np.int8)
    first = round(12.0 / resolution)
    cells[:, first:first + 2] = 100
    return OccupancyMap(cells, resolution, -5.0, -5.0, 0.0)


def lidar(seed=0, **keys):
    profile = from_mapping({'lidar': dict(F1TENTH_LIDAR, **keys)}, 'test.yaml')
    return Sensors(profile, seed, STEP_NS, 10 * STEP_NS)


def scans(sensors, car, count):
    """Measure `count` scans of the car standing still; return their ranges."""
    out = []
    for k in range(count):
        step = k * 25      # 40 Hz
        sensors.measure(step, car)
        out += [m.values['ranges'] for m in sensors.delivered(step)]
    return np.array(out)


def placed(x=0.0, y=0.0, yaw=0.0, name='volvo_v40'):
    car = Vehicle(vehicle(name))
    car.reset(x=x, y=y, yaw=yaw)
    return car


def test_a_known_wall_reads_exact_to_the_cell_and_open_space_reads_no_return():
    scene = Scene(walled())
    car = placed()
    sensors = lidar()
    sensors.world = scene
    (ranges,) = scans(sensors, car, 1)
    assert len(ranges) == 1081 and beam_angles(sensors.channels['lidar'].spec.geometry)[
        540] == pytest.approx(0.0, abs=1e-15)
    assert ranges[540] == pytest.approx(7.0 - 0.275, abs=1e-9)      # the wall's cell edge
    # a beam at angle a meets the wall at (7 - 0.275) / cos(a), while the map holds it
    angles = beam_angles(sensors.channels['lidar'].spec.geometry)
    hits = np.abs(np.tan(angles)) * 6.725 < 4.9
    assert np.allclose(ranges[hits], 6.725 / np.cos(angles[hits]), atol=1e-9)
    # to the sides and behind nothing stands: no return is +inf, never 0 or range_max
    assert ranges[0] == np.inf and ranges[-1] == np.inf
    assert np.all(np.isposinf(ranges[~hits & (np.abs(angles) > 1.0)]))
    # turned and moved, the car reads the same wall from the new pose
    car = placed(x=1.0, y=0.5, yaw=0.3)
    sensors = lidar()
    sensors.world = scene
    (turned,) = scans(sensors, car, 1)
    beam = int(np.argmin(np.abs(angles + 0.3)))      # pointing along +x
    along = 7.0 - 1.0 - 0.275 * math.cos(0.3)
    assert turned[beam] == pytest.approx(along / math.cos(angles[beam] + 0.3), abs=1e-9)


def test_nearer_than_range_min_reads_minus_inf_and_beyond_range_max_plus_inf():
    car = placed(x=6.8)              # the mount (x 7.075) stands in the wall
    sensors = lidar(range_min_m=0.06)
    sensors.world = Scene(walled())
    (ranges,) = scans(sensors, car, 1)
    assert ranges[540] == -np.inf
    far = lidar(range_max_m=5.0)
    far.world = Scene(walled())
    (ranges,) = scans(far, placed(), 1)
    assert ranges[540] == np.inf
    assert not np.any(ranges == 0.0)
    alone = lidar()                  # no world at all: nothing to return from
    (ranges,) = scans(alone, placed(), 1)
    assert np.all(np.isposinf(ranges))


def test_another_cars_footprint_is_seen_and_the_own_is_not():
    scene = Scene(walled())
    ego, other = placed(), placed(x=3.0, y=0.0, name='rwd_gravel')
    for car, name in ((ego, 'volvo_v40'), (other, 'rwd_gravel')):
        scene.add(car, footprint_of(vehicle(name)))
    sensors = lidar()
    sensors.world = scene
    (ranges,) = scans(sensors, ego, 1)
    outline = footprint_of(vehicle('rwd_gravel'))
    near_edge = 3.0 + outline.ahead_of_cg_m - outline.length_m / 2
    assert ranges[540] == pytest.approx(near_edge - 0.275, abs=1e-9)
    assert np.isposinf(ranges[0])     # not its own body: the beams start at the mount


def test_errors_are_seeded_repeatable_and_have_the_profiles_statistics():
    noisy = {'ranges': {'stddev': 0.02}, 'beam_dropout_probability': 0.1}
    runs = []
    for seed in (7, 7, 8):
        sensors = lidar(seed=seed, **noisy)
        sensors.world = Scene(walled())
        runs.append(scans(sensors, placed(), 40))
    assert np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0], runs[2])
    truth = lidar()
    truth.world = Scene(walled())
    (exact,) = scans(truth, placed(), 1)
    hit = np.isfinite(exact)
    measured = runs[0][:, hit]
    kept = np.isfinite(measured)
    assert abs(1.0 - kept.mean() - 0.1) < 0.02                   # lost beams read +inf
    errors = (measured - exact[hit])[kept]
    assert abs(errors.mean()) < 0.002 and abs(errors.std() - 0.02) < 0.002
    assert np.all(np.isposinf(runs[0][:, ~hit]))                  # noise never makes a return


@pytest.mark.parametrize('keys, words', [
    ({'beams': 0}, "key 'lidar.beams' = 0 in test.yaml must be a whole number in [1, 100000]"),
    ({'beams': 10.5}, "key 'lidar.beams' = 10.5"),
    ({'range_min_m': 5.0, 'range_max_m': 2.0},
     "key 'lidar.range_max_m' = 2 in test.yaml must be above lidar.range_min_m = 5"),
    ({'range_max_m': None}, "key 'lidar.range_max_m' is missing in test.yaml"),
    ({'field_of_view_rad': 7.0}, "key 'lidar.field_of_view_rad' = 7.0"),
    ({'beam_dropout_probability': 1.0}, "key 'lidar.beam_dropout_probability' = 1.0"),
    ({'spin_rate': 10}, "unknown key 'lidar.spin_rate' in test.yaml"),
])
def test_a_bad_lidar_is_refused_naming_the_key(keys, words):
    tree = {k: v for k, v in dict(F1TENTH_LIDAR, **keys).items() if v is not None}
    with pytest.raises(SensorError) as error:
        from_mapping({'lidar': tree}, 'test.yaml')
    assert words in str(error.value)


def test_f1tenth_gym_ros_reads_no_return_as_its_maximum_and_spaces_beams_per_beam():
    # f1tenth_gym_ros: angle_increment = fov / beams from -fov / 2; no return reads 30.0.
    scene = Scene(walled())
    sensors = lidar(beams=1080, field_of_view_rad=4.7, beam_spacing='per_beam',
                    range_min_m=0.0, no_return_m=30.0)
    sensors.world = scene
    geometry = sensors.channels['lidar'].spec.geometry
    angles = beam_angles(geometry)
    assert angles[0] == -2.35 and np.allclose(np.diff(angles), 4.7 / 1080, atol=1e-15)
    (ranges,) = scans(sensors, placed(), 1)
    open_space = np.abs(angles) > 1.0
    assert np.all(ranges[open_space] == 30.0) and not np.any(np.isinf(ranges))
    ahead = int(np.argmin(np.abs(angles)))
    assert ranges[ahead] == pytest.approx((7.0 - 0.275) / math.cos(angles[ahead]), abs=1e-9)
    spanned = beam_angles(lidar(beams=1080, field_of_view_rad=4.7).channels[
        'lidar'].spec.geometry)
    assert spanned[-1] == pytest.approx(2.35, abs=1e-12)          # span: the default


@pytest.mark.parametrize('keys, message', [
    ({'beam_spacing': 'evenly'}, "'lidar.beam_spacing' = 'evenly' in test.yaml must be one of "
                                 'span, per_beam'),
    ({'no_return_m': -1.0}, "'lidar.no_return_m' = -1.0 in test.yaml must be a number in "
                            r'\[0, inf\]'),
    ({'no_return_m': float('nan')}, "'lidar.no_return_m' = nan"),
])
def test_a_bad_lidar_setting_is_refused_naming_it(keys, message):
    with pytest.raises(SensorError, match=message):
        lidar(**keys)
