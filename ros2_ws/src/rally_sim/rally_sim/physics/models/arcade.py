"""
The arcade dynamic bicycle of reference 000 (Art of Rally style), made physical.

Two axles on the car's centre line. Each axle's cornering force is linear in
its slip angle and capped at its peak, never falling past it (000 s. 3):
F_y = clamp(-k alpha F_z, -mu F_z, mu F_z), with k the cornering stiffness per
newton of axle load [1/rad] and mu the axle's friction (tyre mu times the
surface grip under its wheels). Axle loads are the static shares plus the
longitudinal weight transfer m a_x h / L (000 s. 4). Drive and brake forces
are the axle's torques over the wheel radius, each capped by the axle's grip
(000 s. 7); the brakes are Coulomb friction on the forward speed, so a
braked car stops exactly and stays stopped, and then the tyres' static
friction holds it sideways too (on a slope as well, while their grip can).
The handbrake cuts the rear grip to `handbrake_grip` of itself (000 s. 4)
besides braking the rear wheels. With `arcade.friction_circle` (not in
reference 000, whose caps are separate) an axle's drive and brake force take
their share of its grip first and the cornering force is capped at the rest,
sqrt((mu F_z)^2 - F_x^2): throttle then breaks a driven axle away.
Drag and rolling resistance as reference 003; gravity along the ground and
the loads under the gravity normal to it (reference 004's slopes).

Low speed (the problem reference 004 describes: slip angles divide by a
forward speed that goes to zero, and the car jitters or creeps): the slip
angle's denominator is max(|u|, v_low), as the four-wheel model's regularised
slip, so below v_low an axle is a linear damper on its sideways sliding
speed and the car comes to rest without a sign flip; no velocity is zeroed
by a threshold. The sub-step must resolve that damper: the vehicle file's
dt is checked against it (config.py).

Steering (000 s. 6, 8): the largest steer angle and the steer rate shrink
with speed by (1 - reduction min(speed / reduction_speed, 1)); the optional
counter-steer assist turns the target a share of the way toward the
direction of travel while the rear slides out.

Same state layout, command and outputs as the other models; per-wheel
outputs give both wheels of an axle half the axle's load and forces.
"""

import math

import numpy as np

from ..jit import njit
from ..model import (
    C_BRAKE, C_DRIVE, C_HANDBRAKE, C_STEER, FORCE_X, FORCE_Y, NORMAL_LOAD, O_ACCEL, OMEGA,
    P_ARCADE, P_CG_HEIGHT, P_DRAG, P_LF, P_LOW_SPEED, P_LR, P_MASS, P_RADIUS, P_ROLLING,
    P_YAW_INERTIA, RELAXED_SLIP_ANGLE, RELAXED_SLIP_RATIO, rolling_spin, SLIP_ANGLE,
    SLIP_RATIO, STEER, STEER_ANGLE, VX, VY, W_GRAVITY, W_MU, W_STEER, X, Y, YAW, YAW_RATE)

(A_STIFF_FRONT, A_STIFF_REAR, A_HANDBRAKE_GRIP, A_STEER_REDUCTION, A_REDUCTION_SPEED,
 A_ASSIST, A_MAX_STEER, A_FRICTION_CIRCLE) = range(8)
"""Offsets from P_ARCADE of the arcade parameters in the flat array."""
ASSIST_SLIP_RAD = 0.05
"""Body slip angle beyond which the counter-steer assist acts (rear sliding out)."""
# Rows of the work array `axle` (AXLE_ROWS x 2: front, rear) arcade_forces() fills.
AX_LOAD, AX_FX, AX_FY, AX_ALPHA, AX_BRAKE = range(5)
AXLE_ROWS = 5
assert AXLE_ROWS <= min(W_MU, W_STEER)   # the step may use the wheel work array's first rows


@njit
def steer_factor(p: np.ndarray, speed: float) -> float:
    """Return the share of the largest steer angle and rate allowed at `speed` [m/s]."""
    a = P_ARCADE
    return 1.0 - p[a + A_STEER_REDUCTION] * min(abs(speed) / p[a + A_REDUCTION_SPEED], 1.0)


@njit
def steer_target(state: np.ndarray, command: np.ndarray, p: np.ndarray) -> float:
    """Return the steer angle the actuator heads for: speed-limited, counter-steer assisted."""
    vx, vy, r = state[VX], state[VY], state[YAW_RATE]
    limit = p[P_ARCADE + A_MAX_STEER] * steer_factor(p, math.hypot(vx, vy))
    target = min(max(command[C_STEER], -limit), limit)
    assist = p[P_ARCADE + A_ASSIST]
    if assist > 0.0:
        slip = math.atan2(vy, max(abs(vx), p[P_LOW_SPEED]))
        if abs(slip) > ASSIST_SLIP_RAD and slip * r < 0.0:   # the rear slides out
            target += assist * (min(max(slip, -limit), limit) - target)
    return target


