"""What a controller node reads from nav_msgs/Odometry: the planar state and its stamp."""

from nav_msgs.msg import Odometry

from ...control.interface import PlanarState, yaw_of


def planar_state(msg: Odometry) -> PlanarState:
    """Return the planar pose and twist of an odometry message (yaw from its quaternion)."""
    pose, twist = msg.pose.pose, msg.twist.twist
    q = pose.orientation
    return PlanarState(pose.position.x, pose.position.y, yaw_of(q.x, q.y, q.z, q.w),
                       twist.linear.x, twist.linear.y, twist.angular.z)


def stamp_ns(msg) -> int:
    """Return a message's header stamp in nanoseconds."""
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
