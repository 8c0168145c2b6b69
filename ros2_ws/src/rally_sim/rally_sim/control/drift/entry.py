"""
A planned entry into a drift from grip driving on the same circle, for any car. ROS-free.

On many cars the family of equilibria from grip to the drift has a gap
(the grip branch folds before the drift branch begins), or a tight circle
has no grip driving at beta 0 at all; the sideslip ramped through the
family then spins the car or leaves it in grip. A rally driver crosses
that gap with a technique, and so does EnteringDrift, in three parts:

1. GripHold drives the circle in grip until the car is where the plan
   starts (a steady state, found by the planner the same way);
2. over a window, the drift LQR aims at the drift and the plan adds its
   offsets to the LQR's steer and rear wheel speed, and a handbrake or a
   neutral gear, per family:
   - power_over: the rear wheels spun up;
   - flick: steer away from the turn, then into it (the Scandinavian flick);
   - handbrake: the handbrake pulled while turning in (a car that has one);
   - clutch_kick: neutral while the throttle revs the engine, then the gear
     again (driver mode: the clutch re-engages with the engine's energy);
3. the drift LQR holds the drift.

The plan is found on the car's own compiled model: each family's starting
bumps are run, Levenberg-Marquardt (knots.py) refines the best, and the
lowest-cost plan that ends in the drift is kept. The frame: the circle
centred at the origin, the car at (R, 0) heading +y (a left-hand circle; a
right-hand one is its mirror).
"""

from dataclasses import dataclass, field
import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .knots import KnotDesign, read_knots, read_plan, write_plan
from .lqr import Act, DriftLqr
from ...physics.model import OMEGA, VX, VY, X, Y, YAW, YAW_RATE
from ...physics.vehicle import Command, DriverCommand

FAMILIES = ('power_over', 'flick', 'handbrake', 'clutch_kick')
"""The entry techniques planned (those a car has: a handbrake, a gearbox in driver mode)."""
ENTERED_DEG = 3.0
"""A run whose sideslip ends within this of the target's, on the circle, has entered."""
ON_CIRCLE_SHARE = 0.05
"""... and whose distance from the circle ends within this share of its radius."""
RAMP_STARTS = (1.0, 1.1)
"""needs_plan(): the ramp's starts, shares of the speed where the family starts."""
RAMP_CHECK_S = 15.0
RAMPED_DEG = 0.5
RAMPED_SHARE = 0.01
"""needs_plan(): the ramp's run lasts entry_s and this long, and ends this close to the drift."""
KNOTS = 11
PLAN_VERSION = 4
"""Raised when the planner changes, so that cached entries are planned anew."""
REFINED = 2
"""The families whose best starts cost least that Levenberg-Marquardt refines (plan_entry)."""
ITERATIONS = 12
"""Levenberg-Marquardt's iterations from a start at most."""
LONGER_WINDOW = 2.0
"""Where no family enters: the closest planned again over a window this many times as long."""
HOLD_SHARE = 0.6
"""Grip driving before the entry at this share of sqrt(mu g R) (GripHold)."""
GRIP_SHARE = 0.95
"""... or at this share of the speed of grip driving at beta 0, where the family has it."""
HOLD_INTEGRAL_PER_S = 1.0
"""GripHold's speed loop: its integral's rate [1/s] on a 2.4 m wheelbase (scale_s)."""
HOLD_MAX_S = 30.0
"""The planner's run drives in grip until it settles, or this long."""
SETTLED_S = 2.0
SETTLED_SPEED_SHARE = 1e-3
SETTLED_SIDESLIP_RAD = math.radians(0.02)
"""Settled grip: the speed and sideslip SETTLED_S apart agree within these."""
START_SPEED_SHARE = 0.01
START_SIDESLIP_RAD = math.radians(0.5)
"""A car in grip is where a plan starts (EnteringDrift) within these of its speed and sideslip."""


