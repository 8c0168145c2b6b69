"""
Reference 000's rally techniques as open-loop driver inputs, each beside a control run. ROS-free.

Reference 000 lists the techniques rally drivers use and says they must
emerge from the physics, with no special-case code. Each one here is a
scripted DriverCommand schedule on a shipped car with a drivetrain, run on
the four-wheel model together with a control run: the same car, the same
corner, the same speed, without the technique. Its signature is the
measured difference the technique is for:

- scandinavian_flick: a larger sideslip at the apex than the same turn-in
  without the flick;
- left_foot_braking: front axle load and yaw rate up against throttle alone
  (the path's curvature too: the brake also slows the car);
- trail_braking: more front lateral force available at turn-in (front
  axle load) than braking in a straight line first;
- handbrake_hairpin: a tighter turn than the same hairpin without it;
- power_oversteer: the sideslip growing with throttle at a fixed steer
  (rear drive);
- lift_off_oversteer: a yaw-rate overshoot when the throttle lifts mid-corner
  against the throttle held (front, rear and all-wheel drive).

A Technique is the plan: its runs' input schedules and how its signature is
read from the runs. `Technique.run()` simulates it here; the scenario of the
same name (`./rally scenario scandinavian_flick`) drives the same schedules
through the ROS simulator (control/laws/technique.py) and reads the same
signature from what the simulator published.
"""

from dataclasses import dataclass, field
import math
from typing import Callable, Dict, List, Tuple

import numpy as np

from ..physics import Surface, Vehicle
from ..physics.config import load_vehicle, VehicleConfig
from ..physics.model import VX, VY, YAW, YAW_RATE
from ..physics.vehicle import Command, DriverCommand
from ..resources import vehicle_path

PERIOD_S = 0.01
"""The inputs' period and the rows' (the physics steps at the car's dt within)."""
ROW = ('t', 'x', 'y', 'yaw', 'speed', 'sideslip', 'yaw_rate', 'front_load', 'front_fy')
Schedule = Callable[[float], DriverCommand]


@dataclass
class Run:
    """One simulated run: its rows (ROW, in the frame of its start pose) and its name."""

    name: str
    rows: np.ndarray

    def column(self, name: str) -> np.ndarray:
        """Return one of ROW's columns."""
        return self.rows[:, ROW.index(name)]

    def at(self, name: str, time_s: float) -> float:
        """Return a column's value at the row nearest time_s."""
        return float(self.column(name)[int(np.argmin(np.abs(self.column('t') - time_s)))])


def start_framed(name: str, t, x, y, yaw, vx, vy, yaw_rate, front_load, front_fy) -> Run:
    """
    Return a Run from columns in any frame, moved into the frame of its first pose.

    The ROS run starts where the stage's path does; its yaw, read from
    quaternions, wraps at pi and is unwrapped here.
    """
    yaw = np.unwrap(np.asarray(yaw, dtype=float))
    c, s = math.cos(yaw[0]), math.sin(yaw[0])
    dx, dy = np.asarray(x, dtype=float) - x[0], np.asarray(y, dtype=float) - y[0]
    vx, vy = np.asarray(vx, dtype=float), np.asarray(vy, dtype=float)
    return Run(name, np.column_stack([
        t, c * dx + s * dy, -s * dx + c * dy, yaw - yaw[0], np.hypot(vx, vy),
        np.arctan2(vy, vx), yaw_rate, front_load, front_fy]))


Judge = Callable[[List[Run]], Tuple[Dict[str, float], bool]]
"""Reads a technique's signature from its runs (in its `runs` order): the figures, emerged."""


@dataclass
class Result:
    """A technique against its control run: the signature, and whether it emerged."""

    technique: str
    vehicle: str
    runs: List[Run]
    signature: Dict[str, float] = field(default_factory=dict)
    emerged: bool = False


@dataclass
class Technique:
    """
    A technique's plan: the car, its start, each run's inputs, and the signature's judge.

    runs: the technique's run first, then its control run(s), by name; each
    a schedule of driver inputs over time from a straight start at speed_m_s.
    """

    name: str
    vehicle: str
    speed_m_s: float
    seconds: float
    runs: Dict[str, Schedule]
    judge: Judge

    def run(self) -> Result:
        """Simulate each run here (ROS-free) and judge them."""
        return self.judged([simulate(self.vehicle, self.speed_m_s, schedule, self.seconds,
                                     name=name) for name, schedule in self.runs.items()])

    def judged(self, runs: List[Run]) -> Result:
        """Return the Result of runs made elsewhere (the scenario's, over ROS)."""
        signature, emerged = self.judge(runs)
        return Result(self.name, self.vehicle, runs, signature, bool(emerged))


