"""
Into the drift on any car: seeded random rear-drive cars enter and hold a drift from grip.

    python -m rally_sim.bench.drift_entry [--cars 100] [--first 0] [--sideslip-deg -20]
                                          [--entry auto|ramp|planned] [--springs-every 4]

Each car (rally_sim/random_cars.py: 1/10 scale to rally cars, open,
clutch-pack and locked differentials, torque and driver modes; every fourth
on springs, the others planar) drives on
gravel round a circle 1.3 times its tightest (its CG's at full lock; where
the car holds no such drift on a circle that tight, the tightest it holds
it on: circle_of()); the
drift controller enters the drift as its `entry` parameter's default
(auto: a planned entry where the family of equilibria has a gap or no grip
driving at beta 0, the ramp otherwise) from a rolling start on the circle,
and holds it. Passed: the sideslip error RMS at most 0.5 deg and the
radius error RMS at most 1 % of R over the last HELD_S; every failure is
listed with its reason. Plans are made here, not read from the cache.
"""

import argparse
import json
import math
import os
import sys
import time
from typing import Dict, Tuple

import numpy as np

from ..control.drift.entry import core_command, EnteringDrift, needs_plan, plan_entry, scale_s
from ..control.drift.lqr import DriftDesign, DriftLqr
from ..control.drift.transition import design_keys
from ..physics import Surface, Vehicle
from ..physics.config import from_mapping
from ..physics.equilibria import EquilibriumError
from ..physics.model import OMEGA
from ..random_cars import on_springs, random_car, tightest_radius_m

RADIUS_SHARE = 1.3
"""The circle: this many times the car's tightest."""
HOLD_S = 4.0
"""Grip driving before a planned entry (the law's entry_s), and a ramp's length."""
SETTLE_S = 15.0
"""From the entry's end to the measured part."""
HELD_S = 10.0
"""The measured part: the drift held this long."""
LONGEST_S = 90.0
"""A run ends here at the latest (a car that never settles in grip)."""
SIDESLIP_RMS_DEG = 0.5
RADIUS_RMS_SHARE = 0.01
SPRINGS_EVERY = 4
"""Every this many cars (seed % SPRINGS_EVERY == SPRINGS_EVERY - 1) is on springs."""


def bench_car(seed: int, springs_every: int = SPRINGS_EVERY) -> Tuple[Dict, str]:
    """Return (vehicle tree, drive mode) of the bench's car `seed`: planar, or on springs."""
    tree, _, mode = random_car(seed)
    if springs_every and seed % springs_every == springs_every - 1:
        tree = on_springs(tree, seed)
    return tree, mode


def designed(config, mode: str, radius: float, sideslip_deg: float) -> DriftLqr:
    """Return the drift LQR of a car on a circle; EquilibriumError: no drift to hold there."""
    return DriftLqr(config, 'gravel', DriftDesign(
        radius_m=radius, sideslip_rad=math.radians(sideslip_deg), mode=mode, entry_s=HOLD_S))


def tightest_drift_radius_m(config, mode: str, from_m: float, sideslip_deg: float) -> float:
    """
    Return the tightest circle (within 2 %) from from_m out on which the car holds the drift.

    Widened by 15 % steps to 10 times from_m, then bisected; EquilibriumError
    if there is none that wide.
    """
    low, high = from_m, from_m
    while True:
        try:
            designed(config, mode, high, sideslip_deg)
            break
        except EquilibriumError:
            low, high = high, 1.15 * high
            if high > 10.0 * from_m:
                raise
    while high / low > 1.02:
        middle = math.sqrt(low * high)
        try:
            designed(config, mode, middle, sideslip_deg)
            high = middle
        except EquilibriumError:
            low = middle
    return high


def circle_of(tree: Dict, mode: str, sideslip_deg: float) -> Tuple[float, str]:
    """
    Return the circle a car is checked on, and what it is 1.3 times.

    RADIUS_SHARE times its tightest circle: the turning circle at full lock,
    or, where the car holds no such drift on a circle that tight, the
    tightest one it holds it on.
    """
    config = from_mapping(tree)
    turning = tightest_radius_m(tree)
    try:
        designed(config, mode, RADIUS_SHARE * turning, sideslip_deg)
        return RADIUS_SHARE * turning, 'turning circle'
    except EquilibriumError:
        drift = tightest_drift_radius_m(config, mode, turning, sideslip_deg)
        return RADIUS_SHARE * drift, f'tightest drift circle ({drift / turning:.2f} x turning)'


def law_of(seed: int, sideslip_deg: float, entry: str = 'auto',
           springs_every: int = SPRINGS_EVERY):
    """Return (vehicle tree, circle radius, the law as `entry` would enter it) of a random car."""
    tree, mode = bench_car(seed, springs_every)
    radius, _ = circle_of(tree, mode, sideslip_deg)
    law = designed(from_mapping(tree), mode, radius, sideslip_deg)
    if entry == 'planned' or (entry == 'auto' and needs_plan(law)):
        start = time.monotonic()
        entry = plan_entry(law, design_keys(tree['name'], law))
        entry.measured['plan_s'] = round(time.monotonic() - start, 1)
        if not entry.measured['entered']:
            raise EquilibriumError('no planned entry enters: ' + ', '.join(
                f'{name} {r}' for name, r in entry.measured['families'].items()))
        return tree, radius, EnteringDrift(law, entry)
    return tree, radius, law


