"""
The stages shipped in config/stages: a path and a surface map for each.

    python -m rally_sim.stages DIR      # (re)writes the stage files into DIR

- ``rally_stage``: a closed, winding 8 m wide road of about 340 m: tarmac,
  then gravel with a snow patch and an ice patch, grass beside the road.
- ``skid_pad``: a gravel circle of 15 m radius (an 8 m wide ring) on tarmac,
  for drifting.
- ``hill_stage``: the rally stage's road over three rounded hills (up to 5 m
  high, slopes up to about 13 %), all gravel: reference 004's slopes.
- ``snow_pad``: a 10 m circle on a snow field; ``tarmac_pad``: a 15 m circle on
  dry tarmac: drifts on the least and the most grip.
- ``figure_eight``: two gravel circles of 15 m radius touching at the origin,
  driven clockwise round the right one, then counter-clockwise round the left
  one: a drift that changes side at every crossing.
- ``track``: a closed corridor of 81 m, 2.4 m between its walls, for
  1/10-scale cars (F1TENTH): tarmac, walls 0.1 m thick, at 5 cm a pixel.
- ``jump_stage``: a gravel stadium (straights of 120 m, bends of 30 m radius)
  with a kicker on its first straight: 1 m high, rounded over 4 m (its top's
  radius 16 m: taken faster than 12.5 m/s, a car leaves the ground).

Each stage is `<name>.yaml` (a surface map in the map_server layout, see
rally_sim.physics.surfaces), `<name>.png` and `<name>_path.csv` (columns x, y
in the odom frame, metres; the reference line, closed: the last point joins
the first). The files are generated from the geometry below, so they can be
rebuilt exactly; a test checks that the shipped files match. A stage with
hills also has `<name>_heights.yaml` and `<name>_heights.png` (16-bit), the
height map its surface map names. A stage with obstacles (walls, barriers,
trees) also has `<name>_map.yaml` and `<name>_map.png`: an occupancy map in
the map_server format (world/occupancy.py), black occupied, over the same
ground as the surface map.
"""

import csv
import math
import os
import sys
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..physics.files import cache_folder

RESOLUTION_M = 0.5
ROAD_HALF_WIDTH_M = 4.0
COLOURS: Dict[str, Tuple[int, int, int]] = {
    'tarmac_dry': (90, 90, 90), 'gravel': (200, 170, 110), 'snow': (245, 245, 250),
    'ice': (170, 210, 240), 'grass': (70, 140, 60),
}


class Obstacles(NamedTuple):
    """What stands beside a stage's road, drawn into its occupancy map."""

    resolution_m: float
    walls_m: float = 0.0
    """Walls this thick [m] right along both edges of the road (0: none)."""
    barriers: Tuple[Tuple[float, float, float], ...] = ()
    """Barriers (lap fraction from, to, distance from the centre line [m]) on both sides,
    BARRIER_M thick."""
    trees: int = 0
    """Trees drawn (TREE_RADIUS_M) at seeded places TREE_CLEARANCE_M or more off the road,
    none within TREE_FREE_RADIUS_M of the odom origin."""
    seed: int = 0


BARRIER_M = 0.5
TREE_RADIUS_M = 0.4
TREE_CLEARANCE_M = 3.0
TREE_FREE_RADIUS_M = 8.0
"""A car started at the origin (the node's default start) stands clear of every tree."""
BLOCK = 32
"""Pixels are matched to the path in blocks of BLOCK x BLOCK."""
MAP_FREE, MAP_OCCUPIED = 254, 0
"""Grey levels of free and occupied pixels, as nav2's map_saver writes them."""


class Stage(NamedTuple):
    """A reference path, and which surface lies along it and beside it."""

    name: str
    path: np.ndarray                      # (N, 2), closed loop
    sections: List[Tuple[float, str]]     # (fraction of the lap where it ends, surface)
    beside: str                           # surface off the road
    outside: str                          # surface beyond the map
    hills: Tuple[Tuple[float, float, float, float], ...] = ()
    """Rounded hills (x, y, height, radius) [m]: height exp(-d^2 / (2 radius^2)) each."""
    datum: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Latitude, longitude [deg] and altitude [m] of the odom origin, for GNSS."""
    half_width_m: float = ROAD_HALF_WIDTH_M
    resolution_m: float = RESOLUTION_M
    """The surface map's pixel size [m]."""
    obstacles: Optional[Obstacles] = None


