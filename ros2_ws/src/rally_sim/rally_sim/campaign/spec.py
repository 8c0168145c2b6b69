"""
Campaign files: a scenario, the values to run it with, expanded into checked runs.

    scenario: path_follow            # a built-in scenario or a file
    matrix:                          # the full product of these values
      friction_scale: [0.4, 0.8, 1.2]
      controller.params.target_speed_m_s: {linspace: [6, 12, 4]}
    sample:                          # and/or N draws, from the campaign seed
      runs: 20
      mass_scale: {normal: [1.0, 0.05]}
      initial_speed_m_s: {uniform: [0, 10]}
      sensors: {choice: [ideal, typical]}
    thresholds:                      # optional: over the scenario's, in every run
      off_road_time_s: {max: 0.5}
      completion_time_s: {max: {times: 550, over: controller.params.target_speed_m_s}}
    repeat: 1                        # runs per point
    timeout_s: 300                   # per run, wall clock
    seed: 0                          # the campaign seed

A threshold's bound is a number, or {times: K, over: KEY}: K divided by
the run's value of the campaign parameter KEY (a completion time that
scales with the speed aimed at, say). Both matrix and sample: every matrix
point with every draw. Keys follow the
scenario file, dotted where nested (`initial_speed_m_s`, `stage`, `sensors`,
`seed`, `controller.params.NAME`, `actuation.steer.delay_s`,
`thresholds.METRIC.max`); `vehicle.KEY` sets a vehicle-file key
(`vehicle.tyres.rear.mu`), `sensors.CHANNEL.KEY` a key of the run's sensor
profile (`sensors.imu.gyro.stddev`, `sensors.odometry.delay_s`); and
`friction_scale` (every surface's grip: the friction coefficient under each
wheel, tyre mu x surface grip, scales by it) and `mass_scale` (mass and yaw
inertia). A list of values may be written
{range: [start, stop]} (integers, stop excluded) or {linspace: [low, high, n]}.

Each run's sensor seed is the `seed` key's value where the campaign sets it,
else drawn from the campaign seed, the run's parameters and its repeat index
(sha256: the same run always gets the same seed). Every run is built and
checked as a scenario file is before any starts (CampaignError naming the
run and the key).
"""

import copy
from dataclasses import dataclass
import hashlib
import itertools
import json
import os
from typing import Any, Dict, List

import numpy as np

from ..physics import ConfigError
from ..resources import read_shipped
from ..scenarios.spec import (
    check_scenario, KEYS, load_scenario, MAX_SEED, OPTIONAL, ScenarioError, vehicle_config)

CAMPAIGN_KEYS = {'name': str, 'scenario': str, 'matrix': dict, 'sample': dict, 'repeat': int,
                 'timeout_s': (int, float), 'seed': int, 'thresholds': dict}
DEFAULT_TIMEOUT_S = 600.0
SHORTCUTS = {'friction_scale': ('tyres.front.mu', 'tyres.rear.mu'),
             'mass_scale': ('mass_kg', 'yaw_inertia_kg_m2')}
"""Parameters that scale vehicle-file keys: each key times the value."""
SCALE_RANGE = (0.05, 20.0)
PLAIN_KEYS = sorted(set(KEYS) | set(OPTIONAL) - {
    'name', 'controller', 'thresholds', 'actuation', 'vehicle_overrides', 'sensor_overrides'})
"""Scenario keys a campaign sets as they are."""
DISTRIBUTIONS = ('uniform', 'normal', 'choice')
MAX_RUNS = 100000


class CampaignError(ValueError):
    """A campaign that cannot run; the message names the file, the run or the key."""


@dataclass
class Run:
    """One run of a campaign: its id, its parameters, its sensor seed and its scenario."""

    run_id: str
    params: Dict[str, Any]
    repeat: int
    seed: int
    spec: Dict[str, Any]

    @property
    def key(self) -> str:
        """Return what identifies the run across resumes: its parameters and seed."""
        return json.dumps([self.params, self.repeat, self.seed], sort_keys=True)


