"""The kinematic bicycle (reference 001) against its geometry."""

import math

import numpy as np
import pytest

from rally_sim.physics import Command, ConfigError, Vehicle
from rally_sim.physics.model import OMEGA, VX, VY, X, Y, YAW, YAW_RATE
from support.vehicles import vehicle

KINEMATIC = vehicle('volvo_v40_kinematic')
LF, LR = 1.15, 1.497
WHEELBASE = LF + LR
STEADY = {'steering.max_rate_rad_s': 0.0, 'resistance.drag_coefficient_kg_m': 0.0,
          'resistance.rolling_resistance_n_s_m': 0.0}


def turning_car(steer, speed, dt_s=0.01):
    """Return a car turning steadily: steer already at `steer`, no resistances."""
    car = Vehicle(KINEMATIC.with_overrides({**STEADY, 'dt': dt_s}))
    car.reset(vx=speed)
    car.set_command(Command(steer_rad=steer))
    car.step(1e-9)            # the steer reaches its target (no rate limit, no lag)
    return car


def rear_axle(state):
    return (state[X] - LR * math.cos(state[YAW]), state[Y] - LR * math.sin(state[YAW]))


@pytest.mark.parametrize('steer, speed', [(0.3, 5.0), (-0.15, 12.0), (0.4, -2.0)])
def test_yaw_rate_is_v_tan_delta_over_l_and_the_rear_axle_circles_at_l_over_tan_delta(
        steer, speed):
    car = turning_car(steer, speed)
    radius = WHEELBASE / math.tan(steer)
    x0, y0 = rear_axle(car.state)
    yaw0 = car.state[YAW]
    centre = (x0 - radius * math.sin(yaw0), y0 + radius * math.cos(yaw0))   # left of heading
    for _ in range(1000):
        car.step(0.01)
        assert car.state[YAW_RATE] == pytest.approx(speed * math.tan(steer) / WHEELBASE,
                                                    rel=1e-12)
        assert car.state[VX] == speed
        assert car.state[VY] == pytest.approx(speed * LR * math.tan(steer) / WHEELBASE,
                                              rel=1e-12)
        x, y = rear_axle(car.state)
        assert math.hypot(x - centre[0], y - centre[1]) == pytest.approx(abs(radius),
                                                                         rel=1e-9)
    turned = car.state[YAW] - yaw0
    assert turned == pytest.approx(1000 * 0.01 * speed * math.tan(steer) / WHEELBASE,
                                   rel=1e-12)


def test_the_arc_does_not_depend_on_the_step():
    coarse, fine = turning_car(0.3, 5.0, 0.05), turning_car(0.3, 5.0, 0.001)
    for _ in range(100):
        coarse.step(0.05)
    for _ in range(5000):
        fine.step(0.001)
    assert coarse.state[[X, Y, YAW]] == pytest.approx(fine.state[[X, Y, YAW]], abs=1e-9)
    assert fine.state[YAW] == pytest.approx(5.0 * 5.0 * math.tan(0.3) / WHEELBASE, abs=1e-6)


def test_no_slip_and_wheels_roll_where_they_point():
    car = turning_car(0.3, 8.0)
    car.step(0.5)
    wheels = car.wheels()
    assert np.all(wheels.slip_ratio == 0.0) and np.all(wheels.slip_angle_rad == 0.0)
    # Each wheel's contact point moves along its own heading at omega R.
    yaw_rate, vx, vy = car.state[YAW_RATE], car.state[VX], car.state[VY]
    for i, (px, py) in enumerate([(LF, 0.776), (LF, -0.776), (-LR, 0.776), (-LR, -0.776)]):
        velocity = np.array([vx - yaw_rate * py, vy + yaw_rate * px])
        heading = np.array([math.cos(wheels.steer_rad[i]), math.sin(wheels.steer_rad[i])])
        sideways = heading[0] * velocity[1] - heading[1] * velocity[0]
        if i >= 2:      # the front wheels' own angles are Ackermann's, not the bicycle's
            assert sideways == pytest.approx(0.0, abs=1e-12)
        assert car.state[OMEGA + i] * 0.327 == pytest.approx(velocity @ heading, rel=1e-12)
    assert wheels.normal_load_n.sum() == pytest.approx(1600.0 * 9.82, rel=1e-12)
    assert wheels.force_y_n.sum() > 0.0                  # centripetal, to the left


def test_drive_accelerates_the_car_and_its_rolling_wheels():
    car = Vehicle(KINEMATIC.with_overrides(STEADY))
    car.set_command(Command(drive_torque_n_m=[0.0, 0.0, 500.0, 500.0]))
    car.step(1.0)
    rolling_mass = 1600.0 + 4 * 1.5 / 0.327 ** 2
    assert car.state[VX] == pytest.approx(1000.0 / 0.327 / rolling_mass * 1.0, rel=1e-12)
    assert car.specific_force_m_s2()[0] == pytest.approx(1000.0 / 0.327 / rolling_mass)


@pytest.mark.parametrize('speed', [1.0, -1.0])
def test_brakes_stop_the_car_dead_and_hold_it(speed):
    car = Vehicle(KINEMATIC)
    car.reset(vx=speed)
    car.set_command(Command(steer_rad=0.2, brake_torque_n_m=[300.0] * 4))
    speeds = []
    for _ in range(300):
        car.step(0.01)
        speeds.append(car.state[VX])
    stop = 1.0 * (1600.0 + 4 * 1.5 / 0.327 ** 2) / (1200.0 / 0.327)      # v m / F_b, ~0.44 s
    stopped = int(math.ceil(stop / 0.01)) + 1
    assert all(s * speed >= 0.0 for s in speeds)            # never reverses
    assert all(s == 0.0 for s in speeds[stopped:])          # and no creep
    held = car.state[[X, Y, YAW]].copy()
    car.set_command(Command(drive_torque_n_m=[0.0, 0.0, 500.0, 500.0],
                            brake_torque_n_m=[300.0] * 4))  # drive weaker than the brakes
    car.step(2.0)
    assert np.all(car.state[[X, Y, YAW]] == held) and car.state[VX] == 0.0


def test_a_kinematic_file_takes_no_tyre_keys_and_a_four_wheel_file_needs_them():
    with pytest.raises(ConfigError, match="tyres.front.mu not used by model 'kinematic_bicycle'"):
        KINEMATIC.with_overrides({'tyres.front.mu': 0.8})
    with pytest.raises(ConfigError, match='missing key.*yaw_inertia_kg_m2.*tyres.front.mu'):
        KINEMATIC.with_overrides({'model': 'four_wheel'})
    with pytest.raises(ConfigError, match="'model' = 'hovercraft' must be one of"):
        KINEMATIC.with_overrides({'model': 'hovercraft'})
