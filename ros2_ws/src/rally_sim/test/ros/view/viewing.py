"""The view server node in its own process, and what the tests record of the simulator's topics."""

import math
import subprocess
import sys

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import Odometry
from rally_sim.ros.view.driving import KEEPALIVE_S
from rally_sim_msgs.msg import DriverCommand
from support import ros_process
from support.browser import free_port, served

START_S = 120.0
"""A first start may load the compiled physics under load."""


def start_view(tag: str, **params) -> tuple:
    """Start the view server node with parameters (port: a free one); return (process, URL)."""
    port = params.pop('port', None) or free_port()
    args = [sys.executable, '-m', 'rally_sim.ros.view_server', '--ros-args',
            '-p', f'port:={port}']
    for name, value in params.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        args += ['-p', f'{name}:={text}']
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=ros_process.tagged_environment(tag))
    url = f'http://localhost:{port}/'
    served(url, lambda: process.poll() is None, START_S)
    return process, url


class Heard:
    """The commands and ground truth the test node hears, in their order."""

    def __init__(self, node, namespace: str = ''):
        """Subscribe to a car's ackermann_cmd, driver_cmd and ground_truth/odom."""
        self.steer, self.pedals, self.odom = [], [], {}
        node.create_subscription(AckermannDriveStamped, namespace + 'ackermann_cmd',
                                 self.steer.append, 10000)
        node.create_subscription(DriverCommand, namespace + 'driver_cmd', self.pedals.append,
                                 10000)
        node.create_subscription(Odometry, namespace + 'ground_truth/odom',
                                 lambda m: self.odom.__setitem__(stamp_ns(m), m), 10000)

    def last_odom(self) -> Odometry:
        return self.odom[max(self.odom)]

    def answered(self) -> bool:
        """
        Say if the view has caught up with the newest state (ackermann and pedals both).

        It answers a state when its commands change, and at least every KEEPALIVE_S.
        """
        newest = max(self.odom) - KEEPALIVE_S * 1e9 - 1 if self.odom else math.inf
        return bool(self.steer and self.pedals and stamp_ns(self.steer[-1]) >= newest
                    and stamp_ns(self.pedals[-1]) >= newest)


def stamp_ns(msg) -> int:
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
