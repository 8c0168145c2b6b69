"""
The rally_sim ROS 2 node: commands in, odometry, TF and per-wheel slip out.

Physics advances in exact steps of dt = 1 / physics_rate_hz; simulated time
is steps x dt (integer nanoseconds), whatever the wall clock does. Pacing
only decides when steps are taken: in real time (scaled by real_time_factor,
catching up missed steps), as fast as possible, or on the `step` service.
Everything published is stamped with simulated time, and /clock carries it.

Command stamps are not used for scheduling: a command takes effect at the
next physics step after it is received (in lockstep: before the next `step`
call is served), whatever its header stamp says. In synchronous mode
(sync_controllers) the listed controllers' commands are answers: the state
at t is published, and the simulator advances only when each listed
controller has answered it with commands stamped t (see sync.py).
"""

import functools
import inspect
import math
import threading
import time

from ackermann_msgs.msg import AckermannDriveStamped
from geometry_msgs.msg import PoseWithCovarianceStamped
from nav_msgs.msg import Odometry
import numpy as np
from rally_sim_msgs.msg import DriverCommand as DriverCommandMsg, DrivetrainState, WheelSlip, \
    WheelTorqueCommand
from rally_sim_msgs.srv import Step
from rclpy.clock import Clock, ClockType
from rclpy.duration import Duration
from rclpy.event_handler import PublisherEventCallbacks
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import Imu, JointState
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from transforms3d.euler import quat2euler
from visualization_msgs.msg import MarkerArray

from . import conversions
from .parameters import declare, ParameterError, refuse_or_accept, SPECS
from .start import StartGate
from .sync import APPLY, full_name, STALE, SyncGate, WRONG
from ..control.speed import SpeedController
from ..physics import Command, CommandError, DriverCommand, jit, load_vehicle, Vehicle
from ..physics.drivetrain import AUTOMATIC
from ..physics.model import VX
from ..resources import surface_from, vehicle_path

CONTROL_PERIOD_S = 0.01
"""Commands, the watchdog and the speed controller are applied per this much sim time."""
WARN_PERIOD_S = 2.0
REPUBLISH_S = 1.0
"""In synchronous mode, the state waited on is published again after this many wall
seconds without all answers (a controller that started late may have missed it)..."""
REPUBLISH_START_S = 0.1
"""...and this often while a listed controller has never answered: its first answer can be
lost while discovery is still matching its publisher with the simulator."""
COMMAND_TOPICS = ('ackermann_cmd', 'wheel_torque_cmd', 'driver_cmd')
OUTPUT_DEPTH = 1000
"""History of each output publisher: a subscriber that falls this many messages behind (a
busy recorder, a burst of step()) still gets every one, retransmitted (10 s at 100 Hz)."""
MAX_STEPS_PER_CALL = 1_000_000
"""The most physics steps one `step` call takes (1000 s of simulated time at 1 kHz)."""
SUBSCRIBERS_S = 0.1
"""Outputs nobody subscribes to are not built; the graph is asked this often [wall s]."""


def non_finite(fields: dict) -> str:
    """Return the fields (name: number or sequence) that are not finite, as 'name = value'."""
    found = []
    for name, value in fields.items():
        if isinstance(value, (int, float)):
            if not math.isfinite(value):
                found.append(f'{name} = {float(value)!r}')
        else:
            found += [f'{name}[{i}] = {float(v)!r}' for i, v in enumerate(value)
                      if not math.isfinite(v)]
    return ', '.join(found)


def prepare() -> None:
    """
    Load (or compile) the physics kernels before ROS starts.

    Called by the entry point while a signal still needs no clean-up; the
    first tick then pays nothing for it (see entry.run_node_process).
    """
    car = Vehicle(load_vehicle(vehicle_path('volvo_v40')))
    car.advance(1, CONTROL_PERIOD_S)
    car.run([0.0], [0.0], [[0.0] * 4], [[0.0] * 4], [0.0], [CONTROL_PERIOD_S])  # replay's
    car = Vehicle(load_vehicle(vehicle_path('corvette_c5')))    # a drivetrain's helpers
    car.set_command(DriverCommand(throttle=0.5))
    car.advance(1, CONTROL_PERIOD_S)
    car.full_drive_torque_n_m()


