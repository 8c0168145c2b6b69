"""
The planar four-wheel vehicle model of document 002 (sections A.1-A.7).

State layout (one float64 array, SI units, REP-103 axes):
  [x, y, yaw, vx, vy, yaw_rate, omega_fl, omega_fr, omega_rl, omega_rr, steer,
   engine, gear, shift_left]
x, y, yaw: pose of the centre of gravity in the odom frame; vx, vy: velocity
of the centre of gravity in the body frame; omega: wheel spin rates [rad/s];
steer: actual bicycle-equivalent steer angle after the steering actuator;
engine: engine speed [rad/s], gear (-1 reverse, 0 neutral, 1..N) and the
time left of a gear shift [s], for a car with a drivetrain (else 0).
"""

import math
from typing import NamedTuple

import numpy as np

from .body.layout import BODY_SIZE
from .drivetrain.equations import DRIVETRAIN_SIZE
from .jit import njit, njit_inline
from .load_transfer import AX, AY, document_loads_work, LOAD, wheel_loads_work
from .magic_formula import (
    FNOMIN, forces as mf_forces, MF_SIZE, relaxation_lengths as mf_relaxation_lengths, VXLOW)
from .tyre import slip_angle, slips, unit_forces

X, Y, YAW, VX, VY, YAW_RATE, OMEGA, STEER = 0, 1, 2, 3, 4, 5, 6, 10
ENGINE, GEAR, SHIFT_LEFT = 11, 12, 13
STATE_SIZE = 14
VELOCITY = slice(VX, OMEGA + 4)   # the 7 dynamic states of document 002
VELOCITY_SIZE = 7

# Rows of the per-wheel diagnostics array (shape DIAG_SIZE x 4).
(SLIP_RATIO, SLIP_ANGLE, NORMAL_LOAD, FORCE_X, FORCE_Y, STEER_ANGLE, ALIGNING_MOMENT,
 RELAXED_SLIP_RATIO, RELAXED_SLIP_ANGLE) = range(9)
DIAG_SIZE = 9
"""SLIP_RATIO, SLIP_ANGLE: the slips of the tyre's motion; RELAXED_*: the slips its forces
come from (with tyre relaxation, lagging those; else the same, the slip angle as the
tyre model takes it); ALIGNING_MOMENT: the tyre's moment about its z axis [N m],
positive counter-clockwise seen from above (a Magic Formula's Mz; document 002's tyre
has none: 0)."""

# Rows of the outputs array (OUTPUT_ROWS x 4): the DIAG rows, then these.
(O_FRICTION, O_WHEEL_ANGLE, O_ACCEL, O_GROUND, O_DRIVE,
 O_ENGINE) = range(DIAG_SIZE, DIAG_SIZE + 6)
OUTPUT_ROWS = DIAG_SIZE + 6
"""friction under each wheel; wheel spin angles in [-pi, pi); accelerometer
specific force (x, y) [m/s^2] in columns 0, 1; the ground under the CG:
height z [m], pitch and roll [rad] of its slope (columns 0-2); the drive
torque on each wheel [N m]; the engine (columns E_*)."""
E_TORQUE, E_CLUTCH_TORQUE, E_CLUTCH_SLIP, E_THROTTLE = range(4)
"""Columns of O_ENGINE and W_ENGINE: engine torque [N m], the torque through the
clutch [N m], the clutch's slip (engine less gearbox input speed) [rad/s], and
the throttle the engine got (0 while a shift cuts it)."""


# Layout of the flat parameter array the compiled kernels read (ModelParams.flat()).
(P_MASS, P_YAW_INERTIA, P_WHEEL_INERTIA, P_RADIUS, P_LF, P_LR, P_HALF_TRACK, P_CG_HEIGHT,
 P_GRAVITY) = range(9)
P_B, P_C, P_D = 9, 13, 17          # per-wheel Pacejka factors, 4 entries each
(P_DRAG, P_ROLLING, P_ACKERMANN, P_SLIP_MODEL, P_LOW_SPEED, P_STEER_RATE,
 P_STEER_TAU, P_LOAD_TRANSFER, P_LOAD_ITERATIONS, P_MODEL) = range(21, 31)
