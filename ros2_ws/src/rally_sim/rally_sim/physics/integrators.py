"""
Time stepping of the vehicle model: explicit Euler, RK4 and linearly implicit Euler.

- ``euler``: document 002's scheme, one explicit Euler step of the 7 dynamic
  states, then the pose moved with the *new* velocities (as its code does).
- ``rk4``: classic explicit Runge-Kutta, pose by the trapezoidal rule.
- ``implicit_euler`` (default): linearly implicit (Rosenbrock) Euler. The
  wheel-spin and low-speed tyre dynamics are stiff (time constants of a
  fraction of a millisecond at walking pace), which makes explicit schemes
  blow up at ordinary steps; solving (I - h J) dz = h f with the model's
  Jacobian J is stable for them and exact for their steady states.

Brake torque (incl. handbrake) is Coulomb friction on the wheel: it opposes
the spin and, up to T_b, holds a wheel at rest. The implicit scheme solves it
as a stick/slide constraint inside the step, so a held car stays exactly
still; the explicit schemes remove up to h T_b / I_w of spin after each
sub-step without reversing it. Neither jitters in sign.
"""

import math

import numpy as np

from .body.layout import SPRUNG_STATE_SIZE
from .body.suspension import (
    loads_moved, look_up_ground, place, placed, set_loads, substep, take_forces)
from .drivetrain.driveline import drive
from .drivetrain.torque_mode import torque_drive, torque_mode_active
from .jit import njit, njit_inline
from .linear import factor, solve_factored, solve_in_place
from .model import (  # noqa: F401 (C_*, COMMAND_SIZE, O_*: the kernels' layouts)
    ARCADE_BICYCLE, C_BRAKE, C_DRIVE, C_DRIVER, C_GEAR, C_HANDBRAKE, C_RATE, C_STEER,
    C_THROTTLE, COMMAND_SIZE, contact_point, derivatives_into, derivatives_one_wheel,
    DIAG_SIZE, KINEMATIC_BICYCLE, O_ACCEL, O_DRIVE, O_ENGINE, O_FRICTION, O_GROUND,
    O_WHEEL_ANGLE, OMEGA, OUTPUT_ROWS, P_BODY, P_GRAVITY, P_HALF_TRACK, P_LF, P_LR, P_MASS,
    P_MODEL, P_RELAX, P_SLIP_MODEL, P_STEER_RATE, P_STEER_TAU, P_TYRE_MODEL, P_WHEEL_INERTIA,
    relax, relaxation_blend, set_steer, STATE_SIZE, STEER, TYRE_MF, VX, W_AX, W_AY, W_BODY_ACCEL,
    W_DIRECTION, W_DRIVE, W_ENGINE, W_GRAVITY, W_GROUND, W_INVERSE, W_JACOBIAN_LOAD, W_KEPT_LOAD,
    W_LOAD, W_MU, W_RELAXING, W_SPIN, W_START_LOAD, W_STUCK, W_UNIT_X, W_UNIT_Y, WHEEL_ROWS, X, Y,
    YAW)
from .models.arcade import arcade_outputs, arcade_step, rolling_wheels, steer_factor, steer_target
from .models.kinematic import kinematic_outputs, kinematic_step
from .surfaces import G_FLAT, G_RESOLUTION, grip_at, height_at
from .tyre import SLIP_REGULARIZED

EULER, RK4, IMPLICIT_EULER = 0, 1, 2
JACOBIAN_REFRESH_SUBSTEPS = 40
"""The implicit scheme re-evaluates its Jacobian every this many sub-steps; in
between it reuses it (a Rosenbrock-W method: first-order consistent with any
matrix, and stable while the matrix stays close to the Jacobian)."""
FORWARD_DIFFERENCE = 1e-7
"""Relative step of the Jacobian's forward differences (times max(1, |z_j|))."""
INTEGRATORS = {'euler': EULER, 'rk4': RK4, 'implicit_euler': IMPLICIT_EULER}

# Rows of the work vectors (VECTOR_ROWS x SPRUNG_STATE_SIZE; the 7-state ones use 7 columns).
(V_Z, V_NEW, V_F0, V_DZ, V_UP, V_F_UP, V_K1, V_K2, V_K3, V_K4, V_TMP, V_TRIAL,
 V_BODY) = range(13)
VECTOR_ROWS = 13
"""V_TRIAL: a step's trial state (a car's state size); V_BODY: the sprung body's solve
(body/suspension.py substep: 21 entries)."""
M_ITERATION, M_SOLVE, M_FACTORED, M_BODY = 0, 1, 2, 3
"""The implicit scheme's iteration matrix (kept between calls), a scratch copy for
solves with stuck wheels, and the matrix factored for all other solves (kept); the
sprung body's matrix."""
I_AGE, I_PIVOTS, I_FACTORED = 0, 1, 8
INT_SIZE = 9
"""Integers carried between calls: sub-steps since the Jacobian was computed, the
factored matrix's row swaps (7), and 1 if it factored (0: singular)."""


