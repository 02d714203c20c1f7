"""Tests for gctheory.order_stats: closed forms vs quadrature vs mpmath vs Monte Carlo."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gctheory.order_stats import (
    InfiniteMomentWarning,
    UnreliableMonteCarloWarning,
    expected_grouped_completion,
    expected_order_statistic,
    exponential_log_approx,
    grouped_completion_mc,
    grouped_completion_moments,
    halbawi_proposition1_error,
    harmonic_difference,
    order_statistic_mc,
    order_statistic_moments,
    order_statistic_reference,
    order_statistic_variance,
    pareto_limit,
    xu_log_approx_error,
)

PARETO = stats.pareto(1.1, scale=0.001)  # halbawi2017 Section 6 delay model
SHIFTED = stats.expon(loc=0.05, scale=0.02)  # xu2021 Section V-B


# ---------------------------------------------------------------- closed forms


def test_exponential_harmonic_small_cases():
    # closed form H_n - H_{n-k}: E[max of 3 Exp(1)] = 1 + 1/2 + 1/3
    assert expected_order_statistic(stats.expon(), 3, 3) == pytest.approx(11 / 6, rel=1e-15)
    # min of n Exp(1) is Exp(n): mean 1/n, variance 1/n^2
    m = order_statistic_moments(stats.expon(), 1, 7)
    assert m.mean == pytest.approx(1 / 7, rel=1e-15)
    assert m.variance == pytest.approx(1 / 49, rel=1e-15)


def test_pareto_max_of_one_is_mean():
    # n = 1: the Pareto mean t0 xi / (xi - 1)
    d = stats.pareto(3.0, scale=2.0)
    assert expected_order_statistic(d, 1, 1) == pytest.approx(3.0, rel=1e-13)  # 2*3/2
    # variance t0^2 xi / ((xi-1)^2 (xi-2)) = 4*3/(4*1) = 3
    assert order_statistic_variance(d, 1, 1) == pytest.approx(3.0, rel=1e-12)


@pytest.mark.parametrize("k,n", [(1, 1), (3, 10), (68, 80), (80, 80), (999, 1000)])
def test_exponential_closed_vs_mpmath_closed_and_quad(k, n):
    got = order_statistic_moments(SHIFTED, k, n)
    ref = order_statistic_reference("exponential", k, n, mu=0.02, delta=0.05)
    assert got.mean == pytest.approx(float(ref), rel=1e-13)
    ref_q = order_statistic_reference(
        "exponential", k, n, mu=0.02, delta=0.05, method="quad", dps=20
    )
    assert float(ref) == pytest.approx(float(ref_q), rel=1e-12)


@pytest.mark.parametrize("k,n", [(1, 1), (5, 10), (68, 80), (33, 80), (79, 80)])
def test_pareto_closed_vs_mpmath_quad(k, n):
    got = expected_order_statistic(PARETO, k, n)
    ref_q = order_statistic_reference("pareto", k, n, t0=0.001, xi=1.1, method="quad", dps=20)
    assert got == pytest.approx(float(ref_q), rel=1e-10)


def test_pareto_large_n_log_gamma():
    # n in the thousands: gamma itself overflows, log-gamma does not
    got = expected_order_statistic(PARETO, 4000, 5000)
    ref = order_statistic_reference("pareto", 4000, 5000, t0=0.001, xi=1.1, dps=40)
    assert got == pytest.approx(float(ref), rel=1e-10)
    # the exponential closed form at n = 10^6 (digamma path, k > 10^5)
    e = expected_order_statistic(stats.expon(), 500_000, 1_000_000)
    assert e == pytest.approx(math.log(2), rel=1e-5)  # H_n - H_{n/2} -> log 2


@pytest.mark.parametrize(
    "dist",
    [SHIFTED, PARETO, stats.pareto(2.5, loc=1.0, scale=0.5)],
    ids=["shifted-exp", "pareto-1.1", "pareto-loc"],
)
@pytest.mark.parametrize("k,n", [(1, 5), (4, 9), (12, 12)])
def test_quad_equals_closed_form(dist, k, n):
    closed = order_statistic_moments(dist, k, n)
    quad = order_statistic_moments(dist, k, n, method="quad")
    assert quad.mean == pytest.approx(closed.mean, rel=1e-9)
    if math.isfinite(closed.variance):
        assert quad.variance == pytest.approx(closed.variance, rel=1e-6)


def test_generic_distributions_by_quadrature():
    # E[max of 2 N(0,1)] = 1/sqrt(pi) (closed form)
    assert expected_order_statistic(stats.norm(), 2, 2) == pytest.approx(
        1 / math.sqrt(math.pi), rel=1e-9
    )
    # Uniform(0,1): E[X_(k:n)] = k/(n+1), Var = k(n-k+1)/((n+1)^2 (n+2)) (Beta(k, n-k+1))
    m = order_statistic_moments(stats.uniform(), 3, 7)
    assert m.mean == pytest.approx(3 / 8, rel=1e-10)
    assert m.variance == pytest.approx(3 * 5 / (64 * 9), rel=1e-8)


def test_infinite_mean_is_inf_with_reason():
    # n - k + 1 = 1 <= 1/xi for xi = 0.9: the maximum has an infinite mean
    d = stats.pareto(0.9, scale=1.0)
    m = order_statistic_moments(d, 10, 10)
    assert math.isinf(m.mean) and "n - k + 1 = 1" in m.reason
    with pytest.warns(InfiniteMomentWarning, match="infinite"):
        assert math.isinf(expected_order_statistic(d, 10, 10))
    # the 9th of 10 is finite: n - k + 1 = 2 > 1/0.9
    assert math.isfinite(expected_order_statistic(d, 9, 10))
    assert math.isinf(order_statistic_reference("pareto", 10, 10, t0=1, xi=0.9))
    # infinite variance only
    m = order_statistic_moments(PARETO, 80, 80)
    assert math.isfinite(m.mean) and math.isinf(m.variance)


def test_quad_divergence_reported():
    # a Cauchy maximum of 2 has an infinite mean; quadrature must not return a number
    m = order_statistic_moments(stats.cauchy(), 2, 2)
    assert math.isinf(m.mean) and "did not converge" in m.reason


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "args,match",
    [
        ((stats.expon(), 0, 5), r"k must lie in \[1, 5\]"),
        ((stats.expon(), 6, 5), r"k must lie in \[1, 5\]"),
        ((stats.expon(), 1.5, 5), "k must be an integer"),
        ((stats.expon(scale=-1.0), 1, 5), "scale must be positive"),
        ((stats.pareto(-1.0), 1, 5), "xi must be > 0"),
        ((stats.pareto(0.0), 1, 5), "xi must be > 0"),
        ((stats.poisson(3.0), 1, 5), "density"),
        (("expon", 1, 5), "frozen scipy.stats"),
    ],
)
def test_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        order_statistic_moments(*args)


def test_bad_alpha():
    for a in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\]"):
            pareto_limit(0.001, 1.1, a)
    with pytest.raises(ValueError, match=r"t0 must lie in \(0, inf"):
        pareto_limit(0.0, 1.1, 0.5)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 300),
    data=st.data(),
    xi=st.floats(0.2, 5.0),
)
def test_pareto_monotone_in_k_and_finite_rule(n, data, xi):
    k = data.draw(st.integers(1, n))
    m = order_statistic_moments(stats.pareto(xi, scale=1.0), k, n)
    assert math.isinf(m.mean) == ((n - k + 1) * xi <= 1)
    if k > 1 and math.isfinite(m.mean):
        prev = order_statistic_moments(stats.pareto(xi, scale=1.0), k - 1, n)
        assert prev.mean < m.mean
        assert prev.mean >= 1.0  # support starts at t0 = 1


# ---------------------------------------------------------------- approximations


def test_proposition1_error_shrinks_with_n():
    errs = [abs(halbawi_proposition1_error(1.0, 1.1, 0.25, n).rel_error) for n in (80, 800, 8000)]
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 0.01


def test_xu_log_approx():
    # log(10/3) vs H_10 - H_3 (closed form)
    a = xu_log_approx_error(0.05, 0.02, 7, 10)
    assert a.approx == pytest.approx(0.05 + 0.02 * math.log(10 / 3), rel=1e-15)
    h = sum(1 / j for j in range(4, 11))  # H_10 - H_3
    assert a.exact == pytest.approx(0.05 + 0.02 * h, rel=1e-15)
    assert exponential_log_approx(0.0, 1.0, 10, 10) == pytest.approx(math.log(10))
    # K = N: log N underestimates H_N by about Euler's gamma
    b = xu_log_approx_error(0.0, 1.0, 1000, 1000)
    assert b.abs_error == pytest.approx(-0.5772, abs=1e-3)  # H_n - log n -> gamma


def test_harmonic_difference_paths_agree():
    n, k = 300_000, 200_000
    with mp.workdps(30):
        ref = mp.harmonic(n) - mp.harmonic(n - k)
    assert harmonic_difference(n, k) == pytest.approx(float(ref), rel=1e-10)


# ---------------------------------------------------------------- grouped


@pytest.mark.parametrize(
    "dist", [SHIFTED, PARETO, stats.gamma(2.0)], ids=["exp", "pareto", "gamma"]
)
@pytest.mark.parametrize("groups,r,wait", [(4, 5, 1), (3, 4, 2), (1, 6, 3)])
def test_grouped_closed_vs_quad(dist, groups, r, wait):
    a = grouped_completion_moments(dist, groups, r, wait)
    b = grouped_completion_moments(dist, groups, r, wait, method="quad")
    assert b.mean == pytest.approx(a.mean, rel=1e-8)


def test_grouped_exponential_closed_form():
    # min of r Exp(mean mu) is Exp(mean mu/r); max of G: (mu/r) H_G  (zhang2020 (28))
    got = expected_grouped_completion(stats.expon(scale=2.0), 5, 4, 1)
    assert got == pytest.approx(0.5 * (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5), rel=1e-14)
    # one group = plain order statistic; groups of one = maximum of G
    assert expected_grouped_completion(PARETO, 1, 10, 4) == expected_order_statistic(PARETO, 4, 10)
    assert expected_grouped_completion(PARETO, 7, 1, 1) == pytest.approx(
        expected_order_statistic(PARETO, 7, 7), rel=1e-12
    )


def test_grouped_infinite():
    with pytest.warns(InfiniteMomentWarning):
        assert math.isinf(expected_grouped_completion(stats.pareto(0.5), 3, 2, 1))


# ---------------------------------------------------------------- Monte Carlo twins


@pytest.mark.parametrize(
    "dist,k,n",
    [
        (SHIFTED, 7, 10),
        (SHIFTED, 10, 10),
        (PARETO, 68, 80),
        (PARETO, 33, 80),
        (stats.gamma(2.0), 3, 9),
    ],
)
def test_mc_contains_exact(dist, k, n):
    exact = expected_order_statistic(dist, k, n)
    est = order_statistic_mc(dist, k, n, 20_000, rng=20261122, level=0.999)
    assert est.contains(exact), (est, exact)
    # negative control: a 2% shifted target is rejected (the interval is narrow enough)
    assert not est.contains(exact * 1.02)


def test_mc_reproducible():
    a = order_statistic_mc(SHIFTED, 7, 10, 5000, rng=7)
    b = order_statistic_mc(SHIFTED, 7, 10, 5000, rng=7, chunk_size=1000)
    c = order_statistic_mc(SHIFTED, 7, 10, 5000, rng=7)
    assert a == c
    assert b.trials == a.trials


def test_mc_grouped_contains_exact():
    for dist, g, r, w in [(SHIFTED, 4, 5, 1), (PARETO, 3, 4, 2), (stats.gamma(2.0), 2, 6, 5)]:
        exact = expected_grouped_completion(dist, g, r, w)
        est = grouped_completion_mc(dist, g, r, w, 20_000, rng=11, level=0.999)
        assert est.contains(exact), (dist.dist.name, est, exact)
        assert not est.contains(exact * 1.03)  # negative control


def test_mc_infinite_variance_warns():
    with pytest.warns(UnreliableMonteCarloWarning, match="variance is infinite"):
        order_statistic_mc(PARETO, 80, 80, 1000, rng=1)
    with pytest.warns(UnreliableMonteCarloWarning, match="infinite mean"):
        order_statistic_mc(stats.pareto(0.9), 10, 10, 100, rng=1)


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 60),
    data=st.data(),
    xi=st.floats(2.1, 6.0),
    loc=st.floats(-1.0, 1.0),
)
def test_quad_path_agrees_with_closed_forms_fuzz(n, data, xi, loc):
    k = data.draw(st.integers(1, n))
    for dist in (stats.pareto(xi, loc=loc, scale=0.5), stats.expon(loc=loc, scale=0.7)):
        closed = order_statistic_moments(dist, k, n)
        quad = order_statistic_moments(dist, k, n, method="quad")
        assert quad.mean == pytest.approx(closed.mean, rel=1e-8, abs=1e-10)
        assert quad.variance == pytest.approx(closed.variance, rel=1e-5, abs=1e-10)


def test_harmonic_difference_and_log_approx_refuse_bad_input():
    from gctheory.order_stats import exponential_log_approx, harmonic_difference

    assert harmonic_difference(4, 2) == pytest.approx(1 / 3 + 1 / 4)  # closed form H_4 - H_2
    with pytest.raises(ValueError, match=r"k must lie in \[0, 10\]"):
        harmonic_difference(10, 11)
    with pytest.raises(ValueError, match=r"power must lie in \[1, 1000\]"):
        harmonic_difference(10, 3, 0)
    with pytest.raises(ValueError, match=r"delta .* must lie in \[0, inf"):
        exponential_log_approx(-0.05, 0.02, 7, 10)


# ------------------------------------------- large n: precision and the support bound


@pytest.mark.parametrize("n", [10**8, 10**9, 10**10, 10**15])
def test_pareto_minimum_keeps_full_precision_at_large_n(n):
    # issue 12 item 2: the log-gamma difference lost 2e-7 absolute at n = 1e8 and put the
    # mean of the minimum below the scale t0 = 0.001, which is impossible.
    # closed form: the minimum of n Pareto(t0, xi) is Pareto(t0, n xi), mean t0 n xi / (n xi - 1)
    xi, t0 = 1.1, 0.001
    exact = t0 * (n * xi) / (n * xi - 1)
    m = order_statistic_moments(stats.pareto(xi, scale=t0), 1, n)
    assert m.mean > t0
    assert m.mean == pytest.approx(exact, rel=1e-15)
    # closed form: variance of Pareto(t0, a) is t0^2 a / ((a - 1)^2 (a - 2)), a = n xi
    a = n * xi
    assert m.variance == pytest.approx(t0 * t0 * a / ((a - 1) ** 2 * (a - 2)), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    log_n=st.floats(0, 18),
    frac=st.floats(0, 1),
    xi=st.floats(0.05, 50),
    t0=st.floats(1e-6, 1e6),
)
def test_pareto_closed_form_matches_mpmath_and_support(log_n, frac, xi, t0):
    n = max(1, int(10**log_n))
    k = min(n, 1 + int(frac * (n - 1)))  # float64 rounding could give n + 1 past 2^53
    m = order_statistic_moments(stats.pareto(xi, scale=t0), k, n)
    if (n - k + 1) * xi <= 1:
        assert math.isinf(m.mean)
        return
    ref = order_statistic_reference("pareto", k, n, t0=t0, xi=xi, dps=60 + 3 * len(str(n)))
    assert m.mean >= t0  # support bound: every draw is >= t0
    assert m.mean == pytest.approx(float(ref), rel=1e-13)  # mpmath closed form, 60+ digits
    assert m.variance >= 0


@settings(max_examples=60, deadline=None)
@given(log_n=st.floats(0, 18), frac=st.floats(0, 1), mu=st.floats(1e-6, 1e6))
def test_exponential_closed_form_matches_mpmath_and_support(log_n, frac, mu):
    n = max(1, int(10**log_n))
    # frac * (n - 1) rounds up past n - 1 for n near 1e16 in float64: clamp to k <= n
    k = min(n, 1 + int(frac * (n - 1)))
    m = order_statistic_moments(stats.expon(loc=2.0, scale=mu), k, n)
    assert m.mean >= 2.0 and m.variance > 0  # support bound: every draw is >= delta = 2
    with mp.workdps(40 + 2 * len(str(n))):  # mpmath: H_n - H_{n-k} = psi(n+1) - psi(n-k+1)
        ref_h = mp.psi(0, n + 1) - mp.psi(0, n - k + 1)
        ref_v = mp.psi(1, n - k + 1) - mp.psi(1, n + 1)
    assert m.mean - 2.0 == pytest.approx(mu * float(ref_h), rel=1e-12)
    assert m.variance == pytest.approx(mu * mu * float(ref_v), rel=1e-12)


def test_grouped_and_asymptotic_closed_forms_respect_the_support():
    # every closed form of the module, at sizes where rounding used to matter
    t0, xi = 0.001, 1.1
    par = stats.pareto(xi, scale=t0)
    for groups, r in [(10**6, 3), (10**8, 1), (2, 10**9)]:
        assert expected_grouped_completion(par, groups, r) >= t0
        assert expected_grouped_completion(stats.expon(loc=1.0), groups, r) >= 1.0
    assert pareto_limit(t0, xi, 1.0) == t0  # alpha = 1: the limit is the scale itself
    assert exponential_log_approx(0.05, 0.02, 1, 10**12) >= 0.05
    assert harmonic_difference(10**15, 1) == pytest.approx(1e-15, rel=1e-14)  # 1/n
    assert harmonic_difference(10**15, 10**6) == pytest.approx(1e-9, rel=1e-8)  # ~ k/n


def test_orderstat_cli_keeps_the_support_bound(capsys):
    from gctheory.cli import main

    assert main(["orderstat", "--n", "100000000", "--k", "1", "--format", "json"]) == 0
    import json

    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["mean"] > 0.001  # Pareto(0.001, 1.1): no draw is below the scale


@pytest.mark.parametrize(
    "route, dist",
    [
        ("_quad_moments", stats.chi2(3.0)),  # adaptive quad: no quantile route for chi2
        ("quantile_moments", stats.gamma(2.0)),  # the Beta-weighted quantile integral
    ],
)
def test_quadrature_result_outside_the_support_is_refused(monkeypatch, route, dist):
    # the integrals are called from the quadrature submodule: patch them there
    import gctheory.order_stats.quadrature as quad

    def broken(*args, **kwargs):
        return quad.OrderStatMoments(-1.0, 0.5, "quad")

    monkeypatch.setattr(quad, route, broken)
    with pytest.raises(ValueError, match="outside the support"):
        order_statistic_moments(dist, 3, 10)


def test_mc_refuses_a_trial_wider_than_memory_before_drawing():
    with pytest.raises(ValueError, match="GiB"):
        order_statistic_mc(stats.expon(), 1, 10**9, 10, rng=1)
    with pytest.raises(ValueError, match="GiB"):
        grouped_completion_mc(stats.expon(), 10**5, 10**3, 1, 10, rng=1)


@pytest.mark.parametrize(
    "dist",
    [
        stats.pareto(1.1, scale=0.001),
        stats.pareto(3.0, loc=0.5, scale=2.0),
        stats.expon(0.05, 0.02),
    ],
)
def test_scalar_cdf_sf_closed_forms_agree_with_scipy(dist):
    # the quadrature's closed-form CDF/SF (no scipy per-call overhead) against scipy itself
    from gctheory.order_stats import _family, _scalar_cdf_sf

    F, S = _scalar_cdf_sf(dist, *_family(dist))
    lo = dist.support()[0]
    ts = [lo - 1.0, lo, *dist.ppf([1e-6, 0.1, 0.5, 0.9, 1 - 1e-9]), 1e6, np.inf]
    for t in ts:
        assert F(t) == pytest.approx(dist.cdf(t), rel=1e-10, abs=1e-300)
        assert S(t) == pytest.approx(dist.sf(t), rel=1e-10, abs=1e-300)
    assert math.isnan(F(math.nan)) and math.isnan(S(math.nan))


@pytest.mark.parametrize(
    "dist",
    [
        stats.pareto(1.1, scale=1e-3),
        stats.pareto(2.5, loc=0.3, scale=2.0),
        stats.pareto(b=0.7),
        stats.expon(scale=2.0),  # not Pareto: SciPy's own rvs
    ],
)
@pytest.mark.parametrize("kind", ["generator", "randomstate"])
def test_pareto_fast_sampler_is_scipy_bit_for_bit(dist, kind):
    from gctheory.order_stats.sampling import _rvs

    make = np.random.default_rng if kind == "generator" else np.random.RandomState
    got = _rvs(dist, (50, 2, 7), make(3))
    want = dist.rvs(size=(50, 2, 7), random_state=make(3))
    np.testing.assert_array_equal(got, want)
    # negative control: another seed's draws differ
    assert not np.array_equal(_rvs(dist, (50, 2, 7), make(4)), want)


def test_pareto_fast_sampler_leaves_a_bad_shape_to_scipy():
    from gctheory.order_stats.sampling import _rvs

    with pytest.raises(ValueError, match="Domain error"):
        _rvs(stats.pareto(-1.0), (3,), np.random.default_rng(0))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    ("dist", "groups", "size", "wait"),
    [
        (stats.pareto(1.1, scale=1e-3), 1, 2000, 1800),
        (stats.pareto(2.5, loc=0.3, scale=2.0), 5, 4, 3),
        (stats.pareto(0.7), 3, 50, 50),
        (stats.pareto(3.0), 1, 30, 1),
    ],
)
def test_pareto_order_statistic_selected_among_uniforms_equals_selection_of_draws(
    dist, groups, size, wait, seed
):
    # the fast path selects the wait-th smallest uniform and transforms it; the slow path
    # transforms every uniform (dist.rvs) and selects: the same values
    from gctheory.order_stats.sampling import _sample_grouped

    got = _sample_grouped(dist, groups, size, wait, np.random.default_rng(seed), 40)
    x = dist.rvs(size=(40, groups, size), random_state=np.random.default_rng(seed))
    want = np.partition(x, wait - 1, axis=2)[:, :, wait - 1].max(axis=1)
    np.testing.assert_array_equal(got, want)
    # negative control: the (wait + 1)-th is another statistic
    if wait < size:
        other = np.partition(x, wait, axis=2)[:, :, wait].max(axis=1)
        assert not np.array_equal(got, other)


def test_point_calls_are_scipys_values_and_other_laws_keep_their_own():
    # the quadrature's scalar sf/cdf: scipy's frozen values bit for bit (inside, at and
    # outside the support); a law of another type, or unhashable parameters, keep scipy's
    from gctheory.order_stats.quadrature import _point_calls

    laws = [stats.expon(loc=0.3, scale=0.7), stats.pareto(3.0, loc=-0.2, scale=0.5),
            stats.beta(2, 3), stats.t(3), stats.uniform(1, 2)]  # fmt: skip
    for d in laws:
        sf, cdf = _point_calls(d)
        for t in (-3.0, -0.2, 0.0, 0.3, 0.5, 1.0, 2.5, 3.0, 40.0, math.inf, math.nan):
            assert np.array_equal(sf(t), d.sf(t), equal_nan=True), (d.dist.name, t)
            assert np.array_equal(cdf(t), d.cdf(t), equal_nan=True), (d.dist.name, t)
    arr = stats.expon(scale=np.array([1.0, 2.0]))
    assert _point_calls(arr) == (arr.sf, arr.cdf)
    assert _point_calls(PARETO)[0] is not PARETO.sf
