"""
Magic Formula tyres (.tir files) in vector lanes: magic_formula.forces' arithmetic, slot by slot.

A block of lanes.LANES cars has SLOTS = 4 LANES tyres, slot j = i LANES + k
for wheel i of lane k (the order of lanes.py's four-wheel rows, so a wheel
row there is SLOTS numbers here too). Each stage is a loop over the slots
with no calls and no branches (selects), with lane_math's functions, so the
compiler runs it four tyres an instruction.

The numbers are magic_formula.forces' (forces only: the chassis does not
use Mz or My) as model._mf_unit_forces calls it, operation by operation:
what depends only on the car (its camber, pressure, the ground's grip) is
worked out once per rollout (load_tyres), each factor as forces() forms it,
and multiplied in forces()' order, so with the C library's functions in
lane_math's place a tyre's force is model._mf_unit_forces' to the bit
(test_lanes). Where a coefficient is 0 (or PKY4 2) for every tyre of a
block, forces()' own shortcut is taken for the block (the flags F_*).
relaxation_lengths does the same for magic_formula.relaxation_lengths (tyre
relaxation over a .tir file's lengths, which change with the load).
"""

import math

from .lane_math import lane_atan, lane_cos, lane_exp, lane_sin, lane_tan
from ..jit import njit, njit_inline
from ..magic_formula import (
    EPSILON, FNOMIN, LATERAL_STIFFNESS, LCX, LCY, LEX, LEY, LFZO, LHX, LHY, LKX, LKY, LKYC,
    LMUV, LMUX, LMUY, LONGITUDINAL_STIFFNESS, LONGVL, LSGAL, LSGKP, LVX, LVY, LVYKA, LXAL,
    LYKA, NOMPRES, PCFX1, PCFX2, PCFX3, PCFY1, PCFY2, PCFY3, PCX1, PCY1, PDX1, PDX2, PDX3,
    PDY1, PDY2, PDY3, PEX1, PEX2, PEX3, PEX4, PEY1, PEY2, PEY3, PEY4, PEY5, PHX1, PHX2, PHY1,
    PHY2, PHY3, PKX1, PKX2, PKX3, PKY1, PKY2, PKY3, PKY4, PKY5, PKY6, PKY7, PPX1, PPX2, PPX3,
    PPX4, PPY1, PPY2, PPY3, PPY4, PPY5, PTX1, PTX2, PTX3, PTY1, PTY2, PVX1, PVX2, PVY1, PVY2,
    PVY3, PVY4, RBX1, RBX2, RBX3, RBY1, RBY2, RBY3, RBY4, RCX1, RCY1, REX1, REX2, REY1, REY2,
    RHX1, RHY1, RHY2, RVY1, RVY2, RVY3, RVY4, RVY5, RVY6, UNLOADED_RADIUS, VXLOW)
from ..model import (
    A_CAMBER, A_PRESSURE, A_SIDE, A_VERSION52, MF_HEAD, MF_SHORTEST_RELAXATION_M, P_MF_FRONT,
    P_MF_REAR, P_RELAX)

LANES = 8
"""lanes.LANES (lanes.py checks they agree)."""
SLOTS = 4 * LANES

# Per-tyre constants for a rollout: coefficients, and forces()' factors that depend only on
# the car (camber gamma, pressure change dpi, the ground's grip), each formed as forces() does.
_CONSTANTS = (
    'FLOOR VXLOW MIRROR FZ0 LMUV LONGVL GLMUX GLMUY GAMMA V52 '
    'CX PDX1 PDX2 FPX FGX PKX1 PKX2 PKX3 FKX LKX PHX1 PHX2 LHX PVX1 PVX2 LVX '
    'PEX1 PEX2 PEX3 PEX4 LEX '
    'KY0 PKY4 QKY LKY PVY3 PVY4 LKYC PHY1 PHY2 LHY SHYG PKY6 PKY7 FPY5 PVY1 PVY2 LVY '
    'CY PDY1 PDY2 FPY FGY PEY1 PEY2 EY5 EY34 LEY '
    'RBX13 RBX2 LXAL REX1 REX2 RCX1 RHX1 '
    'RBY14 RBY2 RBY3 LYKA REY1 REY2 RHY1 RHY2 RVY1 RVY2 RVY3G RVY4 RVY5 RVY6 LVYKA RCY1 '
    'SIGMA_X SIGMA_Y PTX1 PTX2 PTX3 PTY1 PTY2 R0 FNOMIN LFZO LSGKP LSGAL KY3 '
    'CX0 CY0 PCFX1 PCFX2 PCFX3P PCFY1 PCFY2 PCFY3P').split()
