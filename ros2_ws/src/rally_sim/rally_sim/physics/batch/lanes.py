"""
Batch rollouts in document numerics with the cars in vector lanes (AVX2: four at once).

rollout_lanes runs cars on document 002's tyres, rollout_lanes_mf cars on
.tir tyres (Magic Formula: lane_tyres.py, with the single car's load
settling at the start and its loads carried from step to step); either
with tyre relaxation (the single car's blend before a sub-step, relax after
it: _blend, _relax).

The single car's kernel steps one car at a time: each tyre calls the C
library's atan and sin, one value per call. For many cars in document 002's
numerics (explicit Euler, its slips and load iteration, no steering lag or
Ackermann, ground flat with one grip) the same arithmetic runs here stage by
stage over blocks of LANES cars, each stage a loop over the lanes with no
calls and no branches (selects), which the compiler turns into vector
instructions, with lane_math's atan, sin and cos. Every other operation is
the single car's, in its order: with the C library's functions in their
place a car is Vehicle.run's to the bit (test_lanes). With lane_math's (a
few ulp from the C library's) cars follow Vehicle.run as closely as the
scheme keeps rounding differences small: 1e-12 relative over 0.2 s of
document 002's U-turn, 1e-9 after 7 s (its stiff wheel spin), no bound once
a spin-out amplifies them.

A block's numbers live in one flat work array, row r of lane k at
r * LANES + k: constant offsets that tell the compiler the rows never overlap.
"""

import math

import numpy as np

from . import lane_tyres
from .lane_math import lane_atan, lane_sin, lane_sincos
from .lane_tyres import (
    C_MIRROR, FLAG_SIZE, SLOTS, V_FX, V_FY, V_FZ, V_KAPPA, V_LOAD, V_RELAX_X, V_RELAX_Y,
    V_SPEED, V_SY)
from ..jit import njit_inline, njit_parallel, prange
from ..load_transfer import DOCUMENT_TOLERANCE_N, load_formula, wheel_loads_into
from ..model import (
    MF_COLD_PASSES, MF_LOAD_TOLERANCE, MF_SHORTEST_RELAXATION_M, MF_SLOWEST_M_S, OMEGA, P_B,
    P_C, P_CG_HEIGHT, P_D, P_DRAG, P_GRAVITY, P_HALF_TRACK, P_LF, P_LOAD_ITERATIONS,
    P_LOW_SPEED, P_LR, P_MASS, P_RADIUS, P_RELAX, P_ROLLING, P_STEER_RATE, P_WHEEL_INERTIA,
    P_YAW_INERTIA, STATE_SIZE, STEER, VX, X, Y, YAW)
from ..tyre import DOCUMENT_EPS

LANES = 8
"""Cars per block, two AVX2 vectors (measured faster than 4, 16 or 32); a block's work array
(8.1 kB) stays in the L1 cache."""

# Work rows. State: pose, velocities, wheel spins, steer (model.X ... STEER).
R_X, R_Y, R_YAW, R_VX, R_VY, R_R = X, Y, YAW, VX, VX + 1, VX + 2
R_OMEGA, R_STEER = OMEGA, STEER
# Per-car parameters.
(R_MASS, R_YAW_INERTIA, R_INERTIA, R_RADIUS, R_LF, R_LR, R_TRACK, R_DRAG, R_ROLLING,
 R_STEER_RATE, R_ITERATIONS, R_BASE_FRONT, R_BASE_REAR, R_GX, R_GY) = range(11, 26)
R_B, R_C, R_D, R_MU = 26, 30, 34, 38          # four wheels each
# This row's command: steer target, rate limit, drive and brake torques.
R_TARGET, R_RATE, R_DRIVE, R_BRAKE = 42, 43, 44, 48
# Work: front steer cos/sin, heading cos/sin, tyre forces per newton, loads.
R_COS, R_SIN, R_COS_YAW, R_SIN_YAW = 52, 53, 54, 55
R_UNIT_X, R_UNIT_Y, R_AX, R_AY, R_LOAD = 56, 60, 64, 68, 72
R_CONVERGED, R_BAD = 76, 77
R_SLIP_X, R_SLIP_Y, R_SLIP, R_ARGUMENT, R_MAGNITUDE = 78, 82, 86, 90, 94
# The tyres' forward speeds, and relaxation (model.relaxation_blend): the relaxed slips, the
# share of them a sub-step keeps, the lengths; low_speed_m_s (one row).
R_SPEED, R_RELAXED_X, R_RELAXED_Y, R_KEEP_X, R_KEEP_Y = 98, 102, 106, 110, 114
R_SIGMA_X, R_SIGMA_Y, R_LOW_SPEED = 118, 122, 126
ROWS = 127
# R_SLIP_X, R_SLIP_Y hold the slips the tyre model takes (relaxed, with relaxation): the
# document's, or a Magic Formula's slip ratio and tan of the slip angle. Magic Formula
# tyres (rollout_lanes_mf): R_START the loads a pass of the load solve started from,
# R_LIFTED (one row) 1 in a lane that pass lifts a wheel in (rows of the document's tyre).
R_START, R_LIFTED = R_ARGUMENT, R_MAGNITUDE
assert lane_tyres.LANES == LANES

