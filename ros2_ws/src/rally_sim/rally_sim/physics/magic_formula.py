"""
The Magic Formula tyre (MF 5.2 and MF 6.1/6.2 steady state): forces and moments. ROS-free.

Equations of Pacejka, Tire and Vehicle Dynamics (3rd ed., 2012), section
4.3.2, numbered (4.E1)-(4.E78) there, as the MF-Tyre manuals and TNO's
solver use them: the slip angle and camber as they are (no tan alpha or
sin gamma, the book's alpha* and gamma*), the aligning moment's trail and
residual moment as in Besselink et al. (2010)'s (A58) and (A60), the
rolling resistance as (A48); MF 5.2 differs where its manual does: the
lateral shift SHy from PHY3, the moment Mz from Fy less SVyk, and My
proportional to the load. Axes and signs are ISO-W's, as a .tir file is
fitted: x forward along the wheel, y left, z up; kappa = (omega R - vx) /
|vx| (positive driving); alpha = atan(vy / |vx|) of the contact point's
velocity, so a positive alpha gives a negative Fy (PKY1 < 0); gamma is
the inclination about x (positive: the wheel's top tilted to its right).
The caller converts the car's wheel velocities and forces to and from
these axes.

Not modelled: turn slip (phi = 0: zeta factors 1), the overturning moment
Mx (a planar body does not use it), the speed dependence of the free
radius. Of the solvers' low-speed corrections only the fading of the
shifts (`fade`); the rest of standstill is the vehicle model's, with its
regularised slips.

Compiled like the rest of the physics (jit.njit); one call evaluates one
tyre: `forces(p, version52, fz, kappa, alpha, gamma, vx, pressure, out)`
with p the coefficients in tir.COEFFICIENTS' order.
"""

import math

import numpy as np

from .jit import njit
from .tir import COEFFICIENTS, TyreFile

MF_SIZE = len(COEFFICIENTS)
"""How many coefficients a tyre's block holds (the flat parameters carry one an axle)."""
EPSILON = 1e-6
"""The MF's small number that keeps B and the trail finite at zero load or stiffness (4.E6a)."""
OUTPUTS = ('fx', 'fy', 'mz', 'my', 'kxk', 'kya', 'mux', 'muy', 'fx0', 'fy0', 'gxa', 'gyk')
"""What forces() writes into `out`, in this order (N, N m, N per unit slip, -)."""

# the coefficients' places in p (tir.COEFFICIENTS' order), named as in the .tir file
(LFZO, LCX, LMUX, LEX, LKX, LHX, LVX, LCY, LMUY, LEY, LKY, LKYC, LKZC, LHY, LVY, LTR, LRES,
 LXAL, LYKA, LVYKA, LS, LMX, LVMX, LMY, LMP, LSGKP, LSGAL, LGAX, LGAY, LGAZ, LMUV,
 PCX1, PDX1, PDX2, PDX3, PEX1, PEX2, PEX3, PEX4, PKX1, PKX2, PKX3, PHX1, PHX2, PVX1, PVX2,
 PPX1, PPX2, PPX3, PPX4, RBX1, RBX2, RBX3, RCX1, REX1, REX2, RHX1, PTX1, PTX2, PTX3,
 PCY1, PDY1, PDY2, PDY3, PEY1, PEY2, PEY3, PEY4, PEY5, PKY1, PKY2, PKY3, PKY4, PKY5, PKY6, PKY7,
 PHY1, PHY2, PHY3, PVY1, PVY2, PVY3, PVY4, PPY1, PPY2, PPY3, PPY4, PPY5, RBY1, RBY2, RBY3, RBY4,
 RCY1, REY1, REY2, RHY1, RHY2, RVY1, RVY2, RVY3, RVY4, RVY5, RVY6, PTY1, PTY2,
 QBZ1, QBZ2, QBZ3, QBZ4, QBZ5, QBZ9, QBZ10, QCZ1, QDZ1, QDZ2, QDZ3, QDZ4, QDZ6, QDZ7, QDZ8, QDZ9,
 QDZ10, QDZ11, QEZ1, QEZ2, QEZ3, QEZ4, QEZ5, QHZ1, QHZ2, QHZ3, QHZ4, PPZ1, PPZ2, SSZ1, SSZ2, SSZ3,
 SSZ4, QSY1, QSY2, QSY3, QSY4, QSY5, QSY6, QSY7, QSY8,
 FNOMIN, UNLOADED_RADIUS, LONGVL, VXLOW, NOMPRES, INFLPRES,
 LONGITUDINAL_STIFFNESS, LATERAL_STIFFNESS, PCFX1, PCFX2, PCFX3, PCFY1, PCFY2,
 PCFY3) = range(len(COEFFICIENTS))


