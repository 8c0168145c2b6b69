"""A car with a drivetrain driven over DDS: driver_cmd in, drivetrain_state out (issue 9)."""

import math

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
import pytest
from rally_sim_msgs.msg import DriverCommand, DrivetrainState
from support import ros_process
from test_node import ackermann, at, Latest

DRIVER = {'pacing': 'lockstep', 'vehicle': 'corvette_c5', 'command_mode': 'driver',
          'command_timeout_s': 0.0}


def driver(throttle=0.0, brake=0.0, handbrake=0.0, gear=DriverCommand.GEAR_AUTOMATIC):
    return DriverCommand(throttle=throttle, brake=brake, handbrake=handbrake, gear=gear)


def test_throttle_and_gears_drive_the_car_and_the_drivetrain_is_published(simulator):
    client = simulator(**DRIVER)
    odom = Latest(client, Odometry, 'odom')
    drivetrain = Latest(client, DrivetrainState, 'drivetrain_state')
    pub = client.node.create_publisher(DriverCommand, 'driver_cmd', 10)
    client.publish_acked(pub, driver(throttle=1.0))
    response = client.step(6000)                                 # 6 s of full throttle
    state = at(client, drivetrain, response)
    assert at(client, odom, response).twist.twist.linear.x > 80 / 3.6
    assert state.gear == 2 and not state.shifting and state.throttle == 1.0
    assert 2000.0 < state.engine_rpm < 5600.0 and state.engine_torque > 400.0
    assert abs(state.clutch_slip) < 1e-2
    assert list(state.drive_torque[:2]) == [0.0, 0.0] and state.drive_torque[2] > 300.0
    assert state.header.frame_id == 'base_link'
    # brake pedal and neutral: the car slows, the engine falls back to idle
    client.publish_acked(pub, driver(brake=0.6, gear=DriverCommand.GEAR_NEUTRAL))
    response = client.step(8000)
    state = at(client, drivetrain, response)
    assert abs(at(client, odom, response).twist.twist.linear.x) < 0.01
    assert state.gear == 0 and state.engine_rpm == pytest.approx(800.0, abs=20.0)


def test_bad_driver_commands_are_refused_or_dropped_and_change_nothing(simulator):
    client = simulator(**DRIVER)
    drivetrain = Latest(client, DrivetrainState, 'drivetrain_state')
    pub = client.node.create_publisher(DriverCommand, 'driver_cmd', 10)
    client.publish_acked(pub, driver(throttle=0.5, gear=1))
    client.publish_acked(pub, driver(throttle=1.0, gear=9))                # no such gear
    client.publish_acked(pub, driver(throttle=math.nan))                   # not finite
    client.publish_acked(pub, driver(throttle=1.7, gear=1))                # clamped to 1
    state = at(client, drivetrain, client.step(3000))
    assert state.gear == 1 and state.throttle == 1.0
    output = ros_process.stop(client.process)
    assert 'driver_cmd refused (1 so far): gear = 9 does not exist' in output
    assert 'dropped a message on driver_cmd with a non-finite value (1 dropped so far): ' \
        'throttle = nan' in output
    assert 'throttle = 1.7 clamped to 1' in output


def test_speed_mode_drives_through_the_drivetrain(simulator):
    client = simulator(pacing='lockstep', vehicle='corvette_c5', command_mode='speed',
                       command_timeout_s=0.0)
    odom = Latest(client, Odometry, 'odom')
    drivetrain = Latest(client, DrivetrainState, 'drivetrain_state')
    pub = client.node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10)
    client.publish_acked(pub, ackermann(speed=30.0))     # beyond first gear's 5600 rpm
    client.step(15000)
    speeds = [at(client, odom, client.step(100)).twist.twist.linear.x for _ in range(10)]
    assert speeds == pytest.approx([30.0] * 10, abs=0.5)
    state = drivetrain.last
    assert state.gear >= 2 and 0.0 < state.throttle < 1.0      # through the gearbox


def test_driver_mode_needs_a_drivetrain(simulator):
    client = simulator(pacing='lockstep', vehicle='volvo_v40', command_mode='driver')
    assert client.process.wait(timeout=30) == 2
    assert "'command_mode' driver needs a vehicle with a drivetrain" in \
        ros_process.stop(client.process)
