"""
tf2_ros on the simulator's TF tree.

A user's unmodified node, lookups between published samples, waits with
timeouts, and the broadcasters.

`./rally setup` installs rally_sim's tf2_ros stand-in where no real one exists
(ros_standins/tf2_ros); these tests hold either to tf2_ros's behaviour.
"""

import os
import threading
import time

from geometry_msgs.msg import PointStamped, TransformStamped
from nav_msgs.msg import Odometry
import numpy as np
import pytest
import rclpy
from rclpy.duration import Duration
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile
from rclpy.time import Time
from support import ros_process
from tf2_msgs.msg import TFMessage
import tf2_ros
from transforms3d.quaternions import rotate_vector

USER_NODE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
                         'support', 'tf2_user_node.py')


def stamp_ns(stamp) -> int:
    return stamp.sec * 10 ** 9 + stamp.nanosec


def quaternion(r):
    return np.array([r.w, r.x, r.y, r.z])


def vector(v):
    return np.array([v.x, v.y, v.z])


class Heard:
    """Odometry, /tf and /tf_static as the test's node hears them, by stamp."""

    def __init__(self, node):
        self.odom, self.tf, self.static, self.seen = {}, {}, [], {}
        node.create_subscription(Odometry, 'odom',
                                 lambda m: self.odom.__setitem__(stamp_ns(m.header.stamp), m), 100)
        node.create_subscription(TFMessage, '/tf', self.on_tf, 100)
        node.create_subscription(
            TFMessage, '/tf_static', lambda m: self.static.extend(m.transforms),
            QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        node.create_subscription(PointStamped, 'imu_seen',
                                 lambda m: self.seen.__setitem__(stamp_ns(m.header.stamp), m), 100)

    def on_tf(self, message: TFMessage) -> None:
        for t in message.transforms:
            if t.child_frame_id == 'base_link':
                self.tf[stamp_ns(t.header.stamp)] = t


def spun(node):
    """Spin `node` in a thread of its own (an executor of its context); return a stopper."""
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()

    def stop():
        executor.shutdown()
        thread.join(10.0)
    return stop


def test_an_unmodified_tf2_ros_node_finds_the_imu_where_odometry_and_tf_static_put_it(
        simulator):
    client = simulator(vehicle='volvo_v40', pacing='lockstep', command_timeout_s=0.0,
                       initial_speed=10.0)
    heard = Heard(client.node)
    user = ros_process.start_python(USER_NODE)
    try:
        assert client.spin_until(lambda: heard.static, 30.0)
        for _ in range(200):        # until the user's node has answered ten states
            client.step(10)
            if client.spin_until(lambda: len(heard.seen) >= 10, 0.5):
                break
    finally:
        print(ros_process.stop(user))
    imu = next(t for t in heard.static if t.child_frame_id == 'imu_link')
    assert imu.header.frame_id == 'base_link'
    compared = 0
    for stamp, seen in heard.seen.items():
        odom = heard.odom[stamp].pose.pose
        q = quaternion(odom.orientation)
        expected = vector(odom.position) + rotate_vector(vector(imu.transform.translation), q)
        got = np.array([seen.point.x, seen.point.y, seen.point.z])
        assert got == pytest.approx(expected, abs=1e-9)
        assert seen.header.frame_id == 'odom'
        compared += 1
    assert compared >= 10
    xs = [heard.odom[s].pose.pose.position.x for s in heard.seen]
    assert max(xs) - min(xs) > 0.05                 # the car moved between the lookups


def test_a_lookup_between_two_published_samples_interpolates_them(simulator):
    client = simulator(vehicle='rwd_gravel', pacing='lockstep', command_timeout_s=0.0,
                       initial_speed=8.0, initial_yaw_rate=0.5, surface='gravel')
    heard = Heard(client.node)
    buffer = tf2_ros.Buffer(node=client.node)
    tf2_ros.TransformListener(buffer, client.node)
    period_ns, step_ns = 10 ** 7, 5 * 10 ** 7       # publishing at 100 Hz; 50 steps of 1 ms
    stepped_ns = 0

    def all_heard() -> bool:        # up to the last stamp, in the buffer too, 3 in a row
        stamps = sorted(heard.tf)[-3:]
        return (len(stamps) == 3 and stamps[2] == stepped_ns
                and stamps[2] - stamps[0] == 2 * period_ns
                and buffer.can_transform('odom', 'base_link', Time(nanoseconds=stamps[2])))
    for _ in range(20):     # a step returns before this node has heard what it published
        client.step(50)
        stepped_ns += step_ns
        if client.spin_until(all_heard, 5.0):
            break
    assert all_heard()
    stamps = sorted(heard.tf)
    a, b = heard.tf[stamps[-3]], heard.tf[stamps[-2]]
    middle = stamps[-3] + (stamps[-2] - stamps[-3]) // 4
    got = buffer.lookup_transform('odom', 'base_link', Time(nanoseconds=middle))
    r = (middle - stamps[-3]) / (stamps[-2] - stamps[-3])
    ta, tb = vector(a.transform.translation), vector(b.transform.translation)
    assert vector(got.transform.translation) == pytest.approx(ta + r * (tb - ta), abs=1e-12)
    qa, qb = quaternion(a.transform.rotation), quaternion(b.transform.rotation)
    qb = qb if qa @ qb >= 0.0 else -qb
    omega = np.arccos(min(1.0, qa @ qb))
    assert omega > 1e-4                             # the car turns between the two samples
    slerp = (np.sin((1 - r) * omega) * qa + np.sin(r * omega) * qb) / np.sin(omega)
    assert quaternion(got.transform.rotation) == pytest.approx(slerp, abs=1e-9)
    latest = buffer.lookup_transform('odom', 'base_link', Time())
    assert stamp_ns(latest.header.stamp) == stamps[-1]
    with pytest.raises(tf2_ros.ExtrapolationException, match='into the future'):
        buffer.lookup_transform('odom', 'base_link', Time(nanoseconds=stamps[-1] + 10 ** 6))


def test_can_transform_waits_for_data_up_to_its_timeout(simulator):
    client = simulator(vehicle='volvo_v40', pacing='lockstep', command_timeout_s=0.0)
    listening = rclpy.create_node('tf_listener', context=client.context)
    buffer = tf2_ros.Buffer()
    tf2_ros.TransformListener(buffer, listening)
    stop = spun(listening)
    try:
        client.step(10)
        assert buffer.can_transform('odom', 'base_link', Time(), timeout=Duration(seconds=60.0))
        latest = stamp_ns(buffer.lookup_transform('odom', 'base_link', Time()).header.stamp)
        later = Time(nanoseconds=latest + 200 * 10 ** 6)      # 0.2 s of simulated time ahead
        assert not buffer.can_transform('odom', 'base_link', later)
        answer = {}

        def wait():
            answer['ok'] = buffer.can_transform('odom', 'base_link', later,
                                                timeout=Duration(seconds=120.0))
        waiting = threading.Thread(target=wait)
        waiting.start()
        while waiting.is_alive() and stamp_ns(buffer.lookup_transform(
                'odom', 'base_link', Time()).header.stamp) < latest + 200 * 10 ** 6:
            client.step(10)
        waiting.join(120.0)
        assert answer == {'ok': True}
        t0 = time.monotonic()
        ok, why = buffer.can_transform('odom', 'nowhere', Time(), timeout=Duration(seconds=0.5),
                                       return_debug_tuple=True)
        assert not ok and 'does not exist' in why
        assert time.monotonic() - t0 >= 0.5           # it waited its timeout out
        with pytest.raises(tf2_ros.LookupException):
            buffer.lookup_transform('odom', 'nowhere', Time(), timeout=Duration(seconds=0.1))
    finally:
        stop()
        listening.destroy_node()


def test_the_broadcasters_reach_a_listener_and_static_frames_a_late_one(simulator):
    client = simulator(vehicle='volvo_v40', pacing='lockstep', command_timeout_s=0.0)
    node = client.node
    static = tf2_ros.StaticTransformBroadcaster(node)
    moving = tf2_ros.TransformBroadcaster(node)
    sent = []
    for child, x in (('cone_1', 4.0), ('cone_2', 6.0)):       # sent one at a time: both kept
        t = TransformStamped()
        t.header.frame_id, t.child_frame_id = 'odom', child
        t.transform.translation.x, t.transform.rotation.w = x, 1.0
        static.sendTransform(t)
        sent.append(t)
    late = rclpy.create_node('late_listener', context=client.context)
    buffer = tf2_ros.Buffer()
    tf2_ros.TransformListener(buffer, late)
    stop = spun(late)
    try:
        assert buffer.can_transform('cone_1', 'cone_2', Time(), timeout=Duration(seconds=30.0))
        between = buffer.lookup_transform('cone_1', 'cone_2', Time())
        assert between.transform.translation.x == pytest.approx(2.0)
        t = TransformStamped()
        t.header.frame_id, t.child_frame_id = 'base_link', 'flag'
        t.header.stamp = Time(nanoseconds=5 * 10 ** 9).to_msg()
        t.transform.translation.z, t.transform.rotation.w = 1.5, 1.0
        deadline = time.monotonic() + 30.0
        while not buffer.can_transform('base_link', 'flag', Time()) and \
                time.monotonic() < deadline:
            moving.sendTransform([t])
            time.sleep(0.1)
        got = buffer.lookup_transform('base_link', 'flag', Time())
        assert got.transform.translation.z == pytest.approx(1.5)
        assert stamp_ns(got.header.stamp) == 5 * 10 ** 9
    finally:
        stop()
        late.destroy_node()