def coefficients(tyre: TyreFile) -> np.ndarray:
    """Return a tyre file's coefficients as the array forces() takes."""
    return np.array(tyre.coefficients(), dtype=np.float64)


@njit
def _sign(x: float) -> float:
    """Return the sign of x, +1 at 0 (the MF's sgn, which keeps divisions finite)."""
    return -1.0 if x < 0.0 else 1.0


@njit
def _cos_atan(x: float) -> float:
    """Return cos(atan(x)), as 1 / sqrt(1 + x^2) (the same number, a third of the time)."""
    return 1.0 / math.sqrt(1.0 + x * x)


@njit
def _sin_times_atan(c: float, x: float) -> float:
    """Return sin(c atan(x)); for c = 2 (PKY4's usual value) as 2 x / (1 + x^2), the same."""
    if c == 2.0:
        return 2.0 * x / (1.0 + x * x)
    return math.sin(c * math.atan(x))


@njit
def magic(b: float, c: float, d: float, e: float, x: float) -> float:
    """Return the Magic Formula D sin(C atan(B x - E (B x - atan(B x))))."""
    bx = b * x
    return d * math.sin(c * math.atan(bx - e * (bx - math.atan(bx))))


@njit
def weighting(b: float, c: float, e: float, x: float, shift: float) -> float:
    """Return a combined-slip weighting G: cos(C atan(...)) at x + shift over it at the shift."""
    xs = x + shift
    g0 = math.cos(c * math.atan(b * shift - e * (b * shift - math.atan(b * shift))))
    return math.cos(c * math.atan(b * xs - e * (b * xs - math.atan(b * xs)))) / g0


@njit
def longitudinal(p, fz: float, kappa: float, gamma: float, dfz: float, dpi: float,
                 lmux: float, out, fade: float = 1.0) -> float:
    """Return the pure-slip Fx0 (4.E9-4.E18); out[4] Kxk, out[6] mux; shifts times `fade`."""
    cx = p[PCX1] * p[LCX]                                                       # (4.E11)
    mux = ((p[PDX1] + p[PDX2] * dfz) * (1.0 + p[PPX3] * dpi + p[PPX4] * dpi * dpi)
           * (1.0 - p[PDX3] * gamma * gamma) * lmux)                            # (4.E13)
    dx = mux * fz                                                               # (4.E12)
    kxk = (fz * (p[PKX1] + p[PKX2] * dfz) * (math.exp(p[PKX3] * dfz) if p[PKX3] else 1.0)
           * (1.0 + p[PPX1] * dpi + p[PPX2] * dpi * dpi) * p[LKX])              # (4.E15)
    bx = kxk / (cx * dx + EPSILON * _sign(dx))                                  # (4.E16)
    shx = (p[PHX1] + p[PHX2] * dfz) * p[LHX] * fade                             # (4.E17)
    svx = fz * (p[PVX1] + p[PVX2] * dfz) * p[LVX] * lmux * fade                 # (4.E18)
    kappa_x = kappa + shx                                                       # (4.E10)
    ex = min((p[PEX1] + p[PEX2] * dfz + p[PEX3] * dfz * dfz)
             * (1.0 - p[PEX4] * _sign(kappa_x)) * p[LEX], 1.0)                  # (4.E14)
    out[4], out[6] = kxk, mux
    return magic(bx, cx, dx, ex, kappa_x) + svx                                 # (4.E9)