(C_FLOOR, C_VXLOW, C_MIRROR, C_FZ0, C_LMUV, C_LONGVL, C_GLMUX, C_GLMUY, C_GAMMA, C_V52, C_CX,
 C_PDX1, C_PDX2, C_FPX, C_FGX, C_PKX1, C_PKX2, C_PKX3, C_FKX, C_LKX, C_PHX1, C_PHX2, C_LHX,
 C_PVX1, C_PVX2, C_LVX, C_PEX1, C_PEX2, C_PEX3, C_PEX4, C_LEX, C_KY0, C_PKY4, C_QKY, C_LKY,
 C_PVY3, C_PVY4, C_LKYC, C_PHY1, C_PHY2, C_LHY, C_SHYG, C_PKY6, C_PKY7, C_FPY5, C_PVY1, C_PVY2,
 C_LVY, C_CY, C_PDY1, C_PDY2, C_FPY, C_FGY, C_PEY1, C_PEY2, C_EY5, C_EY34, C_LEY, C_RBX13, C_RBX2,
 C_LXAL, C_REX1, C_REX2, C_RCX1, C_RHX1, C_RBY14, C_RBY2, C_RBY3, C_LYKA, C_REY1, C_REY2, C_RHY1,
 C_RHY2, C_RVY1, C_RVY2, C_RVY3G, C_RVY4, C_RVY5, C_RVY6, C_LVYKA, C_RCY1, C_SIGMA_X, C_SIGMA_Y,
 C_PTX1, C_PTX2, C_PTX3, C_PTY1, C_PTY2, C_R0, C_FNOMIN, C_LFZO, C_LSGKP, C_LSGAL, C_KY3, C_CX0,
 C_CY0, C_PCFX1, C_PCFX2, C_PCFX3P, C_PCFY1, C_PCFY2, C_PCFY3P) = range(len(_CONSTANTS))
# Per-tyre values of one evaluation: its inputs (slip ratio, tan of the slip angle, forward
# speed, load), then its intermediate numbers and its forces.
_VALUES = ('KAPPA SY SPEED LOAD FZ ALPHA DFZ FADE LMUX LMUY KXK FX0 KYA SVYG SHY MUY FY0 '
           'BXA EXA BYK EYK SHYK GXA GYK SVYK FX FY RELAX_X RELAX_Y').split()
(V_KAPPA, V_SY, V_SPEED, V_LOAD, V_FZ, V_ALPHA, V_DFZ, V_FADE, V_LMUX, V_LMUY, V_KXK, V_FX0,
 V_KYA, V_SVYG, V_SHY, V_MUY, V_FY0, V_BXA, V_EXA, V_BYK, V_EYK, V_SHYK, V_GXA, V_GYK, V_SVYK,
 V_FX, V_FY, V_RELAX_X, V_RELAX_Y) = range(len(_CONSTANTS), len(_CONSTANTS) + len(_VALUES))
ROWS = len(_CONSTANTS) + len(_VALUES)
"""Rows of a block's tyre work array, SLOTS numbers each (about 26 kB)."""

COPIED = ((C_VXLOW, VXLOW), (C_LMUV, LMUV), (C_LONGVL, LONGVL),
          (C_PDX1, PDX1), (C_PDX2, PDX2), (C_PKX1, PKX1), (C_PKX2, PKX2), (C_PKX3, PKX3),
          (C_LKX, LKX), (C_PHX1, PHX1), (C_PHX2, PHX2), (C_LHX, LHX), (C_PVX1, PVX1),
          (C_PVX2, PVX2), (C_LVX, LVX), (C_PEX1, PEX1), (C_PEX2, PEX2), (C_PEX3, PEX3),
          (C_PEX4, PEX4), (C_LEX, LEX),
          (C_PKY4, PKY4), (C_LKY, LKY), (C_PVY3, PVY3), (C_PVY4, PVY4), (C_LKYC, LKYC),
          (C_PHY1, PHY1), (C_PHY2, PHY2), (C_LHY, LHY), (C_PKY6, PKY6), (C_PKY7, PKY7),
          (C_PVY1, PVY1), (C_PVY2, PVY2), (C_LVY, LVY), (C_PDY1, PDY1), (C_PDY2, PDY2),
          (C_PEY1, PEY1), (C_PEY2, PEY2), (C_LEY, LEY),
          (C_RBX2, RBX2), (C_LXAL, LXAL), (C_REX1, REX1), (C_REX2, REX2), (C_RCX1, RCX1),
          (C_RHX1, RHX1), (C_RBY2, RBY2), (C_RBY3, RBY3), (C_LYKA, LYKA), (C_REY1, REY1),
          (C_REY2, REY2), (C_RHY1, RHY1), (C_RHY2, RHY2), (C_RVY1, RVY1), (C_RVY2, RVY2),
          (C_RVY4, RVY4), (C_RVY5, RVY5), (C_RVY6, RVY6), (C_LVYKA, LVYKA), (C_RCY1, RCY1),
          (C_PTX1, PTX1), (C_PTX2, PTX2), (C_PTX3, PTX3), (C_PTY1, PTY1), (C_PTY2, PTY2),
          (C_R0, UNLOADED_RADIUS), (C_FNOMIN, FNOMIN), (C_LFZO, LFZO), (C_LSGKP, LSGKP),
          (C_LSGAL, LSGAL), (C_CX0, LONGITUDINAL_STIFFNESS), (C_CY0, LATERAL_STIFFNESS),
          (C_PCFX1, PCFX1), (C_PCFX2, PCFX2), (C_PCFY1, PCFY1), (C_PCFY2, PCFY2))