def _rally_path() -> np.ndarray:
    theta = np.linspace(0.0, 2.0 * math.pi, 720, endpoint=False)
    radius = 50.0 + 9.0 * np.sin(3.0 * theta) + 4.0 * np.cos(5.0 * theta)
    return np.column_stack([radius * np.cos(theta), radius * np.sin(theta)])


def _circle(radius: float) -> np.ndarray:
    theta = np.linspace(0.0, 2.0 * math.pi, 360, endpoint=False)
    return np.column_stack([radius * np.cos(theta), radius * np.sin(theta)])


def _track_path() -> np.ndarray:
    """Return the 1/10-scale track's centre line: 81 m, bends of 2.6 m radius or more."""
    theta = np.linspace(0.0, 2.0 * math.pi, 800, endpoint=False)
    x = 16.0 * np.cos(theta) + 0.5 * np.cos(3.0 * theta)
    y = 9.0 * np.sin(theta) - 0.8 * np.sin(2.0 * theta)
    return np.column_stack([x, y])


def _stadium(straight_m: float, radius_m: float, step_m: float = 0.5) -> np.ndarray:
    """Return a stadium's centre line, counter-clockwise from its bottom straight's start."""
    half = 0.5 * straight_m
    straight = np.arange(-half, half, step_m)
    turn = np.linspace(-0.5 * math.pi, 0.5 * math.pi, int(round(math.pi * radius_m / step_m)),
                       endpoint=False)
    return np.vstack([
        np.column_stack([straight, np.full_like(straight, -radius_m)]),
        np.column_stack([half + radius_m * np.cos(turn), radius_m * np.sin(turn)]),
        np.column_stack([-straight, np.full_like(straight, radius_m)]),
        np.column_stack([-half - radius_m * np.cos(turn), -radius_m * np.sin(turn)])])


def _figure_eight(radius: float) -> np.ndarray:
    """Return the right circle clockwise from the origin (heading +y), then the left one."""
    theta = np.linspace(0.0, 2.0 * math.pi, 360, endpoint=False)
    right = np.column_stack([radius - radius * np.cos(theta), radius * np.sin(theta)])
    left = np.column_stack([-radius + radius * np.cos(theta), radius * np.sin(theta)])
    return np.vstack([right, left])


STAGES = {
    'rally_stage': Stage('rally_stage', _rally_path(),
                         [(0.35, 'tarmac_dry'), (0.55, 'gravel'), (0.62, 'snow'),
                          (0.85, 'gravel'), (0.90, 'ice'), (1.0, 'gravel')],
                         beside='grass', outside='grass', datum=(66.4979, 25.7180, 105.0)),
    'skid_pad': Stage('skid_pad', _circle(15.0), [(1.0, 'gravel')],
                      beside='tarmac_dry', outside='tarmac_dry', datum=(60.1699, 24.9384, 20.0)),
    'hill_stage': Stage('hill_stage', _rally_path(), [(1.0, 'gravel')], beside='grass',
                        outside='grass', hills=((45.0, 20.0, 5.0, 22.0),
                                                (-40.0, 30.0, 4.0, 18.0),
                                                (0.0, -50.0, 3.0, 15.0)),
                        datum=(46.2044, 6.1432, 375.0)),
    'snow_pad': Stage('snow_pad', _circle(10.0), [(1.0, 'snow')], beside='snow',
                      outside='snow', datum=(67.9222, 26.5046, 180.0)),
    'tarmac_pad': Stage('tarmac_pad', _circle(15.0), [(1.0, 'tarmac_dry')],
                        beside='tarmac_dry', outside='tarmac_dry',
                        datum=(60.1699, 24.9384, 20.0)),
    'figure_eight': Stage('figure_eight', _figure_eight(15.0), [(1.0, 'gravel')],
                          beside='tarmac_dry', outside='tarmac_dry',
                          datum=(60.1699, 24.9384, 20.0)),
    'jump_stage': Stage('jump_stage', _stadium(120.0, 30.0), [(1.0, 'gravel')], beside='grass',
                        outside='grass', hills=((0.0, -30.0, 1.0, 4.0),),
                        datum=(61.7849, 27.2630, 110.0)),
    'track': Stage('track', _track_path(), [(1.0, 'tarmac_dry')], beside='grass',
                   outside='grass', half_width_m=1.2, resolution_m=0.05,
                   obstacles=Obstacles(0.05, walls_m=0.1)),
}
STAGES['rally_stage'] = STAGES['rally_stage']._replace(obstacles=Obstacles(
    0.25, barriers=((0.05, 0.30, 6.0), (0.60, 0.70, 5.5)), trees=150, seed=1))
