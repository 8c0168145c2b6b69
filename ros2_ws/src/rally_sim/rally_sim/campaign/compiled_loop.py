"""
The in-process engine's compiled loop: a path follower's run in one compiled call.

An in-process run of the path follower spends four fifths of its time in
Python between the physics kernel's calls: the law, the command intake,
the speed controller, the vehicle's command limits, the contact rule and
the truth the runner reads, some forty calls per control period. Where a
run needs nothing else (one car, speed mode, the ideal sensor profile, no
delay compensation, no actuator lag, no drivetrain), this loop does those
same operations in their order in compiled code, from the first state to
the run's end (its duration, or its laps as the runner counts them): the
law's answer (path_kernels.command, the law's own kernel), the intake's
hold, then the steps to the next publishing instant as the simulator's
session takes them (sim/period_kernels.py's walk: the speed controller at
each control period, the limits' clamps, the physics steps in the chunks
stepping.advance cuts, the contact rule's looks) and the truth row at each
publishing instant. It leaves the session's objects as
the Python loop leaves them, so a run is the same run to the bit
(test_compiled_loop), and whatever the loop does not do (a touch, a
non-finite state or command, the watchdog) goes back to the Python loop
at the very step where it happens.
"""

from array import array
import math
from typing import Dict, Optional

import numpy as np

from ..control.laws.path_follower import PathFollowerLaw
from ..control.path_kernels import command as pursuit_command, nearest_in, START
from ..control.speed import BRAKE_SHARES
from ..physics.jit import ENABLED, njit
from ..physics.model import O_GROUND, SLIP_ANGLE, VX, VY, X, Y, YAW, YAW_RATE
from ..scenarios.metrics import LAP_CHECK_EVERY, STATE_COLUMNS
from ..sim.contacts import HORIZON_S
from ..sim.period_kernels import (
    CONSTANTS as WALK_CONSTANTS, F_ACCELERATION, F_CLAMPED, F_FEEDFORWARD, F_INTEGRAL, F_RATE,
    F_REFERENCE, F_STEER, F_TARGET, F_TIME, first_max, FLOATS as WALK_FLOATS, I_CLAMPS,
    I_LAST_COMMAND, I_SAFE_UNTIL, I_STEP_COUNT, I_STEPS, INSTANT, INTS as WALK_INTS,
    J_PUBLISH_EVERY, K_AHEAD, K_APPROACH, K_BOUND_ACCEL, K_BOUND_YAW_ACCEL, K_BRAKE_LIMIT,
    K_DRIVE_LIMIT, K_DRIVEN, K_DT, K_HANDBRAKE, K_KI, K_KP, K_LENGTH, K_MASS, K_MAX_STEER,
    K_RADII, K_RADIUS, K_SHARES, K_STEER_M, K_STEER_RATE_M, K_TIMEOUT, K_WIDTH, NON_FINITE,
    SETTINGS as WALK_SETTINGS, TOUCH, walk, WATCHDOG)
from ..sim.walk import report_clamps

# The loop's state between calls (floats, ints) after the walk's (sim/period_kernels.py):
# the odometry the law answers next, the laps counted.
(F_ODOM_X, F_ODOM_Y, F_ODOM_YAW, F_ODOM_VX, F_ODOM_VY, F_ODOM_YAW_RATE, F_LAP_SEEN,
 F_LAP_PROGRESS, F_LAP_DRIVEN) = range(WALK_FLOATS, WALK_FLOATS + 9)
FLOATS = WALK_FLOATS + 9
I_ODOM_NS = WALK_INTS
INTS = WALK_INTS + 1
# Constants of a run after the walk's: the law's settings, the laps and the duration.
(K_WHEELBASE, K_CG_TO_REAR, K_LOOKAHEAD_MIN, K_LOOKAHEAD_GAIN, K_LAW_MAX_STEER, K_TARGET_SPEED,
 K_LATERAL_LIMIT, K_MIN_SPEED, K_ACCELERATION, K_LAPS_GOAL,
 K_DURATION_NS) = range(WALK_CONSTANTS, WALK_CONSTANTS + 11)
