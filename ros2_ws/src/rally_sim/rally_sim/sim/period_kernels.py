"""
A car's steps in speed mode, compiled: from a command to the next publishing instant.

Between two publishing instants a session of one car in speed mode (no
actuator, no drivetrain, no sensor on a schedule of its own) does the same
few things in Python, some fifteen calls a control period: the intake's
speed controller and the vehicle's limits at each control period's start,
the physics kernel's chunks, and the contact rule's looks near walls.
walk() does them in their order in one compiled call, so the steps are the
same to the bit (test/sim/test_period_walk.py): SpeedController.torques
and Vehicle.set_command (speed_push), integrators.advance in the chunks
stepping.advance cuts, contacts.py's _look and _plan for one car among walls
(look, plan; math.hypot's bits by path_kernels.hypot). What it does not do
it hands back at the very step it falls due: the watchdog (before the
period starts), a touch (after the chunk, for contacts.py's check()) and a
non-finite state. sim/walk.py drives it for a session; the in-process
engine's compiled loop (campaign/compiled_loop.py) walks its periods with it.

Its state is in arrays, so one call carries it in and out: floats (F_*),
integers (I_*), a run's constants (K_*) and settings (J_*); the compiled
loop appends its own after these.
"""

import math

import numpy as np

from .contacts import HORIZON_S
from ..control.path_kernels import hypot
from ..control.speed import (
    DEFAULT_ACCELERATION_M_S2, HOLD_SPEED_M_S, LEAD_M_S, SLIP_M_S, SLIP_SHARE)
from ..physics.integrators import advance
from ..physics.jit import njit
from ..physics.model import (
    C_BRAKE, C_DRIVE, C_HANDBRAKE, C_RATE, C_STEER, OMEGA, VX, VY, X, Y, YAW, YAW_RATE)
from ..physics.vehicle import FLOAT32_ROUNDING
from ..world.contact import wall_clearance
from ..world.raycast import BOX_HALF_LENGTH, BOX_HALF_WIDTH, BOX_X, BOX_Y, BOX_YAW

# The state carried between calls: the intake's hold (steer, rate, target speed and
# acceleration), the speed controller's integral, the vehicle's clock, the steer clamped last,
# the speed controller's reference and feedforward.
(F_STEER, F_RATE, F_TARGET, F_ACCELERATION, F_INTEGRAL, F_TIME, F_CLAMPED, F_REFERENCE,
 F_FEEDFORWARD) = range(9)
FLOATS = 9
# The step count, the last command's step, the contact rule's safe_until, the vehicle's
# step count, the commands clamped.
I_STEPS, I_LAST_COMMAND, I_SAFE_UNTIL, I_STEP_COUNT, I_CLAMPS = range(5)
INTS = 5
# Constants: the step, the watchdog, the speed controller's, the vehicle's limits, the
# footprint's bounds (world/scene.py's Footprint).
(K_DT, K_TIMEOUT, K_MASS, K_RADIUS, K_KP, K_KI, K_DRIVEN, K_MAX_STEER, K_LENGTH, K_WIDTH,
 K_AHEAD, K_BOUND_ACCEL, K_BOUND_YAW_ACCEL, K_STEER_M, K_STEER_RATE_M) = range(15)
K_DRIVE_LIMIT, K_BRAKE_LIMIT, K_HANDBRAKE, K_SHARES, K_APPROACH, K_RADII = 15, 19, 23, 27, 31, 32
CONSTANTS = 36
"""K_RADIUS: the driven wheels' radius (the drive's); K_RADII: each wheel's (rims, brakes)."""
# Settings: steps of a control period and of a publishing period, the physics kernel's
# substeps and method, whether contacts are looked at, the looks' horizon [steps].
J_CONTROL_STEPS, J_PUBLISH_EVERY, J_SUBSTEPS, J_METHOD, J_CONTACTS, J_HORIZON = range(6)
SETTINGS = 6
INSTANT, WATCHDOG, TOUCH, NON_FINITE = range(4)
"""Why walk() ended: at its end step (a publishing instant, or the steps asked); the watchdog
fires at a control period's start (before it starts); a contact check is due on a touching
car (after the chunk); the physics failed (the vehicle holds the last finite state)."""


@njit
def first_max(a: float, b: float) -> float:
    """Return max(a, b) as Python's builtin gives it (a unless b is greater)."""
    return b if b > a else a


@njit
def first_min(a: float, b: float) -> float:
    """Return min(a, b) as Python's builtin gives it (a unless b is smaller)."""
    return b if b < a else a


@njit
def clamp(value: float, low: float, high: float) -> float:
    """Return min(max(value, low), high) as Python's builtins give it."""
    return first_min(first_max(value, low), high)


