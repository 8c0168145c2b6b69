"""
Occupancy maps: where walls, barriers and trees stand, in the ROS map_server format.

A map is a YAML file beside an image, as nav2's map_server and F1TENTH's
maps have it:

    image: track.png          # PGM, PNG, ...; relative to the YAML file
    resolution: 0.05          # metres per pixel
    origin: [-10.0, -5.0, 0.0]    # odom pose (x, y, yaw) of the lower-left pixel
    negate: 0                 # 0: black is occupied; 1: white is
    occupied_thresh: 0.65     # occupancy above it: occupied
    free_thresh: 0.196        # occupancy below it: free
    mode: trinary             # optional: trinary (default), scale or raw

As map_server reads it: a pixel's shade is the mean of its colour channels
(alpha left out); its occupancy p is (255 - shade) / 255, or shade / 255
with negate 1. trinary: p > occupied_thresh is occupied (100), p <
free_thresh free (0), between unknown (-1). scale: the same ends, between
them 0..99 in proportion. raw: the shade itself, 0..100, anything above
unknown. Only occupied cells (100) block a car or a lidar beam.

A missing or malformed key is an error naming the key and the file.
"""

import math
import os
from typing import NamedTuple, Optional

import numpy as np

from ..physics.files import read_yaml

REQUIRED_KEYS = ('image', 'resolution', 'origin', 'negate', 'occupied_thresh', 'free_thresh')
MODES = ('trinary', 'scale', 'raw')
OCCUPIED, FREE, UNKNOWN = 100, 0, -1


class MapError(ValueError):
    """An occupancy map that cannot be used; the message names the file and the key."""


class OccupancyMap(NamedTuple):
    """A map's cells (row 0 at the top of the image) and where they lie in odom."""

    cells: np.ndarray           # (rows, cols) int8: 100 occupied, 0 free, -1 unknown
    resolution_m: float
    origin_x_m: float
    origin_y_m: float
    origin_yaw_rad: float
    source: str = ''

    @property
    def blocked(self) -> np.ndarray:
        """Return which cells block a car or a beam (occupied), as uint8 (rows, cols)."""
        return (self.cells == OCCUPIED).astype(np.uint8)

    @property
    def meta(self) -> np.ndarray:
        """Return the placement as the kernels read it: resolution, origin x, y, cos, sin."""
        return np.array([self.resolution_m, self.origin_x_m, self.origin_y_m,
                         math.cos(self.origin_yaw_rad), math.sin(self.origin_yaw_rad)])

    def grid_data(self) -> np.ndarray:
        """Return the cells as nav_msgs/OccupancyGrid's data: row-major from the origin."""
        return np.ascontiguousarray(self.cells[::-1]).ravel()

    def contains(self, x: float, y: float) -> bool:
        """Return whether the odom point (x, y) lies within the map's cells (known or not)."""
        col, row = self._cell_of(x, y)
        rows, cols = self.cells.shape
        return 0 <= col < cols and 0 <= row < rows

    def extent_text(self) -> str:
        """Return the map's size and origin in words, for messages."""
        rows, cols = self.cells.shape
        return (f'{cols * self.resolution_m:g} m x {rows * self.resolution_m:g} m from '
                f'x = {self.origin_x_m:g}, y = {self.origin_y_m:g} m, yaw '
                f'{self.origin_yaw_rad:g} rad')

    def _cell_of(self, x: float, y: float):
        """Return (column, row from the bottom) of the cell at odom (x, y), maybe off the map."""
        dx, dy = x - self.origin_x_m, y - self.origin_y_m
        c, s = math.cos(self.origin_yaw_rad), math.sin(self.origin_yaw_rad)
        return (math.floor((c * dx + s * dy) / self.resolution_m),
                math.floor((-s * dx + c * dy) / self.resolution_m))

    def unknown_at(self, x: float, y: float) -> str:
        """Return why (x, y) is not known ground ('' where it is), in words for a warning."""
        col, row_from_bottom = self._cell_of(x, y)
        rows, cols = self.cells.shape
        if not (0 <= col < cols and 0 <= row_from_bottom < rows):
            return 'off the occupancy map'
        return ('in a cell the occupancy map does not know (neither free nor occupied)'
                if self.cells[rows - 1 - row_from_bottom, col] == UNKNOWN else '')

    def is_blocked(self, x: float, y: float) -> bool:
        """Return whether the odom point (x, y) lies in an occupied cell (outside: free)."""
        col, row_from_bottom = self._cell_of(x, y)
        rows, cols = self.cells.shape
        if not (0 <= col < cols and 0 <= row_from_bottom < rows):
            return False
        return bool(self.cells[rows - 1 - row_from_bottom, col] == OCCUPIED)