@njit
def lateral(p, version52: bool, fz: float, alpha: float, gamma: float, dfz: float,
            dpi: float, lmuy: float, out, fade: float = 1.0):
    """
    Return the pure-slip Fy0 (4.E19-4.E30) and its SHy, SVy, By, Cy; out[5] Kya, out[7] muy.

    MF 5.2's shift SHy is PHY3's camber term; MF 6.x's the camber stiffness's.
    """
    fz0 = p[FNOMIN] * p[LFZO]
    kya = (p[PKY1] * fz0 * (1.0 + p[PPY1] * dpi) * (1.0 - p[PKY3] * abs(gamma))
           * _sin_times_atan(p[PKY4], (fz / fz0) / ((p[PKY2] + p[PKY5] * gamma * gamma)
                                                    * (1.0 + p[PPY2] * dpi)))
           * p[LKY])                                                            # (4.E25)
    svyg = fz * (p[PVY3] + p[PVY4] * dfz) * gamma * p[LKYC] * lmuy              # (4.E28)
    if version52:
        shy = (p[PHY1] + p[PHY2] * dfz) * p[LHY] + p[PHY3] * gamma * p[LKYC]    # MF 5.2
    else:
        kyg0 = fz * (p[PKY6] + p[PKY7] * dfz) * (1.0 + p[PPY5] * dpi) * p[LKYC]  # (4.E30)
        shy = ((p[PHY1] + p[PHY2] * dfz) * p[LHY]
               + (kyg0 * gamma - svyg) / (kya + EPSILON * _sign(kya)))          # (4.E27)
    svy = (fz * (p[PVY1] + p[PVY2] * dfz) * p[LVY] * lmuy + svyg) * fade        # (4.E29)
    shy *= fade
    alpha_y = alpha + shy                                                       # (4.E20)
    cy = p[PCY1] * p[LCY]                                                       # (4.E21)
    muy = ((p[PDY1] + p[PDY2] * dfz) * (1.0 + p[PPY3] * dpi + p[PPY4] * dpi * dpi)
           * (1.0 - p[PDY3] * gamma * gamma) * lmuy)                            # (4.E23)
    dy = muy * fz                                                               # (4.E22)
    ey = min((p[PEY1] + p[PEY2] * dfz)
             * (1.0 + p[PEY5] * gamma * gamma - (p[PEY3] + p[PEY4] * gamma) * _sign(alpha_y))
             * p[LEY], 1.0)                                                     # (4.E24)
    by = kya / (cy * dy + EPSILON * _sign(dy))                                  # (4.E26)
    out[5], out[7] = kya, muy
    return magic(by, cy, dy, ey, alpha_y) + svy, shy, svy, by, cy               # (4.E19)


@njit
def combined_x(p, kappa: float, alpha: float, gamma: float, dfz: float) -> float:
    """Return Gxa, the weighting of Fx0 by the slip angle (4.E51-4.E57)."""
    bxa = ((p[RBX1] + p[RBX3] * gamma * gamma) * _cos_atan(p[RBX2] * kappa)
           * p[LXAL])                                                           # (4.E54)
    exa = min(p[REX1] + p[REX2] * dfz, 1.0)                                     # (4.E56)
    return weighting(bxa, p[RCX1], exa, alpha, p[RHX1])                         # (4.E51)


@njit
def combined_y(p, fz: float, kappa: float, alpha: float, gamma: float, dfz: float,
               muy: float):
    """Return Gyk, the weighting of Fy0 by the slip ratio, and SVyk (4.E59-4.E67)."""
    byk = ((p[RBY1] + p[RBY4] * gamma * gamma) * _cos_atan(p[RBY2] * (alpha - p[RBY3]))
           * p[LYKA])                                                           # (4.E62)
    eyk = min(p[REY1] + p[REY2] * dfz, 1.0)                                     # (4.E64)
    shyk = p[RHY1] + p[RHY2] * dfz                                              # (4.E65)
    dvyk = (muy * fz * (p[RVY1] + p[RVY2] * dfz + p[RVY3] * gamma)
            * _cos_atan(p[RVY4] * alpha))                                       # (4.E67)
    svyk = dvyk * math.sin(p[RVY5] * math.atan(p[RVY6] * kappa)) * p[LVYKA]     # (4.E66)
    return weighting(byk, p[RCY1], eyk, kappa, shyk), svyk                      # (4.E59)


