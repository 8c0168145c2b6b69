"""The MPPI law: seeded, its costs, and a short closed loop on the simulator's own car."""

import numpy as np
import pytest

from rally_sim.control.mppi import Mppi, MppiSettings
from rally_sim.control.path import ClosedPath
from rally_sim.physics import Vehicle
from rally_sim.physics.config import load_vehicle
from rally_sim.physics.model import STATE_SIZE, VX, X, Y, YAW
from rally_sim.physics.surfaces import Surface
from rally_sim.physics.vehicle import Command
from rally_sim.resources import config_file, preset
from rally_sim.world.stages import read_path

SMALL = MppiSettings(samples=64, horizon=15)


@pytest.fixture(scope='module')
def stage():
    config = load_vehicle(preset('volvo_v40', 'vehicles', '.yaml'))
    surface = Surface.load(config_file('stages/rally_stage.yaml'))
    path = ClosedPath(read_path(config_file('stages/rally_stage_path.csv')))
    return config, surface, path


def on_the_line(config, surface, path, speed_m_s, offset_m=0.0, turn_rad=0.0):
    a, b = path.points[0], path.points[1]
    heading = np.arctan2(*(b - a)[::-1])
    normal = np.array([-np.sin(heading), np.cos(heading)])
    car = Vehicle(config, surface)
    car.reset(*(a + offset_m * normal), heading + turn_rad, speed_m_s)
    return car


def test_the_same_states_give_the_same_commands(stage):
    car = on_the_line(*stage, 8.0)
    first, second = Mppi(*stage, SMALL), Mppi(*stage, SMALL)
    for _ in range(3):
        a, b = first.command(car.state), second.command(car.state)
        assert a[0] == b[0] and np.array_equal(a[3], b[3])


def test_costs_reward_progress_and_punish_leaving_the_road(stage):
    mppi = Mppi(*stage, SMALL)
    car = on_the_line(*stage, 10.0)
    start = car.state.copy()
    states = np.repeat(start[None, None], 3, axis=0).repeat(SMALL.horizon, axis=1)
    ahead = mppi.field.points_ahead(0.0, 0.5 * np.arange(1, SMALL.horizon + 2))
    along = np.diff(ahead, axis=0)
    heading = np.arctan2(along[:, 1], along[:, 0])
    for sample in (1, 2):                       # 10 m/s along the line
        states[sample, :, X:Y + 1] = ahead[:-1]
        states[sample, :, YAW] = heading
    half = SMALL.horizon // 2                   # sample 2 leaves the road half-way
    states[2, half:, X] -= 5.0 * np.sin(heading[half:])
    states[2, half:, Y] += 5.0 * np.cos(heading[half:])
    costs = mppi.costs(start, states, np.array([True, True, True]))
    assert costs[1] < costs[0] < costs[2]
    assert mppi.costs(start, states, np.array([True, False, True]))[1] == np.inf


def test_it_steers_back_toward_the_line(stage):
    for side in (-1.0, 1.0):
        car = on_the_line(*stage, 8.0, offset_m=2.0 * side)
        mppi = Mppi(*stage, SMALL)
        for _ in range(5):
            steer, *_ = mppi.command(car.state)
        assert np.sign(steer) == -side


def test_a_short_closed_loop_speeds_up_along_the_line(stage):
    config, surface, path = stage
    car = on_the_line(config, surface, path, 0.0)
    mppi = Mppi(config, surface, path, MppiSettings(samples=128, horizon=20))
    worst = 0.0
    for _ in range(60):                                  # 3 s
        steer, drive, brake, _ = mppi.command(car.state)
        car.set_command(Command(steer_rad=steer, drive_torque_n_m=drive,
                                brake_torque_n_m=brake))
        car.advance(5, 0.01)
        worst = max(worst, abs(path.locate(car.state[X], car.state[Y]).cross_track_m))
    assert car.state[VX] > 5.0 and worst < 1.0
    assert car.state.shape == (STATE_SIZE,)


def test_with_actuator_delays_every_future_starts_with_the_commands_in_flight(stage):
    config, surface, path = stage
    delayed = config.with_overrides({'actuation.steer.delay_s': 0.2})
    car = on_the_line(delayed, surface, path, 8.0)
    mppi = Mppi(delayed, surface, path, SMALL)
    for calls in range(1, 7):
        mppi.command(car.state)
        # 0.2 s at the model's 0.01 s: the last 4 commands of 0.05 s are on their way
        assert mppi.sent.pending() == min(calls, 4), calls
    # what is in flight decides the futures: hard left in flight, another command
    left = Mppi(delayed, surface, path, SMALL)
    steer_max = delayed['steering.max_angle_rad']
    for _ in range(4):
        left._send(steer_max, np.zeros(4), np.zeros(4))
    straight = Mppi(delayed, surface, path, SMALL)
    assert left.command(car.state)[0] < straight.command(car.state)[0]  # it steers against it