class SimulatorNode(Node):
    """One simulated car, its inputs and outputs."""

    def __init__(self, **kwargs):
        """Declare parameters, load the vehicle, create the ROS interfaces."""
        super().__init__('rally_sim', **kwargs)
        self.settings = declare(self)
        s = self.settings
        try:
            config = load_vehicle(vehicle_path(s['vehicle']))
            self.vehicle = Vehicle(config, surface_from(s['surface']))
        except ValueError as error:
            raise ParameterError(f'{error}') from None
        if s['command_mode'] == 'driver':
            self._need_drivetrain(ParameterError)
        self.step_ns = round(1e9 / s['physics_rate_hz'])
        self.dt = self.step_ns / 1e9
        self.sim_steps = 0
        self.publish_every = max(1, round(1.0 / (s['publish_rate_hz'] * self.dt)))
        self.marker_every = (max(1, round(1.0 / (s['marker_rate_hz'] * self.dt)))
                             if s['marker_rate_hz'] > 0 else 0)
        self.control_steps = max(1, round(CONTROL_PERIOD_S / self.dt))
        prefix = self.get_namespace().strip('/')
        self.frames = conversions.Frames(f'{prefix}/' if prefix else '', s['odom_frame'],
                                         s['base_frame'])
        self.messages = conversions.OutputMessages(self.vehicle, self.frames)
        self.gate = self._sync_gate()
        self._created_s = time.monotonic()
        self._waiting_reports = {'observers': 0, 'controllers': 0}   # at the start
        self._lock = threading.Lock()
        self.side_nodes = []      # spun in a thread of their own (spinning.SideSpinner)
        self.speed = SpeedController(
            config['mass_kg'], config['wheel_radius_m'], self.vehicle.drive_limit,
            self.vehicle.brake_limit)
        self.counters = {'non_finite': 0, 'clamped': 0, 'overrun_steps': 0, 'wrong_stamp': 0,
                         'sync_timeouts': 0, 'refused': 0}
        self._published_at = -1
        self._republished = 0
        self._odom_subscribers = 0
        self._unidentified = {}
        self._subscribers_at = -math.inf
        self._last_warn = {}
        self._reset_commands()
        self._place_initial()
        self._make_interfaces()
        self.start_gate = self._start_gate()
        self.add_on_set_parameters_callback(self.serialized(
            lambda params: refuse_or_accept(params, self._apply_parameter)))
        self._wall_start = None     # real time counts from the first tick (see _due_steps)
        self.stop_requested = lambda: False     # the process's stop flag (spinning.py sets it)
        self._steps_at_start = 0
        if s['pacing'] != 'lockstep':
            period = (1.0 / s['publish_rate_hz']) / (
                s['real_time_factor'] if s['pacing'] == 'realtime' else 1.0)
            self.create_timer(min(period, 0.01) if s['pacing'] == 'fast' else period,
                              self.serialized(self._tick_sync if self.gate else self._tick),
                              clock=Clock(clock_type=ClockType.STEADY_TIME))
        self._publish_outputs(markers=True)
        sync = (f", synchronous with {', '.join(self.gate.controllers)}" if self.gate else '')
        self.get_logger().info(
            f"{config['name']} ({config['model']}) on {self.vehicle.surface.description}; physics "
            f"{s['physics_rate_hz']:g} Hz, publishing {s['publish_rate_hz']:g} Hz, pacing "
            f"{s['pacing']}{sync}, command mode {s['command_mode']}")
        if not jit.ENABLED:
            self.get_logger().warning(
                'numba is not available (or RALLY_SIM_NO_JIT is set): the physics runs as '
                'plain Python, the slow path (about 100x slower)')

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
        # No QoS event handlers on the publishers (subscribers report incompatible QoS
        # themselves): each handler is one more entity in every executor wait.
        quiet = PublisherEventCallbacks(use_default_callbacks=False)

        def output(kind, topic, qos=OUTPUT_DEPTH):
            return self.create_publisher(kind, topic, qos, event_callbacks=quiet)
        self.pub_odom = output(Odometry, 'odom')
        self.pub_tf = output(TFMessage, '/tf')
        self.pub_tf_static = output(TFMessage, '/tf_static', QoSProfile(
            depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self.pub_slip = output(WheelSlip, 'wheel_slip')
        self.pub_joints = output(JointState, 'joint_states')
        self.pub_imu = output(Imu, 'imu')
        self.pub_markers = output(MarkerArray, 'markers')
        self.pub_clock = output(ClockMsg, '/clock') if self.settings['publish_clock'] else None
        self.pub_drivetrain = (output(DrivetrainState, 'drivetrain_state')
                               if self.vehicle.has_drivetrain else None)
        if self.gate:
            self._make_answer_node()
        else:
            self.create_subscription(AckermannDriveStamped, 'ackermann_cmd',
                                     self.serialized(self._on_ackermann), 10)
            self.create_subscription(WheelTorqueCommand, 'wheel_torque_cmd',
                                     self.serialized(self._on_torque), 10)
            self.create_subscription(DriverCommandMsg, 'driver_cmd',
                                     self.serialized(self._on_driver), 10)
        self.create_subscription(PoseWithCovarianceStamped, '/initialpose',
                                 self.serialized(self._on_pose), 10)
        self.create_service(Trigger, 'reset', self.serialized(self._on_reset))
        self.create_service(Step, 'step', self.serialized(self._on_step))
        self.pub_tf_static.publish(conversions.static_transforms(
            self.vehicle, self._stamp(), self.frames.base, self.frames.imu))
        self.outputs = [  # (publisher, message maker, only with markers)
            (self.pub_odom, self.messages.odometry, False),
            (self.pub_tf, self.messages.transforms, False),
            (self.pub_slip, self.messages.wheel_slip, False),
            (self.pub_joints, self.messages.joint_states, False),
            (self.pub_imu, self.messages.imu, False),
            (self.pub_markers, self.messages.markers, True)]
        if self.pub_drivetrain is not None:
            self.outputs.append((self.pub_drivetrain, self.messages.drivetrain_state, False))

    def _make_answer_node(self) -> None:
        """
        Subscribe to the answers of synchronous mode on a node of their own.

        Answers are told apart by their publisher, which only rclpy's
        single-threaded executor gives (message info); it is slow in a node
        with many entities, so the two subscriptions get a node with nothing
        else (no parameters, services or rosout), spun in its own thread, and
        the simulator node keeps the events executor. The topics are resolved
        by this node, so its namespace and remappings apply.
        """
        node = Node(f'{self.get_name()}_answers', namespace=self.get_namespace(),
                    context=self.context, use_global_arguments=False, enable_rosout=False,
                    start_parameter_services=False, parameter_overrides=[
                        Parameter('start_type_description_service', value=False)])
        for topic, kind, apply in (('ackermann_cmd', AckermannDriveStamped, self._on_ackermann),
                                   ('wheel_torque_cmd', WheelTorqueCommand, self._on_torque),
                                   ('driver_cmd', DriverCommandMsg, self._on_driver)):
            node.create_subscription(
                kind, self.resolve_topic_name(topic),
                self.serialized(lambda m, info, apply=apply: self._on_answer(m, info, apply)), 100)
        self.side_nodes.append(node)

    def _sync_gate(self):
        """Return the SyncGate of synchronous mode, or None when it is off."""
        names = self.settings['sync_controllers']
        if not names:
            return None
        if self.settings['pacing'] == 'lockstep':
            raise ParameterError("parameter 'sync_controllers' needs pacing realtime or fast "
                                 '(lockstep steps on the step service only)')
        return SyncGate(full_name(n, self.get_namespace()) for n in names)

    def _start_gate(self) -> StartGate:
        """Return the gate holding time until the listed observers are matched."""
        observers = self.settings['sync_observers']
        if observers and self.settings['pacing'] == 'lockstep':
            raise ParameterError("parameter 'sync_observers' needs pacing realtime or fast "
                                 '(in lockstep, time runs on the step service only)')
        return StartGate(self, observers)

    def _place_initial(self) -> None:
        s = self.settings
        self.vehicle.reset(x=s['initial_x'], y=s['initial_y'], yaw=s['initial_yaw'],
                           vx=s['initial_speed'])
        self.speed.reset()
        self._push_command(integrate=False)

    def _reset_commands(self) -> None:
        self.steer_rad = 0.0
        self.steer_rate = 0.0
        self.target_speed = 0.0
        self.target_acceleration = 0.0
        self.drive = np.zeros(4)
        self.brake = np.zeros(4)
        self.handbrake = 0.0
        self.throttle = 0.0
        self.pedal = 0.0
        self.gear = AUTOMATIC
        self.last_command_steps = self.sim_steps
        self.timed_out = False

    # ---- parameters at run time -------------------------------------------

    def _apply_parameter(self, name: str, value, dry_run: bool) -> None:
        """Apply a live parameter; raise ValueError (before any change) if it cannot be."""
        if name == 'command_mode' and value == 'driver':
            self._need_drivetrain(ValueError)
        if name == 'surface':
            surface = surface_from(value)
            if not dry_run:
                self.vehicle.surface = surface
                self.get_logger().info(f'surface: {surface.description}')
        elif not dry_run:
            value = float(value) if isinstance(SPECS[name].default, float) else value
            if name == 'real_time_factor':
                self._pace_from(self.sim_steps)
            self.settings[name] = value
            if name in ('command_mode', 'timeout_brake_torque_n_m'):
                self._push_command(integrate=False)
            if name == 'sync_paused' and not value and self.gate is not None:
                self._sync_advance()

    # ---- inputs ------------------------------------------------------------

    def _on_ackermann(self, msg: AckermannDriveStamped) -> None:
        d = msg.drive
        fields = {f'drive.{name}': getattr(d, name) for name in (
            'steering_angle', 'steering_angle_velocity', 'speed', 'acceleration', 'jerk')}
        if non_finite(fields):
            self._drop('ackermann_cmd', fields)
            return
        self.steer_rad, self.steer_rate = float(d.steering_angle), float(d.steering_angle_velocity)
        self.target_speed, self.target_acceleration = float(d.speed), abs(float(d.acceleration))
        self._command_received()

    def _usable(self, topic: str, fields: dict, mode: str) -> bool:
        """Return whether a command is finite (else dropped) and for the mode (else ignored)."""
        if non_finite(fields):
            self._drop(topic, fields)
            return False
        if self.settings['command_mode'] != mode:
            self._warn('ignored', f'{topic} ignored: command_mode is '
                       f"{self.settings['command_mode']}")
            return False
        return True

    def _on_torque(self, msg: WheelTorqueCommand) -> None:
        fields = {'drive_torque': msg.drive_torque, 'brake_torque': msg.brake_torque,
                  'handbrake': msg.handbrake}
        if not self._usable('wheel_torque_cmd', fields, 'torque'):
            return
        self.drive = np.array(msg.drive_torque, dtype=float)
        self.brake = np.array(msg.brake_torque, dtype=float)
        self.handbrake = float(msg.handbrake)
        self._command_received()

    def _on_driver(self, msg: DriverCommandMsg) -> None:
        fields = {'throttle': msg.throttle, 'brake': msg.brake, 'handbrake': msg.handbrake}
        if not self._usable('driver_cmd', fields, 'driver'):
            return
        try:
            self.vehicle.check_gear(msg.gear)
        except CommandError as error:
            self.counters['refused'] += 1
            self._warn('refused', f'driver_cmd refused ({self.counters["refused"]} so far): '
                       f'{error}')
            return
        self.throttle, self.pedal = float(msg.throttle), float(msg.brake)
        self.handbrake, self.gear = float(msg.handbrake), float(msg.gear)
        self._command_received()

    def _need_drivetrain(self, error) -> None:
        """Raise `error` if the vehicle has no drivetrain (command_mode driver needs one)."""
        if not self.vehicle.has_drivetrain:
            raise error(f"parameter 'command_mode' driver needs a vehicle with a drivetrain; "
                        f"'{self.vehicle.config['name']}' has none (drivetrain.layout none)")

    def _on_pose(self, msg: PoseWithCovarianceStamped) -> None:
        p = msg.pose.pose
        q = p.orientation
        fields = {'pose.pose.position.x': p.position.x, 'pose.pose.position.y': p.position.y,
                  **{f'pose.pose.orientation.{k}': getattr(q, k) for k in 'wxyz'}}
        if non_finite(fields):
            self._drop('/initialpose', fields)
            return
        if q.w == q.x == q.y == q.z == 0.0:
            self._warn('bad_pose', '/initialpose ignored: its orientation is the zero '
                       'quaternion (w = x = y = z = 0), not a rotation')
            return
        yaw = quat2euler((q.w, q.x, q.y, q.z), 'sxyz')[2]
        self.vehicle.reset(x=p.position.x, y=p.position.y, yaw=yaw)
        self.speed.reset()
        self._push_command(integrate=False)
        self.get_logger().info(f'teleported to x={p.position.x:.2f} y={p.position.y:.2f} '
                               f'yaw={yaw:.3f}, at rest')
        self._publish_outputs(markers=True)

    def _command_received(self) -> None:
        self.last_command_steps = self.sim_steps
        if self.timed_out:
            self.timed_out = False
            self.get_logger().info('commands resumed')
        self._push_command(integrate=False)

    def _on_answer(self, msg, info, apply) -> None:
        """Apply a command in synchronous mode, unless it answers an earlier or no state."""
        gid = bytes(info['publisher_gid']['data'])
        if not self.gate.knows(gid):
            self._refresh_graph()
        if not self.gate.knows(gid):
            # Discovery has matched the publisher but not yet told whose it is:
            # apply it now (as any command) and count it once the graph knows.
            self._unidentified[gid] = (msg, apply)
        self._take_answer(gid, msg, apply)

    def _take_answer(self, gid: bytes, msg, apply) -> None:
        stamp_ns = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        verdict, name = self.gate.answer(gid, stamp_ns)
        if verdict == WRONG:
            self.counters['wrong_stamp'] += 1
            self._warn('wrong_stamp', f'synchronous mode: {name} answered with stamp '
                       f'{stamp_ns / 1e9:.3f} s, not the state time {self._stamp_s():.3f} s; '
                       f'command ignored ({self.counters["wrong_stamp"]} so far). Stamp '
                       'each command with the header stamp of the odometry it answers')
            return
        if verdict != STALE:
            apply(msg)
        if verdict == APPLY and not self.gate.missing():
            self._sync_advance()

    def _identify_pending(self) -> None:
        """Count the answers that came before the graph named their publisher."""
        self._refresh_graph()
        for gid in [g for g in self._unidentified if self.gate.knows(g)]:
            msg, apply = self._unidentified.pop(gid)
            self._take_answer(gid, msg, apply)

    def _refresh_graph(self) -> None:
        """Learn which node owns each publisher on the command topics."""
        publishers = []
        for topic in COMMAND_TOPICS:
            for info in self.get_publishers_info_by_topic(self.resolve_topic_name(topic)):
                if info.node_name and not info.node_name.startswith('_'):  # names known
                    name = full_name(info.node_name, info.node_namespace)
                    publishers.append((name, bytes(info.endpoint_gid)))
        self.gate.update_graph(publishers)

    def _drop(self, topic: str, fields: dict) -> None:
        self.counters['non_finite'] += 1
        self._warn('non_finite', f'dropped a message on {topic} with a non-finite value '
                   f'({self.counters["non_finite"]} dropped so far): {non_finite(fields)}')

    def _warn(self, key: str, text: str) -> None:
        """Log a warning at most once per WARN_PERIOD_S for each key."""
        now = time.monotonic()
        if now - self._last_warn.get(key, -math.inf) >= WARN_PERIOD_S:
            self._last_warn[key] = now
            self.get_logger().warning(text)

    def _push_command(self, integrate: bool = True) -> None:
        """
        Give the vehicle the command in force (watchdog and speed mode applied).

        The speed controller integrates over a control period only when one
        starts (integrate); a command received in between is applied at once
        without integrating.
        """
        if self.timed_out:
            brake = np.full(4, self.settings['timeout_brake_torque_n_m'])
            command = Command(self.steer_rad, self.steer_rate, np.zeros(4), brake, 0.0)
        elif self.settings['command_mode'] == 'speed':
            drive, brake = self.speed.torques(self.target_speed, self.target_acceleration,
                                              float(self.vehicle.state[VX]),
                                              self.control_steps * self.dt if integrate
                                              else 0.0)
            command = (self._through_drivetrain(drive, brake) if self.vehicle.has_drivetrain
                       else Command(self.steer_rad, self.steer_rate, drive, brake, 0.0))
        elif self.settings['command_mode'] == 'driver':
            command = DriverCommand(self.steer_rad, self.steer_rate, self.throttle, self.pedal,
                                    self.handbrake, self.gear)
        else:
            command = Command(self.steer_rad, self.steer_rate, self.drive, self.brake,
                              self.handbrake)
        try:
            notes = self.vehicle.set_command(command)
        except CommandError as error:     # cannot happen after the checks above
            self._warn('command', f'command rejected: {error}')
            return
        if notes:
            self.counters['clamped'] += 1
            self._warn('clamped', 'command clamped to the vehicle limits: ' + '; '.join(notes))

    def _through_drivetrain(self, drive, brake) -> DriverCommand:
        """Turn the speed controller's torques into pedals and a gear request."""
        wanted = sum(drive)
        full = self.vehicle.full_drive_torque_n_m()
        throttle = min(abs(wanted) / full, 1.0) if full > 0.0 else 0.0
        pedal = min(sum(brake) / float(np.sum(self.vehicle.brake_limit)), 1.0)
        gear = -1 if self.target_speed < 0.0 else AUTOMATIC
        return DriverCommand(self.steer_rad, self.steer_rate, throttle, pedal, 0.0, gear)

    # ---- stepping ----------------------------------------------------------

    def _start_control_period(self) -> None:
        """Run the watchdog, and in speed mode the speed controller, for the next period."""
        timeout = self.settings['command_timeout_s']
        if (timeout > 0.0 and not self.timed_out
                and (self.sim_steps - self.last_command_steps) * self.dt >= timeout):
            self.timed_out = True
            self.get_logger().warning(
                f'no command for {timeout:g} s of simulated time: drive cut, brakes on')
            self._push_command()
        elif self.settings['command_mode'] == 'speed' and not self.timed_out:
            self._push_command()

    def advance(self, steps: int) -> None:
        """
        Take `steps` physics steps, starting a control period at each multiple of it.

        Stops early, between two control periods, when the process is asked
        to stop (stop_requested): a long step call never holds up Ctrl-C.
        """
        while steps > 0 and not self.stop_requested():
            if self.sim_steps % self.control_steps == 0:
                self._start_control_period()
            chunk = min(steps, self.control_steps - self.sim_steps % self.control_steps)
            try:
                self.vehicle.advance(chunk, self.dt)
            except FloatingPointError as error:
                self.get_logger().error(f'{error}; resetting to the initial state')
                self._place_initial()
                return
            before = self.sim_steps
            self.sim_steps += chunk
            steps -= chunk
            if self.sim_steps // self.publish_every != before // self.publish_every:
                markers = bool(self.marker_every) and (
                    self.sim_steps // self.marker_every != before // self.marker_every)
                self._publish_outputs(markers)

    def _pace_from(self, steps: int) -> None:
        """Count real time from now, with `steps` steps taken at this instant."""
        self._wall_start = time.monotonic()
        self._steps_at_start = steps

    def _due_steps(self) -> int:
        """
        Return the step count real-time pacing asks for by now.

        Real time counts from the first call (the first tick), not from
        construction: the start-up's cost is not taken for a missed step.
        """
        if self._wall_start is None:
            self._pace_from(self.sim_steps)
        return self._steps_at_start + math.floor(
            (time.monotonic() - self._wall_start) * self.settings['real_time_factor'] / self.dt)

    def _tick(self) -> None:
        """Timer: take the steps that wall-clock pacing says are due."""
        s = self.settings
        if not self._may_advance():
            self._pace_from(self.sim_steps)     # real time counts from when time may run
            return
        if s['pacing'] == 'fast':
            self.advance(self.publish_every)
            return
        missing = self._due_steps() - self.sim_steps
        limit = max(1, round(s['max_catch_up_s'] / self.dt))
        if missing > limit:
            self.counters['overrun_steps'] += missing - limit
            self._warn('overrun', f'cannot keep up with real time x{s["real_time_factor"]:g}: '
                       f'{self.counters["overrun_steps"] * self.dt:.3f} s of simulated time '
                       'dropped so far')
            self._pace_from(self.sim_steps + limit)
            missing = limit
        if missing > 0:
            self.advance(missing)

    # ---- services ----------------------------------------------------------

    def _on_reset(self, request, response):
        self._reset_commands()
        self._place_initial()
        self._publish_outputs(markers=True)
        response.success = True
        response.message = 'reset to the initial state'
        return response

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
            self._subscribers_at = -math.inf    # a subscriber that just came is served
            before = self.sim_steps
            self.advance(int(request.steps))
            response.success = self.sim_steps - before == request.steps
            response.message = '' if response.success else (
                f'interrupted after {self.sim_steps - before} steps: the simulator is stopping')
            # step(0) always reports the current state; otherwise publish unless
            # the steps just taken ended on a publishing instant already.
            if request.steps == 0 or self._published_at != self.sim_steps:
                self._publish_outputs(markers=False)
        response.sim_time = self._stamp()
        response.step_count = self.sim_steps
        return response

    # ---- outputs -----------------------------------------------------------

    def _stamp(self):
        return conversions.stamp(self.sim_steps * self.step_ns)

    def flush(self, timeout_s: float = 2.0) -> None:
        """Wait until every subscriber has what was published (called before shutdown)."""
        deadline = time.monotonic() + timeout_s
        for publisher, _, _ in self.outputs + [(self.pub_clock, None, None)]:
            if publisher is not None:
                left = max(0.0, deadline - time.monotonic())
                publisher.wait_for_all_acked(Duration(seconds=left))
        self.get_logger().info(f'stopped at simulated time {self._stamp_s():.3f} s')

    def _stamp_s(self) -> float:
        return self.sim_steps * self.step_ns / 1e9

    def _subscribed(self) -> list:
        """Return which outputs have subscribers, asking the graph at most every SUBSCRIBERS_S."""
        now = time.monotonic()
        if now - self._subscribers_at >= SUBSCRIBERS_S:
            self._subscribers_at = now
            self._subscribers = [p.get_subscription_count() > 0 for p, _, _ in self.outputs]
            self._clock_subscribed = (self.pub_clock is not None
                                      and self.pub_clock.get_subscription_count() > 0)
        return self._subscribers

    def _publish_outputs(self, markers: bool) -> None:
        """Publish the state on every output somebody subscribes to (serialized in place)."""
        if not self.start_gate.open:
            return          # nothing before every listed observer can have it
        self._published_at = self.sim_steps
        now_ns = self.sim_steps * self.step_ns
        subscribed = self._subscribed()
        if self._clock_subscribed:
            self.pub_clock.publish(self.messages.clock(now_ns))
        for (publisher, make, marker), wanted in zip(self.outputs, subscribed):
            if wanted and (markers or not marker):
                publisher.publish(make(now_ns))
        if self.gate is not None:
            self.gate.expect(self.sim_steps * self.step_ns, time.monotonic())
            self._republished = 0
            self._odom_subscribers = self.pub_odom.get_subscription_count()

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
        publishers = [p for p, _, _ in self.outputs + [(self.pub_clock, None, None)]
                      if p is not None]
        if self.start_gate.ready(publishers):
            self.get_logger().info(f"observers {', '.join(self.start_gate.observers)} "
                                   'matched: simulated time starts')
            self._subscribers_at = -math.inf
            self._publish_outputs(markers=True)
            return True
        waited = time.monotonic() - self._created_s
        if waited >= self.settings['sync_timeout_s'] * (1 + self._waiting_reports['observers']):
            self._waiting_reports['observers'] += 1
            self.get_logger().warning(
                'simulated time starts once every listed observer subscribes to the outputs; '
                f"waiting {waited:.0f} s so far for {', '.join(self.start_gate.missing())}")
        return False

    # ---- synchronous mode --------------------------------------------------

    def _sync_advance(self) -> None:
        """Advance one publishing period if every listed controller answered and it is due."""
        if not self._may_advance() or self.gate.missing() or not self._due(self.publish_every):
            return
        self.advance(self.publish_every)

    def _due(self, steps: int) -> bool:
        """Return whether realtime pacing allows `steps` more steps now (fast: always)."""
        s = self.settings
        if s['pacing'] == 'fast':
            return True
        due = self._due_steps()
        if due - self.sim_steps > round(s['max_catch_up_s'] / self.dt):
            self._pace_from(self.sim_steps)     # waited on a controller: no catch-up
            return True
        return self.sim_steps + steps <= due

    def _tick_sync(self) -> None:
        """Timer in synchronous mode: pacing, timeouts, and the state published again."""
        if not self._observers_matched():
            return
        if self._unidentified:
            self._identify_pending()
        missing = self.gate.missing()
        if not missing:
            self._sync_advance()
            return
        waited = time.monotonic() - self.gate.since_s
        odom_subscribers = self.pub_odom.get_subscription_count()
        every = REPUBLISH_START_S if self.gate.starting() else REPUBLISH_S
        if waited >= every * (1 + self._republished) or \
                odom_subscribers > self._odom_subscribers:
            self._refresh_graph()
            republished = self._republished + 1
            self._subscribers_at = -math.inf
            self._publish_outputs(markers=False)
            self._republished = republished
            self._odom_subscribers = odom_subscribers
        timeout = self.settings['sync_timeout_s']
        if not self.gate.starting():
            if waited >= timeout:
                self._sync_timeout()
        elif waited >= timeout * (1 + self._waiting_reports['controllers']):   # no give-up
            self._waiting_reports['controllers'] += 1
            self.get_logger().warning(
                f'synchronous mode: simulated time starts once every listed controller has '
                f"answered; waiting {waited:.0f} s so far for {', '.join(self.gate.unstarted())}")

    def _sync_timeout(self) -> None:
        """Report the controllers that did not answer in time and go on without them."""
        absent = set(self.gate.absent())
        names = self.gate.give_up()
        self.counters['sync_timeouts'] += 1
        reasons = [f'{n} (no publisher on {" or ".join(COMMAND_TOPICS)})' if n in absent
                   else n for n in names]
        self.get_logger().error(
            f'synchronous mode: no answer to the state at {self._stamp_s():.3f} s within '
            f"{self.settings['sync_timeout_s']:g} s from {', '.join(reasons)}; going on with "
            'the commands held, without waiting for it until it answers again')
        self._sync_advance()
