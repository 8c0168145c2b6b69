"""
`./rally drive`: drive a car yourself, in the browser, on a stage or your own map.

    ./rally drive [VEHICLE] [--stage NAME | --map FILE.yaml [--surface S]]
        [--model four_wheel|arcade_bicycle|kinematic_bicycle] [--race] [--ghost FILE]
        [--assist NAME[=VALUE] ...] [--host H] [--port P] [--token T] [--watch-without-token]
        [--open] [--duration S] [--record DIR] [--output DIR]

Starts the simulator (real time, owning /clock) and the view server in
drive mode (ros/view/), prints the page's address, and records the drive
as `./rally run` does: run.csv, run.png, laps.csv and, when a lap was
completed, best_lap.csv (the best lap's line: a path file for a scenario or
the path follower, and a ghost for `--ghost`); with --record every topic in
a rosbag2 bag. With --race the example path follower drives a second car
on the same stage (its drivetrain worked by the pedals, as the person's),
starting beside yours; the cars bounce off each other and the walls.
Ends on Ctrl-C or after --duration simulated seconds.
"""

import argparse
import datetime
import math
import os
import secrets
import socket
import subprocess
import sys
import time
from typing import Dict, List, Optional
import webbrowser

import numpy as np
import rclpy
from rclpy.signals import SignalHandlerOptions
import yaml

from .demo_driver import DemoDriver, finish, start, trouble
from .replay import write_trajectory
from ..drive.assists import ASSIST_SPECS
from ..drive.laps import LapTimer
from ..drive.vehicles import as_model
from ..physics import load_vehicle
from ..physics.config import MODELS
from ..resources import surface_from, vehicle_path
from ..ros.recording import BagRecorder, recorded_topics
from ..runtime.entry import StopRequest
from ..runtime.processes import stop_all
from ..view.server import LOCAL_HOSTS
from ..world.plotting import plot_run
from ..world.stage_view import path_file
from ..world.stages import read_path

RECORDER = 'rally_drive_recorder'
"""The node in this process that records the run (the simulator waits for it to start)."""
FOLLOWER = 'follower'
YOU = 'you'


def parse_args(argv: List[str]) -> argparse.Namespace:
    """Parse and check the command line (a bad vehicle, stage or map: exit 2, said why)."""
    parser = argparse.ArgumentParser(prog='./rally drive', description=__doc__.split('\n\n')[0])
    parser.add_argument('vehicle', nargs='?', default='rwd_gravel',
                        help='vehicle preset or file (default rwd_gravel)')
    where = parser.add_mutually_exclusive_group()
    where.add_argument('--stage', default='rally_stage',
                       help='a shipped stage, surface type or surface map (default rally_stage)')
    where.add_argument('--map', help='your occupancy map (a map_server YAML): its walls over '
                                     'ground of one surface (--surface)')
    parser.add_argument('--surface', default='tarmac_dry',
                        help='with --map: the ground under it (default tarmac_dry)')
    parser.add_argument('--model', choices=tuple(MODELS),
                        help="the vehicle's model instead of its file's")
    parser.add_argument('--race', action='store_true',
                        help='race the example path follower on the same stage (a car with a '
                             'drivetrain; the stage needs a path)')
    parser.add_argument('--ghost', help='a best_lap.csv of an earlier drive, raced as a ghost')
    parser.add_argument('--assist', action='append', default=[], metavar='NAME[=VALUE]',
                        help=f"switch an assist on: {', '.join(ASSIST_SPECS)} "
                             '(counter_steer=0..3)')
    add_page_arguments(parser)
    parser.add_argument('--duration', type=float, default=math.inf,
                        help='simulated seconds to drive (default: until Ctrl-C)')
    parser.add_argument('--real-time-factor', type=float, default=1.0,
                        help='simulated seconds per wall second (default 1)')
    parser.add_argument('--output', default='out', help='folder for the results (default out)')
    parser.add_argument('--record', metavar='DIR', help='also record every topic into a '
                                                        'rosbag2 bag (MCAP) in DIR')
    args = parser.parse_args(argv)
    try:
        args.config = load_vehicle(vehicle_path(args.vehicle))
        surface_from(args.surface if args.map else args.stage)
    except ValueError as error:
        parser.error(str(error))
    if args.map and not os.path.isfile(args.map):
        parser.error(f'--map {args.map}: no such file')
    if args.record and os.path.exists(args.record):
        parser.error(f'--record {args.record}: the folder exists already')
    if not (args.duration > 0.0):
        parser.error('--duration must be a positive number of seconds')
    if not 0.01 <= args.real_time_factor <= 100.0:
        parser.error('--real-time-factor must be in [0.01, 100]')
    if args.race and args.config['drivetrain.layout'] == 'none':
        parser.error(f'--race: {args.vehicle} has no drivetrain (the path follower races '
                     'with pedals and gears)')
    if args.race and stage_path(args) is None:
        parser.error(f'--race: {args.map or args.stage} has no reference path to race on')
    args.assists = _assists(parser, args.assist)
    settle_page_arguments(args)
    return args


