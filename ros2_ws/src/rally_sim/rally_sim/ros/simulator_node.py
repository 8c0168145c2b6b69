"""
The rally_sim ROS 2 node: commands in, sensors, ground truth, TF and per-wheel slip out.

Physics advances in exact steps of dt = 1 / physics_rate_hz; simulated time
is steps x dt (integer nanoseconds), whatever the wall clock does. Pacing
only decides when steps are taken: in real time (scaled by real_time_factor,
catching up missed steps), as fast as possible, or on the `step` service.
Everything published is stamped with simulated time, and /clock carries it;
the sensors' measurements with the time they were measured (sensors/).

Command stamps are not used for scheduling: a command arrives at the next
physics step after it is received (in lockstep: before the next `step` call
is served), whatever its header stamp says, and takes effect as the
vehicle's actuators let it (physics/actuation.py). In synchronous mode
(sync_controllers) the listed controllers' commands are answers: each
odometry message is published, and the simulator advances only when each
listed controller has answered it with commands stamped as it is (see
synchronous.py).

The simulation itself is a ROS-free session (sim/: the car, the command
intake with its watchdog and speed controller, the sensors, the stepping
rule, reset and teleport), which the in-process engine and Gymnasium drive
too. The node adds the ROS parts, in their own modules: command_messages.py
(messages to commands), outputs.py (the truth and the measurements
published), pacing.py, synchronous.py, start.py (observers).
"""

import functools
import inspect
import math
import secrets
import threading
import time
from typing import List

from geometry_msgs.msg import PoseWithCovarianceStamped, Twist, TwistStamped
from rally_sim_msgs.msg import Collision
from rally_sim_msgs.srv import Step
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from std_srvs.srv import Trigger
from transforms3d.euler import quat2euler

from . import conversions
from .command_messages import COMMAND_TYPES, message_handlers
from .outputs import Outputs
from .parameters import declare, given, ParameterError, refuse_or_accept, source_of, SPECS
from .stage_topics import StageTopics
from .start import StartGate
from .synchronous import SynchronousMode
from .trail import Trail
from ..control.interface import Twist as TwistCommand
from ..physics import jit, load_vehicle, Vehicle
from ..resources import surface_from, vehicle_path, walls_from
from ..sensors import load_profile, SensorError
from ..sim import Front, prepare, Session, Start  # noqa: F401  prepare: ros/process.py
from ..sim.pacing import Pacing, RealTimeLoop
from ..sim.reports import non_finite
from ..sim.session import car_seed
from ..world.scene import footprint_of
from ..world.stage_view import path_file
from ..world.stages import pose_behind, read_path

TRAIL_COLOURS = ('magenta', 'cyan', 'yellow', 'white')
"""The trails of the second and later cars of a node."""
CAR_GAP_M = 1.0
"""The gap between the cars of a node at their default starts [m]."""
MAX_STEPS_PER_CALL = 1_000_000
"""The most physics steps one `step` call takes (1000 s of simulated time at 1 kHz)."""


