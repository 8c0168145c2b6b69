"""
Road surfaces: the grip multiplier under each wheel, uniform or from a map.

Surface types and their grip multipliers come from reference 000. A surface
map follows the ROS map_server layout, a YAML file beside an image:

    image: stage.png          # PNG/PGM/..., relative to the YAML file
    resolution: 0.5           # metres per pixel
    origin: [-50.0, -50.0, 0.0]   # odom pose (x, y, yaw) of the lower-left pixel
    surfaces:                 # pixel colour -> surface type (rally_sim's key)
      - {color: [90, 90, 90], surface: tarmac_dry}
      - {color: [200, 170, 110], surface: gravel}
      - {color: 255, surface: snow}              # a grey level also works
    outside: gravel           # surface beyond the image (default: tarmac_dry)

Every pixel colour must be in the legend; a missing colour, an unknown
surface, a bad resolution or origin is an error naming the key.
"""

import math
import os
from typing import Dict, NamedTuple

import numpy as np

from .files import read_yaml
from .jit import njit

SURFACE_GRIP: Dict[str, float] = {
    'tarmac_dry': 1.0,
    'tarmac_wet': 0.7,
    'gravel': 0.6,
    'dirt': 0.55,
    'mud': 0.35,
    'grass': 0.4,
    'snow': 0.3,
    'ice': 0.15,
}
"""Multiplier of the tyre's friction coefficient on each surface type."""

MAP_KEYS = ('image', 'resolution', 'origin', 'surfaces', 'outside')
MAP_SERVER_KEYS = ('negate', 'occupied_thresh', 'free_thresh', 'mode')
"""map_server keys that may be present and are ignored (they concern occupancy)."""


class SurfaceError(ValueError):
    """A surface map that cannot be used; the message names the key or pixel."""


class GripGrid(NamedTuple):
    """Grip multipliers on a grid, as the compiled kernel reads them."""

    grip: np.ndarray        # (rows, cols), row 0 at the top of the image
    resolution_m: float
    origin_x_m: float
    origin_y_m: float
    origin_yaw_rad: float
    outside: float

    @property
    def meta(self) -> np.ndarray:
        """Return the grid's placement as the kernel reads it (layout G_*)."""
        return np.array([self.resolution_m, self.origin_x_m, self.origin_y_m,
                         math.cos(self.origin_yaw_rad), math.sin(self.origin_yaw_rad),
                         self.outside])


G_RESOLUTION, G_ORIGIN_X, G_ORIGIN_Y, G_COS_YAW, G_SIN_YAW, G_OUTSIDE = range(6)


@njit
def grip_at(grip: np.ndarray, meta: np.ndarray, x: float, y: float) -> float:
    """Return the grip multiplier at odom point (x, y) of a grid (GripGrid.grip, .meta)."""
    dx, dy = x - meta[G_ORIGIN_X], y - meta[G_ORIGIN_Y]
    c, s = meta[G_COS_YAW], meta[G_SIN_YAW]
    col = math.floor((c * dx + s * dy) / meta[G_RESOLUTION])
    row_from_bottom = math.floor((-s * dx + c * dy) / meta[G_RESOLUTION])
    rows, cols = grip.shape
    if col < 0 or col >= cols or row_from_bottom < 0 or row_from_bottom >= rows:
        return meta[G_OUTSIDE]
    return grip[rows - 1 - row_from_bottom, col]


def surface_grip(name: str, key: str = 'surface') -> float:
    """Return the grip of a named surface type, or raise naming the key."""
    if name not in SURFACE_GRIP:
        known = ', '.join(SURFACE_GRIP)
        raise SurfaceError(f'{key}: unknown surface type {name!r}; known: {known}')
    return SURFACE_GRIP[name]