STAGES['hill_stage'] = STAGES['hill_stage']._replace(obstacles=Obstacles(
    0.25, barriers=((0.10, 0.25, 6.0),), trees=120, seed=2))
CIRCLE_BESIDE = 'tarmac_dry'
"""The apron round a generated circle's ring (as round the shipped skid pad)."""
MADE_SHAPES = {'circle': _circle, 'figure_eight': _figure_eight}
"""The stages made to order, by the form a scenario names: their path for a radius."""


def circle_stage(radius_m: float, surface: str, width_m: Optional[float] = None) -> Stage:
    """
    Return a pad made to order: a ring of `surface` round a circle, its path the circle.

    The ring is width_m wide (default: the radius, from R / 2 to 3 R / 2),
    on tarmac; the path runs counter-clockwise from (R, 0), heading +y. The
    map's pixels are fine enough for a 1/10-scale car's circle (R / 40, at
    most 0.5 m). ValueError naming the key for a radius or width that is not
    positive and finite, or a surface that is not a type.
    """
    return made_stage('circle', radius_m, surface, width_m)


def made_stage(shape: str, radius_m: float, surface: str,
               width_m: Optional[float] = None) -> Stage:
    """
    Return a stage of MADE_SHAPES made to order: circle_stage's ring, or a figure eight's.

    figure_eight: two circles of radius_m touching at the origin, the right
    one driven clockwise from there heading +y, then the left one
    counter-clockwise (as the shipped figure_eight). Its name is
    <shape>_<R>m_<surface>_<width>m. ValueError names the key, as circle_stage's.
    """
    for key, value in (('radius_m', radius_m), ('width_m', width_m)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or value <= 0.0):
            raise ValueError(f'{shape}.{key} = {value!r} must be a positive, finite number '
                             '[m]')
    if surface not in COLOURS:
        raise ValueError(f'{shape}.surface = {surface!r} must be one of {sorted(COLOURS)}')
    width = float(radius_m if width_m is None else width_m)
    name = f'{shape}_{float(radius_m):g}m_{surface}_{width:g}m'
    return Stage(name, MADE_SHAPES[shape](float(radius_m)), [(1.0, surface)],
                 beside=CIRCLE_BESIDE, outside=CIRCLE_BESIDE, half_width_m=0.5 * width,
                 resolution_m=min(RESOLUTION_M, float(radius_m) / 40.0))


def made_stage_file(stage: Stage, folder: str = '') -> str:
    """
    Return the surface map of a stage made to order, written once into a cache folder.

    folder: default $XDG_CACHE_HOME (or ~/.cache) /rally_sim/stages/<name>.
    Written into a new folder and renamed into place, so that processes
    making the same stage at once (a campaign's workers) never read half a file.
    """
    folder = folder or cache_folder('stages', stage.name)
    target = os.path.join(folder, stage.name + '.yaml')
    if not os.path.isfile(target):
        import tempfile
        os.makedirs(os.path.dirname(folder), exist_ok=True)
        fresh = tempfile.mkdtemp(prefix='.' + stage.name, dir=os.path.dirname(folder))
        write_stage(stage, fresh)
        try:
            os.rename(fresh, folder)
        except OSError:                     # made by another process meanwhile
            import shutil
            shutil.rmtree(fresh, ignore_errors=True)
    return target