L_MAX_STEER, L_DRIVE, L_BRAKE, L_HANDBRAKE = 0, 1, 5, 9
LIMIT_SIZE = 13
"""The command limits (Vehicle.limit_commands'): max steer, then per wheel the drive
limit, the brake limit and the handbrake torque."""


@njit_inline
def _guard(x: float) -> float:
    """tyre._signed_guard as a select: |x| < 1e-9 becomes +-1e-9."""
    small = DOCUMENT_EPS if x >= 0.0 else -DOCUMENT_EPS
    return x if abs(x) >= DOCUMENT_EPS else small


@njit_inline
def _contact_velocity(w, k: int, i: int, px: float, py: float, cos_d: float,
                      sin_d: float) -> tuple:
    """Return wheel i of lane k's velocity in its tyre frame and omega R (model A.4)."""
    vx, vy, r = w[R_VX * LANES + k], w[R_VY * LANES + k], w[R_R * LANES + k]
    wheel_vx = vx - r * py
    wheel_vy = vy + r * px
    vx_t = wheel_vx * cos_d + wheel_vy * sin_d
    vy_t = -wheel_vx * sin_d + wheel_vy * cos_d
    return vx_t, vy_t, w[(R_OMEGA + i) * LANES + k] * w[R_RADIUS * LANES + k]


@njit_inline
def _slips(w, k: int, i: int, px: float, py: float, cos_d: float, sin_d: float) -> None:
    """model._motion_slips, the document's: wheel i of lane k's forward speed and slips."""
    vx_t, vy_t, omega_r = _contact_velocity(w, k, i, px, py, cos_d, sin_d)
    below = _guard(vx_t) if vx_t >= omega_r else _guard(omega_r)
    w[(R_SPEED + i) * LANES + k] = vx_t
    w[(R_SLIP_X + i) * LANES + k] = (omega_r - vx_t) / below
    w[(R_SLIP_Y + i) * LANES + k] = vy_t / _guard(omega_r)


@njit_inline
def _steer(w, h: float) -> None:
    """Move each lane's steer (rate limit, no lag)."""
    for k in range(LANES):
        steer = w[R_STEER * LANES + k]
        rate = w[R_RATE * LANES + k]
        own = w[R_STEER_RATE * LANES + k]
        rate = rate if rate > 0.0 and (own <= 0.0 or rate < own) else own
        target = w[R_TARGET * LANES + k]
        max_change = rate * h
        limited = steer + min(max(target - steer, -max_change), max_change)
        steer = limited if rate > 0.0 else target
        w[R_STEER * LANES + k] = steer
        w[R_SIN * LANES + k], w[R_COS * LANES + k] = lane_sincos(steer)


@njit_inline
def _motion_slips(w, magic: bool) -> None:
    """Each tyre's slips of its motion (document 002's, or with `magic` a Magic Formula's)."""
    for k in range(LANES):
        cos_d, sin_d = w[R_COS * LANES + k], w[R_SIN * LANES + k]
        lf, lr, c = w[R_LF * LANES + k], w[R_LR * LANES + k], w[R_TRACK * LANES + k]
        if magic:
            _mf_slips(w, k, 0, lf, c, cos_d, sin_d)
            _mf_slips(w, k, 1, lf, -c, cos_d, sin_d)
            _mf_slips(w, k, 2, -lr, c, 1.0, 0.0)
            _mf_slips(w, k, 3, -lr, -c, 1.0, 0.0)
        else:
            _slips(w, k, 0, lf, c, cos_d, sin_d)
            _slips(w, k, 1, lf, -c, cos_d, sin_d)
            _slips(w, k, 2, -lr, c, 1.0, 0.0)
            _slips(w, k, 3, -lr, -c, 1.0, 0.0)


