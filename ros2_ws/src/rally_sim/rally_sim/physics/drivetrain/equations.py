"""
Drivetrain equations of reference 003 (engine, gears, differential) with reference 000's layouts.

Small compiled functions, each one equation or one coupling, and the
drivetrain's block of the kernel parameters.

- Engine: the torque curve (rpm, maximum torque) interpolated linearly,
  scaled by the throttle; engine braking at closed throttle, growing with
  rpm; no drive torque at or above the rev limiter; below idle the engine
  holds idle with up to its full torque (an idle governor).
- Gears: the engine turns `ratio x final drive` times faster than the
  driven axle (reference 003: rpm = wheel rate x gear x differential x
  60 / 2 pi); drive torque at the wheels is engine torque x ratio x final
  drive x efficiency.
- Couplings (clutch, locked and limited-slip differentials): two spinning
  bodies joined through a ratio, held at equal speed by the torque that
  makes them equal at the end of the sub-step, as long as that torque is
  within the coupling's capacity, else slipping at the capacity (a Coulomb
  stick/slip, as the brakes do). A coupling never adds energy. The vehicle's
  sub-step solves them together (driveline.py).
- Torque mode (torque_mode.py): the commanded wheel torques through an
  electric motor's power and speed limits and each axle's differential,
  with no engine or gearbox.
"""

import math

import numpy as np

from ..jit import njit_inline

RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)


# The drivetrain's block of the flat kernel parameters (model.P_DRIVETRAIN onward).
(D_LAYOUT, D_IDLE_RPM, D_LIMIT_RPM, D_INERTIA, D_BRAKING, D_REVERSE, D_FINAL, D_EFFICIENCY,
 D_SHIFT_UP_RPM, D_SHIFT_DOWN_RPM, D_SHIFT_TIME, D_CLUTCH, D_CENTRE_SHARE, D_GEARS,
 D_CURVE_POINTS) = range(15)
D_DIFFERENTIAL = 15
"""Front, rear and centre differentials, DIFFERENTIAL_SIZE entries each (type, preload,
lock factor, bias ratio)."""
DIFFERENTIAL_SIZE = 4
MAX_GEARS = 12
MAX_CURVE_POINTS = 64
D_WEIGHTS = D_DIFFERENTIAL + 3 * DIFFERENTIAL_SIZE
"""Each wheel's share of the gearbox's output torque (4 entries; its speed's weight in
the differentials' input speed), from the layout and the centre's front share."""
D_COUPLED = D_WEIGHTS + 4
"""1 if a driven differential is other than open (its outputs coupled), else 0."""
D_ENGAGEMENT = D_COUPLED + 1
"""The clutch's engagement per rpm above idle: full half way from idle to shift_down_rpm."""
D_RATIOS = D_ENGAGEMENT + 1
D_CURVE_RPM = D_RATIOS + MAX_GEARS
D_CURVE_N_M = D_CURVE_RPM + MAX_CURVE_POINTS
D_TORQUE_MODE = D_CURVE_N_M + MAX_CURVE_POINTS
"""Torque mode's drive (torque_mode.py), TORQUE_MODE_SIZE entries: 1 if it does more than
pass the commanded torques on; the front and the rear axle's differential
(DIFFERENTIAL_SIZE entries each: INDEPENDENT or a type, preload, lock factor, bias
ratio); the motor's largest power [W] and wheel speed [rad/s] (0: none)."""
T_ACTIVE, T_FRONT, T_REAR = 0, 1, 1 + DIFFERENTIAL_SIZE
T_POWER = T_REAR + DIFFERENTIAL_SIZE
T_SPEED = T_POWER + 1
TORQUE_MODE_SIZE = T_SPEED + 1
DRIVETRAIN_SIZE = D_TORQUE_MODE + TORQUE_MODE_SIZE
NO_DRIVETRAIN, FWD, RWD, AWD = 0, 1, 2, 3
LAYOUT_CODES = {'none': NO_DRIVETRAIN, 'fwd': FWD, 'rwd': RWD, 'awd': AWD}


