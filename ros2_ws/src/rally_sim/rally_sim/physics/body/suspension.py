"""
The sprung body on its suspension: heave, roll and pitch over four corners.

The planar model (document 002) moves the car in the plane; this module
moves its sprung mass and its four unsprung masses up and down, and gives
the planar model each wheel's load: the tyre's vertical force, so load
transfer has its dynamics and a wheel whose tyre is not compressed carries
nothing. Positions q = [heave, roll, pitch, wheel_z x4] (layout.py),
velocities v their rates. For each corner i (wheel rates, measured at the
wheel; p_x, p_y its place from the sprung centre of gravity):

- compression  s_i = wheel_z_i - (heave + p_y roll - p_x pitch) + (h_s - R),
  0 at static ride (h_s: the sprung centre of gravity's height, R the wheel
  radius);
- spring       preload S_i + k s_i, never pulling (a spring off its seat);
- damper       c s_i', c the bump damping when compressing, else rebound;
- stops        k_stop (s_i - bump travel) beyond the bump stop, k_stop
  (s_i + rebound travel) beyond full droop (the wheel hangs from the body),
  and their damping c_stop s_i' while in them;
- anti-roll bar  k_bar (s_left - s_right) on the left corner, minus it on
  the right (k_bar: its roll stiffness / (2 c)^2);
- tyre         F_z = k_t d + c_t d' while it pushes, else 0 (the wheel lifts),
  d = ground + R + d_0 - wheel_z (d_0: its static deflection).

Equations (small angles, in the car's yawed frame; m_s, I_xx, I_yy the
sprung mass and its inertias, m_u the unsprung masses, F_s the corner's
suspension force on the body, n the ground's normal's length):

  m_s heave''  = sum F_s - m_s g
  I_xx roll''  = sum p_y F_s + h_s L - sum_axles h_rc L_axle + m_s g (h_s - h_ra) roll
  I_yy pitch'' = -sum p_x F_s - h_s X + m_s g h_s pitch
  m_u wheel_z'' = F_z / n - F_s - U - m_u g

X and L are what the wheels' links pass to the sprung mass in the plane:
the tyres' forces less the unsprung masses' own inertia (m_u a), at the
ground for X (no anti-dive or anti-squat geometry) and at each axle's
roll centre (height h_rc) for L_axle. The part of the lateral transfer
below the roll centre reaches the tyres at once (the geometric transfer
U = +-(L_axle h_rc + m_u,axle a_y R) / 2c, and +-sum m_u a_x R / 2 l for
pitch); only the part above it rolls the body. h_ra is the roll axis's
height under the sprung mass: the body's weight leans further as it rolls
(and pitches). In steady state the loads' transfer sums to m a h, as the
planar model's; with stiff springs the loads are its exact ones.

Each sub-step is a linearly implicit Euler step of the 7 velocities with
each law's regime (spring seated, stop, damper direction, tyre in contact)
taken where the step ends: the forces are affine in each regime, so the
step is the exact implicit Euler step of the piecewise-affine model
(passes until the regimes agree), stable on the tyres' and stops' rates
and through landings.
"""

import math

import numpy as np

from .layout import (
    B_FRONT, B_PITCH_INERTIA, B_REAR, B_ROLL_AXIS, B_ROLL_INERTIA, B_SPRUNG_HEIGHT,
    B_SPRUNG_MASS, B_SPRUNG_X, BODY_DOF, BODY_POSITIONS, BODY_RATES, HEAVE, PITCH, ROLL,
    SPRUNG_STATE_SIZE, WHEEL_Z, X_BAR_RATE, X_BUMP_DAMPING, X_BUMP_TRAVEL, X_PRELOAD,
    X_REBOUND_DAMPING, X_REBOUND_TRAVEL, X_ROLL_CENTRE, X_SPRING, X_STOP_DAMPING, X_STOP_RATE,
    X_TYRE_DAMPING,
    X_TYRE_RATE, X_TYRE_STATIC, X_UNSPRUNG)