def map_beside(surface_file: str) -> Optional[str]:
    """Return the occupancy map beside a surface map (STAGE_map.yaml), or None."""
    candidate = os.path.splitext(surface_file)[0] + '_map.yaml'
    return candidate if os.path.isfile(candidate) else None


def load_map(path: str) -> OccupancyMap:
    """Load a map_server YAML and its image; MapError naming the file and the key."""
    spec = read_yaml(path, 'occupancy map', MapError)
    try:
        return _from_spec(spec, os.path.dirname(os.path.abspath(path)), path)
    except MapError as error:
        raise MapError(f'occupancy map {path}: {error}') from None


def _from_spec(spec, folder: str, path: str) -> OccupancyMap:
    if not isinstance(spec, dict):
        raise MapError('the file must hold a mapping of keys')
    missing = [k for k in REQUIRED_KEYS if k not in spec]
    if missing:
        raise MapError(f"missing key(s) {', '.join(missing)} (a map_server map has "
                       f"{', '.join(REQUIRED_KEYS)}, and optionally mode)")
    resolution = _number(spec, 'resolution', 1e-4, 100.0, 'm per pixel')
    origin = spec['origin']
    if not (isinstance(origin, list) and len(origin) == 3 and all(
            _is_number(v) and math.isfinite(v) for v in origin)):
        raise MapError(f'origin = {origin!r} must be [x, y, yaw] of finite numbers')
    negate = spec['negate']
    if negate not in (0, 1) or isinstance(negate, float):
        raise MapError(f'negate = {negate!r} must be 0 or 1')
    occupied = _number(spec, 'occupied_thresh', 0.0, 1.0, '')
    free = _number(spec, 'free_thresh', 0.0, 1.0, '')
    if not free < occupied:
        raise MapError(f'free_thresh = {free!r} must be below occupied_thresh = {occupied!r}')
    mode = spec.get('mode', 'trinary')
    if mode not in MODES:
        raise MapError(f"mode = {mode!r} must be one of {', '.join(MODES)}")
    shade = _shade(os.path.join(folder, str(spec['image'])))
    return OccupancyMap(_cells(shade, negate, occupied, free, mode), resolution,
                        float(origin[0]), float(origin[1]), float(origin[2]), path)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(spec, key: str, low: float, high: float, unit: str) -> float:
    value = spec[key]
    if not (_is_number(value) and math.isfinite(value) and low <= value <= high):
        raise MapError(f'{key} = {value!r} must be a number in [{low:g}, {high:g}]'
                       + (f' {unit}' if unit else ''))
    return float(value)


def _shade(path: str) -> np.ndarray:
    """Return each pixel's shade 0..255: the mean of its colour channels, alpha left out."""
    from PIL import Image
    try:
        with Image.open(path) as image:
            if image.mode in ('L', 'LA'):
                pixels = np.asarray(image)
                pixels = pixels if pixels.ndim == 2 else pixels[:, :, 0]
            else:
                pixels = np.asarray(image.convert('RGBA'))[:, :, :3]
    except OSError as error:
        raise MapError(f'image: cannot read {path}: {error}') from None
    pixels = pixels.astype(np.float64)
    return pixels if pixels.ndim == 2 else pixels.mean(axis=2)


def _cells(shade: np.ndarray, negate: int, occupied: float, free: float, mode: str
           ) -> np.ndarray:
    """Return the cells' values (100, 0..99, -1) as map_server gives them."""
    if mode == 'raw':
        return np.where(shade <= 100.0, np.round(shade), UNKNOWN).astype(np.int8)
    p = shade / 255.0 if negate else (255.0 - shade) / 255.0
    cells = np.full(shade.shape, UNKNOWN, dtype=np.int8)
    cells[p > occupied] = OCCUPIED
    cells[p < free] = FREE
    if mode == 'scale':
        between = (p >= free) & (p <= occupied)
        cells[between] = np.round(99.0 * (p[between] - free) / (occupied - free)).astype(np.int8)
    return cells