P_ARCADE = 31     # the arcade bicycle's parameters, ARCADE_SIZE entries (arcade.py: A_*)
ARCADE_SIZE = 8
P_DRIVETRAIN = P_ARCADE + ARCADE_SIZE
"""The drivetrain's block, DRIVETRAIN_SIZE entries (drivetrain.py: D_*)."""
P_TYRE_MODEL = P_DRIVETRAIN + DRIVETRAIN_SIZE
"""TYRE_DOCUMENT (document 002's Pacejka) or TYRE_MF (a Magic Formula per axle)."""
P_LOAD_PASSES = P_TYRE_MODEL + 1
"""Passes of the Magic Formula's load solve per evaluation (see derivatives_into)."""
P_MF_FRONT = P_TYRE_MODEL + 2
"""The front axle's Magic Formula: MF_HEAD entries (A_*), then its coefficients in
tir.COEFFICIENTS' order; the rear's follow (MF_AXLE_SIZE entries each)."""
A_VERSION52, A_CAMBER, A_PRESSURE, A_SIDE = range(4)
"""An axle's Magic Formula head: 1 for MF 5.2; static camber [rad] (negative: tops in);
inflation pressure [Pa]; +1 if the file is fitted for the left side, -1 the right."""
MF_HEAD = 4
MF_AXLE_SIZE = MF_HEAD + MF_SIZE
P_MF_REAR = P_MF_FRONT + MF_AXLE_SIZE
P_RELAX = P_MF_REAR + MF_AXLE_SIZE
"""Tyre relaxation: 1 on, 0 off; then the relaxation lengths [m] (x, y) of the front
axle and of the rear, 0 where a .tir file gives them with load (RELAX_SIZE entries)."""
RELAX_SIZE = 5
P_BODY = P_RELAX + RELAX_SIZE
"""The body: all 0 for the planar body, else the sprung body's block (body/layout.py B_*)."""
P_RADIUS_REAR = P_BODY + BODY_SIZE
"""The rear wheels' radius [m] (P_RADIUS: the front's; radius_of() picks)."""
PARAM_SIZE = P_RADIUS_REAR + 1
TYRE_DOCUMENT, TYRE_MF = 0, 1
MF_COLD_PASSES = 40
"""Passes of the load solve when no loads are known yet (a fresh or reset car)."""
MF_SLOWEST_M_S = 1e-3
"""The least speed a Magic Formula's slips and the relaxation divide by [m/s]."""
MF_SHORTEST_RELAXATION_M = 1e-4
"""The least relaxation length [m] (a .tir file's goes to 0 with the load)."""
MF_LOAD_TOLERANCE = 1e-12
"""Extra passes stop once no load moves by more than this share of itself."""
FOUR_WHEEL, KINEMATIC_BICYCLE, ARCADE_BICYCLE = 0, 1, 2
"""P_MODEL: which vehicle model the kernels step (models.py dispatches)."""
LOAD_EXACT, LOAD_DOCUMENT = 0, 1
"""P_LOAD_TRANSFER: the exact solve with wheel lift, or document 002's iteration."""

# Rows of the per-wheel work array (WHEEL_ROWS x 4) the kernels compute in.
# Rows 0, 1, 4, 8-12 are load_transfer's (a_x, a_y, loads, its scratch).
W_AX, W_AY, W_LOAD = AX, AY, LOAD
W_UNIT_X, W_UNIT_Y, W_COS, W_SIN, W_DELTA = 2, 3, 5, 6, 7
W_MU, W_DIRECTION, W_STUCK, W_STEER, W_GRAVITY, W_GROUND = 13, 14, 15, 16, 17, 18
W_DRIVE, W_ENGINE, W_SPIN, W_INVERSE, W_TRANSFER = 19, 20, 21, 22, 23
W_MF_OUT, W_START_LOAD, W_KEPT_LOAD = 24, 27, 28
W_RELAXED_X, W_RELAXED_Y, W_KEEP_X, W_KEEP_Y, W_RELAXING = 29, 30, 31, 32, 33
(W_BODY_GROUND, W_BODY_SLOPE_X, W_BODY_SLOPE_Y, W_BODY_AT_X, W_BODY_AT_Y, W_BODY_NOW,
 W_BODY_NOW_RATE, W_BODY_FX, W_BODY_FY, W_BODY_ACCEL, W_REGIME) = range(34, 45)
