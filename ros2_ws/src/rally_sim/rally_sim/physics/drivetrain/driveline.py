"""
The drivetrain inside the vehicle's sub-step: gearbox, engine, clutch, differentials.

In driver mode (command C_DRIVER = 1) a car with a drivetrain gets its wheels'
drive torques from here, once per sub-step, before the integrator's update:

1. The gearbox shifts: automatically up at shift_up_rpm and down at
   shift_down_rpm of its input shaft (turned by the wheels), or to the gear
   requested. A shift opens the clutch and cuts the throttle for shift_time_s.
2. The engine's torque (drivetrain.engine_torque) gives its speed after the
   sub-step on its own; the tyres' f(z), evaluated without drive torque,
   each wheel's. A wheel's inertia over the sub-step is I_w times the
   implicit scheme's diagonal 1 - h J_ii: a wheel gripping the road turns
   the car, so it is heavier to spin up than in the air.
3. The clutch (capacity: max_torque x engagement, which rises from 0 at idle
   to 1 half way to shift_down_rpm, so a standing start slips instead of
   stalling) and the differentials (drivetrain.differential_capacity) are
   couplings. A few Gauss-Seidel passes over their impulses, each
   accumulated impulse kept within its capacity x h, end the sub-step with
   the locked couplings at one speed and the slipping ones at capacity.
   Power through the gears loses (1 - efficiency): wheels get efficiency x
   ratio x the clutch torque when the engine drives them, ratio / efficiency
   when they drive the engine (engine braking), so no energy appears.
4. The impulses become the drive torques of the sub-step (wheel[W_DRIVE],
   added to f(z)) and the engine's new speed (state[ENGINE]).
"""

import math

import numpy as np

from .equations import (
    AUTOMATIC, AWD, coupling_torque, D_CLUTCH, D_COUPLED, D_DIFFERENTIAL, D_EFFICIENCY,
    D_ENGAGEMENT, D_GEARS, D_IDLE_RPM, D_INERTIA, D_LAYOUT, D_SHIFT_DOWN_RPM, D_SHIFT_TIME,
    D_SHIFT_UP_RPM, D_WEIGHTS, differential_capacity, DIFFERENTIAL_SIZE, engine_torque, FWD,
    OPEN, overall_ratio, RPM_PER_RAD_S, RWD)
from ..jit import njit, njit_inline
from ..model import (
    C_GEAR, C_THROTTLE, E_CLUTCH_SLIP, E_CLUTCH_TORQUE, E_THROTTLE, E_TORQUE, ENGINE, GEAR,
    OMEGA, P_DRIVETRAIN, SHIFT_LEFT, W_DRIVE, W_ENGINE, W_INVERSE, W_SPIN,
    W_TRANSFER)

PASSES = 12
"""Gauss-Seidel passes over the couplings per sub-step."""


@njit_inline
def axle_weights(p: np.ndarray, i: int) -> float:
    """Return wheel i's share of the gearbox's output torque (its speed's weight in the input)."""
    return p[P_DRIVETRAIN + D_WEIGHTS + i]


@njit_inline
def input_speed(state: np.ndarray, p: np.ndarray) -> float:
    """Return the differentials' input speed [rad/s]: the driven wheels' weighted mean."""
    speed = 0.0
    for i in range(4):
        speed += axle_weights(p, i) * state[OMEGA + i]
    return speed


@njit_inline
def gear_ratio(gear: float, p: np.ndarray) -> float:
    """Return the engine's turns per turn of the differentials' input in `gear`."""
    return overall_ratio(int(gear), p, P_DRIVETRAIN)


@njit_inline
def shift(state: np.ndarray, command: np.ndarray, p: np.ndarray, h: float) -> None:
    """Count down a shift under way; start one to the requested or the automatic gear."""
    d = P_DRIVETRAIN
    state[SHIFT_LEFT] = max(state[SHIFT_LEFT] - h, 0.0)
    gear = state[GEAR]
    target = command[C_GEAR]
    if target == AUTOMATIC:
        target = _automatic_gear(state, p) if state[SHIFT_LEFT] == 0.0 else gear
    if target != gear:
        state[GEAR] = target
        state[SHIFT_LEFT] = p[d + D_SHIFT_TIME]