"""(constant row, coefficient) pairs copied as the file gives them."""

(F_DECAY, F_EXP, F_SIN_ATAN, F_SHIFT_X, F_SHIFT_Y, F_CAMBER_SHIFT, F_COMBINED_SHIFT,
 F_MEASURED_LENGTHS, F_CARCASS_LENGTHS) = range(9)
FLAG_SIZE = 9
"""Which of forces()' optional terms some tyre of the block has: LMUV's speed decay, PKX3's
exp, PKY4 other than 2, RHX1, RHY1/RHY2, MF 6.x's camber shift, RVY1-3's SVyk; and whether
some tyre relaxes over its .tir file's lengths (tyre_relaxation without the vehicle
file's): from PTX/PTY, or from its carcass."""


@njit_inline
def _sign(x: float) -> float:
    """magic_formula._sign as a select."""
    return -1.0 if x < 0.0 else 1.0


@njit_inline
def _cos_atan(x: float) -> float:
    """magic_formula._cos_atan."""
    return 1.0 / math.sqrt(1.0 + x * x)


@njit_inline
def _magic(b: float, c: float, d: float, e: float, x: float) -> float:
    """magic_formula.magic with lane_math's atan and sin."""
    bx = b * x
    return d * lane_sin(c * lane_atan(bx - e * (bx - lane_atan(bx))))


@njit_inline
def _weighting_cos(b: float, c: float, e: float, x: float) -> float:
    """One cos(C atan(B x - E (B x - atan(B x)))) of magic_formula.weighting."""
    bx = b * x
    return lane_cos(c * lane_atan(bx - e * (bx - lane_atan(bx))))


@njit_inline
def load_tyres(m, first: int, count: int, params, mu, flags) -> None:
    """Fill each slot's constants from its car's parameters (the last car repeated); flags."""
    flags[:] = 0.0
    for k in range(LANES):
        car = first + min(k, count - 1)
        p = params[car]
        for i in range(4):
            _constants(m, i * LANES + k, p, i, mu[car, i], flags)


@njit_inline
def _put(m, row: int, j: int, value: float) -> None:
    """Set row `row` of slot j."""
    m[row * SLOTS + j] = value


