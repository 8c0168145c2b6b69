"""tf2_ros.TransformBroadcaster: TransformStamped onto /tf."""

from typing import Iterable, Union

from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from rclpy.qos import QoSProfile
from tf2_msgs.msg import TFMessage


class TransformBroadcaster:
    """Publishes transforms on /tf (depth 100, volatile)."""

    def __init__(self, node: Node, qos: Union[QoSProfile, int] = QoSProfile(depth=100)):
        self.pub_tf = node.create_publisher(TFMessage, '/tf', qos)

    def sendTransform(self, transform: Union[TransformStamped, Iterable[TransformStamped]]
                      ) -> None:  # noqa: N802 (tf2_ros' own name)
        """Publish one transform or several in one message."""
        if not isinstance(transform, list):
            transform = list(transform) if not isinstance(transform, TransformStamped) \
                else [transform]
        self.pub_tf.publish(TFMessage(transforms=transform))