W_JACOBIAN_LOAD = 48
WHEEL_ROWS = 49
"""The sprung body's rows (body/suspension.py): the ground under each wheel as looked up
(height, gradient in the odom frame, where), its height now and how fast it rises there;
each wheel's force in the plane and the car's acceleration (columns 0, 1) for the body;
the regimes of its laws (4 rows from W_REGIME). W_BODY_ACCEL column 2: the sprung mass's
vertical acceleration over the last sub-step [m/s^2]. W_JACOBIAN_LOAD: the loads the
implicit scheme's Jacobian was computed at (body/suspension.py loads_moved)."""
"""W_MF_OUT: a Magic Formula's outputs (3 rows: magic_formula.OUTPUTS); W_START_LOAD,
W_KEPT_LOAD: the loads an evaluation started from, and the loads set aside while the
Jacobian's differences evaluate (MF tyres). W_RELAXED_X, _Y: each tyre's relaxed slips
(x: the slip ratio, y: tan of the slip angle); W_KEEP_X, _Y: the share of each a sub-step
keeps (the rest is the motion's: relaxation_blend); W_RELAXING column 0: 1 once the
relaxed slips are set."""
"""W_DRIVE: the drive torque on each wheel this sub-step [N m] (the command's, or
the drivetrain's); W_ENGINE: the drivetrain's engine figures (columns E_*);
W_SPIN, W_INVERSE, W_TRANSFER: the drivetrain solve's wheel speeds, inverse
inertias and differentials' impulses (columns 0, 1: front, rear)."""
"""W_GRAVITY: gravity along the ground in the body frame (x, y) and normal to
it [m/s^2] (columns 0-2), set for each step from the ground under the car;
W_GROUND: that ground's height, pitch and roll (columns 0-2)."""
"""W_STEER: the steer angle the geometry rows (W_COS, W_SIN, W_DELTA) were
computed for (column 0), and 1 once they were (column 1)."""

# A command as the kernels read it: one float64 array of COMMAND_SIZE.
C_STEER, C_RATE, C_DRIVE, C_BRAKE, C_HANDBRAKE = 0, 1, 2, 6, 10
C_DRIVER, C_THROTTLE, C_GEAR = 11, 12, 13
COMMAND_SIZE = 14
"""steer target [rad], steer rate limit [rad/s] (0: the car's own), drive
torques [N m] x4, total brake torques [N m] x4 (>= 0, handbrake included),
handbrake lever 0..1 (its torque is in the brake torques already); 1 when the
drivetrain drives the wheels (driver mode: the drive torques are not read),
its throttle 0..1 and gear request (drivetrain.AUTOMATIC, -1, 0, 1..N)."""


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
    load_transfer: int = LOAD_EXACT
    load_transfer_iterations: int = 8
    model: int = FOUR_WHEEL
    arcade: tuple = (0.0,) * ARCADE_SIZE
    drivetrain: np.ndarray = np.zeros(DRIVETRAIN_SIZE)
    tyre_model: int = TYRE_DOCUMENT
    load_passes: int = 1
    magic_formula: np.ndarray = np.zeros(2 * MF_AXLE_SIZE)
    """The front axle's head and coefficients (P_MF_FRONT's layout), then the rear's."""
    relaxation: tuple = (0.0,) * RELAX_SIZE
    """P_RELAX's block: on (1) or off (0), the lengths x, y front, x, y rear [m]."""
    body: np.ndarray = np.zeros(BODY_SIZE)
    """P_BODY's block: zeros for the planar body."""
    wheel_radius_rear_m: float = 0.0
    """The rear wheels' radius [m]; 0: wheel_radius_m (which is then all four's)."""

    def radii(self) -> np.ndarray:
        """Return each wheel's radius [m], fl, fr, rl, rr."""
        rear = self.wheel_radius_rear_m or self.wheel_radius_m
        return np.array([self.wheel_radius_m] * 2 + [rear] * 2)

    def flat(self) -> np.ndarray:
        """Return the parameters as the flat float64 array of layout P_* (PARAM_SIZE)."""
        head = [self.mass_kg, self.yaw_inertia_kg_m2, self.wheel_inertia_kg_m2,
                self.wheel_radius_m, self.cg_to_front_m, self.cg_to_rear_m,
                self.half_track_m, self.cg_height_m, self.gravity_m_s2]
        tail = [self.drag_kg_m, self.rolling_resistance_n_s_m, self.ackermann,
                float(self.slip_model), self.low_speed_m_s, self.steer_rate_rad_s,
                self.steer_time_constant_s, float(self.load_transfer),
                float(self.load_transfer_iterations), float(self.model)]
        return np.concatenate([head, self.pacejka_b, self.pacejka_c, self.pacejka_d,
                               tail, self.arcade, self.drivetrain,
                               [float(self.tyre_model), float(self.load_passes)],
                               self.magic_formula, self.relaxation,
                               self.body, self.radii()[2:3]]).astype(np.float64)


