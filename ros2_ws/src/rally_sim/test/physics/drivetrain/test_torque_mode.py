"""Torque mode's drive (issue 59, item 6): a differential per axle and a motor's limits."""

import math

import numpy as np
import pytest

from rally_sim.physics import Vehicle
from rally_sim.physics.batch.rollouts import Batch
from rally_sim.physics.config import ConfigError
from rally_sim.physics.drivetrain.torque_mode import limited_torques, SPEED_TAPER
from rally_sim.physics.model import C_DRIVE, COMMAND_SIZE, OMEGA, STATE_SIZE, VX
from rally_sim.physics.vehicle import Command
from support.vehicles import vehicle

DT = 0.001
RL, RR = 2, 3
REAR = slice(OMEGA + RL, OMEGA + RR + 1)


def v40(**overrides):
    """Return the rear-drive V40 with `torque_mode.` keys given without the prefix."""
    return Vehicle(vehicle('volvo_v40').with_overrides(
        {f'torque_mode.{key}': value for key, value in overrides.items()}))


def rear_kind(kind, **keys):
    return v40(**{'differential.rear.type': kind,
                  **{f'differential.rear.{k}': v for k, v in keys.items()}})


def limited(car, torques, omega):
    """Return limited_torques() of commanded rear torques at the rear wheels' speeds omega."""
    state = np.zeros(STATE_SIZE)
    state[REAR] = omega
    command = np.zeros(COMMAND_SIZE)
    command[C_DRIVE + RL:C_DRIVE + RR + 1] = torques
    out = np.zeros(4)
    limited_torques(state, command, car.flat_params, out)
    return out[RL:]


def test_an_axle_differential_takes_the_sum_of_the_commanded_torques_half_each():
    for kind in ('open', 'locked', 'clutch_pack', 'torque_bias'):
        np.testing.assert_array_equal(limited(rear_kind(kind), (600.0, 200.0), (3.0, 4.0)),
                                      [400.0, 400.0])
    np.testing.assert_array_equal(limited(v40(max_power_w=1e6), (600.0, 200.0), (3.0, 4.0)),
                                  [600.0, 200.0])


def test_the_speed_limit_fades_drive_torque_over_the_last_two_percent_only():
    car = v40(max_wheel_speed_rad_s=100.0)
    top = 100.0
    assert limited(car, (500.0, 500.0), (50.0, top * (1 - SPEED_TAPER))).tolist() == [
        500.0, 500.0]
    fade = limited(car, (500.0, 500.0), (0.0, top * (1 - SPEED_TAPER / 4)))
    assert fade[1] == pytest.approx(500.0 / 4, rel=1e-12)
    assert limited(car, (500.0, 500.0), (0.0, top + 1.0))[1] == 0.0
    # torque against the motion (slowing the wheel) is never cut; reverse drive is
    assert limited(car, (-500.0, -500.0), (top + 1.0, -top - 1.0)).tolist() == [-500.0, 0.0]
    # a differential's axle: the motor turns at the wheels' mean speed
    car = v40(max_wheel_speed_rad_s=100.0, **{'differential.rear.type': 'open'})
    assert limited(car, (500.0, 500.0), (150.0, 40.0)).tolist() == [500.0, 500.0]


def test_the_power_limit_scales_the_driving_torques_together():
    car = v40(max_power_w=20000.0)
    torques = limited(car, (800.0, 400.0), (30.0, 20.0))       # 32 kW asked for
    assert torques @ [30.0, 20.0] == pytest.approx(20000.0, rel=1e-12)
    assert torques[0] / torques[1] == pytest.approx(2.0, rel=1e-12)
    assert limited(car, (800.0, 400.0), (5.0, 5.0)).tolist() == [800.0, 400.0]   # 6 kW
    assert limited(car, (800.0, 400.0), (0.0, 0.0)).tolist() == [800.0, 400.0]   # stands
    # power out of the wheels (the motor braking) is limited likewise, on its own
    torques = limited(car, (-2000.0, 100.0), (30.0, 30.0))
    assert torques[0] * 30.0 == pytest.approx(-20000.0, rel=1e-12) and torques[1] == 100.0