CONSTANTS = WALK_CONSTANTS + 11
J_STEP_NS, J_CHECK_EVERY = WALK_SETTINGS, WALK_SETTINGS + 1
# Why a call ended: the walk's WATCHDOG, TOUCH and NON_FINITE, and these.
DONE, ENDED, ANSWER = INSTANT + 4, INSTANT + 5, INSTANT + 6
"""DONE: every period asked for; ENDED: the run ends at the state before the last (its
duration, or its laps, counted as the runner counts them). The others hand the run to the
Python loop: ANSWER, the law's answer is not finite (before it is taken); WATCHDOG, the
watchdog fires at a control period's start (before it starts); TOUCH, a contact check is
due on a touching car (after the chunk); NON_FINITE, the physics failed (the vehicle holds
the last finite state)."""
TRUTH_COLUMNS = 8
"""A truth row: scenarios.metrics.STATE_COLUMNS."""
EPS = float(np.finfo(np.float64).eps)
"""transforms3d's float epsilon (its quat2mat and mat2euler's thresholds)."""


@njit
def _orientation_yaws(roll: float, pitch: float, yaw: float):
    """
    Return the yaw the metrics read, and the one the controller reads, of the truth's quaternion.

    transforms3d's euler2quat (axes sxyz), then the metrics' quaternion_yaw and
    the nodes' quat2euler (quat2mat, mat2euler), in their operations' order.
    """
    ci, si = math.cos(roll / 2.0), math.sin(roll / 2.0)
    cj, sj = math.cos(pitch / 2.0), math.sin(pitch / 2.0)
    ck, sk = math.cos(yaw / 2.0), math.sin(yaw / 2.0)
    cc, cs, sc, ss = ci * ck, ci * sk, si * ck, si * sk
    w = cj * cc + sj * ss
    x = cj * sc - sj * cs
    y = cj * ss + sj * cc
    z = cj * cs - sj * sc
    metrics_yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    norm = w * w + x * x + y * y + z * z
    if norm < EPS:
        m00, m10 = 1.0, 0.0
    else:
        s = 2.0 / norm
        big_y, big_z = y * s, z * s
        m00 = 1.0 - (y * big_y + z * big_z)
        m10 = x * big_y + w * big_z
    if math.sqrt(m00 * m00 + m10 * m10) > EPS * 4.0:
        return metrics_yaw, math.atan2(m10, m00)
    return metrics_yaw, 0.0


@njit
def _ends(stamp_ns: int, x: float, y: float, f, k, j, laps, laps_length_m: float) -> bool:
    """
    Return whether the run ends at the state stamped stamp_ns, at (x, y), as the runner ends it.

    Its duration, or on every J_CHECK_EVERY-th state its laps (scenarios/metrics.py's
    LapCounter, on the path `laps`), counted in f.
    """
    if stamp_ns >= k[K_DURATION_NS]:
        return True
    every = j[J_CHECK_EVERY] * j[J_PUBLISH_EVERY] * j[J_STEP_NS]
    if every == 0 or stamp_ns % every != 0:
        return False
    i, along, _, _, _ = nearest_in(laps, x, y)
    progress = laps[START, i] + along
    if f[F_LAP_SEEN] != 0.0:
        half = laps_length_m / 2.0
        f[F_LAP_DRIVEN] += (progress - f[F_LAP_PROGRESS] + half) % laps_length_m - half
    f[F_LAP_SEEN], f[F_LAP_PROGRESS] = 1.0, progress
    return f[F_LAP_DRIVEN] >= k[K_LAPS_GOAL]


