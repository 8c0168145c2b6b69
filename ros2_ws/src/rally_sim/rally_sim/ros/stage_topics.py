"""
The stage in RViz: its surfaces and its reference path, published once on latched topics.

`stage/surface` (visualization_msgs/MarkerArray): the surface map as
coloured ground, one TRIANGLE_LIST per surface type in stage_view's
colours, on the height map where there is one. `stage/path`
(nav_msgs/Path): the reference path beside the map (STAGE_path.csv), on
the ground. `map` (nav_msgs/OccupancyGrid): the walls the cars touch and
the lidar sees (the `map` parameter), for RViz's Map display and for
stacks that localise on it. All are transient-local with a history of one,
so RViz or a recorder that joins later still gets them; they are published when the
simulator loads a stage and again when its `surface` parameter changes,
never per step. Relative names: a namespaced car publishes its own (set
`publish_stage` false for a second car on the same stage).
"""

from array import array
from typing import Optional

from geometry_msgs.msg import Point, PoseStamped
from nav_msgs.msg import OccupancyGrid, Path
import numpy as np
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from visualization_msgs.msg import Marker, MarkerArray

from .conversions import Frames, quaternion, stamp
from ..physics.surfaces import Surface
from ..world.occupancy import OccupancyMap
from ..world.stage_view import colour_of, ground_triangles, path_file
from ..world.stages import read_path

LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
PATH_ABOVE_GROUND_M = 0.05
"""The path is drawn this far above the ground, so that the ground does not hide it."""


def surface_markers(surface: Surface, frame: str) -> MarkerArray:
    """Return the surface map as one triangle list per surface type (after a DELETEALL)."""
    markers = [Marker(action=Marker.DELETEALL, ns='surface')]
    markers[0].header.frame_id = frame
    for index, (name, triangles) in enumerate(sorted(ground_triangles(surface).items())):
        marker = Marker(type=Marker.TRIANGLE_LIST, action=Marker.ADD, ns='surface', id=index)
        marker.header.frame_id = frame
        marker.pose.orientation.w = 1.0
        marker.scale.x = marker.scale.y = marker.scale.z = 1.0
        marker.color.r, marker.color.g, marker.color.b = colour_of(name)
        marker.color.a = 1.0
        marker.text = name
        marker.points = [Point(x=x, y=y, z=z) for x, y, z in triangles.reshape(-1, 3).tolist()]
        markers.append(marker)
    return MarkerArray(markers=markers)


def path_message(points: np.ndarray, surface: Surface, frame: str) -> Path:
    """Return a closed path's points as poses on the ground, each heading to the next."""
    ahead = np.roll(points, -1, axis=0) - points
    headings = np.arctan2(ahead[:, 1], ahead[:, 0])
    heights = surface.height_at(points[:, 0], points[:, 1]) + PATH_ABOVE_GROUND_M
    path = Path()
    path.header.frame_id = frame
    for (x, y), z, yaw in zip(points.tolist(), heights.tolist(), headings.tolist()):
        pose = PoseStamped()
        pose.header.frame_id = frame
        pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = x, y, z
        (pose.pose.orientation.x, pose.pose.orientation.y, pose.pose.orientation.z,
         pose.pose.orientation.w) = quaternion(0.0, 0.0, yaw)
        path.poses.append(pose)
    return path


class StageTopics:
    """The latched stage topics of one simulator node."""

    def __init__(self, node: Node, frames: Frames):
        """Create the two latched publishers on `node`."""
        self.node, self.frames = node, frames
        self.surface_pub = node.create_publisher(MarkerArray, 'stage/surface', LATCHED)
        self.path_pub = node.create_publisher(Path, 'stage/path', LATCHED)
        self.map_pub = node.create_publisher(OccupancyGrid, 'map', LATCHED)
        self.path: Optional[np.ndarray] = None

    def show_walls(self, walls: Optional[OccupancyMap], now_ns: int) -> None:
        """Publish the occupancy map (an empty 0 x 0 grid for no walls)."""
        grid = OccupancyGrid()
        grid.header.stamp = stamp(now_ns)
        grid.header.frame_id = self.frames.odom
        if walls is not None:
            info = grid.info
            info.map_load_time = stamp(now_ns)
            info.resolution = walls.resolution_m
            info.height, info.width = walls.cells.shape
            info.origin.position.x, info.origin.position.y = walls.origin_x_m, walls.origin_y_m
            (info.origin.orientation.x, info.origin.orientation.y, info.origin.orientation.z,
             info.origin.orientation.w) = quaternion(0.0, 0.0, walls.origin_yaw_rad)
            grid.data = array('b', walls.grid_data().tobytes())
        self.map_pub.publish(grid)

    def show(self, surface: Surface, now_ns: int) -> None:
        """Publish `surface` and its path (saying once when there is none)."""
        log = self.node.get_logger()
        markers = surface_markers(surface, self.frames.odom)
        for marker in markers.markers:
            marker.header.stamp = stamp(now_ns)
        self.surface_pub.publish(markers)
        source = path_file(surface.source) if surface.source else None
        self.path = None if source is None else read_path(source)
        if self.path is None:
            if surface.source:      # a map without a path (a uniform surface is no stage)
                log.info(f'stage/path: none published ({surface.description} has no '
                         'reference path beside it, STAGE_path.csv)')
            return
        path = path_message(self.path, surface, self.frames.odom)
        path.header.stamp = stamp(now_ns)
        self.path_pub.publish(path)
