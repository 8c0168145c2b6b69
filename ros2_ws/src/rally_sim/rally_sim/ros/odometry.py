"""What a planar controller reads from nav_msgs/Odometry."""

from typing import NamedTuple

from nav_msgs.msg import Odometry
from transforms3d.euler import quat2euler


class PlanarState(NamedTuple):
    """Pose in the odom frame and twist in the body frame, in the ground's plane."""

    x: float
    y: float
    yaw: float
    vx: float
    vy: float
    yaw_rate: float


def planar_state(msg: Odometry) -> PlanarState:
    """Return the planar pose and twist of an odometry message (yaw from its quaternion)."""
    pose, twist = msg.pose.pose, msg.twist.twist
    q = pose.orientation
    yaw = quat2euler((q.w, q.x, q.y, q.z), 'sxyz')[2]
    return PlanarState(pose.position.x, pose.position.y, yaw, twist.linear.x, twist.linear.y,
                       twist.angular.z)