from ..jit import njit, njit_inline
from ..linear import solve_in_place
from ..model import (
    P_BODY, P_GRAVITY, P_HALF_TRACK, P_LF, P_LR, P_MASS, P_RADIUS, P_RADIUS_REAR,
    radius_of, VX, W_AX, W_AY, W_BODY_ACCEL,
    W_BODY_AT_X, W_BODY_AT_Y, W_BODY_FX, W_BODY_FY, W_BODY_GROUND, W_BODY_NOW, W_BODY_NOW_RATE,
    W_BODY_SLOPE_X, W_BODY_SLOPE_Y, W_GRAVITY, W_JACOBIAN_LOAD, W_LOAD, W_REGIME, wheel_offset,
    X, Y, YAW)
from ..surfaces import G_FLAT, G_RESOLUTION, height_at

LOAD_REFRESH_SHARE = 0.2
"""A wheel's load may move by this share of itself (at least of a quarter of its static
load) before the implicit scheme's Jacobian, which holds the loads, is computed again."""
REGIME_PASSES = 6
"""Most solves of a sub-step while the regimes at its end differ from those assumed."""
R_SPRING, R_STOP, R_DAMPER, R_TYRE = 0, 1, 2, 3
"""Rows from W_REGIME: spring seated (1) or not; stop (-1 droop, 0 none, 1 bump); damper
compressing (1) or not; tyre pushing (1) or not."""


@njit_inline
def axle_base(i: int) -> int:
    """Return the index of wheel i's axle block in the parameters."""
    return P_BODY + (B_FRONT if i < 2 else B_REAR)


@njit_inline
def corner(p: np.ndarray, i: int) -> tuple:
    """Return corner i's place (p_x, p_y) from the sprung centre of gravity [m]."""
    px, py = wheel_offset(p, i)
    return px - p[P_BODY + B_SPRUNG_X], py


@njit_inline
def compression(state: np.ndarray, p: np.ndarray, i: int, rates: bool) -> float:
    """Return corner i's compression s_i [m] (0 at static ride), or its rate with `rates`."""
    px, py = corner(p, i)
    o = BODY_RATES if rates else BODY_POSITIONS
    s = state[o + 3 + i] - state[o] - py * state[o + 1] + px * state[o + 2]
    if not rates:
        s += p[P_BODY + B_SPRUNG_HEIGHT] - radius_of(p, i)
    return s


@njit_inline
def tyre_deflection(state: np.ndarray, p: np.ndarray, wheel: np.ndarray, i: int) -> tuple:
    """Return tyre i's deflection [m] and its rate [m/s] over the ground under it now."""
    a = axle_base(i)
    d = wheel[W_BODY_NOW, i] + radius_of(p, i) + p[a + X_TYRE_STATIC] - state[WHEEL_Z + i]
    return d, wheel[W_BODY_NOW_RATE, i] - state[BODY_RATES + 3 + i]


@njit
def tyre_force(state: np.ndarray, p: np.ndarray, wheel: np.ndarray, i: int) -> float:
    """Return tyre i's vertical force [N]: k_t d + c_t d' while it pushes, else 0."""
    a = axle_base(i)
    d, rate = tyre_deflection(state, p, wheel, i)
    if d <= 0.0:
        return 0.0
    return max(p[a + X_TYRE_RATE] * d + p[a + X_TYRE_DAMPING] * rate, 0.0)


def travels(states: np.ndarray, p: np.ndarray) -> np.ndarray:
    """
    Return each wheel's compression from static ride [m] for rows of states (N, 4).

    compression()'s, in NumPy over the rows (Python calls no compiled function).
    """
    travel = np.empty((len(states), 4))
    for i in range(4):
        px = (p[P_LF] if i < 2 else -p[P_LR]) - p[P_BODY + B_SPRUNG_X]
        py = p[P_HALF_TRACK] if i % 2 == 0 else -p[P_HALF_TRACK]
        travel[:, i] = (states[:, WHEEL_Z + i] - states[:, HEAVE] - py * states[:, ROLL]
                        + px * states[:, PITCH] + p[P_BODY + B_SPRUNG_HEIGHT]
                        - (p[P_RADIUS] if i < 2 else p[P_RADIUS_REAR]))
    return travel


