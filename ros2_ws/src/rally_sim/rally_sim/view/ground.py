"""
The stage as the page draws it: one picture of the ground, and which surface lies where.

Built once per stage from what a simulator publishes (or, in process, from
the same functions): the surface map's triangles with each surface type's
name (stage/surface), their heights giving the relief's shading (lit from
the north-west, as a map's hill shading), and the walls of an occupancy
grid (map). The picture is PNG, served to the page over HTTP; the surface
index grid lets the view tell the surface under each wheel (dust on loose
ground, reference 000 section 9).
"""

import io
import math
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np
from PIL import Image, ImageDraw

from ..world.stage_view import SURFACE_COLOURS

MAX_SIDE_PX = 2048
MAX_PX_PER_M = 10.0
"""The picture's resolution: this fine, as long as its longer side stays within MAX_SIDE_PX."""
LIGHT = np.array([-1.0, 1.0, 1.5]) / math.sqrt(1.0 + 1.0 + 1.5 ** 2)
"""Where the relief is lit from: high, from -x and +y (the north-west of a map with x east)."""
WALL_RGB = (35, 35, 40)
FREE_RGB, UNKNOWN_RGB = (225, 225, 220), (160, 160, 160)
"""An occupancy map's walls, free and unknown cells where no surface map lies under them."""
DUST = {'gravel': 1.0, 'dirt': 1.0, 'mud': 0.6, 'snow': 0.8, 'grass': 0.3,
        'tarmac_dry': 0.0, 'tarmac_wet': 0.1, 'ice': 0.1}
"""How much each surface type throws up (reference 000's surfaceDustFactor)."""
NO_SURFACE = 255


class Walls(NamedTuple):
    """An occupancy grid (nav_msgs/OccupancyGrid's data, row 0 at the origin)."""

    cells: np.ndarray            # (rows, cols) int8: -1 unknown, 0..100 occupancy
    resolution_m: float
    origin_x_m: float
    origin_y_m: float
    origin_yaw_rad: float = 0.0


class Ground(NamedTuple):
    """The picture and the surface lookup of one stage."""

    png: bytes
    x0: float                    # odom x of the picture's left edge [m]
    y0: float                    # odom y of its bottom edge [m]
    px_per_m: float
    width_px: int
    height_px: int
    names: List[str]             # surface type of each index in `index`
    index: np.ndarray            # (height_px, width_px) uint8, row 0 at the top; 255: none

    def index_at(self, x: float, y: float) -> Optional[int]:
        """Return the index in `names` of the surface type at odom (x, y), None off the map."""
        col = math.floor((x - self.x0) * self.px_per_m)
        row = self.height_px - 1 - math.floor((y - self.y0) * self.px_per_m)
        if not (0 <= row < self.height_px and 0 <= col < self.width_px):
            return None
        k = int(self.index[row, col])
        return None if k == NO_SURFACE else k

    def surface_at(self, x: float, y: float) -> Optional[str]:
        """Return the surface type's name at odom (x, y), None off the surface map."""
        k = self.index_at(x, y)
        return None if k is None else self.names[k]

    def description(self) -> Dict[str, object]:
        """Return what the page needs to place the picture and raise dust."""
        return {'x0': self.x0, 'y0': self.y0, 'px_per_m': self.px_per_m,
                'width_px': self.width_px, 'height_px': self.height_px,
                'surfaces': self.names, 'dust': [DUST.get(n, 0.0) for n in self.names]}


def bounds_of(triangles: Dict[str, np.ndarray], walls: Optional[Walls]
              ) -> Optional[Tuple[float, float, float, float]]:
    """Return (xmin, ymin, xmax, ymax) of the triangles and the walls' grid, None if neither."""
    xs, ys = [], []
    for corners in triangles.values():
        xs.append(corners[..., 0].ravel())
        ys.append(corners[..., 1].ravel())
    if walls is not None and walls.cells.size:
        corners = _grid_corners(walls)
        xs.append(corners[:, 0])
        ys.append(corners[:, 1])
    if not xs:
        return None
    x, y = np.concatenate(xs), np.concatenate(ys)
    return float(x.min()), float(y.min()), float(x.max()), float(y.max())