class Surface:
    """Where each surface type lies: uniform, or a map."""

    def __init__(self, grid: GripGrid, description: str):
        """Wrap a grip grid; use uniform() or load() to make one."""
        self.grid = grid
        self.description = description

    @classmethod
    def uniform(cls, surface: str = 'tarmac_dry') -> 'Surface':
        """Return the same named surface everywhere."""
        grip = surface_grip(surface)
        return cls(GripGrid(np.full((1, 1), grip), 1.0, 0.0, 0.0, 0.0, grip),
                   f'uniform {surface}')

    @classmethod
    def load(cls, path: str) -> 'Surface':
        """Load a map_server-style YAML + image surface map."""
        spec = read_yaml(path, 'surface map', SurfaceError)
        try:
            return cls(_grid_from_spec(spec, os.path.dirname(os.path.abspath(path))),
                       f'map {path}')
        except SurfaceError as error:
            raise SurfaceError(f'surface map {path}: {error}') from None

    def grip_at(self, xs, ys) -> np.ndarray:
        """Return the grip multiplier at each odom point."""
        xs, ys = np.broadcast_arrays(np.asarray(xs, float), np.asarray(ys, float))
        grip, meta = self.grid.grip, self.grid.meta
        return np.array([grip_at(grip, meta, x, y) for x, y in zip(xs.ravel(), ys.ravel())]
                        ).reshape(xs.shape)


def _grid_from_spec(spec, folder: str) -> GripGrid:
    if not isinstance(spec, dict):
        raise SurfaceError('the file must hold a mapping')
    unknown = [k for k in spec if k not in MAP_KEYS + MAP_SERVER_KEYS]
    missing = [k for k in ('image', 'resolution', 'origin', 'surfaces') if k not in spec]
    if unknown or missing:
        raise SurfaceError(f'unknown key(s) {unknown}, missing key(s) {missing}; keys: '
                           f'{", ".join(MAP_KEYS)}')
    resolution = spec['resolution']
    if isinstance(resolution, bool) or not isinstance(resolution, (int, float)) \
            or not math.isfinite(resolution) or not 0.001 <= resolution <= 100.0:
        raise SurfaceError(f'resolution = {resolution!r} must be a number in [0.001, 100] m')
    origin = spec['origin']
    if not (isinstance(origin, list) and len(origin) == 3 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            for v in origin)):
        raise SurfaceError(f'origin = {origin!r} must be [x, y, yaw] of finite numbers')
    outside = surface_grip(spec.get('outside', 'tarmac_dry'), 'outside')
    image = _read_image(os.path.join(folder, str(spec['image'])))
    legend = _legend(spec['surfaces'], image.shape[2])
    grip = np.full(image.shape[:2], np.nan)
    for colour, value in legend.items():
        grip[np.all(image == colour, axis=2)] = value
    if np.isnan(grip).any():
        row, col = np.argwhere(np.isnan(grip))[0]
        raise SurfaceError(f'pixel (row {row}, column {col}) has colour '
                           f'{image[row, col].tolist()}, which is not in surfaces')
    return GripGrid(grip, float(resolution), float(origin[0]), float(origin[1]),
                    float(origin[2]), outside)


def _read_image(path: str) -> np.ndarray:
    from PIL import Image
    try:
        with Image.open(path) as image:
            mode = 'L' if image.mode in ('L', 'P', '1', 'I', 'I;16') else 'RGB'
            pixels = np.asarray(image.convert(mode))
    except OSError as error:
        raise SurfaceError(f'image: cannot read {path}: {error}') from None
    return pixels[:, :, None] if pixels.ndim == 2 else pixels


def _legend(entries, channels: int) -> Dict[tuple, float]:
    if not isinstance(entries, list) or not entries:
        raise SurfaceError('surfaces must be a list of {color, surface} entries')
    legend = {}
    for k, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) != {'color', 'surface'}:
            raise SurfaceError(f'surfaces[{k}] must have exactly the keys color and surface')
        colour = entry['color']
        colour = [colour] if isinstance(colour, int) else colour
        if not (isinstance(colour, list) and len(colour) == channels
                and all(isinstance(v, int) and 0 <= v <= 255 for v in colour)):
            raise SurfaceError(f'surfaces[{k}].color = {entry["color"]!r} must be '
                               f'{"a grey level" if channels == 1 else "[r, g, b]"} '
                               'of integers 0..255 for this image')
        legend[tuple(colour)] = surface_grip(entry['surface'], f'surfaces[{k}].surface')
    return legend
