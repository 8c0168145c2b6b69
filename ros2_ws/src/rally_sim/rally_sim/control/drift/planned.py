"""
Drift plans made on first use and cached, for any car, surface and radius: transitions, entries.

The drift controller's figure eight needs a planned transition
(transition.py). A shipped or written file serves the cars it was planned
for; any other car, surface, radius, sideslip or gear gets one planned here
the first time (tens of seconds) and kept in the cache folder
($XDG_CACHE_HOME or ~/.cache, /rally_sim/transitions), named by what it was
planned for and a hash of the vehicle file's values, so that an edited car
is planned anew. Written to a temporary file and renamed into place, so that
two processes planning at once never read half a file. A drift entry
(entry.py) is kept alike, in the folder entries/.
"""

import hashlib
import math
import os
import sys
import tempfile
import time
from typing import Tuple

from .entry import Entry, load_entry, plan_entry, PLAN_VERSION
from .lqr import DriftLqr
from .transition import describe, design_keys, design_transition, load_transition, Transition
from ...physics.files import cache_folder


WIDE_M = 1.0
"""A plan further than this off the circles is said to cross wide (drift_figure_eight's largest
lateral error)."""


def cached_name(vehicle: str, left: DriftLqr) -> str:
    """Return the cache file's name for `left`'s transition on the car `vehicle` names."""
    d = design_keys(vehicle, left)
    values = repr(sorted((key, repr(value)) for key, value in left.vehicle.config.values.items()))
    digest = hashlib.sha256(values.encode()).hexdigest()[:12]
    gear = f"_gear{d['gear']}" if d['mode'] == 'driver' else ''
    return (f"{d['vehicle']}_{d['surface']}_{d['radius_m']:g}m_{d['sideslip_deg']:g}deg_"
            f"{d['mode']}{gear}_{digest}.yaml")


def planned_transition(vehicle: str, left: DriftLqr, log=sys.stderr) -> Tuple[Transition, str]:
    """
    Return `left`'s transition and its file: from the cache, or planned now and cached.

    ValueError when no transition regains the drift (the planned run never
    holds the new side's sideslip).
    """
    folder = cache_folder('transitions')
    path = os.path.join(folder, cached_name(vehicle, left))
    if os.path.isfile(path):
        return load_transition(path), path
    wanted = describe(design_keys(vehicle, left))
    print(f"rally_sim: planning the figure eight's transition for {wanted} (once: tens of "
          f'seconds; kept in {path})', file=log, flush=True)
    start = time.monotonic()
    transition = design_transition(vehicle, left)
    regain = transition.measured['regain_s']
    if not math.isfinite(regain):
        raise ValueError(f'no transition found for {wanted}: the planned run never regains '
                         'the drift on the new side')
    keep(transition, path)
    off = transition.measured['lateral_max_m']
    print(f'rally_sim: planned in {time.monotonic() - start:.0f} s: within {off:.3f} m of the '
          f'circles, the new side held {regain:.2f} s after the crossing', file=log, flush=True)
    if off > WIDE_M:
        print(f'rally_sim: warning: the best plan found leaves the circles by {off:.2f} m '
              f'(more than {WIDE_M:g} m): expect a lateral error of that order at each '
              'crossing', file=log, flush=True)
    return transition, path


def keep(plan, path: str) -> None:
    """Write a plan (its save()) to path through a temporary file renamed into place."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    handle, fresh = tempfile.mkstemp(prefix='.planning', suffix='.yaml', dir=folder)
    os.close(handle)
    plan.save(fresh)
    os.replace(fresh, path)


def planned_entry(vehicle: str, law: DriftLqr, log=sys.stderr) -> Tuple[Entry, str]:
    """
    Return the law's drift entry and its file: from the cache, or planned now and cached.

    Each family's result is logged as it is planned (the whole plan takes
    up to a minute). ValueError when no family enters the drift.
    """
    path = os.path.join(cache_folder('entries', f'v{PLAN_VERSION}'), cached_name(vehicle, law))
    if os.path.isfile(path):
        return load_entry(path), path
    wanted = describe(design_keys(vehicle, law))
    print(f'rally_sim: planning the drift entry for {wanted} (once: up to a minute; kept in '
          f'{path})', file=log, flush=True)
    start = time.monotonic()

    def progress(line: str) -> None:
        print(f'rally_sim:   {time.monotonic() - start:.0f} s: {line}', file=log, flush=True)

    entry = plan_entry(law, design_keys(vehicle, law), log=progress)
    tried = ', '.join(said(name, r) for name, r in entry.measured['families'].items())
    if not entry.measured['entered']:
        raise ValueError(f'no drift entry found for {wanted}: {tried}')
    keep(entry, path)
    print(f'rally_sim: planned in {time.monotonic() - start:.0f} s: {entry.family}, the lowest '
          f'cost of those that enter ({tried})', file=log, flush=True)
    return entry, path


def said(family: str, result: dict) -> str:
    """Return a family's result (plan_entry's measured['families']) in words."""
    if not result.get('refined'):
        return f"{family} not refined (start cost {result['start_cost']:g})"
    return (f"{family} {'enters' if result['entered'] else 'does not enter'} (cost "
            f"{result['cost']:g})")
