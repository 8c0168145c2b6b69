"""cmd_vel's speed and yaw rate as the steer angle of a car with front steering."""

import math

import pytest
from rally_sim.control.interface import Ackermann, Twist
from rally_sim.control.twist import SLOWEST_M_S, steer_for
from rally_sim.physics import Surface, Vehicle
from rally_sim.sensors import load_profile
from rally_sim.sim import Session
from rally_sim.sim.session import DEFAULT_SETTINGS
from support.vehicles import vehicle

L, LOCK = 2.65, 0.6


def test_the_steer_turns_the_bicycle_at_the_yaw_rate_forward_and_in_reverse():
    steer = steer_for(5.0, 0.4, L, LOCK)
    assert math.tan(steer) * 5.0 / L == pytest.approx(0.4, rel=1e-12)
    assert steer_for(-5.0, 0.4, L, LOCK) == pytest.approx(-steer)     # reversing: the other way
    assert steer_for(5.0, -0.4, L, LOCK) == pytest.approx(-steer)
    assert steer_for(3.0, 0.0, L, LOCK) == 0.0


def test_near_standstill_it_steers_toward_the_turn_and_stays_within_the_lock():
    assert steer_for(0.0, 0.02, L, LOCK) == pytest.approx(math.atan(L * 0.02 / SLOWEST_M_S))
    assert steer_for(0.0, 1.0, L, LOCK) == LOCK and steer_for(0.0, -1.0, L, LOCK) == -LOCK
    assert steer_for(0.01, 0.02, L, LOCK) == steer_for(0.0, 0.02, L, LOCK)
    assert steer_for(-0.01, 0.02, L, LOCK) == -steer_for(0.0, 0.02, L, LOCK)
    assert steer_for(0.0, 0.0, L, LOCK) == 0.0


def session(mode):
    return Session(Vehicle(vehicle('volvo_v40'), Surface.uniform()), load_profile('ideal'), 0,
                   settings=dict(DEFAULT_SETTINGS, command_mode=mode, command_timeout_s=0.0))


def test_the_intake_takes_cmd_vel_in_speed_mode_and_the_last_command_holds():
    s = session('speed')
    s.take(Twist(4.0, 0.3))
    config = vehicle('volvo_v40')
    wheelbase = config['cg_to_front_axle_m'] + config['cg_to_rear_axle_m']
    assert s.intake.target_speed == 4.0
    assert s.intake.steer_rad == pytest.approx(math.atan(wheelbase * 0.3 / 4.0))
    s.advance(4000)
    assert 3.5 < s.vehicle.state[3] < 4.5 and s.vehicle.state[5] > 0.2     # turning left
    s.take(Ackermann(steering_angle=-0.1, speed=2.0))                     # ackermann_cmd after
    assert (s.intake.steer_rad, s.intake.target_speed) == (-0.1, 2.0)
    s.take(Twist(1.0, 0.0))                                                # and cmd_vel again
    assert (s.intake.steer_rad, s.intake.target_speed) == (0.0, 1.0)


def test_cmd_vel_outside_speed_mode_or_not_finite_changes_nothing(caplog):
    s = session('torque')
    s.take(Twist(4.0, 0.3))
    assert s.intake.target_speed == 0.0 and s.intake.steer_rad == 0.0
    assert 'cmd_vel ignored: command_mode is torque' in caplog.text
    s = session('speed')
    s.take(Twist(float('nan'), 0.3))
    assert s.intake.target_speed == 0.0 and s.reports.counters['non_finite'] == 1
    assert 'dropped a message on cmd_vel with a non-finite value' in caplog.text
    assert 'linear.x = nan' in caplog.text
