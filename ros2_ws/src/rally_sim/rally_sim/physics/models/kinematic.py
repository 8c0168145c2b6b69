"""
The kinematic bicycle (reference 001): every wheel rolls where it points.

No tyre slips, so the path is pure geometry: the rear axle moves along the
heading, the yaw rate is v tan(delta) / L (v: the rear axle's speed, the
body-frame forward speed vx; delta: the bicycle steer angle; L: the
wheelbase), and the CG, lr ahead of the rear axle, has the side velocity
vy = v lr tan(delta) / L. Reference 001 moves the two
axle points a step along their headings and measures the new heading; here
each sub-step is the exact arc of a rigid body with constant body velocity
and yaw rate, so a steady turn is an exact circle of rear-axle radius
L / tan(delta) at any step.

The speed follows the longitudinal forces: drive torques over the wheel
radius, brakes as Coulomb friction that stops the car and holds it (no sign
flip, no creep), drag and rolling resistance, and gravity along the ground
(a slope; the car cannot slide, so a cross slope only loads it), acting on
the mass plus the rolling wheels' inertia. Same state layout, command and outputs as the
four-wheel model (model.py), so everything downstream is model-free.
"""

import math

import numpy as np

from ..jit import njit
from ..model import (
    C_BRAKE, C_DRIVE, FORCE_X, FORCE_Y, NORMAL_LOAD, O_ACCEL, OMEGA, P_DRAG, P_LF, P_LR,
    P_MASS, P_RADIUS, P_ROLLING, P_WHEEL_INERTIA, RELAXED_SLIP_ANGLE, RELAXED_SLIP_RATIO,
    rolling_spin, set_steer, SLIP_ANGLE, SLIP_RATIO, STEER, STEER_ANGLE, VX, VY, W_COS,
    W_DELTA, W_GRAVITY, W_SIN, X, Y, YAW, YAW_RATE)


@njit
def rolling_mass(p: np.ndarray) -> float:
    """Return the mass the longitudinal forces accelerate: the car plus its rolling wheels."""
    return p[P_MASS] + 4.0 * p[P_WHEEL_INERTIA] / (p[P_RADIUS] * p[P_RADIUS])


@njit
def resistance(p: np.ndarray, speed: float) -> float:
    """Return drag plus rolling resistance at `speed` [N], opposing it."""
    return (p[P_ROLLING] + p[P_DRAG] * abs(speed)) * speed


@njit
def _at_the_ground(command: np.ndarray, first: int, p: np.ndarray) -> float:
    """Return four torques of the command from index `first` on, summed, over the radius [N]."""
    total = 0.0
    for i in range(4):
        total += command[first + i]
    return total / p[P_RADIUS]


@njit
def drive_force(command: np.ndarray, p: np.ndarray) -> float:
    """Return the sum of the drive torques over the wheel radius [N]."""
    return _at_the_ground(command, C_DRIVE, p)


@njit
def brake_force(command: np.ndarray, p: np.ndarray) -> float:
    """Return the largest force the brakes (handbrake included) can hold [N]."""
    return _at_the_ground(command, C_BRAKE, p)


@njit
def braked(force: float, brakes: float, speed: float) -> float:
    """Return `force` with the brakes' Coulomb force: against the motion, or holding at rest."""
    if speed != 0.0:
        return force - math.copysign(brakes, speed)
    if abs(force) <= brakes:
        return 0.0
    return force - math.copysign(brakes, force)


@njit
def next_speed(speed: float, command: np.ndarray, p: np.ndarray, h: float,
               slope_accel: float) -> float:
    """
    Return the speed after h: drive, resistances and gravity along the ground, then the brakes.

    The brakes, Coulomb friction, take up to h F_b / m of speed without
    reversing it, so a braked car stops exactly and stays stopped while the
    drive (or the slope) is weaker.
    """
    mass = rolling_mass(p)
    free = speed + h * (drive_force(command, p) - resistance(p, speed)
                        + p[P_MASS] * slope_accel) / mass
    limit = h * brake_force(command, p) / mass
    if abs(free) <= limit:
        return 0.0
    return free - math.copysign(limit, free)