class Workspace:
    """The arrays a car's compiled kernels compute in, allocated once per car."""

    def __init__(self):
        """Allocate; the Jacobian is marked stale so the first step computes it."""
        self.vectors = np.zeros((VECTOR_ROWS, SPRUNG_STATE_SIZE))
        self.wheel = np.zeros((WHEEL_ROWS, 4))
        self.matrices = np.zeros((4, 7, 7))
        self.ints = np.zeros(INT_SIZE, dtype=np.int64)
        self.refresh_jacobian()

    def refresh_jacobian(self) -> None:
        """Make the next implicit step compute a fresh Jacobian (the tyres' loads, slips anew)."""
        self.ints[I_AGE] = JACOBIAN_REFRESH_SUBSTEPS
        self.wheel[W_LOAD] = 0.0
        self.wheel[W_RELAXING] = 0.0


@njit
def advance_steer(steer: float, target: float, rate_limit: float, h: float,
                  decay: float) -> float:
    """
    Move the actual steer angle toward `target` over h: first-order lag, then rate limit.

    decay: exp(-h / time constant) of the lag, or 0 for none.
    """
    new = target
    if decay > 0.0:
        new = target + (steer - target) * decay
    if rate_limit > 0.0:
        max_change = rate_limit * h
        new = steer + min(max(new - steer, -max_change), max_change)
    return new


@njit
def _apply_brakes(vectors: np.ndarray, row: int, command: np.ndarray, h: float,
                  inertia: float) -> None:
    """Remove up to h T_b / I of each wheel's spin (vectors[row]) without reversing it."""
    for i in range(4):
        brake = command[C_BRAKE + i]
        if brake > 0.0:
            limit = h * brake / inertia
            omega = vectors[row, 3 + i]
            if abs(omega) <= limit:
                vectors[row, 3 + i] = 0.0
            else:
                vectors[row, 3 + i] = omega - math.copysign(limit, omega)


@njit
def _hold_chassis(vectors: np.ndarray, command: np.ndarray, p: np.ndarray, wheel: np.ndarray,
                  h: float) -> None:
    """
    Give a car held by its brakes its tyres' static friction: stick or slide, as the brakes.

    Below v_low the regularised slip makes a tyre a damper, with no force at
    rest, so a braked car on a slope would creep. When every wheel is held by
    its brake (spin exactly 0), the tyres can hold the car still with up to
    sum(mu Fz) of friction: if the ground's pull needs no more than that and
    what is left can stop the chassis within this sub-step, the chassis
    velocities of vectors[V_NEW] become 0 (a Coulomb stick, like a wheel's
    brake; beyond it the car slides, the damper acting).
    """
    available = 0.0
    for i in range(4):
        if command[C_BRAKE + i] <= 0.0 or vectors[V_NEW, 3 + i] != 0.0:
            return
        available += wheel[W_MU, i] * max(wheel[W_LOAD, i], 0.0)
    mass = p[P_MASS]
    spare = available - mass * math.hypot(wheel[W_GRAVITY, 0], wheel[W_GRAVITY, 1])
    lever = max(p[P_LF], p[P_LR], p[P_HALF_TRACK])
    sliding = math.hypot(vectors[V_NEW, 0], vectors[V_NEW, 1]) + abs(vectors[V_NEW, 2]) * lever
    if spare > 0.0 and sliding <= h * spare / mass:
        vectors[V_NEW, 0] = vectors[V_NEW, 1] = vectors[V_NEW, 2] = 0.0


@njit
def _iteration_matrix(p, h, vectors, wheel, matrices, ints) -> None:
    """
    Compute I - h J at z = vectors[V_Z] and factor it.

    J by forward differences from f(z), just evaluated into vectors[V_F0]
    (the matrix need only stay close to the Jacobian), each z_j moved away
    from zero, so that mirrored states get mirrored matrices. `wheel` still
    holds each tyre's force at z: a wheel-spin column changes only that
    wheel's tyre and is evaluated with the other three kept (the same
    numbers as evaluating all four). Magic Formula tyres: every difference
    starts from the loads f(z) started from, and the loads f(z) left are
    put back after.
    """
    mf = p[P_TYRE_MODEL] == TYRE_MF and p[P_BODY] == 0.0    # (on springs: loads given)
    if mf:
        copy_row(wheel, W_LOAD, W_KEPT_LOAD)
    for j in range(7):
        vectors[V_UP, j] = vectors[V_Z, j]
    for j in range(3, 7):
        i = j - 3
        kept = (wheel[W_AX, i], wheel[W_AY, i], wheel[W_UNIT_X, i], wheel[W_UNIT_Y, i])
        eps = _perturb(vectors, j)
        if mf:
            copy_row(wheel, W_START_LOAD, W_LOAD)
        derivatives_one_wheel(vectors, V_UP, V_F_UP, p, wheel, i)
        wheel[W_AX, i], wheel[W_AY, i], wheel[W_UNIT_X, i], wheel[W_UNIT_Y, i] = kept
        _difference_column(vectors, matrices, h, j, eps)
    for j in range(3):      # body velocities: every tyre's slip changes
        eps = _perturb(vectors, j)
        if mf:
            copy_row(wheel, W_START_LOAD, W_LOAD)
        derivatives_into(vectors, V_UP, V_F_UP, p, wheel, wheel, False)
        _difference_column(vectors, matrices, h, j, eps)
    if mf:
        copy_row(wheel, W_KEPT_LOAD, W_LOAD)
    for i in range(7):
        for k in range(7):
            matrices[M_FACTORED, i, k] = matrices[M_ITERATION, i, k]
    ints[I_FACTORED] = 1 if factor(matrices[M_FACTORED], ints[I_PIVOTS:I_PIVOTS + 7], 7) else 0