@njit
def aligning(p, version52: bool, fz: float, kappa: float, alpha: float, gamma: float,
             dfz: float, dpi: float, lmuy: float, cos_alpha_prime: float, vx_sign: float,
             fx: float, fy: float, fy_trail: float, svyk: float, shy: float, svy: float,
             by: float, cy: float, kxk: float, kya: float) -> float:
    """
    Return the aligning moment Mz in combined slip (4.E31-4.E48, 4.E71-4.E78).

    The trail t from Bt, Ct, Dt, Et at the equivalent slip angle, the
    residual moment Mzr, and s Fx; MF 6.x takes the trail's force at zero
    camber, MF 5.2 the force less its kappa-induced part (its manual).
    """
    r0, fz0 = p[UNLOADED_RADIUS], p[FNOMIN] * p[LFZO]
    sht = p[QHZ1] + p[QHZ2] * dfz + (p[QHZ3] + p[QHZ4] * dfz) * gamma          # (4.E35)
    kya_prime = kya + EPSILON * _sign(kya)                                      # (4.E39)
    alpha_r = alpha + shy + svy / kya_prime                                     # (4.E37-38)
    alpha_t = alpha + sht                                                       # (4.E34)
    dt = ((p[QDZ1] + p[QDZ2] * dfz) * (1.0 - p[PPZ1] * dpi)
          * (1.0 + p[QDZ3] * gamma + p[QDZ4] * gamma * gamma) * fz * (r0 / fz0) * p[LTR])  # (A60)
    bt = ((p[QBZ1] + p[QBZ2] * dfz + p[QBZ3] * dfz * dfz)
          * (1.0 + p[QBZ4] * gamma + p[QBZ5] * abs(gamma)) * p[LKY] / lmuy)    # (A58)
    ct = p[QCZ1]                                                                # (4.E41)
    et = min((p[QEZ1] + p[QEZ2] * dfz + p[QEZ3] * dfz * dfz)
             * (1.0 + (p[QEZ4] + p[QEZ5] * gamma) * (2.0 / math.pi)
                * math.atan(bt * ct * alpha_t)), 1.0)                           # (4.E44)
    dr = (fz * r0 * ((p[QDZ6] + p[QDZ7] * dfz) * p[LRES]
                     + ((p[QDZ8] + p[QDZ9] * dfz) * (1.0 + p[PPZ2] * dpi)
                        + (p[QDZ10] + p[QDZ11] * dfz) * abs(gamma)) * gamma * p[LKZC])
          * lmuy * vx_sign * math.cos(alpha))                                   # (4.E47)
    br = p[QBZ9] * p[LKY] / lmuy + p[QBZ10] * by * cy                           # (4.E45)
    ratio = kxk / kya_prime * kappa
    alpha_r_eq = math.atan(math.sqrt(math.tan(alpha_r) ** 2 + ratio * ratio)) * _sign(alpha_r)
    alpha_t_eq = math.atan(math.sqrt(math.tan(alpha_t) ** 2 + ratio * ratio)) * _sign(alpha_t)
    s = r0 * (p[SSZ1] + p[SSZ2] * (fy / p[FNOMIN])
              + (p[SSZ3] + p[SSZ4] * dfz) * gamma) * p[LS]                      # (A56)
    mzr = dr * _cos_atan(br * alpha_r_eq)                                       # (4.E75)
    t = (dt * math.cos(ct * math.atan(bt * alpha_t_eq - et * (bt * alpha_t_eq
                                                              - math.atan(bt * alpha_t_eq))))
         * cos_alpha_prime)                                                     # (4.E73)
    if version52:
        return -t * (fy - svyk) + mzr + s * fx                                  # MF 5.2
    return -t * fy_trail + mzr + s * fx                                         # (4.E71-72)