@njit
def run_periods(periods, truth, f, n, k, j, table, length_m, laps, laps_length_m, blocked,
                wall_meta, state, command, params, tyre_mu, grid, meta, vectors, wheel,
                matrices, ints, out):
    """
    Answer the odometry and step to the next publishing instant, `periods` times.

    Fills truth[p] (STATE_COLUMNS) at each instant; f and n carry the state
    between calls (F_*, I_*); k and j hold the constants (K_*, J_*). Stops
    early once the run ends at the state before (ENDED), or where the Python
    loop takes over. Returns (why it stopped, the periods completed).
    """
    publish_every = j[J_PUBLISH_EVERY]
    for p in range(periods):
        # the law answers the odometry; the intake holds its command (not pushed: a
        # publishing instant is a control period's start, whose push replaces it)
        steer, speed = pursuit_command(
            table, length_m, f[F_ODOM_X], f[F_ODOM_Y], f[F_ODOM_YAW], f[F_ODOM_VX],
            k[K_WHEELBASE], k[K_CG_TO_REAR], k[K_LOOKAHEAD_MIN], k[K_LOOKAHEAD_GAIN],
            k[K_LAW_MAX_STEER], k[K_TARGET_SPEED], k[K_LATERAL_LIMIT], k[K_MIN_SPEED])
        steer, speed = float(np.float32(steer)), float(np.float32(speed))   # on the wire
        if not (math.isfinite(steer) and math.isfinite(speed)):
            return ANSWER, p
        f[F_STEER], f[F_RATE] = steer, 0.0
        f[F_TARGET], f[F_ACCELERATION] = speed, abs(k[K_ACCELERATION])
        n[I_LAST_COMMAND] = n[I_STEPS]
        why = walk(n[I_STEPS] + publish_every, f, n, k, j, blocked, wall_meta, state, command,
                   params, tyre_mu, grid, meta, vectors, wheel, matrices, ints, out)
        if why != INSTANT:
            return why, p
        steps = n[I_STEPS]
        # the publishing instant: the truth the runner reads, the odometry the law reads
        metrics_yaw, odometry_yaw = _orientation_yaws(out[O_GROUND, 2], out[O_GROUND, 1],
                                                      state[YAW])
        slip = abs(out[SLIP_ANGLE, 0])
        for i in range(1, 4):
            slip = first_max(slip, abs(out[SLIP_ANGLE, i]))
        now_ns = steps * j[J_STEP_NS]
        truth[p, 0] = now_ns / 1e9
        truth[p, 1], truth[p, 2], truth[p, 3] = state[X], state[Y], metrics_yaw
        truth[p, 4], truth[p, 5], truth[p, 6] = state[VX], state[VY], state[YAW_RATE]
        truth[p, 7] = slip
        ended = _ends(n[I_ODOM_NS], f[F_ODOM_X], f[F_ODOM_Y], f, k, j, laps, laps_length_m)
        n[I_ODOM_NS] = now_ns
        f[F_ODOM_X], f[F_ODOM_Y], f[F_ODOM_YAW] = state[X], state[Y], odometry_yaw
        f[F_ODOM_VX], f[F_ODOM_VY], f[F_ODOM_YAW_RATE] = state[VX], state[VY], state[YAW_RATE]
        if ended:
            return ENDED, p + 1
    return DONE, periods


def prepare() -> None:
    """Load (or compile) the loop's kernels now, not at a run's first state: a short run."""
    from .inprocess import run_scenario
    from ..scenarios.spec import load_scenario
    spec = load_scenario('path_follow')
    spec.update(duration_s=0.1, seed_in_use=0)
    run_scenario(spec)


def _usable(run) -> bool:
    """Return whether the loop can drive an in-process run (campaign/inprocess.py's)."""
    if not ENABLED or run.opponents:
        return False
    law = run.driver.law
    if not (isinstance(law, PathFollowerLaw) and law.pedals is None
            and law.law.compensator.delay_s == 0.0 and law.law.follower.path._kernels):
        return False
    session = run.session
    car = session.cars[0]
    vehicle, sensors = car.vehicle, car.sensors
    return (car.settings['command_mode'] == 'speed' and not vehicle.acting
            and not vehicle.has_drivetrain and not sensors.channels
            and 'odometry' in sensors.with_outputs and not car.intake.timed_out
            and session.publish_every % car.intake.control_steps == 0
            and not session.marker_every and car.halted is None)