def add_page_arguments(parser: argparse.ArgumentParser) -> None:
    """Add where the page is served and who may use it (./rally drive and ./rally watch)."""
    parser.add_argument('--host', default='127.0.0.1',
                        help='address to serve the page on (default 127.0.0.1; 0.0.0.0: the '
                             'network, with an access token)')
    parser.add_argument('--port', type=int, default=0,
                        help='TCP port (default: 8765, or a free one if it is taken)')
    parser.add_argument('--token', default='', help='the access token (default: drawn when '
                                                    'shared on a network)')
    parser.add_argument('--watch-without-token', action='store_true',
                        help='shared on a network: pages without the token may watch')
    parser.add_argument('--open', action='store_true', help='open the page in your browser')


def settle_page_arguments(args: argparse.Namespace) -> None:
    """Choose the port (8765 if free) and, shared on a network, draw the access token."""
    args.port = args.port or free_port(args.host, 8765)
    if not args.token and args.host not in LOCAL_HOSTS:
        args.token = secrets.token_urlsafe(12)


def _assists(parser, given: List[str]) -> Dict[str, object]:
    values = {}
    for item in given:
        name, _, value = item.partition('=')
        if name not in ASSIST_SPECS:
            parser.error(f'--assist {item}: no such assist; the assists: '
                         f"{', '.join(ASSIST_SPECS)}")
        if isinstance(ASSIST_SPECS[name].default, bool):
            values[name] = value.lower() not in ('0', 'false', 'off') if value else True
        else:
            try:
                values[name] = float(value) if value else 1.0
            except ValueError:
                parser.error(f'--assist {item}: {name} takes a number')
            spec = ASSIST_SPECS[name]
            if not spec.low <= values[name] <= spec.high:
                parser.error(f'--assist {item}: {name} in [{spec.low:g}, {spec.high:g}]')
    return values


def free_port(host: str, preferred: int) -> int:
    """Return `preferred` if it can be listened on, else a free port the system gives."""
    for port in (preferred, 0):
        with socket.socket(socket.AF_INET6 if ':' in host else socket.AF_INET) as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise OSError(f'no free port on {host}')


def vehicle_file(args, folder: str) -> str:
    """Return the vehicle file the simulator loads: the user's, or its car as --model."""
    path = vehicle_path(args.vehicle)
    if not args.model or args.model == args.config['model']:
        return path
    tree = as_model(args.config, args.model)
    copy = os.path.join(os.path.abspath(folder), f"{tree['name']}.yaml")
    with open(copy, 'w', encoding='utf-8') as stream:
        stream.write(f'# {args.vehicle} as the {args.model} model (./rally drive --model)\n')
        yaml.safe_dump(tree, stream, sort_keys=False)
    args.config = load_vehicle(copy)    # refused now, with its reason, rather than in the node
    return copy


def stage_path(args) -> Optional[np.ndarray]:
    """Return the stage's reference path (None for a map or a stage without one)."""
    if args.map:
        return None
    surface = surface_from(args.stage)
    source = path_file(surface.source) if surface.source else None
    return read_path(source) if source else None


def grid(path: np.ndarray, config) -> Dict[str, float]:
    """Return the race's start: the follower on the line's first point, you beside it, left."""
    (x0, y0), (x1, y1) = path[0], path[1]
    yaw = math.atan2(y1 - y0, x1 - x0)
    beside = 2.0 * config['half_track_m'] + 1.0
    starts = {FOLLOWER: (x0, y0), YOU: (x0 - beside * math.sin(yaw), y0 + beside * math.cos(yaw))}
    return {f'{car}.{key}': float(value) for car, (x, y) in starts.items()
            for key, value in (('initial_x', x), ('initial_y', y), ('initial_yaw', yaw))}


def processes_for(args, vehicle: str, path, folder: str) -> List[subprocess.Popen]:
    """Start the simulator, the view server (drive mode) and, racing, the path follower."""
    cars = [YOU, FOLLOWER] if args.race else []
    params = {'vehicle': vehicle, 'surface': args.surface if args.map else args.stage,
              'real_time_factor': args.real_time_factor, 'pacing': 'realtime',
              'command_mode': 'driver' if args.config['drivetrain.layout'] != 'none'
              else 'torque',
              'sync_observers': f"[{f'/{YOU}/' if args.race else ''}{RECORDER}]"}
    if args.map:
        params['map'] = args.map
    if cars:
        params.update(cars=f"[{', '.join(cars)}]", contact='bounce', **grid(path, args.config))
    view = {'mode': 'drive', 'vehicle': vehicle, 'host': args.host, 'port': args.port,
            'token': args.token, 'watch_without_token': args.watch_without_token,
            'drive_car': YOU if cars else '', 'ghost_file': os.path.abspath(args.ghost)
            if args.ghost else ''}
    view.update(args.assists)
    view = {k: v for k, v in view.items() if v != ''}       # rcl takes no empty value
    started = [start('rally_sim.ros.node', params, os.path.join(folder, 'simulator.log')),
               start('rally_sim.ros.view_server', view, os.path.join(folder, 'view.log'))]
    if args.race:
        follower = [sys.executable, '-m', 'rally_sim.ros.path_follower', '--ros-args',
                    '-r', f'__ns:=/{FOLLOWER}', '-p', 'command:=driver',
                    '-p', f'path_file:={args.stage}']
        log = open(os.path.join(folder, 'path_follower.log'), 'w', encoding='utf-8')
        started.append(subprocess.Popen(follower, stdout=log, stderr=subprocess.STDOUT,
                                        process_group=0))
    return started