@njit_inline
def radius_of(p: np.ndarray, i: int) -> float:
    """Return wheel i's radius [m] (the front axle's or the rear's)."""
    return p[P_RADIUS] if i < 2 else p[P_RADIUS_REAR]


@njit_inline
def wheel_offset(p: np.ndarray, i: int) -> tuple:
    """Return wheel i's contact point (x, y) in the body frame, from the CG [m]."""
    return (p[P_LF] if i < 2 else -p[P_LR],
            p[P_HALF_TRACK] if i % 2 == 0 else -p[P_HALF_TRACK])


@njit
def rolling_spin(state: np.ndarray, p: np.ndarray, i: int, cos_d: float,
                 sin_d: float) -> float:
    """Return the spin [rad/s] at which wheel i (at angle cos_d, sin_d) rolls without slip."""
    px, py = wheel_offset(p, i)
    wheel_vx = state[VX] - state[YAW_RATE] * py
    wheel_vy = state[VY] + state[YAW_RATE] * px
    return (wheel_vx * cos_d + wheel_vy * sin_d) / radius_of(p, i)


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
def set_steer(steer: float, p: np.ndarray, wheel: np.ndarray) -> None:
    """Put each wheel's road-wheel angle and its cosine and sine into `wheel` (cached)."""
    if wheel[W_STEER, 1] == 1.0 and wheel[W_STEER, 0] == steer:
        return
    left, right = road_wheel_angles(steer, p[P_LF], p[P_LR], p[P_HALF_TRACK], p[P_ACKERMANN])
    for i in range(2):
        delta = left if i == 0 else right
        wheel[W_DELTA, i] = delta
        wheel[W_COS, i] = math.cos(delta)
        wheel[W_SIN, i] = math.sin(delta)
    for i in range(2, 4):     # rear wheels do not steer
        wheel[W_DELTA, i] = 0.0
        wheel[W_COS, i] = 1.0
        wheel[W_SIN, i] = 0.0
    wheel[W_STEER, 0] = steer
    wheel[W_STEER, 1] = 1.0


@njit
def derivatives_into(vectors: np.ndarray, z_row: int, dz_row: int, p: np.ndarray,
                     wheel: np.ndarray, diag: np.ndarray, with_diag: bool) -> None:
    """
    Write d/dt of the 7 dynamic states z = [vx, vy, r, omega x4] into a row.

    z is vectors[z_row, :7], the result goes to vectors[dz_row, :7]; the drive
    torques are wheel[W_DRIVE]'s. Reads the steer geometry
    (set_steer) and friction (row W_MU) from `wheel` and computes in it.
    Allocates nothing and makes no array views (each costs reference counts).
    With `with_diag`, fills `diag` (DIAG_SIZE x 4) with the tyre state.
    """
    if p[P_TYRE_MODEL] == TYRE_MF and p[P_BODY] == 0.0:
        _settle_loads(vectors, z_row, p, wheel)
    for i in range(4):
        _tyre(vectors, z_row, p, wheel, diag, with_diag, i)
    _chassis(vectors, z_row, dz_row, p, wheel, diag, with_diag)