@njit
def copy_row(wheel: np.ndarray, source: int, target: int) -> None:
    """Copy row `source` of a (rows x 4) work array to row `target`."""
    for i in range(4):
        wheel[target, i] = wheel[source, i]


@njit
def _perturb(vectors: np.ndarray, j: int) -> float:
    """Set z_j + eps in row V_UP, eps away from zero (the sign of z_j, + at 0); return eps."""
    zj = vectors[V_Z, j]
    eps = math.copysign(FORWARD_DIFFERENCE * max(1.0, abs(zj)), zj)
    vectors[V_UP, j] = zj + eps
    return eps


@njit
def _difference_column(vectors: np.ndarray, matrices: np.ndarray, h: float, j: int,
                       eps: float) -> None:
    """Write column j of I - h J from f(z + eps e_j) and f(z); put z_j back in V_UP."""
    vectors[V_UP, j] = vectors[V_Z, j]
    for i in range(7):
        matrices[M_ITERATION, i, j] = -h * (vectors[V_F_UP, i] - vectors[V_F0, i]) / eps
    matrices[M_ITERATION, j, j] += 1.0


@njit
def _implicit_update(command, p, h, vectors, wheel, matrices, ints) -> None:
    """
    Write z + dz into vectors[V_NEW], (I - h J) dz = h f(z), brakes as Coulomb friction.

    z is vectors[V_Z], f(z) vectors[V_F0]; matrices[M_ITERATION] is I - h J. Each braked wheel
    either slides (brake torque -T_b sign(omega) joins f) or sticks (its row
    becomes omega_new = 0) when holding it needs no more than T_b; a few
    active-set passes settle which, as for a static friction constraint.
    Without a stuck wheel the solve reuses the factored matrix (bit-identical
    to solving afresh).
    """
    inertia = p[P_WHEEL_INERTIA]
    for i in range(4):
        braked = command[C_BRAKE + i] > 0.0
        omega = vectors[V_Z, 3 + i]
        wheel[W_STUCK, i] = 1.0 if braked and omega == 0.0 else 0.0
        wheel[W_DIRECTION, i] = math.copysign(1.0, omega) if braked else 0.0
    for _ in range(8):
        any_stuck = False
        for i in range(7):
            vectors[V_DZ, i] = h * vectors[V_F0, i]
        for i in range(4):
            if wheel[W_STUCK, i]:
                any_stuck = True
                vectors[V_DZ, 3 + i] = -vectors[V_Z, 3 + i]
            elif command[C_BRAKE + i] > 0.0:
                vectors[V_DZ, 3 + i] -= h * command[C_BRAKE + i] * wheel[W_DIRECTION, i] / inertia
        if not any_stuck and ints[I_FACTORED]:
            solved = True
            solve_factored(matrices, M_FACTORED, ints, I_PIVOTS, vectors, V_DZ, 7)
        else:
            solved = _solve_with_stuck_wheels(vectors, wheel, matrices)
        if not solved:
            for i in range(7):
                vectors[V_NEW, i] = vectors[V_Z, i] + h * vectors[V_F0, i]
            return
        if _brakes_settled(command, h, inertia, vectors, wheel, matrices):
            break
    for i in range(7):
        vectors[V_NEW, i] = vectors[V_Z, i] + vectors[V_DZ, i]


@njit
def _solve_with_stuck_wheels(vectors, wheel, matrices) -> bool:
    """Solve for vectors[V_DZ] with each stuck wheel's row replaced by omega_new = 0."""
    for i in range(7):
        for k in range(7):
            matrices[M_SOLVE, i, k] = matrices[M_ITERATION, i, k]
    for i in range(4):
        if wheel[W_STUCK, i]:
            for k in range(7):
                matrices[M_SOLVE, 3 + i, k] = 0.0
            matrices[M_SOLVE, 3 + i, 3 + i] = 1.0
    return solve_in_place(matrices[M_SOLVE], vectors[V_DZ], 7)


