"""
How a stage looks: one colour per surface type, and its surface map as a few large patches.

ROS-free. The simulator's `stage/surface` markers (RViz) and the plots
(run.png, scenario reports) take their colours from here, so both show a
surface the same way. The patches cover the map's cells with rectangles of
one surface type each (runs along the image rows, merged down the columns);
on a stage with a height map they are at most RELIEF_CELLS cells a side and
their corners stand on the ground, so the relief shows.
"""

import math
import os
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..physics.surfaces import Surface

SURFACE_COLOURS: Dict[str, Tuple[int, int, int]] = {
    'tarmac_dry': (90, 90, 90),
    'tarmac_wet': (45, 55, 75),
    'gravel': (200, 170, 110),
    'dirt': (150, 105, 60),
    'mud': (95, 70, 45),
    'grass': (70, 140, 60),
    'snow': (245, 245, 250),
    'ice': (170, 210, 240),
}
"""Each surface type's colour (r, g, b, 0..255): the shipped maps' legend colours."""
RELIEF_CELLS = 16
"""Largest patch side [cells] on a stage with a height map (8 m at 0.5 m a cell)."""


class Patches(NamedTuple):
    """Rectangles of one surface type each, in image cells: rows [top, bottom), [left, right)."""

    kind: np.ndarray        # index into the surface's type_names
    top: np.ndarray
    bottom: np.ndarray
    left: np.ndarray
    right: np.ndarray


def colour_of(name: str) -> Tuple[float, float, float]:
    """Return a surface type's colour as (r, g, b) in 0..1."""
    return tuple(v / 255.0 for v in SURFACE_COLOURS[name])


def patches(types: np.ndarray, max_cells: Optional[int] = None) -> Patches:
    """Cover a grid of surface types with rectangles of one type (at most max_cells a side)."""
    rows, cols = types.shape
    limit = max_cells or max(rows, cols)
    found: List[Tuple[int, int, int, int, int]] = []
    open_: Dict[Tuple[int, int, int], int] = {}     # (left, right, kind) -> top row
    for row in range(rows):
        line = types[row]
        starts = np.flatnonzero(np.r_[True, line[1:] != line[:-1]])
        ends = np.r_[starts[1:], cols]
        runs = set()
        for start, end in zip(starts.tolist(), ends.tolist()):
            for left in range(start, end, limit):      # runs cut to the limit
                runs.add((left, min(end, left + limit), int(line[start])))
        for key in list(open_):
            if key not in runs or row - open_[key] >= limit:
                found.append((key[2], open_.pop(key), row, key[0], key[1]))
        for key in runs:
            open_.setdefault(key, row)
    found += [(key[2], top, rows, key[0], key[1]) for key, top in open_.items()]
    found.sort()
    return Patches(*(np.array(column, dtype=int) for column in zip(*found)))


def cell_corners(surface: Surface, rows_from_top: np.ndarray, cols: np.ndarray
                 ) -> Tuple[np.ndarray, np.ndarray]:
    """Return the odom (x, y) of cell corners given as image row (from the top) and column."""
    grid = surface.grid
    u = cols.astype(float)
    v = (grid.grip.shape[0] - rows_from_top).astype(float)
    c, s = math.cos(grid.origin_yaw_rad), math.sin(grid.origin_yaw_rad)
    r = grid.resolution_m
    return grid.origin_x_m + r * (c * u - s * v), grid.origin_y_m + r * (s * u + c * v)


def ground_triangles(surface: Surface) -> Dict[str, np.ndarray]:
    """
    Return each surface type's ground as triangles: (n, 3, 3) corners (x, y, z) [m] in odom.

    Counter-clockwise seen from above; z is the ground's height at each corner.
    None for a uniform surface (no map: nothing to show).
    """
    if surface.types is None or not surface.source:
        return {}
    relief = surface.grid.heights is not None
    p = patches(surface.types, RELIEF_CELLS if relief else None)
    corners = []
    for rows, cols in ((p.bottom, p.left), (p.bottom, p.right), (p.top, p.right),
                       (p.top, p.left)):
        x, y = cell_corners(surface, rows, cols)
        z = surface.height_at(x, y) if relief else np.zeros_like(x)
        corners.append(np.stack([x, y, z], axis=1))
    a, b, c, d = corners            # lower left, lower right, upper right, upper left
    triangles = np.stack([np.stack([a, b, c], axis=1), np.stack([a, c, d], axis=1)], axis=1)
    return {name: triangles[p.kind == index].reshape(-1, 3, 3)
            for index, name in enumerate(surface.type_names) if np.any(p.kind == index)}


def image_rgb(surface: Surface) -> np.ndarray:
    """Return the surface map as an RGB image (rows from the top, 0..1) in the types' colours."""
    palette = np.array([colour_of(name) for name in surface.type_names])
    return palette[surface.types]


def extent(surface: Surface) -> Tuple[float, float, float, float]:
    """Return the map's (left, right, bottom, top) in odom [m] (no yaw: axis-aligned)."""
    g = surface.grid
    rows, cols = g.grip.shape
    return (g.origin_x_m, g.origin_x_m + cols * g.resolution_m, g.origin_y_m,
            g.origin_y_m + rows * g.resolution_m)


def path_file(surface_file: str) -> Optional[str]:
    """Return the reference path beside a surface map (STAGE_path.csv), or None."""
    candidate = os.path.splitext(surface_file)[0] + '_path.csv'
    return candidate if os.path.isfile(candidate) else None


def draw_stage(ax, surface: Optional[Surface]) -> None:
    """
    Draw a surface map under a plot's trajectory: its colours, and contour lines of its relief.

    At the map's true scale, origin and yaw, below everything else (zorder
    0). Nothing for a uniform surface or none.
    """
    if surface is None or surface.types is None or surface.source == '':
        return
    from matplotlib.transforms import Affine2D
    g = surface.grid
    turn = Affine2D().rotate_around(g.origin_x_m, g.origin_y_m, g.origin_yaw_rad) + ax.transData
    image = ax.imshow(image_rgb(surface), extent=extent(surface), origin='upper',
                      interpolation='nearest', zorder=0)
    image.set_transform(turn)
    if g.heights is not None:
        left, right, bottom, top = extent(surface)
        rows, cols = g.heights.shape
        xs = left + (np.arange(cols) + 0.5) * g.resolution_m
        ys = top - (np.arange(rows) + 0.5) * g.resolution_m
        lines = ax.contour(xs, ys, g.heights, levels=8, colors='0.15', linewidths=0.6,
                           alpha=0.6, zorder=0.5)
        lines.set_transform(turn)
        ax.clabel(lines, fontsize=6, fmt='%.0f m')
    outside = SURFACE_COLOURS.get(surface.outside_type, (255, 255, 255))
    ax.set_facecolor(tuple(v / 255.0 for v in outside))
