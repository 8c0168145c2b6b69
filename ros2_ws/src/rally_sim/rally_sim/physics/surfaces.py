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
    height_map: stage_heights.yaml   # optional: the ground's height (slopes)
    datum: [66.5, 25.7, 105.0]  # optional: latitude, longitude [deg], altitude [m]
    #                             of the odom origin (for GNSS; x east, y north)

Every pixel colour must be in the legend; a missing colour, an unknown
surface, a bad resolution or origin is an error naming the key.

A height map (reference 004's slopes) is a second map_server-style YAML
beside it, over the same pixels:

    image: stage_heights.png  # grey levels (8 or 16 bit): black low, white high
    resolution: 0.5           # must equal the surface map's
    origin: [-50.0, -50.0, 0.0]   # must equal the surface map's
    min_height_m: 0.0         # height of black
    max_height_m: 12.0        # height of white
    max_slope: 0.3            # steepest rise per metre the map may hold

Heights are interpolated between pixel centres and held at the edge value
beyond the image; the slope at a point is the central difference over one
pixel. A map whose size, resolution, origin or range is wrong, or that is
steeper anywhere than max_slope, is an error naming the key.
"""

import math
import os
from typing import Dict, NamedTuple, Optional, Tuple

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

MAP_KEYS = ('image', 'resolution', 'origin', 'surfaces', 'outside', 'height_map', 'datum')
HEIGHT_KEYS = ('image', 'resolution', 'origin', 'min_height_m', 'max_height_m', 'max_slope')
MAP_SERVER_KEYS = ('negate', 'occupied_thresh', 'free_thresh', 'mode')
"""map_server keys that may be present and are ignored (they concern occupancy)."""


class SurfaceError(ValueError):
    """A surface map that cannot be used; the message names the key or pixel."""


class GripGrid(NamedTuple):
    """Grip multipliers and ground heights on a grid, as the compiled kernels read them."""

    grip: np.ndarray        # (rows, cols), row 0 at the top of the image
    resolution_m: float
    origin_x_m: float
    origin_y_m: float
    origin_yaw_rad: float
    outside: float
    heights: Optional[np.ndarray] = None    # (rows, cols) [m]; None: flat at 0

    @property
    def meta(self) -> np.ndarray:
        """Return the grid's placement as the kernel reads it (layout G_*)."""
        return np.array([self.resolution_m, self.origin_x_m, self.origin_y_m,
                         math.cos(self.origin_yaw_rad), math.sin(self.origin_yaw_rad),
                         self.outside, 1.0 if self.heights is None else 0.0])

    @property
    def layers(self) -> np.ndarray:
        """Return grip and heights stacked (GRID_GRIP, GRID_HEIGHT), as the kernels read them."""
        heights = np.zeros_like(self.grip) if self.heights is None else self.heights
        return np.ascontiguousarray(np.stack([self.grip, heights]), dtype=np.float64)


G_RESOLUTION, G_ORIGIN_X, G_ORIGIN_Y, G_COS_YAW, G_SIN_YAW, G_OUTSIDE, G_FLAT = range(7)
GRID_GRIP, GRID_HEIGHT = 0, 1


@njit
def _grid_coordinates(meta: np.ndarray, x: float, y: float) -> tuple:
    """Return odom point (x, y) in pixels: (column, row counted from the bottom)."""
    dx, dy = x - meta[G_ORIGIN_X], y - meta[G_ORIGIN_Y]
    c, s = meta[G_COS_YAW], meta[G_SIN_YAW]
    return (c * dx + s * dy) / meta[G_RESOLUTION], (-s * dx + c * dy) / meta[G_RESOLUTION]


@njit
def grip_at(grid: np.ndarray, meta: np.ndarray, x: float, y: float) -> float:
    """Return the grip multiplier at odom point (x, y) of a grid (GripGrid.layers, .meta)."""
    u, v = _grid_coordinates(meta, x, y)
    col, row_from_bottom = math.floor(u), math.floor(v)
    rows, cols = grid.shape[1], grid.shape[2]
    if col < 0 or col >= cols or row_from_bottom < 0 or row_from_bottom >= rows:
        return meta[G_OUTSIDE]
    return grid[GRID_GRIP, rows - 1 - row_from_bottom, col]


@njit
def grip_at_each(grid: np.ndarray, meta: np.ndarray, xs: np.ndarray, ys: np.ndarray,
                 out: np.ndarray) -> None:
    """Fill out with grip_at() at each odom point (xs[k], ys[k])."""
    for k in range(xs.shape[0]):
        out[k] = grip_at(grid, meta, xs[k], ys[k])


@njit
def height_at(grid: np.ndarray, meta: np.ndarray, x: float, y: float) -> float:
    """Return the ground height [m] at odom point (x, y): bilinear between pixel centres."""
    u, v = _grid_coordinates(meta, x, y)
    rows, cols = grid.shape[1], grid.shape[2]
    u = min(max(u - 0.5, 0.0), cols - 1.0)      # pixel centres, held at the edges
    v = min(max(v - 0.5, 0.0), rows - 1.0)
    col, row = min(math.floor(u), cols - 2), min(math.floor(v), rows - 2)
    if cols == 1 or rows == 1:
        return grid[GRID_HEIGHT, rows - 1 - max(row, 0), max(col, 0)]
    fu, fv = u - col, v - row
    low = rows - 1 - row            # image row of the lower pixel centre
    h00, h10 = grid[GRID_HEIGHT, low, col], grid[GRID_HEIGHT, low, col + 1]
    h01, h11 = grid[GRID_HEIGHT, low - 1, col], grid[GRID_HEIGHT, low - 1, col + 1]
    return (h00 * (1.0 - fu) + h10 * fu) * (1.0 - fv) + (h01 * (1.0 - fu) + h11 * fu) * fv


def surface_grip(name: str, key: str = 'surface') -> float:
    """Return the grip of a named surface type, or raise naming the key."""
    if name not in SURFACE_GRIP:
        known = ', '.join(SURFACE_GRIP)
        raise SurfaceError(f'{key}: unknown surface type {name!r}; known: {known}')
    return SURFACE_GRIP[name]


class Surface:
    """Where each surface type lies: uniform, or a map."""

    def __init__(self, grid: GripGrid, description: str,
                 datum: Optional[Tuple[float, float, float]] = None,
                 types: Optional[np.ndarray] = None, type_names: Tuple[str, ...] = (),
                 outside_type: str = '', source: str = ''):
        """Wrap a grip grid; use uniform() or load() to make one."""
        self.grid = grid
        self.description = description
        self.datum = datum
        """Latitude, longitude [deg], altitude [m] of the odom origin; None: not given."""
        self.types = types
        """Each cell's surface type, an index into type_names (rows as the grid's)."""
        self.source = source
        """The surface map file it was loaded from; '' for a uniform surface."""
        self.type_names = type_names
        self.outside_type = outside_type

    @classmethod
    def uniform(cls, surface: str = 'tarmac_dry') -> 'Surface':
        """Return the same named surface everywhere."""
        grip = surface_grip(surface)
        return cls(GripGrid(np.full((1, 1), grip), 1.0, 0.0, 0.0, 0.0, grip),
                   f'uniform {surface}', types=np.zeros((1, 1), dtype=int),
                   type_names=(surface,), outside_type=surface)

    @classmethod
    def load(cls, path: str) -> 'Surface':
        """Load a map_server-style YAML + image surface map."""
        spec = read_yaml(path, 'surface map', SurfaceError)
        try:
            grid, types, names = _grid_from_spec(spec, os.path.dirname(os.path.abspath(path)))
            return cls(grid, f'map {path}', _datum(spec.get('datum')), types, names,
                       spec.get('outside', 'tarmac_dry'), path)
        except SurfaceError as error:
            raise SurfaceError(f'surface map {path}: {error}') from None

    def grip_at(self, xs, ys) -> np.ndarray:
        """Return the grip multiplier at each odom point (one compiled call for all)."""
        xs, ys = np.broadcast_arrays(np.asarray(xs, float), np.asarray(ys, float))
        out = np.empty(xs.size)
        grip_at_each(self.grid.layers, self.grid.meta, np.ascontiguousarray(xs.ravel()),
                     np.ascontiguousarray(ys.ravel()), out)
        return out.reshape(xs.shape)

    def height_at(self, xs, ys) -> np.ndarray:
        """Return the ground height [m] at each odom point."""
        return self._each(height_at, xs, ys)

    def _each(self, function, xs, ys) -> np.ndarray:
        xs, ys = np.broadcast_arrays(np.asarray(xs, float), np.asarray(ys, float))
        grid, meta = self.grid.layers, self.grid.meta
        return np.array([function(grid, meta, x, y) for x, y in zip(xs.ravel(), ys.ravel())]
                        ).reshape(xs.shape)


def _datum(value) -> Optional[Tuple[float, float, float]]:
    """Return a checked datum [latitude, longitude, altitude], or None if not given."""
    if value is None:
        return None
    bounds = ((-90.0, 90.0), (-180.0, 180.0), (-1000.0, 10000.0))
    if not (isinstance(value, list) and len(value) == 3 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            and low <= v <= high for v, (low, high) in zip(value, bounds))):
        raise SurfaceError(f'datum = {value!r} must be [latitude, longitude, altitude]: '
                           'degrees in [-90, 90] and [-180, 180], metres in [-1000, 10000]')
    return (float(value[0]), float(value[1]), float(value[2]))


