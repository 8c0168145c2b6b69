"""lane_math: atan, sin and cos of our own, a few units in the last place from the C library's."""

from fractions import Fraction
import math

import numpy as np
import pytest

from rally_sim.physics import jit
from rally_sim.physics.batch import lane_math
from rally_sim.physics.batch.lane_math import (
    lane_atan, lane_cos, lane_exp, lane_sin, lane_sincos, lane_tan)
from rally_sim.physics.jit import fma, njit


@njit
def _evaluate(x, atan, sin, sin2, cos):
    """Every lane_math function on every x (compiled: a vectorised loop, as lanes.py runs)."""
    for k in range(x.shape[0]):
        atan[k] = lane_atan(x[k])
        sin[k] = lane_sin(x[k])
        sin2[k], cos[k] = lane_sincos(x[k])


def _ulps(values, reference):
    """Return each value's distance from the reference in units of the reference's last place."""
    return np.abs(values - reference) / np.spacing(np.abs(reference))


@pytest.mark.parametrize('low, high', [(-1.0, 1.0), (0.2, 0.3), (0.9, 1.1), (3.6, 3.9),
                                       (0.0, 3.2), (-100.0, 100.0), (-3e5, 3e5)])
def test_each_function_is_within_a_few_ulp_of_the_c_library(low, high):
    x = np.random.default_rng(7).uniform(low, high, 20000)
    atan, sin, sin2, cos = (np.zeros_like(x) for _ in range(4))
    _evaluate(x, atan, sin, sin2, cos)
    assert _ulps(atan, np.array([math.atan(v) for v in x])).max() <= 4.0
    assert _ulps(sin, np.array([math.sin(v) for v in x])).max() <= 3.0
    assert _ulps(sin2, np.array([math.sin(v) for v in x])).max() <= 2.0
    assert _ulps(cos, np.array([math.cos(v) for v in x])).max() <= 2.0


@njit
def _evaluate_more(x, exp, tan, cos):
    """lane_exp, lane_tan and lane_cos on every x (lane_tyres' Magic Formula uses them)."""
    for k in range(x.shape[0]):
        exp[k] = lane_exp(x[k])
        tan[k] = lane_tan(x[k])
        cos[k] = lane_cos(x[k])


@pytest.mark.parametrize('low, high', [(-1e-3, 1e-3), (-1.0, 1.0), (-30.0, 30.0),
                                       (-700.0, 700.0)])
def test_exp_tan_and_cos_are_within_a_few_ulp_of_the_c_library(low, high):
    x = np.random.default_rng(8).uniform(low, high, 20000)
    exp, tan, cos = (np.zeros_like(x) for _ in range(3))
    _evaluate_more(x, exp, tan, cos)
    assert _ulps(exp, np.array([math.exp(v) for v in x])).max() <= 2.0
    assert _ulps(tan, np.array([math.tan(v) for v in x])).max() <= 4.0
    assert _ulps(cos, np.array([math.cos(v) for v in x])).max() <= 2.0


def test_exp_is_exact_at_zero_and_held_at_its_limit():
    x = np.array([0.0, -0.0, 1.0, 700.0, -700.0, 710.0, -1e5])
    exp, tan, cos = (np.zeros_like(x) for _ in range(3))
    _evaluate_more(x, exp, tan, cos)
    assert exp[:2].tolist() == [1.0, 1.0]                 # PKX3 0: no change to Kxk
    assert exp[2] == pytest.approx(math.e, rel=2.5e-16, abs=0.0)     # 1 ulp
    assert exp[5] == exp[3] == pytest.approx(math.exp(700.0), rel=4e-16)
    assert exp[6] == exp[4] == pytest.approx(math.exp(-700.0), rel=4e-16)


def test_special_values():
    x = np.array([0.0, -0.0, 5e-324, 1e-300, 1.0, -1.0, 1e300, -1e300, math.inf, -math.inf])
    atan, sin, sin2, cos = (np.zeros_like(x) for _ in range(4))
    _evaluate(x, atan, sin, sin2, cos)
    for value, got in zip(x, atan):
        assert got == pytest.approx(math.atan(value), rel=1e-15, abs=0.0), value
    assert math.copysign(1.0, atan[1]) == -1.0            # atan(-0) = -0
    assert sin[:4].tolist() == [0.0, -0.0, 5e-324, 1e-300] == sin2[:4].tolist()
    assert cos[:4].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert np.isnan(sin[-2:]).all() and np.isnan(cos[-2:]).all()


def _pi_fraction(bits: int = 300) -> Fraction:
    """Return pi to `bits` bits by Machin's formula, integers only."""
    one = 1 << bits

    def arctan_inverse(n: int) -> int:
        total = term = one // n
        k, sign = 1, -1
        while term:
            term //= n * n
            total += sign * (term // (2 * k + 1))
            k, sign = k + 1, -sign
        return total
    return Fraction(4 * (4 * arctan_inverse(5) - arctan_inverse(239)), one)


def test_the_split_of_half_pi_is_exact_where_it_must_be():
    half_pi = _pi_fraction() / 2
    parts = [lane_math.HALF_PI_1, lane_math.HALF_PI_2, lane_math.HALF_PI_3]
    assert abs(half_pi - sum(Fraction(p) for p in parts)) < Fraction(1, 10 ** 36)
    for part in parts[:2]:                  # 33 significant bits: k * part exact for k < 2^20
        mantissa = Fraction(part) / Fraction(2) ** (math.frexp(part)[1] - 33)
        assert mantissa.denominator == 1


def test_fma_rounds_once():
    @njit
    def fused(a, b, c):
        return fma(a, b, c)
    a = 1.0 + 2.0 ** -30
    # a * a = 1 + 2^-29 + 2^-60 exactly; rounded first, the 2^-60 is lost
    assert jit.ENABLED          # the project's venv compiles (RALLY_SIM_NO_JIT is for checks)
    assert fused(a, a, -(1.0 + 2.0 ** -29)) == 2.0 ** -60
    assert a * a - (1.0 + 2.0 ** -29) == 0.0
