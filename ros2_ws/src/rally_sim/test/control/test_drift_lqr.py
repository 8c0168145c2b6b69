"""The reference drift controller's law in closed loop with the physics (truth, 50 Hz)."""

import math

import numpy as np
import pytest

from rally_sim.control.drift_lqr import DriftDesign, DriftLqr
from rally_sim.physics import Command, DriverCommand, Surface, Vehicle
from rally_sim.physics.model import OMEGA
from support.vehicles import vehicle

PERIOD_S = 0.02


def drift(design: DriftDesign, seconds: float = 40.0, surface: str = 'gravel',
          start_speed_m_s: float = 8.0):
    """Return (controller, rows of t, x, y, sideslip, speed) of a closed-loop run."""
    config = vehicle('rwd_gravel')
    law = DriftLqr(config, surface, design)
    car = Vehicle(config, Surface.uniform(surface))
    radius = design.radius_m
    car.reset(x=design.center_x_m + abs(radius), y=design.center_y_m,
              yaw=math.copysign(math.pi / 2.0, radius), vx=start_speed_m_s)
    rows = []
    for k in range(round(seconds / PERIOD_S)):
        s = car.state
        steer, drive = law.command(k * PERIOD_S, *s[:6], s[OMEGA + 2:OMEGA + 4])
        if law.driver:
            car.set_command(DriverCommand(steer_rad=steer, throttle=drive, gear=law.gear))
        else:
            car.set_command(Command(steer_rad=steer, drive_torque_n_m=(0.0, 0.0, *drive)))
        car.advance(20, PERIOD_S / 20)
        s = car.state
        rows.append(((k + 1) * PERIOD_S, s[0], s[1], math.atan2(s[4], s[3]),
                     math.hypot(s[3], s[4])))
    return law, np.array(rows)


@pytest.mark.parametrize('mode', ['driver', 'torque'])
def test_it_enters_and_holds_the_skid_pad_drift_on_its_equilibrium(mode):
    law, rows = drift(DriftDesign(radius_m=15.0, sideslip_rad=math.radians(-25.0), mode=mode,
                                  gear=2 if mode == 'driver' else None))
    settled = rows[rows[:, 0] > 15.0]
    target = law.target
    sideslip = np.degrees(settled[:, 3] - target.sideslip_rad)
    radius = np.hypot(settled[:, 1], settled[:, 2]) - 15.0
    speed = settled[:, 4] - target.speed_m_s
    assert np.sqrt(np.mean(sideslip ** 2)) < 0.01          # the target: 0.5 deg
    assert np.sqrt(np.mean(radius ** 2)) < 0.01            # 0.15 m
    assert np.sqrt(np.mean(speed ** 2)) < 0.01             # 0.1 m/s
    assert rows[int(2.0 / PERIOD_S), 3] > math.radians(-8.0)    # it entered from grip


def test_a_right_hand_drift_is_the_left_one_mirrored():
    left_law, left = drift(DriftDesign(radius_m=15.0, sideslip_rad=math.radians(-20.0)), 12.0)
    right_law, right = drift(DriftDesign(radius_m=-15.0, sideslip_rad=math.radians(20.0)), 12.0)
    assert np.allclose(right[:, 3], -left[:, 3], atol=1e-9)
    assert np.allclose(right[:, 2], -left[:, 2], atol=1e-7)


def test_a_drift_beyond_the_cars_limits_is_refused():
    with pytest.raises(ValueError, match='no drift to hold: steer limit'):
        DriftLqr(vehicle('rwd_gravel'), 'gravel', DriftDesign(sideslip_rad=math.radians(-50)))
