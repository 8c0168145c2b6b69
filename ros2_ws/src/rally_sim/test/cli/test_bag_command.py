"""
`./rally bag record / info / play` on a running simulator, read back by rosbags and mcap_ros2.

The recorder is its own process, as a user starts it beside a launch: it
discovers the topics, records each from its first message (latched ones
too, published before it started), and writes the bag on Ctrl-C.
"""

import os
import re
import signal
import subprocess
import sys
import time

from nav_msgs.msg import Odometry
import pytest
import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile
from rosgraph_msgs.msg import Clock
from support import ros_process
from support.bags import decode_everything
from tf2_msgs.msg import TFMessage

STEPS = 10


def bag(*args: str, **popen) -> subprocess.Popen:
    """Start `python -m rally_sim.cli.bag ARGS` (what ./rally bag runs)."""
    return subprocess.Popen([sys.executable, '-m', 'rally_sim.cli.bag', *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ), **popen)


def stamp_ns(stamp) -> int:
    return stamp.sec * 10 ** 9 + stamp.nanosec


def lines_until(process, pattern: str, timeout_s: float = 60.0) -> str:
    """Read the process's output until a line matches `pattern`; return what was read."""
    seen = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError('the process ended: ' + ''.join(seen))
        seen.append(line)
        if re.search(pattern, line):
            return ''.join(seen)
    raise AssertionError(f'no line matched {pattern!r}: ' + ''.join(seen))


@pytest.fixture
def recorded(simulator, tmp_path):
    """Record every topic of a lockstep simulator; return the bag and the odometry heard."""
    client = simulator(vehicle='rwd_gravel', pacing='lockstep', command_timeout_s=0.0,
                       initial_speed=5.0)
    heard = []
    client.node.create_subscription(Odometry, 'odom', heard.append, 1000)
    client.step(10)
    folder = tmp_path / 'bag'
    recorder = bag('record', '-a', '-o', str(folder), '--use-sim-time')
    try:
        lines_until(recorder, r'recording /odom ')
        out = lines_until(recorder, r'recording /tf_static \(tf2_msgs/msg/TFMessage, latched\)')
        assert client.spin_until(lambda: client.node.count_subscribers('/odom') >= 2, 30.0)
        joined_ns = 10 * 10 ** 6        # 10 steps of 1 ms before the recorder subscribed
        for _ in range(STEPS):
            client.step(100)
        assert client.spin_until(lambda: len([m for m in heard if stamp_ns(m.header.stamp) >
                                              joined_ns]) >= STEPS * 10, 30.0)
        # Only what was published after the recorder subscribed (an earlier message may still
        # wait in the test's queue: it is taken by a later spin).
        heard[:] = [m for m in heard if stamp_ns(m.header.stamp) > joined_ns]
        recorder.send_signal(signal.SIGINT)
        out += recorder.communicate(timeout=60)[0]
    finally:
        ros_process.stop(recorder)
    assert recorder.returncode == 0, out
    assert f'wrote {folder}' in out
    return folder, heard


def test_record_takes_every_message_the_simulator_sent_and_its_latched_topics(recorded):
    folder, heard = recorded
    decoded = decode_everything(folder)                 # rosbags and mcap_ros2 agree
    recorded_stamps = [stamp_ns(m.header.stamp) for m in decoded['/odom']]
    heard_stamps = [stamp_ns(m.header.stamp) for m in heard]
    assert set(heard_stamps) <= set(recorded_stamps)
    assert len(heard_stamps) == STEPS * 10
    assert decoded['/tf_static'][0].transforms[0].child_frame_id == 'imu_link'
    assert '/wheel_slip' in decoded and '/clock' in decoded
    by_stamp = {stamp_ns(m.header.stamp): m for m in decoded['/odom']}
    for message in heard:
        assert by_stamp[stamp_ns(message.header.stamp)].pose.pose.position.x == \
            message.pose.pose.position.x
    # ./rally bag info counts what both readers count.
    done = subprocess.run([sys.executable, '-m', 'rally_sim.cli.bag', 'info', str(folder)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert re.search(r'^Storage id: +mcap$', text, re.M)
    assert re.search(rf'^Messages: +{sum(len(m) for m in decoded.values())}$', text, re.M)
    for topic, messages in decoded.items():
        assert re.search(rf'Topic: {re.escape(topic)} \| Type: \S+ \| Count: {len(messages)} \| '
                         r'Serialization Format: cdr', text), topic


def test_play_publishes_the_bag_s_messages_and_its_clock(recorded):
    folder, _ = recorded
    decoded = decode_everything(folder)
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('bag_listener', context=context)
    got, clock, static = [], [], []
    node.create_subscription(Odometry, '/odom', got.append, 1000)
    node.create_subscription(Clock, '/clock', clock.append, 1000)
    node.create_subscription(TFMessage, '/tf_static', static.append,
                             QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
    player = bag('play', str(folder), '--clock', '100', '--delay', '3', '--rate', '0.5')
    try:
        ros_process.spin_until(node, lambda: player.poll() is not None, 120.0)
        ros_process.spin_until(node, lambda: len(got) >= len(decoded['/odom']) // 2, 10.0)
        ros_process.spin_until(node, lambda: False, 0.5)
    finally:
        out = ros_process.stop(player)
        node.destroy_node()
        rclpy.shutdown(context=context)
    assert player.returncode == 0, out
    assert 'played' in out
    recorded_odom = {stamp_ns(m.header.stamp): m for m in decoded['/odom']}
    for message in got:
        original = recorded_odom[stamp_ns(message.header.stamp)]
        assert message.pose.pose.position.x == original.pose.pose.position.x
    assert static and static[0].transforms[0].child_frame_id == 'imu_link'
    times = [stamp_ns(c.clock) for c in clock]      # the bag's own /clock left out
    assert len(times) >= 10 and times == sorted(times)
    first, last = min(recorded_odom), max(recorded_odom)
    assert first - 10 ** 8 <= min(times) and max(times) <= last + 10 ** 8     # within 0.1 s


@pytest.mark.parametrize('args, message', [
    (['record', '-o', 'x'], 'give either -a or the topics'),
    (['record', '-a', '-o', '.'], 'exists: a bag goes into a new folder'),
    (['info', 'no_such_bag'], 'no such folder'),
    (['play', '.', '--rate', '0'], '--rate 0.0: must be above 0'),
])
def test_bad_arguments_are_refused_with_the_reason(args, message, tmp_path):
    done = subprocess.run([sys.executable, '-m', 'rally_sim.cli.bag', *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert message in done.stderr


@pytest.mark.parametrize('verb', ['info', 'play'])
def test_a_folder_that_is_no_bag_is_refused_with_the_reason(verb, tmp_path):
    done = subprocess.run([sys.executable, '-m', 'rally_sim.cli.bag', verb, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f'./rally bag {verb}: error: {tmp_path}: no MCAP file' in done.stderr
    assert 'Traceback' not in done.stderr
