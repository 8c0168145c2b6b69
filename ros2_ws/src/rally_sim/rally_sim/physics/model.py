"""
The planar four-wheel vehicle model of document 002 (sections A.1-A.7).

State layout (one float64 array, SI units, REP-103 axes):
  [x, y, yaw, vx, vy, yaw_rate, omega_fl, omega_fr, omega_rl, omega_rr, steer]
x, y, yaw: pose of the centre of gravity in the odom frame; vx, vy: velocity
of the centre of gravity in the body frame; omega: wheel spin rates [rad/s];
steer: actual bicycle-equivalent steer angle after the steering actuator.
"""

import math
from typing import NamedTuple

import numpy as np

from .jit import njit
from .load_transfer import wheel_loads
from .tyre import slip_angle, slips, unit_forces

X, Y, YAW, VX, VY, YAW_RATE, OMEGA, STEER = 0, 1, 2, 3, 4, 5, 6, 10
STATE_SIZE = 11
VELOCITY = slice(VX, OMEGA + 4)   # the 7 dynamic states of document 002
VELOCITY_SIZE = 7

# Rows of the per-wheel diagnostics array (shape DIAG_SIZE x 4).
SLIP_RATIO, SLIP_ANGLE, NORMAL_LOAD, FORCE_X, FORCE_Y, STEER_ANGLE = range(6)
DIAG_SIZE = 6


class ModelParams(NamedTuple):
    """Numeric parameters of the model, per-wheel arrays in order fl, fr, rl, rr."""

    mass_kg: float
    yaw_inertia_kg_m2: float
    wheel_inertia_kg_m2: float
    wheel_radius_m: float
    cg_to_front_m: float
    cg_to_rear_m: float
    half_track_m: float
    cg_height_m: float
    gravity_m_s2: float
    pacejka_b: np.ndarray
    pacejka_c: np.ndarray
    pacejka_d: np.ndarray
    drag_kg_m: float
    rolling_resistance_n_s_m: float
    ackermann: float
    slip_model: int
    low_speed_m_s: float
    steer_rate_rad_s: float
    steer_time_constant_s: float


@njit
def road_wheel_angles(steer: float, cg_to_front: float, cg_to_rear: float,
                      half_track: float, ackermann: float) -> tuple:
    """
    Return the (front-left, front-right) road-wheel angles for a bicycle angle.

    ackermann = 0 steers both wheels by `steer` (document 002); 1 gives full
    Ackermann geometry about the rear axle (inner wheel steers more).
    """
    if steer == 0.0 or ackermann == 0.0:
        return steer, steer
    wheelbase = cg_to_front + cg_to_rear
    t = math.tan(steer)
    left = math.atan(wheelbase * t / (wheelbase - half_track * t))
    right = math.atan(wheelbase * t / (wheelbase + half_track * t))
    return steer + ackermann * (left - steer), steer + ackermann * (right - steer)


@njit
def derivatives(z: np.ndarray, steer: float, drive: np.ndarray, mu: np.ndarray,
                p: ModelParams, diag: np.ndarray) -> np.ndarray:
    """
    Return d/dt of the 7 dynamic states z = [vx, vy, r, omega x4].

    steer: bicycle-equivalent steer angle [rad]; drive: wheel torques [N m];
    mu: friction coefficient at each wheel. Fills `diag` (DIAG_SIZE x 4).
    """
    vx, vy, r = z[0], z[1], z[2]
    lf, lr, c = p.cg_to_front_m, p.cg_to_rear_m, p.half_track_m
    delta_l, delta_r = road_wheel_angles(steer, lf, lr, c, p.ackermann)
    px = (lf, lf, -lr, -lr)
    py = (c, -c, c, -c)
    ax = np.empty(4)
    ay = np.empty(4)
    unit_x = np.empty(4)
    for i in range(4):
        # A.4: wheel-centre velocity in the body frame, then in the tyre frame.
        wheel_vx = vx - r * py[i]
        wheel_vy = vy + r * px[i]
        delta = delta_l if i == 0 else (delta_r if i == 1 else 0.0)
        cos_d, sin_d = math.cos(delta), math.sin(delta)
        vx_t = wheel_vx * cos_d + wheel_vy * sin_d
        vy_t = -wheel_vx * sin_d + wheel_vy * cos_d
        # A.5-A.6: slips and force per newton of load.
        sx, sy = slips(vx_t, vy_t, z[3 + i] * p.wheel_radius_m, p.slip_model,
                       p.low_speed_m_s)
        fx_t, fy_t = unit_forces(sx, sy, p.pacejka_b[i], p.pacejka_c[i], p.pacejka_d[i])
        fx_t *= mu[i]
        fy_t *= mu[i]
        unit_x[i] = fx_t
        diag[4, i] = fy_t
        # A.3: back to the body frame.
        ax[i] = fx_t * cos_d - fy_t * sin_d
        ay[i] = fx_t * sin_d + fy_t * cos_d
        diag[0, i] = sx
        diag[1, i] = slip_angle(vx_t, vy_t)
        diag[5, i] = delta
    # A.7: loads, solved exactly with the forces they produce.
    loads = wheel_loads(ax, ay, p.mass_kg, p.gravity_m_s2, lf, lr, c, p.cg_height_m)
    force_x = 0.0
    force_y = 0.0
    moment_z = 0.0
    dz = np.empty(7)
    for i in range(4):
        fx = ax[i] * loads[i]
        fy = ay[i] * loads[i]
        force_x += fx
        force_y += fy
        moment_z += px[i] * fy - py[i] * fx
        tyre_fx = unit_x[i] * loads[i]
        dz[3 + i] = (drive[i] - tyre_fx * p.wheel_radius_m) / p.wheel_inertia_kg_m2
        diag[2, i] = loads[i]
        diag[3, i] = tyre_fx
        diag[4, i] *= loads[i]
    # Reference 003: drag -C_drag |v| v and rolling resistance -C_rr v, at the CG.
    resistance = p.rolling_resistance_n_s_m + p.drag_kg_m * math.sqrt(vx * vx + vy * vy)
    # A.2: chassis.
    dz[0] = vy * r + (force_x - resistance * vx) / p.mass_kg
    dz[1] = -vx * r + (force_y - resistance * vy) / p.mass_kg
    dz[2] = moment_z / p.yaw_inertia_kg_m2
    return dz


@njit
def contact_points(state: np.ndarray, p: ModelParams) -> tuple:
    """Return the wheels' contact points (xs, ys) in the odom frame."""
    c, s = math.cos(state[YAW]), math.sin(state[YAW])
    xs = np.empty(4)
    ys = np.empty(4)
    for i in range(4):
        px = p.cg_to_front_m if i < 2 else -p.cg_to_rear_m
        py = p.half_track_m if i % 2 == 0 else -p.half_track_m
        xs[i] = state[X] + c * px - s * py
        ys[i] = state[Y] + s * px + c * py
    return xs, ys
