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


def test_weibull_shape_interval_above_max_n_is_the_profile_likelihood_cut(monkeypatch):
    from gctheory.delays import _weibull_shape as ws
    from gctheory.delays._mle import _weibull_profile

    monkeypatch.setattr(ws, "MAX_N", 50)  # the large-n path, at n = 100
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


# --- the Weibull shape's Monte Carlo interval, piece by piece (its coverage: test_calibration)


def test_many_fits_at_once_are_the_point_fit():
    from gctheory.delays import _weibull_shape as ws
    from gctheory.delays._mle import _inner_weibull, _profile_loc

    rng = np.random.default_rng(8)
    X = np.array([0.5 + 2.0 * rng.weibull(c, 40) for c in (1.2, 1.5, 2.5, 4.0, 1.5, 2.0)])
    got = ws._fit_rows(X)

    def point(x):
        try:
            return _profile_loc(x, _inner_weibull)[2][0]
        except dl.FitConvergenceError:
            return 0.0  # refused: counted as 0 (below every estimate)

    want = [point(x) for x in X]
    assert got == pytest.approx(want, rel=1e-6) and sum(w > 0 for w in want) >= 4
    # the estimate is equivariant: the same after any shift and scale of the data (so its
    # law depends on the true shape and n only), but not after a power (negative control)
    assert ws._fit_rows(3.0 + 0.1 * X) == pytest.approx(got, rel=1e-6)
    assert not np.allclose(ws._fit_rows(X**2), got, rtol=1e-2)
    # a sample the point fit refuses (no maximum with a free shift) counts as 0
    x = stats.weibull_min(0.6, loc=1.0).rvs(size=500, random_state=np.random.default_rng(4))
    with pytest.raises(dl.FitConvergenceError):
        _profile_loc(x, _inner_weibull)
    assert ws._fit_rows(x[None, :])[0] == 0.0


def test_the_estimates_law_is_seeded_cached_and_increasing_in_the_shape():
    from gctheory.delays import _weibull_shape as ws

    n, R = 30, 200
    laws = [ws.shape_law(n, j, R) for j in (5, 6, 7, 8)]  # shapes 2.38, 2.83, 3.36, 4
    assert ws.shape_law(n, 6, R) is laws[1]  # cached per n
    ws.shape_law.cache_clear()
    assert np.array_equal(ws.shape_law(n, 6, R), laws[1])  # seeded: the same draws again
    assert not laws[1].flags.writeable
    # common random numbers: the quantiles increase with the true shape (the lowest stays
    # 0 while over 2.5% of the fits are refused: 3.5% at shape 2.83, n = 30)
    qs = np.array([np.quantile(v, [0.025, 0.5, 0.975]) for v in laws])
    assert np.all(np.diff(qs[:, 1:], axis=0) > 0) and np.all(np.diff(qs[:, 0]) >= 0)
    assert (laws[0] == 0).mean() > (laws[-1] == 0).mean()  # refusals fall as the shape grows
    # the pivot of the two-parameter fit: k_hat / k, its median near 1 (biased up at small n)
    piv = ws.pivot_law(n, R)
    assert 0.95 < np.median(piv) < 1.25 and np.all(np.diff(piv) >= 0)
    assert ws.pivot_law(n, R) is piv


def test_the_interval_inverts_the_estimates_quantiles():
    from gctheory.delays import _weibull_shape as ws

    # 60 replicates per shape (the other tests' 200 cost 2.7 s of CPU here): the checks are
    # of how the interval inverts the quantiles of whatever law it reads, exact at any size
    n, R, level = 30, 60, 0.9
    x = 0.5 + 2.0 * np.random.default_rng(3).weibull(1.5, n)
    k = ws._fit_rows(x[None, :])[0]
    lo, hi = ws.shape_interval(x, k, False, level, replicates=R)
    assert lo < k < hi

    def q(c, p):  # the p-quantile of k_hat at shape c, interpolated as the interval does
        t = 4 * math.log2(c)
        j = math.floor(t)
        a, b = (float(np.quantile(ws.shape_law(n, i, R), p)) for i in (j, j + 1))
        return a + (t - j) * (b - a)

    # at the low end k_hat is the upper quantile, at the high end the lower one
    assert q(lo, 0.95) == pytest.approx(k, rel=1e-9)
    assert q(hi, 0.05) == pytest.approx(k, rel=1e-9)
    # negative control: just outside the ends the observed estimate is excluded
    assert q(lo / 1.01, 0.95) < k and q(hi * 1.01, 0.05) > k
    # beyond the Monte Carlo's shapes the ends are conservative: an estimate no shape up to
    # 32 excludes from above gets no upper bound
    assert ws.shape_interval(x, 500.0, False, level, replicates=R)[1] == math.inf
    # the shift at its bound: the two-parameter pivot's interval (Thoman, Bain & Antle)
    piv = ws.pivot_law(n, R)
    assert ws.shape_interval(x, k, True, level, replicates=R) == pytest.approx(
        (k / np.quantile(piv, 0.95), k / np.quantile(piv, 0.05))
    )