def stage_named(name: str) -> Optional[Stage]:
    """Return a shipped stage, or the made stage a surface map file's name says, or None."""
    if name in STAGES:
        return STAGES[name]
    stem = os.path.splitext(os.path.basename(name))[0]
    for shape in MADE_SHAPES:
        if stem.startswith(shape + '_'):
            try:
                radius, surface_width = stem[len(shape) + 1:].split('m_', 1)
                surface, width = surface_width.rsplit('_', 1)
                return made_stage(shape, float(radius), surface, float(width[:-1]))
            except ValueError:
                return None
    return None


HEIGHT_LEVELS = 65535
MAX_SLOPE = 0.2
"""The steepest rise per metre a stage's height map declares it may hold."""


def lap_fraction(path: np.ndarray) -> np.ndarray:
    """Return each path point's fraction of the lap length (0 at the first point)."""
    closed = np.vstack([path, path[:1]])
    lengths = np.hypot(*np.diff(closed, axis=0).T)
    return np.concatenate([[0.0], np.cumsum(lengths)[:-1]]) / lengths.sum()


def _pixel_centres(stage: Stage, resolution: float = 0.0
                   ) -> Tuple[np.ndarray, np.ndarray, Tuple[float, float]]:
    """
    Return the odom x and y of every pixel centre (row 0 at the top) and the lower-left.

    resolution: the pixel size [m] (default: the surface map's); the ground
    covered is the same, the road's width beyond the path's ends.
    """
    low = stage.path.min(axis=0) - 2.0 * stage.half_width_m
    high = stage.path.max(axis=0) + 2.0 * stage.half_width_m
    size = (high - low) / stage.resolution_m
    resolution = resolution or stage.resolution_m
    cols, rows = np.round(np.ceil(size) * stage.resolution_m / resolution).astype(int)
    xs = low[0] + (np.arange(cols) + 0.5) * resolution
    ys = low[1] + (np.arange(rows)[::-1] + 0.5) * resolution
    grid_x, grid_y = np.meshgrid(xs, ys)
    return grid_x, grid_y, (float(low[0]), float(low[1]))


def _nearest_on_path(stage: Stage, grid_x: np.ndarray, grid_y: np.ndarray, within: float
                     ) -> Tuple[np.ndarray, np.ndarray]:
    """
    Return each point's nearest path point (index) and its distance to it [m].

    Exact for every point within `within` of the path; a point farther away
    gets a distance beyond `within` (inf where no path point is near). The
    points (2D arrays) are taken in blocks, each against the path points near it.
    """
    nearest = np.full(grid_x.shape, -1, dtype=int)
    distance = np.full(grid_x.shape, np.inf)
    path = stage.path
    for r in range(0, grid_x.shape[0], BLOCK):
        for c in range(0, grid_x.shape[1], BLOCK):
            xs, ys = grid_x[r:r + BLOCK, c:c + BLOCK], grid_y[r:r + BLOCK, c:c + BLOCK]
            near = np.nonzero((path[:, 0] >= xs.min() - within) & (path[:, 0] <= xs.max() + within)
                              & (path[:, 1] >= ys.min() - within)
                              & (path[:, 1] <= ys.max() + within))[0]
            if near.size:
                chunk = np.column_stack([xs.ravel(), ys.ravel()])
                d2 = ((chunk[:, None, :] - path[None, near, :]) ** 2).sum(axis=2)
                nearest[r:r + BLOCK, c:c + BLOCK] = near[d2.argmin(axis=1)].reshape(xs.shape)
                distance[r:r + BLOCK, c:c + BLOCK] = np.sqrt(d2.min(axis=1)).reshape(xs.shape)
    return nearest, distance


def height_image(stage: Stage) -> Tuple[np.ndarray, float]:
    """Return the 16-bit height image of a stage's hills and the height of white [m]."""
    grid_x, grid_y, _ = _pixel_centres(stage)
    heights = np.zeros(grid_x.shape)
    for x, y, height, radius in stage.hills:
        heights += height * np.exp(-((grid_x - x) ** 2 + (grid_y - y) ** 2) / (2 * radius ** 2))
    top = float(math.ceil(heights.max()))
    return np.round(heights / top * HEIGHT_LEVELS).astype(np.uint16), top


