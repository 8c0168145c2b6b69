"""
Sensor profiles: YAML files of channels, each with a rate, a latency and error models.

A profile (config/sensors/NAME.yaml, or any file) holds `description`,
`sources` (where its numbers come from) and the channels it enables:

    odometry:               # the pose and twist a localisation would publish
      rate_hz: 50           # absent: the node's publish rate
      delay_s: 0.02         # published this long after it was measured
      dropout_probability: 0.0
      position: {stddev: 0.02, bias_stddev: 0.0, random_walk: 0.01,
                 correlation_time_s: 0.5, quantisation: 0.0}
      ...

A 2D lidar (`lidar:`) also takes its geometry (LIDAR_KEYS, LIDAR_CHOICES):
beams, field of view and their spacing, range limits, mounting pose on
base_link, the probability that a beam returns nothing and what a beam
without a return reads; its quantity is `ranges`, one per beam.

A channel left out is not measured; a quantity left out is measured
exactly. Everything is checked on load: a key that is not known, a value
of the wrong type or out of range raises SensorError naming the key, the
file and what is allowed.
"""

from dataclasses import dataclass, field
import math
import os
from typing import Any, Dict, Mapping, Optional

from .noise import KEYS, NoiseSpec
from ..physics.files import read_yaml

QUANTITIES = {
    'odometry': {'position': ('x, y [m]', 2), 'yaw': ('[rad]', 1),
                 'velocity': ('vx, vy in the body frame [m/s]', 2),
                 'yaw_rate': ('[rad/s]', 1)},
    'imu': {'orientation': ('roll, pitch, yaw [rad]', 3),
            'gyro': ('angular velocity x, y, z [rad/s]', 3),
            'accelerometer': ('specific force x, y, z [m/s^2]', 3)},
    'wheel_speeds': {'angle': ('encoder angle of each wheel [rad]; quantisation: one tick, '
                               '2 pi / ticks per revolution', 4)},
    'steering': {'angle': ('bicycle-equivalent front steer angle [rad]', 1)},
    'gnss': {'horizontal': ('east, north [m]', 2), 'vertical': ('altitude [m]', 1)},
    'lidar': {'ranges': ("each beam's range [m], the first at -field_of_view_rad / 2", 0)},
}
"""Each channel's quantities: their meaning and number of components (0: the lidar's beams)."""
LIDAR_KEYS = {
    'beams': (int, 1, 100000, 'beams a scan, evenly spread over the field of view', None),
    'field_of_view_rad': (float, 1e-6, 2.0 * math.pi, 'from the first beam to the last [rad]',
                          None),
    'range_min_m': (float, 0.0, 1000.0, 'nearer returns read -inf [m]', 0.0),
    'range_max_m': (float, 0.01, 10000.0, 'farther returns, or none, read +inf [m]', None),
    'mount_x_m': (float, -100.0, 100.0, 'forward of base_link [m]', 0.0),
    'mount_y_m': (float, -100.0, 100.0, 'left of base_link [m]', 0.0),
    'mount_z_m': (float, -100.0, 100.0, 'above base_link [m]', 0.0),
    'mount_yaw_rad': (float, -math.pi, math.pi, 'heading on base_link [rad]', 0.0),
    'beam_dropout_probability': (float, 0.0, 0.999, 'a beam returns nothing', 0.0),
    'no_return_m': (float, 0.0, math.inf, 'what a beam with no return within range_max_m reads '
                    '[m]: +inf (REP 117; .inf in YAML) or a number (f1tenth_gym_ros: 30.0)',
                    math.inf),
}
"""The lidar's geometry: type, range, meaning and default (None: required)."""
LIDAR_CHOICES = {
    'beam_spacing': (('span', 'per_beam'), 'span', 'span: the first beam at -fov/2, the last at '
                     '+fov/2, fov/(beams-1) apart; per_beam: fov/beams apart from -fov/2, as '
                     "f1tenth_gym_ros's angle_increment says"),
}
"""The lidar's named settings: allowed values, default and meaning."""
COMPONENTS = {'position': ('x', 'y'), 'velocity': ('x', 'y'), 'yaw': ('',), 'yaw_rate': ('',),
              'orientation': ('roll', 'pitch', 'yaw'), 'gyro': ('x', 'y', 'z'),
              'accelerometer': ('x', 'y', 'z'), 'angle': ('',),
              'horizontal': ('east', 'north'), 'vertical': ('',), 'ranges': ('',)}
