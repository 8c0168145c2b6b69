"""Speed mode's PI controller: torques per wheel from a commanded speed."""

import math

import pytest

from rally_sim.control.speed import (
    APPROACH_S, LEAD_M_S, PedalSpeedController, SLIP_M_S, SLIP_SHARE, SpeedController)

RWD = [0.0, 0.0, 400.0, 400.0]
BRAKES = [1500.0, 1500.0, 800.0, 800.0]


def controller() -> SpeedController:
    return SpeedController(mass_kg=1000.0, wheel_radius_m=0.3, drive_limit_n_m=RWD,
                           brake_limit_n_m=BRAKES)


def test_speeding_up_drives_only_the_driven_wheels_equally():
    drive, brake = controller().torques(10.0, 1.0, 9.0, 0.01)
    # kp 2 * error 1 = 2 m/s^2, limited to 1 m/s^2: 1000 N over two wheels of 0.3 m
    assert drive == pytest.approx([0.0, 0.0, 150.0, 150.0])
    assert brake == [0.0] * 4


def test_drive_torque_is_clipped_to_each_wheel_limit():
    drive, _ = controller().torques(30.0, 10.0, 0.0, 0.01)
    assert drive == [0.0, 0.0, 400.0, 400.0]


def test_slowing_down_brakes_60_percent_front_40_rear():
    drive, brake = controller().torques(5.0, 2.0, 8.0, 0.01)
    total = 1000.0 * 2.0 * 0.3     # acceleration limit 2 m/s^2
    assert drive == [0.0] * 4
    assert brake == pytest.approx([0.3 * total, 0.3 * total, 0.2 * total, 0.2 * total])
    assert sum(brake[:2]) / sum(brake) == pytest.approx(0.6)


def test_brakes_are_clipped_to_each_wheel_limit():
    _, brake = controller().torques(0.0, 50.0, -40.0, 0.01)
    assert brake == BRAKES


def test_at_a_standstill_with_zero_asked_the_brakes_hold_and_the_integral_is_forgotten():
    speed = controller()
    speed.torques(5.0, 2.0, 4.9, 1.0)           # near the target: not at a limit
    assert speed.integral_m > 0.0
    drive, brake = speed.torques(0.0, 2.0, 0.01, 0.01)
    assert drive == [0.0] * 4
    assert brake == [0.5 * b for b in BRAKES]
    assert speed.integral_m == 0.0 and math.isnan(speed.reference_m_s)


def test_reverse_target_drives_backwards():
    drive, brake = controller().torques(-3.0, 1.0, 0.0, 0.01)
    assert drive == pytest.approx([0.0, 0.0, -150.0, -150.0])
    assert brake == [0.0] * 4


def test_integral_is_bounded():
    speed = controller()
    for _ in range(100):        # a stuck car, a small force: the integral alone grows
        speed.torques(0.1, 50.0, 0.0, 1.0)
    assert speed.integral_m == 2.0


def test_the_reference_eases_to_the_target_at_the_limit_then_as_a_first_order_approach():
    speed = controller()
    speed.torques(10.0, 2.0, 0.0, 0.01)         # far: the limit, 2 m/s^2 over 10 ms
    assert speed.reference_m_s == pytest.approx(0.02) and speed.feedforward_m_s2 == 2.0
    speed = controller()
    speed.torques(10.0, 2.0, 9.95, 0.01)        # near: 0.05 m/s over APPROACH_S
    step = 0.05 * 0.01 / APPROACH_S
    assert speed.reference_m_s == pytest.approx(9.95 + step)
    assert speed.feedforward_m_s2 == pytest.approx(step / 0.01)
    # the force: the reference's slope, kp on its lead, ki on the integral, times the mass
    drive, _ = speed.torques(10.0, 2.0, 9.95, 0.0)      # dt 0: nothing moves
    lead = step
    wanted = step / 0.01 + 2.0 * lead + 0.5 * lead * 0.01
    assert sum(drive) == pytest.approx(1000.0 * wanted * 0.3)
    assert speed.reference_m_s == pytest.approx(9.95 + step)


def test_the_reference_never_leads_the_car_by_more_than_lead():
    speed = controller()
    for _ in range(200):                        # a car that cannot move
        speed.torques(10.0, 2.0, 0.0, 0.01)
    assert speed.reference_m_s == LEAD_M_S


def test_no_windup_while_the_force_is_at_its_limit():
    speed = controller()
    for _ in range(300):
        speed.torques(10.0, 1.0, 0.0, 0.01)     # asks past 1 m/s^2 all along
    assert speed.integral_m == 0.0


def test_spinning_driven_wheels_ease_the_drive():
    rims = [5.0, 5.0, 5.0, 5.0]
    held, _ = controller().torques(10.0, 1.0, 5.0, 0.01, rims)
    allowed = SLIP_M_S + SLIP_SHARE * 5.0       # 0.6 m/s
    half = [5.0, 5.0, 5.0 + 1.5 * allowed, 5.0 + 1.5 * allowed]    # rears 1.5 times that
    eased, _ = controller().torques(10.0, 1.0, 5.0, 0.01, half)
    assert eased == pytest.approx([0.5 * t for t in held])
    gone, _ = controller().torques(10.0, 1.0, 5.0, 0.01, [5.0, 5.0, 9.0, 9.0])
    assert gone == [0.0] * 4


def test_a_locking_wheel_eases_its_own_brake():
    _, free = controller().torques(2.0, 2.0, 8.0, 0.01, [8.0] * 4)
    allowed = SLIP_M_S + SLIP_SHARE * 8.0
    _, eased = controller().torques(2.0, 2.0, 8.0, 0.01, [8.0 - 1.25 * allowed, 8.0, 8.0, 0.0])
    assert eased == pytest.approx([0.75 * free[0], free[1], free[2], 0.0])


def test_pedals_throttle_when_slow_brake_when_fast_never_both():
    pedals = PedalSpeedController()
    throttle, brake = pedals.pedals(10.0, 8.0, 0.02)
    assert throttle == pytest.approx(0.25 * 2.0 + 0.1 * 2.0 * 0.02) and brake == 0.0
    pedals = PedalSpeedController()
    throttle, brake = pedals.pedals(10.0, 12.0, 0.02)
    assert throttle == 0.0 and brake == pytest.approx(0.25 * 2.0 + 0.1 * 2.0 * 0.02)
    assert PedalSpeedController().pedals(30.0, 0.0, 0.02) == (1.0, 0.0)     # saturated
    assert PedalSpeedController().pedals(0.0, 30.0, 0.02) == (0.0, 1.0)


def test_pedal_integral_is_bounded():
    pedals = PedalSpeedController()
    for _ in range(1000):
        pedals.pedals(10.0, 0.0, 0.1)
    assert pedals.integral_m == 3.0
