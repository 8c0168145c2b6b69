"""
The simulator's messages as the view reads them, by their fields alone.

ROS-free: these functions read a message's attributes, so they take the
messages of a live subscription (rclpy) and of a bag (rosbags) alike, the
one feed (feed.py) serving both `./rally watch` and its bag replay.
"""

import math
from typing import Dict, List, Optional, Sequence

import numpy as np
from transforms3d.euler import quat2euler

from .frames import CarSample
from .ground import Walls

TRIANGLE_LIST, ADD = 11, 0
"""visualization_msgs/Marker's type TRIANGLE_LIST and action ADD."""
GEARS = {-1: 'R', 0: 'N'}


def seconds(stamp) -> float:
    """Return a builtin_interfaces/Time in seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def frame_prefix(frame_id: str) -> str:
    """Return a car's frame prefix ('car1/', or '') from one of its frames."""
    return frame_id.rsplit('/', 1)[0] + '/' if '/' in frame_id else ''


def sample_of(name: str, odometry, slip=None) -> CarSample:
    """Return a car's state from its ground-truth odometry and wheel_slip."""
    p, q, v = odometry.pose.pose.position, odometry.pose.pose.orientation, odometry.twist.twist
    roll, pitch, yaw = quat2euler((q.w, q.x, q.y, q.z), 'sxyz')
    wheels = {} if slip is None else {
        'steer': list(slip.steer_angle), 'slip_ratio': list(slip.slip_ratio),
        'slip_angle': list(slip.slip_angle), 'load': list(slip.normal_load),
        'travel': list(slip.suspension_travel)}
    return CarSample(name, seconds(odometry.header.stamp), p.x, p.y, yaw, v.linear.x,
                     v.linear.y, v.angular.z, roll, pitch, **wheels)


def extra_of(drivetrain=None, pedal: Optional[float] = None, slip=None,
             lock_rad: Optional[float] = None) -> Dict[str, object]:
    """Return what the HUD shows beyond the state: gear, engine speed, pedals, steer share."""
    out = {'gear': None, 'gear_name': None, 'rpm': None, 'throttle': None, 'brake': pedal,
           'steer_share': None}
    if drivetrain is not None:
        gear = int(drivetrain.gear)
        out.update(gear=gear, gear_name=GEARS.get(gear, str(gear)),
                   rpm=float(drivetrain.engine_rpm), throttle=float(drivetrain.throttle))
    if slip is not None and lock_rad:
        steer = 0.5 * (slip.steer_angle[0] + slip.steer_angle[1])
        out['steer_share'] = max(-1.0, min(1.0, float(steer) / lock_rad))
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in out.items()}


def outline_of(polygon) -> List[List[float]]:
    """Return a PolygonStamped's corners as [x, y] pairs."""
    return [[float(p.x), float(p.y)] for p in polygon.polygon.points]


def triangles_of(markers) -> Dict[str, np.ndarray]:
    """Return each surface type's triangles (n, 3, 3) from stage/surface's markers."""
    found = {}
    for marker in markers.markers:
        if marker.type != TRIANGLE_LIST or marker.action != ADD:
            continue
        corners = np.array([[p.x, p.y, p.z] for p in marker.points], dtype=float)
        if len(corners) >= 3:
            found[marker.text or f'surface_{marker.id}'] = \
                corners[:len(corners) // 3 * 3].reshape(-1, 3, 3)
    return found


def walls_of(grid) -> Optional[Walls]:
    """Return an occupancy grid as Walls (None for an empty grid: no walls)."""
    info = grid.info
    if info.width == 0 or info.height == 0:
        return None
    q = info.origin.orientation
    yaw = quat2euler((q.w, q.x, q.y, q.z), 'sxyz')[2] if (q.w or q.x or q.y or q.z) else 0.0
    cells = np.asarray(grid.data, dtype=np.int8).reshape(info.height, info.width)
    return Walls(cells, info.resolution, info.origin.position.x, info.origin.position.y, yaw)


def path_points(path) -> Optional[np.ndarray]:
    """Return a nav_msgs/Path's (N, 2) points (None under three)."""
    points = np.array([[p.pose.position.x, p.pose.position.y] for p in path.poses])
    return points if len(points) >= 3 else None


def scan_beams(scan, limit: int) -> Dict[str, object]:
    """Return a LaserScan's beams for the page: at most `limit`, no return as None."""
    ranges: Sequence[float] = list(scan.ranges)
    step = max(1, math.ceil(len(ranges) / limit))
    return {'angle_min': float(scan.angle_min),
            'angle_increment': float(scan.angle_increment) * step,
            'ranges': [round(float(r), 2) if math.isfinite(r) else None for r in ranges[::step]]}