@njit
def placed(state: np.ndarray) -> bool:
    """Return whether the body is on its suspension yet: a block of all zeros is not."""
    for k in range(HEAVE, SPRUNG_STATE_SIZE):
        if state[k] != 0.0:
            return True
    return False


@njit
def place(state: np.ndarray, p: np.ndarray, wheel: np.ndarray) -> None:
    """
    Put the body at rest at its static ride over the ground under its wheels (W_BODY_NOW).

    Each wheel centre at a wheel radius over its ground, the sprung body on the
    plane that best fits its corners at static ride.
    """
    lift = p[P_BODY + B_SPRUNG_HEIGHT]
    for k in range(HEAVE, SPRUNG_STATE_SIZE):
        state[k] = 0.0
    for i in range(4):
        state[WHEEL_Z + i] = wheel[W_BODY_NOW, i] + radius_of(p, i)
    front = 0.5 * (state[WHEEL_Z] + state[WHEEL_Z + 1]) + (lift - p[P_RADIUS])
    rear = 0.5 * (state[WHEEL_Z + 2] + state[WHEEL_Z + 3]) + (lift - p[P_RADIUS_REAR])
    base = p[P_LF] + p[P_LR]
    c = p[P_HALF_TRACK]
    state[PITCH] = (rear - front) / base
    state[ROLL] = 0.25 * (state[WHEEL_Z] - state[WHEEL_Z + 1] + state[WHEEL_Z + 2]
                          - state[WHEEL_Z + 3]) / c
    state[HEAVE] = rear + (p[P_BODY + B_SPRUNG_X] + p[P_LR]) / base * (front - rear)


@njit
def look_up_ground(state: np.ndarray, p: np.ndarray, grid: np.ndarray, meta: np.ndarray,
                   wheel: np.ndarray) -> None:
    """
    Write the ground under each wheel's contact point: height, gradient and where.

    The gradient is the central difference over one pixel (as ground_under's);
    the sub-steps follow the ground along it (ground_now).
    """
    c, s = math.cos(state[YAW]), math.sin(state[YAW])
    flat = meta[G_FLAT] == 1.0
    step = meta[G_RESOLUTION]
    for i in range(4):
        px, py = wheel_offset(p, i)
        x, y = state[X] + c * px - s * py, state[Y] + s * px + c * py
        wheel[W_BODY_AT_X, i], wheel[W_BODY_AT_Y, i] = x, y
        if flat:
            wheel[W_BODY_GROUND, i] = 0.0
            wheel[W_BODY_SLOPE_X, i] = wheel[W_BODY_SLOPE_Y, i] = 0.0
            continue
        wheel[W_BODY_GROUND, i] = height_at(grid, meta, x, y)
        wheel[W_BODY_SLOPE_X, i] = (height_at(grid, meta, x + step, y)
                                    - height_at(grid, meta, x - step, y)) / (2 * step)
        wheel[W_BODY_SLOPE_Y, i] = (height_at(grid, meta, x, y + step)
                                    - height_at(grid, meta, x, y - step)) / (2 * step)
    ground_now(state, p, wheel, c, s)