@njit_inline
def _blend(w, h: float, start: bool) -> None:
    """
    model.relaxation_blend and the blend of model._tyre: the slips the tyres take this sub-step.

    Each keeps the share 1 / (1 + h max(|vx'|, low speed) / sigma) of its
    relaxed slips (set to the motion's at a rollout's start), the rest the
    motion's; R_SIGMA_X, R_SIGMA_Y hold the lengths.
    """
    for i in range(4):
        for k in range(LANES):
            j = i * LANES + k
            sx, sy = w[R_SLIP_X * LANES + j], w[R_SLIP_Y * LANES + j]
            relaxed_x = sx if start else w[R_RELAXED_X * LANES + j]
            relaxed_y = sy if start else w[R_RELAXED_Y * LANES + j]
            rate = h * max(abs(w[R_SPEED * LANES + j]), w[R_LOW_SPEED * LANES + k],
                           MF_SLOWEST_M_S)
            keep_x = 1.0 / (1.0 + rate / w[R_SIGMA_X * LANES + j])
            keep_y = 1.0 / (1.0 + rate / w[R_SIGMA_Y * LANES + j])
            w[R_RELAXED_X * LANES + j], w[R_RELAXED_Y * LANES + j] = relaxed_x, relaxed_y
            w[R_KEEP_X * LANES + j], w[R_KEEP_Y * LANES + j] = keep_x, keep_y
            w[R_SLIP_X * LANES + j] = keep_x * relaxed_x + (1.0 - keep_x) * sx
            w[R_SLIP_Y * LANES + j] = keep_y * relaxed_y + (1.0 - keep_y) * sy


@njit_inline
def _relax(w, magic: bool) -> None:
    """model.relax: move the relaxed slips to the end of the sub-step (the new motion's)."""
    _motion_slips(w, magic)
    for j in range(4 * LANES):
        keep_x, keep_y = w[R_KEEP_X * LANES + j], w[R_KEEP_Y * LANES + j]
        w[R_RELAXED_X * LANES + j] = (keep_x * w[R_RELAXED_X * LANES + j]
                                      + (1.0 - keep_x) * w[R_SLIP_X * LANES + j])
        w[R_RELAXED_Y * LANES + j] = (keep_y * w[R_RELAXED_Y * LANES + j]
                                      + (1.0 - keep_y) * w[R_SLIP_Y * LANES + j])


@njit_inline
def _magic_formula(w) -> None:
    """Evaluate D sin(C atan(B s)) of every tyre of every lane (short loops: latencies overlap)."""
    for j in range(4 * LANES):
        sx, sy = w[R_SLIP_X * LANES + j], w[R_SLIP_Y * LANES + j]
        s = math.sqrt(sx * sx + sy * sy)
        w[R_SLIP * LANES + j] = s
        w[R_ARGUMENT * LANES + j] = w[R_B * LANES + j] * s
    for j in range(4 * LANES):
        w[R_MAGNITUDE * LANES + j] = w[R_C * LANES + j] * lane_atan(w[R_ARGUMENT * LANES + j])
    for j in range(4 * LANES):
        w[R_MAGNITUDE * LANES + j] = w[R_D * LANES + j] * lane_sin(w[R_MAGNITUDE * LANES + j])


@njit_inline
def _forces(w, k: int, i: int, cos_d: float, sin_d: float) -> None:
    """Finish model._tyre for wheel i of lane k: force per newton; start from static loads."""
    sx, sy = w[(R_SLIP_X + i) * LANES + k], w[(R_SLIP_Y + i) * LANES + k]
    s = w[(R_SLIP + i) * LANES + k]
    magnitude = w[(R_MAGNITUDE + i) * LANES + k]
    moving = s > DOCUMENT_EPS
    s_safe = s if moving else 1.0
    fx_t = magnitude * sx / s_safe if moving else 0.0
    fy_t = -magnitude * sy / s_safe if moving else 0.0
    mu = w[(R_MU + i) * LANES + k]
    fx_t *= mu
    fy_t *= mu
    w[(R_UNIT_X + i) * LANES + k] = fx_t
    w[(R_UNIT_Y + i) * LANES + k] = fy_t
    w[(R_AX + i) * LANES + k] = fx_t * cos_d - fy_t * sin_d
    w[(R_AY + i) * LANES + k] = fx_t * sin_d + fy_t * cos_d
    w[(R_LOAD + i) * LANES + k] = w[(R_BASE_FRONT if i < 2 else R_BASE_REAR) * LANES + k]


