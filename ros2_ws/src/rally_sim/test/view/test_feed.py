"""
The feed: the simulator's messages (built here as the node builds them) to what the pages get.

The same feed takes a live subscription's messages and a bag's, routed by
topic name (take()); the page is told the cars' facts once their wheels are
known, their states at most rate_hz, scans from the lidar's pose.
"""

import math

from geometry_msgs.msg import Point32, PolygonStamped, PoseStamped, TransformStamped
from nav_msgs.msg import Odometry, Path
import pytest
from rally_sim.view.feed import Feed, WHEEL_FRAMES
from rally_sim_msgs.msg import WheelSlip
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import LaserScan
from tf2_msgs.msg import TFMessage
from transforms3d.euler import euler2quat


class Pages:
    """Stands where the view server does: keeps what the feed tells the pages."""

    def __init__(self):
        self.latched, self.published, self.ground = {}, [], None

    def latch(self, kind, payload):
        self.latched[kind] = payload

    def publish(self, kind, payload):
        self.published.append((kind, payload))

    def set_ground(self, png):
        self.ground = png

    def of(self, kind):
        return [payload for k, payload in self.published if k == kind]

    def watched(self):
        return True             # as if a page looked on


def odometry(t, x, y, yaw, vx, vy, r, prefix=''):
    msg = Odometry()
    msg.header.stamp.sec, msg.header.stamp.nanosec = int(t), round((t % 1) * 1e9)
    msg.header.frame_id, msg.child_frame_id = 'odom', prefix + 'base_link_ground_truth'
    p = msg.pose.pose
    p.position.x, p.position.y = x, y
    w, qx, qy, qz = euler2quat(0.02, -0.01, yaw, 'sxyz')
    p.orientation.w, p.orientation.x, p.orientation.y, p.orientation.z = w, qx, qy, qz
    msg.twist.twist.linear.x, msg.twist.twist.linear.y, msg.twist.twist.angular.z = vx, vy, r
    return msg


def wheel_frames(prefix=''):
    msg = TFMessage()
    for slot, (x, y) in zip(WHEEL_FRAMES, [(1.1, 0.7), (1.1, -0.7), (-1.3, 0.7), (-1.3, -0.7)]):
        t = TransformStamped()
        t.header.frame_id, t.child_frame_id = prefix + 'base_link', prefix + slot
        t.transform.translation.x, t.transform.translation.y = x, y
        t.transform.translation.z = 0.31
        msg.transforms.append(t)
    laser = TransformStamped()
    laser.header.frame_id, laser.child_frame_id = prefix + 'base_link', prefix + 'laser'
    laser.transform.translation.x = 0.5
    laser.transform.rotation.w = 1.0
    msg.transforms.append(laser)
    return msg


def outline():
    msg = PolygonStamped()
    msg.polygon.points = [Point32(x=x, y=y) for x, y in ((2.3, 0.9), (-2.5, 0.9), (-2.5, -0.9),
                                                         (2.3, -0.9))]
    return msg


def test_a_car_s_messages_become_its_facts_and_states():
    pages = Pages()
    feed = Feed(pages, rate_hz=50.0)
    feed.transforms(wheel_frames())
    feed.footprint('', outline())
    slip = WheelSlip(slip_ratio=[0.1, 0.2, 0.3, 0.4], slip_angle=[0.0, 0.0, -0.1, -0.1],
                     normal_load=[3000.0, 3100.0, 2900.0, 2800.0], steer_angle=[0.2, 0.18, 0, 0])
    feed.slip('', slip)
    feed.odometry('', odometry(1.0, 3.0, 4.0, 0.5, 10.0, -1.0, 0.3), now_s=100.0)
    facts = pages.latched['cars']['cars']
    assert len(facts) == 1 and facts[0]['footprint'][0] == [2.3, 0.9]
    assert facts[0]['wheels'][3] == [-1.3, -0.7] and facts[0]['wheel_radius'] == 0.31
    (state,) = pages.of('state')
    car = state['cars'][0]
    assert state['t'] == 1.0
    assert (car['x'], car['y'], car['vx'], car['vy'], car['r']) == (3.0, 4.0, 10.0, -1.0, 0.3)
    assert car['yaw'] == pytest.approx(0.5) and car['roll'] == pytest.approx(0.02)
    assert car['pitch'] == pytest.approx(-0.01)
    assert car['slip_ratio'] == [0.1, 0.2, 0.3, 0.4] and car['load'][3] == 2800.0
    feed.odometry('', odometry(1.01, 3.1, 4.0, 0.5, 10.0, -1.0, 0.3), now_s=100.01)
    assert len(pages.of('state')) == 1                  # within 1/50 s: none sent
    feed.odometry('', odometry(1.02, 3.2, 4.0, 0.5, 10.0, -1.0, 0.3), now_s=100.02)
    assert len(pages.of('state')) == 2


def test_a_scan_is_drawn_from_the_lidar_s_pose_on_its_car():
    pages = Pages()
    feed = Feed(pages, scan_rate_hz=10.0)
    feed.transforms(wheel_frames('car1/'))
    feed.odometry('car1', odometry(0.0, 10.0, 0.0, math.pi / 2, 0.0, 0.0, 0.0, 'car1/'), 0.0)
    scan = LaserScan(angle_min=-1.0, angle_increment=0.5, ranges=[1.0, float('inf'), 3.0])
    scan.header.frame_id = 'car1/laser'
    feed.scan(scan, 0.0)
    feed.scan(scan, 0.05)                               # within 1/10 s: skipped
    (sent,) = pages.of('scan')
    assert sent['car'] == 'car1' and sent['ranges'] == [1.0, None, 3.0]
    assert sent['pose'] == pytest.approx([10.0, 0.5, math.pi / 2])     # 0.5 m ahead, facing y


def test_a_bag_s_topics_are_routed_by_name():
    pages = Pages()
    feed = Feed(pages)
    feed.take('/tf_static', wheel_frames('you/'), 0.0)
    feed.take('/you/ground_truth/odom', odometry(2.0, 1.0, 1.0, 0.0, 5.0, 0.0, 0.0, 'you/'), 0.0)
    feed.take('/you/footprint', outline(), 0.0)
    feed.take('/clock', Clock(), 0.0)
    path = Path()
    for k in range(4):
        pose = PoseStamped()
        pose.pose.position.x, pose.pose.position.y = math.cos(k), math.sin(k)
        path.poses.append(pose)
    feed.take('/stage/path', path, 0.0)
    assert pages.latched['scene']['path'][1] == [round(math.cos(1), 3), round(math.sin(1), 3)]
    feed.take('/you/ground_truth/odom', odometry(2.5, 1.0, 1.0, 0.0, 5.0, 0.0, 0.0, 'you/'), 1.0)
    assert pages.latched['cars']['cars'][0]['name'] == 'you'
    assert pages.of('state')[-1]['cars'][0]['x'] == 1.0
