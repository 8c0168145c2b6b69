"""
Drivetrain equations of reference 003 (engine, gears, differential) with reference 000's layouts.

Small compiled functions, each one equation or one coupling, for the
vehicle step to call (issue 9: they are not wired into the vehicle yet).

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
  stick/slip, as the brakes do). A coupling never adds energy.
"""

import math

import numpy as np

from .jit import njit

RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)


@njit
def curve_torque(rpm: float, curve_rpm: np.ndarray, curve_n_m: np.ndarray) -> float:
    """Return the torque curve's maximum torque at rpm (linear; the end values beyond it)."""
    last = len(curve_rpm) - 1
    if rpm <= curve_rpm[0]:
        return curve_n_m[0]
    if rpm >= curve_rpm[last]:
        return curve_n_m[last]
    k = 0
    while curve_rpm[k + 1] < rpm:
        k += 1
    share = (rpm - curve_rpm[k]) / (curve_rpm[k + 1] - curve_rpm[k])
    return curve_n_m[k] + share * (curve_n_m[k + 1] - curve_n_m[k])


@njit
def engine_torque(omega_rad_s: float, throttle: float, curve_rpm: np.ndarray,
                  curve_n_m: np.ndarray, idle_rpm: float, limit_rpm: float,
                  braking_n_m: float) -> float:
    """
    Return the engine's crankshaft torque [N m] at a speed and throttle (0..1).

    throttle x curve, less (1 - throttle) x braking_n_m x rpm / limit_rpm
    (engine braking); 0 drive at or above the limiter; below idle at least
    the torque that brings it back (full torque at standstill, none at idle).
    """
    rpm = omega_rad_s * RPM_PER_RAD_S
    full = curve_torque(rpm, curve_rpm, curve_n_m)
    drive = 0.0 if rpm >= limit_rpm else throttle * full
    torque = drive - (1.0 - throttle) * braking_n_m * max(rpm, 0.0) / limit_rpm
    if rpm < idle_rpm:
        torque = max(torque, full * (idle_rpm - max(rpm, 0.0)) / idle_rpm)
    return torque


@njit
def overall_ratio(gear: int, ratios: np.ndarray, reverse: float, final: float) -> float:
    """Return engine turns per driven-axle turn in `gear` (-1 reverse, 0 neutral, 1..N)."""
    if gear == 0:
        return 0.0
    if gear < 0:
        return -reverse * final
    return ratios[gear - 1] * final


@njit
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


OPEN, LOCKED, CLUTCH_PACK, TORQUE_BIAS = 0, 1, 2, 3
DIFFERENTIALS = {'open': OPEN, 'locked': LOCKED, 'clutch_pack': CLUTCH_PACK,
                 'torque_bias': TORQUE_BIAS}
"""Differential types a vehicle file may name."""


@njit
def differential_capacity(kind: int, input_n_m: float, preload_n_m: float,
                          lock_factor: float, bias_ratio: float) -> float:
    """
    Return the largest torque a differential moves from its faster output to its slower.

    open: none (equal torques); locked: unlimited; clutch_pack: preload +
    lock_factor x |input|; torque_bias (bias ratio TBR): |input| / 2 x
    (TBR - 1) / (TBR + 1), so that the outputs' torques differ by at most TBR.
    """
    if kind == OPEN:
        return 0.0
    if kind == LOCKED:
        return math.inf
    if kind == CLUTCH_PACK:
        return preload_n_m + lock_factor * abs(input_n_m)
    return 0.5 * abs(input_n_m) * (bias_ratio - 1.0) / (bias_ratio + 1.0)


@njit
def split(input_n_m: float, omega_a: float, omega_b: float, inertia_a: float,
          inertia_b: float, kind: int, preload_n_m: float, lock_factor: float,
          bias_ratio: float, h: float) -> tuple:
    """
    Return the torques of a differential's two outputs (a, b) from its input torque.

    Half each, plus the transfer that holds the outputs at one speed after
    h, within the differential's capacity. omega_* are the outputs' speeds
    as they would be after h without the transfer (their tyres, brakes
    and half the input torque already counted).
    """
    half = 0.5 * input_n_m
    capacity = differential_capacity(kind, input_n_m, preload_n_m, lock_factor, bias_ratio)
    if capacity <= 0.0:
        return half, half
    transfer = coupling_torque(omega_a, omega_b, inertia_a, inertia_b, 1.0, capacity, h)
    return half - transfer, half + transfer