@njit_inline
def _constants(m, j: int, p, i: int, grip: float, flags) -> None:
    """One tyre's constants (slot j, wheel i of a car with parameters p on grip)."""
    base = P_MF_FRONT if i < 2 else P_MF_REAR
    c = base + MF_HEAD
    side = 1.0 if i % 2 == 0 else -1.0
    mirror = side * p[base + A_SIDE]
    gamma = mirror * (-side * p[base + A_CAMBER])
    version52 = p[base + A_VERSION52] != 0.0
    dpi = 0.0 if version52 else (p[base + A_PRESSURE] - p[c + NOMPRES]) / p[c + NOMPRES]
    fz0 = p[c + FNOMIN] * p[c + LFZO]
    _put(m, C_FLOOR, j, 0.01 * p[c + FNOMIN])
    _put(m, C_MIRROR, j, mirror)
    _put(m, C_FZ0, j, fz0)
    _put(m, C_GLMUX, j, grip * p[c + LMUX])
    _put(m, C_GLMUY, j, grip * p[c + LMUY])
    _put(m, C_GAMMA, j, gamma)
    _put(m, C_V52, j, 1.0 if version52 else 0.0)
    # longitudinal (4.E11-4.E18)
    _put(m, C_CX, j, p[c + PCX1] * p[c + LCX])
    _put(m, C_FPX, j, 1.0 + p[c + PPX3] * dpi + p[c + PPX4] * dpi * dpi)
    _put(m, C_FGX, j, 1.0 - p[c + PDX3] * gamma * gamma)
    _put(m, C_FKX, j, 1.0 + p[c + PPX1] * dpi + p[c + PPX2] * dpi * dpi)
    # lateral (4.E19-4.E30)
    _put(m, C_KY0, j, p[c + PKY1] * fz0 * (1.0 + p[c + PPY1] * dpi)
         * (1.0 - p[c + PKY3] * abs(gamma)))
    _put(m, C_QKY, j, (p[c + PKY2] + p[c + PKY5] * gamma * gamma) * (1.0 + p[c + PPY2] * dpi))
    _put(m, C_SHYG, j, p[c + PHY3] * gamma * p[c + LKYC])
    _put(m, C_FPY5, j, 1.0 + p[c + PPY5] * dpi)
    _put(m, C_CY, j, p[c + PCY1] * p[c + LCY])
    _put(m, C_FPY, j, 1.0 + p[c + PPY3] * dpi + p[c + PPY4] * dpi * dpi)
    _put(m, C_FGY, j, 1.0 - p[c + PDY3] * gamma * gamma)
    _put(m, C_EY5, j, 1.0 + p[c + PEY5] * gamma * gamma)
    _put(m, C_EY34, j, p[c + PEY3] + p[c + PEY4] * gamma)
    # combined slip (4.E51-4.E67)
    _put(m, C_RBX13, j, p[c + RBX1] + p[c + RBX3] * gamma * gamma)
    _put(m, C_RBY14, j, p[c + RBY1] + p[c + RBY4] * gamma * gamma)
    _put(m, C_RVY3G, j, p[c + RVY3] * gamma)
    for row, key in COPIED:
        _put(m, row, j, p[c + key])
    # relaxation lengths: the vehicle file's, or the .tir's (magic_formula.relaxation_lengths)
    lengths = P_RELAX + 1 + (0 if i < 2 else 2)
    _put(m, C_SIGMA_X, j, p[lengths])
    _put(m, C_SIGMA_Y, j, p[lengths + 1])
    _put(m, C_KY3, j, 1.0 - p[c + PKY3] * abs(-side * p[base + A_CAMBER]))
    _put(m, C_PCFX3P, j, 1.0 + p[c + PCFX3] * dpi)
    _put(m, C_PCFY3P, j, 1.0 + p[c + PCFY3] * dpi)
    from_file = p[P_RELAX] != 0.0 and (p[lengths] <= 0.0 or p[lengths + 1] <= 0.0)
    measured = p[c + PTX1] != 0.0 or p[c + PTY1] != 0.0
    for flag, needed in ((F_DECAY, p[c + LMUV] != 0.0), (F_EXP, p[c + PKX3] != 0.0),
                         (F_SIN_ATAN, p[c + PKY4] != 2.0), (F_SHIFT_X, p[c + RHX1] != 0.0),
                         (F_SHIFT_Y, p[c + RHY1] != 0.0 or p[c + RHY2] != 0.0),
                         (F_CAMBER_SHIFT, not version52),
                         (F_COMBINED_SHIFT, p[c + RVY1] != 0.0 or p[c + RVY2] != 0.0
                          or p[c + RVY3] != 0.0),
                         (F_MEASURED_LENGTHS, from_file and measured),
                         (F_CARCASS_LENGTHS, from_file and not measured)):
        if needed:
            flags[flag] = 1.0


@njit
def evaluate(m, flags) -> None:
    """
    Set V_FX, V_FY: forces() of every tyre of the block (ISO-W, N) from the inputs' rows.

    Compiled on its own (not inlined into the kernel: a tenth of the
    compile time), on one array at constant offsets, so that the compiler
    knows no row overlaps another and vectorises every loop.
    """
    _inputs(m)
    if flags[F_DECAY] != 0.0:
        _decay(m)
    if flags[F_EXP] != 0.0:
        for j in range(SLOTS):
            pkx3 = m[C_PKX3 * SLOTS + j]
            e = lane_exp(pkx3 * m[V_DFZ * SLOTS + j])
            m[V_KXK * SLOTS + j] = e if pkx3 != 0.0 else 1.0
    else:
        for j in range(SLOTS):
            m[V_KXK * SLOTS + j] = 1.0
    _longitudinal(m)
    _stiffness(m, flags)
    _lateral(m, flags)
    _combined(m, flags)