@njit
def _capped(force: float, cap: float) -> float:
    return min(max(force, -cap), cap)


@njit
def arcade_forces(state: np.ndarray, command: np.ndarray, p: np.ndarray, wheel: np.ndarray,
                  axle: np.ndarray) -> tuple:
    """
    Fill `axle` with each axle's load, forces (in its wheel frame) and slip angle.

    Returns the body-frame force (x, y), yaw moment and the brakes' largest
    force [N]; the drive and lateral forces are in the first three, the
    brakes (Coulomb, applied by the caller) only in the last.
    """
    lf, lr = p[P_LF], p[P_LR]
    wheelbase = lf + lr
    mass, gravity = p[P_MASS], wheel[W_GRAVITY, 2]    # normal to the ground
    vx, vy, r = state[VX], state[VY], state[YAW_RATE]
    steer = state[STEER]
    cos_d, sin_d = math.cos(steer), math.sin(steer)
    radius, v_low = p[P_RADIUS], p[P_LOW_SPEED]
    rear_grip = 1.0 - command[C_HANDBRAKE] * (1.0 - p[P_ARCADE + A_HANDBRAKE_GRIP])
    circle = p[P_ARCADE + A_FRICTION_CIRCLE] > 0.5
    # Slip angles, regularised below v_low (a damper there, as the four-wheel model).
    front_u = vx * cos_d + (vy + r * lf) * sin_d
    front_w = -vx * sin_d + (vy + r * lf) * cos_d
    axle[AX_ALPHA, 0] = math.atan(front_w / max(abs(front_u), v_low))
    axle[AX_ALPHA, 1] = math.atan((vy - r * lr) / max(abs(vx), v_low))
    resistance = (p[P_ROLLING] + p[P_DRAG] * math.hypot(vx, vy))
    accel_x = 0.0
    force_x = force_y = moment = brakes = 0.0
    for _ in range(2):    # loads from the acceleration the forces give: two passes
        transfer = mass * accel_x * p[P_CG_HEIGHT] / wheelbase
        axle[AX_LOAD, 0] = max(mass * gravity * lr / wheelbase - transfer, 0.0)
        axle[AX_LOAD, 1] = max(mass * gravity * lf / wheelbase + transfer, 0.0)
        brakes = 0.0
        for k in range(2):
            grip = 0.5 * (wheel[W_MU, 2 * k] + wheel[W_MU, 2 * k + 1])
            drive = (command[C_DRIVE + 2 * k] + command[C_DRIVE + 2 * k + 1]) / radius
            axle[AX_FX, k] = _capped(drive, grip * axle[AX_LOAD, k])
            brake = (command[C_BRAKE + 2 * k] + command[C_BRAKE + 2 * k + 1]) / radius
            axle[AX_BRAKE, k] = min(brake, grip * axle[AX_LOAD, k])
            brakes += axle[AX_BRAKE, k]
            cap = grip * axle[AX_LOAD, k] * (rear_grip if k == 1 else 1.0)
            if circle:       # the longitudinal force takes its share of the grip first
                used = min(abs(axle[AX_FX, k]) + axle[AX_BRAKE, k], cap)
                cap = math.sqrt(cap * cap - used * used)
            stiffness = p[P_ARCADE + A_STIFF_FRONT + k] * (rear_grip if k == 1 else 1.0)
            axle[AX_FY, k] = _capped(-stiffness * axle[AX_ALPHA, k] * axle[AX_LOAD, k], cap)
        fxf, fyf = axle[AX_FX, 0], axle[AX_FY, 0]
        force_x = fxf * cos_d - fyf * sin_d + axle[AX_FX, 1] - resistance * vx \
            + mass * wheel[W_GRAVITY, 0]
        force_y = fxf * sin_d + fyf * cos_d + axle[AX_FY, 1] - resistance * vy \
            + mass * wheel[W_GRAVITY, 1]
        moment = lf * (fxf * sin_d + fyf * cos_d) - lr * axle[AX_FY, 1]
        # The transfer follows what the ground and air push with (at rest on a
        # slope: the tyres holding the car), not gravity, which acts at the CG.
        accel_x = force_x / mass - wheel[W_GRAVITY, 0]
        if vx != 0.0:
            accel_x -= math.copysign(brakes, vx) / mass
    return force_x, force_y, moment, brakes


