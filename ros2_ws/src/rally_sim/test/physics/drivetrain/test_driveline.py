"""The drivetrain driving the car (issue 9): engine, clutch, gearbox, differentials."""

import math

import numpy as np
import pytest

from rally_sim.physics import Vehicle
from rally_sim.physics.config import ConfigError
from rally_sim.physics.drivetrain.driveline import gear_ratio
from rally_sim.physics.drivetrain.equations import AUTOMATIC, curve_torque, RPM_PER_RAD_S
from rally_sim.physics.model import ENGINE, GEAR, OMEGA, VX
from rally_sim.physics.vehicle import Command, CommandError, DriverCommand
from support.vehicles import vehicle

DT = 0.001
RL, RR = 2, 3


def corvette(**overrides):
    config = vehicle('corvette_c5')
    return Vehicle(config.with_overrides(overrides) if overrides else config)


def full_throttle(car, seconds, dt=DT, gear=AUTOMATIC):
    """Return the states after each step of dt with the throttle wide open."""
    rows = int(round(seconds / dt))
    ones, zeros = np.ones(rows), np.zeros(rows)
    states, _, _ = car.run_driver(zeros, zeros, ones, zeros, zeros, np.full(rows, gear),
                                  np.full(rows, dt))
    return states


def drivetrain_trace(car, seconds, command):
    """Step one dt at a time; return (state, DrivetrainState) after each step."""
    car.set_command(command)
    trace = []
    for _ in range(int(round(seconds / DT))):
        car.step(DT)
        trace.append((car.state.copy(), car.drivetrain()))
    return trace


def test_a_locked_clutch_turns_the_engine_at_the_wheels_speed_times_the_ratios():
    car = corvette()
    trace = drivetrain_trace(car, 3.0, DriverCommand(throttle=1.0))
    state, drive = trace[-1]
    assert drive.gear == 1 and not drive.shifting and abs(drive.clutch_slip_rad_s) < 1e-3
    rear = 0.5 * (state[OMEGA + RL] + state[OMEGA + RR])
    assert state[ENGINE] == pytest.approx(2.66 * 3.42 * rear, rel=1e-4)
    # what reaches the wheels is the clutch torque x ratios x efficiency, half each side
    assert drive.drive_torque_n_m[RL] == pytest.approx(drive.drive_torque_n_m[RR], rel=1e-12)
    assert drive.drive_torque_n_m[:2].tolist() == [0.0, 0.0]
    assert drive.drive_torque_n_m.sum() == pytest.approx(
        drive.clutch_torque_n_m * 2.66 * 3.42 * 0.7, rel=1e-9)


def test_a_standing_start_slips_the_clutch_smoothly_then_locks_it():
    trace = drivetrain_trace(corvette(), 2.0, DriverCommand(throttle=1.0))
    rpm = np.array([d.engine_rpm for _, d in trace])
    slip = np.array([d.clutch_slip_rad_s for _, d in trace])
    torque = np.array([d.drive_torque_n_m.sum() for _, d in trace])
    assert rpm.min() > 700.0                        # never stalls
    assert slip[100] > 10.0 and abs(slip[-1]) < 1e-3  # slips at first, then holds
    assert np.abs(np.diff(torque)).max() < 200.0    # no jerk: < 200 N m per millisecond


def test_first_gear_at_4400_rpm_gives_reference_003s_force():
    # A light flywheel, so that nearly all the engine's torque goes through the clutch.
    car = corvette(**{'engine.inertia_kg_m2': 0.01})
    for state, drive in drivetrain_trace(car, 4.0, DriverCommand(throttle=1.0, gear=1)):
        if drive.engine_rpm >= 4400.0:
            break
    assert drive.engine_rpm == pytest.approx(4400.0, abs=20.0)
    force = drive.drive_torque_n_m.sum() / 0.34
    assert force == pytest.approx(475 * 2.66 * 3.42 * 0.7 / 0.34, rel=0.01)    # 9,353 N


def test_wheel_power_never_exceeds_the_clutchs_times_efficiency_nor_the_engines():
    car = corvette()
    engine_work = wheel_work = 0.0
    start = 0.5 * 0.25 * car.state[ENGINE] ** 2
    for state, drive in drivetrain_trace(car, 12.0, DriverCommand(throttle=1.0)):
        omega_e = state[ENGINE]
        wheel_power = float(drive.drive_torque_n_m @ state[OMEGA:OMEGA + 4])
        # (to 1e-3: the wheels' speeds at the step's end, the solve's a little off them)
        assert wheel_power <= 0.7 * drive.clutch_torque_n_m * omega_e * (1 + 1e-3) + 1e-6
        engine_work += drive.engine_torque_n_m * omega_e * DT
        wheel_work += wheel_power * DT
    flywheel = start - 0.5 * 0.25 * car.state[ENGINE] ** 2      # energy it gave back
    assert wheel_work <= 0.7 * (engine_work + flywheel) * 1.01
    assert wheel_work > 0.5 * 0.7 * engine_work                 # and most of it arrives