"""Names of each quantity's components (wheel encoder angles: by wheel, fl, fr, rl, rr)."""
CHANNELS = tuple(QUANTITIES)
RANGES = {'rate_hz': (0.0, 10000.0), 'delay_s': (0.0, 1.0),
          'dropout_probability': (0.0, 0.999),
          'stddev': (0.0, 1000.0), 'bias_stddev': (0.0, 1000.0), 'random_walk': (0.0, 1000.0),
          'correlation_time_s': (0.0, 3600.0), 'quantisation': (0.0, 1000.0)}
"""Allowed ranges; rate_hz must also be above 0 and at most the physics rate."""
TOP = ('description', 'sources')


class SensorError(ValueError):
    """A sensor profile that cannot be used; the message names the key and the file."""


@dataclass(frozen=True)
class ChannelSpec:
    """One channel of a profile: rate (None: the node's publish rate), latency, errors."""

    name: str
    rate_hz: Optional[float]
    delay_s: float
    dropout_probability: float
    noise: Dict[str, NoiseSpec]
    geometry: Mapping[str, Any] = field(default_factory=dict)
    """The lidar's LIDAR_KEYS; empty for the other channels."""

    def components(self, quantity: str) -> int:
        """Return how many components `quantity` has (the lidar's ranges: its beams)."""
        n = QUANTITIES[self.name][quantity][1]
        return n if n else int(self.geometry['beams'])

    @property
    def exact(self) -> bool:
        """Return whether every quantity is exact, nothing dropped and nothing late."""
        return (self.delay_s == 0.0 and self.dropout_probability == 0.0
                and all(n.exact for n in self.noise.values()))


@dataclass(frozen=True)
class Profile:
    """A sensor profile: its channels (those it enables) and where it came from."""

    name: str
    path: str
    description: str
    sources: str
    channels: Dict[str, ChannelSpec] = field(default_factory=dict)


def _number(tree: Mapping, key: str, dotted: str, path: str, default: Any) -> Any:
    """Return tree[key] checked against RANGES (or default if absent)."""
    if key not in tree:
        return default
    value = tree[key]
    low, high = RANGES[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and low <= value <= high):
        raise SensorError(f"key '{dotted}' = {value!r} in {path} must be a number in "
                          f'[{low:g}, {high:g}]')
    if key == 'rate_hz' and value == 0.0:
        raise SensorError(f"key '{dotted}' = 0 in {path} must be above 0 (leave the channel "
                          'out to switch it off)')
    return float(value)


def _mapping(value: Any, dotted: str, path: str, known) -> Mapping:
    """Return `value` if a mapping with known keys only; else SensorError naming the key."""
    if not isinstance(value, Mapping):
        raise SensorError(f"key '{dotted}' in {path} must be a mapping of "
                          f"{', '.join(known)}")
    unknown = [k for k in value if k not in known]
    if unknown:
        raise SensorError(f"unknown key '{dotted}.{unknown[0]}' in {path}; known here: "
                          f"{', '.join(known)}")
    return value


def beam_increment_rad(geometry: Mapping) -> float:
    """Return the angle between a lidar's neighbouring beams (its beam_spacing) [rad]."""
    beams, fov = geometry['beams'], geometry['field_of_view_rad']
    if geometry.get('beam_spacing', 'span') == 'per_beam':
        return fov / beams
    return fov / (beams - 1) if beams > 1 else 0.0