@njit_inline
def _inputs(m) -> None:
    """Load, slip angle, dfz, grip and the shifts' fade (forces() and _mf_unit_forces)."""
    slow = 0
    for j in range(SLOTS):
        fz = max(m[V_LOAD * SLOTS + j], m[C_FLOOR * SLOTS + j])
        fz0 = m[C_FZ0 * SLOTS + j]
        m[V_FZ * SLOTS + j] = fz
        m[V_ALPHA * SLOTS + j] = m[C_MIRROR * SLOTS + j] * lane_atan(m[V_SY * SLOTS + j])
        m[V_DFZ * SLOTS + j] = (fz - fz0) / fz0                               # (4.E2a)
        m[V_LMUX * SLOTS + j] = m[C_GLMUX * SLOTS + j]
        m[V_LMUY * SLOTS + j] = m[C_GLMUY * SLOTS + j]
        slow += 1 if abs(m[V_SPEED * SLOTS + j]) < m[C_VXLOW * SLOTS + j] else 0
    for j in range(SLOTS):
        speed, low = abs(m[V_SPEED * SLOTS + j]), m[C_VXLOW * SLOTS + j]
        fade = 0.5 - 0.5 * lane_cos(math.pi * speed / low) if slow > 0 else 1.0
        m[V_FADE * SLOTS + j] = fade if speed < low else 1.0


@njit_inline
def _decay(m) -> None:
    """Lower the grip by LMUV's decay with slip speed (4.E5, 4.E7), where a tyre has it."""
    for j in range(SLOTS):
        speed = abs(m[V_SPEED * SLOTS + j])
        vsx = -m[V_KAPPA * SLOTS + j] * speed
        vsy = lane_tan(m[V_ALPHA * SLOTS + j]) * speed
        lmuv = m[C_LMUV * SLOTS + j]
        decay = 1.0 + lmuv * math.sqrt(vsx * vsx + vsy * vsy) / m[C_LONGVL * SLOTS + j]
        decay = decay if lmuv != 0.0 else 1.0
        m[V_LMUX * SLOTS + j] = m[C_GLMUX * SLOTS + j] / decay
        m[V_LMUY * SLOTS + j] = m[C_GLMUY * SLOTS + j] / decay


@njit_inline
def _longitudinal(m) -> None:
    """Pure-slip Fx0 (4.E9-4.E18; V_KXK holds PKX3's exp factor, turned into Kxk)."""
    for j in range(SLOTS):
        fz, dfz = m[V_FZ * SLOTS + j], m[V_DFZ * SLOTS + j]
        fade, lmux = m[V_FADE * SLOTS + j], m[V_LMUX * SLOTS + j]
        cx = m[C_CX * SLOTS + j]
        mux = ((m[C_PDX1 * SLOTS + j] + m[C_PDX2 * SLOTS + j] * dfz) * m[C_FPX * SLOTS + j]
               * m[C_FGX * SLOTS + j] * lmux)                                   # (4.E13)
        dx = mux * fz                                                           # (4.E12)
        kxk = (fz * (m[C_PKX1 * SLOTS + j] + m[C_PKX2 * SLOTS + j] * dfz)
               * m[V_KXK * SLOTS + j] * m[C_FKX * SLOTS + j] * m[C_LKX * SLOTS + j])  # (4.E15)
        bx = kxk / (cx * dx + EPSILON * _sign(dx))                              # (4.E16)
        shx = ((m[C_PHX1 * SLOTS + j] + m[C_PHX2 * SLOTS + j] * dfz)
               * m[C_LHX * SLOTS + j] * fade)                                   # (4.E17)
        svx = (fz * (m[C_PVX1 * SLOTS + j] + m[C_PVX2 * SLOTS + j] * dfz)
               * m[C_LVX * SLOTS + j] * lmux * fade)                            # (4.E18)
        kappa_x = m[V_KAPPA * SLOTS + j] + shx                                         # (4.E10)
        ex = min((m[C_PEX1 * SLOTS + j] + m[C_PEX2 * SLOTS + j] * dfz
                  + m[C_PEX3 * SLOTS + j] * dfz * dfz)
                 * (1.0 - m[C_PEX4 * SLOTS + j] * _sign(kappa_x))
                 * m[C_LEX * SLOTS + j], 1.0)                                   # (4.E14)
        m[V_KXK * SLOTS + j] = kxk
        m[V_FX0 * SLOTS + j] = _magic(bx, cx, dx, ex, kappa_x) + svx           # (4.E9)


@njit_inline
def _stiffness(m, flags) -> None:
    """Set the cornering stiffness Kya (4.E25), PKY4's sin(c atan(x)) where it is not 2."""
    for j in range(SLOTS):
        x = (m[V_FZ * SLOTS + j] / m[C_FZ0 * SLOTS + j]) / m[C_QKY * SLOTS + j]
        m[V_KYA * SLOTS + j] = 2.0 * x / (1.0 + x * x)
    if flags[F_SIN_ATAN] != 0.0:      # (each optional term its own loop: all vectorise)
        for j in range(SLOTS):
            x = (m[V_FZ * SLOTS + j] / m[C_FZ0 * SLOTS + j]) / m[C_QKY * SLOTS + j]
            c = m[C_PKY4 * SLOTS + j]
            general = lane_sin(c * lane_atan(x))
            m[V_KYA * SLOTS + j] = m[V_KYA * SLOTS + j] if c == 2.0 else general
    for j in range(SLOTS):
        m[V_KYA * SLOTS + j] = (m[C_KY0 * SLOTS + j] * m[V_KYA * SLOTS + j]
                                * m[C_LKY * SLOTS + j])


