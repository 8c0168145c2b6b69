"""The world over real DDS: the track's walls on `map`, its lidar on `scan`, a crash reported."""

import math

from ackermann_msgs.msg import AckermannDriveStamped
from nav_msgs.msg import OccupancyGrid, Odometry
import numpy as np
from rally_sim.resources import config_file
from rally_sim.world.stages import read_path
from rally_sim_msgs.msg import Collision, WheelTorqueCommand
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import LaserScan
from support import ros_process
from tf2_msgs.msg import TFMessage

LIDAR = """lidar:
  rate_hz: 50.0
  beams: 1081
  field_of_view_rad: 3.14159265358979
  range_min_m: 0.05
  range_max_m: 20.0
  mount_x_m: 0.275
  mount_z_m: 0.1
odometry: {}
"""
LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)


def top_straight():
    """Return a pose (x, y, heading) on the track's centre line, on its top straight."""
    path = read_path(config_file('stages/track_path.csv'))
    ahead = path[201] - path[200]
    return float(path[200, 0]), float(path[200, 1]), math.atan2(ahead[1], ahead[0])


def test_walls_on_map_a_scan_of_them_and_a_crash_into_one(simulator, tmp_path):
    profile = tmp_path / 'lidar.yaml'
    profile.write_text(LIDAR)
    x, y, heading = top_straight()
    client = simulator(pacing='lockstep', surface='track', sensors=str(profile),
                       initial_x=x, initial_y=y, initial_yaw=heading, command_timeout_s=0.0)
    node = client.node
    scans, crashes, odom, static = [], [], [], []
    node.create_subscription(LaserScan, 'scan', scans.append, 100)
    node.create_subscription(Collision, 'collision', crashes.append, 100)
    node.create_subscription(Odometry, 'odom', odom.append, 100)
    node.create_subscription(TFMessage, '/tf_static', static.append, LATCHED)
    assert client.spin_until(lambda: static, 60.0)
    client.step(0)
    # a subscriber that comes late still gets the walls (latched)
    grids = []
    node.create_subscription(OccupancyGrid, 'map', grids.append, LATCHED)
    assert client.spin_until(lambda: grids, 30.0)
    grid = grids[-1]
    assert (grid.info.width, grid.info.height) == (756, 462) and grid.info.resolution == \
        np.float32(0.05)
    assert grid.header.frame_id == 'odom' and set(grid.data) == {0, 100}
    laser = [t for m in static for t in m.transforms if t.child_frame_id == 'laser']
    assert laser and laser[0].header.frame_id == 'base_link'
    assert laser[0].transform.translation.x == 0.275 and laser[0].transform.translation.z == 0.1
    # a scan: the walls 1.2 m to each side of the centre line, in the laser frame
    client.step(20)
    assert client.spin_until(lambda: scans, 30.0)
    scan = scans[-1]
    assert scan.header.frame_id == 'laser' and len(scan.ranges) == 1081
    assert scan.angle_min == np.float32(-math.pi / 2) and scan.range_max == 20.0
    left, right = scan.ranges[-1], scan.ranges[0]
    assert abs(left - 1.2) < 0.1 and abs(right - 1.2) < 0.1, (left, right)
    assert all(math.isfinite(r) for r in scan.ranges)      # walls all round, within 20 m
    # full lock left and drive: the car hits the left wall, halts and says so
    steer = AckermannDriveStamped()
    steer.drive.steering_angle = 0.6
    client.publish_acked(node.create_publisher(AckermannDriveStamped, 'ackermann_cmd', 10),
                         steer)
    drive = WheelTorqueCommand(drive_torque=[0.0, 0.0, 600.0, 600.0], brake_torque=[0.0] * 4)
    client.publish_acked(node.create_publisher(WheelTorqueCommand, 'wheel_torque_cmd', 10),
                         drive)
    for _ in range(30):
        client.step(100)
        if client.spin_until(lambda: crashes, 0.2):
            break
    assert client.spin_until(lambda: crashes, 30.0), 'no collision'
    (crash,) = crashes
    assert crash.car == '' and crash.other == 'wall' and crash.header.frame_id == 'odom'
    assert 0.1 < crash.header.stamp.sec + crash.header.stamp.nanosec * 1e-9 < 3.0
    assert math.hypot(crash.x - x, crash.y - y) < 4.0        # on the straight, turning left
    to_left = -math.sin(heading) * (crash.x - x) + math.cos(heading) * (crash.y - y)
    assert 1.2 < to_left < 1.35                                 # in the left wall
    client.step(200)
    assert client.spin_until(lambda: odom and odom[-1].twist.twist.linear.x == 0.0, 30.0)
    output = ros_process.stop(client.process)
    assert 'the car touched a wall near' in output and 'has halted' in output


def test_a_start_in_a_wall_or_a_bad_map_stops_the_node_naming_it(simulator, tmp_path):
    x, y, heading = top_straight()
    x, y = x - 1.2 * math.sin(heading), y + 1.2 * math.cos(heading)     # on the left wall
    client = simulator(surface='track', initial_x=x, initial_y=y, initial_yaw=heading)
    assert client.process.wait(timeout=60) == 2
    said = ros_process.stop(client.process)
    assert (f"parameter 'initial_x', parameter 'initial_y', parameter 'map': car '' starts at "
            f'x = {x:.3f}, y = {y:.3f} m where its footprint overlaps a wall') in said, said
    client = simulator(surface='track', initial_x=x, initial_y=y, initial_yaw=heading,
                       argument_names='initial_x=sx initial_y=sy map=map')    # as f1tenth's
    assert client.process.wait(timeout=60) == 2
    said = ros_process.stop(client.process)
    assert "launch argument 'sx', launch argument 'sy', launch argument 'map': car ''" in said
    bad = tmp_path / 'walls.yaml'
    bad.write_text('image: walls.png\nresolution: 0.05\n')
    client = simulator(map=str(bad))
    assert client.process.wait(timeout=60) == 2
    said = ros_process.stop(client.process)
    assert f"parameter 'map': occupancy map {bad}: missing key(s) origin, negate" in said
