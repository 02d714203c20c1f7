"""Order statistics of independent, non-identical workers (issue 23, part 1)."""

from __future__ import annotations

import itertools
import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from gctheory.order_stats import (
    expected_order_statistic,
    order_statistic_cdf,
    order_statistic_mc,
    order_statistic_moments,
    order_statistic_variance,
    worker_groups,
)


def _enumerate(laws, k):
    """Exact mean and variance of the k-th smallest by enumerating every joint outcome."""
    supports = []
    for d in laws:
        lo, hi = (int(x) for x in d.support())
        xs = np.arange(lo, hi + 1)
        ps = d.pmf(xs)
        supports.append([(x, p) for x, p in zip(xs, ps) if p > 0])
    m1 = m2 = 0.0
    for combo in itertools.product(*supports):
        p = math.prod(c[1] for c in combo)
        v = sorted(c[0] for c in combo)[k - 1]
        m1 += p * v
        m2 += p * v * v
    return m1, m2 - m1 * m1


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_discrete_matches_enumeration(k):
    laws = [
        stats.randint(0, 3),
        stats.binom(3, 0.4),
        stats.randint(1, 5),
        stats.binom(2, 0.9, loc=1),
    ]
    mean, var = _enumerate(laws, k)
    r = order_statistic_moments(laws, k)
    assert r.method == "exact-discrete"
    assert r.mean == pytest.approx(mean, rel=1e-12, abs=1e-12)
    assert r.variance == pytest.approx(var, rel=1e-10, abs=1e-12)


def _mp_moments(laws, k):
    """mpmath quadrature of the Poisson-binomial survival function (independent route:
    sums over every subset of finished workers)."""
    n = len(laws)
    mp.mp.dps = 25
    seen = {}  # both quadratures visit the same nodes: each sf(t) is summed once

    def sf(t):
        if t not in seen:
            seen[t] = _sf(t)
        return seen[t]

    def _sf(t):
        t = float(t)
        F = [float(d.cdf(t)) for d in laws]
        tot = mp.mpf(0)
        for done in itertools.product((0, 1), repeat=n):
            if sum(done) < k:
                tot += mp.fprod(F[i] if done[i] else 1 - F[i] for i in range(n))
        return tot

    pts = [0, 0.3, 0.5, 1, 2, 4, 8, 16, 40, mp.inf]  # 0.3: a shifted law starts
    m1 = mp.quad(sf, pts)
    m2 = mp.quad(lambda t: 2 * t * sf(t), pts)
    return float(m1), float(m2 - m1**2)


@pytest.mark.parametrize("k", [1, 3, pytest.param(5, marks=pytest.mark.slow)])  # k = 5: 6 s of CPU
def test_continuous_matches_mpmath(k):
    laws = [
        stats.gamma(2.0, scale=0.5),
        stats.weibull_min(1.5, scale=2.0),
        stats.expon(scale=1.0),
        stats.lognorm(0.5, scale=1.2),
        stats.expon(loc=0.3, scale=0.7),
    ]
    mean, var = _mp_moments(laws, k)
    r = order_statistic_moments(laws, k)
    assert r.method == "quad"
    assert r.mean == pytest.approx(mean, rel=1e-7)
    assert r.variance == pytest.approx(var, rel=1e-6)


def test_identical_laws_reduce_exactly_to_iid():
    for d in (stats.expon(loc=0.5, scale=2.0), stats.pareto(3.0, scale=0.1), stats.gamma(2.0)):
        for k in (1, 7, 12):
            a = order_statistic_moments([d] * 12, k)
            b = order_statistic_moments(d, k, 12)
            assert a == b  # same code path, same numbers
            assert expected_order_statistic([(d, 12)], k) == expected_order_statistic(d, k, 12)


def test_exponential_groups_exact():
    # equal rates given as two groups: the chain must give the harmonic sums
    d = stats.expon(loc=0.5, scale=1.0)
    d2 = stats.expon(loc=0.5, scale=1.0 + 1e-15)
    for k in (1, 4, 10):
        r = order_statistic_moments([(d, 4), (d2, 6)], k)
        iid = order_statistic_moments(d, k, 10)
        assert r.method == "closed-exponential-groups"
        assert r.mean == pytest.approx(iid.mean, rel=1e-13)
        assert r.variance == pytest.approx(iid.variance, rel=1e-12)
    # the minimum of exponentials is exponential with the summed rate
    laws = [(stats.expon(scale=1.0), 3), (stats.expon(scale=4.0), 5)]
    r = order_statistic_moments(laws, 1)
    rate = 3 + 5 / 4
    assert r.mean == pytest.approx(1 / rate, rel=1e-14)
    assert r.variance == pytest.approx(1 / rate**2, rel=1e-14)
    # and the chain agrees with the quadrature
    for k in (2, 5, 8):
        a = order_statistic_moments(laws, k)
        b = order_statistic_moments(laws, k, method="quad")
        assert a.mean == pytest.approx(b.mean, rel=1e-9)
        assert a.variance == pytest.approx(b.variance, rel=1e-7)


