"""
The view server's parameters, declared once: default, meaning, range or choices.

The ROS view node declares them (ros/view/node.py), `./rally drive` and
`./rally watch` pass them, and its --help lists them. The assists (drive
mode) are parameters too, with the same specs as the page's settings
(drive/assists.py).
"""

from typing import Dict

from ..control.parameters import Spec
from ..drive.assists import ASSIST_SPECS
from ..drive.person import DEFAULT_CURVE, DEFAULT_DEAD_ZONE

NONE = ['']
VIEW_SPECS: Dict[str, Spec] = {
    'mode': Spec('watch', 'watch: show the simulation; drive: show it and drive a car from the '
                 'page (keyboard or gamepad), its commands published into the simulator as a '
                 "controller's", choices=('watch', 'drive')),
    'host': Spec('127.0.0.1', 'address to listen on: 127.0.0.1 (this machine only), or an '
                 "interface's address or 0.0.0.0 to share the view on a network (with an "
                 'access token)'),
    'port': Spec(8765, 'TCP port of the page and its WebSocket, 0: any free one', 0, 65535),
    'token': Spec('', 'access token a page needs to drive (a page without it may only watch, '
                  "if watch_without_token); '': none on localhost, a random one drawn and "
                  'printed when shared on a network'),
    'watch_without_token': Spec(False, 'a page without the access token may watch (never '
                                'drive); only matters when the view is shared on a network'),
    'cars': Spec(NONE, 'the cars to show, by name (their namespaces: NAME/ground_truth/odom '
                 "...); [''] (the default): every car found, by its ground_truth/odom topic"),
    'drive_car': Spec('', "mode drive: the car the person drives, by name; '': the simulator's "
                      'only or first car'),
    'vehicle': Spec('', "mode drive: the driven car's vehicle (preset or file), for its "
                    "steering lock, gears and torques; '': the simulator's own vehicle "
                    'parameter'),
    'ghost_file': Spec('', 'mode drive: a best_lap.csv of an earlier drive (columns t, x, y, '
                       "yaw), raced as a ghost until a faster lap replaces it; '': none"),
    'simulator': Spec('rally_sim', 'name of the simulator node (its vehicle parameter in '
                      'drive mode, its sync_paused parameter for the pause key)'),
    'rate_hz': Spec(60.0, 'states sent to the pages per second (at most; the simulator '
                    'publishes at its own rate)', 1.0, 240.0),
    'scan_rate_hz': Spec(20.0, 'lidar scans sent to the pages per second, 0: none', 0.0, 100.0),
    'dead_zone': Spec(DEFAULT_DEAD_ZONE, "gamepad: the steering stick's dead zone (share of "
                      'its travel)', 0.0, 0.5, live=True),
    'curve': Spec(DEFAULT_CURVE, "gamepad: the steering curve (the stick's travel past the "
                  'dead zone raised to this power: 1 linear, more: finer near the centre)',
                  0.5, 3.0, live=True),
    **ASSIST_SPECS,
}
"""Every parameter of the view server."""
