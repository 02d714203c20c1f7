"""Probe findings: silently wrong answers and unbounded work, each with its reproducer.

Every refusal here is asserted directly (a ValueError raised before any work), so a
regression shows as a failure, never as a hang."""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from scipy import stats

from gctheory.order_stats import expected_order_statistic, order_statistic_moments
from gctheory.order_stats._common import InfiniteMomentWarning

# ---------------------------------------------------------------------------
# order statistics: beyond the validated range, heavy tails


def test_normal_median_at_the_validated_edge_is_right_and_beyond_is_refused():
    n = 10**16
    r = order_statistic_moments(stats.norm(), n // 2, n)
    assert r.variance == pytest.approx(math.pi / (2 * n), rel=1e-6)  # the CLT's variance
    assert abs(r.mean) < 1e-15
    for law in (stats.norm(), stats.weibull_min(2.0)):
        for n in (10**17, 10**18):  # 1.31e-16 for pi/(2n) = 1.57e-18 at 1e18, before
            with pytest.raises(ValueError, match="n: the integration route is validated"):
                order_statistic_moments(law, n // 2, n)
    # the closed forms have no such limit
    assert order_statistic_moments(stats.expon(), 10**18 // 2, 10**18).variance == (
        pytest.approx(1e-18, rel=1e-9)
    )


def _mp_second_of_three(laws) -> mp.mpf:
    """E[X_(2:3)] = int_0^inf P(at most one of three done by t) dt, with mpmath."""

    def sf(law, t):
        kind, a, scale = law
        if kind == "pareto":
            return mp.mpf(1) if t < scale else (scale / t) ** a
        return mp.e ** (-t / scale)

    def g(t):
        S = [sf(law, t) for law in laws]
        F = [1 - s for s in S]
        return S[0] * S[1] * S[2] + F[0] * S[1] * S[2] + S[0] * F[1] * S[2] + S[0] * S[1] * F[2]

    mp.mp.dps = 30
    cuts = sorted({mp.mpf(0), *(mp.mpf(law[2]) for law in laws if law[0] == "pareto")})
    T = mp.mpf(2000)  # beyond T the exponential worker is done (e^-2000): g = S_0 S_1 exactly
    body = mp.quad(g, [*cuts, mp.mpf(10), mp.mpf(100), T])
    (_, a0, s0), (_, a1, s1) = laws[0], laws[1]
    a = mp.mpf(a0) + mp.mpf(a1)  # S_0 S_1 = s0^a0 s1^a1 t^-a, integrated in closed form
    tail = mp.mpf(s0) ** a0 * mp.mpf(s1) ** a1 * T ** (1 - a) / (a - 1)
    return body + tail


@pytest.mark.parametrize(
    "laws",
    [
        [("pareto", 0.6, 1.0), ("pareto", 0.6, 2.0), ("expon", None, 1.0)],
        [("pareto", 0.6, 1.0), ("pareto", 0.6, 1.0), ("expon", None, 1e-9)],
    ],
)
def test_heavy_tailed_workers_with_a_finite_mean_get_it(laws):
    """The two slowest tail indices sum to 1.2 > 1: the mean is finite (it was inf)."""
    dists = [
        stats.pareto(a, scale=s) if kind == "pareto" else stats.expon(scale=s)
        for kind, a, s in laws
    ]
    ref = float(_mp_second_of_three(laws))
    got = expected_order_statistic(dists, 2)
    assert got == pytest.approx(ref, rel=1e-7)
    r = order_statistic_moments(dists, 2)
    assert math.isinf(r.variance) and "variance" in r.reason  # 1.2 <= 2: infinite
    # negative control: one worker heavier (0.6 + 0.3 <= 1), the mean is infinite
    heavier = [stats.pareto(0.3), *dists[1:]]
    with pytest.warns(InfiniteMomentWarning, match="t\\^-0.9"):
        assert math.isinf(expected_order_statistic(heavier, 2))
