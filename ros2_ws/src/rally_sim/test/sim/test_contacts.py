"""Contact in a session: found on the step it happens, the car halted, the other party named."""

import math

import numpy as np
import pytest
from rally_sim.physics import Surface, Vehicle
from rally_sim.sensors import load_profile
from rally_sim.sim import Front, Session, Start
from rally_sim.sim.session import DEFAULT_SETTINGS
from rally_sim.world.contact import wall_clearance
from rally_sim.world.occupancy import OccupancyMap
from rally_sim.world.scene import box
from support.vehicles import vehicle

COASTING = dict(DEFAULT_SETTINGS, command_timeout_s=0.0)     # no command, no watchdog brakes


class Told(Front):

    def __init__(self):
        self.contacts = []

    def touched(self, contact):
        self.contacts.append(contact)


def wall_at(x_m=20.0):
    """Return a 40 m x 20 m map from (-10, -10) at 0.1 m with a wall 0.2 m thick from x_m."""
    cells = np.zeros((200, 400), dtype=np.int8)
    first = round((x_m + 10.0) / 0.1)
    cells[:, first:first + 2] = 100
    return OccupancyMap(cells, 0.1, -10.0, -10.0, 0.0)


def session(cars, occupancy=None, contact='stop'):
    """Return a session of `cars` [(name, start)], V40s coasting on tarmac, and their fronts."""
    fronts = [Told() for _ in cars]
    made = None
    for (name, start), front in zip(cars, fronts):
        args = (Vehicle(vehicle('volvo_v40'), Surface.uniform()), load_profile('ideal'), 0)
        if made is None:
            made = Session(*args, start=start, front=front, name=name, settings=COASTING,
                           occupancy=occupancy, contact=contact)
        else:
            made.add_car(name, *args, start=start, front=front, settings=dict(COASTING))
    return made, fronts


def clearance(s, k=0):
    scene = s.scene
    row = box(s.cars[k].vehicle.state, scene.outlines[k])
    return wall_clearance(scene.blocked, scene.meta, row, 10.0)[0]


def test_a_car_driven_at_a_wall_halts_on_the_step_it_touches():
    s, (front,) = session([('ego', Start(0.0, 0.0, 0.0, 10.0))], wall_at(20.0))
    s.advance(5000)
    (contact,) = s.contacts.events
    assert front.contacts == [contact] and s.cars[0].halted is contact
    assert contact.car == 'ego' and contact.other == 'wall'
    assert contact.x == pytest.approx(20.05) and abs(contact.y) < 1.0
    step = contact.time_ns // s.step_ns
    assert 1500 < step < 2000                   # about 1.8 s at 10 m/s
    state = s.vehicle.state.copy()
    assert state[3:6].tolist() == [0.0, 0.0, 0.0]
    s.advance(500)                              # halted: it stays where it touched
    assert np.array_equal(s.vehicle.state, state)
    # the same run again, one step short: clear of the wall; the next step touches
    again, _ = session([('ego', Start(0.0, 0.0, 0.0, 10.0))], wall_at(20.0))
    again.advance(step - 1)
    assert not again.contacts.events and 0.0 < clearance(again) < 0.02
    # ... and until then the car ran as it runs with no wall at all, to the bit
    open_ground, _ = session([('ego', Start(0.0, 0.0, 0.0, 10.0))])
    open_ground.advance(step - 1)
    assert np.array_equal(again.vehicle.state, open_ground.vehicle.state)
    again.advance(1)
    assert again.contacts.events == [contact]
    # a restart frees it
    s.restart()
    assert s.cars[0].halted is None and s.vehicle.state[0] == 0.0
    s.advance(10)
    assert s.vehicle.state[0] > 0.0


def test_two_cars_head_on_halt_together_and_name_each_other():
    s, fronts = session([('red', Start(0.0, 0.0, 0.0, 8.0)),
                         ('blue', Start(30.0, 0.5, math.pi, 7.0))])
    s.advance(5000)
    red, blue = s.contacts.events
    assert (red.car, red.other, blue.car, blue.other) == ('red', 'blue', 'blue', 'red')
    assert red.time_ns == blue.time_ns and fronts[0].contacts == [red]
    assert fronts[1].contacts == [blue]
    assert 10.0 < red.x < 20.0 and abs(red.y) < 1.5
    gap = s.cars[1].vehicle.state[0] - s.cars[0].vehicle.state[0]
    assert 3.0 < gap < 5.0                      # about a car's length between their CGs


def test_a_car_that_starts_in_a_wall_or_on_another_car_is_refused():
    with pytest.raises(ValueError, match=r"car 'ego' starts at x = 19.000, y = 0.000 m where "
                                         r'its footprint overlaps a wall'):
        session([('ego', Start(19.0, 0.0))], wall_at(20.0))
    s, _ = session([('ego', Start(0.0, 0.0))])
    with pytest.raises(ValueError, match="car 'two' starts at x = 1.000.* overlaps car 'ego'"):
        s.add_car('two', Vehicle(vehicle('volvo_v40')), load_profile('ideal'), 0,
                  start=Start(1.0, 0.0))
    assert [car.name for car in s.cars] == ['ego'] and len(s.scene.cars) == 1
    with pytest.raises(ValueError, match=r"car 'ego' starts at x = 90.000, y = 0.000 m outside "
                                         r'the map \(.*\): start it on the map'):
        session([('ego', Start(90.0, 0.0))], wall_at(20.0))     # as /initialpose refuses it