@njit
def _brakes_settled(command, h, inertia, vectors, wheel, matrices) -> bool:
    """Check each braked wheel's stick/slide guess against the solution; fix wrong ones."""
    settled = True
    for i in range(4):
        brake = command[C_BRAKE + i]
        if brake <= 0.0:
            continue
        if wheel[W_STUCK, i]:
            row_dot = 0.0
            for k in range(7):
                row_dot += matrices[M_ITERATION, 3 + i, k] * vectors[V_DZ, k]
            holding = inertia * (h * vectors[V_F0, 3 + i] - row_dot) / h
            if abs(holding) > brake:
                wheel[W_STUCK, i] = 0.0
                wheel[W_DIRECTION, i] = math.copysign(1.0, holding)
                settled = False
        elif (vectors[V_Z, 3 + i] + vectors[V_DZ, 3 + i]) * wheel[W_DIRECTION, i] < 0.0:
            wheel[W_STUCK, i] = 1.0
            settled = False
    return settled


@njit
def _rk4_update(p, h, vectors, wheel) -> None:
    """Write vectors[V_Z] after one classic RK4 step of h into vectors[V_NEW]."""
    derivatives_into(vectors, V_Z, V_K1, p, wheel, wheel, False)
    for i in range(7):
        vectors[V_TMP, i] = vectors[V_Z, i] + 0.5 * h * vectors[V_K1, i]
    derivatives_into(vectors, V_TMP, V_K2, p, wheel, wheel, False)
    for i in range(7):
        vectors[V_TMP, i] = vectors[V_Z, i] + 0.5 * h * vectors[V_K2, i]
    derivatives_into(vectors, V_TMP, V_K3, p, wheel, wheel, False)
    for i in range(7):
        vectors[V_TMP, i] = vectors[V_Z, i] + h * vectors[V_K3, i]
    derivatives_into(vectors, V_TMP, V_K4, p, wheel, wheel, False)
    for i in range(7):
        vectors[V_NEW, i] = vectors[V_Z, i] + (h / 6.0) * (
            vectors[V_K1, i] + 2.0 * vectors[V_K2, i] + 2.0 * vectors[V_K3, i]
            + vectors[V_K4, i])


@njit
def _move_pose(state: np.ndarray, vectors: np.ndarray, h: float, method: int, c0: float,
               s0: float) -> tuple:
    """
    Integrate the odom pose over h from the body velocities before (V_Z) and after (V_NEW).

    c0, s0 are the cosine and sine of the heading before; returns those of
    the heading after (the next sub-step's, computed once).
    """
    yaw0 = state[YAW]
    if method == EULER:
        # Document 002: new velocities, old heading for the position.
        state[X] += (vectors[V_NEW, 0] * c0 - vectors[V_NEW, 1] * s0) * h
        state[Y] += (vectors[V_NEW, 0] * s0 + vectors[V_NEW, 1] * c0) * h
        yaw1 = yaw0 + vectors[V_NEW, 2] * h
        state[YAW] = yaw1
        return math.cos(yaw1), math.sin(yaw1)
    old0, old1, old2 = vectors[V_Z, 0], vectors[V_Z, 1], vectors[V_Z, 2]
    new0, new1, new2 = vectors[V_NEW, 0], vectors[V_NEW, 1], vectors[V_NEW, 2]
    yaw1 = yaw0 + 0.5 * h * (old2 + new2)
    c1, s1 = math.cos(yaw1), math.sin(yaw1)
    state[X] += 0.5 * h * (old0 * c0 - old1 * s0 + new0 * c1 - new1 * s1)
    state[Y] += 0.5 * h * (old0 * s0 + old1 * c0 + new0 * s1 + new1 * c1)
    state[YAW] = yaw1
    return c1, s1


@njit_inline
def _drive(state: np.ndarray, command: np.ndarray, p: np.ndarray, h: float, method: int,
           vectors: np.ndarray, wheel: np.ndarray, matrices: np.ndarray, driver: bool) -> None:
    """
    Let the drivetrain set this sub-step's drive torques and add them to f.

    driver: the engine's (driveline.drive), else torque mode's
    (torque_mode.torque_drive).

    vectors[V_F0] holds f(z) without drive torque; each wheel's inertia over
    the sub-step is I_w times the implicit scheme's diagonal 1 - h J_ii
    (at least 1; 1 for the explicit schemes). The drivetrain reads the
    wheels' speeds of this sub-step from `state`.
    """
    inertia = p[P_WHEEL_INERTIA]
    for i in range(4):
        state[OMEGA + i] = vectors[V_Z, 3 + i]
        if method == IMPLICIT_EULER:
            diagonal = max(matrices[M_ITERATION, 3 + i, 3 + i], 1.0)
            wheel[W_SPIN, i] = vectors[V_Z, 3 + i] + h * vectors[V_F0, 3 + i] / diagonal
            wheel[W_INVERSE, i] = 1.0 / (inertia * diagonal)
        else:
            wheel[W_SPIN, i] = vectors[V_Z, 3 + i] + h * vectors[V_F0, 3 + i]
            wheel[W_INVERSE, i] = 1.0 / inertia
    if driver:
        drive(state, command, p, h, wheel)
    else:
        torque_drive(state, command, p, h, wheel)
    per_inertia = 1.0 / inertia
    for i in range(4):
        vectors[V_F0, 3 + i] += wheel[W_DRIVE, i] * per_inertia