@njit_inline
def _tyres(w) -> None:
    """Each tyre's force per newton of load from its slips (model._tyre), lane by lane."""
    _magic_formula(w)
    for k in range(LANES):
        cos_d, sin_d = w[R_COS * LANES + k], w[R_SIN * LANES + k]
        _forces(w, k, 0, cos_d, sin_d)
        _forces(w, k, 1, cos_d, sin_d)
        _forces(w, k, 2, 1.0, 0.0)
        _forces(w, k, 3, 1.0, 0.0)
        w[R_CONVERGED * LANES + k] = 0.0


@njit_inline
def _mf_slips(w, k: int, i: int, px: float, py: float, cos_d: float, sin_d: float) -> None:
    """model._motion_slips of a Magic Formula: wheel i of lane k's speed, kappa, tan(alpha)."""
    vx_t, vy_t, omega_r = _contact_velocity(w, k, i, px, py, cos_d, sin_d)
    denominator = max(abs(vx_t), w[R_LOW_SPEED * LANES + k], MF_SLOWEST_M_S)
    w[(R_SPEED + i) * LANES + k] = vx_t
    w[(R_SLIP_X + i) * LANES + k] = (omega_r - vx_t) / denominator
    w[(R_SLIP_Y + i) * LANES + k] = vy_t / denominator


@njit_inline
def _mf_evaluate(w, m, flags) -> None:
    """Each tyre's Magic Formula force per newton at the loads in R_LOAD, tyre and body frames."""
    for j in range(SLOTS):
        m[V_KAPPA * SLOTS + j] = w[R_SLIP_X * LANES + j]
        m[V_SY * SLOTS + j] = w[R_SLIP_Y * LANES + j]
        m[V_SPEED * SLOTS + j] = w[R_SPEED * LANES + j]
        m[V_LOAD * SLOTS + j] = w[R_LOAD * LANES + j]
    lane_tyres.evaluate(m, flags)
    for k in range(LANES):
        cos_d, sin_d = w[R_COS * LANES + k], w[R_SIN * LANES + k]
        for i in range(4):
            if i == 2:
                cos_d, sin_d = 1.0, 0.0
            j = i * LANES + k
            load = m[V_FZ * SLOTS + j]
            fx_t = m[V_FX * SLOTS + j] / load
            fy_t = m[C_MIRROR * SLOTS + j] * m[V_FY * SLOTS + j] / load
            w[(R_UNIT_X + i) * LANES + k] = fx_t
            w[(R_UNIT_Y + i) * LANES + k] = fy_t
            w[(R_AX + i) * LANES + k] = fx_t * cos_d - fy_t * sin_d
            w[(R_AY + i) * LANES + k] = fx_t * sin_d + fy_t * cos_d


@njit_inline
def _mf_lengths(w, m, flags) -> None:
    """Each tyre's relaxation lengths at the loads in R_LOAD (lane_tyres.relaxation_lengths)."""
    for j in range(SLOTS):
        m[V_LOAD * SLOTS + j] = w[R_LOAD * LANES + j]
    lane_tyres.relaxation_lengths(m, flags)
    for j in range(SLOTS):
        w[R_SIGMA_X * LANES + j] = m[V_RELAX_X * SLOTS + j]
        w[R_SIGMA_Y * LANES + j] = m[V_RELAX_Y * SLOTS + j]


@njit_inline
def _mf_tyres(w, m, flags) -> None:
    """_tyres for Magic Formula tyres: forces at the loads the last step found, then static."""
    _mf_evaluate(w, m, flags)
    for k in range(LANES):
        for i in range(4):
            w[(R_LOAD + i) * LANES + k] = w[(R_BASE_FRONT if i < 2 else R_BASE_REAR) * LANES + k]
        w[R_CONVERGED * LANES + k] = 0.0


@njit_inline
def _settle_cold(w, m, flags, first: int, count: int, params, scratch) -> None:
    """
    model._settle_loads for cars without loads yet: up to MF_COLD_PASSES - 1 passes each.

    A pass: the forces per newton at the loads, then the exact loads those
    give (load_transfer.wheel_loads_work), until no load moves by more than
    MF_LOAD_TOLERANCE of itself; a lane that has converged keeps its loads.
    """
    for k in range(LANES):
        for i in range(4):
            w[(R_LOAD + i) * LANES + k] = 0.0
            w[(R_START + i) * LANES + k] = 0.0
        w[R_CONVERGED * LANES + k] = 0.0
    for _ in range(MF_COLD_PASSES - 1):
        _mf_evaluate(w, m, flags)
        if not _exact_loads(w, first, count, params, scratch):
            break