def _geometry(name: str, tree: Mapping, path: str) -> Dict[str, Any]:
    """Return the lidar's checked geometry (SensorError naming the key); {} for the others."""
    if name != 'lidar':
        return {}
    geometry = {}
    for key, (kind, low, high, meaning, default) in LIDAR_KEYS.items():
        value = tree.get(key, default)
        dotted = f'lidar.{key}'
        if value is None:
            raise SensorError(f"key '{dotted}' is missing in {path}: {meaning}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                low <= value <= high) or (
                kind is int and not float(value).is_integer()):
            what = 'a whole number' if kind is int else 'a number'
            raise SensorError(f"key '{dotted}' = {value!r} in {path} must be {what} in "
                              f'[{low:g}, {high:g}]: {meaning}')
        geometry[key] = kind(value)
    for key, (allowed, default, meaning) in LIDAR_CHOICES.items():
        value = tree.get(key, default)
        if value not in allowed:
            raise SensorError(f"key 'lidar.{key}' = {value!r} in {path} must be one of "
                              f"{', '.join(allowed)}: {meaning}")
        geometry[key] = value
    if not geometry['range_min_m'] < geometry['range_max_m']:
        raise SensorError(f"key 'lidar.range_max_m' = {geometry['range_max_m']:g} in {path} "
                          f"must be above lidar.range_min_m = {geometry['range_min_m']:g}")
    return geometry


def _channel(name: str, tree: Any, path: str) -> ChannelSpec:
    quantities = QUANTITIES[name]
    geometry_keys = tuple(LIDAR_KEYS) + tuple(LIDAR_CHOICES) if name == 'lidar' else ()
    tree = _mapping(tree or {}, name, path, ('rate_hz', 'delay_s', 'dropout_probability')
                    + geometry_keys + tuple(quantities))
    noise = {}
    for quantity in quantities:
        dotted = f'{name}.{quantity}'
        given = _mapping(tree.get(quantity) or {}, dotted, path, KEYS)
        noise[quantity] = NoiseSpec(**{k: _number(given, k, f'{dotted}.{k}', path, 0.0)
                                       for k in KEYS})
    return ChannelSpec(name, _number(tree, 'rate_hz', f'{name}.rate_hz', path, None),
                       _number(tree, 'delay_s', f'{name}.delay_s', path, 0.0),
                       _number(tree, 'dropout_probability', f'{name}.dropout_probability',
                               path, 0.0), noise, _geometry(name, tree, path))


def from_mapping(tree: Any, path: str, name: str = '') -> Profile:
    """Validate a parsed profile."""
    tree = _mapping(tree if tree is not None else {}, 'the file', path, TOP + CHANNELS)
    for key in TOP:
        if key in tree and not isinstance(tree[key], str):
            raise SensorError(f"key '{key}' in {path} must be text")
    channels = {c: _channel(c, tree[c], path) for c in CHANNELS if c in tree}
    return Profile(name or os.path.splitext(os.path.basename(path))[0], path,
                   tree.get('description', ''), tree.get('sources', ''), channels)


def load_profile(name_or_path: str, overrides: Optional[Mapping[str, Any]] = None) -> Profile:
    """
    Load a shipped profile by name (config/sensors/NAME.yaml) or a profile file.

    overrides: dotted keys set on the file's tree before it is checked
    (`imu.gyro.stddev: 0.01`, `odometry.delay_s: 0.05`).
    """
    path = profile_path(name_or_path)
    return from_mapping(profile_tree(path, overrides), path)


def profile_path(name_or_path: str) -> str:
    """Return the file of a shipped profile's name or of a path (SensorError if none)."""
    from ..resources import preset, shipped
    path = preset(name_or_path, 'sensors', '.yaml')
    if not os.path.isfile(path):
        raise SensorError(f"no sensor profile '{name_or_path}': not a file, nor a shipped "
                          f"profile (shipped: {', '.join(shipped('sensors'))})")
    return path


def profile_tree(path: str, overrides: Optional[Mapping[str, Any]] = None) -> dict:
    """Return a profile file's parsed tree with the dotted `overrides` set (not checked)."""
    tree = read_yaml(path, 'sensor profile', SensorError)
    tree = {} if tree is None else tree
    for key, value in (overrides or {}).items():
        *parents, leaf = key.split('.')
        branch = tree
        for depth, parent in enumerate(parents):
            branch = branch.setdefault(parent, {}) if isinstance(branch, dict) else None
            if not isinstance(branch, dict):
                raise SensorError(f"override '{key}': '{'.'.join(parents[:depth + 1])}' in "
                                  f'{path} is not a mapping')
        branch[leaf] = value
    return tree
