"""A seeded fuzz of the session: bad commands, resets and teleports anywhere never break it."""

import math
import os

import numpy as np
import pytest
from rally_sim.control.interface import Ackermann, WheelTorques
from rally_sim.physics import Surface, Vehicle
from rally_sim.sensors import load_profile
from rally_sim.sim import Front, Session, Start
from rally_sim.sim.session import DEFAULT_SETTINGS
from rally_sim.world.occupancy import load_map
from support.vehicles import vehicle, VEHICLES

TRACK_MAP = os.path.join(VEHICLES, '..', 'stages', 'track_map.yaml')
TRACK_PATH = os.path.join(VEHICLES, '..', 'stages', 'track_path.csv')
PERIODS = 1200
"""Control periods of 25 ms per case: 4,800 in the four cases."""
SEED = 4711
HUGE = (math.nan, math.inf, -math.inf, 1e300, -1e300, 1e9)


class Checked(Front):
    """A front end that keeps every non-finite output and physics failure it is handed."""

    def __init__(self):
        self.bad = []
        self.instants = 0

    def emit(self, now_ns, publish, markers, delivered) -> bool:
        for m in delivered:
            for name, values in m.values.items():
                values = np.asarray(values, dtype=float)
                ok = np.isfinite(values) | ((values == math.inf) if m.channel == 'lidar'
                                            else False)           # a beam with no return
                if not np.all(ok):
                    self.bad.append((now_ns, m.channel, name))
        self.instants += publish
        return publish

    def failed(self, error) -> None:
        self.bad.append(('physics failed', str(error)))


def on_path(index: int) -> Start:
    """Return a start at rest on the track's centre line, at one of its points, along it."""
    path = np.loadtxt(TRACK_PATH, delimiter=',', skiprows=1)
    (x0, y0), (x1, y1) = path[index], path[(index + 1) % len(path)]
    return Start(float(x0), float(y0), math.atan2(y1 - y0, x1 - x0))


def track_session(cars: int, contact: str):
    """Return F1TENTH cars on the track's map, lidar on (profile f1tenth), speed mode."""
    occupancy = load_map(TRACK_MAP)
    fronts = [Checked() for _ in range(cars)]
    settings = dict(DEFAULT_SETTINGS, command_mode='speed')
    starts = [on_path(0), on_path(60)]
    session = Session(Vehicle(vehicle('f1tenth'), Surface.uniform('tarmac_dry')),
                      load_profile('f1tenth'), 1, publish_rate_hz=40.0, settings=settings,
                      start=starts[0], front=fronts[0], name='ego', occupancy=occupancy,
                      contact=contact)
    for k in range(1, cars):
        session.add_car(f'car{k}', Vehicle(vehicle('f1tenth'), Surface.uniform('tarmac_dry')),
                        load_profile('f1tenth'), 1 + k, settings=dict(settings),
                        start=starts[k], front=fronts[k])
    return session, fronts, occupancy


def fuzzed_command(rng: np.random.Generator):
    """Return a command: mostly plausible, sometimes non-finite or huge in any field."""
    if rng.random() < 0.5:
        fields = [rng.uniform(-0.6, 0.6), rng.uniform(-5.0, 5.0), rng.uniform(-2.0, 9.0),
                  rng.uniform(-20.0, 20.0), 0.0]
        if rng.random() < 0.2:
            fields[int(rng.integers(5))] = HUGE[int(rng.integers(len(HUGE)))]
        return Ackermann(*fields)
    drive = list(rng.uniform(-1.0, 1.0, 4))
    brake = list(rng.uniform(0.0, 1.0, 4))
    if rng.random() < 0.2:
        (drive if rng.random() < 0.5 else brake)[int(rng.integers(4))] = HUGE[
            int(rng.integers(len(HUGE)))]
    return WheelTorques(drive, brake, float(rng.choice([0.0, 1.0, math.nan, 1e9])))


def random_pose(rng: np.random.Generator, session, occupancy):
    """Return a pose anywhere: in the map, off it, in walls, or on another car."""
    if len(session.cars) > 1 and rng.random() < 0.2:
        other = session.cars[-1].vehicle.state
        return float(other[0]), float(other[1]), float(other[2])
    rows, cols = occupancy.cells.shape
    width, height = cols * occupancy.resolution_m, rows * occupancy.resolution_m
    return (occupancy.origin_x_m + rng.uniform(-0.1, 1.1) * width,
            occupancy.origin_y_m + rng.uniform(-0.1, 1.1) * height, rng.uniform(-4.0, 4.0))


@pytest.mark.parametrize('cars,contact', [(1, 'stop'), (1, 'bounce'), (2, 'stop'),
                                          (2, 'bounce')])
def test_fuzzed_commands_resets_and_teleports_never_break_the_session(cars, contact):
    rng = np.random.default_rng([SEED, cars, len(contact)])
    session, fronts, occupancy = track_session(cars, contact)
    counts = dict.fromkeys(('teleports', 'refused', 'resets'), 0)
    for _ in range(PERIODS):
        draw = rng.random()
        car = session.cars[int(rng.integers(cars))]
        if draw < 0.06:
            counts['teleports'] += 1
            try:
                before = car.vehicle.state.copy()
                car.teleport(*random_pose(rng, session, occupancy))
            except ValueError as error:
                counts['refused'] += 1
                assert 'cannot be put at' in str(error)
                assert np.array_equal(car.vehicle.state, before)    # it stays where it was
        elif draw < 0.08:
            counts['resets'] += 1
            session.reset()
        else:
            car.take(fuzzed_command(rng))
        session.advance(session.publish_every, until_state=True)
        for c in session.cars:
            assert np.all(np.isfinite(c.vehicle.state)), c.vehicle.state
    assert [f.bad for f in fronts] == [[] for _ in fronts]
    assert fronts[0].instants >= PERIODS
    assert counts['refused'] >= 10 and counts['teleports'] - counts['refused'] >= 5, counts
    assert session.reports.counters['non_finite'] > 0


def test_a_teleport_into_a_wall_off_the_map_or_onto_a_car_is_refused_and_changes_nothing():
    session, _, _ = track_session(2, 'stop')
    session.advance(100)
    state = session.vehicle.state.copy()
    with pytest.raises(ValueError, match=r"car 'ego' cannot be put at x = 18.020, y = 0.000 "
                                         r'm, yaw = 0.000 rad: its footprint would overlap a '
                                         r'wall'):
        session.teleport(18.02, 0.0, 0.0)       # issue 47: crashed the node at the next step
    with pytest.raises(ValueError, match=r'x = 100.000, y = 0.000 m.*outside the map \('):
        session.teleport(100.0, 0.0, 0.0)
    other = on_path(60)
    with pytest.raises(ValueError, match="overlap car 'car1'"):
        session.teleport(other.x + 0.1, other.y, other.yaw + 0.5)
    assert np.array_equal(session.vehicle.state, state)
    session.advance(100)                        # and it runs on
    free = on_path(-60)
    session.teleport(free.x, free.y, free.yaw)
    assert session.vehicle.state[:3].tolist() == [free.x, free.y, free.yaw]