@dataclass
class Entry:
    """The planned inputs of an entry, in the left-hand frame (SI units)."""

    design: Dict                       # transition.KEYS
    family: str                        # FAMILIES
    knot_times_s: np.ndarray           # from the window's start; the last one ends it
    steer_offset_rad: np.ndarray       # added to the LQR's, at the knots, linear between
    wheel_speed_offset_rad_s: np.ndarray
    handbrake: np.ndarray              # 0..1 at the knots
    neutral_s: Tuple[float, float] = (0.0, 0.0)   # clutch kick: the gear out over this
    start: Tuple[float, float] = (0.0, 0.0)       # speed [m/s] and sideslip [rad] it starts at
    measured: Dict = field(default_factory=dict)

    @property
    def window_s(self) -> float:
        """Return the window's length [s]."""
        return float(self.knot_times_s[-1])

    def inputs(self, time_s: float) -> Tuple[float, float, float, bool]:
        """Return (steer offset [rad], wheel speed offset [rad/s], handbrake, neutral) at t."""
        t = self.knot_times_s
        return (float(np.interp(time_s, t, self.steer_offset_rad)),
                float(np.interp(time_s, t, self.wheel_speed_offset_rad_s)),
                float(np.clip(np.interp(time_s, t, self.handbrake), 0.0, 1.0)),
                self.neutral_s[0] <= time_s < self.neutral_s[1])

    def save(self, path: str) -> None:
        """Write the entry as YAML."""
        tree = {'design': dict(self.design), 'family': self.family,
                'knot_times_s': self.knot_times_s.tolist(),
                'steer_offset_rad': self.steer_offset_rad.tolist(),
                'wheel_speed_offset_rad_s': self.wheel_speed_offset_rad_s.tolist(),
                'handbrake': self.handbrake.tolist(), 'neutral_s': list(self.neutral_s),
                'start': [float(v) for v in self.start], 'measured': dict(self.measured)}
        write_plan(path, 'A planned drift entry (rally_sim.control.drift.entry), from grip on a '
                   'left-hand\ncircle centred at the origin; a right-hand one is its mirror.',
                   tree)


def load_entry(path: str) -> Entry:
    """Read an entry file; ValueError names the field that is wrong."""
    tree = read_plan(path, 'entry file')
    if not isinstance(tree.get('design'), dict):
        raise ValueError(f"entry file {path}: no 'design' mapping")
    if tree.get('family') not in FAMILIES:
        raise ValueError(f"entry file {path}: 'family' must be one of {', '.join(FAMILIES)}")
    arrays = read_knots(tree, ('steer_offset_rad', 'wheel_speed_offset_rad_s', 'handbrake'),
                        f'entry file {path}')
    pairs = {}
    for name, what in (('neutral_s', '[from, to] in seconds'),
                       ('start', '[speed m/s, sideslip rad]')):
        try:
            pairs[name] = (float(tree[name][0]), float(tree[name][1]))
        except (TypeError, ValueError, IndexError, KeyError):
            raise ValueError(f"entry file {path}: '{name}' must be {what}") from None
    return Entry(dict(tree['design']), tree['family'], arrays['knot_times_s'],
                 arrays['steer_offset_rad'], arrays['wheel_speed_offset_rad_s'],
                 arrays['handbrake'], pairs['neutral_s'], pairs['start'],
                 dict(tree.get('measured') or {}))


def scale_s(law: DriftLqr) -> float:
    """Return the car's time scale against a 2.4 m wheelbase: sqrt(L / 2.4), from 0.35 to 1."""
    p = law.vehicle.params
    wheelbase = p.cg_to_front_m + p.cg_to_rear_m
    return min(max(math.sqrt(wheelbase / 2.4), 0.35), 1.0)


def families_of(law: DriftLqr) -> List[str]:
    """Return the entry families this car and law can use."""
    names = ['power_over', 'flick']
    if law.vehicle.config['brakes.handbrake_torque_n_m'] > 0.0:
        names.append('handbrake')
    if law.driver:
        names.append('clutch_kick')
    return names


