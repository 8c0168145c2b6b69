"""
The sensors of one car: each channel sampled at its rate, in error, and delivered late.

Time is the simulator's: steps of step_ns nanoseconds. A channel of rate r
measures at the first step at or after each k / r seconds, stamps the
measurement with that step's time, and delivers it at the first step at or
after the stamp plus its delay_s (a dropped sample is never delivered, and
nothing stale or made up stands in for it). The caller asks next_event()
which step it must stop at, calls measure() there, and publishes what
delivered() returns.

One seed: each channel draws from generators of its own (numpy
SeedSequence(seed, spawn_key=(channel, stream)): its biases, its samples'
errors, its dropouts), a fixed number of draws per sample, so a channel's
errors depend on the seed and its own settings only, not on which other
channels run or at what rates.
"""

from collections import deque
from dataclasses import dataclass
import functools
import math
from typing import Deque, Dict, Iterable, List, Optional, Tuple

import numpy as np

from .geodesy import DEFAULT_DATUM, LocalTangentPlane
from .noise import Noise
from .profiles import beam_increment_rad, CHANNELS, ChannelSpec, Profile, QUANTITIES, SensorError
from ..physics.model import OMEGA, STEER, VX, VY, X, Y, YAW, YAW_RATE

BIAS_STREAM, SAMPLE_STREAM, DROPOUT_STREAM, BEAM_DROPOUT_STREAM = 0, 1, 2, 3
"""The spawn_key's second entry for a channel's biases, samples' errors and dropouts (and
the lidar's lost beams)."""
MAX_SEED = 2 ** 63 - 1


@dataclass
class Measurement:
    """What one channel measured at stamp_ns: values and error variances per quantity."""

    channel: str
    stamp_ns: int
    values: Dict[str, np.ndarray]
    variances: Dict[str, float]
    exact: bool
    """Whether every value is the truth as it is (the channel has no error model)."""


def truth(channel: str, vehicle, spec: ChannelSpec = None, world=None
          ) -> Dict[str, np.ndarray]:
    """
    Return what `channel` measures of `vehicle` now, per quantity, without error.

    Entries that are not quantities of the channel ride along exact: the
    odometry's `ground` (base_link's height, pitch and roll when measured:
    on its ground, or tilted with a sprung body, Vehicle.body_pose).
    The lidar (its `spec`) casts its beams through `world` (world/scene.py:
    cast(vehicle, x, y, headings, max_range)); with none, nothing is there.
    """
    s = vehicle.state
    if channel == 'lidar':
        return {'ranges': lidar_truth(vehicle, spec.geometry, world)}
    if channel == 'odometry':
        return {'position': s[[X, Y]], 'yaw': s[[YAW]], 'velocity': s[[VX, VY]],
                'yaw_rate': s[[YAW_RATE]], 'ground': np.array(vehicle.body_pose())}
    if channel == 'imu':
        _, pitch, roll = vehicle.body_pose()
        return {'orientation': np.array([roll, pitch, s[YAW]]),
                'gyro': np.array(vehicle.angular_velocity()),
                'accelerometer': np.array(vehicle.specific_force_body())}
    if channel == 'wheel_speeds':
        return {'angle': vehicle.wheel_angle_rad.copy()}
    if channel == 'steering':
        return {'angle': s[[STEER]]}
    z = vehicle.ground()[0]
    return {'horizontal': s[[X, Y]], 'vertical': np.array([z])}


def beam_angles(geometry) -> np.ndarray:
    """Return each beam's angle in the lidar's frame [rad], from -fov / 2 (read-only)."""
    return _beam_angles(geometry['beams'], geometry['field_of_view_rad'],
                        beam_increment_rad(geometry))


@functools.lru_cache(maxsize=16)
def _beam_angles(beams: int, fov: float, increment: float) -> np.ndarray:
    """beam_angles, computed once per lidar (each scan would compute them again)."""
    angles = np.zeros(1) if beams == 1 else -0.5 * fov + np.arange(beams) * increment
    angles.flags.writeable = False
    return angles


def lidar_truth(vehicle, geometry, world) -> np.ndarray:
    """Return each beam's true range from the lidar's mount (inf: no return within range)."""
    s = vehicle.state
    yaw = float(s[YAW])
    c, sn = math.cos(yaw), math.sin(yaw)
    x = float(s[X]) + c * geometry['mount_x_m'] - sn * geometry['mount_y_m']
    y = float(s[Y]) + sn * geometry['mount_x_m'] + c * geometry['mount_y_m']
    headings = yaw + geometry['mount_yaw_rad'] + beam_angles(geometry)
    if world is None:
        return np.full(len(headings), np.inf)
    return world.cast(vehicle, x, y, headings, geometry['range_max_m'])


