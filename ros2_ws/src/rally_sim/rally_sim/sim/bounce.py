"""
Contact mode `bounce`: a car that touches a wall or another car takes an impulse and drives on.

The impulse acts at the contact point along the contact normal (the axis
of least overlap of the two outlines, pointing out of what was touched),
with restitution and Coulomb friction: the normal speed of the contact
point reverses to RESTITUTION times itself, and its speed along the
surface is cut by at most FRICTION times the normal impulse. A wall does
not move; two cars share the impulse by their masses and yaw inertias, so
their momentum is kept. Then each is moved out of the overlap along the
normal (a car half the depth each). Only a contact that closes (its
normal speed inward) is struck: one already parting is only moved apart.
"""

import math
from typing import Optional, Tuple

import numpy as np

from ..physics.model import VX, VY, X, Y, YAW, YAW_RATE

RESTITUTION = 0.3
"""Share of the normal speed a bounce gives back (a car's bumper and tyres: a soft hit)."""
FRICTION = 0.5
"""Coulomb friction of the contact (body panels on a barrier or on each other)."""
SEPARATION_M = 1e-3
"""Bodies are moved this far beyond touching: a contact is over once struck."""


def overlap_axis(mine: np.ndarray, theirs: np.ndarray) -> Tuple[float, float, float]:
    """
    Return the least overlap of two convex quads (4, 2) and its axis (depth, nx, ny).

    The axis points from `theirs` towards `mine`: moving `mine` by depth
    along it parts them.
    """
    best = (math.inf, 0.0, 0.0)
    for quad in (mine, theirs):
        for k in range(4):
            ex, ey = quad[(k + 1) % 4] - quad[k]
            length = math.hypot(ex, ey)
            if length == 0.0:
                continue
            nx, ny = -ey / length, ex / length
            a, b = mine @ (nx, ny), theirs @ (nx, ny)
            depth = min(a.max() - b.min(), b.max() - a.min())
            if depth < best[0]:
                best = (depth, nx, ny)
    depth, nx, ny = best
    towards = mine.mean(axis=0) - theirs.mean(axis=0)
    if towards[0] * nx + towards[1] * ny < 0.0:
        nx, ny = -nx, -ny
    return max(depth, 0.0), nx, ny


def push_out(mine: np.ndarray, quads, axes) -> Tuple[float, float, float]:
    """
    Return the shortest push (depth, nx, ny) that moves quad `mine` clear of every quad.

    The push is along one of `axes` (unit vectors, either way); `quads` are
    the wall's cells it overlaps.
    """
    best = (math.inf, 0.0, 0.0)
    for ax, ay in axes:
        for nx, ny in ((ax, ay), (-ax, -ay)):
            low = float((mine @ (nx, ny)).min())
            depth = max(float((quad @ (nx, ny)).max()) - low for quad in quads)
            if depth < best[0]:
                best = (depth, nx, ny)
    return best


class Body:
    """A car's planar rigid body: its state (moved in place), mass and yaw inertia."""

    def __init__(self, state: np.ndarray, mass_kg: float, yaw_inertia_kg_m2: float):
        """Hold `state` (the vehicle's, changed in place by the bounce)."""
        self.state, self.mass, self.inertia = state, mass_kg, yaw_inertia_kg_m2

    def arm(self, px: float, py: float) -> Tuple[float, float]:
        """Return the point's offset from the CG [m]."""
        return px - float(self.state[X]), py - float(self.state[Y])

    def velocity_at(self, px: float, py: float) -> Tuple[float, float]:
        """Return the world velocity of a point of the body [m/s]."""
        s = self.state
        c, sn = math.cos(s[YAW]), math.sin(s[YAW])
        rx, ry = self.arm(px, py)
        vx, vy, w = float(s[VX]), float(s[VY]), float(s[YAW_RATE])
        return c * vx - sn * vy - w * ry, sn * vx + c * vy + w * rx

    def push(self, jx: float, jy: float, px: float, py: float) -> None:
        """Apply a world impulse (jx, jy) [N s] at a point: change the body velocities."""
        s = self.state
        c, sn = math.cos(s[YAW]), math.sin(s[YAW])
        rx, ry = self.arm(px, py)
        dvx, dvy = jx / self.mass, jy / self.mass
        s[VX] += c * dvx + sn * dvy
        s[VY] += -sn * dvx + c * dvy
        s[YAW_RATE] += (rx * jy - ry * jx) / self.inertia

    def reach(self, px: float, py: float, nx: float, ny: float) -> float:
        """Return the inverse effective mass at a point along a direction [1/kg]."""
        rx, ry = self.arm(px, py)
        cross = rx * ny - ry * nx
        return 1.0 / self.mass + cross * cross / self.inertia

    def move(self, dx: float, dy: float) -> None:
        """Move the body [m]."""
        self.state[X] += dx
        self.state[Y] += dy


def bounce(body: Body, other: Optional[Body], point: Tuple[float, float],
           normal: Tuple[float, float], depth: float) -> bool:
    """
    Strike `body` (and `other`, a car; None: a wall) at `point` along `normal`.

    normal points out of what was touched, into `body`. Returns whether the
    contact was closing (an impulse was applied); the bodies are moved apart
    either way.
    """
    nx, ny = normal
    px, py = point
    vx, vy = body.velocity_at(px, py)
    if other is not None:
        ox, oy = other.velocity_at(px, py)
        vx, vy = vx - ox, vy - oy
    closing = vx * nx + vy * ny
    struck = closing < 0.0
    if struck:
        weight = body.reach(px, py, nx, ny) + (other.reach(px, py, nx, ny) if other else 0.0)
        j = -(1.0 + RESTITUTION) * closing / weight
        tx, ty = -ny, nx
        sliding = vx * tx + vy * ty
        weight_t = body.reach(px, py, tx, ty) + (other.reach(px, py, tx, ty) if other else 0.0)
        jt = min(max(-sliding / weight_t, -FRICTION * j), FRICTION * j)
        jx, jy = j * nx + jt * tx, j * ny + jt * ty
        body.push(jx, jy, px, py)
        if other is not None:
            other.push(-jx, -jy, px, py)
    apart = depth + SEPARATION_M
    share = 0.5 if other is not None else 1.0
    body.move(share * apart * nx, share * apart * ny)
    if other is not None:
        other.move(-share * apart * nx, -share * apart * ny)
    return struck