def drive(tree: Dict, radius: float, law) -> np.ndarray:
    """Return rows (t, sideslip, distance from the circle) of a closed-loop run from grip."""
    car = Vehicle(from_mapping(tree), Surface.uniform('gravel'))
    planned = isinstance(law, EnteringDrift)
    speed = law.hold.speed_m_s if planned else float(law.schedule[0].velocity[0])
    car.reset(x=radius, y=0.0, yaw=0.5 * math.pi, vx=speed)
    period = law.design.control_period_s
    substeps = max(1, round(period / float(car.config['dt'])))
    law.reset()
    rows, k, end = [], 0, HOLD_S + SETTLE_S + HELD_S
    while k * period < end and k * period < LONGEST_S:
        s = car.state
        act = law.act(k * period, *(float(v) for v in s[:6]),
                      (float(s[OMEGA + 2]), float(s[OMEGA + 3])))
        car.set_command(core_command(act))
        car.advance(substeps, period / substeps)
        k += 1
        s = car.state
        rows.append((k * period, math.atan2(s[4], s[3]), math.hypot(s[0], s[1]) - radius))
        if planned and law.window_start_s is not None:
            end = law.window_start_s + law.entry.window_s + SETTLE_S + HELD_S
    return np.array(rows)


def check_car(seed: int, sideslip_deg: float = -20.0, entry: str = 'auto',
              springs_every: int = SPRINGS_EVERY) -> Dict:
    """Return one car's result: passed, the errors, the entry used and why it failed."""
    start = time.monotonic()
    tree, mode = bench_car(seed, springs_every)
    result = {'seed': seed, 'mode': mode, 'differential': tree['differential']['rear']['type'],
              'wheelbase_m': round(tree['cg_to_front_axle_m'] + tree['cg_to_rear_axle_m'], 3),
              'body': tree.get('body', 'planar')}
    try:
        tree, radius, law = law_of(seed, sideslip_deg, entry, springs_every)
    except EquilibriumError as error:
        return dict(result, passed=False, reason=str(error), seconds=time.monotonic() - start)
    planned = isinstance(law, EnteringDrift)
    rows = drive(tree, radius, law)
    held = rows[rows[:, 0] > rows[-1, 0] - HELD_S]
    sideslip = math.degrees(math.sqrt(np.mean((held[:, 1] - law.target.sideslip_rad) ** 2)))
    outside = math.sqrt(np.mean(held[:, 2] ** 2)) / radius
    passed = sideslip <= SIDESLIP_RMS_DEG and outside <= RADIUS_RMS_SHARE
    result.update(radius_m=round(radius, 3), circle=circle_of(tree, mode, sideslip_deg)[1],
                  entry=law.entry.family if planned else 'ramp',
                  gap=law.entry_note.split(':')[0] if law.entry_note else '',
                  sideslip_rms_deg=round(sideslip, 4), radius_rms_share=round(outside, 5),
                  passed=passed, seconds=round(time.monotonic() - start, 1),
                  plan_s=law.entry.measured['plan_s'] if planned else 0.0,
                  scale=round(scale_s(law.law if planned else law), 3))
    if not passed:
        result['reason'] = (f'the drift is not held: sideslip RMS {sideslip:.2f} deg, radius '
                            f'RMS {100 * outside:.2f} % of R (entered by the {result["entry"]})')
    return result


def main(argv=None) -> int:
    """Check the cars; print each and the counts, write out/drift_entry.json."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--cars', type=int, default=100)
    parser.add_argument('--first', type=int, default=0)
    parser.add_argument('--sideslip-deg', type=float, default=-20.0)
    parser.add_argument('--entry', choices=('auto', 'ramp', 'planned'), default='auto',
                        help="the controller's entry parameter (ramp: as before planned entries)")
    parser.add_argument('--springs-every', type=int, default=SPRINGS_EVERY,
                        help='every this many cars on springs (0: all planar)')
    parser.add_argument('--out', default='out/drift_entry.json')
    args = parser.parse_args(argv)
    results = []
    for seed in range(args.first, args.first + args.cars):
        result = check_car(seed, args.sideslip_deg, args.entry, args.springs_every)
        results.append(result)
        print(json.dumps(result), flush=True)
    passed = sum(r['passed'] for r in results)
    entries = {}
    for r in results:
        if r['passed']:
            entries[r['entry']] = entries.get(r['entry'], 0) + 1
    print(f'{passed} of {len(results)} cars entered and held a {args.sideslip_deg:g} deg drift; '
          f'entries: {entries}')
    plans = sorted(r['plan_s'] for r in results if r.get('plan_s'))
    if plans:
        print(f'plans: {len(plans)}, median {plans[len(plans) // 2]:.1f} s, longest '
              f'{plans[-1]:.1f} s')
    for r in results:
        if not r['passed']:
            print(f"  seed {r['seed']}: {r['reason']}")
    try:
        os.makedirs(os.path.dirname(args.out) or '.', exist_ok=True)
        with open(args.out, 'w', encoding='utf-8') as out:
            json.dump(results, out, indent=1)
    except OSError as error:
        print(f'cannot write {args.out}: {error}', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