def ice_under_the_right_rear(kind, seconds=2.0, **keys):
    """Return the car and each step's (state, drive torques), 600 and 200 N m asked for."""
    car = rear_kind(kind, **keys)
    car.tyre_mu[RR] = 0.05
    car.set_command(Command(drive_torque_n_m=(0.0, 0.0, 600.0, 200.0)))
    trace = []
    for _ in range(int(round(seconds / DT))):
        car.step(DT)
        trace.append((car.state.copy(), car.drivetrain().drive_torque_n_m))
    return car, trace


def test_independent_wheels_get_what_was_commanded():
    _, trace = ice_under_the_right_rear('independent')
    state, drive = trace[-1]
    assert drive.tolist() == [0.0, 0.0, 600.0, 200.0]
    assert state[OMEGA + RR] > 10.0 * state[OMEGA + RL]


def test_an_open_differential_lets_the_wheel_on_ice_spin_and_the_car_barely_moves():
    _, trace = ice_under_the_right_rear('open')
    state, drive = trace[-1]
    assert drive[RL] == drive[RR] == 400.0
    assert state[OMEGA + RR] > 30.0 * state[OMEGA + RL]
    _, independent = ice_under_the_right_rear('independent')
    assert state[VX] < independent[-1][0][VX]


def test_a_locked_differential_holds_equal_wheel_speeds_and_drives_through_the_gripping_wheel():
    _, trace = ice_under_the_right_rear('locked')
    state, drive = trace[-1]
    for state, drive in trace[100:]:    # within what a sub-step's prediction misses
        assert abs(state[OMEGA + RL] - state[OMEGA + RR]) < 5e-3
    assert drive[RL] + drive[RR] == pytest.approx(800.0, rel=1e-12)   # the input passes whole
    assert drive[RL] > 10.0 * abs(drive[RR])
    _, open_trace = ice_under_the_right_rear('open')
    assert state[VX] > 1.5 * open_trace[-1][0][VX]


def test_limited_slip_differentials_hold_their_lock_torque_and_bias_ratio():
    _, trace = ice_under_the_right_rear('clutch_pack', preload_n_m=100.0, lock_factor=0.3)
    state, drive = trace[-1]
    assert state[OMEGA + RR] > state[OMEGA + RL] + 1.0         # slipping, so at capacity
    assert drive[RL] - drive[RR] == pytest.approx(100.0 + 0.3 * 800.0, rel=1e-9)
    _, trace = ice_under_the_right_rear('torque_bias', bias_ratio=3.0)
    state, drive = trace[-1]
    assert state[OMEGA + RR] > state[OMEGA + RL] + 1.0
    assert drive[RL] / drive[RR] == pytest.approx(3.0, rel=1e-9)


def test_under_the_power_limit_the_car_tops_out_where_its_resistance_takes_the_power():
    car = v40(max_power_w=30000.0)
    car.set_command(Command(drive_torque_n_m=(0.0, 0.0, 1500.0, 1500.0)))
    peak = 0.0
    for _ in range(1500):               # 150 s: the last of the speed comes slowly
        car.step(0.1)
        drive = car.drivetrain().drive_torque_n_m
        peak = max(peak, drive @ car.state[OMEGA:OMEGA + 4])
    assert peak < 30000.0 * 1.002       # the limit holds (on the speeds a sub-step starts at)
    v = car.state[VX]
    assert car.wheels().slip_ratio[RL] < 0.01
    resistance = 0.44 * v ** 2 + 13.2 * v             # volvo_v40's drag and rolling [N]
    assert resistance * v == pytest.approx(30000.0, rel=0.02)   # less the tyres' slip loss
    assert drive @ car.state[OMEGA:OMEGA + 4] == pytest.approx(30000.0, rel=1e-3)