@njit_inline
def _exact_loads(w, first: int, count: int, params, scratch) -> bool:
    """
    One pass of the exact load solve (wheel_loads_work) in each lane not yet converged.

    All four wheels down: its closed form, lane by lane; a lane where a
    wheel would lift takes wheel_loads_into (_lifted_loads). Returns
    whether a lane is left unconverged.
    """
    left = 0
    lifted = 0
    for k in range(LANES):
        front, rear = w[R_BASE_FRONT * LANES + k], w[R_BASE_REAR * LANES + k]
        gx, gy = w[R_GX * LANES + k], w[R_GY * LANES + k]
        a11, a12, a21, a22, r1, r2 = 1.0, 0.0, 0.0, 1.0, 0.0, 0.0
        for i in range(4):
            base = front if i < 2 else rear
            gx_i = gx if i < 2 else -gx
            gy_i = (-1.0 if i % 2 == 0 else 1.0) * gy
            ax, ay = w[(R_AX + i) * LANES + k], w[(R_AY + i) * LANES + k]
            a11 -= ax * gx_i
            a12 -= ax * gy_i
            a21 -= ay * gx_i
            a22 -= ay * gy_i
            r1 += ax * base
            r2 += ay * base
        det = a11 * a22 - a12 * a21
        force_x = (r1 * a22 - a12 * r2) / det
        force_y = (a11 * r2 - a21 * r1) / det
        active = w[R_CONVERGED * LANES + k] == 0.0
        down = abs(det) >= 1e-9
        moved = 0.0
        for i in range(4):
            base = front if i < 2 else rear
            gx_i = gx if i < 2 else -gx
            load = base + gx_i * force_x + ((-1.0 if i % 2 == 0 else 1.0) * gy) * force_y
            down = down and load >= 0.0
            start = w[(R_START + i) * LANES + k]
            moved = max(moved, abs(load - start) / max(abs(load), 1.0))
            w[(R_LOAD + i) * LANES + k] = load if active else start
        lift = active and not down
        settled = active and down and moved <= MF_LOAD_TOLERANCE
        w[R_CONVERGED * LANES + k] = 1.0 if settled else w[R_CONVERGED * LANES + k]
        w[R_LIFTED * LANES + k] = 1.0 if lift else 0.0
        lifted += 1 if lift else 0
        left += 1 if active and down and not settled else 0
    if lifted > 0:
        left += _lifted_loads(w, first, count, params, scratch)
    for j in range(4 * LANES):
        w[R_START * LANES + j] = w[R_LOAD * LANES + j]
    return left > 0


@njit_inline
def _lifted_loads(w, first: int, count: int, params, scratch) -> int:
    """Solve the loads (wheel_loads_into) of the lanes R_LIFTED marks; how many still move."""
    left = 0
    for k in range(LANES):
        if w[R_LIFTED * LANES + k] == 0.0:
            continue
        p = params[first + min(k, count - 1)]
        for i in range(4):
            scratch[0, i] = w[(R_AX + i) * LANES + k]
            scratch[1, i] = w[(R_AY + i) * LANES + k]
        wheel_loads_into(scratch[0], scratch[1], p[P_MASS], p[P_GRAVITY], p[P_LF], p[P_LR],
                         p[P_HALF_TRACK], p[P_CG_HEIGHT], scratch[2], scratch[4:8], scratch[3])
        moved = 0.0
        for i in range(4):
            load = scratch[2, i]
            start = w[(R_START + i) * LANES + k]
            moved = max(moved, abs(load - start) / max(abs(load), 1.0))
            w[(R_LOAD + i) * LANES + k] = load
        if moved <= MF_LOAD_TOLERANCE:
            w[R_CONVERGED * LANES + k] = 1.0
        else:
            left += 1
    return left


@njit_inline
def _load_pass(w, n: int) -> bool:
    """Run pass n of document 002's load iteration in each lane not yet converged (any left?)."""
    left = 0        # an integer: a sum of floats cannot be reordered, so would stay scalar
    for k in range(LANES):
        active = n < w[R_ITERATIONS * LANES + k] and w[R_CONVERGED * LANES + k] == 0.0
        force_x = 0.0
        force_y = 0.0
        for i in range(4):
            load = w[(R_LOAD + i) * LANES + k]
            force_x += w[(R_AX + i) * LANES + k] * load if load > 0.0 else 0.0
            force_y += w[(R_AY + i) * LANES + k] * load if load > 0.0 else 0.0
        gx, gy = w[R_GX * LANES + k], w[R_GY * LANES + k]
        change = 0.0
        for i in range(4):
            base = w[(R_BASE_FRONT if i < 2 else R_BASE_REAR) * LANES + k]
            old = w[(R_LOAD + i) * LANES + k]
            load = base + (gx if i < 2 else -gx) * force_x + (
                (-1.0 if i % 2 == 0 else 1.0) * gy) * force_y
            change = max(change, abs(load - old))
            w[(R_LOAD + i) * LANES + k] = load if active else old
        converged = active and change <= DOCUMENT_TOLERANCE_N
        w[R_CONVERGED * LANES + k] = 1.0 if converged else w[R_CONVERGED * LANES + k]
        left += 1 if active and not converged else 0
    return left > 0