class CompiledLoop:
    """run_periods() for one in-process run: its constants, and the state handed to and fro."""

    usable = staticmethod(_usable)

    def __init__(self, run, laps):
        """Take the constants of `run` (usable(run) holds), which counts `laps` (LapCounter)."""
        self.run, self.laps = run, laps
        session = self.session = run.session
        car = self.car = session.cars[0]
        vehicle = self.vehicle = car.vehicle
        law = run.driver.law
        settings, path = law.law.follower.settings, law.law.follower.path
        self.table, self.length_m = path.table, path.length_m
        speed = car.intake.speed
        k = self.k = np.zeros(CONSTANTS)
        k[K_DT], k[K_TIMEOUT] = session.dt, car.settings['command_timeout_s']
        k[K_WHEELBASE], k[K_CG_TO_REAR] = settings.wheelbase_m, settings.cg_to_rear_m
        k[K_LOOKAHEAD_MIN], k[K_LOOKAHEAD_GAIN] = (settings.lookahead_min_m,
                                                   settings.lookahead_gain_s)
        k[K_LAW_MAX_STEER], k[K_TARGET_SPEED] = settings.max_steer_rad, settings.target_speed_m_s
        k[K_LATERAL_LIMIT], k[K_MIN_SPEED] = (settings.lateral_accel_limit_m_s2,
                                              settings.min_speed_m_s)
        k[K_ACCELERATION] = array('f', (law.law.acceleration,))[0]     # float32 on the wire
        k[K_MASS], k[K_RADIUS] = speed.mass_kg, speed.wheel_radius_m
        k[K_KP], k[K_KI], k[K_DRIVEN] = speed.kp_per_s, speed.ki_per_s2, max(1, speed._driven)
        k[K_MAX_STEER] = vehicle.config['steering.max_angle_rad']
        k[K_DRIVE_LIMIT:K_DRIVE_LIMIT + 4] = speed.drive_limit_n_m
        k[K_BRAKE_LIMIT:K_BRAKE_LIMIT + 4] = speed.brake_limit_n_m
        k[K_RADII:K_RADII + 4] = speed.wheel_radii_m
        k[K_HANDBRAKE:K_HANDBRAKE + 4] = vehicle.handbrake_torque
        k[K_SHARES:K_SHARES + 4] = BRAKE_SHARES
        k[K_APPROACH] = speed.approach_s
        k[K_LAPS_GOAL], k[K_DURATION_NS] = laps.goal_m, run.spec['duration_s'] * 1e9
        self.lap_path = laps.path
        contacts = session.contacts.active
        if contacts:
            outline = session.scene.outlines[0]
            k[K_LENGTH], k[K_WIDTH], k[K_AHEAD] = (outline.length_m, outline.width_m,
                                                   outline.ahead_of_cg_m)
            k[K_BOUND_ACCEL], k[K_BOUND_YAW_ACCEL] = (outline.acceleration_m_s2,
                                                      outline.yaw_acceleration_rad_s2)
            k[K_STEER_M], k[K_STEER_RATE_M] = outline.steer_m, outline.steer_rate_m
        self.walls = ((session.scene.blocked, session.scene.meta) if contacts
                      else (np.zeros((1, 1), dtype=bool), np.ones(5)))
        self.j = np.array([car.intake.control_steps, session.publish_every,
                           vehicle.substeps_for(session.dt), vehicle.method, int(contacts),
                           max(1, round(HORIZON_S / session.dt)), session.step_ns,
                           LAP_CHECK_EVERY if laps.wanted else 0], dtype=np.int64)
        self.f = np.zeros(FLOATS)
        self.n = np.zeros(INTS, dtype=np.int64)

    def to_end(self) -> Optional[Dict[str, np.ndarray]]:
        """
        Run from the first state to the run's end (its duration or laps).

        Returns the states the runner keeps (STATE_COLUMNS: the truth at each
        publishing instant up to the end), or None where the Python loop is
        to go on: the truth so far is then in the run's, as it keeps it.
        """
        run, session, car, vehicle = self.run, self.session, self.car, self.vehicle
        intake = car.intake
        stamp_ns, odometry = run.driver.pending
        period_ns = session.publish_every * session.step_ns
        periods = max(1, math.ceil((self.k[K_DURATION_NS] - stamp_ns) / period_ns) + 1)
        f, n = self.f, self.n
        f[F_STEER], f[F_RATE] = intake.steer_rad, intake.steer_rate
        f[F_TARGET], f[F_ACCELERATION] = intake.target_speed, intake.target_acceleration
        f[F_INTEGRAL], f[F_TIME] = intake.speed.integral_m, vehicle.time_s
        f[F_REFERENCE], f[F_FEEDFORWARD] = (intake.speed.reference_m_s,
                                            intake.speed.feedforward_m_s2)
        f[F_ODOM_X:F_ODOM_YAW_RATE + 1] = odometry
        n[I_STEPS], n[I_LAST_COMMAND] = session.sim_steps, intake.last_command_steps
        n[I_SAFE_UNTIL], n[I_STEP_COUNT] = session.contacts.safe_until, vehicle.step_count
        n[I_ODOM_NS], n[I_CLAMPS] = stamp_ns, 0
        laps = self.laps
        f[F_LAP_SEEN], f[F_LAP_DRIVEN] = laps.progress_m is not None, laps.driven_m
        f[F_LAP_PROGRESS] = laps.progress_m or 0.0
        truth = np.empty((periods, TRUTH_COLUMNS))
        w = vehicle.work
        why, done = run_periods(periods, truth, f, n, self.k, self.j, self.table, self.length_m,
                                self.lap_path.table, self.lap_path.length_m, *self.walls,
                                vehicle.state, vehicle.command, vehicle.flat_params,
                                vehicle.tyre_mu, *vehicle.map_arrays, w.vectors, w.wheel,
                                w.matrices, w.ints, vehicle.outputs)
        intake.steer_rad, intake.steer_rate = float(f[F_STEER]), float(f[F_RATE])
        intake.target_speed = float(f[F_TARGET])
        intake.target_acceleration = float(f[F_ACCELERATION])
        intake.last_command_steps = int(n[I_LAST_COMMAND])
        intake.speed.integral_m, vehicle.time_s = float(f[F_INTEGRAL]), float(f[F_TIME])
        intake.speed.reference_m_s = float(f[F_REFERENCE])
        intake.speed.feedforward_m_s2 = float(f[F_FEEDFORWARD])
        session.sim_steps, session.contacts.safe_until = int(n[I_STEPS]), int(n[I_SAFE_UNTIL])
        vehicle.step_count = int(n[I_STEP_COUNT])
        if n[I_CLAMPS]:
            report_clamps(intake.reports, int(n[I_CLAMPS]), float(f[F_CLAMPED]),
                          self.k[K_MAX_STEER])
        run.driver.pending = None if why in (WATCHDOG, TOUCH, NON_FINITE) else (
            int(n[I_ODOM_NS]), type(odometry)(*f[F_ODOM_X:F_ODOM_YAW_RATE + 1].tolist()))
        if why == ENDED:        # the states up to the end: the first, then the loop's but one
            rows = np.vstack([np.array([run.truth[stamp_ns]]), truth[:done - 1]])
            return {name: np.ascontiguousarray(rows[:, i])
                    for i, name in enumerate(STATE_COLUMNS)}
        for p, row in enumerate(truth[:done].tolist(), start=1):
            run.truth[stamp_ns + p * period_ns] = tuple(row)
        self._hand_back(why)
        return None

    def _hand_back(self, why: int) -> None:
        """Finish what stepping.advance does at the step the loop stopped at, as it does it."""
        session, vehicle = self.session, self.vehicle
        if why == NON_FINITE:
            try:
                vehicle._non_finite()
            except FloatingPointError as error:
                session.failed(error)
        elif why == TOUCH:
            session.contacts.check()
            publish = session.sim_steps % session.publish_every == 0
            session.at_step(publish, False)