def surface_image(stage: Stage) -> Tuple[np.ndarray, Tuple[float, float]]:
    """Return the RGB image (row 0 at the top) and the odom (x, y) of its lower-left corner."""
    grid_x, grid_y, low = _pixel_centres(stage)
    rows, cols = grid_x.shape
    nearest, distance = (a.ravel() for a in _nearest_on_path(
        stage, grid_x, grid_y, stage.half_width_m))
    fraction = lap_fraction(stage.path)[nearest]
    image = np.empty((rows * cols, 3), dtype=np.uint8)
    image[:] = COLOURS[stage.beside]
    on_road = distance <= stage.half_width_m
    start = 0.0
    for end, surface in stage.sections:
        image[on_road & (fraction >= start) & (fraction < end)] = COLOURS[surface]
        start = end
    return image.reshape(rows, cols, 3), low


def obstacle_image(stage: Stage) -> Tuple[np.ndarray, Tuple[float, float]]:
    """Return the occupancy image (MAP_OCCUPIED, MAP_FREE; row 0 at the top) and its corner."""
    o = stage.obstacles
    grid_x, grid_y, low = _pixel_centres(stage, o.resolution_m)
    farthest = max([stage.half_width_m + o.walls_m] + [b[2] + BARRIER_M for b in o.barriers])
    nearest, distance = (a.ravel() for a in _nearest_on_path(stage, grid_x, grid_y, farthest))
    fraction = lap_fraction(stage.path)[nearest]
    points = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    occupied = np.zeros(len(points), dtype=bool)
    if o.walls_m > 0.0:
        occupied |= (distance > stage.half_width_m) & (
            distance <= stage.half_width_m + o.walls_m)
    for start, end, offset in o.barriers:
        occupied |= (fraction >= start) & (fraction < end) & (distance >= offset) & (
            distance <= offset + BARRIER_M)
    for x, y in tree_places(stage):
        occupied |= np.hypot(points[:, 0] - x, points[:, 1] - y) <= TREE_RADIUS_M
    image = np.where(occupied, MAP_OCCUPIED, MAP_FREE).astype(np.uint8)
    return image.reshape(grid_x.shape), low


def tree_places(stage: Stage) -> np.ndarray:
    """Return the trees' centres (x, y) [m]: seeded, off the road and away from the origin."""
    o = stage.obstacles
    grid_x, grid_y, _ = _pixel_centres(stage)
    rng = np.random.default_rng(o.seed)
    places: List[Tuple[float, float]] = []
    while len(places) < o.trees:
        x = rng.uniform(grid_x.min(), grid_x.max())
        y = rng.uniform(grid_y.min(), grid_y.max())
        clearance = stage.half_width_m + TREE_CLEARANCE_M
        _, distance = _nearest_on_path(stage, np.array([[x]]), np.array([[y]]), clearance)
        if distance[0, 0] >= clearance and math.hypot(
                x, y) >= TREE_FREE_RADIUS_M:
            places.append((x, y))
    return np.array(places).reshape(-1, 2)


def write_stage(stage: Stage, folder: str) -> None:
    """Write <name>.yaml, <name>.png and <name>_path.csv into `folder` (and its maps)."""
    from PIL import Image
    import yaml
    os.makedirs(folder, exist_ok=True)
    image, origin = surface_image(stage)
    Image.fromarray(image).save(os.path.join(folder, stage.name + '.png'), optimize=True)
    used = {stage.beside} | {surface for _, surface in stage.sections}
    spec = {'image': stage.name + '.png', 'resolution': stage.resolution_m,
            'origin': [origin[0], origin[1], 0.0],
            'surfaces': [{'color': list(COLOURS[s]), 'surface': s} for s in sorted(used)],
            'outside': stage.outside, 'datum': list(stage.datum)}
    if stage.hills:
        spec['height_map'] = _write_heights(stage, folder, spec['origin'])
    if stage.obstacles is not None:
        _write_obstacles(stage, folder)
    with open(os.path.join(folder, stage.name + '.yaml'), 'w', encoding='utf-8') as out:
        out.write(f'# Surface map of the {stage.name} stage (generated by '
                  'python -m rally_sim.stages).\n')
        yaml.safe_dump(spec, out, sort_keys=False, default_flow_style=None)
    with open(os.path.join(folder, stage.name + '_path.csv'), 'w', newline='',
              encoding='utf-8') as out:
        writer = csv.writer(out)
        writer.writerow(['x', 'y'])
        writer.writerows([[f'{x:.4f}', f'{y:.4f}'] for x, y in stage.path])


