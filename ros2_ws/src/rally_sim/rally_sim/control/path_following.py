"""
The example path follower's law: steer for where the car will be, by pure pursuit.

ROS-free: the path_follower node (ros/path_follower_node.py) answers each
odometry message with it, and the in-process campaign engine calls it
between control periods, so both give the same commands for the same
states.
"""

from typing import Any, Dict, Tuple

from .delay import DelayCompensator
from .path import ClosedPath
from .pure_pursuit import PurePursuit, PurePursuitSettings


class PathFollowing:
    """Delay compensation, then pure pursuit, on planar states (odometry)."""

    def __init__(self, path: ClosedPath, p: Dict[str, Any]):
        """Follow `path` with the node's parameters `p` (ros/path_follower_node.SPECS)."""
        self.settings = PurePursuitSettings(
            wheelbase_m=p['wheelbase_m'], cg_to_rear_m=p['cg_to_rear_m'],
            lookahead_min_m=p['lookahead_min_m'], lookahead_gain_s=p['lookahead_gain_s'],
            max_steer_rad=p['max_steer_rad'], target_speed_m_s=p['target_speed_m_s'],
            lateral_accel_limit_m_s2=p['lateral_accel_limit_m_s2'])
        self.follower = PurePursuit(path, self.settings)
        self.compensator = DelayCompensator(p['delay_compensation_s'], p['wheelbase_m'],
                                            p['cg_to_rear_m'])
        self.acceleration = float(p['acceleration_m_s2'])

    def follow(self, path: ClosedPath) -> None:
        """Follow another path from now on."""
        self.follower = PurePursuit(path, self.settings)

    def answer(self, stamp_s: float, x: float, y: float, yaw: float, vx: float
               ) -> Tuple[float, float]:
        """Return steer [rad] and speed [m/s] for the state measured at stamp_s."""
        x, y, yaw = self.compensator.predict(stamp_s, x, y, yaw, vx)
        steer, speed = self.follower.command(x, y, yaw, vx)
        self.compensator.sent(stamp_s, steer)
        return float(steer), float(speed)