@njit_inline
def curve_torque(rpm: float, p: np.ndarray, d: int) -> float:
    """
    Return the torque curve's maximum torque at rpm (linear; the end values beyond it).

    p[d:] is a drivetrain block (layout D_*): the kernel parameters with
    d = model.P_DRIVETRAIN, or drivetrain_block()'s array with d = 0.
    """
    last = int(p[d + D_CURVE_POINTS]) - 1
    at_rpm, at_n_m = d + D_CURVE_RPM, d + D_CURVE_N_M
    if rpm <= p[at_rpm]:
        return p[at_n_m]
    if rpm >= p[at_rpm + last]:
        return p[at_n_m + last]
    k = 0
    while p[at_rpm + k + 1] < rpm:
        k += 1
    share = (rpm - p[at_rpm + k]) / (p[at_rpm + k + 1] - p[at_rpm + k])
    return p[at_n_m + k] + share * (p[at_n_m + k + 1] - p[at_n_m + k])


@njit_inline
def engine_torque(omega_rad_s: float, throttle: float, p: np.ndarray, d: int) -> float:
    """
    Return the engine's crankshaft torque [N m] at a speed and throttle (0..1).

    throttle x curve, less (1 - throttle) x braking x rpm / limit rpm
    (engine braking); 0 drive at or above the limiter; below idle at least
    the torque that brings it back (full torque at standstill, none at idle).
    The engine is the drivetrain block's at p[d:].
    """
    rpm = omega_rad_s * RPM_PER_RAD_S
    full = curve_torque(rpm, p, d)
    idle, limit = p[d + D_IDLE_RPM], p[d + D_LIMIT_RPM]
    drive = 0.0 if rpm >= limit else throttle * full
    torque = drive - (1.0 - throttle) * p[d + D_BRAKING] * max(rpm, 0.0) / limit
    if rpm < idle:
        torque = max(torque, full * (idle - max(rpm, 0.0)) / idle)
    return torque


@njit_inline
def overall_ratio(gear: int, p: np.ndarray, d: int) -> float:
    """Return engine turns per driven-axle turn in `gear` (-1 reverse, 0 neutral, 1..N)."""
    if gear == 0:
        return 0.0
    if gear < 0:
        return -p[d + D_REVERSE] * p[d + D_FINAL]
    return p[d + D_RATIOS + gear - 1] * p[d + D_FINAL]


@njit_inline
def coupling_torque(omega_a: float, omega_b: float, inertia_a: float, inertia_b: float,
                    ratio: float, capacity_n_m: float, h: float) -> float:
    """
    Return the torque T on body a's side that holds omega_a = ratio x omega_b after h.

    Body a gets -T, body b gets +ratio x T (a gear passes T x ratio), so
    T = (omega_a - ratio omega_b) / (h (1 / I_a + ratio^2 / I_b)), limited
    to +-capacity_n_m (beyond it the coupling slips at its capacity).
    """
    compliance = h * (1.0 / inertia_a + ratio * ratio / inertia_b)
    torque = (omega_a - ratio * omega_b) / compliance
    return min(max(torque, -capacity_n_m), capacity_n_m)


AUTOMATIC = -2.0
"""The gear request (command C_GEAR) that lets the gearbox choose."""

OPEN, LOCKED, CLUTCH_PACK, TORQUE_BIAS = 0, 1, 2, 3
DIFFERENTIALS = {'open': OPEN, 'locked': LOCKED, 'clutch_pack': CLUTCH_PACK,
                 'torque_bias': TORQUE_BIAS}
"""Differential types a vehicle file may name."""
INDEPENDENT = -1
TORQUE_MODE_DIFFERENTIALS = {'independent': INDEPENDENT, **DIFFERENTIALS}
"""Torque mode's axle couplings: independent (each wheel its own commanded torque, as
wheel motors drive) or a differential that takes the axle's summed torque."""


@njit_inline
def differential_capacity(kind: int, input_n_m: float, preload_n_m: float,
                          lock_factor: float, bias_ratio: float) -> float:
    """
    Return the largest torque a differential moves from its faster output to its slower.

    The outputs get half the input each, the slower one plus the transfer
    and the faster one less it. open: none (equal torques); locked:
    unlimited; clutch_pack: (preload + lock_factor x |input|) / 2, so that
    the outputs' torques differ by at most preload + lock_factor x |input|;
    torque_bias (bias ratio TBR): |input| / 2 x (TBR - 1) / (TBR + 1), so
    that one output's torque is at most TBR times the other's.
    """
    if kind == OPEN:
        return 0.0
    if kind == LOCKED:
        return math.inf
    if kind == CLUTCH_PACK:
        return 0.5 * (preload_n_m + lock_factor * abs(input_n_m))
    return 0.5 * abs(input_n_m) * (bias_ratio - 1.0) / (bias_ratio + 1.0)