def read_as_lidar(ranges: np.ndarray, true: np.ndarray, geometry, lost: np.ndarray
                  ) -> np.ndarray:
    """
    Return measured ranges as sensor_msgs/LaserScan has them (REP 117).

    A beam with no true return, or lost (beam dropout), reads +inf; one that
    reads beyond range_max_m too; one nearer than range_min_m reads -inf.
    Then every +inf reads the lidar's no_return_m (+inf unless set).
    """
    out = np.where(np.isfinite(true) & ~lost, ranges, np.inf)
    out[out > geometry['range_max_m']] = np.inf
    out[out < geometry['range_min_m']] = -np.inf
    no_return = geometry.get('no_return_m', np.inf)
    if no_return != np.inf:
        out[out == np.inf] = no_return
    return out


class Channel:
    """One channel's schedule, error models, and measurements on their way."""

    def __init__(self, spec: ChannelSpec, index: int, seed: int, step_ns: int,
                 period_ns: int):
        """Sample every period_ns (on steps of step_ns), drawing from `seed`'s streams."""
        self.spec = spec
        self.step_ns = step_ns
        self.period_ns = period_ns
        self.delay_ns = round(spec.delay_s * 1e9)

        def stream(kind: int) -> np.random.Generator:
            return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index, kind)))
        biases, self.errors, self.dropouts = (stream(k) for k in (
            BIAS_STREAM, SAMPLE_STREAM, DROPOUT_STREAM))
        self.beam_losses = stream(BEAM_DROPOUT_STREAM) if spec.name == 'lidar' else None
        self.noise = {q: Noise(spec.noise[q], biases.standard_normal(spec.components(q)))
                      for q in QUANTITIES[spec.name]}
        self.noisy = [(q, n) for q, n in self.noise.items() if not n.spec.exact]
        self.draws = sum(n.components for _, n in self.noisy)
        self.samples = 0
        self.next_step = 0
        self.last_ns: Optional[int] = None
        self.queue: Deque[Tuple[int, Measurement]] = deque()
        self._wheels: Optional[Tuple[np.ndarray, np.ndarray]] = None   # unwrapped, wrapped

    def measure(self, step: int, values: Dict[str, np.ndarray], omega: np.ndarray) -> None:
        """Measure at `step` (due now): error, dropout, then on its way."""
        now_ns = step * self.step_ns
        interval_s = 0.0 if self.last_ns is None else (now_ns - self.last_ns) / 1e9
        self.last_ns = now_ns
        self.samples += 1
        self.next_step = -(-(self.samples * self.period_ns) // self.step_ns)   # ceil
        if self.spec.name == 'wheel_speeds':
            values = {'angle': self._unwrapped(values['angle'], omega, interval_s)}
        true_ranges = None
        if self.spec.name == 'lidar':       # errors on every beam (the draws stay in step),
            true_ranges = values['ranges']  # a beam without a return kept at +inf
            values = {'ranges': np.where(np.isfinite(true_ranges), true_ranges, 0.0)}
        measured = dict(values)
        if self.draws:
            draws = self.errors.standard_normal((2, self.draws))
            first = 0
            for q, noise in self.noisy:
                last = first + noise.components
                measured[q] = noise.sample(values[q], interval_s, draws[:, first:last])
                first = last
        if true_ranges is not None:
            geometry = self.spec.geometry
            lost = self.beam_losses.random(len(true_ranges)) < geometry[
                'beam_dropout_probability']
            measured['ranges'] = read_as_lidar(measured['ranges'], true_ranges, geometry, lost)
        dropped = self.dropouts.random() < self.spec.dropout_probability
        if dropped:
            return
        variances = {q: n.variance() for q, n in self.noise.items()}
        self.queue.append((now_ns + self.delay_ns, Measurement(
            self.spec.name, now_ns, measured, variances, self.spec.exact)))

    def _unwrapped(self, wrapped: np.ndarray, omega: np.ndarray, interval_s: float
                   ) -> np.ndarray:
        """Return the wheels' total angles: the turns between samples from their speed."""
        if self._wheels is None:
            total = wrapped.copy()
        else:
            last_total, last_wrapped = self._wheels
            change = wrapped - last_wrapped
            turns = np.round((omega * interval_s - change) / (2.0 * math.pi))
            total = last_total + change + 2.0 * math.pi * turns
        self._wheels = (total, wrapped.copy())
        return total

    def next_due_step(self) -> Optional[int]:
        """Return the step at which the oldest measurement on its way is delivered."""
        if not self.queue:
            return None
        return -(-self.queue[0][0] // self.step_ns)


class Sensors:
    """Every channel of a profile, for one car with steps of step_ns."""

    def __init__(self, profile: Profile, seed: int, step_ns: int, publish_period_ns: int,
                 datum: Optional[Tuple[float, float, float]] = None):
        """
        Set the channels up; SensorError for a rate above the physics rate.

        A channel without rate_hz runs at the node's publishing period; if it
        is also exact (profile `ideal`), it is not scheduled here: it is the
        truth whenever the node publishes its state (measure_now). GNSS is
        placed by `datum` (the stage's; None: latitude 0, longitude 0,
        altitude 0).
        """
        if not 0 <= seed <= MAX_SEED:
            raise SensorError(f'seed = {seed} must be in [0, {MAX_SEED}]')
        self.world = None
        """What the lidar's beams meet (world/scene.py's Scene); None: nothing."""
        self.profile = profile
        self.seed = seed
        self.step_ns = step_ns
        self.publish_period_ns = publish_period_ns
        physics_hz = 1e9 / step_ns
        self.channels: Dict[str, Channel] = {}
        self.with_outputs: List[str] = []
        self._next_event = False        # cached next_event(); False: to be found again
        for index, name in enumerate(CHANNELS):
            spec = profile.channels.get(name)
            if spec is None:
                continue
            if spec.rate_hz is None and spec.exact:
                self.with_outputs.append(name)      # the truth, whenever the state is published
                continue
            if spec.rate_hz is not None and spec.rate_hz > physics_hz + 1e-9:
                raise SensorError(f"key '{name}.rate_hz' = {spec.rate_hz:g} in {profile.path} is "
                                  f'above the physics rate: it must be in (0, {physics_hz:g}]')
            period_ns = (publish_period_ns if spec.rate_hz is None
                         else round(1e9 / spec.rate_hz))
            self.channels[name] = Channel(spec, index, seed, step_ns, period_ns)
        self.place(datum)

    def next_event(self) -> Optional[int]:
        """Return the next step at which a channel measures or delivers (None: no channel)."""
        if self._next_event is False:
            steps = [c.next_step for c in self.channels.values()]
            steps += [s for s in (c.next_due_step() for c in self.channels.values())
                      if s is not None]
            self._next_event = min(steps) if steps else None
        return self._next_event

    def measure(self, step: int, vehicle) -> None:
        """Measure every channel whose sample falls at or before `step` (called at it)."""
        if self._next_event is not False and self._next_event is not None \
                and step < self._next_event:
            return          # nothing falls due before the next event
        omega = vehicle.state[OMEGA:OMEGA + 4]
        for name, channel in self.channels.items():
            if channel.next_step <= step:
                channel.measure(step, truth(name, vehicle, channel.spec, self.world), omega)
                self._next_event = False

    def measure_now(self, now_ns: int, vehicle, names: Iterable[str]) -> List[Measurement]:
        """Return channels measured with the outputs (of with_outputs, `names`): the truth, now."""
        out = []
        for name in names:
            spec = self.profile.channels[name]
            values = truth(name, vehicle, spec, self.world)
            if name == 'lidar':
                values['ranges'] = read_as_lidar(values['ranges'], values['ranges'],
                                                 spec.geometry, np.zeros(1, dtype=bool))
            out.append(Measurement(name, now_ns, values, dict.fromkeys(QUANTITIES[name], 0.0),
                                   True))
        return out

    def delivered(self, step: int) -> List[Measurement]:
        """Return the measurements due by `step`, in channel order, oldest first."""
        now_ns = step * self.step_ns
        out = []
        for channel in self.channels.values():
            while channel.queue and channel.queue[0][0] <= now_ns:
                out.append(channel.queue.popleft()[1])
        if out:
            self._next_event = False
        return out

    def reset(self) -> None:
        """Forget the measurements on their way (a reset or teleport); errors run on."""
        for channel in self.channels.values():
            channel.queue.clear()
            channel._wheels = None
        self._next_event = False

    def state_every(self, publish_every: int) -> int:
        """Return the steps between two odometry measurements (with the outputs: theirs)."""
        channel = self.channels.get('odometry')
        if channel is None:
            return publish_every
        return -(-channel.period_ns // self.step_ns)

    def place(self, datum: Optional[Tuple[float, float, float]]) -> None:
        """Place GNSS by a new datum (a new surface); None: latitude 0, longitude 0."""
        self.datum = datum if datum is not None else DEFAULT_DATUM
        self.datum_given = datum is not None
        self.plane = LocalTangentPlane(self.datum)

    def geodetic(self, measurement: Measurement) -> Tuple[float, float, float]:
        """Return latitude, longitude [deg], altitude [m] of a GNSS measurement."""
        (east, north), (up,) = measurement.values['horizontal'], measurement.values['vertical']
        return self.plane.geodetic(float(east), float(north), float(up))