@njit
def step(state: np.ndarray, command: np.ndarray, dt: float, substeps: int, method: int,
         p: np.ndarray, vectors: np.ndarray, wheel: np.ndarray, matrices: np.ndarray,
         ints: np.ndarray) -> None:
    """
    Advance `state` in place by dt, in `substeps` equal sub-steps, `command` held.

    The vehicle model is the parameters' (P_MODEL): the four-wheel model with
    the integrator `method`, the kinematic bicycle's exact arcs, or the
    arcade bicycle's semi-implicit Euler. The friction at each wheel is read
    from wheel[W_MU]. The work arrays are those of a Workspace:
    matrices[M_ITERATION] carries the implicit scheme's iteration matrix
    between calls and ints[I_AGE] the sub-steps since it was computed.
    Allocates nothing.
    """
    h = dt / substeps
    _step(state, command, h, substeps, method, p, vectors, wheel, matrices, ints,
          _steer_rate(p, command), _steer_decay(p, h), math.cos(state[YAW]),
          math.sin(state[YAW]))


@njit_inline
def _steer_rate(p: np.ndarray, command: np.ndarray) -> float:
    """Return the steer rate limit of a step: the car's, or the command's if lower (0: none)."""
    rate = p[P_STEER_RATE]
    limit = command[C_RATE]
    if limit > 0.0 and (rate <= 0.0 or limit < rate):
        rate = limit
    return rate


@njit_inline
def _steer_decay(p: np.ndarray, h: float) -> float:
    """Return the steering lag's exp(-h / time constant) over a sub-step of h (0: no lag)."""
    return math.exp(-h / p[P_STEER_TAU]) if p[P_STEER_TAU] > 0.0 else 0.0


@njit
def _step(state: np.ndarray, command: np.ndarray, h: float, substeps: int, method: int,
          p: np.ndarray, vectors: np.ndarray, wheel: np.ndarray, matrices: np.ndarray,
          ints: np.ndarray, rate: float, decay: float, cos_yaw: float,
          sin_yaw: float) -> tuple:
    """
    step() over `substeps` sub-steps of h, its steering's rate and decay given.

    cos_yaw, sin_yaw: those of state[YAW]. Returns those of the yaw after, as
    the four-wheel model's pose update computed them (the other models: NaN),
    so that the next step need not compute them again (the same bits).
    """
    if p[P_MODEL] == KINEMATIC_BICYCLE:
        for _ in range(substeps):
            steer = advance_steer(state[STEER], command[C_STEER], rate, h, decay)
            kinematic_step(state, command, h, steer, p, wheel)
        return math.nan, math.nan
    if p[P_MODEL] == ARCADE_BICYCLE:     # `wheel` rows 0-4 serve as its axle rows
        for _ in range(substeps):
            factor = steer_factor(p, math.hypot(state[VX], state[VX + 1]))
            steer = advance_steer(state[STEER], steer_target(state, command, p),
                                  rate * factor, h, decay)
            arcade_step(state, command, h, steer, p, wheel, wheel)
        rolling_wheels(state, p)
        return math.nan, math.nan
    for i in range(7):
        vectors[V_Z, i] = state[VX + i]
    driver = command[C_DRIVER] == 1.0
    driven = driver or torque_mode_active(p)     # the drive torques are set per sub-step
    for i in range(4):
        wheel[W_DRIVE, i] = 0.0 if driver else command[C_DRIVE + i]
    sprung = p[P_BODY] != 0.0
    if sprung and not placed(state):
        place(state, p, wheel)
    for _ in range(substeps):
        steer = advance_steer(state[STEER], command[C_STEER], rate, h, decay)
        state[STEER] = steer
        set_steer(steer, p, wheel)
        if sprung:
            set_loads(state, p, wheel, cos_yaw, sin_yaw)
            if loads_moved(p, wheel):
                ints[I_AGE] = JACOBIAN_REFRESH_SUBSTEPS
        if p[P_RELAX] != 0.0:
            relaxation_blend(vectors, V_Z, p, wheel, h)
        if driven:
            for i in range(4):
                wheel[W_DRIVE, i] = 0.0
        if method == IMPLICIT_EULER or method == EULER or driven or sprung:
            derivatives_into(vectors, V_Z, V_F0, p, wheel, wheel, False)
            if sprung:
                take_forces(vectors, V_Z, V_F0, wheel)
        if method == IMPLICIT_EULER:
            if ints[I_AGE] >= JACOBIAN_REFRESH_SUBSTEPS:    # needs the evaluation just made
                _iteration_matrix(p, h, vectors, wheel, matrices, ints)
                ints[I_AGE] = 0
                copy_row(wheel, W_LOAD, W_JACOBIAN_LOAD)
            ints[I_AGE] += 1
        if driven:
            _drive(state, command, p, h, method, vectors, wheel, matrices, driver)
        if method == IMPLICIT_EULER:
            _implicit_update(command, p, h, vectors, wheel, matrices, ints)
        else:
            if method == RK4:
                _rk4_update(p, h, vectors, wheel)
            else:
                for i in range(7):
                    vectors[V_NEW, i] = vectors[V_Z, i] + h * vectors[V_F0, i]
            _apply_brakes(vectors, V_NEW, command, h, p[P_WHEEL_INERTIA])
        if p[P_SLIP_MODEL] == SLIP_REGULARIZED:
            _hold_chassis(vectors, command, p, wheel, h)
        if p[P_RELAX] != 0.0:
            relax(vectors, V_NEW, p, wheel)
        cos_yaw, sin_yaw = _move_pose(state, vectors, h, method, cos_yaw, sin_yaw)
        for i in range(7):
            vectors[V_Z, i] = vectors[V_NEW, i]
        if sprung:      # the body follows the plane's step (its ground where the car is now)
            for i in range(7):
                state[VX + i] = vectors[V_Z, i]
            substep(state, p, wheel, matrices[M_BODY], vectors[V_BODY], h, cos_yaw, sin_yaw)
    for i in range(7):
        state[VX + i] = vectors[V_Z, i]
    return cos_yaw, sin_yaw


