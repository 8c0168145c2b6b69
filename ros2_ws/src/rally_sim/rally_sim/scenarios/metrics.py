"""
A scenario's metrics, on the ground truth at each publishing instant, and its verdict.

ROS-free: the scenario runner computes them on the states it watched, the
in-process engine on the session's truth, alike.
"""

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .spec import (
    drift_target, opponent_config, stage_surface, stage_walls, TARGET_METRICS, vehicle_config)
from ..control import path_kernels
from ..control.drift.transition import REGAIN_DEG
from ..control.path import ClosedPath
from ..physics import SURFACE_GRIP
from ..physics.jit import ENABLED
from ..world.contact import corners, least_clearance, quad_clearance
from ..world.scene import box_at, boxes_at, footprint_of, walls_of
from ..world.stages import stage_named

DRIFT_SIDESLIP_DEG = 10.0
"""A car with more sideslip than this counts as drifting (up to SPIN_SIDESLIP_DEG)."""
SPIN_SIDESLIP_DEG = 90.0
"""A car with more sideslip than this moves backwards: it spun."""
SPIN_MIN_SPEED_M_S = 1.0
"""Below this speed a car rolling back is not a spin (standstill, a stop on a slope)."""
START_M = 0.5
"""A turn flip this close ahead of the run's start is where the car starts, not a transition."""
REGAIN_WITHIN_S = 2.0
"""A crossing this close to the run's end without the drift regained is not judged."""
LAP_CHECK_EVERY = 10
"""While running, laps are counted on every this-many states (the exact end is found after)."""
STATE_COLUMNS = ('t', 'x', 'y', 'yaw', 'vx', 'vy', 'yaw_rate', 'max_slip_angle_rad')
CLEARANCE_REACH_M = 10.0
"""min_clearance_m looks this far from the car: a farther wall reads as this."""


class LapCounter:
    """
    Distance driven along a closed path, from the positions seen.

    Any spacing under half a lap will do: progress adds up the same on fewer
    positions.
    """

    def __init__(self, spec: Dict[str, Any], path: ClosedPath, margin_m: float = 0.0):
        """Count towards the scenario's stop_after_laps laps, plus margin_m."""
        self.path = path
        self.goal_m = spec['stop_after_laps'] * path.length_m + margin_m
        self.wanted = spec['stop_after_laps'] > 0
        self.progress_m, self.driven_m = None, 0.0

    def add(self, progress_m: float) -> bool:
        """Take the next located progress [m]; return whether the laps are done."""
        if self.progress_m is not None:
            self.driven_m += self.path.progress_step(self.progress_m, progress_m)
        self.progress_m = progress_m
        return self.wanted and self.driven_m >= self.goal_m


def lap_end(spec: Dict[str, Any], path: ClosedPath, states: Dict[str, np.ndarray]) -> int:
    """Return the number of states up to the one where the laps are done (all if never)."""
    index = laps_done(LapCounter(spec, path),
                      np.array(path.locate_many(states['x'], states['y'])[0]))
    return len(states['t']) if index is None else index + 1


def laps_done(laps: LapCounter, progress: np.ndarray) -> Optional[int]:
    """
    Return the index of the state where the laps are done (None: never), as `laps` finds it.

    LapCounter.add over the states' progress in arrays: NumPy's % is
    Python's, and its cumulative sum adds in order, so the same bits.
    """
    if not laps.wanted or len(progress) < 2:
        return None
    half = laps.path.length_m / 2.0
    steps = (progress[1:] - progress[:-1] + half) % laps.path.length_m - half
    done = np.flatnonzero(np.cumsum(steps) >= laps.goal_m)
    return int(done[0]) + 1 if len(done) else None


def state_table(rows) -> Dict[str, np.ndarray]:
    """
    Return the columns of state rows (Observer.state), as the metrics read them.

    t [s], x, y [m], yaw [rad] (of the pose's quaternion), vx, vy [m/s] and
    yaw_rate [rad/s] (body frame), max_slip_angle_rad (the largest tyre's).
    """
    rows = list(rows)
    columns = list(zip(*rows)) if rows else [()] * len(STATE_COLUMNS)
    return {name: np.array(values, dtype=float) for name, values in zip(STATE_COLUMNS,
                                                                        columns)}


