"""
Tyre slip and the Pacejka combined-slip magic formula (document 002, A.5-A.6).

Two slip definitions are offered:

- ``document``: exactly section A.5. The longitudinal slip is kappa (over the
  wheel-centre speed) when the wheel turns slower than it travels, sigma (over
  the wheel's circumferential speed) otherwise; the lateral slip is divided by
  the circumferential speed. Singular at standstill (denominators are replaced
  by a signed 1e-9, as the document's code does) and wrong in reverse.
- ``regularized`` (our default): both slips share one denominator,
  max(|omega R|, |v_x'|, v_low). Above v_low and in forward driving it equals
  the document's longitudinal slip, and the lateral slip equals the document's
  whenever the wheel rolls (omega R = v_x'). The shared, positive denominator
  makes the force oppose the contact patch's sliding velocity in every
  direction, so reverse driving works and a locked wheel loses its lateral
  grip; below v_low the tyre acts as a stiff linear damper on the sliding
  velocity, which brings the car to rest without sign-flipping (the implicit
  integrator handles the stiffness).
"""

import math

from .jit import njit

DOCUMENT_EPS = 1e-9
"""The document's guard for vanishing denominators."""

SLIP_DOCUMENT = 0
SLIP_REGULARIZED = 1


@njit
def _signed_guard(x: float) -> float:
    """Replace |x| < 1e-9 by +-1e-9 (sign of x, + for 0), as document 002 does."""
    if abs(x) >= DOCUMENT_EPS:
        return x
    return DOCUMENT_EPS if x >= 0.0 else -DOCUMENT_EPS


@njit
def slips(vx_t: float, vy_t: float, omega_r: float, model: int,
          low_speed_m_s: float) -> tuple:
    """
    Return the (longitudinal, lateral) slip of one tyre.

    vx_t, vy_t: contact-patch velocity in the tyre frame [m/s];
    omega_r: circumferential speed omega * R [m/s].
    """
    if model == SLIP_DOCUMENT:
        if vx_t >= omega_r:
            sx = (omega_r - vx_t) / _signed_guard(vx_t)
        else:
            sx = (omega_r - vx_t) / _signed_guard(omega_r)
        return sx, vy_t / _signed_guard(omega_r)
    denominator = max(abs(omega_r), abs(vx_t), low_speed_m_s)
    return (omega_r - vx_t) / denominator, vy_t / denominator


@njit
def unit_forces(sx: float, sy: float, b: float, c: float, d: float) -> tuple:
    """
    Return the tyre-frame force (Fx', Fy') per newton of mu * Fz.

    Document 002, A.6: F = mu Fz D sin(C atan(B s)) along (sx, -sy) / s, with
    s the combined slip magnitude; zero when s <= 1e-9.
    """
    s = math.sqrt(sx * sx + sy * sy)
    if s <= DOCUMENT_EPS:
        return 0.0, 0.0
    magnitude = d * math.sin(c * math.atan(b * s))
    return magnitude * sx / s, -magnitude * sy / s


STILL_M_S = 0.01
"""Below this contact-patch speed the slip angle is reported as 0 (direction is noise)."""


@njit
def slip_angle(vx_t: float, vy_t: float) -> float:
    """Angle from the wheel heading to the contact-patch velocity [rad], CCW positive."""
    if vx_t * vx_t + vy_t * vy_t < STILL_M_S * STILL_M_S:
        return 0.0
    return math.atan2(vy_t, abs(vx_t))