@njit
def _settle_loads(vectors: np.ndarray, z_row: int, p: np.ndarray, wheel: np.ndarray) -> None:
    """
    Make the passes of the load solve for Magic Formula tyres before the last (_chassis's).

    The exact solve (load_transfer) takes each tyre's force as proportional
    to its load; a Magic Formula's is not (its friction and stiffness change
    with load). Each pass evaluates the tyres' forces per newton at the
    loads in W_LOAD and solves the loads those forces give. The simulator
    makes one pass an evaluation (P_LOAD_PASSES 1), starting from the loads
    the last evaluation found: the loads converge as the car moves (each
    pass shrinks their error by the load sensitivity times the load
    transfer, a few per cent), and in steady state they are the exact
    ones. The equilibria ask for passes until no load moves by
    MF_LOAD_TOLERANCE; a car without loads yet (all 0) takes MF_COLD_PASSES.
    """
    passes = int(p[P_LOAD_PASSES])
    if wheel[W_LOAD, 0] == 0.0 and wheel[W_LOAD, 1] == 0.0 and wheel[W_LOAD, 2] == 0.0 \
            and wheel[W_LOAD, 3] == 0.0:
        passes = MF_COLD_PASSES
    for i in range(4):
        wheel[W_START_LOAD, i] = wheel[W_LOAD, i]
    for _ in range(passes - 1):
        for i in range(4):
            _tyre(vectors, z_row, p, wheel, wheel, False, i)
        wheel_loads_work(wheel, p[P_MASS], wheel[W_GRAVITY, 2], p[P_LF], p[P_LR],
                         p[P_HALF_TRACK], p[P_CG_HEIGHT])
        moved = 0.0
        for i in range(4):
            moved = max(moved, abs(wheel[W_LOAD, i] - wheel[W_START_LOAD, i])
                        / max(abs(wheel[W_LOAD, i]), 1.0))
            wheel[W_START_LOAD, i] = wheel[W_LOAD, i]
        if moved <= MF_LOAD_TOLERANCE:
            return


@njit
def derivatives_one_wheel(vectors: np.ndarray, z_row: int, dz_row: int, p: np.ndarray,
                          wheel: np.ndarray, i: int) -> None:
    """
    derivatives_into() when z differs only in wheel i's spin from the last evaluation.

    The other tyres' rows in `wheel` are still right and are kept: the same
    numbers as derivatives_into() for a quarter of the tyre work.
    """
    if p[P_TYRE_MODEL] == TYRE_MF and p[P_LOAD_PASSES] != 1.0:
        derivatives_into(vectors, z_row, dz_row, p, wheel, wheel, False)
        return      # (one pass: the others' forces per newton are at the same loads)
    _tyre(vectors, z_row, p, wheel, wheel, False, i)
    _chassis(vectors, z_row, dz_row, p, wheel, wheel, False)


@njit_inline
def _motion_slips(vectors: np.ndarray, z_row: int, p: np.ndarray, wheel: np.ndarray,
                  i: int) -> tuple:
    """
    Return wheel i's contact-patch velocity in its tyre frame and its slips (vx', vy', sx, sy).

    Document 002's tyre: the slips of the vehicle file's slip_model
    (tyre.slips). A Magic Formula's are its own: kappa = (omega R - vx') and
    tan(alpha) = vy', each over |vx'| (at least low_speed_m_s), as the file
    is fitted, whatever the wheel's spin.
    """
    vx, vy, r = vectors[z_row, 0], vectors[z_row, 1], vectors[z_row, 2]
    px, py = wheel_offset(p, i)
    # A.4: wheel-centre velocity in the body frame, then in the tyre frame.
    wheel_vx = vx - r * py
    wheel_vy = vy + r * px
    cos_d, sin_d = wheel[W_COS, i], wheel[W_SIN, i]
    vx_t = wheel_vx * cos_d + wheel_vy * sin_d
    vy_t = -wheel_vx * sin_d + wheel_vy * cos_d
    omega_r = vectors[z_row, 3 + i] * radius_of(p, i)
    if p[P_TYRE_MODEL] == TYRE_MF:
        denominator = max(abs(vx_t), p[P_LOW_SPEED], MF_SLOWEST_M_S)
        return vx_t, vy_t, (omega_r - vx_t) / denominator, vy_t / denominator
    sx, sy = slips(vx_t, vy_t, omega_r, int(p[P_SLIP_MODEL]), p[P_LOW_SPEED])
    return vx_t, vy_t, sx, sy