def simulate(vehicle: str, speed_m_s: float, schedule: Schedule, seconds: float,
             surface: str = 'gravel', name: str = '') -> Run:
    """Return the rows of a car started straight at speed_m_s and driven by `schedule`."""
    config = load_vehicle(vehicle_path(vehicle))
    car = Vehicle(config, Surface.uniform(surface))
    car.reset(vx=speed_m_s)
    dt = float(config['dt'])
    substeps = max(1, round(PERIOD_S / dt))
    rows = []
    for k in range(int(round(seconds / PERIOD_S))):
        car.set_command(command_of(config, schedule(k * PERIOD_S)))
        car.advance(substeps, PERIOD_S / substeps)
        s, wheels = car.state, car.wheels()
        vx, vy = float(s[VX]), float(s[VY])
        rows.append(((k + 1) * PERIOD_S, float(s[0]), float(s[1]), float(s[YAW]),
                     math.hypot(vx, vy), math.atan2(vy, vx), float(s[YAW_RATE]),
                     float(wheels.normal_load_n[0] + wheels.normal_load_n[1]),
                     float(wheels.force_y_n[0] + wheels.force_y_n[1])))
    return Run(name, np.array(rows))


def command_of(config: VehicleConfig, pedals: DriverCommand):
    """Return a driver's inputs as the car takes them: as they are, or as wheel torques."""
    return pedals if config['drivetrain.layout'] != 'none' else as_torques(config, pedals)


def as_torques(config: VehicleConfig, pedals: DriverCommand) -> Command:
    """
    Return the wheel torques of a driver's pedals on a car without a drivetrain (the arcade's).

    The throttle's share of each wheel's largest drive torque, the brake's of
    each brake's; the handbrake and the steer as they are; the gear unused.
    """
    axles = ('front', 'front', 'rear', 'rear')
    drive = [config[f'drive.max_torque_{axle}_n_m'] for axle in axles]
    brake = [config[f'brakes.max_torque_{axle}_n_m'] for axle in axles]
    return Command(steer_rad=pedals.steer_rad, handbrake=pedals.handbrake,
                   drive_torque_n_m=tuple(pedals.throttle * t for t in drive),
                   brake_torque_n_m=tuple(pedals.brake * t for t in brake))


def ramp(t: float, start_s: float, length_s: float) -> float:
    """Return 0 before start_s, 1 after start_s + length_s, linear between."""
    return min(max((t - start_s) / length_s, 0.0), 1.0)


def scandinavian_flick(vehicle: str = 'rwd_gravel', speed_m_s: float = 14.0,
                       into_deg: float = 8.0, away_deg: float = 8.0,
                       throttle: float = 0.2) -> Technique:
    """Turn in with a flick away first, and without it; the apex's sideslip."""
    turn_s, into = 1.0, math.radians(into_deg)

    def flick(t: float) -> DriverCommand:
        away = -math.radians(away_deg) * (ramp(t, turn_s - 0.6, 0.2) - ramp(t, turn_s - 0.2, 0.2))
        return DriverCommand(steer_rad=away + into * ramp(t, turn_s, 0.25), throttle=throttle)

    def plain(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=into * ramp(t, turn_s, 0.25), throttle=throttle)

    def judge(runs: List[Run]):
        apex = [math.degrees(np.max(np.abs(r.column('sideslip')[r.column('t') > turn_s])))
                for r in runs]
        return {'apex_sideslip_deg': apex[0], 'control_apex_sideslip_deg': apex[1],
                'apex_sideslip_gain_deg': apex[0] - apex[1]}, apex[0] > apex[1]
    return Technique('scandinavian_flick', vehicle, speed_m_s, 3.0,
                     {'flick': flick, 'control': plain}, judge)


def left_foot_braking(vehicle: str = 'fwd_hatchback', speed_m_s: float = 12.0,
                      steer_deg: float = 6.0, throttle: float = 0.3,
                      brake: float = 0.15) -> Technique:
    """Mid-corner, brake lightly with the throttle held, against the throttle alone."""
    steer, press_s = math.radians(steer_deg), 3.0

    def braked(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=steer * ramp(t, 0.5, 0.5), throttle=throttle,
                             brake=brake * ramp(t, press_s, 0.1))

    def plain(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=steer * ramp(t, 0.5, 0.5), throttle=throttle)

    def judge(runs: List[Run]):
        when = press_s + 0.3
        load = [r.at('front_load', when) for r in runs]
        yaw = [abs(r.at('yaw_rate', when)) for r in runs]
        curvature = [y / r.at('speed', when) for y, r in zip(yaw, runs)]
        return {'front_load_n': load[0], 'control_front_load_n': load[1],
                'front_load_gain_n': load[0] - load[1],
                'yaw_rate_rad_s': yaw[0], 'control_yaw_rate_rad_s': yaw[1],
                'yaw_rate_gain_rad_s': yaw[0] - yaw[1],
                'curvature_1_m': curvature[0], 'control_curvature_1_m': curvature[1]
                }, load[0] > load[1] and yaw[0] > yaw[1]
    return Technique('left_foot_braking', vehicle, speed_m_s, 4.0,
                     {'left_foot_braking': braked, 'control': plain}, judge)