@njit_inline
def _lateral(m, flags) -> None:
    """Set the pure-slip Fy0 (4.E19-4.E30; SHy: MF 5.2's from PHY3, 6.x's camber stiffness)."""
    for j in range(SLOTS):
        fz, dfz, lmuy = m[V_FZ * SLOTS + j], m[V_DFZ * SLOTS + j], m[V_LMUY * SLOTS + j]
        m[V_SVYG * SLOTS + j] = (fz * (m[C_PVY3 * SLOTS + j] + m[C_PVY4 * SLOTS + j] * dfz)
                                 * m[C_GAMMA * SLOTS + j] * m[C_LKYC * SLOTS + j]
                                 * lmuy)                                        # (4.E28)
        m[V_SHY * SLOTS + j] = ((m[C_PHY1 * SLOTS + j] + m[C_PHY2 * SLOTS + j] * dfz)
                                * m[C_LHY * SLOTS + j] + m[C_SHYG * SLOTS + j])  # MF 5.2
    if flags[F_CAMBER_SHIFT] != 0.0:
        for j in range(SLOTS):
            fz, dfz, kya = m[V_FZ * SLOTS + j], m[V_DFZ * SLOTS + j], m[V_KYA * SLOTS + j]
            kyg0 = (fz * (m[C_PKY6 * SLOTS + j] + m[C_PKY7 * SLOTS + j] * dfz)
                    * m[C_FPY5 * SLOTS + j] * m[C_LKYC * SLOTS + j])            # (4.E30)
            shift = (m[C_PHY1 * SLOTS + j] + m[C_PHY2 * SLOTS + j] * dfz) * m[C_LHY * SLOTS + j]
            shy6 = shift + ((kyg0 * m[C_GAMMA * SLOTS + j] - m[V_SVYG * SLOTS + j])
                            / (kya + EPSILON * _sign(kya)))                     # (4.E27)
            m[V_SHY * SLOTS + j] = m[V_SHY * SLOTS + j] if m[C_V52 * SLOTS + j] != 0.0 else shy6
    for j in range(SLOTS):
        fz, dfz = m[V_FZ * SLOTS + j], m[V_DFZ * SLOTS + j]
        fade, lmuy = m[V_FADE * SLOTS + j], m[V_LMUY * SLOTS + j]
        svy = (fz * (m[C_PVY1 * SLOTS + j] + m[C_PVY2 * SLOTS + j] * dfz)
               * m[C_LVY * SLOTS + j] * lmuy + m[V_SVYG * SLOTS + j]) * fade    # (4.E29)
        alpha_y = m[V_ALPHA * SLOTS + j] + m[V_SHY * SLOTS + j] * fade          # (4.E20)
        cy = m[C_CY * SLOTS + j]                                                # (4.E21)
        muy = ((m[C_PDY1 * SLOTS + j] + m[C_PDY2 * SLOTS + j] * dfz) * m[C_FPY * SLOTS + j]
               * m[C_FGY * SLOTS + j] * lmuy)                                   # (4.E23)
        dy = muy * fz                                                           # (4.E22)
        ey = min((m[C_PEY1 * SLOTS + j] + m[C_PEY2 * SLOTS + j] * dfz)
                 * (m[C_EY5 * SLOTS + j] - m[C_EY34 * SLOTS + j] * _sign(alpha_y))
                 * m[C_LEY * SLOTS + j], 1.0)                                   # (4.E24)
        by = m[V_KYA * SLOTS + j] / (cy * dy + EPSILON * _sign(dy))            # (4.E26)
        m[V_MUY * SLOTS + j] = muy
        m[V_FY0 * SLOTS + j] = _magic(by, cy, dy, ey, alpha_y) + svy           # (4.E19)


