"""The drift controller's laws: counter-steer, throttle on sideslip, course correction."""

import math

import pytest
from rally_sim.control.drift.steady import DriftController, DriftSettings


def on_circle(settings, beta, yaw_rate, speed=8.0, radius=None):
    """Return a state on the circle at angle 0 (x = R), sliding with sideslip beta."""
    radius = settings.radius_m if radius is None else radius
    yaw = math.pi / 2.0 - beta            # velocity along the tangent (+y)
    return (radius, 0.0, yaw, speed * math.cos(beta), speed * math.sin(beta), yaw_rate)


def test_counter_steers_in_a_left_hand_drift():
    settings = DriftSettings()
    controller = DriftController(settings)
    state = on_circle(settings, math.radians(-30.0), 8.0 / 15.0)
    steer, torque = controller.command(*state)
    assert steer < 0.0          # wheels to the right while the car turns left
    # The front wheels point along the front axle's velocity, plus the small
    # feed-forward slip (no yaw-rate or course error here).
    x, y, yaw, vx, vy, r = state
    assert steer == pytest.approx(math.atan2(vy + settings.cg_to_front_m * r, vx)
                                  + settings.front_slip_rad, abs=1e-9)
    assert 0.0 < torque < settings.max_torque_n_m


def test_throttle_grows_the_slide_when_it_is_too_small():
    settings = DriftSettings()
    controller = DriftController(settings)
    _, little = controller.command(*on_circle(settings, math.radians(-5.0), 0.55))
    _, much = controller.command(*on_circle(settings, math.radians(-40.0), 0.55))
    assert little - much == pytest.approx(
        settings.torque_per_sideslip * math.radians(35.0), rel=1e-9)


def test_drifting_wide_asks_for_more_yaw():
    settings = DriftSettings()
    controller = DriftController(settings)
    on_line, _ = controller.command(*on_circle(settings, math.radians(-25.0), 0.55))
    wide, _ = controller.command(*on_circle(settings, math.radians(-25.0), 0.55, radius=18.0))
    assert wide > on_line       # steer (less counter-steer) toward the centre


def test_the_throttle_pedal_grows_the_slide_likewise_and_the_steering_is_the_same():
    settings = DriftSettings()
    controller = DriftController(settings)
    small, large = (on_circle(settings, math.radians(b), 0.55) for b in (-20.0, -30.0))
    (steer, little), (_, much) = controller.pedals(*small), controller.pedals(*large)
    assert steer == controller.command(*small)[0]
    assert little - much == pytest.approx(
        settings.throttle_per_sideslip * math.radians(10.0), rel=1e-9)
    assert 0.0 <= much < little <= 1.0
    _, stopped = controller.pedals(*on_circle(settings, 0.0, 0.0, speed=0.0))
    assert stopped == 1.0                   # far too slow, no slide: full throttle