def trail_braking(vehicle: str = 'rwd_gravel', speed_m_s: float = 16.0) -> Technique:
    """Turn in while still braking, against braking in a straight line first."""
    turn_s, steer = 1.2, math.radians(10.0)

    def trailed(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=steer * ramp(t, turn_s, 0.3),
                             brake=0.5 * (1.0 - ramp(t, turn_s, 0.6)) * ramp(t, 0.2, 0.1),
                             gear=2)

    def straight(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=steer * ramp(t, turn_s, 0.3),
                             brake=0.5 * ramp(t, 0.2, 0.1) * (t < turn_s - 0.3), gear=2)

    def judge(runs: List[Run]):
        load = [r.at('front_load', turn_s + 0.15) for r in runs]
        return {'front_load_at_turn_in_n': load[0], 'control_front_load_at_turn_in_n': load[1],
                'front_load_gain_at_turn_in_n': load[0] - load[1]}, load[0] > load[1]
    return Technique('trail_braking', vehicle, speed_m_s, 3.0,
                     {'trail_braking': trailed, 'control': straight}, judge)


def handbrake_hairpin(vehicle: str = 'rwd_gravel', speed_m_s: float = 12.0) -> Technique:
    """Take a hairpin on full lock with a handbrake pull at turn-in, and without."""
    lock = load_vehicle(vehicle_path(vehicle))['steering.max_angle_rad']

    def pulled(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=lock * ramp(t, 0.5, 0.3),
                             handbrake=float(0.5 <= t < 1.3), gear=2)

    def plain(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=lock * ramp(t, 0.5, 0.3), gear=2)

    def judge(runs: List[Run]):
        turned = [math.degrees(abs(r.at('yaw', 2.5))) for r in runs]
        return {'heading_change_deg': turned[0], 'control_heading_change_deg': turned[1],
                'heading_change_gain_deg': turned[0] - turned[1]}, turned[0] > turned[1]
    return Technique('handbrake_hairpin', vehicle, speed_m_s, 3.0,
                     {'handbrake': pulled, 'control': plain}, judge)


def power_oversteer(vehicle: str = 'rwd_gravel', speed_m_s: float = 10.0,
                    throttles=(0.15, 0.2, 0.25, 0.3, 0.35)) -> Technique:
    """Hold a fixed steer and each throttle in turn: the sideslip after 2 s of it."""
    steer = math.radians(10.0)

    def held(throttle: float) -> Schedule:
        def schedule(t: float) -> DriverCommand:
            return DriverCommand(steer_rad=steer * ramp(t, 0.3, 0.3),
                                 throttle=0.15 + (throttle - 0.15) * ramp(t, 1.0, 0.3), gear=2)
        return schedule

    def judge(runs: List[Run]):
        sideslip = np.degrees([abs(r.at('sideslip', 3.0)) for r in runs])
        return {**{f'sideslip_deg_at_throttle_{t:g}': float(b)
                   for t, b in zip(throttles, sideslip)},
                'sideslip_rise_least_deg': float(np.min(np.diff(sideslip)))
                }, bool(np.all(np.diff(sideslip) > 0.0))
    return Technique('power_oversteer', vehicle, speed_m_s, 3.0,
                     {f'throttle_{t:g}': held(t) for t in throttles}, judge)


def lift_off_oversteer(vehicle: str = 'fwd_hatchback', speed_m_s: float = 13.0,
                       steer_deg: float = 6.0, throttle: float = 0.3) -> Technique:
    """Mid-corner on part throttle, the throttle lifted, against the throttle held."""
    steer, lift_s = math.radians(steer_deg), 3.0

    def lifted(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=steer * ramp(t, 0.5, 0.5),
                             throttle=throttle * (1.0 - ramp(t, lift_s, 0.05)))

    def held(t: float) -> DriverCommand:
        return DriverCommand(steer_rad=steer * ramp(t, 0.5, 0.5), throttle=throttle)

    def judge(runs: List[Run]):
        peak = [float(np.max(np.abs(r.column('yaw_rate')[r.column('t') > lift_s])))
                for r in runs]
        return {'peak_yaw_rate_rad_s': peak[0], 'control_peak_yaw_rate_rad_s': peak[1],
                'overshoot_share': peak[0] / peak[1] - 1.0}, peak[0] > peak[1]
    return Technique('lift_off_oversteer', vehicle, speed_m_s, 4.5,
                     {'lift_off': lifted, 'control': held}, judge)


MARGINS = {'scandinavian_flick': 'apex_sideslip_gain_deg',
           'left_foot_braking': 'front_load_gain_n',
           'trail_braking': 'front_load_gain_at_turn_in_n',
           'handbrake_hairpin': 'heading_change_gain_deg',
           'power_oversteer': 'sideslip_rise_least_deg', 'lift_off_oversteer': 'overshoot_share'}
"""Each technique's margin: the signature's figure against its control run (> 0: it shows)."""
TECHNIQUES: Dict[str, Callable[..., Technique]] = {
    'scandinavian_flick': scandinavian_flick, 'left_foot_braking': left_foot_braking,
    'trail_braking': trail_braking, 'handbrake_hairpin': handbrake_hairpin,
    'power_oversteer': power_oversteer, 'lift_off_oversteer': lift_off_oversteer}
"""Each technique's plan, by name, on its default car (or the vehicle given)."""