@njit_inline
def _combined(m, flags) -> None:
    """Set Fx and Fy in combined slip: the weightings Gxa, Gyk and SVyk (4.E50-4.E67)."""
    for j in range(SLOTS):
        kappa, alpha = m[V_KAPPA * SLOTS + j], m[V_ALPHA * SLOTS + j]
        dfz = m[V_DFZ * SLOTS + j]
        bxa = (m[C_RBX13 * SLOTS + j] * _cos_atan(m[C_RBX2 * SLOTS + j] * kappa)
               * m[C_LXAL * SLOTS + j])                                         # (4.E54)
        exa = min(m[C_REX1 * SLOTS + j] + m[C_REX2 * SLOTS + j] * dfz, 1.0)    # (4.E56)
        byk = (m[C_RBY14 * SLOTS + j]
               * _cos_atan(m[C_RBY2 * SLOTS + j] * (alpha - m[C_RBY3 * SLOTS + j]))
               * m[C_LYKA * SLOTS + j])                                         # (4.E62)
        eyk = min(m[C_REY1 * SLOTS + j] + m[C_REY2 * SLOTS + j] * dfz, 1.0)    # (4.E64)
        shyk = m[C_RHY1 * SLOTS + j] + m[C_RHY2 * SLOTS + j] * dfz              # (4.E65)
        m[V_BXA * SLOTS + j], m[V_EXA * SLOTS + j] = bxa, exa
        m[V_BYK * SLOTS + j], m[V_EYK * SLOTS + j], m[V_SHYK * SLOTS + j] = byk, eyk, shyk
        m[V_GXA * SLOTS + j] = _weighting_cos(bxa, m[C_RCX1 * SLOTS + j], exa,
                                              alpha + m[C_RHX1 * SLOTS + j])    # (4.E51)
        m[V_GYK * SLOTS + j] = _weighting_cos(byk, m[C_RCY1 * SLOTS + j], eyk,
                                              kappa + shyk)                     # (4.E59)
        m[V_SVYK * SLOTS + j] = 0.0
    if flags[F_SHIFT_X] != 0.0:       # weighting()'s value at the shift (1 at none)
        for j in range(SLOTS):
            m[V_GXA * SLOTS + j] = m[V_GXA * SLOTS + j] / _weighting_cos(
                m[V_BXA * SLOTS + j], m[C_RCX1 * SLOTS + j], m[V_EXA * SLOTS + j],
                m[C_RHX1 * SLOTS + j])
    if flags[F_SHIFT_Y] != 0.0:
        for j in range(SLOTS):
            m[V_GYK * SLOTS + j] = m[V_GYK * SLOTS + j] / _weighting_cos(
                m[V_BYK * SLOTS + j], m[C_RCY1 * SLOTS + j], m[V_EYK * SLOTS + j],
                m[V_SHYK * SLOTS + j])
    if flags[F_COMBINED_SHIFT] != 0.0:
        for j in range(SLOTS):
            kappa, alpha = m[V_KAPPA * SLOTS + j], m[V_ALPHA * SLOTS + j]
            dvyk = (m[V_MUY * SLOTS + j] * m[V_FZ * SLOTS + j]
                    * (m[C_RVY1 * SLOTS + j] + m[C_RVY2 * SLOTS + j] * m[V_DFZ * SLOTS + j]
                       + m[C_RVY3G * SLOTS + j])
                    * _cos_atan(m[C_RVY4 * SLOTS + j] * alpha))                 # (4.E67)
            m[V_SVYK * SLOTS + j] = (dvyk * lane_sin(m[C_RVY5 * SLOTS + j] * lane_atan(
                m[C_RVY6 * SLOTS + j] * kappa)) * m[C_LVYKA * SLOTS + j])       # (4.E66)
    for j in range(SLOTS):
        svyk = m[V_SVYK * SLOTS + j] * m[V_FADE * SLOTS + j]
        m[V_FX * SLOTS + j] = m[V_GXA * SLOTS + j] * m[V_FX0 * SLOTS + j]      # (4.E50)
        m[V_FY * SLOTS + j] = m[V_GYK * SLOTS + j] * m[V_FY0 * SLOTS + j] + svyk  # (4.E58)


@njit
def relaxation_lengths(m, flags) -> None:
    """
    Set V_RELAX_X, V_RELAX_Y: each tyre's relaxation lengths at the loads in V_LOAD.

    model.tyre_relaxation_lengths: the vehicle file's where it gives both,
    else the .tir file's at the load (magic_formula.relaxation_lengths:
    PTX/PTY, else the slip stiffnesses over the carcass's), at least
    MF_SHORTEST_RELAXATION_M.
    """
    for j in range(SLOTS):
        own = m[C_SIGMA_X * SLOTS + j] > 0.0 and m[C_SIGMA_Y * SLOTS + j] > 0.0
        sigma_x = max(m[C_SIGMA_X * SLOTS + j], MF_SHORTEST_RELAXATION_M)
        sigma_y = max(m[C_SIGMA_Y * SLOTS + j], MF_SHORTEST_RELAXATION_M)
        m[V_RELAX_X * SLOTS + j] = sigma_x if own else MF_SHORTEST_RELAXATION_M
        m[V_RELAX_Y * SLOTS + j] = sigma_y if own else MF_SHORTEST_RELAXATION_M
    if flags[F_MEASURED_LENGTHS] != 0.0:
        _measured_lengths(m)
    if flags[F_CARCASS_LENGTHS] != 0.0:
        _carcass_lengths(m)


