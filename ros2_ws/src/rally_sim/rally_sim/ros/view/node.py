"""
The view server node: a running simulation, shown live in a browser, and driven from it.

It reads the simulator's own topics (each car's ground truth, wheel_slip,
drivetrain_state, driver_cmd and footprint; /tf until every car's wheels
are known, and /tf_static for the lidar's mount; scan; the stage's surface,
walls and path), hands them to the view's feed (view/feed.py), which tells the
pages served by view/server.py what to draw. `./rally watch` and the launch
files' view:=true start it beside any simulation; `./rally drive` starts it
in mode drive, where the page's keyboard and gamepad drive a car through
its command topics (driving.py). It changes nothing in the simulation
unless it drives; a page's message is checked before anything acts on it.
"""

import secrets
import time
from typing import Dict, Optional

from builtin_interfaces.msg import Time
from geometry_msgs.msg import PolygonStamped
from nav_msgs.msg import OccupancyGrid, Odometry, Path
import numpy as np
from rally_sim_msgs.msg import DriverCommand, DrivetrainState, WheelSlip
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import LaserScan
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray

from .driving import Driving
from ..parameters import declare, ParameterError
from ..serialized import InPlace, odometry_twist
from ...drive import Assists, CarFacts
from ...drive.assists import ASSIST_SPECS
from ...drive.person import DrivenState
from ...physics import load_vehicle
from ...resources import vehicle_path
from ...view.feed import Feed
from ...view.frames import CarTrack
from ...view.server import LOCAL_HOSTS, ViewServer
from ...view.settings import VIEW_SPECS

SPECS = VIEW_SPECS
"""The node's parameters (its --help lists them)."""
GROUND_TRUTH = 'ground_truth/odom'
DISCOVERY_S = 1.0
"""How often the graph is searched for cars and scans [wall s]."""
STAGE_SETTLE_S = 0.3
"""The ground is built this long after the last of the stage's messages [wall s]."""
LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
GHOST_POINTS = 2000


READ_IN_PLACE = {
    Odometry: ([f'{vector}.{axis}' for vector, axes in (
        ('pose.pose.position', 'xyz'), ('pose.pose.orientation', 'xyzw'),
        ('twist.twist.linear', 'xyz'), ('twist.twist.angular', 'xyz')) for axis in axes], []),
    WheelSlip: ([f'{array}.{i}' for array in (
        'steer_angle', 'slip_ratio', 'slip_angle', 'normal_load', 'suspension_travel')
        for i in range(4)], []),
    DrivetrainState: (['engine_rpm', 'throttle'], ['gear'])}
"""The float64 and integer fields of each car's messages the view reads in place."""


def in_place(kind: type) -> InPlace:
    """Return a reader of one car's messages of `kind` (each car's own: its layout)."""
    doubles, integers = READ_IN_PLACE[kind]
    return InPlace(kind, doubles, integers=integers)


class Polled:
    """
    Topics taken when the pages need them, not as they come: each car's wheel_slip, drivetrain.

    Their subscriptions are on a node of their own that no executor spins,
    each keeping its newest message (depth 1); before each state sent to the
    pages the newest is taken. The simulator publishes them at its rate, the
    pages see them at theirs: a callback for each would cost the view more
    than everything it draws.
    """

    def __init__(self, owner: Node):
        """Make the node of the polled subscriptions beside `owner`."""
        self.node = Node(f'{owner.get_name()}_polled', namespace=owner.get_namespace(),
                         context=owner.context)
        self.cars: Dict[str, list] = {}

    def subscribe(self, car: str, kind: type, topic: str, take) -> object:
        """Subscribe to `topic` for `car`; take(car, message) is given its newest."""
        subscription = self.node.create_subscription(kind, topic, lambda data: None, 1,
                                                     raw=True)
        reader = in_place(kind)
        self.cars.setdefault(car, []).append((subscription, lambda data: take(
            car, reader.message(data))))
        return subscription

    def take(self, car: Optional[str] = None) -> None:
        """Take the newest message of each polled topic (of `car`, or every car's)."""
        for name, subscriptions in self.cars.items():
            if car is not None and name != car:
                continue
            for subscription, take in subscriptions:
                newest = None
                while True:
                    taken = subscription.handle.take_message(subscription.msg_type, True)
                    if taken is None:
                        break
                    newest = taken[0]
                if newest is not None:
                    take(newest)