def main(argv=None, stop: StopRequest = None) -> int:
    """Drive until Ctrl-C or --duration; write the run; return the exit status."""
    stop = stop or StopRequest(tool=True)
    args = parse_args(sys.argv[1:] if argv is None else argv)
    folder = os.path.join(args.output, datetime.datetime.now().strftime('drive-%Y%m%d-%H%M%S'))
    os.makedirs(folder, exist_ok=True)
    try:
        vehicle = vehicle_file(args, folder)
    except ValueError as error:
        print(f'./rally drive: error: --model {args.model}: {error}', file=sys.stderr)
        return 2
    path = stage_path(args)
    stop.hold()
    processes = processes_for(args, vehicle, path, folder)
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    recorder = DemoDriver(drive=False, name=RECORDER,
                          namespace=f'/{YOU}' if args.race else '')
    bag = BagRecorder(recorder, args.record, recorded_topics(
        [YOU, FOLLOWER] if args.race else ['']), {'rally_sim.drive': args.vehicle}) \
        if args.record else None
    url = f'http://localhost:{args.port}/' if args.host in LOCAL_HOSTS else \
        f'http://{socket.gethostname()}:{args.port}/?token={args.token}'
    print(f"rally_sim drive: {args.config['name']} on {args.map or args.stage}; open {url} "
          f'(keys: arrows or WASD, space handbrake, E/Q gears, R back on the path, H help); '
          f'Ctrl-C ends the drive; results in {folder}', flush=True)
    if args.open:
        webbrowser.open(url)
    status = _drive(args, recorder, processes, stop, folder)
    trajectory = finish(recorder, bag, args.record, round(min(args.duration, 1e6) * 1e9),
                        folder)
    if trajectory is None:
        return 1
    write_results(folder, trajectory, args, path)
    return status


def _drive(args, recorder, processes, stop, folder) -> int:
    """Spin the recorder until the duration, Ctrl-C or a process's end; stop the processes."""
    waited = time.monotonic()
    try:
        while not stop.requested and recorder.sim_time() < args.duration:
            rclpy.spin_once(recorder, timeout_sec=0.05)
            reason = trouble(recorder, processes, stop, waited, folder)
            if reason:
                print(reason, file=sys.stderr)
                return 1
    finally:
        stop_all(processes)
    return 0


def write_results(folder: str, trajectory, args, path) -> None:
    """Write run.csv, run.png, laps.csv and best_lap.csv (a lap was completed)."""
    csv_path, png_path = os.path.join(folder, 'run.csv'), os.path.join(folder, 'run.png')
    write_trajectory(csv_path, trajectory)
    plot_run(trajectory, args.config, png_path,
             title=f'driven by hand on {args.map or args.stage}',
             surface=None if args.map else surface_from(args.stage))
    written = [csv_path, png_path]
    if path is not None:
        written += write_laps(folder, trajectory, path)
    print('wrote ' + ', '.join(written))


def thinned(line: np.ndarray, spacing_m: float = 0.5) -> np.ndarray:
    """Return a lap's samples at least spacing_m apart, its end not on its start: a path."""
    kept = [line[0]]
    for row in line[1:]:
        if math.hypot(row[1] - kept[-1][1], row[2] - kept[-1][2]) >= spacing_m:
            kept.append(row)
    while len(kept) > 3 and math.hypot(kept[-1][1] - kept[0][1],
                                       kept[-1][2] - kept[0][2]) < spacing_m:
        kept.pop()
    return np.array(kept)


def write_laps(folder: str, trajectory, path) -> List[str]:
    """Time the laps of the run along the path; write them, and the best lap's line."""
    c = trajectory.columns
    timer = LapTimer(path)
    for t, x, y, yaw in zip(c['t'].tolist(), c['x'].tolist(), c['y'].tolist(), c['yaw'].tolist()):
        timer.update(t, x, y, yaw)
    laps_path = os.path.join(folder, 'laps.csv')
    with open(laps_path, 'w', encoding='utf-8') as stream:
        stream.write('lap,time_s\n')
        for k, lap in enumerate(timer.laps, start=1):
            stream.write(f'{k},{lap!r}\n')
    written = [laps_path]
    if timer.best_line is not None:
        best = os.path.join(folder, 'best_lap.csv')
        np.savetxt(best, thinned(timer.best_line), delimiter=',', header='t,x,y,yaw',
                   comments='')
        written.append(best)
        print(f'laps: {len(timer.laps)}, best {timer.best_s:.3f} s')
    return written
