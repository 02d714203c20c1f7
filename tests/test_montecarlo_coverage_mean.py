"""estimate_mean's interval on skewed data: Hall's skewness-corrected t interval, the
moments behind it, and the warnings of a sample that cannot support its level."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from gctheory.montecarlo import (
    UnreliableEstimateWarning,
    binomial_estimate,
    estimate_mean,
    mean_of_samples,
)
from gctheory.montecarlo.estimates import z_value
from gctheory.montecarlo.summaries import Moments, hall_interval, mean_estimate


def _exponential(rng, size):
    return rng.exponential(1.0, size)


def _lognormal(rng, size):
    return rng.lognormal(0.0, 1.5, size)


def _normal(rng, size):
    return rng.normal(0.0, 1.0, size)


def _upper(covered: int, runs: int) -> float:
    return binomial_estimate(covered, runs, level=0.99, interval="clopper-pearson").high


def test_exponential_at_30_draws_covers_and_the_clt_interval_does_not():
    # before: the CLT interval, 90.5% at a stated 95% (the negative control below)
    hall = clt = 0
    z = z_value(0.95)
    for seed in range(400):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnreliableEstimateWarning)
            e = estimate_mean(_exponential, 30, rng=seed, level=0.95, progress=False)
        hall += e.contains(1.0)
        half = z * e.std / math.sqrt(30)
        clt += e.value - half <= 1.0 <= e.value + half
    assert e.method == "hall"
    assert _upper(hall, 400) >= 0.95  # measured 93.0% here (seeds 0-399)
    assert _upper(clt, 400) < 0.95  # the plain interval falls short beyond sampling error


def _warned(sampler, trials, seeds) -> int:
    count = 0
    for seed in seeds:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            estimate_mean(sampler, trials, rng=seed, level=0.95, progress=False)
        count += any(issubclass(w.category, UnreliableEstimateWarning) for w in caught)
    return count


def test_lognormal_at_200_draws_warns_and_a_normal_sample_does_not():
    # before: no run warned (the tail check ran from 2,000 draws on); Hall's interval covers
    # about 91.5% at 95% there, so most runs must say the sample cannot support the level
    assert _warned(_lognormal, 200, range(60)) >= 48
    assert _warned(_normal, 200, range(60)) <= 3  # the negative control


def test_too_few_draws_warn():
    with pytest.warns(UnreliableEstimateWarning, match="too few draws: 10 < 20"):
        estimate_mean(_normal, 10, rng=1, progress=False)


def test_a_large_kurtosis_warns_below_the_tail_check():
    # 50 draws (under the Hill check's 200): one spike in 50 has an excess kurtosis of
    # about 46, past sqrt(50); the same count of normal draws does not warn (control)
    spike = np.zeros(50)
    spike[7] = 1.0
    with pytest.warns(UnreliableEstimateWarning, match="sample's tail: its excess kurtosis"):
        mean_of_samples(spike, level=0.95)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean_of_samples(np.random.default_rng(5).standard_normal(50), level=0.95)


def test_an_infinite_mean_warns_below_2000_draws():
    pareto = functools.partial(_pareto, a=0.5)
    with pytest.warns(UnreliableEstimateWarning, match="mean may be infinite"):
        est = estimate_mean(pareto, 400, rng=2, progress=False)
    assert est.diagnostics.tail_index_low < 1


def _pareto(rng, size, a):
    return rng.pareto(a, size) + 1.0


def test_merged_higher_moments_equal_the_direct_sums():
    x = np.random.default_rng(4).lognormal(0.0, 1.0, 1001) + 1e6  # an offset: stability
    m = Moments.of(x[:300]).merge(Moments.of(x[300:301])).merge(Moments.of(x[301:]))
    d = x - x.mean()
    for got, want in ((m.m2, d @ d), (m.m3, np.sum(d**3)), (m.m4, np.sum(d**4))):
        assert got == pytest.approx(want, rel=1e-9)


def test_hall_interval_reduces_to_t_without_skew_and_moves_with_it():
    lo, hi = hall_interval(25, 3.0, 2.0, 0.0, 0.95)
    q = stats.t.ppf(0.975, 24)
    assert (lo, hi) == pytest.approx((3.0 - q * 2.0 / 5.0, 3.0 + q * 2.0 / 5.0), rel=1e-12)
    lo_s, hi_s = hall_interval(25, 3.0, 2.0, 1.5, 0.95)  # right skew: the interval moves right
    assert lo_s > lo and hi_s > hi
    tiny = hall_interval(25, 3.0, 2.0, 1e-9, 0.95)  # the series branch: continuous at 0
    assert tiny == pytest.approx((lo, hi), rel=1e-8)


def test_same_seed_same_interval_whatever_the_chunks_merge_order():
    a = estimate_mean(_exponential, 1000, rng=7, chunk_size=100, progress=False)
    b = estimate_mean(_exponential, 1000, rng=7, chunk_size=100, progress=False)
    assert (a.low, a.high) == (b.low, b.high)


def test_mean_of_samples_is_the_engine_interval_and_validates():
    x = np.random.default_rng(3).exponential(1.0, 50)
    e = mean_of_samples(x, level=0.9)
    assert (e.low, e.high) == (mean_estimate(Moments.of(x), 0.9).low,
                               mean_estimate(Moments.of(x), 0.9).high)  # fmt: skip
    with pytest.raises(ValueError, match="x must"):
        mean_of_samples([1.0])
    with pytest.raises(ValueError, match="finite"):
        mean_of_samples([1.0, math.nan])
    with pytest.raises(ValueError, match="level"):
        mean_of_samples(x, level=1.5)