@njit
def ground_now(state: np.ndarray, p: np.ndarray, wheel: np.ndarray, cos_yaw: float,
               sin_yaw: float) -> None:
    """Write the ground's height under each contact point now, and how fast it rises there."""
    c, s = cos_yaw, sin_yaw
    vx, vy, r = state[VX], state[VX + 1], state[VX + 2]
    for i in range(4):
        px, py = wheel_offset(p, i)
        x, y = state[X] + c * px - s * py, state[Y] + s * px + c * py
        gx, gy = wheel[W_BODY_SLOPE_X, i], wheel[W_BODY_SLOPE_Y, i]
        wheel[W_BODY_NOW, i] = (wheel[W_BODY_GROUND, i] + gx * (x - wheel[W_BODY_AT_X, i])
                                + gy * (y - wheel[W_BODY_AT_Y, i]))
        wheel_vx, wheel_vy = vx - r * py, vy + r * px
        wheel[W_BODY_NOW_RATE, i] = (gx * (c * wheel_vx - s * wheel_vy)
                                     + gy * (s * wheel_vx + c * wheel_vy))


@njit
def set_loads(state: np.ndarray, p: np.ndarray, wheel: np.ndarray, cos_yaw: float,
              sin_yaw: float) -> None:
    """
    Give the planar model each wheel's load and the ground's push along it.

    The load is the tyre's force along the ground's normal; its component in
    the plane pushes the car downhill (per kilogram of the car, in W_GRAVITY's
    x and y: the planar model's gravity along the ground, which a car in the
    air does not feel; each wheel's in W_BODY_FX, W_BODY_FY).
    """
    ground_now(state, p, wheel, cos_yaw, sin_yaw)
    c, s = cos_yaw, sin_yaw
    push_x = push_y = 0.0
    for i in range(4):
        load = tyre_force(state, p, wheel, i)
        wheel[W_LOAD, i] = load
        gx, gy = wheel[W_BODY_SLOPE_X, i], wheel[W_BODY_SLOPE_Y, i]
        along = load / math.sqrt(1.0 + gx * gx + gy * gy)
        wheel[W_BODY_FX, i] = -along * (c * gx + s * gy)
        wheel[W_BODY_FY, i] = -along * (-s * gx + c * gy)
        push_x += wheel[W_BODY_FX, i]
        push_y += wheel[W_BODY_FY, i]
    wheel[W_GRAVITY, 0] = push_x / p[P_MASS]
    wheel[W_GRAVITY, 1] = push_y / p[P_MASS]


@njit
def loads_moved(p: np.ndarray, wheel: np.ndarray) -> bool:
    """
    Return whether a wheel's load moved too far from the one the Jacobian holds.

    The planar step's Jacobian takes the loads as given; its tyres' stiffness
    scales with them. A wheel landing from the air, or loaded much harder,
    would meet a matrix that knows a fraction of its stiffness (stable only
    while the two stay close): LOAD_REFRESH_SHARE of the load, or of a
    quarter of the wheel's static load from the air.
    """
    quarter = 0.0625 * p[P_MASS] * p[P_GRAVITY]
    for i in range(4):
        kept = wheel[W_JACOBIAN_LOAD, i]
        if abs(wheel[W_LOAD, i] - kept) > LOAD_REFRESH_SHARE * max(kept, quarter):
            return True
    return False


@njit
def take_forces(vectors: np.ndarray, z_row: int, f_row: int, wheel: np.ndarray) -> None:
    """
    Keep what the planar model's evaluation at z gives the body: forces and acceleration.

    Each wheel's force in the plane (its tyre's, added to the ground's push at
    it that set_loads() left; body frame) and the acceleration of the car's
    centre of gravity, from f(z) in vectors[f_row].
    """
    for i in range(4):
        load = wheel[W_LOAD, i]
        wheel[W_BODY_FX, i] += wheel[W_AX, i] * load
        wheel[W_BODY_FY, i] += wheel[W_AY, i] * load
    vx, vy, r = vectors[z_row, 0], vectors[z_row, 1], vectors[z_row, 2]
    wheel[W_BODY_ACCEL, 0] = vectors[f_row, 0] - vy * r
    wheel[W_BODY_ACCEL, 1] = vectors[f_row, 1] + vx * r