def drivetrain_block(values) -> np.ndarray:
    """Return the drivetrain's kernel parameters from vehicle-file values (zeros: none)."""
    block = np.zeros(DRIVETRAIN_SIZE)
    block[D_TORQUE_MODE:] = torque_mode_block(values)
    layout = values['drivetrain.layout']
    block[D_LAYOUT] = LAYOUT_CODES[layout]
    if layout == 'none':
        return block
    scalars = {D_IDLE_RPM: 'engine.idle_rpm', D_LIMIT_RPM: 'engine.limit_rpm',
               D_INERTIA: 'engine.inertia_kg_m2', D_BRAKING: 'engine.braking_n_m',
               D_REVERSE: 'gearbox.reverse_ratio', D_FINAL: 'gearbox.final_drive',
               D_EFFICIENCY: 'gearbox.efficiency', D_SHIFT_UP_RPM: 'gearbox.shift_up_rpm',
               D_SHIFT_DOWN_RPM: 'gearbox.shift_down_rpm', D_SHIFT_TIME: 'gearbox.shift_time_s',
               D_CLUTCH: 'clutch.max_torque_n_m',
               D_CENTRE_SHARE: 'differential.centre.front_share'}
    for index, key in scalars.items():
        block[index] = values[key]
    for k, place in enumerate(('front', 'rear', 'centre')):
        base = D_DIFFERENTIAL + k * DIFFERENTIAL_SIZE
        block[base] = DIFFERENTIALS[values[f'differential.{place}.type']]
        if place != 'centre':
            block[base + 1] = values[f'differential.{place}.preload_n_m']
            block[base + 2] = values[f'differential.{place}.lock_factor']
            block[base + 3] = values[f'differential.{place}.bias_ratio']
    share = {'fwd': 1.0, 'rwd': 0.0, 'awd': values['differential.centre.front_share']}[layout]
    block[D_WEIGHTS:D_WEIGHTS + 4] = [0.5 * share] * 2 + [0.5 * (1.0 - share)] * 2
    driven = {'fwd': ('front',), 'rwd': ('rear',), 'awd': ('front', 'rear', 'centre')}[layout]
    block[D_COUPLED] = any(values[f'differential.{place}.type'] != 'open' for place in driven)
    block[D_ENGAGEMENT] = 2.0 / (values['gearbox.shift_down_rpm'] - values['engine.idle_rpm'])
    ratios = values['gearbox.ratios']
    block[D_GEARS] = len(ratios)
    block[D_RATIOS:D_RATIOS + len(ratios)] = ratios
    rpm, torque = values['engine.torque_curve_rpm'], values['engine.torque_curve_n_m']
    block[D_CURVE_POINTS] = len(rpm)
    block[D_CURVE_RPM:D_CURVE_RPM + len(rpm)] = rpm
    block[D_CURVE_N_M:D_CURVE_N_M + len(torque)] = torque
    return block


def torque_mode_block(values) -> np.ndarray:
    """Return torque mode's part of the drivetrain block (D_TORQUE_MODE's; 0s: inactive)."""
    block = np.zeros(TORQUE_MODE_SIZE)
    for base, place in ((T_FRONT, 'front'), (T_REAR, 'rear')):
        key = f'torque_mode.differential.{place}'
        block[base] = TORQUE_MODE_DIFFERENTIALS[values[f'{key}.type']]
        block[base + 1] = values[f'{key}.preload_n_m']
        block[base + 2] = values[f'{key}.lock_factor']
        block[base + 3] = values[f'{key}.bias_ratio']
    block[T_POWER] = values['torque_mode.max_power_w']
    block[T_SPEED] = values['torque_mode.max_wheel_speed_rad_s']
    if (block[T_FRONT] == INDEPENDENT and block[T_REAR] == INDEPENDENT
            and block[T_POWER] == 0.0 and block[T_SPEED] == 0.0):
        return np.zeros(TORQUE_MODE_SIZE)        # inactive: the kernels do not read it
    block[T_ACTIVE] = 1.0
    return block