@njit
def friction_under(state: np.ndarray, p: np.ndarray, tyre_mu: np.ndarray, grid: np.ndarray,
                   meta: np.ndarray, mu: np.ndarray) -> None:
    """Write each wheel's friction (its tyre's mu times the grip under it) into `mu`."""
    c, s = math.cos(state[YAW]), math.sin(state[YAW])
    for i in range(4):
        x, y = contact_point(state, c, s, p, i)
        mu[i] = tyre_mu[i] * grip_at(grid, meta, x, y)


@njit_inline
def _friction_into(state: np.ndarray, cos_yaw: float, sin_yaw: float, p: np.ndarray,
                   tyre_mu: np.ndarray, grid: np.ndarray, meta: np.ndarray,
                   wheel: np.ndarray) -> None:
    """friction_under() into wheel[W_MU], the cosine and sine of the yaw given."""
    for i in range(4):
        x, y = contact_point(state, cos_yaw, sin_yaw, p, i)
        wheel[W_MU, i] = tyre_mu[i] * grip_at(grid, meta, x, y)


@njit
def ground_under(state: np.ndarray, p: np.ndarray, grid: np.ndarray, meta: np.ndarray,
                 wheel: np.ndarray) -> None:
    """
    Write the ground under the CG into `wheel`: gravity along and normal to it, height, slope.

    The ground's gradient (h_x, h_y) is the central difference over one pixel;
    with N = sqrt(1 + h_x^2 + h_y^2), gravity pulls along the ground with
    g (h_x, h_y) / N downhill (g sin of the slope) and presses the car onto
    it with g / N (g cos of the slope), reference 004. Pitch is negative
    nose-up (REP-103), roll positive left side up. A car on springs also gets
    the ground under each wheel (body/suspension.py look_up_ground).
    """
    g = p[P_GRAVITY]
    if p[P_BODY] != 0.0:
        look_up_ground(state, p, grid, meta, wheel)
    if meta[G_FLAT] == 1.0:
        wheel[W_GRAVITY, 0] = wheel[W_GRAVITY, 1] = 0.0
        wheel[W_GRAVITY, 2] = g
        wheel[W_GROUND, 0] = wheel[W_GROUND, 1] = wheel[W_GROUND, 2] = 0.0
        return
    x, y, yaw = state[X], state[Y], state[YAW]
    step = meta[G_RESOLUTION]
    hx = (height_at(grid, meta, x + step, y) - height_at(grid, meta, x - step, y)) / (2 * step)
    hy = (height_at(grid, meta, x, y + step) - height_at(grid, meta, x, y - step)) / (2 * step)
    norm = math.sqrt(1.0 + hx * hx + hy * hy)
    c, s = math.cos(yaw), math.sin(yaw)
    forward = hx * c + hy * s          # rise per metre along the car
    left = -hx * s + hy * c            # and to its left
    wheel[W_GRAVITY, 0] = -g * forward / norm
    wheel[W_GRAVITY, 1] = -g * left / norm
    wheel[W_GRAVITY, 2] = g / norm
    wheel[W_GROUND, 0] = height_at(grid, meta, x, y)
    wheel[W_GROUND, 1] = -math.atan(forward)
    wheel[W_GROUND, 2] = math.atan(left / math.sqrt(1.0 + forward * forward))