def test_the_two_parameter_pivot_is_exact():
    # log-data of Weibull(k) are a location-scale family: the estimate of the shape from
    # X^(1/k) (X ~ Weibull(1)) is k times the estimate from X, for every sample
    from gctheory.delays import _weibull_shape as ws

    lx = np.log(np.random.default_rng(6).standard_exponential((5, 30)))
    base = ws._shape_rows(lx, np.ones(5))
    for k in (0.7, 2.5):
        assert ws._shape_rows(lx / k, np.ones(5)) == pytest.approx(base * k, rel=1e-9)


def test_shape_rows_equals_its_unshared_form_bit_for_bit():
    # issue 27: the Newton step shares e * z between the two moments; (e * z) * z is what
    # e * z * z computed, so every iterate and every root is the same float
    from gctheory.delays import _weibull_shape as ws

    def unshared(ly, k):
        lm, top = ly.mean(axis=1), ly.max(axis=1)
        z = ly - top[:, None]
        for _ in range(80):
            e = np.exp(k[:, None] * z)
            s0 = e.sum(axis=1)
            m1 = (e * z).sum(axis=1) / s0
            m2 = (e * z * z).sum(axis=1) / s0
            h = m1 + top - 1 / k - lm
            step = h / (m2 - m1 * m1 + 1 / k**2)
            new = np.where(k - step <= 0, k / 2, k - step)
            done = bool(np.all(np.abs(new - k) <= 1e-12 * k))
            k = new
            if done:
                break
        return k

    rng = np.random.default_rng(27)
    for shape in (0.5, 1.5, 8.0):
        ly = np.log(rng.weibull(shape, (200, 100)) + 1e-3)
        want = unshared(ly, np.ones(200))
        assert np.array_equal(ws._shape_rows(ly, np.ones(200)), want)
        # negative control: the other association order is not the same float everywhere
        e = np.exp(ly - ly.max(axis=1)[:, None])
        z = ly - ly.max(axis=1)[:, None]
        assert not np.array_equal(((e * z) * z).sum(axis=1), (e * (z * z)).sum(axis=1))


def test_mixture_gradient_equals_its_unshared_form_bit_for_bit():
    # issue 27: the gradient reuses the body's log and z from the likelihood terms; with
    # loc below the sample minimum they are the floats it recomputed before
    import math

    from gctheory.delays import _mle

    def unshared(theta, x, lx, t0):
        w, sig, loc, scale, xi = theta
        n = x.size
        lb, lt = _mle._mix_terms(x, lx, w, sig, loc, scale, xi, t0)
        tot = np.logaddexp(lb, lt)
        r = np.exp(lt - tot)
        q = 1 - r
        y = x - loc
        z = (np.log(y) - math.log(scale)) / sig
        g = np.array(
            [
                float(np.sum(r / w - q / (1 - w))),
                float(np.sum(q * (z**2 - 1))) / sig,
                float(np.sum(q * (z / sig + 1) / y)),
                float(np.sum(q * z)) / (sig * scale),
                float(np.sum(r * (1 / xi + math.log(t0) - lx))),
            ]
        )
        return -float(np.sum(tot)) / n, -g / n

    rng = np.random.default_rng(27)
    x = 0.3 + rng.lognormal(0.0, 0.5, 3000)
    x[:60] = 5 + rng.pareto(1.5, 60)
    lx = np.log(x)
    for theta in ([0.02, 0.5, 0.1, 1.0, 1.5], [0.3, 0.2, 0.29, 2.0, 0.7], [0.5, 1.0, 0.0, 1.0, 3]):
        f, g = _mle._mix_nll_grad(np.array(theta), x, lx, 4.0)
        f0, g0 = unshared(np.array(theta), x, lx, 4.0)
        assert f == f0 and np.array_equal(g, g0)
    # and the likelihood terms alone are unchanged where loc is above some times
    lb, lt = _mle._mix_terms(x, lx, 0.1, 0.5, 0.5, 1.0, 1.5, 4.0)
    assert np.isneginf(lb[x <= 0.5]).all() and np.isfinite(lb[x > 0.5]).all()
