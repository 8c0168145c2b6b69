"""A car's frame for the page: its g-g acceleration, laps, the surface at each wheel."""

import math

import pytest
from rally_sim.view.frames import car_facts, CarSample, CarTrack, rectangle
from rally_sim.view.ground import build
from test_ground import square

WHEELS = [[1.2, 0.7], [1.2, -0.7], [-1.3, 0.7], [-1.3, -0.7]]


def on_circle(t: float, speed: float, radius: float, sideslip: float = 0.0) -> CarSample:
    """Return a car going round a circle anticlockwise at constant speed (sideslip: turned in)."""
    a = speed * t / radius
    yaw = a + math.pi / 2 - sideslip
    return CarSample('car', t, radius * math.cos(a), radius * math.sin(a), yaw,
                     speed * math.cos(sideslip), speed * math.sin(sideslip), speed / radius)


@pytest.mark.parametrize('sideslip', [0.0, -0.4])
def test_steady_cornering_reads_the_centripetal_acceleration_in_the_body(sideslip):
    track, speed, radius = CarTrack(WHEELS), 10.0, 25.0
    for k in range(200):
        frame = track.frame(on_circle(0.01 * k, speed, radius, sideslip))
    centripetal = speed ** 2 / radius                   # toward the centre: left and forward
    assert frame['ax'] == pytest.approx(-centripetal * math.sin(sideslip), abs=1e-9)
    assert frame['ay'] == pytest.approx(centripetal * math.cos(sideslip), abs=1e-9)


def test_a_measured_acceleration_is_taken_and_smoothed():
    track = CarTrack(WHEELS)
    sample = on_circle(0.0, 10.0, 25.0)._replace(acceleration=(2.0, -1.0))
    assert track.frame(sample)['ax'] == 2.0                     # the first one as it is
    later = sample._replace(t=0.02, acceleration=(4.0, -1.0))
    assert track.frame(later)['ax'] == pytest.approx(2.0 + 0.25 * 2.0)   # 20 ms of an 80 ms lag


def test_the_surface_under_each_wheel_and_the_laps_on_a_path():
    ground = build({'gravel': square(-10.0, -10.0, 10.0), 'snow': square(0.0, -10.0, 10.0)})
    track = CarTrack(WHEELS)
    frame = track.frame(CarSample('car', 0.0, -0.05, -5.0, 0.0, 0.0, 0.0, 0.0), ground)
    assert [ground.names[k] for k in frame['surface']] == ['snow', 'snow', 'gravel', 'gravel']
    assert frame['lap'] is None and frame['reset'] is False
    track.reset()
    assert track.frame(on_circle(0.0, 1.0, 5.0))['reset'] is True


def test_facts_give_the_page_the_outline_wheels_and_a_colour_per_car():
    facts = car_facts('car2', 1, rectangle(2.0, 2.2, 0.9), WHEELS, 0.31, 'rival')
    assert facts['length'] == pytest.approx(4.2) and facts['colour'] != car_facts(
        'car1', 0, rectangle(2.0, 2.2, 0.9), WHEELS, 0.31)['colour']
    assert facts['wheels'] == WHEELS and facts['label'] == 'rival'