def quaternion_yaw(x: float, y: float, z: float, w: float) -> float:
    """Return the yaw [rad] of a quaternion, as the metrics read a pose's heading."""
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def spun(vx: float, vy: float) -> bool:
    """Say if a car with body velocity (vx, vy) has spun: moving backwards, faster than a roll."""
    return vx < 0.0 and math.hypot(vx, vy) > SPIN_MIN_SPEED_M_S


def spin_at(spec: Dict[str, Any], states: Dict[str, np.ndarray]) -> Optional[int]:
    """
    Return the index of the first state in which the car spun, or None (none, or not judged).

    A spin is sideslip past SPIN_SIDESLIP_DEG (the car moving backwards, at
    more than SPIN_MIN_SPEED_M_S): it ends a run as failed unless the
    scenario says stop_on_spin: false (a car started in reverse).
    """
    if not spec['stop_on_spin']:
        return None
    vx, vy = states['vx'], states['vy']
    flags = (vx < 0.0) & (np.hypot(vx, vy) > SPIN_MIN_SPEED_M_S)
    return int(np.argmax(flags)) if flags.any() else None


def spin_report(states: Dict[str, np.ndarray], k: int) -> Dict[str, float]:
    """Return a spin as a report gives it: when, the sideslip and speed then."""
    vx, vy = float(states['vx'][k]), float(states['vy'][k])
    return {'time_s': float(states['t'][k]), 'sideslip_deg': math.degrees(math.atan2(vy, vx)),
            'speed_m_s': math.hypot(vx, vy)}


def until_spin(spec: Dict[str, Any], states: Dict[str, np.ndarray]):
    """Return the states up to and with the spin's first (all without one), and the spin."""
    k = spin_at(spec, states)
    if k is None:
        return states, None
    return cut(states, k + 1), spin_report(states, k)


def drifting(beta_deg: np.ndarray) -> np.ndarray:
    """Return which sideslips [deg] count as a drift: past DRIFT_SIDESLIP_DEG, short of a spin."""
    return (np.abs(beta_deg) > DRIFT_SIDESLIP_DEG) & (np.abs(beta_deg) <= SPIN_SIDESLIP_DEG)


def cut(states: Dict[str, np.ndarray], count: int) -> Dict[str, np.ndarray]:
    """Return the first `count` states."""
    return {name: values[:count] for name, values in states.items()}