@dataclass
class Campaign:
    """A loaded campaign: its name, file, parameters' names, runs and per-run timeout."""

    name: str
    file: str
    scenario: str
    parameters: List[str]
    runs: List[Run]
    timeout_s: float
    seed: int
    metrics: str


def load_campaign(name: str) -> Campaign:
    """Load a campaign by shipped name or file; expand and check every run."""
    path, tree = read_shipped(name, 'campaigns', 'campaign', CampaignError)
    return expand(tree, path)


def expand(tree: Any, path: str) -> Campaign:
    """Return the campaign of a parsed file: its runs built and checked."""
    _check_keys(tree, path)
    try:
        base = load_scenario(tree['scenario'])
    except ScenarioError as error:
        raise CampaignError(f"{path}: key 'scenario': {error}") from None
    if base['runs']:
        raise CampaignError(f"{path}: key 'scenario': {tree['scenario']} is a technique's "
                            'scenario (runs compared, metrics: technique): run it with '
                            './rally scenario; a campaign sweeps scenarios of one run')
    seed = tree.get('seed', 0)
    points = [{}]
    if 'matrix' in tree:
        points = _matrix(tree['matrix'], path)
    if 'sample' in tree:
        draws = _samples(tree['sample'], seed, path)
        points = [{**point, **draw} for point in points for draw in draws]
    parameters = sorted({key for point in points for key in point})
    for key in parameters:
        _check_key(key, path)
    runs = []
    for point in points:
        for repeat in range(tree.get('repeat', 1)):
            run_id = f'{len(runs):05d}'
            if len(runs) >= MAX_RUNS:
                raise CampaignError(f'{path}: more than {MAX_RUNS} runs')
            run_seed = point['seed'] if 'seed' in point else derived_seed(seed, point, repeat)
            where = f'{path}: run {run_id} {point}'
            runs.append(Run(run_id, point, repeat, run_seed, build(
                base, point, run_seed, where, thresholds_of(tree.get('thresholds', {}), point,
                                                            path))))
    timeout = float(tree.get('timeout_s', DEFAULT_TIMEOUT_S))
    name = tree.get('name', os.path.splitext(os.path.basename(path))[0])
    return Campaign(name, path, base['name'], parameters, runs, timeout, seed, base['metrics'])


def _check_keys(tree: Any, path: str) -> None:
    """Check the campaign's own keys (CampaignError naming the key)."""
    if not isinstance(tree, dict):
        raise CampaignError(f'{path}: a campaign is a mapping of keys')
    unknown = sorted(set(tree) - set(CAMPAIGN_KEYS))
    if unknown or 'scenario' not in tree:
        raise CampaignError(f"{path}: unknown key(s) {unknown}; 'scenario' is required; "
                            f'known keys: {sorted(CAMPAIGN_KEYS)}')
    for key, kind in CAMPAIGN_KEYS.items():
        if key in tree and (not isinstance(tree[key], kind) or isinstance(tree[key], bool)):
            raise CampaignError(f"{path}: key '{key}' = {tree[key]!r} has the wrong type")
    if 'matrix' not in tree and 'sample' not in tree:
        raise CampaignError(f"{path}: give 'matrix' and/or 'sample': the values to run")
    if not 1 <= tree.get('repeat', 1) <= 1000:
        raise CampaignError(f"{path}: key 'repeat' = {tree['repeat']} must be in [1, 1000]")
    if not 0 < tree.get('timeout_s', DEFAULT_TIMEOUT_S) <= 86400:
        raise CampaignError(f"{path}: key 'timeout_s' = {tree['timeout_s']} must be in "
                            '(0, 86400] s')
    if not 0 <= tree.get('seed', 0) <= MAX_SEED:
        raise CampaignError(f"{path}: key 'seed' = {tree['seed']} must be in [0, {MAX_SEED}]")


def _matrix(matrix: Dict[str, Any], path: str) -> List[Dict[str, Any]]:
    """Return the full product of the matrix's values, as one dict per point."""
    if not matrix:
        raise CampaignError(f"{path}: key 'matrix' is empty: give each key a list of values")
    values = {key: _values(key, given, path) for key, given in matrix.items()}
    keys = list(values)
    return [dict(zip(keys, combination))
            for combination in itertools.product(*(values[k] for k in keys))]