@njit
def arc(yaw: float, u: float, w: float, r: float, h: float) -> tuple:
    """
    Return the odom-frame displacement over h of a body moving at (u, w) turning at r.

    Exact for constant body velocity and yaw rate (a circular arc); the
    midpoint rule where r h is too small for the closed form to be accurate.
    """
    turn = r * h
    if abs(turn) < 1e-6:
        mid = yaw + 0.5 * turn
        c, s = math.cos(mid), math.sin(mid)
        return h * (u * c - w * s), h * (u * s + w * c)
    s0, c0 = math.sin(yaw), math.cos(yaw)
    s1, c1 = math.sin(yaw + turn), math.cos(yaw + turn)
    return (u * (s1 - s0) + w * (c1 - c0)) / r, (-u * (c1 - c0) + w * (s1 - s0)) / r


@njit
def set_motion(state: np.ndarray, speed: float, p: np.ndarray, wheel: np.ndarray) -> None:
    """Write the velocities and wheel spins of rolling at `speed` with the current steer."""
    curvature = math.tan(state[STEER]) / (p[P_LF] + p[P_LR])
    state[VX] = speed
    state[VY] = speed * p[P_LR] * curvature
    state[YAW_RATE] = speed * curvature
    set_steer(state[STEER], p, wheel)
    for i in range(4):
        state[OMEGA + i] = rolling_spin(state, p, i, wheel[W_COS, i], wheel[W_SIN, i])


@njit
def kinematic_step(state: np.ndarray, command: np.ndarray, h: float, steer: float,
                   p: np.ndarray, wheel: np.ndarray) -> None:
    """Advance `state` in place by one sub-step h, the steer angle at its end being `steer`."""
    speed = state[VX]
    new_speed = next_speed(speed, command, p, h, wheel[W_GRAVITY, 0])
    state[STEER] = steer
    curvature = math.tan(steer) / (p[P_LF] + p[P_LR])
    mean = 0.5 * (speed + new_speed)
    r = mean * curvature
    dx, dy = arc(state[YAW], mean, mean * p[P_LR] * curvature, r, h)
    state[X] += dx
    state[Y] += dy
    state[YAW] += r * h
    set_motion(state, new_speed, p, wheel)


@njit
def kinematic_outputs(state: np.ndarray, command: np.ndarray, p: np.ndarray,
                      wheel: np.ndarray, out: np.ndarray) -> None:
    """
    Write the tyre state (DIAG rows) and specific force of `state` into `out`.

    No slip: slip ratio and angle are 0. Loads are the static ones. The tyre
    forces are those that keep the car on its path: along the path, the
    force that accelerates the chassis at the longitudinal acceleration
    (drive and brakes less what spins the wheels up) plus the resistances it
    overcomes, shared by the four wheels; across it, the centripetal force
    m v r split between the axles by the moment balance (front lr / L, rear
    lf / L) and equally between left and right; each in its wheel's frame.
    """
    lf, lr = p[P_LF], p[P_LR]
    wheelbase = lf + lr
    weight = p[P_MASS] * wheel[W_GRAVITY, 2]
    speed = state[VX]
    set_steer(state[STEER], p, wheel)
    drag = resistance(p, speed)
    slope = p[P_MASS] * wheel[W_GRAVITY, 0]
    accel = braked(drive_force(command, p) - drag + slope, brake_force(command, p), speed) / \
        rolling_mass(p)
    along = p[P_MASS] * accel + drag - slope
    across = p[P_MASS] * speed * state[YAW_RATE]
    for i in range(4):
        share = (lr if i < 2 else lf) / wheelbase
        body_x = 0.25 * along
        body_y = 0.5 * across * share
        c, s = wheel[W_COS, i], wheel[W_SIN, i]
        out[SLIP_RATIO, i] = 0.0
        out[SLIP_ANGLE, i] = 0.0
        out[RELAXED_SLIP_RATIO, i] = 0.0
        out[RELAXED_SLIP_ANGLE, i] = 0.0
        out[NORMAL_LOAD, i] = 0.5 * weight * share
        out[FORCE_X, i] = body_x * c + body_y * s
        out[FORCE_Y, i] = -body_x * s + body_y * c
        out[STEER_ANGLE, i] = wheel[W_DELTA, i]
    out[O_ACCEL, 0] = accel - wheel[W_GRAVITY, 0]
    out[O_ACCEL, 1] = across / p[P_MASS]