@njit
def rolling_resistance(p, version52: bool, fz: float, fx: float, gamma: float, vx: float,
                       pressure: float) -> float:
    """Return the rolling resistance moment My (A48; MF 5.2: proportional to the load)."""
    fz0, v = p[FNOMIN], vx / p[LONGVL]
    speed = p[QSY1] + p[QSY2] * fx / fz0 + p[QSY3] * abs(v) + p[QSY4] * v ** 4
    if version52:
        my = -p[UNLOADED_RADIUS] * fz * p[LMY] * speed
    else:
        my = (-p[UNLOADED_RADIUS] * fz0 * p[LMY]
              * (speed + (p[QSY5] + p[QSY6] * fz / fz0) * gamma * gamma)
              * (fz / fz0) ** p[QSY7] * (pressure / p[NOMPRES]) ** p[QSY8])
    return -my if vx < 0.0 else my


@njit
def forces(p, version52: bool, fz: float, kappa: float, alpha: float, gamma: float,
           vx: float, pressure: float, out, moments: bool = True, grip: float = 1.0,
           fade: float = 1.0) -> None:
    """
    Write one tyre's Fx, Fy, Mz, My and their parts into `out` (OUTPUTS' order), ISO-W axes.

    moments False: the forces only (Mz and My left 0), for a model that does
    not use them.

    fz the load [N] (none at or below 0), kappa the slip ratio, alpha the
    slip angle [rad], gamma the camber [rad], vx the wheel's forward speed
    [m/s] (for My and the friction's speed decay), pressure [Pa] (MF 6.x),
    grip the surface's, which scales LMUX and LMUY; fade the share of the
    shifts kept (SHx, SVx, SHy, SVy, SVyk) and of the moments: 1, or less at
    low speed, as the solvers fade them there, so that a tyre at rest pushes
    and twists nothing (camber's residual Mz and My included).
    """
    out[:] = 0.0
    if fz <= 0.0:
        return
    fz0 = p[FNOMIN] * p[LFZO]                                                   # (4.E1)
    dfz = (fz - fz0) / fz0                                                      # (4.E2a)
    dpi = 0.0 if version52 else (pressure - p[NOMPRES]) / p[NOMPRES]            # (4.E2b)
    decay = 1.0
    if p[LMUV] != 0.0:
        vsx, vsy = -kappa * abs(vx), math.tan(alpha) * abs(vx)                  # (4.E5)
        decay += p[LMUV] * math.sqrt(vsx * vsx + vsy * vsy) / p[LONGVL]
    lmux, lmuy = grip * p[LMUX] / decay, grip * p[LMUY] / decay                 # (4.E7)
    fx0 = longitudinal(p, fz, kappa, gamma, dfz, dpi, lmux, out, fade)
    fy0, shy, svy, by, cy = lateral(p, version52, fz, alpha, gamma, dfz, dpi, lmuy, out, fade)
    gxa = combined_x(p, kappa, alpha, gamma, dfz)
    gyk, svyk = combined_y(p, fz, kappa, alpha, gamma, dfz, out[7])
    svyk *= fade
    fx = gxa * fx0                                                              # (4.E50)
    fy = gyk * fy0 + svyk                                                       # (4.E58)
    out[0], out[1] = fx, fy
    out[8], out[9], out[10], out[11] = fx0, fy0, gxa, gyk
    if not moments:
        return
    vsy = math.tan(alpha) * abs(vx)
    cos_alpha_prime = vx / (math.sqrt(vx * vx + vsy * vsy) + EPSILON)           # (4.E6)
    fy_trail = fy
    if not version52:                      # the trail's force: at zero camber (4.E74)
        scratch = np.empty(8)
        fy0_flat, _, _, _, _ = lateral(p, False, fz, alpha, 0.0, dfz, dpi, lmuy, scratch, fade)
        fy_trail = combined_y(p, fz, kappa, alpha, 0.0, dfz, scratch[7])[0] * fy0_flat
    out[2] = fade * aligning(p, version52, fz, kappa, alpha, gamma, dfz, dpi, lmuy,
                             cos_alpha_prime, _sign(vx), fx, fy, fy_trail, svyk, shy, svy, by,
                             cy, out[4], out[5])
    out[3] = fade * rolling_resistance(p, version52, fz, fx, gamma, vx, pressure)