def test_the_automatic_gearbox_shifts_up_at_its_shift_speed():
    car = corvette()
    states = full_throttle(car, 16.0)
    gears = states[:, GEAR]
    ups = np.flatnonzero(np.diff(gears) > 0)
    assert gears[ups + 1].tolist() == [2.0, 3.0, 4.0]
    for k in ups:
        before = states[k]
        rear = 0.5 * (before[OMEGA + RL] + before[OMEGA + RR])
        rpm = gear_ratio(before[GEAR], car.flat_params) * rear * RPM_PER_RAD_S
        assert rpm == pytest.approx(5600.0, abs=10.0)       # gearbox input at shift_up_rpm


def test_top_speed_is_where_drag_meets_the_engine_or_the_limiter():
    config = vehicle('corvette_c5')
    radius, eff, c_drag, c_rr = 0.34, 0.7, 0.4257, 12.8
    block = config.model_params().drivetrain
    best = 0.0
    for ratio in config['gearbox.ratios']:
        overall = ratio * 3.42
        v = np.linspace(1.0, 6000.0 / RPM_PER_RAD_S / overall * radius, 20000)   # to the limiter
        rpm = v / radius * overall * RPM_PER_RAD_S
        surplus = [eff * overall * curve_torque(r, block, 0) / radius
                   - (c_drag * u * u + c_rr * u) for r, u in zip(rpm, v)]
        reach = v[np.flatnonzero(np.array(surplus) > 0.0)]
        if reach.size:
            best = max(best, reach.max())
    car = corvette()
    states = full_throttle(car, 150.0, dt=0.01)
    top = states[-1, VX]
    assert top == pytest.approx(best, rel=0.02)         # the tyres' slip costs a little
    assert abs(states[-1, VX] - states[-1000, VX]) < 0.01 * top      # and it has settled


def test_reverse_and_neutral():
    car = corvette()
    states = full_throttle(car, 3.0, gear=-1)
    assert states[-1, GEAR] == -1.0 and states[-1, VX] < -3.0
    car = corvette()
    states = full_throttle(car, 3.0, gear=0)
    assert abs(states[-1, VX]) < 1e-6 and states[-1, ENGINE] * RPM_PER_RAD_S > 5000.0


def ice_under_the_right_rear(kind, **keys):
    overrides = {'differential.rear.type': kind,
                 **{f'differential.rear.{k}': v for k, v in keys.items()}}
    car = corvette(**overrides)
    car.tyre_mu[RR] = 0.05
    return car, drivetrain_trace(car, 2.0, DriverCommand(throttle=1.0, gear=1))


def test_an_open_differential_gives_equal_torques_and_lets_the_wheel_on_ice_spin():
    car, trace = ice_under_the_right_rear('open')
    state, drive = trace[-1]
    assert drive.drive_torque_n_m[RL] == pytest.approx(drive.drive_torque_n_m[RR], rel=1e-12)
    assert state[OMEGA + RR] > 3.0 * state[OMEGA + RL]      # the icy wheel spins up
    assert state[VX] < 2.0                                  # and the car barely moves


def test_a_locked_differential_holds_equal_wheel_speeds():
    car, trace = ice_under_the_right_rear('locked')
    state, drive = trace[-1]
    assert state[OMEGA + RL] == pytest.approx(state[OMEGA + RR], rel=1e-6)
    assert drive.drive_torque_n_m[RL] > 5.0 * abs(drive.drive_torque_n_m[RR])
    _, open_trace = ice_under_the_right_rear('open')
    assert state[VX] > 2.0 * open_trace[-1][0][VX]          # the gripping wheel drives


def test_limited_slip_differentials_hold_their_bias_ratio_and_lock_torque():
    _, trace = ice_under_the_right_rear('torque_bias', bias_ratio=3.0)
    state, drive = trace[-1]
    left, right = drive.drive_torque_n_m[RL], drive.drive_torque_n_m[RR]
    assert state[OMEGA + RR] > state[OMEGA + RL] + 1.0      # slipping, so at the bias
    assert left / right == pytest.approx(3.0, rel=1e-9)
    _, trace = ice_under_the_right_rear('clutch_pack', preload_n_m=100.0, lock_factor=0.3)
    state, drive = trace[-1]
    left, right = drive.drive_torque_n_m[RL], drive.drive_torque_n_m[RR]
    axle = drive.clutch_torque_n_m * 2.66 * 3.42 * 0.7
    assert left - right == pytest.approx(100.0 + 0.3 * axle, rel=1e-9)


