"""Exact coverage of the binomial intervals (gctheory.montecarlo.coverage), and the default.

The default interval must cover at least its stated level for every n and p:
Clopper-Pearson, by construction. Wilson dips below (Brown, Cai and DasGupta 2001):
the negative control.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from gctheory.montecarlo import binomial_estimate, estimate_probability
from gctheory.montecarlo.coverage import (
    GRID_LEVELS,
    GRID_N,
    GRID_P,
    coverage_curves,
    coverage_table,
    exact_coverage,
)
from gctheory.montecarlo.estimates import INTERVALS, interval_limits
from tests import _mc_events as ev


def test_the_default_interval_is_clopper_pearson():
    # before: Wilson, whose exact coverage is 91.0% at a stated 95% (p = 0.001, 500 trials)
    assert binomial_estimate(3, 500, level=0.95).method == "clopper-pearson"
    est = estimate_probability(functools.partial(ev.bernoulli, p=0.01), 500, rng=1)
    assert est.method == "clopper-pearson"
    cp = binomial_estimate(est.successes, 500, level=0.99, interval="clopper-pearson")
    assert (est.low, est.high) == (cp.low, cp.high)


def test_wilson_under_covers_where_clopper_pearson_does_not():
    # the negative control: a summed coverage, not a copied number
    w = exact_coverage("wilson", 500, 1e-3, 0.95)
    cp = exact_coverage("clopper-pearson", 500, 1e-3, 0.95)
    assert 0.905 < w.coverage < 0.915  # Wilson: mass at k = 0 (0.6064) + k = 1, 2, 3 ...
    assert cp.coverage >= 0.95
    assert w.neglected < 1e-12 and cp.neglected < 1e-12
    assert exact_coverage("wilson", 2000, 1e-3, 0.95).coverage < 0.95
    assert exact_coverage("wilson", 500, 1e-3, 0.99).coverage < 0.99


def _bisect(f, lo, hi, steps: int = 140):
    """The root of the increasing function ``f`` on [lo, hi] by bisection."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def _cp_limits_mp(k: int, n: int, level: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Clopper-Pearson from the exact binomial tails (mpmath, 40 digits, bisection):
    ``P(K >= k; low) = alpha / 2`` and ``P(K <= k; high) = alpha / 2``."""
    a = (1 - mpmath.mpf(level)) / 2

    def cdf(j, p):  # P(K <= j)
        return mpmath.fsum(mpmath.binomial(n, i) * p**i * (1 - p) ** (n - i) for i in range(j + 1))

    zero, one = mpmath.mpf(0), mpmath.mpf(1)
    low = zero if k == 0 else _bisect(lambda p: (1 - cdf(k - 1, p)) - a, zero, one)
    high = one if k == n else _bisect(lambda p: a - cdf(k, p), zero, one)
    return low, high


@pytest.mark.parametrize("n", [5, 12])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_clopper_pearson_covers_exactly_for_small_n(n, level):
    # exact arithmetic: limits from the binomial tails in mpmath, coverage as a Fraction
    with mpmath.workdps(40):
        limits = [_cp_limits_mp(k, n, level) for k in range(n + 1)]
        lib_low, lib_high = interval_limits("clopper-pearson", np.arange(n + 1), n, level)
        assert np.allclose([float(lo) for lo, _ in limits], lib_low, rtol=1e-9, atol=1e-15)
        assert np.allclose([float(hi) for _, hi in limits], lib_high, rtol=1e-9, atol=1e-15)
        for p in (Fraction(1, 1000), Fraction(1, 37), Fraction(1, 7), Fraction(1, 3),
                  Fraction(1, 2)):  # fmt: skip
            cov = sum(
                (Fraction(int(mpmath.binomial(n, k))) * p**k * (1 - p) ** (n - k)
                 for k, (lo, hi) in enumerate(limits)
                 if lo <= mpmath.mpf(p.numerator) / p.denominator <= hi),
                Fraction(0),
            )  # fmt: skip
            assert cov >= Fraction(level).limit_denominator(1000)
            assert float(cov) == pytest.approx(
                exact_coverage("clopper-pearson", n, float(p), level, tail=0).coverage, abs=1e-12
            )


def test_clopper_pearson_at_or_above_the_level_on_a_grid_and_wilson_jeffreys_below():
    ns = [n for n in GRID_N if n <= 3000]
    table = coverage_table(levels=GRID_LEVELS, ns=ns, ps=GRID_P)
    for level in GRID_LEVELS:
        assert table.minimum("clopper-pearson", level).coverage >= level
        assert table.minimum("wilson", level).coverage < level - 0.005  # negative control
        assert table.minimum("jeffreys", level).coverage < level
    assert table.max_neglected <= 1e-12


@pytest.mark.slow
def test_clopper_pearson_covers_on_the_whole_published_grid():
    table = coverage_table()
    for level in GRID_LEVELS:
        assert table.minimum("clopper-pearson", level).coverage >= level
        assert table.minimum("wilson", level).coverage < level
    assert table.max_neglected <= 1e-12
    assert max(r.n for r in table.rows) == 10**6 and min(r.p for r in table.rows) == 1e-6


@pytest.mark.parametrize("method", sorted(INTERVALS))
def test_vectorised_limits_equal_the_scalar_kernels(method):
    for n in (1, 7, 500, 10**5):
        k = np.unique(np.linspace(0, n, 23).astype(int))
        low, high = interval_limits(method, k, n, 0.95)
        for i, kk in enumerate(k):
            e = binomial_estimate(int(kk), n, level=0.95, interval=method)
            assert low[i] == pytest.approx(e.low, rel=1e-12, abs=1e-300)
            assert high[i] == pytest.approx(e.high, rel=1e-12, abs=1e-300)


def test_jeffreys_is_the_beta_half_interval():
    from scipy import stats

    e = binomial_estimate(7, 40, level=0.9, interval="jeffreys")
    law = stats.beta(7.5, 33.5)  # Jeffreys: Beta(k + 1/2, n - k + 1/2), BCD 2001 sec. 4.1.2
    assert (e.low, e.high) == pytest.approx((law.ppf(0.05), law.ppf(0.95)), rel=1e-10)
    assert binomial_estimate(0, 40, interval="jeffreys").low == 0.0
    assert binomial_estimate(40, 40, interval="jeffreys").high == 1.0


def test_the_neglected_mass_bounds_the_difference():
    full = exact_coverage("wilson", 3000, 0.01, 0.95, tail=0)
    cut = exact_coverage("wilson", 3000, 0.01, 0.95, tail=1e-6)
    assert full.neglected == 0.0 and 0 < cut.neglected <= 1e-6
    assert cut.coverage <= full.coverage <= cut.coverage + cut.neglected


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(method="agresti"), "interval"),
        (dict(n=0), "n"),
        (dict(p=0.0), "p"),
        (dict(p=1.5), "p"),
        (dict(level=1.0), "level"),
        (dict(tail=0.1), "tail"),
    ],
)
def test_bad_arguments_are_refused_by_name(kw, match):
    args = dict(method="wilson", n=100, p=0.1, level=0.95) | kw
    with pytest.raises(ValueError, match=match):
        exact_coverage(**args)


def test_the_figure_data_and_plot(tmp_path):
    from matplotlib.figure import Figure

    from gctheory.plots import plot_binomial_coverage

    data = coverage_curves(ns=(100,), points=15)
    assert len(data["p"]) == 3 * 15
    ax = Figure().add_subplot()
    drawn = plot_binomial_coverage(data, ax=ax)
    assert drawn.ax is ax and drawn.artists
    cp = [c for m, c in zip(data["method"], data["coverage"]) if m == "clopper-pearson"]
    assert min(cp) >= 0.95
