"""
Benchmark of the world: the lidar's scans and the contact checks, on the track stage.

    python -m rally_sim.bench.world [--repeat N]

Prints, for F1TENTH's lidar (1,080 beams over 4.7 rad, 30 m, 40 Hz, with
range noise) at poses round the track's centre line, the time a scan takes
(the beams cast through the walls and another car, then its errors) and
the share of one core that 40 scans a second take, beside issue 36's
target (at most 5 %). Then the cost of the contact checks for a car
driving the track, as a share of a core at real time (1 kHz physics), and
gap_follow_track's closed loop in-process. Nothing is asserted.
"""

import argparse
import math
import sys
import time

import numpy as np

from ..physics import load_vehicle, Surface, Vehicle
from ..resources import config_file, vehicle_path
from ..sensors import Sensors
from ..sensors.profiles import from_mapping
from ..sim import Session, Start
from ..sim.session import DEFAULT_SETTINGS
from ..world.occupancy import load_map
from ..world.scene import footprint_of, Scene
from ..world.stages import read_path

LIDAR = {'rate_hz': 40.0, 'beams': 1080, 'field_of_view_rad': 4.7, 'range_min_m': 0.0,
         'range_max_m': 30.0, 'mount_x_m': 0.275, 'ranges': {'stddev': 0.01}}
"""F1TENTH's simulated lidar (f1tenth_gym's scan: 1,080 beams, 4.7 rad, 30 m), with noise."""
TARGET_SHARE = 0.05
"""Issue 36: 1,080 beams at 40 Hz take at most 5 % of a core."""


def poses(count: int) -> np.ndarray:
    """Return `count` places round the track's centre line: x, y and heading each."""
    path = read_path(config_file('stages/track_path.csv'))
    picks = np.linspace(0, len(path), count, endpoint=False).astype(int)
    ahead = path[(picks + 1) % len(path)] - path[picks]
    return np.column_stack([path[picks], np.arctan2(ahead[:, 1], ahead[:, 0])])


def scan_cost(repeat: int) -> float:
    """Return the best wall time [s] of one scan, over scans at 200 poses round the track."""
    walls = load_map(config_file('stages/track_map.yaml'))
    config = load_vehicle(vehicle_path('volvo_v40'))
    car, other = Vehicle(config), Vehicle(config)
    scene = Scene(walls)
    scene.add(car, footprint_of(config))
    scene.add(other, footprint_of(config))
    sensors = Sensors(from_mapping({'lidar': LIDAR}, 'bench'), 0, 1_000_000, 10_000_000)
    sensors.world = scene
    every = round(1000 / LIDAR['rate_hz'])
    places = poses(200)
    best, step, scans = math.inf, 0, 0
    for _ in range(repeat):
        spent = 0.0         # the scans' time only, not the cars' placing
        for k, (x, y, heading) in enumerate(places):
            car.reset(x=x, y=y, yaw=heading)
            ox, oy, oh = places[(k + 20) % len(places)]     # a car ahead, in the beams
            other.reset(x=ox, y=oy, yaw=oh)
            start = time.perf_counter()
            sensors.measure(step, car)
            scans += len(sensors.delivered(step))
            spent += time.perf_counter() - start
            step += every
        best = min(best, spent / len(places))
    assert scans == repeat * len(places), 'a scan was not measured'
    return best


def contact_cost(repeat: int, seconds: float = 5.0) -> float:
    """Return the share of a core the contact checks add to a car on the track at 1 kHz."""
    walls = load_map(config_file('stages/track_map.yaml'))
    x, y, heading = poses(4)[1]         # the top straight: a V40 fits between the walls
    costs = []
    for contact in ('stop', 'off'):
        best = math.inf
        for _ in range(repeat):
            car = Vehicle(load_vehicle(vehicle_path('volvo_v40')), Surface.uniform())
            session = Session(car, from_mapping({}, 'none'), 0, occupancy=walls,
                              contact=contact, start=Start(x, y, heading, 1.0),
                              settings=dict(DEFAULT_SETTINGS, command_timeout_s=0.0))
            start = time.perf_counter()
            session.advance(round(seconds * 1000))
            best = min(best, time.perf_counter() - start)
        costs.append(best)
    return (costs[0] - costs[1]) / seconds


def gap_follow_in_process() -> float:
    """Return simulated over CPU seconds of gap_follow_track run in-process (the whole run)."""
    from ..campaign.inprocess import run_scenario
    from ..scenarios.spec import load_scenario
    spec = load_scenario('gap_follow_track')
    spec['seed_in_use'] = 0
    run_scenario(dict(spec, duration_s=1.0))        # load what it needs first
    start = time.process_time()
    result = run_scenario(spec)
    return result['simulated_s'] / (time.process_time() - start)


def main(argv=None) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(prog='python -m rally_sim.bench.world',
                                     description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeat', type=int, default=5, help='runs per figure (best kept)')
    args = parser.parse_args(argv)
    scan_cost(1)        # compile (or load the cache) first
    scan = scan_cost(args.repeat)
    share = scan * LIDAR['rate_hz']
    print(f"\nlidar on the track stage ({LIDAR['beams']:,} beams over "
          f"{LIDAR['field_of_view_rad']:g} rad, {LIDAR['range_max_m']:g} m, range noise, "
          f'another car in view): {scan * 1e6:,.0f} us a scan; at '
          f"{LIDAR['rate_hz']:g} Hz {share:.1%} of a core (target, issue 36: at most "
          f'{TARGET_SHARE:.0%})')
    contact = contact_cost(args.repeat)
    print(f'contact checks of a V40 in the track (0.27 m from each wall) at 1 m/s, 1 kHz '
          f'physics: {contact:.1%} of a core at real time')
    factor = gap_follow_in_process()
    print(f"gap_follow_track in-process (the session and the gap follower's law in one "
          f'process, no ROS): x{factor:.1f} real time on one core (through ROS: '
          'python -m rally_sim.bench.node)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
