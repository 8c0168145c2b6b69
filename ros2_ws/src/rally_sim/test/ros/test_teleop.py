"""teleop_twist_keyboard, typed at through a pseudo-terminal, drives the car on cmd_vel."""

import math
import os
import pty
import subprocess
import sys

from nav_msgs.msg import Odometry
import pytest
from support import ros_launch_kit, ros_process

pytestmark = ros_launch_kit.needed()


def yaw_of(msg):
    q = msg.pose.pose.orientation
    return math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


def test_keys_typed_at_teleop_twist_keyboard_drive_and_turn_the_car(simulator):
    client = simulator(command_mode='speed', command_timeout_s=0.0, surface='tarmac_dry')
    odom = []
    client.node.create_subscription(Odometry, 'odom', odom.append, 100)
    assert client.spin_until(lambda: odom, 60.0)
    terminal, keyboard = pty.openpty()
    teleop = subprocess.Popen(
        [sys.executable, ros_launch_kit.path('clients', 'teleop_twist_keyboard.py')],
        stdin=keyboard, stdout=keyboard, stderr=keyboard, env=dict(os.environ), close_fds=True)
    os.close(keyboard)
    try:
        def typed(keys):
            os.write(terminal, keys.encode())
        # 'i': forward at teleop's 0.5 m/s; sent again until the simulator has it
        start = odom[-1].pose.pose.position.x
        for _ in range(30):
            typed('i')
            if client.spin_until(lambda: odom[-1].twist.twist.linear.x > 0.3, 2.0):
                break
        assert client.spin_until(lambda: odom[-1].pose.pose.position.x - start > 0.5, 60.0)
        assert odom[-1].twist.twist.linear.x == pytest.approx(0.5, abs=0.1)
        assert abs(odom[-1].twist.twist.angular.z) < 0.01
        # 'u': forward and left (0.5 m/s, 1 rad/s: more than the lock gives, so full lock)
        heading = yaw_of(odom[-1])
        typed('u')
        assert client.spin_until(lambda: odom[-1].twist.twist.angular.z > 0.05, 60.0)
        assert client.spin_until(lambda: yaw_of(odom[-1]) - heading > 0.2, 60.0)
        # 'k': stop
        typed('k')
        assert client.spin_until(lambda: abs(odom[-1].twist.twist.linear.x) < 0.02, 60.0)
    finally:
        os.write(terminal, b'\x03')            # Ctrl-C: teleop sends a last zero twist, exits
        try:
            teleop.wait(timeout=30)
        finally:
            if teleop.poll() is None:
                teleop.kill()
            os.close(terminal)
    assert teleop.returncode == 0
    output = ros_process.stop(client.process)
    assert 'Traceback' not in output, output
