"""The controllers' laws: what they answer is what their nodes publish."""

import math
import struct

import numpy as np
import pytest
from rally_sim.control.laws import parameters, steering
from rally_sim.control.laws.path_follower import SPECS


def test_the_ackermann_answer_holds_what_its_float32_fields_carry():
    from ackermann_msgs.msg import AckermannDrive
    values = [0.1, -0.3, 12.345678901, 1e-45, 3.5e38, 1e300, -math.inf, 0.0, -0.0]
    for angle, speed in zip(values, reversed(values)):
        drive = steering(angle, speed, 2.2)
        with np.errstate(over='ignore'):        # 1e300 is inf in float32
            wire = AckermannDrive(steering_angle=float(np.float32(angle)),
                                  speed=float(np.float32(speed)),
                                  acceleration=float(np.float32(2.2)))
        for name in ('steering_angle', 'speed', 'acceleration'):
            ours, theirs = getattr(drive, name), getattr(wire, name)
            assert struct.pack('<d', ours) == struct.pack('<d', theirs), (name, angle, speed)
    assert math.isnan(steering(math.nan).steering_angle)


def test_a_parameter_the_node_refuses_is_refused_with_its_words():
    assert parameters(SPECS, {'target_speed_m_s': 12})['target_speed_m_s'] == 12.0
    with pytest.raises(ValueError, match=r"'target_speed_m_s' = 99 is out of range \[0.5, 60\]"):
        parameters(SPECS, {'target_speed_m_s': 99})
    with pytest.raises(ValueError, match="'speed' is not a parameter of the controller"):
        parameters(SPECS, {'speed': 1.0})
