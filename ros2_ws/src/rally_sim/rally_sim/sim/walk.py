"""
A session's steps between publishing instants in one compiled call, where they allow it.

stepping.advance asks a Walker to take the steps up to the next publishing
instant (period_kernels.walk) when the session is one car in speed mode
with no actuator, no drivetrain, no sensor on a schedule of its own and its
watchdog not fired: then those steps push nothing but the speed
controller's command and measure nothing, and walk() takes them as the
Python loop does, to the bit. The Walker hands the intake's, the vehicle's
and the contact rule's state to the kernel and back, and reports clamped
commands as the intake does. On this path the front end's emit() between
instants (publish False, nothing delivered) is skipped: it does nothing.
"""

import numpy as np

from . import period_kernels as pk
from ..control.speed import BRAKE_SHARES
from ..physics.jit import ENABLED


class Walker:
    """period_kernels.walk() for one session: its constants, and the state handed to and fro."""

    def __init__(self, session):
        """Walk `session`'s steps (stepping.advance asks usable() first)."""
        self.session = session
        self.f = np.zeros(pk.FLOATS)
        self.n = np.zeros(pk.INTS, dtype=np.int64)
        self._key = None
        self.k = np.zeros(pk.CONSTANTS)
        self.j = np.zeros(pk.SETTINGS, dtype=np.int64)
        self.walls = (np.zeros((1, 1), dtype=bool), np.ones(5))

    def usable(self) -> bool:
        """Return whether the next steps are the walk's: see the module's docstring."""
        session = self.session
        if not ENABLED or len(session.cars) != 1:
            return False
        car = session.cars[0]
        vehicle = car.vehicle
        return (car.halted is None and car.settings['command_mode'] == 'speed'
                and not vehicle.acting and not vehicle.has_drivetrain
                and not car.intake.timed_out and not car.sensors.channels)

    def walk(self, end: int) -> int:
        """
        Take the steps to the next publishing instant, or to step `end`; return why it ended.

        period_kernels' INSTANT, WATCHDOG, TOUCH or NON_FINITE; the session's
        step count is where it ended.
        """
        session = self.session
        car = session.cars[0]
        intake, vehicle, contacts = car.intake, car.vehicle, session.contacts
        self._constants(car)
        f, n = self.f, self.n
        f[pk.F_STEER], f[pk.F_RATE] = intake.steer_rad, intake.steer_rate
        f[pk.F_TARGET], f[pk.F_ACCELERATION] = intake.target_speed, intake.target_acceleration
        f[pk.F_INTEGRAL], f[pk.F_TIME] = intake.speed.integral_m, vehicle.time_s
        f[pk.F_REFERENCE] = intake.speed.reference_m_s
        f[pk.F_FEEDFORWARD] = intake.speed.feedforward_m_s2
        n[pk.I_STEPS], n[pk.I_LAST_COMMAND] = session.sim_steps, intake.last_command_steps
        n[pk.I_SAFE_UNTIL], n[pk.I_STEP_COUNT] = contacts.safe_until, vehicle.step_count
        n[pk.I_CLAMPS] = 0
        w = vehicle.work
        why = pk.walk(end, f, n, self.k, self.j, *self.walls, vehicle.state, vehicle.command,
                      vehicle.flat_params, vehicle.tyre_mu, *vehicle.map_arrays, w.vectors,
                      w.wheel, w.matrices, w.ints, vehicle.outputs)
        intake.speed.integral_m, vehicle.time_s = float(f[pk.F_INTEGRAL]), float(f[pk.F_TIME])
        intake.speed.reference_m_s = float(f[pk.F_REFERENCE])
        intake.speed.feedforward_m_s2 = float(f[pk.F_FEEDFORWARD])
        session.sim_steps, contacts.safe_until = int(n[pk.I_STEPS]), int(n[pk.I_SAFE_UNTIL])
        vehicle.step_count = int(n[pk.I_STEP_COUNT])
        if n[pk.I_CLAMPS]:
            report_clamps(intake.reports, int(n[pk.I_CLAMPS]), float(f[pk.F_CLAMPED]),
                          self.k[pk.K_MAX_STEER])
        return why

    def _constants(self, car) -> None:
        """Fill k and j for the car as it is now (again only when what they hold changed)."""
        session = self.session
        vehicle, intake, scene = car.vehicle, car.intake, session.scene
        contacts = session.contacts.active
        held = (vehicle, intake.speed, scene.blocked, scene.meta, scene.outlines[0])
        key = (car.settings['command_timeout_s'], contacts, intake.control_steps,
               session.publish_every, session.dt)
        if self._key is not None and key == self._key[0] and all(
                a is b for a, b in zip(held, self._key[1])):
            return
        speed, k = intake.speed, self.k
        k[pk.K_DT], k[pk.K_TIMEOUT] = session.dt, car.settings['command_timeout_s']
        k[pk.K_MASS], k[pk.K_RADIUS] = speed.mass_kg, speed.wheel_radius_m
        k[pk.K_KP], k[pk.K_KI], k[pk.K_DRIVEN] = (speed.kp_per_s, speed.ki_per_s2,
                                                  max(1, speed._driven))
        k[pk.K_MAX_STEER] = vehicle.config['steering.max_angle_rad']
        k[pk.K_DRIVE_LIMIT:pk.K_DRIVE_LIMIT + 4] = speed.drive_limit_n_m
        k[pk.K_BRAKE_LIMIT:pk.K_BRAKE_LIMIT + 4] = speed.brake_limit_n_m
        k[pk.K_RADII:pk.K_RADII + 4] = speed.wheel_radii_m
        k[pk.K_HANDBRAKE:pk.K_HANDBRAKE + 4] = vehicle.handbrake_torque
        k[pk.K_SHARES:pk.K_SHARES + 4] = BRAKE_SHARES
        k[pk.K_APPROACH] = speed.approach_s
        if contacts:
            outline = scene.outlines[0]
            k[pk.K_LENGTH], k[pk.K_WIDTH], k[pk.K_AHEAD] = (
                outline.length_m, outline.width_m, outline.ahead_of_cg_m)
            k[pk.K_BOUND_ACCEL], k[pk.K_BOUND_YAW_ACCEL] = (outline.acceleration_m_s2,
                                                            outline.yaw_acceleration_rad_s2)
            k[pk.K_STEER_M], k[pk.K_STEER_RATE_M] = outline.steer_m, outline.steer_rate_m
            self.walls = (scene.blocked, scene.meta)
        self.j[:] = (intake.control_steps, session.publish_every,
                     vehicle.substeps_for(session.dt), vehicle.method, int(contacts),
                     max(1, round(pk.HORIZON_S / session.dt)))
        self._key = (key, held)


def report_clamps(reports, count: int, steer: float, limit: float) -> None:
    """Report `count` commands clamped to the steering `limit` as the intake does."""
    reports.count('clamped', count)
    reports.warn('clamped', 'command clamped to the vehicle limits: steer_rad = '
                 f'{steer:g} clamped to {min(max(steer, -limit), limit):g} '
                 f'(limit [{-limit:g}, {limit:g}])')
