"""A session of several cars: one clock, each car its own intake, sensors and front end."""

import math

import numpy as np
import pytest
from rally_sim.control.interface import Ackermann, WheelTorques
from rally_sim.physics import Surface, Vehicle
from rally_sim.physics.model import C_BRAKE, C_DRIVE, C_STEER
from rally_sim.sensors import load_profile
from rally_sim.sim import Front, Session, Start
from rally_sim.sim.session import DEFAULT_SETTINGS
from support.vehicles import vehicle

SURFACE = Surface.uniform('gravel')


class Kept(Front):
    """A front end that keeps what it is given."""

    def __init__(self):
        self.instants = []
        self.failures = []

    def emit(self, now_ns, publish, markers, delivered):
        self.instants.append((now_ns, publish, [(m.channel, m.stamp_ns, {
            k: v.tolist() for k, v in m.values.items()}) for m in delivered]))
        return publish

    def failed(self, error):
        self.failures.append(str(error))


CARS = [  # name, vehicle, profile, seed, start, commands (command mode torque)
    ('ego', 'volvo_v40', 'typical', 3, Start(0.0, 0.0, 0.0, 8.0),
     [Ackermann(0.05, 0.0, 0.0, 0.0), WheelTorques([0.0, 0.0, 150.0, 150.0], [0.0] * 4)]),
    ('opponent', 'rwd_gravel', 'ideal', 0, Start(20.0, 5.0, 1.0, 12.0),
     [Ackermann(-0.1, 0.0, 0.0, 0.0), WheelTorques([0.0, 0.0, 400.0, 400.0], [0.0] * 4)]),
]


def run(cars, steps=1234):
    """Run `cars` in one session; return each car's front and final state."""
    fronts = [Kept() for _ in cars]
    session = None
    for (name, preset, profile, seed, start, commands), front in zip(cars, fronts):
        args = (Vehicle(vehicle(preset), SURFACE), load_profile(profile), seed)
        settings = dict(DEFAULT_SETTINGS, command_timeout_s=0.0)    # commands held throughout
        if session is None:
            session = Session(*args, start=start, front=front, name=name, settings=settings)
            car = session.cars[0]
        else:
            car = session.add_car(name, *args, start=start, front=front, settings=settings)
        for command in commands:
            car.take(command)
    session.at_step(publish=True)
    session.advance(steps)
    return session, fronts


def test_each_car_in_a_shared_session_runs_as_it_runs_alone_bit_for_bit():
    # The typical profile's sensors stop the clock at instants the ideal one has no
    # event at: the other car takes its steps in other chunks, and must not notice.
    together, fronts = run(CARS)
    assert [car.name for car in together.cars] == ['ego', 'opponent']
    stops_alone = []
    for k, spec in enumerate(CARS):
        alone, (front,) = run([spec])
        stops_alone.append(len(front.instants))
        assert together.cars[k].vehicle.state.tolist() == alone.vehicle.state.tolist()
        measured = [i for i in fronts[k].instants if i[2]]
        assert measured == [i for i in front.instants if i[2]]
        published = [i[0] for i in fronts[k].instants if i[1]]
        assert published and published == [i[0] for i in front.instants if i[1]]
    # the first car's measurements are the typical profile's; the ideal profile measures
    # with the outputs only (the truth, published), so nothing is delivered between
    channels = {m[0] for i in fronts[0].instants for m in i[2]}
    assert 'imu' in channels and not [m for i in fronts[1].instants for m in i[2]]
    assert len(fronts[1].instants) == len(fronts[0].instants) > stops_alone[1]
    assert together.sim_steps == 1234 and together.vehicle is together.cars[0].vehicle
    ego, opponent = (car.vehicle.state for car in together.cars)
    assert math.hypot(ego[0] - opponent[0], ego[1] - opponent[1]) > 5.0


def test_a_second_car_of_the_same_name_is_refused():
    session, _ = run(CARS[:1], steps=0)
    with pytest.raises(ValueError, match="a car named 'ego' is in the session already"):
        session.add_car('ego', Vehicle(vehicle('volvo_v40'), SURFACE), load_profile('ideal'), 0)


