"""The Beta-weighted quantile integral (gctheory.order_stats.quantile_quadrature).

Against a 30-digit mpmath reference (``order_statistic_reference(..., method="quad")``,
an integral over ``x`` of the order statistic's density: an independent route), against
the old adaptive ``quad`` of the survival function (fast path == slow path within the
slow path's own accuracy), and against exact closed forms through the same integrator.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

import gctheory.order_stats.quadrature as quad_mod
import gctheory.order_stats.quantile_quadrature as qq
from gctheory.order_stats import (
    expected_order_statistic,
    harmonic_difference,
    order_statistic_moments,
    order_statistic_reference,
)
from gctheory.order_stats.quadrature import _sf_quad_order_stat

LAWS = {
    "normal": (stats.norm(loc=1.0, scale=0.2), {"loc": 1.0, "scale": 0.2}),
    "lognormal": (stats.lognorm(0.5), {"s": 0.5}),
    "gamma": (stats.gamma(2.0), {"a": 2.0}),
    "weibull": (stats.weibull_min(1.5), {"c": 1.5}),
}
GRID = [(n // 2, n) for n in (10, 100, 1000, 10**5)]
GRID += [(int(0.9 * n), n) for n in (10, 100, 1000, 10**5)]
GRID += [(n, n) for n in (10, 100, 1000, 10**5)]

# the float path against mpmath: at most a few ulps (seen: 3.8e-16 on this grid)
REL_MP = 1.3e-15


def _ref(fam, k, n, params):
    return order_statistic_reference(fam, k, n, dps=30, method="quad", **params)


@pytest.mark.parametrize("fam", sorted(LAWS))
def test_where_scipy_returns_nan_we_stay_within_1_3e_15(fam):
    # k = 0.9 n, n = 10^5: scipy.stats.order_statistic(...).mean() gives NaN for all four
    dist, params = LAWS[fam]
    k, n = 90_000, 100_000
    got = expected_order_statistic(dist, k, n)
    assert abs(got - _ref(fam, k, n, params)) <= REL_MP * abs(got)


@pytest.mark.slow
@pytest.mark.parametrize("fam", sorted(LAWS))
@pytest.mark.parametrize("k, n", GRID)
def test_grid_against_mpmath(fam, k, n):
    dist, params = LAWS[fam]
    got = expected_order_statistic(dist, k, n)
    assert abs(got - _ref(fam, k, n, params)) <= REL_MP * abs(got)


def test_reference_is_stable_in_its_digits():
    # the 30-digit reference moves by far less than the float tolerance at 40 digits
    a = order_statistic_reference("gamma", 900, 1000, dps=30, method="quad", a=2.0)
    b = order_statistic_reference("gamma", 900, 1000, dps=40, method="quad", a=2.0)
    assert abs(float((a - b) / b)) < 1e-25


def test_the_mpmath_check_can_fail():
    # negative control: the old route (adaptive quad of the survival function) is
    # about 1e-13 off at the maximum of 10^5 normals; the same check must flag it,
    # while the quantile route passes
    k = n = 100_000
    dist, params = LAWS["normal"]
    ref = _ref("normal", k, n, params)
    old = _sf_quad_order_stat(dist, k, n, variance=False).mean
    assert abs(old - ref) > 10 * REL_MP * abs(old)
    assert abs(expected_order_statistic(dist, k, n) - ref) <= REL_MP * abs(ref)


def test_a_quantile_of_u_rounded_next_to_1_is_refused(monkeypatch):
    # the upper half takes isf(q); ppf(1 - q) instead (u rounded next to 1) gives
    # ndtri(1) = inf at the window's far end: refused, so the caller falls back
    lo, _ = qq._FAMILIES[type(stats.norm)]
    monkeypatch.setitem(
        qq._FAMILIES, type(stats.norm), (lo, lambda s, sh: special.ndtri(1.0 - np.exp(-s)))
    )
    assert qq.quantile_moments(stats.norm(), 10**5, 10**5) is None


@pytest.mark.parametrize("fam", sorted(LAWS))
@pytest.mark.parametrize("k, n", GRID)
def test_fast_path_equals_old_quad(fam, k, n):
    # the old route (adaptive quad, scalar frozen-law calls) is good to about 1e-12 of
    # the mean (measured against mpmath in benchmarks/bench_order_stats.py) and its
    # variance to about 1e-8: the fast path must agree within those
    dist, _ = LAWS[fam]
    fast = order_statistic_moments(dist, k, n)
    slow = _sf_quad_order_stat(dist, k, n)
    assert fast.method == slow.method == "quad"
    assert fast.mean == pytest.approx(slow.mean, rel=1e-11)
    assert fast.variance == pytest.approx(slow.variance, rel=1e-7)


def _with_exponential(monkeypatch):
    """Register the exponential with the integrator (u = e^-s: x = -log1p(-e^-s); q =
    e^-s: x = s exactly), so its exact Renyi closed forms test the machinery."""
    monkeypatch.setitem(
        qq._FAMILIES,
        type(stats.expon),
        (lambda s, sh: -np.log1p(-np.exp(-s)), lambda s, sh: np.asarray(s, dtype=float)),
    )


@pytest.mark.parametrize(
    "k, n", [(1, 1), (1, 2), (2, 2), (3, 7), (1, 50), (50, 50), (617, 1000), (99_999, 10**5)]
)
def test_integrator_against_exact_exponential(monkeypatch, k, n):
    _with_exponential(monkeypatch)
    r = qq.quantile_moments(stats.expon(scale=2.0), k, n)
    assert r is not None
    exact = 2.0 * harmonic_difference(n, k)  # 2 (H_n - H_(n-k)), Renyi
    var = 4.0 * sum(1.0 / j**2 for j in range(n - k + 1, n + 1))
    assert r.mean == pytest.approx(exact, rel=2e-15)
    assert r.variance == pytest.approx(var, rel=1e-12)


def test_weibull_minimum_is_a_weibull():
    # min of n Weibull(c) draws is Weibull(c) with scale n^(-1/c): n^(-1/c) Gamma(1 + 1/c)
    for c, n in ((0.2, 50), (0.2, 10**6), (1.5, 1000), (5.0, 7)):
        exact = n ** (-1.0 / c) * math.gamma(1.0 + 1.0 / c)
        got = expected_order_statistic(stats.weibull_min(c), 1, n)
        assert got == pytest.approx(exact, rel=3e-15)


def test_tail_check_widens_the_window():
    # the minimum of 10^6 gamma(0.05) draws: x ~ u^20, the integrand's mass sits where
    # the Beta density alone is below e^-48 of its peak; the first window's tail check
    # must refuse it (2e-7 off) and a wider one give the 30-digit value
    dist = stats.gamma(0.05)
    fam = qq.quantile_family(dist)
    assert fam is not None
    assert qq._moments(fam, (0.05,), 1, 10**6, 48.0, False) is None
    got = expected_order_statistic(dist, 1, 10**6)
    ref = 1.42164313255581e-102  # order_statistic_reference("gamma", 1, 10**6, a=0.05), 30 digits
    assert got == pytest.approx(ref, rel=1e-13)


def test_fallback_to_adaptive_quad_when_the_estimate_fails(monkeypatch):
    dist = stats.lognorm(0.5)
    fast = order_statistic_moments(dist, 7, 20)
    monkeypatch.setattr(qq, "_AGREE", 0.0)  # no two levels ever agree: no fast answer
    assert qq.quantile_moments(dist, 7, 20) is None
    slow = order_statistic_moments(dist, 7, 20)
    assert slow.mean == pytest.approx(fast.mean, rel=1e-11)
    assert slow.variance == pytest.approx(fast.variance, rel=1e-7)


def test_subclass_is_not_taken_for_its_parent():
    class Shifted(type(stats.norm)):
        def _ppf(self, q):
            return super()._ppf(q) + 1.0

    assert qq.quantile_family(Shifted(name="shifted")()) is None
    assert qq.quantile_family(stats.chi2(3)) is None


def test_variance_only_when_asked(monkeypatch):
    # expected_order_statistic skips the second moment on both routes
    dist = stats.gamma(2.0)
    assert math.isnan(qq.quantile_moments(dist, 5, 10, variance=False).variance)
    calls = []
    orig = quad_mod._quad_segment

    def counting(g, a, b):
        calls.append(1)
        return orig(g, a, b)

    monkeypatch.setattr(quad_mod, "_quad_segment", counting)
    law = stats.chi2(3.0)  # no quantile route: adaptive quad
    m = order_statistic_moments(law, 3, 10)
    with_var = len(calls)
    calls.clear()
    mean = expected_order_statistic(law, 3, 10)
    assert len(calls) * 2 == with_var  # half the integrals: no second moment
    assert mean == m.mean


def test_mean_is_the_same_with_and_without_the_variance():
    for k, n in ((1, 10), (9, 10), (500, 1000)):
        d = stats.lognorm(0.5)
        assert expected_order_statistic(d, k, n) == order_statistic_moments(d, k, n).mean


@settings(max_examples=25, deadline=None)
@given(
    fam=st.sampled_from(["normal", "lognormal", "gamma", "weibull"]),
    shape=st.floats(0.3, 3.0),
    n=st.integers(1, 3000),
    frac=st.floats(0.0, 1.0),
)
def test_fast_equals_old_fuzz(fam, shape, n, frac):
    dist = {
        "normal": stats.norm(loc=shape, scale=1.0),
        "lognormal": stats.lognorm(shape / 2),
        "gamma": stats.gamma(shape),
        "weibull": stats.weibull_min(shape),
    }[fam]
    k = min(n, 1 + int(frac * n))
    fast = qq.quantile_moments(dist, k, n)
    assert fast is not None  # these moderate laws never need the fallback
    slow = _sf_quad_order_stat(dist, k, n)
    assert fast.mean == pytest.approx(slow.mean, rel=1e-10, abs=1e-12)
    assert fast.variance == pytest.approx(slow.variance, rel=1e-6, abs=1e-14)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"family": "normal", "method": "closed"}, "method='closed'"),
        ({"family": "gamma", "method": "quad"}, "missing \\['a'\\]"),
        ({"family": "gamma", "method": "quad", "a": 2.0, "xi": 1.0}, "unknown \\['xi'\\]"),
        ({"family": "weibull", "method": "quad", "c": -1.0}, "c must lie"),
        ({"family": "normal", "method": "quad", "scale": 0.0}, "scale must lie"),
        ({"family": "lognormal", "method": "quad", "s": True}, "s must be a real"),
    ],
)
def test_reference_refuses_bad_parameters(kwargs, match):
    kw = dict(kwargs)
    fam = kw.pop("family")
    with pytest.raises(ValueError, match=match):
        order_statistic_reference(fam, 2, 5, **kw)
