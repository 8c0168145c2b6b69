"""
A car on springs for the tests: a preset with keys set, and its figures from the vehicle file.

The figures (static loads, the energy of springs, bars, tyres and weight)
are written from the physical description, not from the kernels' code.
"""

import numpy as np
from rally_sim.physics import load_vehicle
from rally_sim.physics.body.layout import HEAVE, HEAVE_RATE, WHEEL_Z
from support.vehicles import vehicle_file

AXLES = ('front', 'rear')


def sprung(preset='volvo_v40_suspension', **keys):
    """Return a preset's config with some keys set (dotted names)."""
    return load_vehicle(vehicle_file(preset), [f'{k}={v}' for k, v in keys.items()])


def both(key, value):
    """Return {suspension.front.key: value, suspension.rear.key: value}."""
    return {f'suspension.{axle}.{key}': value for axle in AXLES}


class Figures:
    """A suspension's figures worked out from the vehicle file, and its energy."""

    def __init__(self, config):
        v = config.values
        self.v = v
        self.g, m = v['gravity_m_s2'], v['mass_kg']
        self.lf, self.lr, self.c = v['cg_to_front_axle_m'], v['cg_to_rear_axle_m'], \
            v['half_track_m']
        rear = v['wheel_radius_rear_m'] or v['wheel_radius_m']
        self.radius = np.array([v['wheel_radius_m']] * 2 + [rear] * 2)     # each wheel's
        self.m = m
        self.mu = np.array([v[f'suspension.{a}.unsprung_mass_kg'] for a in AXLES
                            for _ in range(2)])
        self.m_s = m - self.mu.sum()
        wheel_x = np.array([self.lf, self.lf, -self.lr, -self.lr])
        self.x_s = -(self.mu * wheel_x).sum() / self.m_s
        self.h_s = (m * v['cg_height_m'] - (self.mu * self.radius).sum()) / self.m_s
        self.px = wheel_x - self.x_s
        self.py = np.array([self.c, -self.c, self.c, -self.c])
        base = self.lf + self.lr
        self.static = 0.5 * m * self.g * np.array([self.lr, self.lr, self.lf, self.lf]) / base
        self.k = self._each('spring_rate_n_m')
        self.k_t = self._each('tyre_rate_n_m')
        self.bar = np.array([v[f'suspension.{a}.anti_roll_bar_n_m_rad'] for a in AXLES])
        self.h_rc = np.array([v[f'suspension.{a}.roll_centre_height_m'] for a in AXLES])
        share = (self.x_s + self.lr) / base
        self.h_ra = self.h_rc[1] + share * (self.h_rc[0] - self.h_rc[1])
        self.inertia = np.array([self.m_s, v['suspension.roll_inertia_kg_m2'],
                                 v['suspension.pitch_inertia_kg_m2'], *self.mu])

    def _each(self, key):
        return np.array([self.v[f'suspension.{a}.{key}'] for a in AXLES for _ in range(2)])

    def compression(self, q):
        """Each corner's compression from static ride, q = heave, roll, pitch, wheel_z x4."""
        body = q[0] + self.py * q[1] - self.px * q[2]
        return q[3:7] - body + (self.h_s - self.radius)

    def potential(self, q, ground=0.0):
        """Springs (preloaded), bars, tyres, weight and the body's lean over its axes."""
        s = self.compression(q)
        preload = self.static - self.mu * self.g
        energy = (preload * s + 0.5 * self.k * s * s).sum()
        for axle in range(2):
            travel = s[2 * axle] - s[2 * axle + 1]
            energy += 0.5 * self.bar[axle] / (2 * self.c) ** 2 * travel * travel
        deflection = ground + self.radius + self.static / self.k_t - q[3:7]
        energy += (0.5 * self.k_t * np.maximum(deflection, 0.0) ** 2).sum()
        energy += self.g * (self.m_s * q[0] + (self.mu * q[3:7]).sum())
        energy -= 0.5 * self.m_s * self.g * (self.h_s - self.h_ra) * q[1] ** 2
        energy -= 0.5 * self.m_s * self.g * self.h_s * q[2] ** 2
        return energy

    def energy(self, state):
        """Return the body's energy: kinetic of its seven rates, and potential."""
        rates = state[HEAVE_RATE:HEAVE_RATE + 7]
        return 0.5 * (self.inertia * rates * rates).sum() + self.potential(
            state[HEAVE:HEAVE + 7])

    def centre(self, state):
        """Return the height of the whole car's centre of gravity (sprung and unsprung)."""
        return (self.m_s * state[HEAVE] + (self.mu * state[WHEEL_Z:WHEEL_Z + 4]).sum()) / self.m

    def static_positions(self):
        """Return q at static ride on flat ground at height 0."""
        return np.array([self.h_s, 0.0, 0.0, *self.radius])

    def stiffness(self):
        """Return the Hessian of the potential at static ride (central differences)."""
        q0, eps = self.static_positions(), 1e-4
        matrix = np.zeros((7, 7))
        for i in range(7):
            for j in range(7):
                total = 0.0
                for si, sj, sign in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                    q = q0.copy()
                    q[i] += si * eps
                    q[j] += sj * eps
                    total += sign * self.potential(q)
                matrix[i, j] = total / (4 * eps * eps)
        return matrix