@njit_inline
def _chassis_euler(w, h: float) -> None:
    """model._chassis, one explicit Euler step, the brakes and the pose (document 002)."""
    for k in range(LANES):
        vx, vy, r = w[R_VX * LANES + k], w[R_VY * LANES + k], w[R_R * LANES + k]
        mass, inertia = w[R_MASS * LANES + k], w[R_INERTIA * LANES + k]
        radius = w[R_RADIUS * LANES + k]
        lf, lr, c = w[R_LF * LANES + k], w[R_LR * LANES + k], w[R_TRACK * LANES + k]
        force_x = mass * 0.0
        force_y = mass * 0.0
        moment_z = 0.0
        for i in range(4):
            px = lf if i < 2 else -lr
            py = c if i % 2 == 0 else -c
            load = 0.0 if w[(R_LOAD + i) * LANES + k] < 0.0 else w[(R_LOAD + i) * LANES + k]
            fx = w[(R_AX + i) * LANES + k] * load
            fy = w[(R_AY + i) * LANES + k] * load
            force_x += fx
            force_y += fy
            moment_z += px * fy - py * fx
            tyre_fx = w[(R_UNIT_X + i) * LANES + k] * load
            spin = (w[(R_DRIVE + i) * LANES + k] - tyre_fx * radius) / inertia
            omega = w[(R_OMEGA + i) * LANES + k] + h * spin
            brake = w[(R_BRAKE + i) * LANES + k]
            limit = h * brake / inertia
            braked = 0.0 if abs(omega) <= limit else omega - math.copysign(limit, omega)
            w[(R_OMEGA + i) * LANES + k] = braked if brake > 0.0 else omega
        resistance = w[R_ROLLING * LANES + k] + w[R_DRAG * LANES + k] * math.sqrt(
            vx * vx + vy * vy)
        new_vx = vx + h * (vy * r + (force_x - resistance * vx) / mass)
        new_vy = vy + h * (-vx * r + (force_y - resistance * vy) / mass)
        new_r = r + h * (moment_z / w[R_YAW_INERTIA * LANES + k])
        w[R_VX * LANES + k], w[R_VY * LANES + k], w[R_R * LANES + k] = new_vx, new_vy, new_r
        c0, s0 = w[R_COS_YAW * LANES + k], w[R_SIN_YAW * LANES + k]
        w[R_X * LANES + k] += (new_vx * c0 - new_vy * s0) * h
        w[R_Y * LANES + k] += (new_vx * s0 + new_vy * c0) * h
        w[R_YAW * LANES + k] += new_r * h
        # a non-finite state makes the lane bad (the steer is finite with finite inputs)
        check = (new_vx * 0.0 + new_vy * 0.0) + (new_r * 0.0 + w[R_X * LANES + k] * 0.0) + (
            w[R_Y * LANES + k] * 0.0 + w[R_YAW * LANES + k] * 0.0) + (
            w[R_OMEGA * LANES + k] * 0.0 + w[(R_OMEGA + 1) * LANES + k] * 0.0) + (
            w[(R_OMEGA + 2) * LANES + k] * 0.0 + w[(R_OMEGA + 3) * LANES + k] * 0.0)
        w[R_BAD * LANES + k] = w[R_BAD * LANES + k] if check == 0.0 else 1.0
    for k in range(LANES):
        w[R_SIN_YAW * LANES + k], w[R_COS_YAW * LANES + k] = lane_sincos(w[R_YAW * LANES + k])