@njit_inline
def _automatic_gear(state: np.ndarray, p: np.ndarray) -> float:
    """Return the gear an automatic gearbox wants at the present input speed."""
    d = P_DRIVETRAIN
    gear = state[GEAR]
    if gear < 1.0:
        return 1.0
    turning = input_speed(state, p) * RPM_PER_RAD_S
    rpm = gear_ratio(gear, p) * turning
    if rpm > p[d + D_SHIFT_UP_RPM] and gear < p[d + D_GEARS]:
        return gear + 1.0
    if (rpm < p[d + D_SHIFT_DOWN_RPM] and gear > 1.0
            and gear_ratio(gear - 1.0, p) * turning < p[d + D_SHIFT_UP_RPM]):
        return gear - 1.0
    return gear


@njit_inline
def clutch_capacity(state: np.ndarray, p: np.ndarray) -> float:
    """Return the torque the clutch holds now [N m]: 0 while shifting, less near idle."""
    d = P_DRIVETRAIN
    if state[SHIFT_LEFT] > 0.0 or state[GEAR] == 0.0:
        return 0.0
    engagement = (state[ENGINE] * RPM_PER_RAD_S - p[d + D_IDLE_RPM]) * p[d + D_ENGAGEMENT]
    return p[d + D_CLUTCH] * min(max(engagement, 0.0), 1.0)


@njit
def drive(state: np.ndarray, command: np.ndarray, p: np.ndarray, h: float,
          wheel: np.ndarray) -> None:
    """
    Set the drive torques of one sub-step of h and advance the engine and gearbox.

    Reads wheel[W_SPIN], each wheel's speed after h without drive torque,
    and wheel[W_INVERSE], 1 / its inertia over h (I_w times the implicit
    scheme's 1 - h J_ii); writes wheel[W_DRIVE] and wheel[W_ENGINE] and
    moves state[ENGINE], state[GEAR] and state[SHIFT_LEFT].
    """
    d = P_DRIVETRAIN
    shift(state, command, p, h)
    throttle = command[C_THROTTLE] if state[SHIFT_LEFT] == 0.0 else 0.0
    torque = engine_torque(state[ENGINE], throttle, p, d)
    engine_inertia = p[d + D_INERTIA]
    per_inertia = 1.0 / engine_inertia
    engine = state[ENGINE] + h * torque * per_inertia
    for i in range(4):
        wheel[W_DRIVE, i] = 0.0                       # impulses on each wheel [N m s]
    ratio = gear_ratio(state[GEAR], p)
    capacity = clutch_capacity(state, p) * h
    clutch = _solve_couplings(engine, per_inertia, ratio, capacity, p, h, wheel)
    engine -= clutch * per_inertia
    per_second = 1.0 / h
    for i in range(4):
        wheel[W_DRIVE, i] *= per_second
    state[ENGINE] = max(engine, 0.0)
    wheel[W_ENGINE, E_TORQUE] = torque
    wheel[W_ENGINE, E_CLUTCH_TORQUE] = clutch / h
    wheel[W_ENGINE, E_CLUTCH_SLIP] = state[ENGINE] - ratio * _weighted_spin(p, wheel)
    wheel[W_ENGINE, E_THROTTLE] = throttle


@njit_inline
def _weighted_spin(p: np.ndarray, wheel: np.ndarray) -> float:
    """Return the differentials' input speed from the solve's wheel speeds (W_SPIN)."""
    speed = 0.0
    for i in range(4):
        speed += axle_weights(p, i) * wheel[W_SPIN, i]
    return speed


