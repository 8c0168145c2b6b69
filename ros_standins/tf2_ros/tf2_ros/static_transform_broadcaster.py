"""tf2_ros.StaticTransformBroadcaster: latched transforms on /tf_static."""

from typing import Iterable, Union

from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile
from tf2_msgs.msg import TFMessage

STATIC_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                        history=HistoryPolicy.KEEP_LAST)


class StaticTransformBroadcaster:
    """Keeps every static frame sent so far and publishes them all, latched, on each send."""

    def __init__(self, node: Node, qos: Union[QoSProfile, int] = STATIC_QOS):
        self.pub_tf = node.create_publisher(TFMessage, '/tf_static', qos)
        self.net_message = TFMessage()
        self._child_frame_ids = {}

    def sendTransform(self, transform: Union[TransformStamped, Iterable[TransformStamped]]
                      ) -> None:  # noqa: N802 (tf2_ros' own name)
        """Add or replace frames by child_frame_id, then publish the whole set."""
        transforms = [transform] if isinstance(transform, TransformStamped) else list(transform)
        for one in transforms:
            self._child_frame_ids[one.child_frame_id] = one
        self.net_message.transforms = list(self._child_frame_ids.values())
        self.pub_tf.publish(self.net_message)
