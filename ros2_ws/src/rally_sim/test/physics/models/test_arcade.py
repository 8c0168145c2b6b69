"""The arcade bicycle (reference 000) against its equations and against physics."""

import math
import random

import numpy as np
import pytest

from rally_sim.physics import Command, ConfigError, Surface, Vehicle
from rally_sim.physics.config import VehicleConfig
from rally_sim.physics.model import C_STEER, COMMAND_SIZE, STEER, VX, VY, X, Y, YAW, YAW_RATE
from rally_sim.physics.models.arcade import steer_target
from support.vehicles import vehicle

GROUP_B = vehicle('arcade_group_b')       # 1200 kg, 1.2 m / 1.2 m, k 5.5 / 5.0, mu 1.0
WEIGHT = 1200.0 * 9.81


def car_at(speed, config=GROUP_B, **state):
    car = Vehicle(config)
    car.reset(vx=speed, **state)
    return car


def test_cornering_force_is_linear_in_slip_angle_below_its_cap():
    car = car_at(20.0, vy=0.3)               # 0.3 m/s sideways at 20 m/s: 0.015 rad
    car.step(1e-9)
    wheels = car.wheels()
    for k, stiffness in ((0, 5.5), (1, 5.0)):
        load = 2 * wheels.normal_load_n[2 * k]
        alpha = wheels.slip_angle_rad[2 * k]
        assert alpha == pytest.approx(math.atan(0.3 / 20.0), rel=1e-6)
        assert 2 * wheels.force_y_n[2 * k] == pytest.approx(-stiffness * alpha * load,
                                                            rel=1e-9)
    assert wheels.normal_load_n.sum() == pytest.approx(WEIGHT, rel=1e-12)


def test_lateral_force_never_exceeds_its_cap():
    rng = random.Random(3)
    car = car_at(25.0)
    car.surface = Surface.uniform('gravel')
    for _ in range(400):
        car.set_command(Command(steer_rad=rng.uniform(-0.5, 0.5),
                                drive_torque_n_m=[rng.uniform(-720, 720)] * 2
                                + [rng.uniform(-1080, 1080)] * 2,
                                handbrake=rng.choice([0.0, 0.0, 1.0])))
        car.step(0.02)
        wheels = car.wheels()
        assert np.all(np.abs(wheels.force_y_n) <= wheels.friction * wheels.normal_load_n + 1e-9)
        assert np.all(wheels.normal_load_n >= 0.0)
    assert np.all(np.isfinite(car.state))


def test_with_the_friction_circle_drive_and_cornering_share_an_axles_grip():
    # Not in reference 000 (its caps are separate): arcade.friction_circle, so that throttle
    # in a corner breaks the rear away (issue 60: power oversteer did not emerge without it).
    rng = random.Random(5)
    circled = GROUP_B.with_overrides({'arcade.friction_circle': True})
    for _ in range(200):
        vy, drive = rng.uniform(-3.0, 3.0), rng.uniform(-1500.0, 1500.0)
        command = Command(drive_torque_n_m=[0.0, 0.0, drive, drive])
        car, plain = car_at(20.0, circled, vy=vy), car_at(20.0, vy=vy)
        for c in (car, plain):
            c.set_command(command)
            c.step(1e-9)
        w, p = car.wheels(), plain.wheels()
        load, mu = 2 * w.normal_load_n[2], w.friction[2]
        fx, fy = 2 * w.force_x_n[2], 2 * w.force_y_n[2]
        assert fx == pytest.approx(2 * p.force_x_n[2], abs=1e-6)         # drive: as before
        cap = math.sqrt(max((mu * load) ** 2 - fx ** 2, 0.0))
        unsaturated = -5.0 * w.slip_angle_rad[2] * load                  # k alpha F_z
        assert fy == pytest.approx(min(max(unsaturated, -cap), cap), abs=1e-6)
        assert math.hypot(fx, fy) <= mu * load * (1.0 + 1e-12)
        assert abs(2 * p.force_y_n[2]) >= abs(fy) - 1e-9                # never more grip


def test_weight_transfer_under_braking():
    car = car_at(20.0)
    car.set_command(Command(brake_torque_n_m=[300.0, 300.0, 200.0, 200.0]))
    car.step(0.002)
    wheels = car.wheels()
    decel = -car.specific_force_m_s2()[0]
    assert decel > 3.0
    front = 2 * wheels.normal_load_n[0]
    assert front == pytest.approx(WEIGHT / 2 + 1200.0 * decel * 0.5 / 2.4, rel=0.02)