@njit_inline
def _spring(p: np.ndarray, a: int, s: float, stop: float, seated: float) -> tuple:
    """Return a corner's spring and stop force [N] at compression s, and its rate, by regime."""
    force = rate = 0.0
    if seated == 1.0:
        force = p[a + X_PRELOAD] + p[a + X_SPRING] * s
        rate = p[a + X_SPRING]
    if stop > 0.0:
        force += p[a + X_STOP_RATE] * (s - p[a + X_BUMP_TRAVEL])
        rate += p[a + X_STOP_RATE]
    elif stop < 0.0:
        force += p[a + X_STOP_RATE] * (s + p[a + X_REBOUND_TRAVEL])
        rate += p[a + X_STOP_RATE]
    return force, rate


@njit
def _regimes(state: np.ndarray, p: np.ndarray, wheel: np.ndarray) -> bool:
    """Set each law's regime at `state` (W_REGIME rows); return whether any changed."""
    changed = False
    for i in range(4):
        a = axle_base(i)
        s = compression(state, p, i, False)
        seated = 1.0 if p[a + X_PRELOAD] + p[a + X_SPRING] * s > 0.0 else 0.0
        stop = 0.0
        if s > p[a + X_BUMP_TRAVEL]:
            stop = 1.0
        elif s < -p[a + X_REBOUND_TRAVEL]:
            stop = -1.0
        damper = 1.0 if compression(state, p, i, True) > 0.0 else 0.0
        d, rate = tyre_deflection(state, p, wheel, i)
        pushing = 1.0 if d > 0.0 and p[a + X_TYRE_RATE] * d + p[a + X_TYRE_DAMPING] * rate \
            > 0.0 else 0.0
        for row, value in ((R_SPRING, seated), (R_STOP, stop), (R_DAMPER, damper),
                           (R_TYRE, pushing)):
            if wheel[W_REGIME + row, i] != value:
                wheel[W_REGIME + row, i] = value
                changed = True
    return changed


@njit_inline
def _add_outer(matrix: np.ndarray, p: np.ndarray, i: int, j: int, coefficient: float) -> None:
    """Add coefficient J_i J_j^T to a 7 x 7 matrix, J_i = d s_i / d q (corner i's compression)."""
    pxi, pyi = corner(p, i)
    pxj, pyj = corner(p, j)
    ji = (-1.0, -pyi, pxi)
    jj = (-1.0, -pyj, pxj)
    for r in range(3):
        for k in range(3):
            matrix[r, k] += coefficient * ji[r] * jj[k]
        matrix[r, 3 + j] += coefficient * ji[r]
        matrix[3 + i, r] += coefficient * jj[r]
    matrix[3 + i, 3 + j] += coefficient