@njit_inline
def _tyre(vectors: np.ndarray, z_row: int, p: np.ndarray, wheel: np.ndarray,
          diag: np.ndarray, with_diag: bool, i: int) -> None:
    """Wheel i's force per newton of load, in its tyre frame and in the body frame."""
    # A.5: the slips of the motion, and with relaxation the slips the tyre has.
    vx_t, vy_t, sx, sy = _motion_slips(vectors, z_row, p, wheel, i)
    if with_diag:
        diag[0, i] = sx
        diag[1, i] = slip_angle(vx_t, vy_t)
        diag[5, i] = wheel[W_DELTA, i]
    if p[P_RELAX] != 0.0 and wheel[W_RELAXING, 0] == 1.0:
        keep_x, keep_y = wheel[W_KEEP_X, i], wheel[W_KEEP_Y, i]
        sx = keep_x * wheel[W_RELAXED_X, i] + (1.0 - keep_x) * sx
        sy = keep_y * wheel[W_RELAXED_Y, i] + (1.0 - keep_y) * sy
    if with_diag:
        diag[7, i] = sx
        diag[8, i] = math.atan(sy)
    # A.6: force per newton of load.
    if p[P_TYRE_MODEL] == TYRE_MF:
        fx_t, fy_t, mz_t = _mf_unit_forces(p, wheel, i, sx, sy, vx_t, with_diag)
        if with_diag:
            diag[6, i] = mz_t        # per newton, until _chassis has the load
    else:
        fx_t, fy_t = unit_forces(sx, sy, p[P_B + i], p[P_C + i], p[P_D + i])
        fx_t *= wheel[W_MU, i]
        fy_t *= wheel[W_MU, i]
    wheel[W_UNIT_X, i] = fx_t
    wheel[W_UNIT_Y, i] = fy_t
    # A.3: back to the body frame.
    cos_d, sin_d = wheel[W_COS, i], wheel[W_SIN, i]
    wheel[W_AX, i] = fx_t * cos_d - fy_t * sin_d
    wheel[W_AY, i] = fx_t * sin_d + fy_t * cos_d


@njit
def relaxation_blend(vectors: np.ndarray, z_row: int, p: np.ndarray, wheel: np.ndarray,
                     h: float) -> None:
    """
    Set how a sub-step of h from z blends each tyre's relaxed slips with those of its motion.

    Relaxation: d s'/dt = (s - s') k, k = max(|vx'|, low_speed_m_s) / sigma,
    for the slips s' the tyre has and s those of its motion, sigma its
    relaxation length (x: longitudinal, y: lateral). Implicit Euler gives
    s'(t + h) = s'(t) / (1 + h k) + s(t + h) h k / (1 + h k): the tyre's
    slips over the sub-step are the motion's, at the new state, blended with
    the old relaxed ones (the share W_KEEP_X, W_KEEP_Y kept), so the chassis
    and wheel solve keeps its size and its stability at any speed. k is taken
    at the sub-step's start. Relaxed slips not yet set (a car just placed)
    start as the motion's.
    """
    start = wheel[W_RELAXING, 0] != 1.0
    for i in range(4):
        vx_t, _, sx, sy = _motion_slips(vectors, z_row, p, wheel, i)
        if start:
            wheel[W_RELAXED_X, i] = sx
            wheel[W_RELAXED_Y, i] = sy
        sigma_x, sigma_y = tyre_relaxation_lengths(p, wheel, i)
        rate = h * max(abs(vx_t), p[P_LOW_SPEED], MF_SLOWEST_M_S)
        wheel[W_KEEP_X, i] = 1.0 / (1.0 + rate / sigma_x)
        wheel[W_KEEP_Y, i] = 1.0 / (1.0 + rate / sigma_y)
    wheel[W_RELAXING, 0] = 1.0