def test_large_two_groups_is_fast_and_consistent():
    import time

    # 2 x 2000 workers (2 x 5000 cost 1.8 s of CPU; the same lines run at any size)
    laws = [(stats.expon(scale=1.0), 2000), (stats.expon(scale=3.0), 2000)]
    t = time.process_time()  # CPU time: a loaded machine does not move it
    a = order_statistic_moments(laws, 3600)
    b = order_statistic_moments(laws, 3600, method="quad")
    assert time.process_time() - t < 30  # measured ~0.2 s on one shared core
    assert a.mean == pytest.approx(b.mean, rel=1e-10)
    assert a.variance == pytest.approx(b.variance, rel=1e-7)
    laws = [stats.gamma(2.0)] * 2000 + [stats.weibull_min(1.5, scale=3.0)] * 2000
    assert len(worker_groups(laws)) == 2
    r = order_statistic_moments(laws, 3600)
    est = order_statistic_mc(laws, 3600, trials=400, rng=1)
    assert est.low - 1e-3 <= r.mean <= est.high + 1e-3


def test_monte_carlo_twin():
    laws = [
        (stats.gamma(2.0, scale=0.5), 4),
        (stats.lognorm(0.8, scale=2.0), 3),
        (stats.expon(), 2),
    ]
    for k in (1, 5, 9):
        r = order_statistic_moments(laws, k)
        est = order_statistic_mc(laws, k, trials=40_000, rng=k)
        assert est.low <= r.mean <= est.high


def test_cdf():
    laws = [stats.expon(scale=1.0), stats.expon(scale=2.0), stats.gamma(2.0)]
    t = np.array([0.3, 1.0, 2.5])
    got = order_statistic_cdf(laws, 2, t)
    F = np.array([[d.cdf(x) for d in laws] for x in t])
    want = [
        sum(
            math.prod(F[i, j] if done[j] else 1 - F[i, j] for j in range(3))
            for done in itertools.product((0, 1), repeat=3)
            if sum(done) >= 2
        )
        for i in range(3)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-13)
    d = stats.expon()
    np.testing.assert_allclose(
        order_statistic_cdf([d] * 3, 2, t), order_statistic_cdf(d, 2, t, n=3)
    )


def test_infinite_mean_is_said():
    laws = [(stats.pareto(0.6), 3), (stats.expon(), 5)]
    with pytest.warns(UserWarning, match="infinite"):
        assert math.isinf(expected_order_statistic(laws, 8))
    r = order_statistic_moments(laws, 6)  # tail t^-1.8: finite mean, infinite variance
    assert math.isfinite(r.mean) and math.isinf(r.variance)
    with pytest.warns(UserWarning, match="infinite"):
        assert math.isinf(order_statistic_variance(laws, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = order_statistic_mc(laws, 5, trials=20_000, rng=2)
    assert est.low <= order_statistic_moments(laws, 5).mean <= est.high


def test_bad_input():
    d = stats.expon()
    with pytest.raises(ValueError, match="n: dists describes 3 workers"):
        order_statistic_moments([d, d, d], 2, 4)
    with pytest.raises(ValueError, match="k must lie in"):
        order_statistic_moments([d, d], 3)
    with pytest.raises(ValueError, match="n: the number of workers is needed"):
        order_statistic_moments(d, 2)
    with pytest.raises(ValueError, match="empty"):
        order_statistic_moments([], 1)
    with pytest.raises(ValueError, match="count"):
        order_statistic_moments([(d, 0)], 1)
    with pytest.raises(ValueError, match="mixes discrete and continuous"):
        order_statistic_moments([d, stats.randint(0, 3)], 1)
    with pytest.raises(ValueError, match=r"dists\[1\]"):
        order_statistic_moments([d, "expon"], 1)
    with pytest.raises(ValueError, match="closed"):
        order_statistic_moments([d, stats.gamma(2.0)], 1, method="closed")
    with pytest.raises(ValueError, match="trials"):
        order_statistic_mc([d, d], 1)