class SimulatorNode(Node):
    """One simulated car: its session (sim/), with parameters, pacing and outputs."""

    def __init__(self, **kwargs):
        """Declare parameters, load the vehicle, create the ROS interfaces."""
        super().__init__('rally_sim', **kwargs)
        self.settings = declare(self)
        s = self.settings
        self.car_names = s['cars'] or ['']
        vehicles = [self._vehicle(name) for name in self.car_names]
        try:
            walls = walls_from(s['map'], vehicles[0].surface)
        except ValueError as error:
            raise ParameterError(f"{self._given('map')}: {error}") from None
        if s['command_mode'] == 'driver':
            for vehicle in vehicles:
                self._need_drivetrain(ParameterError, vehicle)
        self.seed = self._seed()
        self.fronts = [self] + [CarFront(self) for _ in vehicles[1:]]
        self.session = self._session(vehicles, walls)
        self.reports = self.session.reports
        self.counters = self.reports.counters
        self.pacing = Pacing(s, self.dt, self.reports)
        self._created_s = time.monotonic()
        self._observer_reports = 0
        self._lock = threading.Lock()
        self._published_at = -1
        self.side_nodes = []      # spun in a thread of their own (spinning.SideSpinner)
        for k, (front, car) in enumerate(zip(self.fronts, self.session.cars)):
            front.frames, front.outputs = self._car_outputs(k, car)
        self.stage = StageTopics(self, self.frames) if s['publish_stage'] else None
        if self.stage is not None:
            self.stage.show(self.vehicle.surface, 0)
            self.stage.show_walls(walls, 0)
        self.collisions = self.create_publisher(Collision, 'collision', 100)
        self.sync = self._synchronous_mode()
        self._make_interfaces()
        self.start_gate = self._start_gate()
        self.add_on_set_parameters_callback(self.serialized(
            lambda params: refuse_or_accept(params, self._apply_parameter)))
        self.stop_requested = lambda: False     # the process's stop flag (spinning.py sets it)
        self._held, self._holding = None, []
        self.background_error = None            # of the pacing thread: spinning.py raises it
        self._pacer = None
        if s['pacing'] == 'fast' or (s['pacing'] == 'realtime' and self.sync):
            self.create_timer(self.pacing.timer_period_s(s['publish_rate_hz']),
                              self.serialized(self._tick_sync if self.sync else self._tick),
                              clock=Clock(clock_type=ClockType.STEADY_TIME))
        self.at_step(publish=True, markers=True)
        self._log_start(self.vehicle.config)
        if s['pacing'] == 'realtime' and not self.sync:
            self._pacer = threading.Thread(target=self._pace, name='pacing', daemon=True)
            self._pacing_stop = threading.Event()
            self._pacer.start()

    def _log_start(self, config) -> None:
        s = self.settings
        sync = (f", synchronous with {', '.join(self.sync.controllers)}" if self.sync else '')
        cars = self.session.cars
        what = f"{config['name']} ({config['model']})" if len(cars) == 1 else 'cars ' + ', '.join(
            f"{car.name} ({car.vehicle.config['name']})" for car in cars)
        walls = self.session.scene.occupancy
        walls = f"from {walls.source or 'a map'}" if walls is not None else 'none'
        contact = f" (contact {s['contact']})" if walls != 'none' or len(cars) > 1 else ''
        timeout = s['command_timeout_s']
        watchdog = (f'watchdog after {timeout:g} s without one' if timeout > 0.0
                    else 'the last command held (no watchdog)')
        self.get_logger().info(
            f'{what} on {self.vehicle.surface.description}, walls {walls}{contact}; physics '
            f"{s['physics_rate_hz']:g} Hz, publishing {s['publish_rate_hz']:g} Hz, pacing "
            f"{s['pacing']}{sync}, command mode {s['command_mode']} ({watchdog}); sensors "
            f"{self.sensors.profile.name} ({', '.join(self.outputs.topics()) or 'none'}), seed "
            f"{self.seed}, TF {self.frames.odom} -> {self.frames.base}: {s['tf_source']}"
            + (' (each car alike)' if len(cars) > 1 else ''))
        if s['tf_source'] == 'measured' and self.outputs.odom is None:
            self.get_logger().warning(
                f"tf_source measured: the sensor profile '{self.sensors.profile.name}' has no "
                'odometry channel, so nothing carries odom -> base_link (use tf_source truth, '
                'or your own estimator)')
        if 'gnss' in self.sensors.channels and not self.sensors.datum_given:
            self.get_logger().warning(
                "gnss/fix: the surface has no datum (a stage file's datum: [latitude, "
                'longitude, altitude]); the odom origin is placed at latitude 0, longitude 0')
        if not jit.ENABLED:
            self.get_logger().warning(
                'numba is not available (or RALLY_SIM_NO_JIT is set): the physics runs as '
                'plain Python, the slow path (about 100x slower)')

    def _vehicle(self, car: str) -> Vehicle:
        """Return a car's vehicle on the surface (ParameterError naming a bad parameter)."""
        s = self.settings
        name = s.get(f'{car}.vehicle') or s['vehicle'] if car else s['vehicle']
        try:
            return Vehicle(load_vehicle(vehicle_path(name)), surface_from(s['surface']))
        except ValueError as error:
            key = f'{car}.vehicle' if car and s.get(f'{car}.vehicle') else 'vehicle'
            raise ParameterError(f"parameter '{key}'{source_of(key)}: {error}" if car else
                                 f'{error}') from None

    def _car_outputs(self, k: int, car):
        """Return car k's frames and outputs: under its name when the node has several."""
        s = self.settings
        prefix = self.get_namespace().strip('/')
        prefix = f'{prefix}/' if prefix else ''
        name = f'{car.name}/' if car.name else ''
        frames = conversions.Frames(prefix + name, s['odom_frame'], s['base_frame'],
                                    odom_prefix=prefix)
        colour = s['trail_colour'] if k == 0 else TRAIL_COLOURS[(k - 1) % len(TRAIL_COLOURS)]
        trail = (Trail(car.vehicle, frames, s['trail_length_s'], colour)
                 if s['trail_length_s'] > 0.0 else None)
        return frames, Outputs(self, car.vehicle, frames, s['publish_clock'] and k == 0,
                               car.sensors, s['tf_source'], trail, namespace=name)

    # ---- the session's parts, as the node's own ------------------------------

    vehicle = property(lambda self: self.session.vehicle)
    intake = property(lambda self: self.session.intake)
    sensors = property(lambda self: self.session.sensors)
    sim_steps = property(lambda self: self.session.sim_steps)
    step_ns = property(lambda self: self.session.step_ns)
    dt = property(lambda self: self.session.dt)
    publish_every = property(lambda self: self.session.publish_every)
    marker_every = property(lambda self: self.session.marker_every)

    # ---- set-up ------------------------------------------------------------

    def serialized(self, callback):
        """Return `callback` run under the node's lock: the answers come from another thread."""
        @functools.wraps(callback)
        def locked(*args):
            with self._lock:
                return callback(*args)
        # rclpy asks a timer callback's signature on every call: have it at hand.
        locked.__signature__ = inspect.signature(callback)
        return locked

    def _make_interfaces(self) -> None:
        """Subscribe to the commands (here, or in synchronous mode on the answer node)."""
        if not self.sync:
            for topic, handler in self._command_handlers().items():
                self.create_subscription(COMMAND_TYPES[topic.rsplit('/', 1)[-1]], topic,
                                         self.serialized(handler), 10)
        self.create_subscription(PoseWithCovarianceStamped, '/initialpose',
                                 self.serialized(self._on_pose), 10)
        stamped = self.settings['cmd_vel_stamped']
        for car in self.session.cars:
            self.create_subscription(
                TwistStamped if stamped else Twist, self._topic(car, 'cmd_vel'),
                self.serialized(lambda msg, car=car: self._on_cmd_vel(car, msg)), 10)
        self.create_service(Trigger, 'reset', self.serialized(self._on_reset))
        self.create_service(Step, 'step', self.serialized(self._on_step))

    @staticmethod
    def _topic(car, topic: str) -> str:
        """Return a car's topic: under its name when the node has several cars."""
        return f'{car.name}/{topic}' if car.name else topic

    def _command_handlers(self):
        """Return each car's command topics and the handlers that feed its intake."""
        return {self._topic(car, topic): handler for car in self.session.cars
                for topic, handler in message_handlers(car.intake).items()}

    def _on_cmd_vel(self, car, msg) -> None:
        """Take a speed and a yaw rate (speed mode) as they come, synchronous mode or not."""
        twist = msg.twist if isinstance(msg, TwistStamped) else msg
        car.take(TwistCommand(twist.linear.x, twist.angular.z))

    def _seed(self) -> int:
        """Return the seed in use: the parameter's, or one drawn for `random`."""
        seed = self.settings['seed']
        if seed == 'random':
            seed = secrets.randbelow(2 ** 31)
            self.get_logger().info(f'seed: random, drew {seed} (seed:={seed} repeats this run)')
        return seed

    def _session(self, vehicles, walls) -> Session:
        """Return the session of the parameters, every car in it (ParameterError if bad)."""
        s = self.settings
        names = self.car_names
        try:
            profile = load_profile(s['sensors'])
        except SensorError as error:
            raise ParameterError(f"parameter 'sensors': {error}") from None
        try:
            session = Session(vehicles[0], profile, self.seed,
                              physics_rate_hz=s['physics_rate_hz'],
                              publish_rate_hz=s['publish_rate_hz'],
                              marker_rate_hz=s['marker_rate_hz'], settings=s,
                              start=self._start(vehicles, 0),
                              logger=self.get_logger(), front=self, occupancy=walls,
                              contact=s['contact'], name=names[0])
            for k in range(1, len(names)):
                session.add_car(names[k], vehicles[k], profile,
                                car_seed(self.seed, k), settings=s,
                                start=self._start(vehicles, k),
                                front=self.fronts[k])
        except SensorError as error:
            raise ParameterError(f"parameter 'sensors': {error}") from None
        except ValueError as error:         # a start in a wall or on another car
            first = self._pose_keys(names[0])
            keys = f'{self._named(first[0])}, {self._named(first[1])}' + (
                ', ...' if len(names) > 1 else '')
            raise ParameterError(f"{keys}, {self._named('map')}: {error}") from None
        return session

    def _start(self, vehicles, k: int) -> Start:
        """
        Return car k's start: its parameters', else the stage's or beside the first car.

        None of the car's pose parameters given: on a stage with a path, the
        path's first point, heading along it, each later car of a node
        CAR_GAP_M behind the one listed before it; elsewhere, each later car
        CAR_GAP_M to the right of the one before (the first at initial_x, ...).
        """
        s, car, vehicle = self.settings, self.car_names[k], vehicles[k]
        keys = self._pose_keys(car)
        path = path_file(vehicle.surface.source) if vehicle.surface.source else None
        outlines = [footprint_of(v.config) for v in vehicles]
        if any(given(self, n) for n in keys) or (path is None and k == 0):
            return Start(*(s[n] for n in keys), *self._velocities())
        if path is None:
            first = self._start(vehicles, 0)
            right = sum(0.5 * (outlines[i - 1].width_m + outlines[i].width_m) + CAR_GAP_M
                        for i in range(1, k + 1))
            return Start(first.x + right * math.sin(first.yaw),
                         first.y - right * math.cos(first.yaw), first.yaw, *self._velocities())
        behind = sum(0.5 * (outlines[i - 1].length_m + outlines[i].length_m) + CAR_GAP_M
                     for i in range(1, k + 1))
        x, y, yaw = pose_behind(read_path(path), behind)
        self.get_logger().info(
            f"start{f' of {car}' if car else ''}: the stage's, at x = {x:.2f}, y = {y:.2f} m, "
            f'heading {yaw:.3f} rad along its path ({", ".join(keys)} move it)')
        return Start(x, y, yaw, *self._velocities())

    def _velocities(self) -> tuple:
        """Return each car's starting forward and lateral speed and yaw rate (the parameters)."""
        s = self.settings
        return s['initial_speed'], s['initial_lateral_speed'], s['initial_yaw_rate']

    def _named(self, parameter: str) -> str:
        """Return how an error names a parameter: its launch argument's name if one set it."""
        pairs = dict(pair.split('=', 1) for pair in self.settings['argument_names'].split()
                     if '=' in pair)
        if parameter in pairs:
            return f"launch argument '{pairs[parameter]}'"
        return f"parameter '{parameter}'"

    def _given(self, parameter: str) -> str:
        """Return how an error names what set a parameter: a launch argument, else its file."""
        named = self._named(parameter)
        return named if named.startswith('launch') else named + source_of(parameter)

    def _pose_keys(self, car: str) -> List[str]:
        """
        Return the parameters of a car's start pose: initial_* for the one car of a node.

        A node of one named car (f1tenth's ego_racecar) takes initial_x, ...
        as its own unless NAME.initial_x, ... are given; a node of several
        cars refuses them, naming the keys that place each car.
        """
        plain = ['initial_x', 'initial_y', 'initial_yaw']
        if not car:
            return plain
        own = [f'{car}.{n}' for n in plain]
        top = [n for n in plain if given(self, n)]
        if top and len(self.car_names) > 1:
            raise ParameterError(
                f"parameter '{top[0]}'{source_of(top[0])} places the car of a node of one car; "
                f"this node has {len(self.car_names)} ({', '.join(self.car_names)}): set "
                f"'{self.car_names[0]}.{top[0]}' and the others' instead")
        return plain if top and not any(given(self, n) for n in own) else own

    def _synchronous_mode(self):
        """Return the SynchronousMode of sync_controllers, or None when it is off."""
        names = self.settings['sync_controllers']
        if not names:
            return None
        if self.outputs.odom is None:
            raise ParameterError(
                "parameter 'sync_controllers' needs the odometry channel (controllers answer "
                f"each odometry message): the sensor profile '{self.sensors.profile.name}' "
                'has none')
        if self.settings['pacing'] == 'lockstep':
            raise ParameterError("parameter 'sync_controllers' needs pacing realtime or fast "
                                 '(lockstep steps on the step service only)')
        sync = SynchronousMode(self, names, self._command_handlers(),
                               [front.outputs.odom for front in self.fronts],
                               self.reports, self.settings)
        self.side_nodes.append(sync.answer_node)
        return sync

    def _start_gate(self) -> StartGate:
        """Return the gate holding time until the listed observers are matched."""
        observers = self.settings['sync_observers']
        if observers and self.settings['pacing'] == 'lockstep':
            raise ParameterError("parameter 'sync_observers' needs pacing realtime or fast "
                                 '(in lockstep, time runs on the step service only)')
        return StartGate(self, observers)

    # ---- parameters at run time -------------------------------------------

    def _apply_parameter(self, name: str, value, dry_run: bool) -> None:
        """Apply a live parameter; raise ValueError (before any change) if it cannot be."""
        if name == 'command_mode' and value == 'driver':
            for car in self.session.cars:
                self._need_drivetrain(ValueError, car.vehicle)
        if name == 'surface':
            surface = surface_from(value)
            walls = self.session.scene.occupancy
            if self.settings['map'] == '':          # the stage's own walls follow it
                walls = walls_from('', surface)
                if dry_run:
                    self._walls_fit(walls)
            if not dry_run:
                if walls is not self.session.scene.occupancy:
                    self.session.set_walls(walls)
                self.session.set_surface(surface)
                self.get_logger().info(f'surface: {surface.description}')
                if self.stage is not None:
                    self.stage.show(surface, self.sim_steps * self.step_ns)
                    self.stage.show_walls(walls, self.sim_steps * self.step_ns)
        elif not dry_run:
            value = float(value) if isinstance(SPECS[name].default, float) else value
            if name == 'real_time_factor':
                self.pacing.restart(self.sim_steps)
            self.settings[name] = value
            if name in ('command_mode', 'timeout_brake_torque_n_m'):
                for car in self.session.cars:
                    car.intake.push(integrate=False)
            if name == 'sync_paused' and not value and self.sync is not None:
                self.advance_period()

    def _walls_fit(self, walls) -> None:
        """Raise ValueError if the car would stand in one of `walls` (changing nothing)."""
        before = self.session.scene.occupancy
        self.session.set_walls(walls)       # ValueError, undone, if the car is in a wall
        self.session.set_walls(before)

    @staticmethod
    def _need_drivetrain(error, vehicle: Vehicle) -> None:
        """Raise `error` if `vehicle` has no drivetrain (command_mode driver needs one)."""
        if not vehicle.has_drivetrain:
            raise error(f"parameter 'command_mode' driver needs a vehicle with a drivetrain; "
                        f"'{vehicle.config['name']}' has none (drivetrain.layout none)")

    # ---- teleport and reset ------------------------------------------------

    def _on_pose(self, msg: PoseWithCovarianceStamped) -> None:
        p = msg.pose.pose
        q = p.orientation
        fields = {'pose.pose.position.x': p.position.x, 'pose.pose.position.y': p.position.y,
                  **{f'pose.pose.orientation.{k}': getattr(q, k) for k in 'wxyz'}}
        if non_finite(fields):
            self.reports.drop('/initialpose', fields)
            return
        if q.w == q.x == q.y == q.z == 0.0:
            self.reports.warn('bad_pose', '/initialpose ignored: its orientation is the zero '
                              'quaternion (w = x = y = z = 0), not a rotation')
            return
        yaw = quat2euler((q.w, q.x, q.y, q.z), 'sxyz')[2]
        try:
            self.session.teleport(p.position.x, p.position.y, yaw)
        except ValueError as error:
            self.get_logger().warning(f'/initialpose refused, the car stays where it was: '
                                      f'{error}')
            return
        self._forget_measurements()
        self.get_logger().info(f'teleported to x={p.position.x:.2f} y={p.position.y:.2f} '
                               f'yaw={yaw:.3f}, at rest')
        self.at_step(publish=True, markers=True)

    def _forget_measurements(self) -> None:
        """Drop what was measured before a jump (reset, teleport): none of it holds."""
        self._holding = []              # the outputs of the instant paced before it, too
        for front in self.fronts:
            front.outputs.measured.forget()
            if front.outputs.trail is not None:
                front.outputs.trail.clear()

    def _on_reset(self, request, response):
        self.session.reset()
        self._forget_measurements()
        self.at_step(publish=True, markers=True)
        response.success = True
        response.message = 'reset to the initial state'
        return response

    # ---- stepping ----------------------------------------------------------

    def advance(self, steps: int, until_state: bool = False) -> None:
        """Take up to `steps` physics steps (sim/stepping.py: the same for every front end)."""
        self.session.advance(steps, until_state)

    def touched(self, contact) -> None:
        """Report a contact of a car (contact stop: it has halted) on collision and the log."""
        message = Collision(car=contact.car, other=contact.other, x=contact.x, y=contact.y)
        message.header.stamp = conversions.stamp(contact.time_ns)
        message.header.frame_id = self.frames.odom
        self.collisions.publish(message)
        what = 'a wall' if contact.other == 'wall' else f"car '{contact.other}'"
        car = f"car '{contact.car}'" if contact.car else 'the car'
        then = ('bounced off' if self.settings['contact'] == 'bounce' else
                'has halted (reset or teleport it to drive on)')
        self.get_logger().warning(
            f'collision at {contact.time_ns / 1e9:.3f} s: {car} touched {what} near '
            f'x = {contact.x:.2f}, y = {contact.y:.2f} m and {then}')

    def failed(self, error: FloatingPointError) -> None:
        """Non-finite physics (the session's front end): say so, start again from the start."""
        self.get_logger().error(f'{error}; resetting to the initial state')
        self.session.restart()
        self._forget_measurements()

    def _tick(self) -> None:
        """Timer in fast pacing: a publishing period's steps."""
        if self._may_advance():
            self.advance(self.publish_every)

    def _pace(self) -> None:
        """Pace real time in a thread of its own: each output instant on its deadline."""
        loop = RealTimeLoop(self.pacing, lock=self._lock)
        idle_s = self.pacing.timer_period_s(self.settings['publish_rate_hz'])
        try:
            while not self._pacing_stop.is_set():
                loop.wake(self, idle_s)
        except Exception as error:   # noqa: B902 -- raised again in the spinning thread
            self.background_error = error

    def stop_pacing(self) -> None:
        """Stop the pacing thread (before the last outputs are flushed), if there is one."""
        if getattr(self, '_pacer', None) is not None:       # (not when __init__ failed)
            self._pacing_stop.set()
            self._pacer.join()
            self._pacer = None

    def destroy_node(self) -> None:
        """Stop pacing, then destroy the node."""
        self.stop_pacing()
        super().destroy_node()

    # ---- what RealTimeLoop paces (sim/pacing.py: Paced) ------------------------

    def may_advance(self) -> bool:
        """Return whether simulated time may run now."""
        return self._may_advance()

    def next_instant(self) -> int:
        """Return the next step with an output (the session's)."""
        return self.session.next_instant()

    def take_steps(self, steps: int) -> bool:
        """Take the steps with their outputs held for hand_out(); return whether any are."""
        self._held = []
        try:
            self.advance(steps)
        finally:
            self._holding, self._held = self._held, None
        return bool(self._holding)

    def hand_out(self) -> None:
        """Publish the outputs take_steps() held (none once a reset or teleport dropped them)."""
        holding, self._holding = self._holding, []
        for args in holding:
            self.emit_outputs(*args)

    def _on_step(self, request, response):
        if self.settings['pacing'] != 'lockstep':
            response.success = False
            pacing = self.settings['pacing']
            response.message = f'step is served in lockstep pacing only (pacing is {pacing})'
        elif request.steps > MAX_STEPS_PER_CALL:
            response.success = False
            response.message = (f'step: {request.steps} steps asked, at most '
                                f'{MAX_STEPS_PER_CALL} per call (call again for more)')
        else:
            self._ask_again()           # a subscriber that just came is served
            before = self.sim_steps
            self.advance(int(request.steps))
            response.success = self.sim_steps - before == request.steps
            response.message = '' if response.success else (
                f'interrupted after {self.sim_steps - before} steps: the simulator is stopping')
            # step(0) always reports the current state; otherwise publish unless
            # the steps just taken ended on a publishing instant already.
            if request.steps == 0 or self._published_at != self.sim_steps:
                self.at_step(publish=True)
        response.sim_time = conversions.stamp(self.sim_steps * self.step_ns)
        response.step_count = self.sim_steps
        return response

    # ---- outputs -----------------------------------------------------------

    def stamp_s(self) -> float:
        """Return simulated time [s]."""
        return self.sim_steps * self.step_ns / 1e9

    def flush(self) -> None:
        """Wait, at most shutdown_flush_s, until every subscriber has what was published."""
        self.stop_pacing()
        deadline = time.monotonic() + self.settings['shutdown_flush_s']
        for front in self.fronts:
            front.outputs.flush(max(0.0, deadline - time.monotonic()))
        self.get_logger().info(f'stopped at simulated time {self.stamp_s():.3f} s')

    def at_step(self, publish: bool, markers: bool = False) -> bool:
        """
        Measure what is due now and publish what is due: the truth, delivered measurements.

        Nothing before every listed observer can have it (time is held at 0
        until then). Returns whether odometry was published, which in
        synchronous mode is the state the controllers answer.
        """
        if not self.start_gate.open:
            return False
        return self.session.at_step(publish, markers)

    def emit(self, now_ns: int, publish: bool, markers: bool, delivered) -> bool:
        """Publish the first car's outputs of an instant (its front end); True for odometry."""
        return self.emit_outputs(self.outputs, now_ns, publish, markers, delivered)

    def emit_outputs(self, outputs: Outputs, now_ns: int, publish: bool, markers: bool,
                     delivered) -> bool:
        """Publish a car's outputs of an instant: truth, delivered measurements (or hold them)."""
        if self._held is not None:
            if publish or delivered:
                self._held.append((outputs, now_ns, publish, markers, delivered))
            return False
        odometry = None
        if publish:
            self._published_at = self.sim_steps
            odometry = outputs.publish(now_ns, markers)
        elif any(m.stamp_ns > self.outputs.clock_ns for m in delivered):
            self.outputs.clock_at(now_ns)       # no message stamped after the last /clock
        measured = outputs.publish_measurements(delivered)
        odometry = measured if measured is not None else odometry
        if odometry is not None and self.sync is not None:
            self.sync.published(odometry)
        return odometry is not None

    def _ask_again(self) -> None:
        """Have every car's next publish ask the graph who subscribes."""
        for front in self.fronts:
            front.outputs.ask_again()

    # ---- start and pause ---------------------------------------------------

    def _may_advance(self) -> bool:
        """Return whether time may run now: not paused, every listed observer matched."""
        return self._observers_matched() and not self.settings['sync_paused']

    def _observers_matched(self) -> bool:
        """
        Return whether every listed observer is matched (see start.py).

        Until then nothing is published; once they are, the state at t = 0
        is, and the run starts (in synchronous mode, once it is answered).
        """
        if self.start_gate.open:
            return True
        if self.start_gate.ready([p for f in self.fronts for p in f.outputs.publishers()]):
            self.get_logger().info(f"observers {', '.join(self.start_gate.observers)} "
                                   'matched: simulated time starts')
            self._ask_again()
            self.at_step(publish=True, markers=True)
            return True
        waited = time.monotonic() - self._created_s
        if waited >= self.settings['sync_timeout_s'] * (1 + self._observer_reports):
            self._observer_reports += 1
            self.get_logger().warning(
                'simulated time starts once every listed observer subscribes to the outputs; '
                f"waiting {waited:.0f} s so far for {', '.join(self.start_gate.missing())}")
        return False

    # ---- synchronous mode (see synchronous.py) -----------------------------

    def advance_period(self) -> None:
        """Advance to the next odometry if every listed controller answered and it is due."""
        if not self._may_advance() or not self.sync.ready() or not self.pacing.allows(
                self.sim_steps, self.sensors.state_every(self.publish_every)):
            return
        self.advance(MAX_STEPS_PER_CALL, until_state=True)

    def republish(self) -> None:
        """Publish the state waited on again (to subscribers that came since, too)."""
        self._ask_again()
        resent = [front.outputs.resend_odometry() for front in self.fronts]    # each car's
        if all(resent):
            self.sync.published(self.outputs.last_odometry_ns)
        else:
            self.at_step(publish=True)

    def _tick_sync(self) -> None:
        """Timer in synchronous mode: pacing, timeouts, and the state published again."""
        if self._observers_matched():
            self.sync.tick()


class CarFront(Front):
    """A later car of the node: its outputs, published as the node publishes the first car's."""

    def __init__(self, node: SimulatorNode):
        """Publish through `node` (its frames and outputs are set once the car exists)."""
        self.node = node
        self.frames = self.outputs = None

    def emit(self, now_ns: int, publish: bool, markers: bool, delivered) -> bool:
        """Publish the car's outputs of an instant; True for odometry."""
        return self.node.emit_outputs(self.outputs, now_ns, publish, markers, delivered)

    def failed(self, error: FloatingPointError) -> None:
        """Non-finite physics: the node restarts every car."""
        self.node.failed(error)

    def touched(self, contact) -> None:
        """Report the contact as the node reports the first car's."""
        self.node.touched(contact)