def test_reset_restarts_every_car_and_teleport_moves_the_first_only():
    session, _ = run(CARS, steps=500)
    assert session.cars[0].vehicle.command[C_STEER] == pytest.approx(0.05)
    session.teleport(-3.0, 4.0, 0.5)
    ego, opponent = (car.vehicle.state for car in session.cars)
    assert ego[:3].tolist() == [-3.0, 4.0, 0.5] and ego[3] == 0.0
    moved = session.cars[0]                         # its actuators reset: wheels straight
    assert moved.vehicle.command[C_STEER] == 0.0 and moved.intake.steer_rad == 0.0
    assert np.all(moved.vehicle.command[C_DRIVE:C_DRIVE + 4] == 0.0)
    assert opponent[3] > 5.0                        # the opponent drives on
    session.cars[1].teleport(1.0, 2.0, 3.0)
    assert opponent[:3].tolist() == [1.0, 2.0, 3.0] and ego[:3].tolist() == [-3.0, 4.0, 0.5]
    session.reset()
    assert [car.vehicle.state[:4].tolist() for car in session.cars] == [
        [0.0, 0.0, 0.0, 8.0], [20.0, 5.0, 1.0, 12.0]]
    assert all(np.all(car.intake.drive == 0.0) for car in session.cars)


def test_a_car_whose_physics_fails_is_named_to_the_front_end():
    session, fronts = run(CARS, steps=0)
    session.cars[1].vehicle.state[3] = np.inf       # as a corrupted state would be
    session.advance(100)
    assert len(fronts[0].failures) == 1 and "car 'opponent'" in fronts[0].failures[0]


def test_the_watchdog_brakes_a_small_car_with_its_own_brakes_without_a_clamp_warning(caplog):
    config = vehicle('f1tenth')         # brakes of well under the default 1000 N m a wheel
    session = Session(Vehicle(config, SURFACE), load_profile('ideal'), 0,
                      start=Start(0.0, 0.0, 0.0, 3.0), front=Kept())
    car = session.cars[0]
    assert np.all(car.vehicle.brake_limit < DEFAULT_SETTINGS['timeout_brake_torque_n_m'])
    with caplog.at_level('INFO', logger='rally_sim'):
        session.at_step(publish=True)
        session.advance(round(1.0 / session.dt))       # no command yet: the watchdog at 0.5 s
        assert car.vehicle.command[C_BRAKE:C_BRAKE + 4].tolist() == \
            car.vehicle.brake_limit.tolist()
        car.take(Ackermann(0.0, 0.0, 0.0, 0.0))
        session.advance(round(1.0 / session.dt))       # a first command, then none: cut
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert said[:3] == [
        ('INFO', 'no command yet (0.5 s of simulated time): brakes on until the first '
                 '(command_timeout_s)'),
        ('INFO', 'a first command: brakes off'),
        ('WARNING', 'no command for 0.5 s of simulated time: drive cut, brakes on')], said
    assert not any('clamped' in m for _, m in said), said
    assert car.vehicle.command[C_BRAKE:C_BRAKE + 4].tolist() == car.vehicle.brake_limit.tolist()


def test_each_car_s_warnings_name_it_and_hide_no_other_car_s(caplog):
    session = Session(Vehicle(vehicle('volvo_v40'), SURFACE), load_profile('ideal'), 0,
                      start=Start(0.0, 0.0, 0.0, 3.0), front=Kept(), name='car1')
    session.add_car('car2', Vehicle(vehicle('rwd_gravel'), SURFACE), load_profile('ideal'), 1,
                    start=Start(0.0, 10.0, 0.0, 3.0), front=Kept())
    with caplog.at_level('WARNING', logger='rally_sim'):
        for car in session.cars:        # beyond each car's steering: clamped, both warned
            car.take(Ackermann(3.0, 0.0, 0.0, 0.0))
        session.at_step(publish=True)
        session.advance(round(1.0 / session.dt))       # then no command: each watchdog
    said = [r.getMessage() for r in caplog.records]
    for name in ('car1', 'car2'):
        assert any(m.startswith(f"car '{name}': command clamped") for m in said), said
        assert any(m.startswith(f"car '{name}': no command for 0.5 s") for m in said), said
    assert session.reports.counters['clamped'] >= 2     # one count for the node
