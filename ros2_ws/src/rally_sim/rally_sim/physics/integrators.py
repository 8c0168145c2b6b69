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

from .jit import njit
from .load_transfer import _solve_in_place
from .model import contact_points, derivatives, DIAG_SIZE, ModelParams, STEER, VX, X, Y, YAW
from .surfaces import friction_at, GripGrid

EULER, RK4, IMPLICIT_EULER = 0, 1, 2
JACOBIAN_REFRESH_SUBSTEPS = 40
"""The implicit scheme re-evaluates its Jacobian every this many sub-steps; in
between it reuses it (a Rosenbrock-W method: first-order consistent with any
matrix, and stable while the matrix stays close to the Jacobian)."""
INTEGRATORS = {'euler': EULER, 'rk4': RK4, 'implicit_euler': IMPLICIT_EULER}


@njit
def advance_steer(steer: float, target: float, rate_limit: float, h: float,
                  time_constant: float) -> float:
    """Move the actual steer angle toward `target` over h: first-order lag, then rate limit."""
    new = target
    if time_constant > 0.0:
        new = target + (steer - target) * math.exp(-h / time_constant)
    if rate_limit > 0.0:
        max_change = rate_limit * h
        new = steer + min(max(new - steer, -max_change), max_change)
    return new


@njit
def _apply_brakes(z: np.ndarray, brake: np.ndarray, h: float, inertia: np.ndarray) -> None:
    """Remove up to h T_b / I of each wheel's spin without reversing it."""
    for i in range(4):
        if brake[i] > 0.0:
            limit = h * brake[i] / inertia[i]
            omega = z[3 + i]
            if abs(omega) <= limit:
                z[3 + i] = 0.0
            else:
                z[3 + i] = omega - math.copysign(limit, omega)


@njit
def _iteration_matrix(z, steer, drive, mu, p, h, scratch):
    """Return I - h J, J by central differences (mirror-symmetric: reverse = forward)."""
    matrix = np.empty((7, 7))
    up = z.copy()
    down = z.copy()
    for j in range(7):
        eps = 1e-6 * max(1.0, abs(z[j]))
        up[j] = z[j] + eps
        down[j] = z[j] - eps
        f_up = derivatives(up, steer, drive, mu, p, scratch)
        f_down = derivatives(down, steer, drive, mu, p, scratch)
        up[j] = down[j] = z[j]
        for i in range(7):
            matrix[i, j] = -h * (f_up[i] - f_down[i]) / (2.0 * eps)
        matrix[j, j] += 1.0
    return matrix


@njit
def _implicit_update(z, steer, drive, brake, mu, p, h, scratch, matrix):
    """
    Return z + dz with (I - h J) dz = h f(z) and the brakes as Coulomb friction.

    `matrix` is I - h J from _iteration_matrix. Each braked wheel either
    slides (brake torque -T_b sign(omega) joins f) or sticks (its row becomes
    omega_new = 0) when holding it needs no more than T_b; a few active-set
    passes settle which, as for a static friction constraint.
    """
    f0 = derivatives(z, steer, drive, mu, p, scratch)
    inertia = p.wheel_inertia_kg_m2
    stuck = np.zeros(4, dtype=np.bool_)
    direction = np.zeros(4)
    for i in range(4):
        if brake[i] > 0.0:
            stuck[i] = z[3 + i] == 0.0
            direction[i] = math.copysign(1.0, z[3 + i])
    dz = h * f0
    for _ in range(8):
        a = matrix.copy()
        dz = h * f0
        for i in range(4):
            if stuck[i]:
                a[3 + i, :] = 0.0
                a[3 + i, 3 + i] = 1.0
                dz[3 + i] = -z[3 + i]
            elif brake[i] > 0.0:
                dz[3 + i] -= h * brake[i] * direction[i] / inertia
        if not _solve_in_place(a, dz, 7):
            return z + h * f0
        settled = True
        for i in range(4):
            if brake[i] <= 0.0:
                continue
            if stuck[i]:
                row_dot = 0.0
                for k in range(7):
                    row_dot += matrix[3 + i, k] * dz[k]
                holding = inertia * (h * f0[3 + i] - row_dot) / h
                if abs(holding) > brake[i]:
                    stuck[i] = False
                    direction[i] = math.copysign(1.0, holding)
                    settled = False
            elif (z[3 + i] + dz[3 + i]) * direction[i] < 0.0:
                stuck[i] = True
                settled = False
        if settled:
            break
    return z + dz


@njit
def _rk4_update(z, steer, drive, mu, p, h, scratch):
    """Return z after one classic RK4 step of h."""
    k1 = derivatives(z, steer, drive, mu, p, scratch)
    k2 = derivatives(z + 0.5 * h * k1, steer, drive, mu, p, scratch)
    k3 = derivatives(z + 0.5 * h * k2, steer, drive, mu, p, scratch)
    k4 = derivatives(z + h * k3, steer, drive, mu, p, scratch)
    return z + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