@njit
def moved(value: float, clamped: float) -> bool:
    """Return whether clamping moved a value beyond float32's rounding (vehicle._past_limit)."""
    return abs(value - clamped) > FLOAT32_ROUNDING * max(1.0, abs(clamped))


@njit
def speed_push(state, command, k, f, speed_dt: float) -> bool:
    """
    Give the car the intake's command in speed mode: the speed controller's, clamped.

    control/speed.py's SpeedController.torques over speed_dt, then
    Vehicle.set_command's limits (clamped values counted). Returns whether
    anything was clamped.
    """
    target, speed = f[F_TARGET], state[VX]
    limit = f[F_ACCELERATION] if f[F_ACCELERATION] > 0.0 else DEFAULT_ACCELERATION_M_S2
    stopping = abs(target) < 1e-3
    drive = np.zeros(4)
    brake = np.zeros(4)
    if stopping and abs(speed) < HOLD_SPEED_M_S:
        f[F_INTEGRAL], f[F_REFERENCE], f[F_FEEDFORWARD] = 0.0, math.nan, 0.0
        for i in range(4):
            brake[i] = 0.5 * k[K_BRAKE_LIMIT + i]
    else:
        reference = speed if math.isnan(f[F_REFERENCE]) else f[F_REFERENCE]
        if speed_dt > 0.0:
            step = first_min(limit * speed_dt, abs(target - reference) * speed_dt / k[K_APPROACH])
            ramp = clamp(target - reference, -step, step)
            f[F_FEEDFORWARD] = ramp / speed_dt
            reference = clamp(reference + ramp, speed - LEAD_M_S, speed + LEAD_M_S)
        f[F_REFERENCE] = reference
        error = reference - speed
        integral = clamp(f[F_INTEGRAL] + error * speed_dt, -2.0, 2.0)
        wanted = f[F_FEEDFORWARD] + k[K_KP] * error + k[K_KI] * integral
        force = k[K_MASS] * clamp(wanted, -limit, limit)
        direction = math.copysign(1.0, speed if stopping else target)
        held = False
        if force * direction > 0.0:
            torque = force * k[K_RADIUS] / k[K_DRIVEN]
            rims, driven = 0.0, 0
            for i in range(4):
                d = k[K_DRIVE_LIMIT + i]
                held = held or 0.0 < d < abs(torque)
                if d > 0.0:
                    rims, driven = rims + state[OMEGA + i] * k[K_RADII + i], driven + 1
            if driven:
                spin = (rims / driven - speed) * direction / (SLIP_M_S + SLIP_SHARE * abs(speed))
                if spin > 1.0:
                    torque *= first_max(2.0 - spin, 0.0)
                    held = True
            for i in range(4):
                d = k[K_DRIVE_LIMIT + i]
                drive[i] = clamp(torque, -d, d) if d > 0.0 else 0.0
        else:
            for i in range(4):
                b = k[K_BRAKE_LIMIT + i]
                asked = abs(force) * k[K_RADII + i] * k[K_SHARES + i]
                brake[i] = first_min(asked, b)
                held = held or b < asked
            rolling = math.copysign(1.0, speed)
            for i in range(4):
                lock = (speed - state[OMEGA + i] * k[K_RADII + i]) * rolling / (
                    SLIP_M_S + SLIP_SHARE * abs(speed))
                if lock > 1.0:
                    brake[i] *= first_max(2.0 - lock, 0.0)
                    held = True
        if not ((held or abs(wanted) > limit) and error * wanted > 0.0):
            f[F_INTEGRAL] = integral
    steer = clamp(f[F_STEER], -k[K_MAX_STEER], k[K_MAX_STEER])
    clamped = moved(f[F_STEER], steer)
    command[C_STEER] = steer
    command[C_RATE] = abs(f[F_RATE])
    for i in range(4):
        d = k[K_DRIVE_LIMIT + i]
        value = clamp(drive[i], -d, d)
        clamped = clamped or moved(drive[i], value)
        command[C_DRIVE + i] = value
        value = clamp(brake[i], 0.0, k[K_BRAKE_LIMIT + i])
        clamped = clamped or moved(brake[i], value)
        command[C_BRAKE + i] = value + 0.0 * k[K_HANDBRAKE + i]
    command[C_HANDBRAKE] = 0.0
    if clamped:
        f[F_CLAMPED] = f[F_STEER]
    return clamped


@njit
def box(state, k):
    """Return the footprint row of the car (world/scene.py's box)."""
    row = np.empty(5)
    yaw = state[YAW]
    row[BOX_X] = state[X] + math.cos(yaw) * k[K_AHEAD]
    row[BOX_Y] = state[Y] + math.sin(yaw) * k[K_AHEAD]
    row[BOX_YAW] = yaw
    row[BOX_HALF_LENGTH] = 0.5 * k[K_LENGTH]
    row[BOX_HALF_WIDTH] = 0.5 * k[K_WIDTH]
    return row