def test_a_handbrake_pull_makes_the_rear_slide():
    def turn(handbrake):
        car = car_at(15.0)                    # 0.04 rad: about 0.4 g, well within grip
        car.set_command(Command(steer_rad=0.04))
        car.step(1.0)
        car.set_command(Command(steer_rad=0.04, handbrake=handbrake))
        car.step(0.5)
        return car
    grip, pulled = turn(0.0), turn(1.0)
    assert abs(pulled.wheels().slip_angle_rad[2]) > 0.2 > 0.1 > abs(
        grip.wheels().slip_angle_rad[2])
    assert pulled.state[YAW_RATE] > 1.5 * grip.state[YAW_RATE]      # the tail comes round
    body_slip = abs(math.atan2(pulled.state[VY], pulled.state[VX]))
    assert body_slip > 0.3


@pytest.mark.parametrize('vx, vy, yaw_rate', [(1.0, 0.0, 0.0), (-1.0, 0.3, 0.2),
                                              (0.6, -0.8, -0.5)])
def test_the_car_stops_dead_from_1_m_s_without_creep(vx, vy, yaw_rate):
    car = car_at(vx, vy=vy, yaw_rate=yaw_rate)
    car.set_command(Command(brake_torque_n_m=[300.0] * 4))
    trace = []
    for _ in range(300):
        car.step(0.01)
        trace.append(car.state[[VX, VY, YAW_RATE]].copy())
    trace = np.array(trace)
    assert np.all(trace[:, 0] * vx >= 0.0)                        # the brakes never reverse it
    for column in range(3):       # no chatter: sideways and yaw decay with one crossing at most
        signs = np.sign(trace[np.abs(trace[:, column]) > 1e-12, column])
        assert np.count_nonzero(np.diff(signs)) <= 1, column
    assert trace[-1, 0] == 0.0
    assert np.all(np.abs(trace[100:, 1:]) < 1e-6)                 # at rest within 1 s
    held = car.state[[X, Y, YAW]].copy()
    car.step(5.0)
    assert np.all(np.abs(car.state[[X, Y, YAW]] - held) < 1e-6)   # no creep


def test_steering_shrinks_with_speed_and_the_assist_counter_steers():
    slow, fast = car_at(0.0), car_at(40.0)
    for car in (slow, fast):
        car.set_command(Command(steer_rad=0.5))
        car.step(0.02)
    assert slow.state[STEER] == pytest.approx(3.0 * 0.02, rel=1e-9)       # 3 rad/s
    assert fast.state[STEER] == pytest.approx(3.0 * 0.3 * 0.02, rel=0.01)  # 70 % less at 40
    state = fast.state.copy()
    state[[VX, VY, YAW_RATE]] = (40.0, 0.0, 0.0)
    command = np.zeros(COMMAND_SIZE)
    command[C_STEER] = 0.5
    assert steer_target(state, command, fast.flat_params) == pytest.approx(0.5 * 0.3)
    # The rear slides out to the left-hand turn's outside: body slip < 0, yaw rate > 0.
    assisted = car_at(15.0, GROUP_B.with_overrides({'arcade.counter_steer_assist': 1.0}),
                      vy=-4.0, yaw_rate=1.0)
    plain = car_at(15.0, vy=-4.0, yaw_rate=1.0)
    for car in (assisted, plain):
        car.set_command(Command(steer_rad=0.2))
        car.step(0.1)
    assert plain.state[STEER] > 0.0 > assisted.state[STEER]


def test_an_arcade_file_is_checked_for_its_model():
    with pytest.raises(ConfigError, match="'dt' = 0.01 is too long .* at most 0.00"):
        GROUP_B.with_overrides({'dt': 0.01})
    with pytest.raises(ConfigError, match="'low_speed_m_s' = 0.0 must be at least 0.05"):
        GROUP_B.with_overrides({'low_speed_m_s': 0.0})
    with pytest.raises(ConfigError, match="tyres.front.B not used by model 'arcade_bicycle'"):
        GROUP_B.with_overrides({'tyres.front.B': 10.0})
    values = {key: GROUP_B[key] for key in GROUP_B.given
              if key != 'arcade.cornering_stiffness_front_per_rad'}
    with pytest.raises(ConfigError, match='missing key.*cornering_stiffness_front'):
        VehicleConfig.of(values)