def test_driver_commands_are_checked_and_clamped_without_harm():
    car = corvette()
    before = car.command.copy()
    with pytest.raises(CommandError, match='gear = 7 does not exist'):
        car.set_command(DriverCommand(gear=7))
    with pytest.raises(CommandError, match='throttle = nan is not finite'):
        car.set_command(DriverCommand(throttle=math.nan))
    np.testing.assert_array_equal(car.command, before)
    notes = car.set_command(DriverCommand(throttle=1.5, brake=-0.2))
    assert notes == ['throttle = 1.5 clamped to 1 (limit [0, 1])',
                     'brake = -0.2 clamped to 0 (limit [0, 1])']
    with pytest.raises(CommandError, match="'volvo_v40' has no drivetrain"):
        Vehicle(vehicle('volvo_v40')).set_command(DriverCommand(throttle=1.0))


def test_the_brake_pedal_uses_the_vehicles_brake_torques_and_balance():
    car = corvette()
    car.set_command(DriverCommand(brake=0.5, handbrake=1.0))
    from rally_sim.physics.model import C_BRAKE
    np.testing.assert_allclose(car.command[C_BRAKE:C_BRAKE + 4],
                               [1500.0, 1500.0, 1000.0 + 1500.0, 1000.0 + 1500.0])


def test_run_driver_is_the_step_by_step_car_bit_for_bit():
    rows = 400
    rng = np.random.default_rng(3)
    throttle = rng.uniform(0.0, 1.0, rows)
    steer = rng.uniform(-0.2, 0.2, rows)
    brake = np.where(np.arange(rows) > 300, 0.3, 0.0)
    gears = np.full(rows, AUTOMATIC)
    batch = corvette()
    states, _, _ = batch.run_driver(steer, np.zeros(rows), throttle, brake, np.zeros(rows),
                                    gears, np.full(rows, 0.01))
    car = corvette()
    for k in range(rows):
        car.set_command(DriverCommand(steer_rad=steer[k], throttle=throttle[k], brake=brake[k]))
        car.step(0.01)
        np.testing.assert_array_equal(car.state, states[k])


def test_torque_mode_still_drives_a_car_with_a_drivetrain():
    car = corvette()
    car.set_command(Command(drive_torque_n_m=(0.0, 0.0, 400.0, 400.0)))
    car.advance(500, DT)
    assert car.state[VX] > 0.5 and car.drivetrain().drive_torque_n_m[RL] == 400.0


def test_vehicle_files_name_the_bad_drivetrain_key():
    config = vehicle('corvette_c5')
    with pytest.raises(ConfigError, match='engine.torque_curve_rpm'):
        config.with_overrides({'engine.torque_curve_rpm': [1000, 3000, 2500, 5600, 6000]})
    with pytest.raises(ConfigError, match='gearbox.ratios'):
        config.with_overrides({'gearbox.ratios': [2.66, 0.0]})
    with pytest.raises(ConfigError, match='differential.rear.type'):
        config.with_overrides({'differential.rear.type': 'viscous'})
    with pytest.raises(ConfigError, match='differential.centre.type'):
        config.with_overrides({'differential.centre.type': 'torque_bias'})


def test_long_steps_of_many_sub_steps_are_the_short_steps():
    # the drivetrain reads the wheels of each sub-step, not those of the step's start
    long, short = corvette(), corvette()
    long_states = full_throttle(long, 6.0, dt=0.01)
    short_states = full_throttle(short, 6.0, dt=0.001)
    np.testing.assert_allclose(long_states[-1], short_states[-1], rtol=1e-12, atol=1e-12)


def test_every_integrator_and_a_halved_sub_step_agree_through_the_gears():
    speeds = {}
    for integrator, dt in (('implicit_euler', 0.001), ('rk4', 0.001), ('euler', 0.001),
                           ('implicit_euler', 0.0005)):
        car = corvette(integrator=integrator, dt=dt)
        states = full_throttle(car, 10.0, dt=0.01)                 # three gears, two shifts
        assert states[-1, GEAR] == 3.0
        speeds[integrator, dt] = states[-1, VX]
    reference = speeds['implicit_euler', 0.0005]
    for key, speed in speeds.items():
        assert speed == pytest.approx(reference, abs=1e-3), key    # 125 km/h to 4 mm/s