class ViewNode(Node):
    """Serves the live view of a simulation; in drive mode, a person drives a car from it."""

    def __init__(self, **kwargs):
        """Declare parameters, subscribe, and start serving the page."""
        super().__init__('view_server', **kwargs)
        s = self.settings = declare(self, SPECS)
        drive = s['mode'] == 'drive'
        self.server = self._server()
        self.feed = Feed(self.server, s['rate_hz'], s['scan_rate_hz'],
                         driven=s['drive_car'] if drive else None)
        self.feed.extra_for = self._driven_extra
        self.feed.on_frame = self._new_best
        self.polled = Polled(self)
        self.feed.before_frame = self.polled.take
        self.topics: Dict[str, list] = {}
        self.driving: Optional[Driving] = None
        self.page_stats: dict = {}
        self.ghost_s: Optional[float] = None
        self.tf = None
        self._subscribe_stage()
        self.simulator = AsyncParameterClient(self, s['simulator'])
        self.reset_client = self.create_client(Trigger, 'reset')
        self.create_timer(DISCOVERY_S, self._discover)
        self._discover()
        try:
            self.url = self.server.start()
        except OSError as error:
            raise ParameterError(f"parameter 'port' = {s['port']}: cannot listen on "
                                 f"{s['host']}:{s['port']} ({error.strerror or error})") from None
        self.get_logger().info(f"view ({s['mode']}) at {self.url}")

    def _server(self) -> ViewServer:
        s = self.settings
        token = s['token'] or (None if s['host'] in LOCAL_HOSTS else secrets.token_urlsafe(12))
        return ViewServer(drive=s['mode'] == 'drive', host=s['host'], port=s['port'],
                          token=token, watch_without_token=s['watch_without_token'],
                          on_message=self._on_page, title=f"rally_sim {s['mode']}")

    def destroy_node(self) -> None:
        """Stop serving, then destroy the node."""
        self.server.stop()
        self.polled.node.destroy_node()
        super().destroy_node()

    # ---- subscriptions -------------------------------------------------------

    def _subscribe_stage(self) -> None:
        feed = self.feed

        def staged(take):
            def callback(msg) -> None:
                take(msg)
                self._settler.reset()           # one build, a moment after the last of them
            return callback
        self._settler = self.create_timer(STAGE_SETTLE_S, self._settle)
        self._settler.cancel()
        self.create_subscription(MarkerArray, 'stage/surface', staged(feed.surface), LATCHED)
        self.create_subscription(OccupancyGrid, 'map', staged(feed.grid), LATCHED)
        self.create_subscription(Path, 'stage/path', staged(feed.reference), LATCHED)
        self.create_subscription(TFMessage, '/tf_static', feed.transforms, QoSProfile(
            depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL))

    def _watch_tf(self, wanted: bool) -> None:
        """
        Read /tf until every car's wheels are known, and again when a car comes.

        Its seven transforms a car at 100 Hz would be most of what the view takes.
        """
        if wanted and self.tf is None:
            self.tf = self.create_subscription(TFMessage, '/tf', self._on_tf, 100)
        elif not wanted and self.tf is not None:
            self.destroy_subscription(self.tf)
            self.tf = None

    def _on_tf(self, msg: TFMessage) -> None:
        self.feed.transforms(msg)
        if self.feed.wheels_known():
            self._watch_tf(False)

    def _settle(self) -> None:
        """Build the scene once the stage's messages have come (a one-shot timer)."""
        self._settler.cancel()
        self.feed.settle()

    def _discover(self) -> None:
        """Subscribe to each new car's topics and each new scan."""
        namespace = self.get_namespace().rstrip('/') + '/'
        wanted = [c for c in self.settings['cars'] if c] or None
        for topic, kinds in self.get_topic_names_and_types():
            if not topic.startswith(namespace) or topic in self.topics:
                continue
            relative = topic[len(namespace):]
            if relative.endswith(GROUND_TRUTH) and 'nav_msgs/msg/Odometry' in kinds:
                name = relative[:-len(GROUND_TRUTH)].rstrip('/')
                if wanted is None or name in wanted:
                    self.topics[topic] = self._subscribe_car(relative[:-len(GROUND_TRUTH)],
                                                             name)
            elif 'sensor_msgs/msg/LaserScan' in kinds and self.settings['scan_rate_hz'] > 0:
                self.topics[topic] = [self.create_subscription(
                    LaserScan, relative, lambda msg: self.feed.scan(msg, time.monotonic()), 10)]

    def _subscribe_car(self, namespace: str, name: str) -> list:
        feed = self.feed
        feed.car(name)
        self._ask_vehicle(name)
        self._watch_tf(True)
        pedal = [] if name == feed.driven else [        # the driven car's pedals are ours
            self.create_subscription(DriverCommand, namespace + 'driver_cmd',
                                     lambda msg: feed.pedal(name, msg), 10)]
        odometry = in_place(Odometry)
        return pedal + [
            self.create_subscription(Odometry, namespace + GROUND_TRUTH, lambda data: (
                self._on_odometry(name, data, odometry)), 10, raw=True),
            self.polled.subscribe(name, WheelSlip, namespace + 'wheel_slip', feed.slip),
            self.polled.subscribe(name, DrivetrainState, namespace + 'drivetrain_state',
                                  feed.drivetrain),
            self.create_subscription(PolygonStamped, namespace + 'footprint',
                                     lambda msg: feed.footprint(name, msg), LATCHED)]

    def _on_odometry(self, name: str, data: bytes, odometry: InPlace) -> None:
        """Answer the driven car's state (its twist read in place); hand it to the feed."""
        if self.driving is not None and name == self.feed.driven:
            car, assists = self.feed.cars[name], self.driving.person.assists
            wanted = assists.abs or assists.traction_control        # read only when needed
            if wanted:
                self.polled.take(name)
            slip = car.slip.slip_ratio if car.slip is not None and wanted else (0.0,) * 4
            read = odometry_twist(data)
            if read is None:                    # not plain CDR: the whole message, then
                m = deserialize_message(data, Odometry)
                v, stamp = m.twist.twist, m.header.stamp
                read = stamp.sec, stamp.nanosec, v.linear.x, v.linear.y, v.angular.z
            sec, nanosec, vx, vy, yaw_rate = read
            self.driving.on_state(sec + nanosec * 1e-9, Time(sec=sec, nanosec=nanosec),
                                  DrivenState(vx, vy, yaw_rate, slip))
        self.feed.odometry(name, odometry.message(data), time.monotonic())

    # ---- the cars' vehicles; drive mode ----------------------------------------

    def _ask_vehicle(self, name: str) -> None:
        """Learn a car's vehicle (its lock; the driven car's facts) from the simulator."""
        given = self.settings['vehicle'] if name == self.feed.driven else ''
        if given:
            self._take_vehicle(name, given)
            return
        keys = [f'{name}.vehicle', 'vehicle'] if name else ['vehicle']

        def answered(future) -> None:
            values = [v.string_value for v in (future.result().values or [])]
            chosen = next((v for v in values if v), '')
            if chosen:
                self._take_vehicle(name, chosen)
        self.simulator.get_parameters(keys, callback=answered)

    def _take_vehicle(self, name: str, vehicle: str) -> None:
        try:
            config = load_vehicle(vehicle_path(vehicle))
        except ValueError as error:
            self.get_logger().warning(f"car {name or '(the only one)'}: vehicle {vehicle!r} "
                                      f'cannot be read here ({error})')
            return
        self.feed.locks_rad[name] = config['steering.max_angle_rad']
        if name == self.feed.driven and self.driving is None:
            self._drive(name, config)

    def _drive(self, name: str, config) -> None:
        s = self.settings
        assists = Assists().changed({k: s[k] for k in ASSIST_SPECS})
        namespace = f'{name}/' if name else ''
        self.driving = Driving(self, namespace, CarFacts.of(config), assists, s['dead_zone'],
                               s['curve'], lambda info: self.server.latch('drive', info))
        self.driving.tell()
        if s['ghost_file']:
            self._ghost_from(s['ghost_file'], name)
        self.get_logger().info(f"driving {config['name']} ({self.driving.person.car.mode} "
                               'commands) from the page')

    def _driven_extra(self, name: str) -> dict:
        """Return the driven car's gear lever and pedals as the person works them."""
        d = self.driving
        if d is None or name != self.feed.driven:
            return {}
        p = d.person
        info = {'gear_name': p.gear_name(), 'steer_share': p.steer_rad / max(p.car.lock_rad,
                                                                             1e-9),
                'throttle': p.inputs.throttle, 'brake': p.inputs.brake}
        if d.last is not None and d.last.pedals is not None:
            info.update(throttle=d.last.pedals.throttle, brake=d.last.pedals.brake)
        return info

    def _ghost_from(self, path: str, name: str) -> None:
        """Race the best lap of an earlier drive (a best_lap.csv) as a ghost."""
        try:
            line = np.loadtxt(path, delimiter=',', skiprows=1, ndmin=2)
            if line.shape[1] != 4 or len(line) < 2 or not np.all(np.isfinite(line)):
                raise ValueError('a best_lap.csv has columns t, x, y, yaw and two rows or more')
        except (OSError, ValueError) as error:
            self.get_logger().warning(f"parameter 'ghost_file' = {path!r}: {error}; no ghost")
            return
        self.ghost_s = float(line[-1, 0])
        self.server.latch('ghost', {'car': name, 'line': np.round(line, 3).tolist()})

    def _new_best(self, name: str, track: CarTrack) -> None:
        """Latch the driven car's best lap as the ghost when it beats the one raced so far."""
        best = track.laps.best_s if track.laps is not None else None
        if name != self.feed.driven or best is None or (
                self.ghost_s is not None and best >= self.ghost_s):
            return
        self.ghost_s = best
        line = track.laps.best_line[::max(1, len(track.laps.best_line) // GHOST_POINTS)]
        self.server.latch('ghost', {'car': name, 'line': np.round(line, 3).tolist()})

    # ---- what the page says ------------------------------------------------

    def _on_page(self, client, message) -> None:
        """Act on a checked message from a page (server thread); ValueError: refused."""
        kind, fields = message
        if kind == 'stats':
            self.page_stats = dict(fields, client=client.number)
            return
        if kind == 'replay':
            raise ValueError('replay: this view shows a live simulation, not a bag')
        driving = self.driving
        if driving is None:
            raise ValueError(f'{kind}: no car to drive yet (its vehicle is not known)')
        if kind == 'input':
            driving.on_input(fields['inputs'])
        elif kind == 'assists':
            driving.set_assists(fields['values'])
        elif kind == 'gamepad':
            driving.set_gamepad(fields['dead_zone'], fields['curve'])
        elif fields['name'] in ('gear_up', 'gear_down'):
            driving.shift(fields['name'] == 'gear_up')
        elif fields['name'] == 'pause':
            self.feed.paused = not self.feed.paused
            self.simulator.set_parameters([Parameter('sync_paused', value=self.feed.paused)])
        else:
            self._back_onto_path()

    def _back_onto_path(self) -> None:
        """R: the driven car onto the path's nearest point, or (no path) the simulator reset."""
        car = self.feed.cars.get(self.feed.driven)
        sample = car.sample() if car is not None else None
        if sample is None:
            return
        track = self.feed.tracks.get(car.name)
        if track is not None:
            track.reset()
        if not self.driving.back_onto(self.feed.path, sample.x, sample.y,
                                      car.odometry.header.frame_id):
            self.driving.person.reset()
            self.reset_client.call_async(Trigger.Request())
