"""
A speed and a yaw rate (geometry_msgs/Twist, cmd_vel) as a car with front steering drives them.

The steer angle of the bicycle that turns at yaw rate w when its rear axle
moves at v: delta = atan(L w / v), L the wheelbase. Reversing, the same
formula turns the wheels the other way, as a driver does. Near standstill
(|v| below SLOWEST_M_S) the yaw rate asked for is taken at SLOWEST_M_S,
forward when v is 0: the wheels turn toward the turn asked for, full lock
once it cannot be had at that speed, and a car at rest turns its wheels and
stays put (it cannot turn on the spot). The angle is held within the car's
lock.
"""

import math

SLOWEST_M_S = 0.1
"""Below this speed [m/s] a yaw rate is steered for as at this speed."""


def steer_for(speed_m_s: float, yaw_rate_rad_s: float, wheelbase_m: float,
              max_steer_rad: float) -> float:
    """Return the bicycle steer angle [rad] that turns at the yaw rate at the speed."""
    speed = math.copysign(max(abs(speed_m_s), SLOWEST_M_S), speed_m_s or 1.0)
    steer = math.atan(wheelbase_m * yaw_rate_rad_s / speed)
    return min(max(steer, -max_steer_rad), max_steer_rad)