@njit_inline
def _solve_couplings(engine: float, per_inertia: float, ratio: float, capacity: float,
                     p: np.ndarray, h: float, wheel: np.ndarray) -> float:
    """
    Apply the clutch's and differentials' impulses to wheel[W_SPIN]; return the clutch's.

    per_inertia: 1 / the engine's inertia. The clutch impulse (engine
    side, N m s) is accumulated within capacity
    (N m s), in the direction the engine turns the wheels or they it; each
    axle differential's transfer (wheel[W_TRANSFER]) within its capacity
    for the clutch torque of the moment; a locked centre one unlimited.
    """
    d = P_DRIVETRAIN
    gain, low, high = 0.0, 0.0, 0.0    # wheel-side per engine-side torque; impulse range
    if capacity > 0.0 and ratio != 0.0:
        if engine > ratio * _weighted_spin(p, wheel):       # the engine drives the wheels
            gain, high = ratio * p[d + D_EFFICIENCY], capacity
        else:                                               # the wheels drive the engine
            gain, low = ratio / p[d + D_EFFICIENCY], -capacity
    compliance = 0.0
    for i in range(4):
        compliance += axle_weights(p, i) ** 2 * wheel[W_INVERSE, i]
    clutch = 0.0
    wheel[W_TRANSFER, 0] = wheel[W_TRANSFER, 1] = 0.0
    layout = p[d + D_LAYOUT]
    passes = PASSES if p[d + D_COUPLED] else 1    # the clutch alone (open differentials):
    #                                                 exact in one pass
    # The impulse P that ends the step at engine = ratio x input: the engine loses P / I_e,
    # the input gains ratio x gain x compliance x P (coupling_torque's equation, one division).
    per_impulse = 1.0 / (per_inertia + ratio * gain * compliance) if gain != 0.0 else 0.0
    for _ in range(passes):
        if gain != 0.0:
            slip = engine - clutch * per_inertia - ratio * _weighted_spin(p, wheel)
            new = min(max(clutch + slip * per_impulse, low), high)
            for i in range(4):
                _push(wheel, i, gain * axle_weights(p, i) * (new - clutch))
            clutch = new
        if passes == 1:
            break
        axle_torque = abs(gain * clutch) / h        # into the differentials
        if layout != RWD:
            _axle(0, axle_torque * _share(p, 0), p, h, wheel)
        if layout != FWD:
            _axle(1, axle_torque * _share(p, 1), p, h, wheel)
        if layout == AWD:
            _centre(p, h, wheel)
    return clutch


@njit_inline
def _push(wheel: np.ndarray, i: int, impulse: float) -> None:
    """Give wheel i an impulse [N m s]: its speed in the solve, its drive torque's sum."""
    wheel[W_SPIN, i] += impulse * wheel[W_INVERSE, i]
    wheel[W_DRIVE, i] += impulse


@njit_inline
def _share(p: np.ndarray, axle: int) -> float:
    """Return the share of the differentials' input torque that axle (0 front, 1 rear) gets."""
    return axle_weights(p, 2 * axle) * 2.0


@njit_inline
def _axle(axle: int, input_n_m: float, p: np.ndarray, h: float, wheel: np.ndarray) -> None:
    """One pass of an axle differential: move torque from its faster wheel to its slower."""
    axle_coupling(P_DRIVETRAIN + D_DIFFERENTIAL + axle * DIFFERENTIAL_SIZE, axle, input_n_m, p,
                  h, wheel)


@njit_inline
def axle_coupling(base: int, axle: int, input_n_m: float, p: np.ndarray, h: float,
                  wheel: np.ndarray) -> None:
    """
    One pass of the differential at p[base:] (type, preload, lock factor, bias ratio) on axle.

    Moves torque from the axle's faster wheel to its slower, its impulse
    accumulated in wheel[W_TRANSFER, axle] within the capacity for input_n_m.
    """
    kind = int(p[base])
    if kind == OPEN:
        return
    limit = h * differential_capacity(kind, input_n_m, p[base + 1], p[base + 2], p[base + 3])
    a, b = 2 * axle, 2 * axle + 1
    inv_a, inv_b = wheel[W_INVERSE, a], wheel[W_INVERSE, b]
    step = h * coupling_torque(wheel[W_SPIN, a], wheel[W_SPIN, b], 1.0 / inv_a, 1.0 / inv_b,
                               1.0, math.inf, h)
    new = min(max(wheel[W_TRANSFER, axle] + step, -limit), limit)
    change = new - wheel[W_TRANSFER, axle]
    wheel[W_TRANSFER, axle] = new
    _push(wheel, a, -change)
    _push(wheel, b, change)


@njit_inline
def _centre(p: np.ndarray, h: float, wheel: np.ndarray) -> None:
    """One pass of a locked centre differential: the axles' mean speeds made equal."""
    kind = int(p[P_DRIVETRAIN + D_DIFFERENTIAL + 2 * DIFFERENTIAL_SIZE])
    if kind == OPEN:
        return
    front_inv = 0.25 * (wheel[W_INVERSE, 0] + wheel[W_INVERSE, 1])
    rear_inv = 0.25 * (wheel[W_INVERSE, 2] + wheel[W_INVERSE, 3])
    front = 0.5 * (wheel[W_SPIN, 0] + wheel[W_SPIN, 1])
    rear = 0.5 * (wheel[W_SPIN, 2] + wheel[W_SPIN, 3])
    change = h * coupling_torque(front, rear, 1.0 / front_inv, 1.0 / rear_inv, 1.0, math.inf,
                                 h)
    for i in range(4):
        sign = -0.5 if i < 2 else 0.5
        _push(wheel, i, sign * change)
