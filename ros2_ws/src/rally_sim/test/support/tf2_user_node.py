"""
A user's node written as F1TENTH nodes are: tf2_ros's Buffer and TransformListener.

Nothing in it knows rally_sim. On each odometry message it looks the IMU's
frame up in the odometry's frame at the latest time and publishes where
it found it (imu_seen, a PointStamped, stamped with the transform's time),
or says why it could not.
"""

from geometry_msgs.msg import PointStamped
from nav_msgs.msg import Odometry
import rclpy
from rclpy.node import Node
from tf2_ros import TransformException
from tf2_ros.buffer import Buffer
from tf2_ros.transform_listener import TransformListener


class ImuFinder(Node):
    """Looks a frame up on every odometry message."""

    def __init__(self):
        super().__init__('imu_finder')
        self.tf_buffer = Buffer()
        self.tf_listener = TransformListener(self.tf_buffer, self)
        self.create_subscription(Odometry, 'odom', self.on_odom, 10)
        self.seen = self.create_publisher(PointStamped, 'imu_seen', 10)

    def on_odom(self, msg: Odometry) -> None:
        """Publish the IMU's origin in odom at the newest time the buffer has."""
        try:
            t = self.tf_buffer.lookup_transform(msg.header.frame_id, 'imu_link',
                                                rclpy.time.Time())
        except TransformException as ex:
            self.get_logger().info(f'Could not transform imu_link: {ex}')
            return
        point = PointStamped()
        point.header = t.header
        v = t.transform.translation
        point.point.x, point.point.y, point.point.z = v.x, v.y, v.z
        self.seen.publish(point)


def main() -> None:
    rclpy.init()
    node = ImuFinder()
    try:
        rclpy.spin(node)
    except KeyboardInterrupt:
        pass


if __name__ == '__main__':
    main()