def path_metrics(spec: Dict[str, Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """Return the path-following metrics and their time series (result: path, states)."""
    path, states = result['path'], result['states']
    surface = stage_surface(spec['stage'])
    off_road_grip = SURFACE_GRIP[stage_named(spec['stage']).beside]
    progress, cross, path_heading = path.locate_many(states['x'], states['y'])
    done = laps_done(LapCounter(spec, path), np.array(progress))
    completion = None if done is None else float(states['t'][done])
    # what a loop over the states gives, in arrays: NumPy's % is Python's
    heading = (states['yaw'] - np.array(path_heading) + math.pi) % (2.0 * math.pi) - math.pi
    speed = hypot_each(states['vx'], states['vy'])
    off = surface.grip_at(states['x'], states['y']) == off_road_grip
    t, cross = states['t'], np.array(cross)
    dt = np.diff(t, append=t[-1])
    metrics = {
        'cross_track_rms_m': float(np.sqrt(np.mean(cross ** 2))),
        'cross_track_max_m': float(np.max(np.abs(cross))),
        'heading_error_rms_rad': float(np.sqrt(np.mean(heading ** 2))),
        'completion_time_s': completion if completion is not None else math.inf,
        'off_road_time_s': float(np.sum(dt[off])),
        'mean_speed_m_s': float(np.mean(speed)),
    }
    series = {'t': t, 'speed_m_s': np.array(speed),
              'max_slip_angle_rad': states['max_slip_angle_rad'], 'x': states['x'],
              'y': states['y'],
              'curves': {'cross-track error [m]': cross, 'heading error [rad]': heading}}
    return {'metrics': metrics, 'series': series}


def hypot_each(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Return math.hypot of each pair (NumPy's hypot differs from it in the last bit at times)."""
    xs, ys = np.ascontiguousarray(xs, dtype=float), np.ascontiguousarray(ys, dtype=float)
    out = np.empty(len(xs))
    if ENABLED:
        path_kernels.hypot_each(xs, ys, out)
    else:
        out[:] = [math.hypot(x, y) for x, y in zip(xs.tolist(), ys.tolist())]
    return out


def settled(statistic, values: np.ndarray) -> float:
    """Return statistic(values) over the window after settle_s; nan if the run ended before it."""
    return float(statistic(values)) if len(values) else math.nan


def rms(values: np.ndarray) -> float:
    """Return the root mean square of values."""
    return float(np.sqrt(np.mean(values ** 2)))


def drift_metrics(spec: Dict[str, Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """
    Return the drift metrics (after settle_s) and their time series (result: path, states).

    The radius error is from the stage path's centre, to the equilibrium's radius where the
    scenario has one (else the path's own).
    """
    points, s = result['path'].points, result['states']
    center = points.mean(axis=0)
    radius = float(np.mean(np.hypot(*(points - center).T)))
    if spec['equilibrium']:     # the circle the car is held on, round the stage's centre
        radius = abs(float(spec['equilibrium']['radius_m']))
    beta = np.array([math.degrees(math.atan2(vy, vx)) if abs(vx) > 0.5 else 0.0
                     for vx, vy in zip(s['vx'], s['vy'])])
    radius_error = np.array([math.hypot(x - center[0], y - center[1]) - radius
                             for x, y in zip(s['x'], s['y'])])
    speed = np.array([math.hypot(vx, vy) for vx, vy in zip(s['vx'], s['vy'])])
    t, yaw_rate = s['t'], s['yaw_rate']
    window = t >= spec['settle_s']
    dt = np.diff(t, append=t[-1])
    metrics = {
        'sideslip_mean_deg': settled(np.mean, np.abs(beta[window])),
        'sideslip_std_deg': settled(np.std, np.abs(beta[window])),
        'yaw_rate_mean_rad_s': settled(np.mean, yaw_rate[window]),
        'radius_error_rms_m': settled(rms, radius_error[window]),
        'time_in_drift_s': float(np.sum(dt[window & drifting(beta)])),
        'mean_speed_m_s': settled(np.mean, speed[window]),
    }
    series = {'t': t, 'speed_m_s': speed, 'max_slip_angle_rad': s['max_slip_angle_rad'],
              'x': s['x'], 'y': s['y'],
              'curves': {'sideslip [deg / 10]': beta / 10.0, 'yaw rate [rad/s]': yaw_rate,
                         'radius error [m]': radius_error}, 'targets': {}}
    if spec['equilibrium']:
        target = drift_target(spec)
        aimed = (math.degrees(target.sideslip_rad), target.yaw_rate_rad_s, target.speed_m_s)
        for name, values, goal in zip(TARGET_METRICS, (beta, yaw_rate, speed), aimed):
            metrics[name] = settled(rms, values[window] - goal)
        series['targets'] = {'sideslip [deg / 10]': aimed[0] / 10.0,
                             'yaw rate [rad/s]': aimed[1], 'speed': aimed[2]}
    return {'metrics': metrics, 'series': series}


def figure_eight_metrics(spec: Dict[str, Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """
    Return the metrics of drifts with transitions (after settle_s) and their time series.

    The lateral error is to the path followed continuously from its start
    (its branches touch at the crossing); a transition is the car passing a
    point where the path's turn changes side after the start, and its regain
    time how long after it |sideslip| reached REGAIN_DEG on the new
    side (negative turning left, REP-103); inf if never.
    """
    path, s = result['path'], result['states']
    t = s['t']
    progress, lateral = path.track(s['x'], s['y'], start_m=0.0)
    beta = np.degrees(np.arctan2(s['vy'], s['vx']))
    speed = np.hypot(s['vx'], s['vy'])
    window = t >= spec['settle_s']
    dt = np.diff(t, append=t[-1])
    regains = []
    for flip_m, side in path.turn_flips():
        laps = np.arange(math.floor((progress[0] + START_M - flip_m) / path.length_m) + 1,
                         math.floor((progress[-1] - flip_m) / path.length_m) + 1)
        for at_m in flip_m + laps * path.length_m:
            k = int(np.argmax(progress >= at_m))
            if t[k] < spec['settle_s']:
                continue
            regained = (t >= t[k]) & (-side * beta >= REGAIN_DEG)
            if regained.any():
                regains.append(float(t[np.argmax(regained)] - t[k]))
            elif t[-1] - t[k] >= REGAIN_WITHIN_S:
                regains.append(math.inf)
    metrics = {
        'lateral_error_rms_m': settled(rms, lateral[window]),
        'lateral_error_max_m': settled(np.max, np.abs(lateral[window])),
        'transitions': float(len(regains)),
        'regain_max_s': max(regains) if regains else math.inf,
        'sideslip_mean_deg': settled(np.mean, np.abs(beta[window])),
        'time_in_drift_s': float(np.sum(dt[window & drifting(beta)])),
        'mean_speed_m_s': settled(np.mean, speed[window]),
    }
    series = {'t': t, 'speed_m_s': speed, 'max_slip_angle_rad': s['max_slip_angle_rad'],
              'x': s['x'], 'y': s['y'], 'targets': {},
              'curves': {'sideslip [deg / 10]': beta / 10.0, 'yaw rate [rad/s]': s['yaw_rate'],
                         'lateral error [m]': lateral}}
    return {'metrics': metrics, 'series': series}


def world_metrics(spec: Dict[str, Any], states: Dict[str, np.ndarray], contacts_ns,
                  others=(), path: ClosedPath = None) -> Dict[str, float]:
    """
    Return the contact metrics on a stage with walls or among cars ({} alone on open ground).

    collisions: the contacts of every car (their times [ns], `contacts_ns`) up
    to the last state; min_clearance_m: the least distance from the car's
    footprint to a wall or another car over the states (at most
    CLEARANCE_REACH_M; 0: touching). With other cars (`others`: each one's
    x, y, yaw at the states), passes: how often the car got ahead of one
    along `path`.
    """
    walls = stage_walls(spec['stage'])
    if walls is None and not len(others):
        return {}
    outline = footprint_of(vehicle_config(spec))
    least = CLEARANCE_REACH_M
    if walls is not None and len(states['x']):
        rows = boxes_at(states['x'], states['y'], states['yaw'], outline)
        least = least_clearance(*walls_of(walls), rows, least)
    outlines = [footprint_of(opponent_config(spec, o)) for o in spec.get('opponents', [])]
    for other, other_outline in zip(others, outlines):
        for k, (x, y, yaw) in enumerate(zip(states['x'].tolist(), states['y'].tolist(),
                                            states['yaw'].tolist())):
            theirs = box_at(*(float(v) for v in other[k]), other_outline)
            least = min(least, quad_clearance(corners(box_at(x, y, yaw, outline)),
                                              corners(theirs)))
    end_ns = round(states['t'][-1] * 1e9) if len(states['t']) else 0
    metrics = {'collisions': float(sum(1 for t in contacts_ns if t <= end_ns)),
               'min_clearance_m': float(least)}
    if len(others):
        metrics['passes'] = float(sum(_passes(path, states['x'], states['y'], other)
                                      for other in others))
    return metrics


def _passes(path: ClosedPath, xs: np.ndarray, ys: np.ndarray, other: np.ndarray) -> int:
    """Return how often the car (xs, ys) got ahead of the other car along the path."""
    if len(xs) == 0:
        return 0
    mine, _ = path.track(xs, ys, start_m=path.locate(xs[0], ys[0]).progress_m)
    theirs, _ = path.track(other[:, 0], other[:, 1],
                           start_m=path.locate(other[0, 0], other[0, 1]).progress_m)
    lead = path.progress_step(theirs[0], mine[0]) + (mine - mine[0]) - (theirs - theirs[0])
    return int(np.sum((lead[:-1] < 0.0) & (lead[1:] >= 0.0)))


def contact_report(time_ns: int, car: str, other: str, x: float, y: float) -> Dict[str, Any]:
    """Return a contact as a report lists it: when, which car, what it touched, where."""
    return {'time_ns': time_ns, 'car': car, 'other': other, 'x_m': x, 'y_m': y}


def evaluate(spec: Dict[str, Any], result: Dict[str, Any], contacts_ns=()) -> Dict[str, Any]:
    """Return the scenario's metrics (its kind's, then the world's) and their time series."""
    evaluated = METRIC_FUNCTIONS[spec['metrics']](spec, result)
    evaluated['metrics'].update(world_metrics(spec, result['states'], contacts_ns,
                                              result.get('others', ()), result['path']))
    return evaluated


def jump_metrics(spec: Dict[str, Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """
    Return the path metrics and the jumps' (result: path, states, body).

    result['body']: base_link's height `z` [m] and the four wheels' `load`
    [N] at each state. In the air: no wheel carries a load. airtime_s: the
    time in the air; longest_flight_s; flights; peak_height_m: base_link's
    greatest height over the ground under it in the air (0 at static ride on
    the ground); landing_load_g: the greatest load on the wheels within
    LANDING_WINDOW_S of a landing, in the car's weights (each at the states:
    a control period apart).
    """
    evaluated = path_metrics(spec, result)
    states, body = result['states'], result['body']
    t = states['t']
    z, load = body['z'][:len(t)], body['load'][:len(t)]
    above = z - stage_surface(spec['stage']).height_at(states['x'], states['y'])
    config = vehicle_config(spec)
    weight = config['mass_kg'] * config['gravity_m_s2']
    air = load == 0.0
    dt = np.diff(t, append=t[-1])
    runs = _runs(air)
    landing = 0.0
    for _, end in runs:
        if end < len(t):
            landed = (t >= t[end]) & (t <= t[end] + LANDING_WINDOW_S)
            landing = max(landing, float(load[landed].max()) / weight)
    evaluated['metrics'].update({
        'airtime_s': float(np.sum(dt[air])),
        'longest_flight_s': max((float(t[min(end, len(t) - 1)] - t[start])
                                 for start, end in runs), default=0.0),
        'flights': float(len(runs)),
        'peak_height_m': float(above[air].max()) if air.any() else 0.0,
        'landing_load_g': landing,
    })
    evaluated['series']['curves'].update({'height over the ground [m]': above,
                                          'wheel loads [weights]': load / weight})
    return evaluated


def _runs(flags: np.ndarray) -> List[Tuple[int, int]]:
    """Return each run of True in flags as (first index, index after its last)."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], flags.astype(int), [0]])))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


LANDING_WINDOW_S = 0.5
"""How long after a landing its load counts as the landing's [s]."""
METRIC_FUNCTIONS = {'path': path_metrics, 'drift': drift_metrics,
                    'figure_eight': figure_eight_metrics, 'jump': jump_metrics}
"""Each `metrics` kind's function: (spec, result) -> {'metrics', 'series'}."""


def judge(metrics: Dict[str, float], thresholds: Dict[str, Dict[str, float]]):
    """Return {metric: {value, min/max, passed}} and whether all passed."""
    verdicts = {}
    for metric, bound in thresholds.items():
        value = metrics[metric]
        passed = bool(value >= bound.get('min', -math.inf) and value <= bound.get('max', math.inf))
        verdicts[metric] = {**bound, 'value': value, 'passed': passed}
    return verdicts, all(v['passed'] for v in verdicts.values())