@njit
def _assemble(state: np.ndarray, p: np.ndarray, wheel: np.ndarray, h: float,
              matrix: np.ndarray, rhs: np.ndarray) -> None:
    """
    Write M + h D + h^2 K and h (Q - h K v) for the regimes in W_REGIME at `state`.

    Q: the generalised forces at `state` by each regime's affine law; K, D:
    minus their derivatives by the positions and the velocities.
    """
    b = P_BODY
    g = p[P_GRAVITY]
    m_s, h_s = p[b + B_SPRUNG_MASS], p[b + B_SPRUNG_HEIGHT]
    for r in range(BODY_DOF):
        rhs[r] = 0.0
        for k in range(BODY_DOF):
            matrix[r, k] = 0.0
    stiff = h * h
    for i in range(4):
        a = axle_base(i)
        px, py = corner(p, i)
        s = compression(state, p, i, False)
        force, rate = _spring(p, a, s, wheel[W_REGIME + R_STOP, i],
                              wheel[W_REGIME + R_SPRING, i])
        damping = p[a + X_BUMP_DAMPING] if wheel[W_REGIME + R_DAMPER, i] == 1.0 \
            else p[a + X_REBOUND_DAMPING]
        if wheel[W_REGIME + R_STOP, i] != 0.0:
            damping += p[a + X_STOP_DAMPING]
        force += damping * compression(state, p, i, True)
        # the bar: k_bar (s_i - s_other) on each corner of the axle
        other = i + 1 if i % 2 == 0 else i - 1
        bar = p[a + X_BAR_RATE]
        force += bar * (s - compression(state, p, other, False))
        _add_outer(matrix, p, i, i, stiff * (rate + bar) + h * damping)
        _add_outer(matrix, p, i, other, -stiff * bar)
        # F_s up on the body at the corner, down on the wheel: Q = -F_s J_i
        rhs[0] += force
        rhs[1] += py * force
        rhs[2] -= px * force
        rhs[3 + i] -= force + p[a + X_UNSPRUNG] * g
        if wheel[W_REGIME + R_TYRE, i] == 1.0:
            d, d_rate = tyre_deflection(state, p, wheel, i)
            gx, gy = wheel[W_BODY_SLOPE_X, i], wheel[W_BODY_SLOPE_Y, i]
            normal = 1.0 / math.sqrt(1.0 + gx * gx + gy * gy)
            rhs[3 + i] += normal * (p[a + X_TYRE_RATE] * d + p[a + X_TYRE_DAMPING] * d_rate)
            matrix[3 + i, 3 + i] += normal * (stiff * p[a + X_TYRE_RATE]
                                              + h * p[a + X_TYRE_DAMPING])
    rhs[0] -= m_s * g
    lean = m_s * g * (h_s - p[b + B_ROLL_AXIS])
    rhs[1] += lean * state[ROLL]
    matrix[1, 1] -= stiff * lean
    rhs[2] += m_s * g * h_s * state[PITCH]
    matrix[2, 2] -= stiff * m_s * g * h_s
    _add_links(p, wheel, rhs)
    # rhs = h (Q - h K v); matrix = h^2 K + h D so far: K v from it needs K alone
    for r in range(BODY_DOF):
        rhs[r] *= h
    _subtract_stiffness_times_rates(state, p, wheel, h, rhs)
    matrix[0, 0] += m_s
    matrix[1, 1] += p[b + B_ROLL_INERTIA]
    matrix[2, 2] += p[b + B_PITCH_INERTIA]
    for i in range(4):
        matrix[3 + i, 3 + i] += p[axle_base(i) + X_UNSPRUNG]


@njit
def _subtract_stiffness_times_rates(state: np.ndarray, p: np.ndarray, wheel: np.ndarray,
                                    h: float, rhs: np.ndarray) -> None:
    """Subtract h^2 K v from rhs (K: the stiffness of the regimes in W_REGIME)."""
    g = p[P_GRAVITY]
    b = P_BODY
    for i in range(4):
        a = axle_base(i)
        px, py = corner(p, i)
        _, rate = _spring(p, a, 0.0, wheel[W_REGIME + R_STOP, i], wheel[W_REGIME + R_SPRING, i])
        other = i + 1 if i % 2 == 0 else i - 1
        bar = p[a + X_BAR_RATE]
        # (rate + bar) s_i' - bar s_other' is this corner's force rate; K v = -Q' by q
        push = (rate + bar) * compression(state, p, i, True) \
            - bar * compression(state, p, other, True)
        rhs[0] += h * h * push
        rhs[1] += h * h * py * push
        rhs[2] -= h * h * px * push
        rhs[3 + i] -= h * h * push
        if wheel[W_REGIME + R_TYRE, i] == 1.0:
            gx, gy = wheel[W_BODY_SLOPE_X, i], wheel[W_BODY_SLOPE_Y, i]
            normal = 1.0 / math.sqrt(1.0 + gx * gx + gy * gy)
            rhs[3 + i] -= h * h * normal * p[a + X_TYRE_RATE] * state[BODY_RATES + 3 + i]
    m_s, h_s = p[b + B_SPRUNG_MASS], p[b + B_SPRUNG_HEIGHT]
    rhs[1] += h * h * m_s * g * (h_s - p[b + B_ROLL_AXIS]) * state[BODY_RATES + 1]
    rhs[2] += h * h * m_s * g * h_s * state[BODY_RATES + 2]