def _values(key: str, given: Any, path: str) -> List[Any]:
    """Return a matrix key's values: a list, {range: [a, b]} or {linspace: [lo, hi, n]}."""
    where = f"{path}: matrix key '{key}'"
    if isinstance(given, dict) and len(given) == 1:
        (form, args), = given.items()
        if form == 'range' and _numbers(args, 2, int):
            given = list(range(args[0], args[1]))
        elif form == 'linspace' and _numbers(args, 3) and isinstance(args[2], int):
            given = [float(v) for v in np.linspace(args[0], args[1], args[2])]
        else:
            raise CampaignError(f'{where}: {given!r}: write {{range: [start, stop]}} '
                                '(integers) or {linspace: [low, high, n]}')
    if not isinstance(given, list) or not given:
        raise CampaignError(f'{where} must have a non-empty list of values')
    return given


def _numbers(args: Any, count: int, kind=(int, float)) -> bool:
    """Return whether args is a list of `count` numbers of `kind` (not booleans)."""
    return isinstance(args, list) and len(args) == count and all(
        isinstance(a, kind) and not isinstance(a, bool) for a in args)


def _samples(sample: Dict[str, Any], seed: int, path: str) -> List[Dict[str, Any]]:
    """Return `runs` draws of the sampled keys, from the campaign seed."""
    runs = sample.get('runs')
    if not isinstance(runs, int) or isinstance(runs, bool) or not 1 <= runs <= MAX_RUNS:
        raise CampaignError(f"{path}: key 'sample.runs' = {runs!r} must be an integer in "
                            f'[1, {MAX_RUNS}]')
    keys = sorted(set(sample) - {'runs'})
    if not keys:
        raise CampaignError(f"{path}: key 'sample' names no key to draw")
    rng = np.random.default_rng(seed)
    draws: List[Dict[str, Any]] = [{} for _ in range(runs)]
    for key in keys:
        for draw, value in zip(draws, _draw(key, sample[key], rng, runs, path)):
            draw[key] = value
    return draws


def _draw(key: str, given: Any, rng: np.random.Generator, runs: int, path: str) -> List[Any]:
    """Return `runs` values of one sampled key's distribution."""
    where = f"{path}: sample key '{key}'"
    if not (isinstance(given, dict) and len(given) == 1 and next(iter(given)) in DISTRIBUTIONS):
        raise CampaignError(f'{where} = {given!r}: write {{uniform: [low, high]}}, '
                            '{normal: [mean, stddev]} or {choice: [values]}')
    (form, args), = given.items()
    if form == 'choice':
        if not isinstance(args, list) or not args:
            raise CampaignError(f'{where}: choice needs a non-empty list of values')
        return [args[i] for i in rng.integers(0, len(args), runs)]
    if not _numbers(args, 2) or (form == 'uniform' and args[0] > args[1]) or (
            form == 'normal' and args[1] < 0):
        raise CampaignError(f'{where}: {form} needs two numbers ' + (
            '[low, high], low <= high' if form == 'uniform' else '[mean, stddev >= 0]'))
    values = rng.uniform(*args, runs) if form == 'uniform' else rng.normal(*args, runs)
    return [float(v) for v in values]


def _check_key(key: str, path: str) -> None:
    """Raise CampaignError unless `key` is one a campaign can set."""
    head = key.split('.')[0]
    if key in PLAIN_KEYS or key in SHORTCUTS:
        return
    if (head == 'controller' and key.startswith('controller.params.') and key.count('.') == 2) \
            or (head == 'actuation' and key.count('.') == 2) \
            or (head == 'thresholds' and key.count('.') == 2
                and key.split('.')[2] in ('min', 'max')) \
            or (head == 'vehicle' and key.count('.') >= 1) \
            or (head == 'sensors' and key.count('.') >= 2):
        return
    raise CampaignError(
        f"{path}: unknown key '{key}': a campaign sets {', '.join(PLAIN_KEYS)}, "
        f"{', '.join(SHORTCUTS)}, controller.params.NAME, actuation.ACTUATOR.KEY, "
        'thresholds.METRIC.min|max, vehicle.KEY (a vehicle-file key) or '
        'sensors.CHANNEL.KEY (a sensor-profile key)')


