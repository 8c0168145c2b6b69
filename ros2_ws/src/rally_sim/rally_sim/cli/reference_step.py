"""
A plain-Python step of document 002's model, organised as the document's own code.

Benchmarks compare Vehicle.step() with this: one explicit Euler step of the
7 velocity states computed the way document 002's reference implementation
does it (per-wheel dictionaries, NumPy scalar maths, up to 8 fixed-point
iterations of the load transfer with a 1e-10 N tolerance, then a final pass
with the converged loads). Written for rally_sim from the document's
equations (A.1-A.7, B.3); not used by the simulator.
"""

from typing import Dict, Tuple

import numpy as np

from ..physics import VehicleConfig

WHEEL_NAMES = ('fl', 'fr', 'rl', 'rr')
GUARD = 1e-9
ITERATIONS = 8
TOLERANCE_N = 1e-10


def _guarded(x: float) -> float:
    if abs(x) >= GUARD:
        return x
    return GUARD if x >= 0.0 else -GUARD


class ReferenceStep:
    """Document 002's step for one vehicle file (state: vx, vy, r, omega x4)."""

    def __init__(self, config: VehicleConfig):
        """Take the parameters the document's model uses."""
        self.m, self.iz = config['mass_kg'], config['yaw_inertia_kg_m2']
        self.iw, self.r = config['wheel_inertia_kg_m2'], config['wheel_radius_m']
        self.lf, self.lr = config['cg_to_front_axle_m'], config['cg_to_rear_axle_m']
        self.c, self.h, self.g = (config['half_track_m'], config['cg_height_m'],
                                  config['gravity_m_s2'])
        self.mu, self.b = config.tyre('mu'), config.tyre('B')
        self.cc, self.d = config.tyre('C'), config.tyre('D')

    def _wheel_velocities(self, vx: float, vy: float, yaw_rate: float,
                          steer: float) -> Dict[str, Tuple[float, float]]:
        """Contact-patch velocities in each tyre's frame (A.4)."""
        body = {'fl': (vx - yaw_rate * self.c, vy + yaw_rate * self.lf),
                'fr': (vx + yaw_rate * self.c, vy + yaw_rate * self.lf),
                'rl': (vx - yaw_rate * self.c, vy - yaw_rate * self.lr),
                'rr': (vx + yaw_rate * self.c, vy - yaw_rate * self.lr)}
        cos_d, sin_d = float(np.cos(steer)), float(np.sin(steer))
        tyre = dict(body)
        for name in ('fl', 'fr'):
            wx, wy = body[name]
            tyre[name] = (wx * cos_d + wy * sin_d, -wx * sin_d + wy * cos_d)
        return tyre

    def _tyre_force(self, i: int, vx_t: float, vy_t: float, omega: float,
                    load: float) -> Tuple[float, float]:
        """Slips (A.5) and the combined-slip force in the tyre frame (A.6)."""
        omega_r = omega * self.r
        if vx_t >= omega_r:
            sx = (omega_r - vx_t) / _guarded(vx_t)
        else:
            sx = (omega_r - vx_t) / _guarded(omega_r)
        sy = vy_t / _guarded(omega_r)
        s = float(np.sqrt(sx * sx + sy * sy))
        if s <= GUARD or load <= 0.0:
            return 0.0, 0.0
        size = self.mu[i] * load * self.d[i] * float(np.sin(self.cc[i] * np.arctan(self.b[i] * s)))
        return size * sx / s, -size * sy / s

    def _forces(self, z, tyre, steer: float, loads: np.ndarray):
        """Tyre-frame and vehicle-frame forces of the four wheels at the given loads."""
        cos_d, sin_d = float(np.cos(steer)), float(np.sin(steer))
        fx_t, fx_v, fy_v = np.zeros(4), np.zeros(4), np.zeros(4)
        for i, name in enumerate(WHEEL_NAMES):
            fx, fy = self._tyre_force(i, *tyre[name], float(z[3 + i]), float(loads[i]))
            fx_t[i] = fx
            if i < 2:
                fx_v[i], fy_v[i] = fx * cos_d - fy * sin_d, fx * sin_d + fy * cos_d
            else:
                fx_v[i], fy_v[i] = fx, fy
        return fx_t, fx_v, fy_v

    def _loads(self, total_x: float, total_y: float) -> np.ndarray:
        """Document 002's load-transfer formula (A.7)."""
        wheelbase = self.lf + self.lr
        k = 1.0 / (4.0 * self.c * wheelbase)
        front = 2.0 * self.lr * self.c * self.g * self.m - 2.0 * self.c * self.h * total_x
        rear = 2.0 * self.lf * self.c * self.g * self.m + 2.0 * self.c * self.h * total_x
        lateral = self.h * wheelbase * total_y
        return k * np.array([front - lateral, front + lateral, rear - lateral, rear + lateral])

    def step(self, z: np.ndarray, steer: float, torque_rl: float, torque_rr: float,
             dt: float) -> np.ndarray:
        """Return the 7 velocity states after one explicit Euler step of dt."""
        z = np.asarray(z, dtype=float).reshape(-1)
        vx, vy, yaw_rate = float(z[0]), float(z[1]), float(z[2])
        tyre = self._wheel_velocities(vx, vy, yaw_rate, steer)
        weight = self.m * self.g / (2.0 * (self.lf + self.lr))
        loads = np.array([self.lr, self.lr, self.lf, self.lf]) * weight
        for _ in range(ITERATIONS):
            _, fx_v, fy_v = self._forces(z, tyre, steer, loads)
            new = self._loads(float(np.sum(fx_v)), float(np.sum(fy_v)))
            converged = np.max(np.abs(new - loads)) <= TOLERANCE_N
            loads = new
            if converged:
                break
        fx_t, fx_v, fy_v = self._forces(z, tyre, steer, loads)
        dz = np.array([
            vy * yaw_rate + float(np.sum(fx_v)) / self.m,
            -vx * yaw_rate + float(np.sum(fy_v)) / self.m,
            (self.lf * (fy_v[0] + fy_v[1]) - self.lr * (fy_v[2] + fy_v[3])
             + self.c * (fx_v[1] + fx_v[3] - fx_v[0] - fx_v[2])) / self.iz,
            -fx_t[0] * self.r / self.iw, -fx_t[1] * self.r / self.iw,
            (torque_rl - fx_t[2] * self.r) / self.iw, (torque_rr - fx_t[3] * self.r) / self.iw])
        return z + dt * dz