@njit
def relax(vectors: np.ndarray, z_row: int, p: np.ndarray, wheel: np.ndarray) -> None:
    """Move each tyre's relaxed slips to the end of the sub-step relaxation_blend set up."""
    for i in range(4):
        _, _, sx, sy = _motion_slips(vectors, z_row, p, wheel, i)
        keep_x, keep_y = wheel[W_KEEP_X, i], wheel[W_KEEP_Y, i]
        wheel[W_RELAXED_X, i] = keep_x * wheel[W_RELAXED_X, i] + (1.0 - keep_x) * sx
        wheel[W_RELAXED_Y, i] = keep_y * wheel[W_RELAXED_Y, i] + (1.0 - keep_y) * sy


@njit
def tyre_relaxation_lengths(p: np.ndarray, wheel: np.ndarray, i: int) -> tuple:
    """
    Return wheel i's relaxation lengths (x, y) [m].

    The vehicle file's where it gives them, else its .tir file's at the
    wheel's load (W_LOAD; magic_formula.relaxation_lengths), at least
    MF_SHORTEST_RELAXATION_M (a lifted wheel's).
    """
    k = P_RELAX + 1 + (0 if i < 2 else 2)
    sigma_x, sigma_y = p[k], p[k + 1]
    if sigma_x <= 0.0 or sigma_y <= 0.0:
        base = P_MF_FRONT if i < 2 else P_MF_REAR
        side = 1.0 if i % 2 == 0 else -1.0
        sigma_x, sigma_y = mf_relaxation_lengths(
            p[base + MF_HEAD:base + MF_AXLE_SIZE], p[base + A_VERSION52] != 0.0,
            wheel[W_LOAD, i], -side * p[base + A_CAMBER], p[base + A_PRESSURE],
            wheel[W_MF_OUT:W_MF_OUT + 3].reshape(12))
    return (max(sigma_x, MF_SHORTEST_RELAXATION_M), max(sigma_y, MF_SHORTEST_RELAXATION_M))


@njit
def _mf_unit_forces(p: np.ndarray, wheel: np.ndarray, i: int, sx: float, sy: float,
                    vx_t: float, moments: bool) -> tuple:
    """
    Return wheel i's Magic Formula force (x, y) and moment Mz per newton of its load (W_LOAD).

    The one place the Magic Formula's axes meet ours: its ISO-W frame is the
    tyre frame here (x along the wheel, y left, z up), kappa the slip sx and
    alpha the angle of the slip velocity, atan(sy) (so a wheel sliding left
    has alpha > 0 and a force to the right). A wheel on the side the file
    was not fitted for is its mirror image: alpha and camber change sign in,
    Fy out. The camber is the axle's static camber as the car has it
    (negative: tops in), the inclination about x on the left wheels, minus it
    on the right. The surface's grip (W_MU) scales LMUX and LMUY. Below
    1 % of FNOMIN the forces are taken per newton at that load, so that a
    wheel about to lift still has a direction to push in. Below VXLOW the
    shifts fade smoothly to none at rest (no force without slip there).
    The moment only with `moments` (else 0): the outputs want it, the
    chassis not (the steering is a commanded angle).
    """
    base = P_MF_FRONT if i < 2 else P_MF_REAR
    coefficients = p[base + MF_HEAD:base + MF_AXLE_SIZE]
    load = max(wheel[W_LOAD, i], 0.01 * coefficients[FNOMIN])
    side = 1.0 if i % 2 == 0 else -1.0                   # +1 left wheels, -1 right
    mirror = side * p[base + A_SIDE]
    gamma = -side * p[base + A_CAMBER]
    fade = 1.0
    if abs(vx_t) < coefficients[VXLOW]:
        fade = 0.5 - 0.5 * math.cos(math.pi * abs(vx_t) / coefficients[VXLOW])
    out = wheel[W_MF_OUT:W_MF_OUT + 3].reshape(12)
    mf_forces(coefficients, p[base + A_VERSION52] != 0.0, load, sx, mirror * math.atan(sy),
              mirror * gamma, vx_t, p[base + A_PRESSURE], out, moments, wheel[W_MU, i], fade)
    return out[0] / load, mirror * out[1] / load, mirror * out[2] / load