@njit_inline
def _load_block(w, first: int, count: int, states, params, mu) -> None:
    """Copy the block's cars' state and parameters into the lanes (the last car repeated)."""
    for k in range(LANES):
        car = first + min(k, count - 1)
        bad = 0.0
        for j in range(STEER + 1):
            w[j * LANES + k] = states[car, j]
        for j in range(STATE_SIZE):
            bad = bad if math.isfinite(states[car, j]) else 1.0
        w[R_BAD * LANES + k] = bad
        p = params[car]
        for row, index in ((R_MASS, P_MASS), (R_YAW_INERTIA, P_YAW_INERTIA),
                           (R_INERTIA, P_WHEEL_INERTIA), (R_RADIUS, P_RADIUS), (R_LF, P_LF),
                           (R_LR, P_LR), (R_TRACK, P_HALF_TRACK), (R_DRAG, P_DRAG),
                           (R_ROLLING, P_ROLLING), (R_STEER_RATE, P_STEER_RATE),
                           (R_ITERATIONS, P_LOAD_ITERATIONS)):
            w[row * LANES + k] = p[index]
        for i in range(4):
            w[(R_B + i) * LANES + k] = p[P_B + i]
            w[(R_C + i) * LANES + k] = p[P_C + i]
            w[(R_D + i) * LANES + k] = p[P_D + i]
            w[(R_MU + i) * LANES + k] = mu[car, i]
            w[(R_LOAD + i) * LANES + k] = 0.0         # no loads yet (a Magic Formula's start)
            lengths = P_RELAX + 1 + (0 if i < 2 else 2)     # the vehicle file's (relaxation)
            w[(R_SIGMA_X + i) * LANES + k] = max(p[lengths], MF_SHORTEST_RELAXATION_M)
            w[(R_SIGMA_Y + i) * LANES + k] = max(p[lengths + 1], MF_SHORTEST_RELAXATION_M)
        w[R_LOW_SPEED * LANES + k] = p[P_LOW_SPEED]
        front, rear, gx, gy = load_formula(p[P_MASS], p[P_GRAVITY], p[P_LF], p[P_LR],
                                           p[P_HALF_TRACK], p[P_CG_HEIGHT])
        w[R_BASE_FRONT * LANES + k], w[R_BASE_REAR * LANES + k] = front, rear
        w[R_GX * LANES + k], w[R_GY * LANES + k] = gx, gy
        sin_yaw, cos_yaw = lane_sincos(w[R_YAW * LANES + k])
        w[R_SIN_YAW * LANES + k], w[R_COS_YAW * LANES + k] = sin_yaw, cos_yaw


@njit_inline
def _clamped(value: float, low: float, high: float) -> float:
    """np.clip's result for one value."""
    return min(max(value, low), high)


@njit_inline
def _load_command(w, first: int, count: int, row: int, steer, rate, drive, brake,
                  handbrake, limits) -> None:
    """
    Vehicle.limit_commands for input row `row` of each lane (inputs checked finite).

    rate, brake, handbrake may have one row and column of zeros (not given).
    """
    for k in range(LANES):
        car = first + min(k, count - 1)
        target = steer[car, row]
        lever = handbrake[_given(handbrake, car, row)]
        w[R_TARGET * LANES + k] = _clamped(target, -limits[L_MAX_STEER], limits[L_MAX_STEER])
        w[R_RATE * LANES + k] = abs(rate[_given(rate, car, row)])
        lever = _clamped(lever, 0.0, 1.0)
        at = _given(brake, car, row)
        for i in range(4):
            torque = drive[car, row, i]
            braking = brake[at[0], at[1], i]
            w[(R_DRIVE + i) * LANES + k] = _clamped(torque, -limits[L_DRIVE + i],
                                                    limits[L_DRIVE + i])
            w[(R_BRAKE + i) * LANES + k] = _clamped(braking, 0.0, limits[L_BRAKE + i]) + (
                lever * limits[L_HANDBRAKE + i])


@njit_inline
def _given(values, car: int, row: int) -> tuple:
    """Return (car, row) where `values` has them, (0, 0) in one that was not given."""
    return (car, row) if values.shape[0] > 1 or values.shape[1] > 1 else (0, 0)


@njit_inline
def _not_finite(values) -> int:
    """Return how many of a car's input values (a 1-D or 2-D array) are not finite."""
    count = 0
    for value in values.ravel():
        count += 0 if value * 0.0 == 0.0 else 1     # inf * 0 and NaN * 0 are NaN
    return count


@njit_inline
def _check_inputs(w, first: int, count: int, steer, rate, drive, brake, handbrake) -> None:
    """Mark a lane bad if any of its car's inputs is not finite (before the rollout)."""
    for k in range(count):
        car = first + k
        wrong = (_not_finite(steer[car]) + _not_finite(rate[_given(rate, car, 0)[0]])
                 + _not_finite(handbrake[_given(handbrake, car, 0)[0]])
                 + _not_finite(drive[car]) + _not_finite(brake[_given(brake, car, 0)[0]]))
        if wrong > 0:
            w[R_BAD * LANES + k] = 1.0