@njit
def tyre_outputs(state: np.ndarray, command: np.ndarray, p: np.ndarray, vectors: np.ndarray,
                 wheel: np.ndarray, out: np.ndarray) -> None:
    """
    Write the tyre state (DIAG rows) and specific force (O_ACCEL) of `state` into `out`.

    On springs O_ACCEL holds the acceleration in the yawed, level frame: x and
    y of the car's centre of gravity, then (column 2) the sprung mass's
    vertical one over the last sub-step (Vehicle.specific_force turns them
    into what an accelerometer on the tilted body reads).
    """
    if p[P_MODEL] == KINEMATIC_BICYCLE:
        kinematic_outputs(state, command, p, wheel, out)
        return
    if p[P_MODEL] == ARCADE_BICYCLE:
        arcade_outputs(state, command, p, wheel, wheel, out)
        return
    for i in range(7):
        vectors[V_Z, i] = state[VX + i]
    set_steer(state[STEER], p, wheel)
    driver = command[C_DRIVER] == 1.0
    driven = driver or torque_mode_active(p)
    for i in range(4):
        if not driven:      # (else the drive torques of the last sub-step)
            wheel[W_DRIVE, i] = command[C_DRIVE + i]
        if not driver:
            wheel[W_ENGINE, i] = 0.0
        out[O_DRIVE, i] = wheel[W_DRIVE, i]
        out[O_ENGINE, i] = wheel[W_ENGINE, i]
    if p[P_RELAX] != 0.0:   # the forces of the slips the tyres have (h 0: keep them all)
        relaxation_blend(vectors, V_Z, p, wheel, 0.0)
    mf = p[P_TYRE_MODEL] == TYRE_MF and p[P_BODY] == 0.0
    if p[P_BODY] != 0.0:
        set_loads(state, p, wheel, math.cos(state[YAW]), math.sin(state[YAW]))
    if mf:              # looking moves no load the steps start from
        copy_row(wheel, W_LOAD, W_KEPT_LOAD)
    derivatives_into(vectors, V_Z, V_DZ, p, wheel, out, True)
    if mf:
        copy_row(wheel, W_KEPT_LOAD, W_LOAD)
    vx, vy, r = state[VX], state[VX + 1], state[VX + 2]
    out[O_ACCEL, 0] = vectors[V_DZ, 0] - vy * r
    out[O_ACCEL, 1] = vectors[V_DZ, 1] + vx * r
    if p[P_BODY] == 0.0:    # (on springs W_GRAVITY holds the ground's push, not gravity)
        out[O_ACCEL, 0] -= wheel[W_GRAVITY, 0]
        out[O_ACCEL, 1] -= wheel[W_GRAVITY, 1]
    else:
        out[O_ACCEL, 2] = wheel[W_BODY_ACCEL, 2]


@njit
def _finite(values: np.ndarray) -> bool:
    """Return whether every value of a 1-D array is finite."""
    for v in values:
        if not math.isfinite(v):
            return False
    return True


@njit
def _finite_rows(values: np.ndarray) -> bool:
    """Return whether every value of a 2-D array is finite."""
    for row in values:
        if not _finite(row):
            return False
    return True


@njit
def _commit(state: np.ndarray, trial: np.ndarray, wheel: np.ndarray, out: np.ndarray,
            dt: float) -> None:
    """Take the trial state, its friction, and turn the wheels' spin angles by dt."""
    for i in range(len(state)):
        state[i] = trial[i]
    for i in range(4):
        out[O_FRICTION, i] = wheel[W_MU, i]
        out[O_WHEEL_ANGLE, i] += dt * state[OMEGA + i]


@njit
def _under(state: np.ndarray, p: np.ndarray, tyre_mu: np.ndarray, grid: np.ndarray,
           meta: np.ndarray, wheel: np.ndarray) -> None:
    """Look up what the step needs from the map under the car: friction and ground."""
    friction_under(state, p, tyre_mu, grid, meta, wheel[W_MU])
    ground_under(state, p, grid, meta, wheel)


@njit
def _wrap_wheel_angles(out: np.ndarray) -> None:
    """Bring the wheel spin angles back to [-pi, pi)."""
    for i in range(4):
        out[O_WHEEL_ANGLE, i] = (out[O_WHEEL_ANGLE, i] + math.pi) % (2.0 * math.pi) - math.pi