@njit_inline
def _from_file(m, j: int, fz: float) -> bool:
    """Whether slot j takes its .tir file's lengths (not the vehicle file's) at load fz > 0."""
    return fz > 0.0 and (m[C_SIGMA_X * SLOTS + j] <= 0.0 or m[C_SIGMA_Y * SLOTS + j] <= 0.0)


@njit_inline
def _measured_lengths(m) -> None:
    """Set the lengths from PTX1-3, PTY1-2 where a file has them (relaxation_lengths)."""
    for j in range(SLOTS):
        fz, fz0 = m[V_LOAD * SLOTS + j], m[C_FZ0 * SLOTS + j]
        dfz = (fz - fz0) / fz0
        r0 = m[C_R0 * SLOTS + j]
        ptx1, pty1 = m[C_PTX1 * SLOTS + j], m[C_PTY1 * SLOTS + j]
        sigma_kappa = (fz * (ptx1 + m[C_PTX2 * SLOTS + j] * dfz)
                       * lane_exp(-m[C_PTX3 * SLOTS + j] * dfz) * r0 / m[C_FNOMIN * SLOTS + j]
                       * m[C_LSGKP * SLOTS + j])
        sigma_alpha = (pty1 * lane_sin(2.0 * lane_atan(fz / (m[C_PTY2 * SLOTS + j] * fz0)))
                       * m[C_KY3 * SLOTS + j] * r0 * m[C_LFZO * SLOTS + j]
                       * m[C_LSGAL * SLOTS + j])
        use = _from_file(m, j, fz) and (ptx1 != 0.0 or pty1 != 0.0)
        length_x = max(abs(sigma_kappa), MF_SHORTEST_RELAXATION_M)
        length_y = max(abs(sigma_alpha), MF_SHORTEST_RELAXATION_M)
        m[V_RELAX_X * SLOTS + j] = length_x if use else m[V_RELAX_X * SLOTS + j]
        m[V_RELAX_Y * SLOTS + j] = length_y if use else m[V_RELAX_Y * SLOTS + j]


@njit_inline
def _carcass_lengths(m) -> None:
    """Set the lengths Kxk / Cx, Kya / Cy: slip stiffness over the carcass's (as above)."""
    for j in range(SLOTS):
        fz, fz0 = m[V_LOAD * SLOTS + j], m[C_FZ0 * SLOTS + j]
        dfz = (fz - fz0) / fz0
        pkx3 = m[C_PKX3 * SLOTS + j]
        e = lane_exp(pkx3 * dfz)
        kxk = (fz * (m[C_PKX1 * SLOTS + j] + m[C_PKX2 * SLOTS + j] * dfz)
               * (e if pkx3 != 0.0 else 1.0) * m[C_FKX * SLOTS + j] * m[C_LKX * SLOTS + j])
        x = (fz / fz0) / m[C_QKY * SLOTS + j]
        c = m[C_PKY4 * SLOTS + j]
        shape = 2.0 * x / (1.0 + x * x)
        shape = shape if c == 2.0 else lane_sin(c * lane_atan(x))
        kya = m[C_KY0 * SLOTS + j] * shape * m[C_LKY * SLOTS + j]
        cx0, cy0 = m[C_CX0 * SLOTS + j], m[C_CY0 * SLOTS + j]
        cx = (cx0 * (1.0 + m[C_PCFX1 * SLOTS + j] * dfz + m[C_PCFX2 * SLOTS + j] * dfz * dfz)
              * m[C_PCFX3P * SLOTS + j])
        cy = (cy0 * (1.0 + m[C_PCFY1 * SLOTS + j] * dfz + m[C_PCFY2 * SLOTS + j] * dfz * dfz)
              * m[C_PCFY3P * SLOTS + j])
        use = (_from_file(m, j, fz) and m[C_PTX1 * SLOTS + j] == 0.0
               and m[C_PTY1 * SLOTS + j] == 0.0 and cx0 > 0.0 and cy0 > 0.0)
        length_x = max(abs(kxk) / cx, MF_SHORTEST_RELAXATION_M)
        length_y = max(abs(kya) / cy, MF_SHORTEST_RELAXATION_M)
        m[V_RELAX_X * SLOTS + j] = length_x if use else m[V_RELAX_X * SLOTS + j]
        m[V_RELAX_Y * SLOTS + j] = length_y if use else m[V_RELAX_Y * SLOTS + j]