@njit_inline
def _chassis(vectors: np.ndarray, z_row: int, dz_row: int, p: np.ndarray, wheel: np.ndarray,
             diag: np.ndarray, with_diag: bool) -> None:
    """From the tyres' forces per newton: loads, wheel spin and chassis derivatives."""
    vx, vy, r = vectors[z_row, 0], vectors[z_row, 1], vectors[z_row, 2]
    lf, lr, c = p[P_LF], p[P_LR], p[P_HALF_TRACK]
    inertia = p[P_WHEEL_INERTIA]
    # A.7: loads, solved exactly with the forces they produce (or as the document does),
    # under the gravity normal to the ground (reference 004's slopes); on springs, given.
    normal_g = wheel[W_GRAVITY, 2]
    if p[P_BODY] != 0.0:
        pass        # the sprung body's tyres set the loads (body/suspension.py set_loads)
    elif p[P_LOAD_TRANSFER] == LOAD_DOCUMENT:
        document_loads_work(wheel, p[P_MASS], normal_g, lf, lr, c, p[P_CG_HEIGHT],
                            int(p[P_LOAD_ITERATIONS]))
    else:
        wheel_loads_work(wheel, p[P_MASS], normal_g, lf, lr, c, p[P_CG_HEIGHT])
    force_x = p[P_MASS] * wheel[W_GRAVITY, 0]      # gravity along the ground
    force_y = p[P_MASS] * wheel[W_GRAVITY, 1]
    moment_z = 0.0
    for i in range(4):
        px, py = wheel_offset(p, i)
        load = wheel[W_LOAD, i]
        if with_diag:
            diag[2, i] = load
        if load < 0.0:        # document mode: the formula's load, no force
            load = 0.0
        fx = wheel[W_AX, i] * load
        fy = wheel[W_AY, i] * load
        force_x += fx
        force_y += fy
        moment_z += px * fy - py * fx
        tyre_fx = wheel[W_UNIT_X, i] * load
        vectors[dz_row, 3 + i] = (wheel[W_DRIVE, i] - tyre_fx * radius_of(p, i)) / inertia
        if with_diag:
            diag[3, i] = tyre_fx
            diag[4, i] = wheel[W_UNIT_Y, i] * load
            diag[6, i] = diag[6, i] * load if p[P_TYRE_MODEL] == TYRE_MF else 0.0
    # Reference 003: drag -C_drag |v| v and rolling resistance -C_rr v, at the CG.
    resistance = p[P_ROLLING] + p[P_DRAG] * math.sqrt(vx * vx + vy * vy)
    # A.2: chassis.
    vectors[dz_row, 0] = vy * r + (force_x - resistance * vx) / p[P_MASS]
    vectors[dz_row, 1] = -vx * r + (force_y - resistance * vy) / p[P_MASS]
    vectors[dz_row, 2] = moment_z / p[P_YAW_INERTIA]


@njit
def derivatives(z: np.ndarray, steer: float, drive: np.ndarray, mu: np.ndarray,
                p: np.ndarray, diag: np.ndarray) -> np.ndarray:
    """
    Return d/dt of the 7 dynamic states z = [vx, vy, r, omega x4] (allocating).

    steer: bicycle-equivalent steer angle [rad]; drive: wheel torques [N m];
    mu: friction coefficient at each wheel; p: flat parameters
    (ModelParams.flat()). Fills `diag` (DIAG_SIZE x 4).
    """
    wheel = np.zeros((WHEEL_ROWS, 4))
    wheel[W_MU] = mu
    wheel[W_GRAVITY, 2] = p[P_GRAVITY]      # flat ground
    set_steer(steer, p, wheel)
    vectors = np.zeros((2, 7))
    vectors[0] = z[:7]
    wheel[W_DRIVE] = drive
    derivatives_into(vectors, 0, 1, p, wheel, diag, True)
    return vectors[1].copy()


@njit
def contact_point(state: np.ndarray, cos_yaw: float, sin_yaw: float, p: np.ndarray,
                  i: int) -> tuple:
    """Return wheel i's contact point (x, y) in the odom frame (cos, sin of the yaw given)."""
    c, s = cos_yaw, sin_yaw
    px, py = wheel_offset(p, i)
    return state[X] + c * px - s * py, state[Y] + s * px + c * py