def _grid_from_spec(spec, folder: str) -> Tuple[GripGrid, np.ndarray, Tuple[str, ...]]:
    """Return the grip grid, each cell's surface type (index) and the types' names."""
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
    names = tuple(sorted(set(legend.values())))
    types = np.zeros(image.shape[:2], dtype=int)
    for colour, name in legend.items():
        cells = np.all(image == colour, axis=2)
        grip[cells] = SURFACE_GRIP[name]
        types[cells] = names.index(name)
    if np.isnan(grip).any():
        row, col = np.argwhere(np.isnan(grip))[0]
        raise SurfaceError(f'pixel (row {row}, column {col}) has colour '
                           f'{image[row, col].tolist()}, which is not in surfaces')
    heights = None
    if 'height_map' in spec:
        heights = _heights(os.path.join(folder, str(spec['height_map'])), grip.shape,
                           resolution, origin)
    return GripGrid(grip, float(resolution), float(origin[0]), float(origin[1]),
                    float(origin[2]), outside, heights), types, names


def _heights(path: str, shape, resolution: float, origin) -> np.ndarray:
    """Load a height map over the surface map's pixels; raise naming the bad key."""
    spec = read_yaml(path, 'height map', SurfaceError)
    where = f'height_map {path}'
    if not isinstance(spec, dict):
        raise SurfaceError(f'{where}: the file must hold a mapping')
    unknown = [k for k in spec if k not in HEIGHT_KEYS + MAP_SERVER_KEYS]
    missing = [k for k in HEIGHT_KEYS if k not in spec]
    if unknown or missing:
        raise SurfaceError(f'{where}: unknown key(s) {unknown}, missing key(s) {missing}; '
                           f'keys: {", ".join(HEIGHT_KEYS)}')
    if spec['resolution'] != resolution:
        raise SurfaceError(f"{where}: resolution = {spec['resolution']!r} must equal the "
                           f"surface map's {resolution!r}")
    if spec['origin'] != origin:
        raise SurfaceError(f"{where}: origin = {spec['origin']!r} must equal the surface "
                           f"map's {origin!r}")
    low, high, steepest = (spec[k] for k in ('min_height_m', 'max_height_m', 'max_slope'))
    for key, value in (('min_height_m', low), ('max_height_m', high), ('max_slope', steepest)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or abs(value) > 10000.0:
            raise SurfaceError(f'{where}: {key} = {value!r} must be a finite number [m]')
    if not low < high:
        raise SurfaceError(f'{where}: min_height_m = {low!r} must be below max_height_m = '
                           f'{high!r}')
    if not 0.0 < steepest <= 2.0:
        raise SurfaceError(f'{where}: max_slope = {steepest!r} must be in (0, 2] (rise per '
                           'metre)')
    image, full = _read_height_image(os.path.join(os.path.dirname(os.path.abspath(path)),
                                                  str(spec['image'])), where)
    if image.shape != shape:
        raise SurfaceError(f'{where}: image is {image.shape[1]} x {image.shape[0]} pixels; '
                           f'the surface map is {shape[1]} x {shape[0]}')
    heights = low + (high - low) * image.astype(float) / full
    _check_slope(heights, float(resolution), float(steepest), where)
    return heights


def _read_height_image(path: str, where: str) -> Tuple[np.ndarray, float]:
    """Return a greyscale image's pixels and its white level (255 or 65535)."""
    from PIL import Image
    try:
        with Image.open(path) as image:
            if image.mode in ('I;16', 'I;16B', 'I'):
                return np.asarray(image, dtype=np.int64), 65535.0
            if image.mode == 'L':
                return np.asarray(image), 255.0
            raise SurfaceError(f'{where}: image must be greyscale (8 or 16 bit), not '
                               f'{image.mode}')
    except OSError as error:
        raise SurfaceError(f'{where}: image: cannot read {path}: {error}') from None


def _check_slope(heights: np.ndarray, resolution: float, steepest: float, where: str) -> None:
    """Raise naming max_slope if neighbouring pixel centres rise more steeply than it."""
    rises = [np.abs(np.diff(heights, axis=axis)) / resolution for axis in (0, 1)]
    worst = max((float(r.max()) if r.size else 0.0) for r in rises)
    if worst > steepest + 1e-12:
        axis = 0 if rises[0].size and float(rises[0].max()) == worst else 1
        row, col = np.unravel_index(int(np.argmax(rises[axis])), rises[axis].shape)
        raise SurfaceError(f'{where}: the ground rises {worst:.3f} m per metre at pixel (row '
                           f'{row}, column {col}), steeper than max_slope = {steepest!r}')


def _read_image(path: str) -> np.ndarray:
    from PIL import Image
    try:
        with Image.open(path) as image:
            mode = 'L' if image.mode in ('L', 'P', '1', 'I', 'I;16') else 'RGB'
            pixels = np.asarray(image.convert(mode))
    except OSError as error:
        raise SurfaceError(f'image: cannot read {path}: {error}') from None
    return pixels[:, :, None] if pixels.ndim == 2 else pixels


def _legend(entries, channels: int) -> Dict[tuple, str]:
    """Return each legend colour's surface type (checked: a known type)."""
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
        surface_grip(entry['surface'], f'surfaces[{k}].surface')
        legend[tuple(colour)] = entry['surface']
    return legend