class GripHold:
    """
    Grip driving round the law's circle at a set speed: pure pursuit and the rear wheel loop.

    The state a planned entry starts from. On a tight circle grip driving
    has a positive sideslip (the CG's velocity points inside the rear axle's
    heading), which the family from beta 0 may not reach; this law drives it
    anyway, slowly enough (HOLD_SHARE of sqrt(mu g R)) to stay in grip; on a
    car with grip driving at beta 0, at GRIP_SHARE of that speed if faster.
    """

    def __init__(self, law: DriftLqr):
        """Take the law's car, circle and inner loop; the speed from the circle."""
        self.law = law
        p = law.vehicle.params
        self.lr, self.wheelbase = p.cg_to_rear_m, p.cg_to_front_m + p.cg_to_rear_m
        self.wheel_radius = p.wheel_radius_m
        self.half_track = p.half_track_m
        grip = float(np.mean(law.vehicle.friction)) * p.gravity_m_s2
        self.speed_m_s = HOLD_SHARE * math.sqrt(grip * law.radius_m)
        if law.grip_found and not law.grip.limit:      # grip driving at beta 0: near it
            self.speed_m_s = max(self.speed_m_s, GRIP_SHARE * law.grip.speed_m_s)
        self.reset()

    def reset(self) -> None:
        """Forget the speed loop's integral."""
        self.integral = 0.0

    def command(self, x: float, y: float, yaw: float, speed_m_s: float,
                rear: Tuple[float, float], left: bool = True):
        """
        Return the law's (steer, drive) for a left-turn state; left False mirrors them back.

        Steer: pure pursuit of the circle from the rear axle. Drive: the rear
        wheels' speeds asked of the inner loop, each at its track's rolling
        rate, from the car's speed error (proportional and integral).
        """
        law = self.law
        cx, cy = law.design.center_x_m, law.design.center_y_m
        rx, ry = x - self.lr * math.cos(yaw) - cx, y - self.lr * math.sin(yaw) - cy
        ahead = max(0.5 * self.wheelbase, 0.6 * self.speed_m_s)
        angle = math.atan2(ry, rx) + ahead / law.radius_m
        gx, gy = law.radius_m * math.cos(angle) - rx, law.radius_m * math.sin(angle) - ry
        alpha = math.atan2(gy, gx) - yaw
        steer = math.atan2(2.0 * self.wheelbase * math.sin(alpha), math.hypot(gx, gy))
        error = self.speed_m_s - speed_m_s
        self.integral += law.design.control_period_s * HOLD_INTEGRAL_PER_S / scale_s(law) * error
        wanted = (self.speed_m_s + error + self.integral) / self.wheel_radius
        inside = np.array([-1.0, 1.0]) * self.half_track / law.radius_m    # rl, rr
        return law.actuate(steer, wanted * (1.0 + inside), np.zeros_like(law.schedule[0].drive),
                           rear, left)


class EntryRollout:
    """The entry simulated from grip (GripHold's steady state): the window, then the LQR."""

    def __init__(self, law: DriftLqr, window_s: float, after_s: float):
        """Drive the circle in grip from (R, 0) heading +y until it settles; start there."""
        self.radius = law.radius_m
        self.law = law.placed(self.radius, 0.0, 0.0)
        self.car = law.vehicle
        self.period = law.design.control_period_s
        self.dt = float(self.car.config['dt'])
        self.substeps = max(1, round(self.period / self.dt))
        self.window_s, self.after_s = window_s, after_s
        self.hold = GripHold(self.law)
        self.start = self.held()

    def held(self, seconds: float = HOLD_MAX_S) -> np.ndarray:
        """
        Return the state where GripHold settles from a rolling start at (R, 0) (or at `seconds`).

        Settled: the speed and sideslip at two instants SETTLED_S apart agree
        within SETTLED_SPEED_SHARE and SETTLED_SIDESLIP_RAD.
        """
        car = self.car
        car.reset(x=self.radius, y=0.0, yaw=0.5 * math.pi, vx=self.hold.speed_m_s)
        self.hold.reset()
        every = int(round(SETTLED_S / self.period))
        last = None
        for k in range(int(round(seconds / self.period))):
            s = car.state
            if k % every == 0:
                now = (math.hypot(s[VX], s[VY]), math.atan2(s[VY], s[VX]))
                if last is not None and close_to(now, last):
                    break
                last = now
            steer, drive = self.hold.command(float(s[X]), float(s[Y]), float(s[YAW]),
                                             math.hypot(s[VX], s[VY]),
                                             (float(s[OMEGA + 2]), float(s[OMEGA + 3])))
            car.set_command(core_command(Act(steer, drive, 0.0, gear_of(self.law))))
            car.advance(self.substeps, self.dt)
        return car.state.copy()

    def steps(self) -> int:
        """Return the control steps of a run: the window's and after_s."""
        return int(round((self.window_s + self.after_s) / self.period))

    def run(self, entry: Entry, from_step: int = 0, states: Optional[List[np.ndarray]] = None,
            keep: bool = False) -> Tuple[np.ndarray, List[np.ndarray]]:
        """
        Return the rows (t, x, y, yaw, vx, vy, r, outside) from from_step on, and the states.

        states: a run's kept states to start from_step from. Raises
        FloatingPointError if the car's state goes non-finite.
        """
        law, car = self.law, self.car
        car.restore(self.start if states is None else states[from_step])
        law.reset()
        rows, kept = [], []
        for k in range(from_step, self.steps()):
            s = car.state
            if keep:
                kept.append(s.copy())
            x, y, yaw, vx, vy, r = (float(v) for v in s[[X, Y, YAW, VX, VY, YAW_RATE]])
            t = k * self.period
            rear = (float(s[OMEGA + 2]), float(s[OMEGA + 3]))
            if t < self.window_s:
                car.set_command(core_command(planned_act(law, entry, t, (x, y, yaw, vx, vy, r),
                                                         rear)))
            else:
                car.set_command(core_command(Act(*law.command_at(1.0, True, x, y, yaw, vx, vy,
                                                                 r, rear), 0.0, gear_of(law))))
            car.advance(self.substeps, self.dt)
            rows.append((t, x, y, yaw, vx, vy, r, math.hypot(x, y) - self.radius))
        return np.array(rows), kept


