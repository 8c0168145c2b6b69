"""Angles: wrapping into [-pi, pi). ROS-free."""

import math


def wrap_angle(angle):
    """Return `angle` [rad] (a number or a NumPy array) brought into [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi
