"""The person at the wheel: a controller's commands, on our cars and on random ones."""

import math

import numpy as np
import pytest
from rally_sim.control.interface import GEAR_AUTOMATIC
from rally_sim.drive import Assists, CarFacts, Inputs, Person
from rally_sim.drive.person import DrivenState, top_speed_m_s
from rally_sim.drive.steering import stick
from rally_sim.physics import load_vehicle, Vehicle
from rally_sim.physics.config import from_mapping
from rally_sim.physics.vehicle import Command, DriverCommand
from rally_sim.resources import vehicle_path
from support.random_cars import random_car

STILL = DrivenState(0.0, 0.0, 0.0, (0.0,) * 4)


def facts(name: str) -> CarFacts:
    return CarFacts.of(load_vehicle(vehicle_path(name)))


def test_facts_of_our_cars():
    rwd = facts('rwd_gravel')
    assert (rwd.mode, rwd.gears, rwd.driven) == ('driver', 5, (False, False, True, True))
    assert rwd.lock_rad == 0.6
    # top speed: the rev limit in fifth gear through the final drive, at the wheel's rim
    assert rwd.top_speed_m_s == pytest.approx(7800 * 2 * math.pi / 60 / (1.05 * 4.1) * 0.31)
    assert facts('fwd_hatchback').driven == (True, True, False, False)
    assert facts('awd_group_a').driven == (True,) * 4
    v40 = facts('volvo_v40')                              # no drivetrain: wheel torques
    assert (v40.mode, v40.gears, v40.driven) == ('torque', 0, (False, False, True, True))
    assert v40.drive_n_m == (0.0, 0.0, 2000.0, 2000.0)
    assert v40.brake_n_m == (2500.0, 2500.0, 1500.0, 1500.0)
    config = load_vehicle(vehicle_path('volvo_v40'))      # drag eats the drive at 167 m/s
    assert math.sqrt(2 * 2000.0 / 0.327 / 0.44) > 40.0
    assert top_speed_m_s(config) == 40.0                  # no power limit: a rally car's
    slow = config.with_overrides({'drive.max_torque_rear_n_m': 100.0})
    assert top_speed_m_s(slow) == pytest.approx(math.sqrt(2 * 100.0 / 0.327 / 0.44))


def test_pedals_gears_and_the_automatic_gearbox():
    person = Person(facts('rwd_gravel'))
    person.take(Inputs('keyboard', 0.0, 1.0, 0.0, 0.5))
    pedals = person.command(STILL, 0.01).pedals
    assert (pedals.throttle, pedals.brake, pedals.handbrake, pedals.gear) == (1.0, 0.0, 0.5, 1)
    assert [person.shift(False) for _ in range(3)] == [0, -1, -1]      # N, R, and no lower
    assert person.gear_name() == 'R' and person.command(STILL, 0.0).pedals.gear == -1
    assert [person.shift(True) for _ in range(7)] == [0, 1, 2, 3, 4, 5, 5]
    person.assists = Assists(automatic_gearbox=True)
    assert person.command(STILL, 0.0).pedals.gear == GEAR_AUTOMATIC
    assert person.gear_name() == 'A'


def test_wheel_torques_for_a_car_without_a_drivetrain():
    person = Person(facts('volvo_v40'))
    person.take(Inputs('keyboard', 0.0, 1.0, 0.25, 1.0))
    command = person.command(STILL, 0.01)
    assert command.pedals is None
    assert list(command.torques.drive_torque) == [0.0, 0.0, 2000.0, 2000.0]
    assert list(command.torques.brake_torque) == [625.0, 625.0, 375.0, 375.0]
    assert command.torques.handbrake == 1.0
    assert person.shift(False) == -1 and person.gear_name() == 'R'     # no neutral: R or D
    assert list(person.command(STILL, 0.0).torques.drive_torque) == [0.0, 0.0, -2000.0,
                                                                     -2000.0]
    assert person.shift(True) == 1 and person.gear_name() == 'D'


def test_the_stick_steers_directly_and_speed_sensitively_with_the_assist():
    car = facts('rwd_gravel')
    person = Person(car, dead_zone=0.1, curve=2.0)
    person.take(Inputs('gamepad', 0.6))
    moving = DrivenState(30.0, 0.0, 0.0, (0.0,) * 4)
    assert person.command(moving, 0.01).steer_rad == pytest.approx(stick(0.6, 0.1, 2.0) * 0.6)
    person.assists = Assists(speed_sensitive_steering=True)
    slower = person.command(moving, 0.01).steer_rad
    assert slower == pytest.approx(stick(0.6, 0.1, 2.0) * 0.6
                                   * (1 - 0.7 * min(30.0 / car.top_speed_m_s, 1.0)))


def test_abs_and_traction_control_act_on_the_pedals():
    person = Person(facts('rwd_gravel'), Assists(abs=True, traction_control=True))
    person.take(Inputs('keyboard', 0.0, 1.0, 1.0))
    spinning_and_locking = DrivenState(15.0, 0.0, 0.0, (-0.6, 0.0, 0.5, 0.5))
    for _ in range(20):
        pedals = person.command(spinning_and_locking, 0.01).pedals
    assert pedals.brake < 0.05 and pedals.throttle < 0.05
    for _ in range(50):
        pedals = person.command(DrivenState(15.0, 0.0, 0.0, (0.0,) * 4), 0.01).pedals
    assert pedals.brake == 1.0 and pedals.throttle == 1.0


@pytest.mark.parametrize('seed', range(8))
def test_random_cars_take_the_person_s_commands_within_their_limits(seed):
    """Seeded random rear-drive cars, 1/10 scale to rally cars: nothing is clamped."""
    tree, _, mode = random_car(seed)
    if mode == 'torque':
        tree = {k: v for k, v in tree.items() if k not in (
            'drivetrain', 'engine', 'gearbox', 'clutch', 'differential')}
    config = from_mapping(tree)
    car = CarFacts.of(config)
    assert car.mode == mode
    vehicle = Vehicle(config)
    person = Person(car, Assists(counter_steer=3.0, abs=True, traction_control=True))
    rng = np.random.default_rng(seed)
    for k in range(200):
        person.take(Inputs('gamepad' if k % 2 else 'keyboard', float(rng.uniform(-1, 1)),
                           float(rng.uniform(0, 1)), float(rng.uniform(0, 1)),
                           float(rng.uniform(0, 1))))
        if k % 37 == 0:
            person.shift(bool(rng.integers(2)))
        state = DrivenState(*rng.normal(0.0, 5.0, 3), rng.normal(0.0, 0.3, 4))
        c = person.command(state, 0.01)
        assert abs(c.steer_rad) <= car.lock_rad + 1e-12
        if c.pedals is not None:
            p = c.pedals
            notes = vehicle.set_command(DriverCommand(c.steer_rad, 0.0, p.throttle, p.brake,
                                                      p.handbrake, p.gear))
        else:
            t = c.torques
            notes = vehicle.set_command(Command(c.steer_rad, 0.0, np.array(t.drive_torque),
                                                np.array(t.brake_torque), t.handbrake))
        assert notes == [], (seed, k, notes)