def _grid_corners(walls: Walls) -> np.ndarray:
    """Return the four corners of an occupancy grid in odom."""
    rows, cols = walls.cells.shape
    w, h = cols * walls.resolution_m, rows * walls.resolution_m
    c, s = math.cos(walls.origin_yaw_rad), math.sin(walls.origin_yaw_rad)
    local = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    return local @ np.array([[c, s], [-s, c]]) + (walls.origin_x_m, walls.origin_y_m)


def shade(corners: np.ndarray) -> np.ndarray:
    """Return each triangle's brightness (1 on flat ground) from its normal and the light."""
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    length = np.linalg.norm(normals, axis=1)
    normals = normals / np.where(length > 0.0, length, 1.0)[:, None]
    normals[normals[:, 2] < 0.0] *= -1.0
    return np.clip(normals @ LIGHT / LIGHT[2], 0.35, 1.25)


def build(triangles: Dict[str, np.ndarray], walls: Optional[Walls] = None) -> Optional[Ground]:
    """Return the stage's ground (None when there is neither a surface map nor walls)."""
    box = bounds_of(triangles, walls)
    if box is None:
        return None
    xmin, ymin, xmax, ymax = box
    span = max(xmax - xmin, ymax - ymin, 1e-3)
    px_per_m = min(MAX_PX_PER_M, MAX_SIDE_PX / span)
    width = max(1, int(math.ceil((xmax - xmin) * px_per_m)))
    height = max(1, int(math.ceil((ymax - ymin) * px_per_m)))
    picture = Image.new('RGB', (width, height), UNKNOWN_RGB if walls is not None else (0, 0, 0))
    index = Image.new('L', (width, height), NO_SURFACE)

    def pixels(points: np.ndarray) -> List[Tuple[float, float]]:
        return list(zip(((points[:, 0] - xmin) * px_per_m).tolist(),
                        (height - (points[:, 1] - ymin) * px_per_m).tolist()))
    if walls is not None:
        _draw_walls(picture, walls, pixels)
    names = sorted(triangles)
    paint, mark = ImageDraw.Draw(picture), ImageDraw.Draw(index)
    for k, name in enumerate(names):
        colour = np.array(SURFACE_COLOURS.get(name, (128, 128, 128)), dtype=float)
        corners = triangles[name]
        for triangle, bright in zip(corners, shade(corners).tolist()):
            outline = pixels(triangle)
            fill = tuple(int(v) for v in np.clip(colour * bright, 0, 255))
            paint.polygon(outline, fill=fill, outline=fill)
            mark.polygon(outline, fill=k, outline=k)
    if walls is not None:
        _draw_walls(picture, walls, pixels, only_walls=True)
    stream = io.BytesIO()
    picture.save(stream, format='PNG', optimize=False)
    return Ground(stream.getvalue(), xmin, ymin, px_per_m, width, height, names,
                  np.asarray(index, dtype=np.uint8))


def _draw_walls(picture: Image.Image, walls: Walls, pixels, only_walls: bool = False) -> None:
    """Draw an occupancy grid: free and unknown cells (first), or its walls only (on top)."""
    cells = walls.cells
    if not cells.size:
        return
    rgb = np.empty(cells.shape + (4,), dtype=np.uint8)
    rgb[...] = (0, 0, 0, 0)
    occupied = cells >= 50
    rgb[occupied] = WALL_RGB + (255,)
    if not only_walls:
        rgb[(cells >= 0) & ~occupied] = FREE_RGB + (255,)
        rgb[cells < 0] = UNKNOWN_RGB + (255,)
    grid = Image.fromarray(rgb[::-1], 'RGBA')       # row 0 at the top, as the picture's
    corners = _grid_corners(walls)
    target = pixels(corners)
    left = min(p[0] for p in target)
    top = min(p[1] for p in target)
    size = (max(1, int(round(max(p[0] for p in target) - left))),
            max(1, int(round(max(p[1] for p in target) - top))))
    if abs(walls.origin_yaw_rad) > 1e-9:
        grid = grid.rotate(math.degrees(walls.origin_yaw_rad), expand=True,
                           resample=Image.NEAREST)
    grid = grid.resize(size, Image.NEAREST)
    picture.paste(grid, (int(round(left)), int(round(top))), grid)
