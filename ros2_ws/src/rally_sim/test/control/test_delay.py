"""Delay compensation: the predictions against exact motion, and in closed loop."""

import math

import numpy as np
import pytest

from rally_sim.control.delay import DelayCompensator, extrapolate
from rally_sim.control.path import ClosedPath
from rally_sim.control.pure_pursuit import PurePursuit, PurePursuitSettings
from rally_sim.control.speed import SpeedController
from rally_sim.physics import Command, Vehicle
from rally_sim.physics.model import VX, X, Y, YAW
from rally_sim.resources import config_file, surface_from
from rally_sim.world.stages import read_path
from support.vehicles import vehicle

WHEELBASE, REAR = 2.647, 1.497


def test_no_delay_predicts_the_measured_pose():
    compensator = DelayCompensator(0.0, WHEELBASE, REAR)
    compensator.sent(1.0, 0.3)
    assert compensator.predict(1.0, 2.0, 3.0, 0.4, 10.0) == (2.0, 3.0, 0.4)


def test_a_held_steer_predicts_the_kinematic_arc():
    delay, steer, speed = 0.3, 0.1, 10.0
    compensator = DelayCompensator(delay, WHEELBASE, REAR)
    for k in range(100):
        compensator.sent(k * 0.02, steer)
    x, y, yaw = compensator.predict(2.0, 0.0, 0.0, 0.0, speed)
    slip = math.atan(REAR / WHEELBASE * math.tan(steer))
    rate = speed * math.cos(slip) * math.tan(steer) / WHEELBASE
    assert yaw == pytest.approx(rate * delay, rel=1e-9)
    radius = speed / rate       # the CG on a circle, its velocity at `slip` to the heading
    assert x == pytest.approx(radius * (math.sin(rate * delay + slip) - math.sin(slip)),
                              abs=0.01)
    assert y == pytest.approx(radius * (math.cos(slip) - math.cos(rate * delay + slip)),
                              abs=0.01)


def test_the_commands_already_sent_steer_the_prediction():
    compensator = DelayCompensator(0.2, WHEELBASE, REAR)
    for k in range(50):             # straight until 0.9 s, then full left
        compensator.sent(k * 0.02, 0.0 if k * 0.02 < 0.9 else 0.4)
    _, _, before = compensator.predict(0.8, 0.0, 0.0, 0.0, 10.0)   # acts from 0.8 - 0.2
    _, _, after = compensator.predict(1.1, 0.0, 0.0, 0.0, 10.0)    # acts from 0.9 on
    assert before == 0.0 and after > 0.2
    with pytest.raises(ValueError, match='delay_s'):
        DelayCompensator(float('nan'), WHEELBASE, REAR)


def test_constant_twist_extrapolation_is_exact_on_a_steady_drift():
    radius, speed, beta = 15.0, 8.0, -0.4        # sliding, the nose inside the circle
    rate = speed / radius
    vx, vy = speed * math.cos(beta), speed * math.sin(beta)
    # CG on the circle at angle 0 (x = radius), moving counter-clockwise: course pi/2
    yaw = math.pi / 2.0 - beta
    x, y, new_yaw = extrapolate(radius, 0.0, yaw, vx, vy, rate, 0.5)
    assert math.hypot(x, y) == pytest.approx(radius, rel=1e-9)
    assert math.atan2(y, x) == pytest.approx(rate * 0.5, rel=1e-9)
    assert new_yaw == pytest.approx(yaw + rate * 0.5)
    assert extrapolate(1.0, 2.0, 0.3, 5.0, 0.0, 0.0, 0.2) == pytest.approx(
        (1.0 + math.cos(0.3), 2.0 + math.sin(0.3), 0.3))


def follow(delay_s, seconds=25.0):
    """Return the cross-track errors of pure pursuit through a 0.2 s + 0.1 s steering."""
    path = ClosedPath(read_path(config_file('stages/rally_stage_path.csv')))
    config = vehicle('volvo_v40').with_overrides({
        'actuation.steer.delay_s': 0.2, 'actuation.steer.time_constant_s': 0.1})
    car = Vehicle(config, surface_from('rally_stage'))
    start = path.points[0]
    car.reset(x=start[0], y=start[1], yaw=path.locate(*start).heading_rad, vx=8.0)
    follower = PurePursuit(path, PurePursuitSettings(target_speed_m_s=8.0,
                                                     lateral_accel_limit_m_s2=2.5))
    speed = SpeedController(config['mass_kg'], config['wheel_radius_m'], car.drive_limit,
                            car.brake_limit)
    compensator = DelayCompensator(delay_s, WHEELBASE, REAR)
    errors = []
    for k in range(round(seconds / 0.02)):
        s = car.state
        x, y, yaw = compensator.predict(k * 0.02, s[X], s[Y], s[YAW], s[VX])
        steer, target = follower.command(x, y, yaw, s[VX])
        compensator.sent(k * 0.02, steer)
        drive, brake = speed.torques(target, 2.0, float(s[VX]), 0.02)
        car.set_command(Command(steer_rad=steer, drive_torque_n_m=drive,
                                brake_torque_n_m=brake))
        car.advance(20, 0.001)
        errors.append(path.locate(car.state[X], car.state[Y]).cross_track_m)
    return np.array(errors)


def test_compensation_keeps_the_car_on_the_line_that_the_delay_loses():
    compensated = follow(0.3)
    plain = follow(0.0)
    rms = float(np.sqrt(np.mean(compensated ** 2)))
    assert rms < 0.5 and np.max(np.abs(compensated)) < 2.0
    assert float(np.sqrt(np.mean(plain ** 2))) > 3.0 * rms     # the delay alone: it weaves