@njit_inline
def _store(w, first: int, count: int, row: int, states, states_out) -> None:
    """Write the block's cars' states after input row `row`."""
    for k in range(count):
        car = first + k
        for j in range(STEER + 1):
            states_out[car, row, j] = w[j * LANES + k]
        for j in range(STEER + 1, STATE_SIZE):
            states_out[car, row, j] = states[car, j]


@njit_inline
def _loads_and_chassis(w, h: float, passes: int) -> None:
    """Run the document's load iteration (at most `passes` passes), then the Euler step."""
    for pass_ in range(passes):
        if not _load_pass(w, pass_):
            break
    _chassis_euler(w, h)


@njit_inline
def _store_bad(w, first: int, count: int, bad) -> None:
    """Write which of the block's cars met a non-finite input or state."""
    for k in range(count):
        bad[first + k] = w[R_BAD * LANES + k]


@njit_parallel
def rollout_lanes(states, steer, rate, drive, brake, handbrake, params, mu, limits,
                  dt: float, substeps: int, passes: int, relaxing: bool, states_out,
                  bad) -> None:
    """
    Roll N cars over H input rows (each held for dt in `substeps` Euler steps).

    states (N, STATE_SIZE); steer, rate, handbrake (N, H); drive, brake
    (N, H, 4) as Batch.rollout takes them (rate, brake, handbrake not given:
    zeros of one row and column); params (N, PARAM_SIZE); mu (N, 4):
    each wheel's tyre mu times the ground's grip; limits (LIMIT_SIZE);
    passes: the most load iterations of any car; relaxing: the cars have
    tyre relaxation (model.relaxation_blend; each rollout starts the relaxed
    slips afresh). Writes states_out (N, H, STATE_SIZE) and bad (N): 1 where
    an input or state was not finite.
    """
    n, horizon = steer.shape
    h = dt / substeps
    for block in prange((n + LANES - 1) // LANES):
        first = block * LANES
        count = min(LANES, n - first)
        w = np.empty(ROWS * LANES)
        _load_block(w, first, count, states, params, mu)
        _check_inputs(w, first, count, steer, rate, drive, brake, handbrake)
        for row in range(horizon):
            _load_command(w, first, count, row, steer, rate, drive, brake, handbrake, limits)
            for substep in range(substeps):
                _steer(w, h)
                _motion_slips(w, False)
                if relaxing:
                    _blend(w, h, row == 0 and substep == 0)
                _tyres(w)
                _loads_and_chassis(w, h, passes)
                if relaxing:
                    _relax(w, False)
            _store(w, first, count, row, states, states_out)
        _store_bad(w, first, count, bad)


@njit_parallel
def rollout_lanes_mf(states, steer, rate, drive, brake, handbrake, params, mu, limits,
                     dt: float, substeps: int, passes: int, relaxing: bool, states_out,
                     bad) -> None:
    """
    rollout_lanes for cars on Magic Formula tyres (.tir files): the same arguments.

    Each car starts without loads, as a batch's rollout starts a car: the
    first evaluation settles them (model._settle_loads), each later one
    takes the loads the step before found.
    """
    n, horizon = steer.shape
    h = dt / substeps
    for block in prange((n + LANES - 1) // LANES):
        first = block * LANES
        count = min(LANES, n - first)
        w = np.empty(ROWS * LANES)
        m = np.empty(lane_tyres.ROWS * SLOTS)
        flags = np.empty(FLAG_SIZE)
        scratch = np.empty((8, 4))
        _load_block(w, first, count, states, params, mu)
        lane_tyres.load_tyres(m, first, count, params, mu, flags)
        _check_inputs(w, first, count, steer, rate, drive, brake, handbrake)
        for row in range(horizon):
            _load_command(w, first, count, row, steer, rate, drive, brake, handbrake, limits)
            for substep in range(substeps):
                start = row == 0 and substep == 0
                _steer(w, h)
                _motion_slips(w, True)
                if relaxing:
                    _mf_lengths(w, m, flags)
                    _blend(w, h, start)
                if start:
                    _settle_cold(w, m, flags, first, count, params, scratch)
                _mf_tyres(w, m, flags)
                _loads_and_chassis(w, h, passes)
                if relaxing:
                    _relax(w, True)
            _store(w, first, count, row, states, states_out)
        _store_bad(w, first, count, bad)