def close_to(now: Tuple[float, float], then: Tuple[float, float],
             speed_share: float = SETTLED_SPEED_SHARE,
             sideslip_rad: float = SETTLED_SIDESLIP_RAD) -> bool:
    """Return whether two (speed, sideslip) pairs agree within the shares given."""
    return (abs(now[0] - then[0]) <= speed_share * abs(then[0])
            and abs(now[1] - then[1]) <= sideslip_rad)


def smoothstep(u: float) -> float:
    """Return 3u^2 - 2u^3 of u clipped to [0, 1]."""
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


def planned_act(law: DriftLqr, entry: Entry, t: float, state: Sequence[float],
                rear_omega: Sequence[float]) -> Act:
    """
    Return the law's answer t into an entry's window to a CG state (x, y, yaw, vx, vy, r).

    The drift LQR aims at the drift (its integrals still) and the plan adds
    its offsets: steer, rear wheel speed, handbrake, neutral. With no
    offsets that is the LQR's own way in; a technique shapes it.
    """
    steer, wanted, drive_ff, rear = law.regulate(1.0, False, *state, rear_omega)
    steer_offset, wheel_offset, handbrake, neutral = entry.inputs(t)
    steer, drive = law.actuate(steer + steer_offset, wanted + wheel_offset, drive_ff, rear,
                               law.left)
    return Act(steer, drive, handbrake, gear_of(law, neutral))


def gear_of(law: DriftLqr, neutral: bool = False) -> Optional[int]:
    """Return the gear an answer asks for: None in torque mode, 0 (neutral) or the law's."""
    if not law.driver:
        return None
    return 0 if neutral else int(law.gear)


def core_command(act: Act) -> object:
    """Return the physics core's command of an answer (DriverCommand when it has a gear)."""
    if act.gear is not None:
        return DriverCommand(steer_rad=act.steer_rad, throttle=act.drive,
                             handbrake=act.handbrake, gear=act.gear)
    return Command(steer_rad=act.steer_rad, handbrake=act.handbrake,
                   drive_torque_n_m=(0.0, 0.0, act.drive[0], act.drive[1]))