def test_the_wheels_never_pass_the_motors_top_speed():
    car = v40(max_wheel_speed_rad_s=40.0, **{'differential.rear.type': 'locked'})
    car.set_command(Command(drive_torque_n_m=(0.0, 0.0, 1000.0, 1000.0)))
    top = 0.0
    for _ in range(2000):
        car.step(0.01)
        top = max(top, car.state[OMEGA + RL:OMEGA + RR + 1].max())
    assert 40.0 * (1 - SPEED_TAPER) < top <= 40.0
    assert car.state[VX] == pytest.approx(40.0 * 0.327, rel=0.01)   # rolling at the limit


def test_limits_that_never_bind_drive_the_car_as_the_commanded_torques_do():
    rng = np.random.default_rng(59)
    plain, limited_car = v40(), v40(max_power_w=1e7, max_wheel_speed_rad_s=1e5)
    for car in (plain, limited_car):
        car.reset()
    for _ in range(50):
        command = Command(steer_rad=rng.uniform(-0.3, 0.3),
                          drive_torque_n_m=(0.0, 0.0, *rng.uniform(-200.0, 900.0, 2)))
        for car in (plain, limited_car):
            car.set_command(command)
            car.advance(20, DT)
    np.testing.assert_allclose(limited_car.state, plain.state, rtol=1e-7, atol=1e-7)
    assert limited_car.state[VX] > 1.0


def test_bad_torque_mode_keys_are_refused_by_name():
    config = vehicle('volvo_v40')
    with pytest.raises(ConfigError, match='torque_mode.differential.rear.type'):
        config.with_overrides({'torque_mode.differential.rear.type': 'viscous'})
    with pytest.raises(ConfigError, match='torque_mode.max_power_w'):
        config.with_overrides({'torque_mode.max_power_w': -1.0})
    with pytest.raises(ConfigError, match='torque_mode.max_wheel_speed_rad_s'):
        config.with_overrides({'torque_mode.max_wheel_speed_rad_s': math.inf})
    with pytest.raises(ConfigError, match='torque_mode.max_power_w'):
        vehicle('volvo_v40_kinematic').with_overrides({'torque_mode.max_power_w': 1000.0})


def test_vector_lanes_say_they_do_not_run_torque_modes_drive():
    batch = Batch(vehicle('volvo_v40').with_overrides(
        {'integrator': 'euler', 'slip_model': 'document', 'load_transfer': 'document',
         'steering.ackermann': 0.0, 'torque_mode.max_power_w': 1000.0}), cars=2)
    with pytest.raises(ValueError, match='torque_mode: independent wheels and no motor limits'):
        batch.rollout(np.zeros((2, STATE_SIZE)), np.zeros((2, 3)), np.zeros((2, 3, 4)),
                      tyres=False, lanes=True)


def test_a_locked_rear_in_torque_mode_has_its_steady_states_and_a_drift_lqr():
    # The first guess of a coupled axle starts both wheels at one speed: from the outer and
    # inner wheels' own speeds Newton ended at the standstill (a fixed point too).
    import math
    from rally_sim.control.drift.lqr import DriftDesign, DriftLqr
    from rally_sim.physics import Surface
    from rally_sim.physics.equilibria import SteadyState
    config = vehicle('rwd_gravel').with_overrides({'torque_mode.differential.rear.type':
                                                   'locked'})
    traced = SteadyState(Vehicle(config, Surface.uniform('gravel')), 'torque').trace(
        -np.radians([0.0, 10.0, 20.0]), radius_m=15.0)
    assert traced.ended == ''
    for e in traced.equilibria:
        assert e.state[VX] > 8.0
        assert e.state[OMEGA + RL] == pytest.approx(e.state[OMEGA + RR], abs=1e-6)
    law = DriftLqr(config, 'gravel', DriftDesign(radius_m=15.0, sideslip_rad=math.radians(-20.0),
                                                 mode='torque'))
    assert np.isfinite(law.schedule[-1].gain).all()
