"""
The sprung body's parameters: from the vehicle file's `suspension:` keys to the kernels' block.

The file gives the car's whole mass and centre of gravity (as for the planar
body) and the unsprung masses; the sprung mass is what is left, its centre
of gravity where the whole car's stays where the file puts it: the
unsprung masses sit at their wheel centres (a wheel radius up).
"""

from typing import List, Mapping

import numpy as np

from .layout import (
    B_FRONT, B_ON, B_PITCH_INERTIA, B_REAR, B_ROLL_AXIS, B_ROLL_INERTIA, B_SPRUNG_HEIGHT,
    B_SPRUNG_MASS, B_SPRUNG_X, BODY_SIZE, X_BAR_RATE, X_BUMP_DAMPING, X_BUMP_TRAVEL,
    X_PRELOAD, X_REBOUND_DAMPING, X_REBOUND_TRAVEL, X_ROLL_CENTRE, X_SPRING, X_STOP_DAMPING,
    X_STOP_RATE,
    X_TYRE_DAMPING, X_TYRE_RATE, X_TYRE_STATIC, X_UNSPRUNG)

AXLE_KEYS = {
    X_SPRING: 'spring_rate_n_m', X_BUMP_DAMPING: 'bump_damping_n_s_m',
    X_REBOUND_DAMPING: 'rebound_damping_n_s_m', X_BUMP_TRAVEL: 'bump_travel_m',
    X_REBOUND_TRAVEL: 'rebound_travel_m', X_STOP_RATE: 'bump_stop_rate_n_m',
    X_STOP_DAMPING: 'bump_stop_damping_n_s_m',
    X_ROLL_CENTRE: 'roll_centre_height_m', X_UNSPRUNG: 'unsprung_mass_kg',
    X_TYRE_RATE: 'tyre_rate_n_m', X_TYRE_DAMPING: 'tyre_damping_n_s_m'}
"""An axle's suspension keys (suspension.<axle>.<key>) by their entry in its block."""
AXLES = ('front', 'rear')


class Sprung:
    """The sprung body's derived figures of a vehicle file's values (see the module)."""

    def __init__(self, v: Mapping):
        """Work out the sprung mass, its centre of gravity and each corner's static loads."""
        self.v = v
        self.g = v['gravity_m_s2']
        self.lf, self.lr = v['cg_to_front_axle_m'], v['cg_to_rear_axle_m']
        front = v['wheel_radius_m']
        self.radius = {'front': front, 'rear': v.get('wheel_radius_rear_m') or front}
        mass = v['mass_kg']
        self.unsprung = {axle: v[f'suspension.{axle}.unsprung_mass_kg'] for axle in AXLES}
        total_unsprung = 2.0 * sum(self.unsprung.values())
        self.mass = mass - total_unsprung
        base = self.lf + self.lr
        self.corner_load = {'front': 0.5 * mass * self.g * self.lr / base,
                            'rear': 0.5 * mass * self.g * self.lf / base}
        if self.mass <= 0.0:
            self.height = self.x = 0.0
            return
        moment_x = 2.0 * (self.unsprung['front'] * self.lf - self.unsprung['rear'] * self.lr)
        self.x = -moment_x / self.mass
        unsprung_moment = (total_unsprung * front if self.radius['rear'] == front else 2.0 * sum(
            self.unsprung[a] * self.radius[a] for a in AXLES))    # (one radius: as it was)
        self.height = (mass * v['cg_height_m'] - unsprung_moment) / self.mass

    def roll_axis_height(self) -> float:
        """Return the roll axis's height under the sprung centre of gravity [m]."""
        front = self.v['suspension.front.roll_centre_height_m']
        rear = self.v['suspension.rear.roll_centre_height_m']
        share = (self.x + self.lr) / (self.lf + self.lr)
        return rear + share * (front - rear)

    def preload(self, axle: str) -> float:
        """Return an axle's spring force at static ride [N]: its corner's load less the wheel's."""
        return self.corner_load[axle] - self.unsprung[axle] * self.g

    def tyre_static(self, axle: str) -> float:
        """Return an axle's static tyre deflection [m]."""
        return self.corner_load[axle] / self.v[f'suspension.{axle}.tyre_rate_n_m']


def problems(v: Mapping) -> List[str]:
    """Return what makes a file's suspension unusable, each naming its key and value."""
    found = []
    body = Sprung(v)
    for axle in AXLES:
        if body.preload(axle) <= 0.0:
            found.append(
                f"key 'suspension.{axle}.unsprung_mass_kg' = {body.unsprung[axle]:g}: each "
                f"wheel's unsprung mass must weigh less than its corner's static load "
                f"({body.corner_load[axle] / body.g:.4g} kg) of mass_kg {v['mass_kg']:g}")
    if found:
        return found
    if body.height <= 0.0:
        found.append(f"key 'cg_height_m' = {v['cg_height_m']:g} puts the sprung mass's centre "
                     f'of gravity at {body.height:.4g} m, not above the ground (the unsprung '
                     f"masses sit at the wheel centres, {body.radius['front']:g} and "
                     f"{body.radius['rear']:g} m up)")
        return found
    for axle in AXLES:
        key = f'suspension.{axle}.roll_centre_height_m'
        if v[key] >= body.height:
            found.append(f"key '{key}' = {v[key]:g} is not below the sprung mass's centre of "
                         f'gravity ({body.height:.4g} m): range [-1, {body.height:.4g})')
        key = f'suspension.{axle}.tyre_rate_n_m'
        radius = body.radius[axle]
        if body.tyre_static(axle) >= radius:
            found.append(
                f"key '{key}' = {v[key]:g} deflects the tyre by {body.tyre_static(axle):.4g} m "
                f'under its static load, more than its wheel radius {radius:g}: the wheel '
                f'would ride in the ground (at least {body.corner_load[axle] / radius:.4g})')
    return found


def body_block(v: Mapping) -> np.ndarray:
    """Return the kernels' body parameters (model.P_BODY's block) of checked values."""
    block = np.zeros(BODY_SIZE)
    if v['body'] != 'suspension':
        return block
    body = Sprung(v)
    block[B_ON] = 1.0
    block[B_SPRUNG_MASS] = body.mass
    block[B_SPRUNG_HEIGHT] = body.height
    block[B_SPRUNG_X] = body.x
    block[B_ROLL_INERTIA] = v['suspension.roll_inertia_kg_m2']
    block[B_PITCH_INERTIA] = v['suspension.pitch_inertia_kg_m2']
    block[B_ROLL_AXIS] = body.roll_axis_height()
    half_track = v['half_track_m']
    for axle, base in zip(AXLES, (B_FRONT, B_REAR)):
        for entry, key in AXLE_KEYS.items():
            block[base + entry] = v[f'suspension.{axle}.{key}']
        bar = v[f'suspension.{axle}.anti_roll_bar_n_m_rad']
        block[base + X_BAR_RATE] = bar / (2.0 * half_track) ** 2
        block[base + X_PRELOAD] = body.preload(axle)
        block[base + X_TYRE_STATIC] = body.tyre_static(axle)
    return block