def _write_heights(stage: Stage, folder: str, origin: List[float]) -> str:
    """Write <name>_heights.png and .yaml; return the YAML's file name."""
    from PIL import Image
    import yaml
    image, top = height_image(stage)
    Image.fromarray(image).save(os.path.join(folder, stage.name + '_heights.png'))
    name = stage.name + '_heights.yaml'
    spec = {'image': stage.name + '_heights.png', 'resolution': stage.resolution_m,
            'origin': origin, 'min_height_m': 0.0, 'max_height_m': top,
            'max_slope': MAX_SLOPE}
    with open(os.path.join(folder, name), 'w', encoding='utf-8') as out:
        out.write(f'# Height map of the {stage.name} stage (generated by '
                  'python -m rally_sim.stages).\n')
        yaml.safe_dump(spec, out, sort_keys=False, default_flow_style=None)
    return name


def _write_obstacles(stage: Stage, folder: str) -> None:
    """Write <name>_map.png and <name>_map.yaml (map_server's format and thresholds)."""
    from PIL import Image
    import yaml
    image, origin = obstacle_image(stage)
    Image.fromarray(image).save(os.path.join(folder, stage.name + '_map.png'), optimize=True)
    spec = {'image': stage.name + '_map.png', 'resolution': stage.obstacles.resolution_m,
            'origin': [origin[0], origin[1], 0.0], 'negate': 0, 'occupied_thresh': 0.65,
            'free_thresh': 0.196}
    with open(os.path.join(folder, stage.name + '_map.yaml'), 'w', encoding='utf-8') as out:
        out.write(f'# Occupancy map of the {stage.name} stage: walls, barriers and trees, '
                  'black (generated by python -m rally_sim.stages).\n')
        yaml.safe_dump(spec, out, sort_keys=False, default_flow_style=None)


def start_pose(path: np.ndarray) -> Tuple[float, float, float]:
    """Return where a car starts on a stage: the path's first point, heading to the next."""
    (x, y), (ahead_x, ahead_y) = path[0], path[1]
    return float(x), float(y), math.atan2(ahead_y - y, ahead_x - x)


def pose_behind(path: np.ndarray, distance_m: float) -> Tuple[float, float, float]:
    """Return the pose distance_m behind a closed path's first point along it, heading along it."""
    back = np.vstack([path[:1], path[::-1]])        # from the first point backwards, round
    lengths = np.hypot(*np.diff(back, axis=0).T)
    along = np.concatenate(([0.0], np.cumsum(lengths)))
    distance_m %= along[-1]
    k = min(int(np.searchsorted(along, distance_m, side='right')) - 1, len(lengths) - 1)
    share = (distance_m - along[k]) / lengths[k] if lengths[k] > 0.0 else 0.0
    x, y = back[k] + share * (back[k + 1] - back[k])
    (ahead_x, ahead_y), (x0, y0) = back[k], back[k + 1]
    if distance_m == 0.0:
        return start_pose(path)
    return float(x), float(y), math.atan2(ahead_y - y0, ahead_x - x0)


def read_path(path: str) -> np.ndarray:
    """Read a path CSV (columns x, y) into an (N, 2) array; raise ValueError if malformed."""
    with open(path, newline='', encoding='utf-8') as stream:
        rows = list(csv.DictReader(stream))
    try:
        points = np.array([[float(r['x']), float(r['y'])] for r in rows])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f'{path}: a path needs columns x and y with numbers') from None
    if len(points) < 2 or not np.all(np.isfinite(points)):
        raise ValueError(f'{path}: a path needs at least two finite points')
    return points


def main(argv=None) -> int:
    """Write every stage into the folder given."""
    argv = sys.argv[1:] if argv is None else argv
    if '-h' in argv or '--help' in argv:        # the world layer imports no runtime
        print(__doc__.strip())
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    for stage in STAGES.values():
        write_stage(stage, argv[0])
        print(f'wrote {stage.name} into {argv[0]}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
