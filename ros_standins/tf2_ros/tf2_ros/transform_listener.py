"""tf2_ros.TransformListener: /tf and /tf_static into a Buffer."""

import atexit
from threading import Thread
from typing import Optional, Union

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile
from tf2_msgs.msg import TFMessage

from .buffer import Buffer

DEFAULT_TF_TOPIC = '/tf'
DEFAULT_STATIC_TF_TOPIC = '/tf_static'


def _qos(given: Optional[Union[QoSProfile, int]], durability: DurabilityPolicy) -> QoSProfile:
    if given is None:
        return QoSProfile(depth=100, durability=durability, history=HistoryPolicy.KEEP_LAST)
    return given if isinstance(given, QoSProfile) else QoSProfile(depth=given)


class TransformListener:
    """Subscribes /tf (volatile, depth 100) and /tf_static (transient local) into `buffer`."""

    def __init__(self, buffer: Buffer, node: Optional[Node] = None, *,
                 spin_thread: bool = False,
                 qos: Optional[Union[QoSProfile, int]] = None,
                 static_qos: Optional[Union[QoSProfile, int]] = None,
                 tf_topic: str = DEFAULT_TF_TOPIC,
                 tf_static_topic: str = DEFAULT_STATIC_TF_TOPIC,
                 static_only: bool = False):
        self.buffer = buffer
        if node is None:
            node = Node(f'transform_listener_impl_{id(self):010x}', enable_rosout=False,
                        start_parameter_services=False,
                        parameter_overrides=[Parameter('use_sim_time', value=False)])
        self.node = node
        self.group = ReentrantCallbackGroup()   # a callback may wait for a transform
        if not static_only:
            self.tf_sub = node.create_subscription(
                TFMessage, tf_topic, self.callback, _qos(qos, DurabilityPolicy.VOLATILE),
                callback_group=self.group)
        self.tf_static_sub = node.create_subscription(
            TFMessage, tf_static_topic, self.static_callback,
            _qos(static_qos, DurabilityPolicy.TRANSIENT_LOCAL), callback_group=self.group)
        if spin_thread:
            self.executor = SingleThreadedExecutor()

            def spin() -> None:
                self.executor.add_node(self.node)
                try:
                    self.executor.spin()
                except ExternalShutdownException:
                    pass
                self.executor.remove_node(self.node)
            self.dedicated_listener_thread = Thread(target=spin, daemon=True)
            self.dedicated_listener_thread.start()
            atexit.register(self._stop_spinning)     # before rclpy's own clean-up

    def _stop_spinning(self) -> None:
        """Stop the listener's thread (an executor left spinning at exit aborts the process)."""
        self.executor.shutdown()
        self.dedicated_listener_thread.join(5.0)

    def __del__(self) -> None:
        if hasattr(self, 'dedicated_listener_thread'):
            self._stop_spinning()
        try:
            self.unregister()
        except Exception:  # the node may be gone already at interpreter exit
            pass

    def unregister(self) -> None:
        """Stop listening."""
        if hasattr(self, 'tf_sub'):
            self.node.destroy_subscription(self.tf_sub)
        self.node.destroy_subscription(self.tf_static_sub)

    def callback(self, data: TFMessage) -> None:
        """Add each moving frame's sample."""
        for transform in data.transforms:
            self.buffer.set_transform(transform, 'default_authority')

    def static_callback(self, data: TFMessage) -> None:
        """Set each static frame."""
        for transform in data.transforms:
            self.buffer.set_transform_static(transform, 'default_authority')