class EnteringDrift:
    """
    A drift LQR that enters its drift by a planned entry: grip, the plan, then the LQR.

    The car drives the circle in grip (GripHold) for at least entry_s (the
    design's) and until it is where the plan starts; then the plan's window
    plays, then the LQR holds the drift, its integrals fresh. Everything
    else is the law's (target, driver, gear...).
    """

    def __init__(self, law: DriftLqr, entry: Entry):
        """Wrap `law` (on its own circle, either way round) with `entry` (left-hand frame)."""
        self.law, self.entry = law, entry
        self.hold = GripHold(law)
        self.reset()

    def __getattr__(self, name: str):
        """Return the law's attribute: the wrapper answers as the law does."""
        return getattr(self.__dict__['law'], name)

    def reset(self) -> None:
        """Start again from grip (a new run, or time that went back)."""
        self.law.reset()
        self.hold.reset()
        self._last_time_s = -math.inf
        self.window_start_s: Optional[float] = None

    def act(self, time_s: float, x: float, y: float, yaw: float, vx: float, vy: float,
            yaw_rate: float, rear_omega: Sequence[float]) -> Act:
        """
        Return the answer (steer, drive, handbrake, gear) to a CG state; see DriftLqr.command.

        The window opens once entry_s has passed and the car's speed and
        sideslip are the plan's start's (START_SPEED_SHARE, START_SIDESLIP_RAD),
        or HOLD_MAX_S after entry_s at the latest.
        """
        if time_s < self._last_time_s:
            self.reset()
        self._last_time_s = time_s
        law = self.law
        rl, rr = rear_omega
        my, myaw, mvy = y, yaw, vy
        if not law.left:
            my, myaw, mvy, rl, rr = 2.0 * law.design.center_y_m - y, -yaw, -vy, rr, rl
        if self.window_start_s is None and time_s >= law.design.entry_s and (close_to(
                (math.hypot(vx, vy), math.atan2(mvy, vx)), self.entry.start,
                START_SPEED_SHARE, START_SIDESLIP_RAD)
                or time_s >= law.design.entry_s + HOLD_MAX_S):
            self.window_start_s = time_s
        if self.window_start_s is None:
            steer, drive = self.hold.command(x, my, myaw, math.hypot(vx, vy), (rl, rr), law.left)
            return Act(steer, drive, 0.0, gear_of(law))
        into = time_s - self.window_start_s
        if into < self.entry.window_s:
            return planned_act(law, self.entry, into, (x, y, yaw, vx, vy, yaw_rate), rear_omega)
        return Act(*law.command_at(1.0, True, x, y, yaw, vx, vy, yaw_rate, rear_omega), 0.0,
                   gear_of(law))

    def command(self, *args) -> Tuple[float, object]:
        """Return (steer, drive) as DriftLqr.command does (act() without the handbrake)."""
        answer = self.act(*args)
        return answer.steer_rad, answer.drive


def entered(rows: np.ndarray, law: DriftLqr, within_deg: float = ENTERED_DEG,
            share: float = ON_CIRCLE_SHARE) -> bool:
    """Return whether a run ends in the drift: sideslip and distance from the circle."""
    beta = math.atan2(rows[-1, 5], rows[-1, 4])
    return (abs(math.degrees(beta - law.target.sideslip_rad)) < within_deg
            and abs(rows[-1, 7]) < share * law.radius_m)