@njit
def relaxation_lengths(p, version52: bool, fz: float, gamma: float, pressure: float,
                       scratch=None):
    """
    Return the tyre's relaxation lengths (sigma_kappa, sigma_alpha) [m] at a load; 0, 0 unloaded.

    From PTX1-3 and PTY1-2 (MF 5.2's, which MF 6.x files may carry too):
    sigma_kappa = Fz (PTX1 + PTX2 dfz) exp(-PTX3 dfz) R0 / Fz0 LSGKP and
    sigma_alpha = PTY1 sin(2 atan(Fz / (PTY2 Fz0'))) (1 - PKY3 |gamma|) R0
    LFZO LSGAL; else (MF 6.x) from the slip stiffness over the carcass
    stiffness, Kxk / Cx and Kya / Cy, with Cx, Cy varying with the load
    and pressure (PCFX1-3, PCFY1-3). A file with neither gives 0 (no
    relaxation: has_relaxation() says so). scratch: len(OUTPUTS) entries to
    compute the slip stiffnesses in (None: allocated).
    """
    if fz <= 0.0:
        return 0.0, 0.0
    r0, fz0 = p[UNLOADED_RADIUS], p[FNOMIN]
    fz0_prime = fz0 * p[LFZO]
    dfz = (fz - fz0_prime) / fz0_prime
    if p[PTX1] != 0.0 or p[PTY1] != 0.0:
        sigma_kappa = (fz * (p[PTX1] + p[PTX2] * dfz) * math.exp(-p[PTX3] * dfz) * r0 / fz0
                       * p[LSGKP])
        sigma_alpha = (p[PTY1] * math.sin(2.0 * math.atan(fz / (p[PTY2] * fz0_prime)))
                       * (1.0 - p[PKY3] * abs(gamma)) * r0 * p[LFZO] * p[LSGAL])
        return abs(sigma_kappa), abs(sigma_alpha)
    if p[LONGITUDINAL_STIFFNESS] <= 0.0 or p[LATERAL_STIFFNESS] <= 0.0:
        return 0.0, 0.0
    dpi = 0.0 if version52 else (pressure - p[NOMPRES]) / p[NOMPRES]
    cx = (p[LONGITUDINAL_STIFFNESS] * (1.0 + p[PCFX1] * dfz + p[PCFX2] * dfz * dfz)
          * (1.0 + p[PCFX3] * dpi))
    cy = (p[LATERAL_STIFFNESS] * (1.0 + p[PCFY1] * dfz + p[PCFY2] * dfz * dfz)
          * (1.0 + p[PCFY3] * dpi))
    if scratch is None:
        scratch = np.zeros(len(OUTPUTS))
    longitudinal(p, fz, 0.0, gamma, dfz, dpi, p[LMUX], scratch)
    lateral(p, version52, fz, 0.0, gamma, dfz, dpi, p[LMUY], scratch)
    return abs(scratch[4]) / cx, abs(scratch[5]) / cy


def has_relaxation(tyre: TyreFile) -> bool:
    """Return whether a tyre file gives relaxation lengths (PTX1/PTY1, or carcass stiffnesses)."""
    return (tyre['PTX1'] != 0.0 or tyre['PTY1'] != 0.0) or (
        tyre['LONGITUDINAL_STIFFNESS'] > 0.0 and tyre['LATERAL_STIFFNESS'] > 0.0)