@njit
def arcade_step(state: np.ndarray, command: np.ndarray, h: float, steer: float,
                p: np.ndarray, wheel: np.ndarray, axle: np.ndarray) -> None:
    """
    Advance `state` in place by one sub-step h (semi-implicit Euler), steer at `steer`.

    The wheel spins are not dynamic states here: rolling_wheels() sets them
    once the step's sub-steps are done.
    """
    state[STEER] = steer
    force_x, force_y, moment, brakes = arcade_forces(state, command, p, wheel, axle)
    mass = p[P_MASS]
    vx, vy, r = state[VX], state[VY], state[YAW_RATE]
    # Forward speed: the forces, then the brakes as Coulomb friction (no reversal).
    free = vx + h * (force_x / mass + r * vy)
    limit = h * brakes / mass
    if abs(free) <= limit:
        new_vx = 0.0
    else:
        new_vx = free - math.copysign(limit, free)
    state[VY] = vy + h * (force_y / mass - r * vx)
    state[YAW_RATE] = r + h * moment / p[P_YAW_INERTIA]
    state[VX] = new_vx
    if new_vx == 0.0 and brakes > 0.0:
        _hold(state, p, wheel, axle, h)
    yaw = state[YAW] + h * state[YAW_RATE]
    c, s = math.cos(yaw), math.sin(yaw)
    state[X] += h * (state[VX] * c - state[VY] * s)
    state[Y] += h * (state[VX] * s + state[VY] * c)
    state[YAW] = yaw


@njit
def _hold(state: np.ndarray, p: np.ndarray, wheel: np.ndarray, axle: np.ndarray,
          h: float) -> None:
    """
    Hold a car its brakes hold sideways too (tyres' static friction), as the four-wheel model.

    The brakes hold the forward speed at 0; the axles can hold the car with
    up to their grip times their loads. If the ground's pull needs no more
    and what is left stops the sideways and yaw motion within h, they stop.
    """
    available = 0.0
    for k in range(2):
        available += 0.5 * (wheel[W_MU, 2 * k] + wheel[W_MU, 2 * k + 1]) * axle[AX_LOAD, k]
    mass = p[P_MASS]
    spare = available - mass * math.hypot(wheel[W_GRAVITY, 0], wheel[W_GRAVITY, 1])
    sliding = abs(state[VY]) + abs(state[YAW_RATE]) * max(p[P_LF], p[P_LR])
    if spare > 0.0 and sliding <= h * spare / mass:
        state[VY] = state[YAW_RATE] = 0.0


@njit
def rolling_wheels(state: np.ndarray, p: np.ndarray) -> None:
    """Set each wheel's spin to its ground speed along its heading over R (no spin model)."""
    cos_d, sin_d = math.cos(state[STEER]), math.sin(state[STEER])
    for i in range(4):
        state[OMEGA + i] = rolling_spin(state, p, i, cos_d if i < 2 else 1.0,
                                        sin_d if i < 2 else 0.0)


@njit
def arcade_outputs(state: np.ndarray, command: np.ndarray, p: np.ndarray, wheel: np.ndarray,
                   axle: np.ndarray, out: np.ndarray) -> None:
    """Write the tyre state (DIAG rows, each axle's halves) and specific force into `out`."""
    force_x, force_y, _, brakes = arcade_forces(state, command, p, wheel, axle)
    vx = state[VX]
    if vx != 0.0:
        force_x -= math.copysign(brakes, vx)
    elif abs(force_x) <= brakes:
        force_x = 0.0
    else:
        force_x -= math.copysign(brakes, force_x)
    for i in range(4):
        k = 0 if i < 2 else 1
        out[SLIP_RATIO, i] = 0.0
        out[SLIP_ANGLE, i] = axle[AX_ALPHA, k]
        out[RELAXED_SLIP_RATIO, i] = 0.0            # (no relaxation: the same slips)
        out[RELAXED_SLIP_ANGLE, i] = axle[AX_ALPHA, k]
        out[NORMAL_LOAD, i] = 0.5 * axle[AX_LOAD, k]
        braking = math.copysign(axle[AX_BRAKE, k], vx) if vx != 0.0 else 0.0
        out[FORCE_X, i] = 0.5 * (axle[AX_FX, k] - braking)
        out[FORCE_Y, i] = 0.5 * axle[AX_FY, k]
        out[STEER_ANGLE, i] = state[STEER] if k == 0 else 0.0
    out[O_ACCEL, 0] = force_x / p[P_MASS] - wheel[W_GRAVITY, 0]
    out[O_ACCEL, 1] = force_y / p[P_MASS] - wheel[W_GRAVITY, 1]