class EntryDesign(KnotDesign):
    """The least squares whose minimum is an entry of one family (solved by KnotDesign)."""

    def __init__(self, law: DriftLqr, family: str, window_s: Optional[float] = None,
                 after_s: Optional[float] = None):
        """Set the knots, their base (grip's inputs blended into the drift's) and the weights."""
        scale = scale_s(law)
        self.family = family
        self.rollout = EntryRollout(law, window_s or max(3.0 * scale, 1.5),
                                    after_s or max(3.5 * scale, 5.0))
        self.law = law
        self.times = np.linspace(0.0, self.rollout.window_s, KNOTS)
        target = law.schedule[-1]
        self.base = np.zeros(2 * KNOTS)
        self.omega = float(np.mean(target.rear_omega))
        self.handbrake = np.zeros(KNOTS)
        self.neutral = (0.0, 0.0)
        self.period = self.rollout.period
        self.evaluations = 0

    def entry(self, p: np.ndarray) -> Entry:
        """Return the Entry of parameters p."""
        n = len(self.times)
        lock = self.law.vehicle.config['steering.max_angle_rad']
        start = self.rollout.start
        return Entry({}, self.family, self.times, np.clip(p[:n], -2.0 * lock, 2.0 * lock),
                     np.clip(p[n:], -self.omega, 2.0 * self.omega), self.handbrake.copy(),
                     self.neutral, (float(math.hypot(start[VX], start[VY])),
                                    float(math.atan2(start[VY], start[VX]))))

    def residuals(self, rows: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Return the weighted errors of a run of parameters p."""
        law, e = self.law, self.law.target
        window, scale = self.rollout.window_s, scale_s(self.law)
        t, vx, vy, r = rows[:, 0], rows[:, 4], rows[:, 5], rows[:, 6]
        speed = np.hypot(vx, vy)
        late = t >= window + 1.0 * scale
        settled = t >= window + 2.0 * scale
        n = len(self.times)
        steer, wheel = p[:n] - self.base[:n], p[n:] - self.base[n:]
        lateral = 0.03 * law.radius_m
        return np.concatenate([
            rows[:, 7] / lateral, (speed - e.speed_m_s) / (0.2 * e.speed_m_s),
            np.where(late, np.arctan2(vy, vx) - e.sideslip_rad, 0.0) / math.radians(3.0),
            np.where(settled, r - e.yaw_rate_rad_s, 0.0) / (0.1 * abs(e.yaw_rate_rad_s)),
            np.where(settled, speed - e.speed_m_s, 0.0) / (0.05 * e.speed_m_s),
            np.diff(p[:n], 2) / math.radians(4.0), np.diff(p[n:], 2) / (0.1 * self.omega),
            steer / math.radians(30.0), wheel / (0.75 * self.omega)])

    def simulate(self, p: np.ndarray, from_step: int = 0,
                 states: Optional[List[np.ndarray]] = None,
                 keep: bool = False) -> Tuple[np.ndarray, List[np.ndarray]]:
        """Return the rollout of parameters p from from_step (KnotDesign)."""
        return self.rollout.run(self.entry(p), from_step, states, keep)

    def difference_step(self, j: int) -> float:
        """Return the forward difference's step: 0.2 deg of steer, 1 % of the drift's spin."""
        return math.radians(0.2) if j < len(self.times) else 0.01 * self.omega

    def starts(self) -> List[np.ndarray]:
        """Return this family's starting bumps, best first."""
        return self.ranked(self._bumps()) or [self.base]

    def _bumps(self) -> List[np.ndarray]:
        """Return the family's starting parameters (setting its handbrake and neutral)."""
        t, w = self.times, self.rollout.window_s
        n = len(t)
        early = np.abs(t - 0.25 * w) <= 0.2 * w
        later = np.abs(t - 0.5 * w) <= 0.2 * w
        bumps = []
        if self.family == 'power_over':
            bumps.append(np.zeros(2 * n))
            for steer_deg in (5.0, 15.0):
                for spin in (0.2, 0.5, 1.0):
                    bumps.append(np.concatenate([math.radians(steer_deg) * early,
                                                 spin * self.omega * early]))
        elif self.family == 'flick':
            for away_deg, into_deg in ((10.0, 15.0), (20.0, 25.0)):
                for spin in (0.0, 0.4):
                    bumps.append(np.concatenate([
                        math.radians(-away_deg) * early + math.radians(into_deg) * later,
                        spin * self.omega * later]))
        elif self.family == 'handbrake':
            self.handbrake = (np.abs(t - 0.2 * w) <= 0.12 * w).astype(float)
            for steer_deg in (5.0, 15.0):
                for spin in (0.0, 0.5):
                    bumps.append(np.concatenate([math.radians(steer_deg) * early,
                                                 spin * self.omega * later]))
        else:                                      # clutch_kick
            self.neutral = (0.1 * w, 0.1 * w + 0.3 * scale_s(self.law))
            for steer_deg in (5.0, 15.0):
                for spin in (0.5, 1.0):
                    bumps.append(np.concatenate([math.radians(steer_deg) * early,
                                                 spin * self.omega * early]))
        return [self.base + b for b in bumps] or [self.base.copy()]


def measure(design: EntryDesign, entry: Entry) -> Dict:
    """Return what the entry's own run shows: entered, the errors at its end, the cost."""
    rows, _ = design.rollout.run(entry)
    target = design.law.target
    end = rows[-1]
    return {'entered': bool(entered(rows, design.law)),
            'sideslip_error_deg': float(math.degrees(math.atan2(end[5], end[4])
                                                     - target.sideslip_rad)),
            'outside_m': float(end[7]), 'lateral_max_m': float(np.max(np.abs(rows[:, 7])))}


def ramp_run(law: DriftLqr, seconds: float, speed_share: float = 1.0) -> np.ndarray:
    """
    Return the rows of the law's own ramp from a rolling start at (R, 0), as entered() reads.

    The start: heading along the circle at speed_share of the family's start's speed.
    """
    radius = law.radius_m
    placed, car = law.placed(radius, 0.0, 0.0), law.vehicle
    car.reset(x=radius, y=0.0, yaw=0.5 * math.pi,
              vx=speed_share * float(law.schedule[0].velocity[0]))
    period = law.design.control_period_s
    substeps = max(1, round(period / float(car.config['dt'])))
    rows = []
    for k in range(int(round(seconds / period))):
        s = car.state
        car.set_command(core_command(placed.act(k * period, *(float(v) for v in s[:6]),
                                                (float(s[OMEGA + 2]), float(s[OMEGA + 3])))))
        car.advance(substeps, period / substeps)
        s = car.state
        rows.append(((k + 1) * period, *s[[X, Y, YAW, VX, VY, YAW_RATE]],
                     math.hypot(s[X], s[Y]) - radius))
    return np.array(rows)


def needs_plan(law: DriftLqr) -> str:
    """
    Return why the law's ramp will not enter its drift ('': it will, auto takes the ramp).

    The ramp is simulated from rolling starts on the circle (RAMP_STARTS of
    the family's start's speed; entry_s and RAMP_CHECK_S more) and must end
    in the drift from each. A gap in the family
    or no grip driving at beta 0 is where it fails, but need not: the LQR
    may carry the car across.
    """
    if all(entered(ramp_run(law, law.design.entry_s + RAMP_CHECK_S, share), law, RAMPED_DEG,
                   RAMPED_SHARE) for share in RAMP_STARTS):
        return ''
    why = 'the ramp from grip driving does not end in the drift (simulated)'
    return f'{why}: {law.entry_note}' if law.entry_note else why


def plan_entry(law: DriftLqr, design_keys: Dict, families: Sequence[str] = None,
               log=None, refined: int = REFINED) -> Entry:
    """
    Return the lowest-cost entry over the car's families; measured says each family's cost.

    Every family's starting bumps are run; Levenberg-Marquardt refines the
    best start of the `refined` families whose starts cost least (the
    others too if none of those enters). Where none enters, the `refined`
    families that came closest are planned again over a window LONGER_WINDOW
    times as long (a slower technique: a car whose drift lies far from its
    grip driving needs more time to cross). log: a callable given a line per
    family (progress).
    """
    designs = [EntryDesign(law, family) for family in families or families_of(law)]
    started = []
    for design in designs:
        start = design.starts()[0]
        f, _, _ = design.evaluate(start)
        started.append((float(f @ f) if f is not None else math.inf, design, start))
    started.sort(key=lambda item: item[0])
    best, results = None, {}
    for rank, (start_cost, design, start) in enumerate(started):
        if rank >= refined and best is not None and best[0][0] is False:
            results[design.family] = {'start_cost': round(start_cost, 3), 'refined': False}
            if log:
                log(f'{design.family}: start cost {start_cost:.2f}, not refined')
            continue
        best = _refined(design, start, start_cost, results, best, log)
    if best[0][0]:                      # none entered: the closest again, more slowly
        closest = sorted((r['cost'], family) for family, r in results.items() if r['refined'])
        for _, family in closest[:refined]:
            window = LONGER_WINDOW * EntryDesign(law, family).rollout.window_s
            longer = EntryDesign(law, family, window_s=window)
            designs.append(longer)
            start = longer.starts()[0]
            f, _, _ = longer.evaluate(start)
            best = _refined(longer, start, float(f @ f) if f is not None else math.inf,
                            results, best, log, f'{family}_over_{window:.1f}_s')
    entry = best[1]
    entry.design = dict(design_keys)
    entry.measured['families'] = results
    entry.measured['runs'] = sum(d.evaluations for d in designs)
    return entry


def _refined(design: EntryDesign, start: np.ndarray, start_cost: float, results: Dict,
             best, log, name: str = '') -> tuple:
    """Refine one family's start; record its result under `name` (its family); return the best."""
    name = name or design.family
    p, cost = design.descend(start, ITERATIONS, 1e-3)
    entry = design.entry(p)
    entry.measured = dict(measure(design, entry), cost=cost, runs=design.evaluations)
    results[name] = {'start_cost': round(start_cost, 3), 'refined': True,
                     'cost': round(cost, 3), 'entered': entry.measured['entered']}
    if log:
        log(f'{name}: cost {start_cost:.2f} -> {cost:.2f}, '
            + ('enters' if entry.measured['entered'] else 'does not enter')
            + f' ({design.evaluations} runs)')
    ranking = (not entry.measured['entered'], cost)
    return (ranking, entry) if best is None or ranking < best[0] else best