@njit
def _add_links(p: np.ndarray, wheel: np.ndarray, rhs: np.ndarray) -> None:
    """
    Add what the links pass from the plane: the body's roll and pitch moments, the tyres' pairs.

    X, L_axle: the wheels' forces in the plane less the unsprung masses'
    inertia. The body takes h_s L - sum h_rc L_axle in roll and -h_s X in
    pitch; each axle's wheels take the geometric transfer as a vertical pair.
    """
    b = P_BODY
    h_s = p[b + B_SPRUNG_HEIGHT]
    ax, ay = wheel[W_BODY_ACCEL, 0], wheel[W_BODY_ACCEL, 1]
    base, c = p[P_LF] + p[P_LR], p[P_HALF_TRACK]
    links_x = unsprung = unsprung_moment = 0.0
    for axle in range(2):
        a = P_BODY + (B_FRONT if axle == 0 else B_REAR)
        m_u = p[a + X_UNSPRUNG]
        radius = radius_of(p, 2 * axle)
        lateral = 0.0
        for i in range(2 * axle, 2 * axle + 2):
            lateral += wheel[W_BODY_FY, i] - m_u * ay
            links_x += wheel[W_BODY_FX, i] - m_u * ax
        h_rc = p[a + X_ROLL_CENTRE]
        rhs[1] += (h_s - h_rc) * lateral
        pair = (lateral * h_rc + 2.0 * m_u * ay * radius) / (2.0 * c)
        rhs[3 + 2 * axle] += pair        # left wheel: held up, its tyre's load falls
        rhs[3 + 2 * axle + 1] -= pair
        unsprung += 2.0 * m_u
        unsprung_moment += 2.0 * m_u * radius
    rhs[2] -= h_s * links_x
    if p[P_RADIUS_REAR] == p[P_RADIUS]:     # one radius: the same arithmetic as it was
        pitch_pair = unsprung * ax * p[P_RADIUS] / (2.0 * base)
    else:
        pitch_pair = unsprung_moment * ax / (2.0 * base)
    for i in range(4):
        rhs[3 + i] += pitch_pair if i < 2 else -pitch_pair


@njit
def substep(state: np.ndarray, p: np.ndarray, wheel: np.ndarray, matrix: np.ndarray,
            rhs: np.ndarray, h: float, cos_yaw: float, sin_yaw: float) -> None:
    """
    Advance the body's states by h: the linearly implicit Euler step of its regimes.

    The planar states have moved already (the ground is followed to where the
    wheels are now); the forces in the plane are those take_forces() kept.
    Regimes start as at the step's start and are taken again where the step
    ends until they agree (REGIME_PASSES at most). Leaves the sprung mass's
    vertical acceleration over the step in W_BODY_ACCEL column 2 (the IMU's).
    """
    ground_now(state, p, wheel, cos_yaw, sin_yaw)
    _regimes(state, p, wheel)
    start = BODY_POSITIONS
    rates = BODY_RATES
    for k in range(BODY_DOF):       # rhs: the solve's 7, then q and v at the start
        rhs[BODY_DOF + k] = state[start + k]
        rhs[2 * BODY_DOF + k] = state[rates + k]
    for _ in range(REGIME_PASSES):
        for k in range(BODY_DOF):
            state[start + k] = rhs[BODY_DOF + k]
            state[rates + k] = rhs[2 * BODY_DOF + k]
        _assemble(state, p, wheel, h, matrix, rhs)
        if not solve_in_place(matrix, rhs, BODY_DOF):
            return
        for k in range(BODY_DOF):
            state[rates + k] = rhs[2 * BODY_DOF + k] + rhs[k]
            state[start + k] = rhs[BODY_DOF + k] + h * state[rates + k]
        wheel[W_BODY_ACCEL, 2] = rhs[0] / h         # the sprung mass's vertical acceleration
        if not _regimes(state, p, wheel):
            return
