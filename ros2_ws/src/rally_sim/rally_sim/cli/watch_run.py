"""
`./rally watch`: any running simulation, or a recorded bag, live in the browser.

    ./rally watch [--bag DIR [--paused]] [--cars NAME,...] [--host H] [--port P]
        [--token T] [--watch-without-token] [--open]

Live: starts the view server node (ros/view/) beside whatever simulation
runs on this ROS domain (a launch file, a scenario, `./rally run`, your
own), finds its cars by their ground_truth/odom topics and shows them.
With --bag: replays a rosbag2 bag (from when the first page connects) (`--record` of `./rally run`,
`./rally scenario`, `./rally drive`) in the same page, with play, pause
and a time slider; no ROS is needed for that. Prints the page's address;
ends on Ctrl-C.
"""

import argparse
import os
import socket
import sys
import time
import webbrowser

from .drive_run import add_page_arguments, settle_page_arguments
from ..runtime.entry import StopRequest
from ..runtime.processes import start_logged, stop_all
from ..view.server import LOCAL_HOSTS

WAIT_S = 0.2


def parse_args(argv):
    """Parse and check the command line."""
    parser = argparse.ArgumentParser(prog='./rally watch', description=__doc__.split('\n\n')[0])
    parser.add_argument('--bag', help='replay this rosbag2 bag (a folder) instead')
    parser.add_argument('--paused', action='store_true', help='--bag: start paused')
    parser.add_argument('--cars', default='', help='only these cars, by name, comma-separated '
                                                   '(default: every car found)')
    add_page_arguments(parser)
    parser.add_argument('--output', default='out', help="folder for the view's log (live)")
    args = parser.parse_args(argv)
    if args.bag and not os.path.isdir(args.bag):
        parser.error(f'--bag {args.bag}: no such folder (a rosbag2 bag is a folder)')
    settle_page_arguments(args)
    return args


def address(args) -> str:
    """Return the page's address as a person types it."""
    if args.host in LOCAL_HOSTS:
        return f'http://localhost:{args.port}/'
    return f'http://{socket.gethostname()}:{args.port}/?token={args.token}'


def main(argv=None, stop: StopRequest = None) -> int:
    """Watch until Ctrl-C; return the exit status."""
    stop = stop or StopRequest(tool=True)
    args = parse_args(sys.argv[1:] if argv is None else argv)
    return replay(args, stop) if args.bag else live(args, stop)


def live(args, stop: StopRequest) -> int:
    """Run the view server node until Ctrl-C or its end."""
    os.makedirs(args.output, exist_ok=True)
    log = os.path.join(args.output, 'view.log')
    command = [sys.executable, '-m', 'rally_sim.ros.view_server', '--ros-args',
               '-p', f'host:={args.host}', '-p', f'port:={args.port}',
               '-p', f'watch_without_token:={str(args.watch_without_token).lower()}']
    if args.token:
        command += ['-p', f'token:={args.token}']
    if args.cars:
        command += ['-p', f'cars:=[{args.cars}]']
    stop.hold()
    view = start_logged(command, log)
    print(f'rally_sim watch: open {address(args)} (every car on ROS_DOMAIN_ID='
          f"{os.environ.get('ROS_DOMAIN_ID', '0')}); Ctrl-C ends; log {log}", flush=True)
    if args.open:
        webbrowser.open(address(args))
    try:
        while not stop.requested and view.poll() is None:
            time.sleep(WAIT_S)
    finally:
        stop_all([view])
    if view.returncode not in (0, None) and not stop.requested:
        with open(log, encoding='utf-8') as stream:
            print(stream.read()[-2000:], file=sys.stderr)
        return 1
    return 0


def replay(args, stop: StopRequest) -> int:
    """Replay the bag in the page until Ctrl-C."""
    from ..view.feed import Feed
    from ..view.replay import Replay
    from ..view.server import ViewServer
    handler = {}
    server = ViewServer(drive=False, host=args.host, port=args.port, token=args.token or None,
                        watch_without_token=args.watch_without_token,
                        on_message=lambda client, message: handler['replay'](message),
                        on_connect=lambda client: handler['connect'](), title='rally_sim replay')
    feed = Feed(server)
    try:
        player = Replay(feed, args.bag)
    except (OSError, ValueError) as error:
        print(f'./rally watch: error: --bag {args.bag}: {error}', file=sys.stderr)
        return 2

    def on_message(message) -> None:
        if message.type != 'replay':
            if message.type == 'stats':
                return
            raise ValueError(f'{message.type}: a replay is watched, not driven')
        action = message.fields['action']
        if action == 'seek':
            player.seek(message.fields['t'])
        else:
            getattr(player, action)()

    def on_connect() -> None:          # the first page to look starts the replay
        if handler.pop('waiting', False) and not args.paused:
            player.play()
    handler.update(replay=on_message, connect=on_connect, waiting=True)
    stop.hold()
    server.start()
    player.start(play=False)
    print(f'rally_sim watch: replaying {args.bag} ({player.duration_s:.1f} s) at '
          f'{address(args)}; Ctrl-C ends', flush=True)
    if args.open:
        webbrowser.open(address(args))
    try:
        while not stop.requested:
            time.sleep(WAIT_S)
    finally:
        player.stop()
        server.stop()
    return 0
