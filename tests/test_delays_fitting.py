"""Maximum-likelihood fits of gctheory.delays.fitting on samples with known parameters,
and the goodness-of-fit tests with their negative control."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gctheory import delays as dl
from gctheory import runtime

# (law, the true law, its parameters by the names of LAW_PARAMETERS, sample size)
CASES = [
    ("shifted_exp", stats.expon(loc=0.6, scale=0.25), {"shift": 0.6, "mean": 0.25}, 2000),
    ("pareto", stats.pareto(3.0, scale=0.8), {"scale": 0.8, "shape": 3.0}, 2000),
    (
        "weibull",
        stats.weibull_min(2.5, loc=0.5, scale=1.0),
        {"shape": 2.5, "loc": 0.5, "scale": 1.0},
        3000,
    ),
    ("gamma", stats.gamma(3.0, loc=0.5, scale=0.3), {"shape": 3.0, "loc": 0.5, "scale": 0.3}, 3000),
    (
        "lognormal",
        stats.lognorm(0.4, loc=0.5, scale=1.0),
        {"sigma": 0.4, "loc": 0.5, "scale": 1.0},
        3000,
    ),
    (
        "mixture",
        dl.body_tail(0.05, 0.3, 0.5, 1.0, 2.0, 4.0),
        {"w": 0.05, "sigma": 0.3, "loc": 0.5, "scale": 1.0, "xi": 2.0},
        3000,
    ),
]


@pytest.mark.parametrize("law, true, params, n", CASES, ids=[c[0] for c in CASES])
def test_every_fit_recovers_its_parameters_within_the_interval(law, true, params, n):
    x = true.rvs(size=n, random_state=np.random.default_rng(11))
    fit = dl.fit_law(x, law, level=0.99)
    assert fit.converged, fit.message
    for name, value in params.items():
        lo, hi = fit.ci[name]
        assert lo <= value <= hi, (name, value, fit.ci[name])
    # negative control: an interval excludes a value 30% away
    name, value = next(iter(params.items()))
    assert not fit.contains(name, 1.3 * value)
    # the fitted law is a frozen scipy distribution that the runtime module takes
    assert math.isfinite(runtime.scheme_expected_time("cyclic-mds", fit.dist, 8, 2))
    assert fit.aic == pytest.approx(2 * len(dl.LAW_PARAMETERS[law]) - 2 * fit.loglik)


def test_goodness_of_fit_rejects_a_wrong_law_and_keeps_the_right_one():
    x = stats.lognorm(0.6, loc=0.5, scale=0.4).rvs(size=400, random_state=np.random.default_rng(2))
    right = dl.goodness_of_fit(dl.fit_law(x, "lognormal"), x, bootstrap=49, rng=3)
    wrong = dl.goodness_of_fit(dl.fit_law(x, "shifted_exp"), x, bootstrap=49, rng=3)
    assert right.ks_p > 0.05 and right.ad_p > 0.05
    # negative control: the misspecified exponential is rejected (1/50 is the smallest p)
    assert wrong.ks_p <= 0.02 and wrong.ad_p <= 0.02
    assert right.bootstrap == 49 and right.failed_refits == 0


def test_a_fit_that_does_not_converge_says_so():
    # Weibull with shape < 1 and a free shift: the likelihood is unbounded as loc -> min
    x = stats.weibull_min(0.6, loc=1.0).rvs(size=500, random_state=np.random.default_rng(4))
    with pytest.raises(dl.FitConvergenceError, match="keeps increasing as the shift approaches"):
        dl.fit_law(x, "weibull")
    fits = dl.fit_laws(x, ("weibull", "shifted_exp"))
    assert not fits[0].converged and "keeps increasing" in fits[0].message
    assert fits[1].converged  # one law failing does not hide the others
    with pytest.raises(dl.FitConvergenceError, match="all times are equal"):
        dl.fit_law(np.ones(20), "shifted_exp")


def test_bad_samples_and_options_are_refused():
    with pytest.raises(ValueError, match="at least 10 times"):
        dl.fit_law([1.0, 2.0], "gamma")
    with pytest.raises(ValueError, match="element 3 is -1.0"):
        dl.fit_law([1.0] * 3 + [-1.0] + [2.0] * 10, "gamma")
    with pytest.raises(ValueError, match="law must be one of"):
        dl.fit_law(np.arange(1, 20.0), "cauchy")
    with pytest.raises(ValueError, match="bootstrap must lie in"):
        dl.fit_laws(np.arange(1, 20.0), bootstrap=-1)


def test_weibull_shape_interval_is_the_profile_likelihood_cut():
    from gctheory.delays._mle import _weibull_profile

    x = 0.5 + 2.0 * np.random.default_rng(5).weibull(1.5, 100)
    fit = dl.fit_law(x, "weibull", level=0.95)
    k, (lo, hi) = fit.params["shape"], fit.ci["shape"]
    assert lo < k < hi
    # at both ends the likelihood ratio equals the chi-square(1) quantile
    cut = fit.loglik - 0.5 * stats.chi2.ppf(0.95, 1)
    assert _weibull_profile(x, lo) == pytest.approx(cut, abs=1e-6)
    assert _weibull_profile(x, hi) == pytest.approx(cut, abs=1e-6)
    assert _weibull_profile(x, k) == pytest.approx(fit.loglik, abs=1e-8)  # the point fit's max
    # skewed to the right (where the Wald interval, symmetric, missed the truth)
    assert hi - k > k - lo
    # negative control: outside the interval the profile is below the cut
    assert _weibull_profile(x, 1.05 * hi) < cut and _weibull_profile(x, 0.95 * lo) < cut
    # the point estimates are the ones before the change (the fit itself is untouched)
    assert fit.dist.args[0] == k and fit.dist.kwds == {
        "loc": fit.params["loc"],
        "scale": fit.params["scale"],
    }