@njit
def _move_pose(state: np.ndarray, old: np.ndarray, new: np.ndarray, h: float,
               method: int) -> None:
    """Integrate the odom pose over h from the body velocities before and after."""
    yaw0 = state[YAW]
    if method == EULER:
        # Document 002: new velocities, old heading for the position.
        c, s = math.cos(yaw0), math.sin(yaw0)
        state[X] += (new[0] * c - new[1] * s) * h
        state[Y] += (new[0] * s + new[1] * c) * h
        state[YAW] = yaw0 + new[2] * h
        return
    yaw1 = yaw0 + 0.5 * h * (old[2] + new[2])
    c0, s0, c1, s1 = math.cos(yaw0), math.sin(yaw0), math.cos(yaw1), math.sin(yaw1)
    state[X] += 0.5 * h * (old[0] * c0 - old[1] * s0 + new[0] * c1 - new[1] * s1)
    state[Y] += 0.5 * h * (old[0] * s0 + old[1] * c0 + new[0] * s1 + new[1] * c1)
    state[YAW] = yaw1


@njit
def step(state: np.ndarray, steer_target: float, steer_rate_limit: float,
         drive: np.ndarray, brake: np.ndarray, mu: np.ndarray, dt: float,
         substeps: int, method: int, p: ModelParams, diag: np.ndarray,
         matrix: np.ndarray, age: int) -> int:
    """
    Advance `state` in place by dt, in `substeps` equal sub-steps, inputs held.

    steer_target: commanded bicycle steer angle; steer_rate_limit: command's
    rate limit [rad/s] (0: the vehicle's own); drive, brake: wheel torques
    [N m] (brake >= 0); mu: friction at each wheel. `diag` receives the
    per-wheel tyre state at the end of the step. `matrix` (7 x 7) carries the
    implicit scheme's iteration matrix between calls and `age` the sub-steps
    since it was computed (pass JACOBIAN_REFRESH_SUBSTEPS to force a fresh
    one); the new age is returned.
    """
    h = dt / substeps
    rate = p.steer_rate_rad_s
    if steer_rate_limit > 0.0 and (rate <= 0.0 or steer_rate_limit < rate):
        rate = steer_rate_limit
    z = state[VX:VX + 7].copy()
    inertia = np.full(4, p.wheel_inertia_kg_m2)
    scratch = np.empty((DIAG_SIZE, 4))
    for _ in range(substeps):
        steer = advance_steer(state[STEER], steer_target, rate, h, p.steer_time_constant_s)
        state[STEER] = steer
        if method == IMPLICIT_EULER:
            if age >= JACOBIAN_REFRESH_SUBSTEPS:
                matrix[:, :] = _iteration_matrix(z, steer, drive, mu, p, h, scratch)
                age = 0
            age += 1
            new = _implicit_update(z, steer, drive, brake, mu, p, h, scratch, matrix)
        else:
            if method == RK4:
                new = _rk4_update(z, steer, drive, mu, p, h, scratch)
            else:
                new = z + h * derivatives(z, steer, drive, mu, p, scratch)
            _apply_brakes(new, brake, h, inertia)
        _move_pose(state, z, new, h, method)
        z = new
    state[VX:VX + 7] = z
    derivatives(z, state[STEER], drive, mu, p, diag)
    return age


@njit
def rollout(state: np.ndarray, steer: np.ndarray, steer_rate: np.ndarray, drive: np.ndarray,
            brake: np.ndarray, tyre_mu: np.ndarray, grid: GripGrid, dts: np.ndarray,
            substeps: np.ndarray, method: int, p: ModelParams, states_out: np.ndarray,
            diag_out: np.ndarray, mu_out: np.ndarray, matrix: np.ndarray, age: int) -> tuple:
    """
    Run step() over rows of inputs, recording the state and tyre state after each.

    Row k holds steer[k], steer_rate[k], drive[k], brake[k] for dts[k] in
    substeps[k] sub-steps, with each wheel's friction looked up on `grid` at
    its contact point at the start of the row (mu_out[k]). `matrix` and `age`
    carry the implicit scheme's Jacobian as in step(). Stops early at a
    non-finite state; returns (rows done, age), `state` holding the last
    finite state.
    """
    diag = np.empty((DIAG_SIZE, 4))
    trial = state.copy()
    for k in range(len(dts)):
        xs, ys = contact_points(trial, p)
        mu = friction_at(grid, tyre_mu, xs, ys)
        mu_out[k] = mu
        age = step(trial, steer[k], steer_rate[k], drive[k], brake[k], mu, dts[k], substeps[k],
                   method, p, diag, matrix, age)
        if not (np.all(np.isfinite(trial)) and np.all(np.isfinite(diag))):
            return k, JACOBIAN_REFRESH_SUBSTEPS
        state[:] = trial
        states_out[k] = trial
        diag_out[k] = diag
    return len(dts), age