def test_with_contact_off_a_car_drives_through():
    s, _ = session([('ego', Start(0.0, 0.0, 0.0, 10.0))], wall_at(20.0), contact='off')
    s.advance(3000)
    assert not s.contacts.events and s.vehicle.state[0] > 25.0
    with pytest.raises(ValueError, match="contact = 'bump' must be one of off, stop"):
        session([('ego', Start())], contact='bump')


def test_in_bounce_mode_a_car_driven_at_a_wall_comes_back_off_it_and_drives_on():
    from rally_sim.physics.model import VX
    from rally_sim.sim.bounce import RESTITUTION
    s, (front,) = session([('ego', Start(0.0, 0.0, 0.0, 10.0))], wall_at(20.0), 'bounce')
    before, _ = session([('ego', Start(0.0, 0.0, 0.0, 10.0))], wall_at(20.0), 'stop')
    before.advance(5000)
    (stopped,) = before.contacts.events
    s.advance(stopped.time_ns // s.step_ns - 1)
    speed = float(s.vehicle.state[VX])
    s.advance(1)                                  # the step it touches: struck
    (contact,) = s.contacts.events
    assert contact == stopped and front.contacts == [contact]
    assert s.cars[0].halted is None
    assert float(s.vehicle.state[VX]) == pytest.approx(-RESTITUTION * speed, rel=0.05)
    assert clearance(s) > 0.0                     # moved out of the wall
    s.advance(500)                                # and rolls back from it, touching nothing
    assert s.vehicle.state[0] < contact.x - 3.0 and len(s.contacts.events) == 1


def test_in_bounce_mode_two_cars_head_on_part_with_their_momentum():
    from rally_sim.physics.model import VX, VY, YAW
    s, fronts = session([('a', Start(0.0, 0.0, 0.0, 8.0)),
                         ('b', Start(12.0, 0.3, math.pi, 4.0))], contact='bounce')

    def momentum():
        return sum(car.vehicle.config['mass_kg'] * np.array([
            math.cos(car.vehicle.state[YAW]) * car.vehicle.state[VX]
            - math.sin(car.vehicle.state[YAW]) * car.vehicle.state[VY],
            math.sin(car.vehicle.state[YAW]) * car.vehicle.state[VX]
            + math.cos(car.vehicle.state[YAW]) * car.vehicle.state[VY]]) for car in s.cars)
    while not s.contacts.events:
        s.advance(1)
        if not s.contacts.events:
            last = momentum()
    assert sorted((c.car, c.other) for c in s.contacts.events) == [('a', 'b'), ('b', 'a')]
    assert [len(f.contacts) for f in fronts] == [1, 1]
    # the step's tyre forces aside (a millisecond of them), the bounce keeps the momentum
    assert momentum() == pytest.approx(last, abs=0.02 * np.linalg.norm(last))
    assert s.cars[0].vehicle.state[VX] < 8.0 and s.cars[1].vehicle.state[VX] < 4.0
    s.advance(300)
    assert all(car.halted is None for car in s.cars)


def test_the_safe_steps_are_the_most_in_which_no_point_can_cover_the_clearance():
    from rally_sim.sim.contacts import _reach, _steps
    rng = np.random.default_rng(20261126)
    for _ in range(2000):
        bound = (float(rng.uniform(0.0, 80.0)), float(rng.choice([0.0, rng.uniform(0.0, 400.0)])))
        if bound[0] + bound[1] == 0.0:
            continue
        clearance, dt = float(rng.uniform(0.0, 3.0)), float(rng.choice([1e-3, 2e-3, 1e-4]))
        n = _steps(bound, clearance, dt)
        assert n >= 0 and _reach(bound, n * dt) <= clearance, (bound, clearance, dt, n)
        assert _reach(bound, (n + 1) * dt) > clearance, (bound, clearance, dt, n)   # the most


def test_a_car_touching_already_has_no_safe_step_at_rest_or_moving():
    from rally_sim.sim.contacts import _steps
    for bound in ((0.0, 5.0), (0.0, 0.0), (3.0, 0.0), (3.0, 5.0)):
        assert _steps(bound, np.float64(0.0), 0.001) == 0       # was 0 / 0: NaN, a crash
    assert _steps((0.0, 5.0), np.float64(0.01), 0.001) == 63    # sqrt(2 x 0.01 / 5) s


def test_a_car_driving_into_a_maps_unknown_space_is_reported(caplog):
    from rally_sim.world.occupancy import load_map
    from support.maps import corridor_map
    import logging
    import tempfile
    corridors = load_map(corridor_map(tempfile.mkdtemp()))
    s, _ = session([('ego', Start(0.0, 0.0, 0.0, 3.0))], corridors, contact='off')
    with caplog.at_level(logging.WARNING, logger='rally_sim'):
        s.advance(500)                          # along the corridor: known ground
        assert s.reports.counters['unknown_space'] == 0 and not caplog.records
        s.teleport(3.5, 2.6, 0.0)               # the offices SLAM never saw
        s.advance(s.publish_every, until_state=True)
    assert s.reports.counters['unknown_space'] == 1
    (record,) = caplog.records
    assert record.getMessage().startswith(
        "car 'ego' drives into unknown space: at x = 3.50, y = 2.60 m it is in a cell the "
        'occupancy map does not know (neither free nor occupied) (')
    with pytest.raises(ValueError, match='outside the map'):     # off the map: refused
        s.teleport(30.0, 0.0, 0.0)