@njit
def advance(state: np.ndarray, command: np.ndarray, dt: float, steps: int, substeps: int,
            method: int, p: np.ndarray, tyre_mu: np.ndarray, grid: np.ndarray,
            meta: np.ndarray, vectors: np.ndarray, wheel: np.ndarray, matrices: np.ndarray,
            ints: np.ndarray, out: np.ndarray) -> int:
    """
    Take `steps` steps of dt with `command` held: one call for a whole control period.

    Before each step the friction under each wheel and the ground under the
    car are looked up on the map (grid: GripGrid.layers, meta); after the
    last, `out` receives the tyre state, the specific force and the ground.
    Stops at a non-finite state, keeping the last finite one; returns the
    steps done. Allocates nothing.
    """
    trial = vectors[V_TRIAL]
    h = dt / substeps
    rate, decay = _steer_rate(p, command), _steer_decay(p, h)
    cos_yaw, sin_yaw = math.cos(state[YAW]), math.sin(state[YAW])
    for k in range(steps):
        for i in range(len(state)):
            trial[i] = state[i]
        if math.isnan(cos_yaw):         # a bicycle model's last step
            cos_yaw, sin_yaw = math.cos(trial[YAW]), math.sin(trial[YAW])
        _friction_into(trial, cos_yaw, sin_yaw, p, tyre_mu, grid, meta, wheel)
        ground_under(trial, p, grid, meta, wheel)
        cos_yaw, sin_yaw = _step(trial, command, h, substeps, method, p, vectors, wheel,
                                 matrices, ints, rate, decay, cos_yaw, sin_yaw)
        if not _finite(trial):
            ints[I_AGE] = JACOBIAN_REFRESH_SUBSTEPS
            _wrap_wheel_angles(out)
            refresh_outputs(state, command, p, grid, meta, vectors, wheel, out)
            return k
        _commit(state, trial, wheel, out, dt)
    _wrap_wheel_angles(out)
    refresh_outputs(state, command, p, grid, meta, vectors, wheel, out)
    return steps


@njit
def _ground_outputs(state: np.ndarray, p: np.ndarray, grid: np.ndarray, meta: np.ndarray,
                    wheel: np.ndarray, out: np.ndarray) -> None:
    """Look up the ground under `state` and copy its height and slope to out[O_GROUND]."""
    ground_under(state, p, grid, meta, wheel)
    for i in range(3):
        out[O_GROUND, i] = wheel[W_GROUND, i]


@njit
def refresh_outputs(state: np.ndarray, command: np.ndarray, p: np.ndarray, grid: np.ndarray,
                    meta: np.ndarray, vectors: np.ndarray, wheel: np.ndarray,
                    out: np.ndarray) -> None:
    """Recompute the outputs of `state` with the friction in out[O_FRICTION]."""
    for i in range(4):
        wheel[W_MU, i] = out[O_FRICTION, i]
    _ground_outputs(state, p, grid, meta, wheel, out)
    if p[P_BODY] != 0.0 and not placed(state):
        place(state, p, wheel)      # (a car on springs just reset or restored)
    tyre_outputs(state, command, p, vectors, wheel, out)


@njit
def rollout(state: np.ndarray, commands: np.ndarray, dts: np.ndarray, substeps: np.ndarray,
            method: int, p: np.ndarray, tyre_mu: np.ndarray, grid: np.ndarray,
            meta: np.ndarray, vectors: np.ndarray, wheel: np.ndarray, matrices: np.ndarray,
            ints: np.ndarray, out: np.ndarray, states_out: np.ndarray,
            outs_out: np.ndarray) -> int:
    """
    Run step() over rows of commands (N x COMMAND_SIZE), recording what follows each.

    Row k holds commands[k] for dts[k] in substeps[k] sub-steps, with the
    friction looked up under each wheel at the start of the row. After each
    row the state goes to states_out[k] and the outputs to outs_out[k]; an
    outs_out of one row only asks for none (the tyre state is not evaluated;
    that row is scratch). Stops early at a non-finite state or tyre state;
    returns the rows done, `state` and `out` holding the last finite ones.
    """
    trial = vectors[V_TRIAL]
    keep = outs_out.shape[0] == len(dts)
    for k in range(len(dts)):
        for i in range(len(state)):
            trial[i] = state[i]
        _under(trial, p, tyre_mu, grid, meta, wheel)
        step(trial, commands[k], dts[k], substeps[k], method, p, vectors, wheel, matrices,
             ints)
        row = outs_out[k] if keep else outs_out[0]
        for j in range(OUTPUT_ROWS):
            for i in range(4):
                row[j, i] = out[j, i]
        if keep:
            _ground_outputs(trial, p, grid, meta, wheel, row)
            tyre_outputs(trial, commands[k], p, vectors, wheel, row)
        if not (_finite(trial) and _finite_rows(row)):
            ints[I_AGE] = JACOBIAN_REFRESH_SUBSTEPS
            return k
        _commit(state, trial, wheel, row, dts[k])
        _wrap_wheel_angles(row)
        for j in range(OUTPUT_ROWS):
            for i in range(4):
                out[j, i] = row[j, i]
        for i in range(len(state)):
            states_out[k, i] = state[i]
    return len(dts)
