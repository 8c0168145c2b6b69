"""The bounce of contact mode bounce against its equations: restitution, friction, momentum."""

import math

import numpy as np
import pytest
from rally_sim.physics.model import STATE_SIZE, VX, VY, X, Y, YAW, YAW_RATE
from rally_sim.sim.bounce import Body, bounce, FRICTION, overlap_axis, RESTITUTION

MASS, INERTIA = 1200.0, 1500.0


def body(x=0.0, y=0.0, yaw=0.0, vx=0.0, vy=0.0, yaw_rate=0.0, mass=MASS, inertia=INERTIA):
    state = np.zeros(STATE_SIZE)
    state[[X, Y, YAW, VX, VY, YAW_RATE]] = x, y, yaw, vx, vy, yaw_rate
    return Body(state, mass, inertia)


def world_velocity(b):
    return b.velocity_at(float(b.state[X]), float(b.state[Y]))


def square(cx, cy, half):
    return np.array([[cx + half, cy + half], [cx - half, cy + half], [cx - half, cy - half],
                     [cx + half, cy - half]])


def test_the_least_overlap_and_its_axis_point_out_of_what_was_touched():
    depth, nx, ny = overlap_axis(square(0.9, 0.2, 0.5), square(0.0, 0.0, 0.5))
    assert depth == pytest.approx(0.1) and (nx, ny) == (1.0, 0.0)
    depth, nx, ny = overlap_axis(square(-0.2, -0.95, 0.5), square(0.0, 0.0, 0.5))
    assert depth == pytest.approx(0.05) and (nx, ny) == (0.0, -1.0)


def test_head_on_into_a_wall_the_normal_speed_comes_back_times_the_restitution():
    car = body(vx=10.0)              # the contact point straight ahead of the CG: no turn
    struck = bounce(car, None, (2.0, 0.0), (-1.0, 0.0), 0.05)
    assert struck
    assert car.state[VX] == pytest.approx(-RESTITUTION * 10.0)
    assert car.state[VY] == pytest.approx(0.0, abs=1e-12)
    assert car.state[YAW_RATE] == pytest.approx(0.0, abs=1e-12)
    assert car.state[X] < -0.05            # moved out of the wall


def test_a_glancing_blow_turns_the_car_and_friction_takes_at_most_its_share():
    car = body(vx=10.0, vy=-6.0, yaw=0.3)      # the point hits the wall at 2.8 m/s
    before = np.array(world_velocity(car))
    bounce(car, None, (1.5, -0.8), (0.0, 1.0), 0.0)   # a wall below, its normal up
    change = (np.array(world_velocity(car)) - before) * MASS      # the impulse on the CG
    assert change[1] > 0.0                                        # pushed up, out of it
    assert abs(change[0]) <= FRICTION * change[1] + 1e-9          # friction within mu j
    assert car.state[YAW_RATE] != 0.0                             # struck off its CG: turned


def test_two_cars_keep_their_momentum_and_lose_energy():
    a = body(x=0.0, vx=12.0, yaw_rate=0.2)
    b = body(x=4.0, y=0.5, yaw=0.4, vx=3.0, mass=900.0, inertia=1000.0)

    where = {id(c): (float(c.state[X]), float(c.state[Y])) for c in (a, b)}

    def momentum():         # about the origin, the bodies where they were struck
        (ax, ay), (bx, by) = world_velocity(a), world_velocity(b)
        linear = np.array([a.mass * ax + b.mass * bx, a.mass * ay + b.mass * by])
        # about the origin: r x m v + I w for each
        moving = ((a, (ax, ay)), (b, (bx, by)))
        angular = sum(c.mass * (where[id(c)][0] * vy - where[id(c)][1] * vx)
                      + c.inertia * c.state[YAW_RATE] for c, (vx, vy) in moving)
        energy = sum(0.5 * c.mass * (vx * vx + vy * vy) + 0.5 * c.inertia * c.state[YAW_RATE] ** 2
                     for c, (vx, vy) in moving)
        return linear, angular, energy
    linear, angular, energy = momentum()
    assert bounce(a, b, (2.1, 0.3), (-1.0, 0.0), 0.0)      # b's rear, a's front: closing
    linear_after, angular_after, energy_after = momentum()
    assert linear_after == pytest.approx(linear, rel=1e-12)
    assert angular_after == pytest.approx(angular, rel=1e-12)
    assert energy_after < energy


def test_a_contact_already_parting_is_only_moved_apart():
    car = body(vx=-2.0)               # backing away from the wall ahead
    assert not bounce(car, None, (2.0, 0.0), (-1.0, 0.0), 0.02)
    assert car.state[VX] == -2.0
    assert car.state[X] == pytest.approx(-0.021)
    assert math.isfinite(car.state[YAW_RATE])