def derived_seed(campaign_seed: int, params: Dict[str, Any], repeat: int) -> int:
    """Return a run's sensor seed from the campaign seed, its parameters and repeat index."""
    text = json.dumps([campaign_seed, params, repeat], sort_keys=True)
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % (MAX_SEED + 1)


def thresholds_of(given: Dict[str, Any], params: Dict[str, Any], path: str
                  ) -> Dict[str, Dict[str, float]]:
    """Return the campaign's thresholds for a run of `params`: each bound a number."""
    out = {}
    for metric, bound in given.items():
        if not isinstance(bound, dict) or not bound or not set(bound) <= {'min', 'max'}:
            raise CampaignError(f"{path}: key 'thresholds.{metric}' must have min and/or max")
        out[metric] = {}
        for side, value in bound.items():
            where = f"{path}: key 'thresholds.{metric}.{side}'"
            if isinstance(value, dict):
                if set(value) != {'times', 'over'} or not _numbers([value['times']], 1):
                    raise CampaignError(f'{where} = {value!r}: write a number or '
                                        '{times: K, over: PARAMETER}')
                over = params.get(value['over'])
                if not _numbers([over], 1) or over == 0:
                    raise CampaignError(f"{where}: '{value['over']}' must be a campaign "
                                        f'parameter with a non-zero number in every run '
                                        f'(this run: {over!r})')
                value = value['times'] / over
            elif not _numbers([value], 1):
                raise CampaignError(f'{where} = {value!r} must be a number')
            out[metric][side] = float(value)
    return out


def build(base: Dict[str, Any], params: Dict[str, Any], seed: int, where: str,
          thresholds: Dict[str, Dict[str, float]] = None) -> Dict[str, Any]:
    """Return the scenario of one run: the base with its parameters and thresholds, checked."""
    spec = copy.deepcopy(base)
    spec['thresholds'].update(thresholds or {})
    spec['controller'].setdefault('params', {})
    for key, value in params.items():
        if key in SHORTCUTS:
            continue
        head, _, rest = key.partition('.')
        if key in PLAIN_KEYS:
            spec[key] = value
        elif head == 'vehicle':
            spec['vehicle_overrides'][rest] = value
        elif head == 'sensors':
            spec['sensor_overrides'][rest] = value
        elif head == 'controller':
            spec['controller']['params'][rest.split('.', 1)[1]] = value
        else:       # actuation.A.K, thresholds.M.B
            section, leaf = rest.split('.')
            spec[head].setdefault(section, {})[leaf] = value
    spec['seed'] = seed
    try:
        _scale(spec, params, where)
        spec = check_scenario(spec, where)
    except ScenarioError as error:
        raise CampaignError(str(error)) from None
    spec['file'], spec['seed_in_use'] = base['file'], seed
    return spec


def _scale(spec: Dict[str, Any], params: Dict[str, Any], where: str) -> None:
    """Apply friction_scale and mass_scale to the vehicle's keys as the run has them."""
    scales = {key: params[key] for key in SHORTCUTS if key in params}
    if not scales:
        return
    try:
        config = vehicle_config(spec)
    except ConfigError as error:
        raise ScenarioError(f'{where}: {error}') from None
    for name, factor in scales.items():
        low, high = SCALE_RANGE
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) \
                or not low <= factor <= high:
            raise ScenarioError(f"{where}: key '{name}' = {factor!r} must be a number in "
                                f'[{low:g}, {high:g}]')
        scaled = {key: float(config[key]) * factor for key in SHORTCUTS[name]}
        try:
            config.with_overrides(scaled)
        except ConfigError:
            raise ScenarioError(
                f"{where}: key '{name}' does not apply to vehicle '{spec['vehicle']}': its "
                f"model ({config['model']}) has no {' nor '.join(SHORTCUTS[name])}") from None
        spec['vehicle_overrides'].update(scaled)