@njit
def _reach(now: float, growth: float, time_s: float) -> float:
    """sim/contacts.py's _reach."""
    return now * time_s + 0.5 * growth * time_s * time_s


@njit
def look(state, k, blocked, wall_meta, horizon: int):
    """
    sim/contacts.py's _look for one car among walls: (safe steps, clearance, moving).

    moving False: the car's bound is zero (the rule then looks for a touch).
    """
    dt = k[K_DT]
    row = box(state, k)
    reach = hypot(row[BOX_HALF_LENGTH], row[BOX_HALF_WIDTH]) + hypot(
        row[BOX_X] - state[X], row[BOX_Y] - state[Y])
    speed = hypot(state[VX], state[VY])
    fastest = speed + k[K_BOUND_ACCEL] * HORIZON_S
    yaw_acceleration = k[K_BOUND_YAW_ACCEL]
    if yaw_acceleration == 0.0:
        yaw_acceleration = k[K_STEER_M] * k[K_BOUND_ACCEL] + k[K_STEER_RATE_M] * fastest
    now = speed + abs(state[YAW_RATE]) * reach
    growth = k[K_BOUND_ACCEL] + yaw_acceleration * reach
    if not (math.isfinite(now) and math.isfinite(growth)):
        now, growth = 0.0, 0.0
    safe = horizon
    if now + growth <= 0.0:
        return safe, 0.0, False
    clearance = wall_clearance(blocked, wall_meta, row, _reach(now, growth, horizon * dt))[0]
    if growth > 0.0:
        time_s = 2.0 * clearance / (now + math.sqrt(now * now + 2.0 * growth * clearance))
    else:
        time_s = clearance / now
    steps = int(math.floor(time_s / dt))
    while steps > 0 and _reach(now, growth, steps * dt) > clearance:
        steps -= 1
    safe = min(safe, steps)
    return max(1, safe), clearance, True


@njit
def plan(n, clear: int, control_steps: int) -> None:
    """sim/contacts.py's _plan: the next safe steps, ending on a control period if far."""
    now = n[I_STEPS]
    if clear >= control_steps:
        clear = (now + clear) // control_steps * control_steps - now
    n[I_SAFE_UNTIL] = now + clear


@njit
def walk(end: int, f, n, k, j, blocked, wall_meta, state, command, params, tyre_mu, grid,
         meta, vectors, wheel, matrices, ints, out) -> int:
    """
    Step the car with the intake's command from n[I_STEPS] to the publishing instant or `end`.

    stepping.advance's steps for one car in speed mode: the speed push at
    each control period's start (integrating over the period), chunks cut
    at control periods, publishing instants and the contact rule's safe
    steps, a look after each chunk that reaches them. Returns why it ended
    (INSTANT: at the first publishing instant after the start, or at `end`).
    """
    dt = k[K_DT]
    control_steps, publish_every = j[J_CONTROL_STEPS], j[J_PUBLISH_EVERY]
    contacts = j[J_CONTACTS] != 0
    steps = n[I_STEPS]
    while steps < end:
        if steps % control_steps == 0:
            if k[K_TIMEOUT] > 0.0 and (steps - n[I_LAST_COMMAND]) * dt >= k[K_TIMEOUT]:
                return WATCHDOG
            if speed_push(state, command, k, f, control_steps * dt):
                n[I_CLAMPS] += 1
        chunk = min(end - steps, control_steps - steps % control_steps,
                    publish_every - steps % publish_every)
        if contacts:
            if steps >= n[I_SAFE_UNTIL]:
                plan(n, look(state, k, blocked, wall_meta, j[J_HORIZON])[0], control_steps)
            chunk = min(chunk, n[I_SAFE_UNTIL] - steps)
        done = advance(state, command, dt, chunk, j[J_SUBSTEPS], j[J_METHOD], params,
                       tyre_mu, grid, meta, vectors, wheel, matrices, ints, out)
        n[I_STEP_COUNT] += done
        f[F_TIME] += done * dt
        if done < chunk:
            return NON_FINITE
        n[I_STEPS] = steps = steps + chunk
        if contacts and steps >= n[I_SAFE_UNTIL]:
            clear, clearance, moving = look(state, k, blocked, wall_meta, j[J_HORIZON])
            if (not moving or clearance == 0.0) and wall_clearance(
                    blocked, wall_meta, box(state, k), wall_meta[0])[0] == 0.0:
                return TOUCH
            plan(n, clear, control_steps)
        if steps % publish_every == 0:
            break
    return INSTANT
