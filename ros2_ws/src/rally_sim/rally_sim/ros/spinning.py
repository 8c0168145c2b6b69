"""Run a node until Ctrl-C or an external shutdown, then clean up."""

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node


def spin_until_shutdown(node: Node) -> None:
    """Spin `node`; on Ctrl-C (SIGINT) or shutdown destroy it and shut rclpy down cleanly."""
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
