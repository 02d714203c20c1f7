"""Tests of gctheory.conditioning (Kadhe et al. 2019, Section IV-B; Chen & Dongarra 2005)."""

from __future__ import annotations

import itertools
import math
import warnings
from functools import partial

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory.conditioning import (
    Float64Warning,
    RegimeWarning,
    c_interval,
    chen_dongarra_tail,
    condition_number_mp,
    condition_numbers,
    condition_tail_mc,
    empirical_s_kappa,
    empirical_s_kappa_mc,
    gaussian_condition_bound,
    is_monotone_decreasing,
    kappa_condition,
    max_condition,
    s_kappa_bound,
    s_kappa_commfr,
    s_kappa_shortfall_mc,
    s_kappa_ye_abbe,
    straggler_union_bound,
    subset_failure_mc,
    t_star,
    union_bound_profile,
    vandermonde_condition_mp,
)
from gctheory.generators import gaussian_generator, vandermonde_generator

SQ2PI = math.sqrt(2 * math.pi)


def _f_reference(N, K, t, kappa, C=6.414, a=1 / SQ2PI):
    """Eq. (7) of Kadhe et al. 2019 written out independently (mpmath, 30 digits)."""
    with mpmath.workdps(30):
        r = t - K + 1
        return a * mpmath.binomial(N, t) * (mpmath.mpf(C) * t / (kappa * r)) ** r


# ---------------------------------------------------------------------------
# analytic side


def test_chen_dongarra_closed_form():
    # closed form (1/sqrt(2 pi)) (C/x)^(|v-u|+1), Chen & Dongarra 2005 Thm. 4.5
    assert chen_dongarra_tail(2, 5, 10.0) == pytest.approx((6.414 / 10) ** 4 / SQ2PI, rel=1e-14)
    assert chen_dongarra_tail(3, 3, 2.0, C=5.013) == pytest.approx(5.013 / 2 / SQ2PI, rel=1e-14)
    lemma1 = chen_dongarra_tail(2, 5, 10.0, prefactor="lemma1")
    assert lemma1 / chen_dongarra_tail(2, 5, 10.0) == pytest.approx(2 * math.pi, rel=1e-13)


def test_gaussian_condition_bound_is_tail_at_scaled_x():
    # x = kappa (|v-u|+1)/v (Kadhe et al. eq. (12)-(13))
    assert gaussian_condition_bound(12, 14, 60) == pytest.approx(
        chen_dongarra_tail(12, 14, 60 * 3 / 14), rel=1e-14
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: chen_dongarra_tail(1, 5, 10), r"u must lie in \[2, inf\]"),
        (lambda: chen_dongarra_tail(2, 5, 3.0), r"x must be >= \|v-u\|\+1 = 4"),
        (lambda: chen_dongarra_tail(2, 5, 10, C=0), r"C must lie in \(0, inf\]"),
        (lambda: chen_dongarra_tail(2, 5, 10, prefactor="x"), "prefactor must be one of"),
        (lambda: gaussian_condition_bound(3, 10, 9), "kappa must be >= v = 10"),
        (lambda: straggler_union_bound(10, 3, 2, 100), r"t must lie in \[K, N\]"),
        (lambda: straggler_union_bound(10, 11, 10, 100), "K must be <= N"),
        (lambda: straggler_union_bound(10, 1, 5, 100), "K must be >= 2"),
        (lambda: straggler_union_bound(10, 3, 5, 1.0), r"kappa must lie in \(1, inf\]"),
        (lambda: straggler_union_bound(10.5, 3, 5, 100), "N must be an integer"),
        (lambda: s_kappa_commfr(3, 2, 1000, 0.0), r"eps must lie in \(0, 1\)"),
        (lambda: s_kappa_commfr(3, 2, 1000, 1.0), "eps must lie"),
        (lambda: s_kappa_commfr(-1, 2, 1000, 0.1), r"s must lie in \[0, inf\]"),
        (lambda: s_kappa_commfr(3, -2, 1000, 0.1), r"m must lie in \[0, inf\]"),
        (lambda: s_kappa_ye_abbe(10, 10, 1000, 0.1), "s must be < n"),
        (lambda: kappa_condition(3, 2, 2.0), "eps must lie"),
        # issue 12: a named ValueError, not TypeError / an anonymous float() message
        (lambda: s_kappa_commfr(8, 2, kappa=1000, eps=None), "eps must be a real number"),
        (lambda: s_kappa_commfr(8, 2, kappa="big", eps=1e-3), "kappa must be a real number"),
        (lambda: s_kappa_commfr(8, 2, kappa=float("nan"), eps=1e-3), "kappa must be a finite"),
        (lambda: s_kappa_bound(10, 2, 1000, 1e-3, strict="yes"), "strict must be True or False"),
        (lambda: s_kappa_commfr(8, 2, 1000, 1e-3, prefactor="x"), "prefactor must be one of"),
    ],
)
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_union_bound_matches_eq7_and_warns_outside_lemma1():
    for N, K, t, kappa in [(60, 52, 57, 1000), (15, 2, 4, 1000), (1000, 810, 915, 1000)]:
        ref = _f_reference(N, K, t, kappa)  # independent mpmath evaluation of eq. (7)
        assert straggler_union_bound(N, K, t, kappa) == pytest.approx(float(ref), rel=1e-12)
    with pytest.warns(RegimeWarning, match="outside the domain of Lemma 1"):
        straggler_union_bound(60, 52, 57, 50)


@settings(max_examples=40, deadline=None)
@given(
    s=st.integers(0, 40),
    m=st.integers(2, 60),
    eps=st.sampled_from([0.3, 1e-2, 1e-3, 1e-8]),
    C=st.sampled_from([5.013, 6.414, 7.0]),
)
def test_eq8_makes_f_decreasing_and_small(s, m, eps, C):
    # Kadhe et al. 2019, eq. (8): f decreasing on [m, m+s] and f(m+s) <= eps
    k = kappa_condition(s, m, eps, C) * (1 + 1e-9)
    f = union_bound_profile(m + s, m, k, C)
    assert f[-1] <= eps
    if s > 0:
        assert is_monotone_decreasing(m + s, m, k, C)


def test_t_star_is_smallest_t_with_f_below_eps():
    # brute force over t with the independent eq. (7) reference
    for N, K, kappa, eps in [(10, 2, 1000, 1e-3), (60, 47, 1000, 1e-3), (25, 12, 500, 1e-2)]:
        ts = [t for t in range(K, N + 1) if _f_reference(N, K, t, kappa) <= eps]
        assert t_star(N, K, kappa, eps) == ts[0]


def test_ye_abbe_is_substitution_and_commfr_is_m_plus_s():
    # Section IV-B: Ye-Abbe = Theorem 2 with m+s -> n, m -> n-s
    assert s_kappa_ye_abbe(60, 8, 1000, 1e-3) == s_kappa_bound(60, 52, 1000, 1e-3).s_kappa
    assert s_kappa_commfr(8, 2, 1000, 1e-3) == s_kappa_bound(10, 2, 1000, 1e-3).s_kappa


def test_s_kappa_monotone_in_kappa_and_eps():
    ks = [s_kappa_commfr(40, 10, k, 1e-3) for k in (400, 1000, 3000, 10_000)]
    assert ks == sorted(ks)
    es = [s_kappa_commfr(40, 10, 1000, e) for e in (1e-6, 1e-4, 1e-2, 0.5)]
    assert es == sorted(es)


def test_condition8_failure_is_refused_or_warned():
    with pytest.raises(ValueError, match=r"violates Kadhe et al. eq. \(8\)"):
        s_kappa_commfr(8, 52, 50, 1e-3)
    with pytest.warns(RegimeWarning, match=r"violates eq. \(8\)"):
        b = s_kappa_bound(10, 2, 25, 1e-3, strict=False)  # eq. (8) needs kappa > 25.66
    assert not b.condition8 and b.t_star <= 10 and b.f_t_star <= 1e-3
    # eq. (8) holds but Lemma 1's domain kappa >= t fails for every t (footnote 1 gap)
    with pytest.raises(ValueError):
        s_kappa_bound(1100, 1000, 400, 1e-3)


def test_c_interval_brackets_the_constant():
    lo, hi = c_interval(60, 52, 2, 1000, 1e-3)
    assert s_kappa_ye_abbe(60, 8, 1000, 1e-3, C=hi * (1 - 1e-9)) == 2
    assert s_kappa_ye_abbe(60, 8, 1000, 1e-3, C=(lo + hi) / 2) == 2
    assert s_kappa_ye_abbe(60, 8, 1000, 1e-3, C=lo * (1 - 1e-9)) != 2
    assert s_kappa_ye_abbe(60, 8, 1000, 1e-3, C=hi * (1 + 1e-9)) != 2


# ---------------------------------------------------------------------------
# condition numbers


@pytest.mark.parametrize("shape", [(50, 12, 14), (40, 14, 12), (30, 5, 5), (7, 1, 4)])
def test_condition_numbers_match_numpy_cond(shape):
    rng = np.random.default_rng(1)
    M = rng.standard_normal(shape)
    ref = np.array([np.linalg.cond(a) for a in M])  # LAPACK SVD per matrix
    np.testing.assert_allclose(condition_numbers(M), ref, rtol=1e-9)
    Z = M + 1j * rng.standard_normal(shape)
    np.testing.assert_allclose(condition_numbers(Z), [np.linalg.cond(a) for a in Z], rtol=1e-9)


def test_condition_numbers_ill_conditioned_uses_svd():
    # diag(1, 1e-8) rotated: exact condition number 1e8 (closed form)
    rng = np.random.default_rng(2)
    Q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    D = np.diag([1, 0.5, 0.3, 0.2, 0.1, 1e-8])
    assert condition_numbers(Q @ D)[()] == pytest.approx(1e8, rel=1e-6)
    assert np.isinf(condition_numbers(np.zeros((1, 3, 3)))[0])


def test_mp_condition_where_float64_fails():
    # equispaced Vandermonde 40 x 40: float64 is off by orders of magnitude; mpmath at 60
    # and 90 digits agree (stability under precision increase is the reference)
    a = float(vandermonde_condition_mp(40, 40, nodes="equispaced", dps=60))
    b = float(vandermonde_condition_mp(40, 40, nodes="equispaced", dps=90))
    assert a == pytest.approx(b, rel=1e-12)
    f64 = np.linalg.cond(vandermonde_generator(40, 40, nodes="equispaced"))
    assert abs(f64 / a - 1) > 0.1  # float64 unreliable here
    # roots of unity, full square: V / sqrt(N) is unitary, kappa = 1 (closed form)
    assert float(vandermonde_condition_mp(8, 8, nodes="roots_of_unity")) == pytest.approx(1, 1e-30)
    # a float64 matrix is converted exactly: diag(1, 1e-20) has kappa 1e20
    assert float(condition_number_mp(np.diag([1.0, 1e-20]))) == pytest.approx(1e20, rel=1e-12)


# ---------------------------------------------------------------------------
# Monte Carlo twin of the tail bound


SHAPES = [(2, 2, 50), (2, 3, 10), (2, 4, 12), (2, 5, 15), (12, 14, 60), (12, 12, 200)]


@pytest.mark.parametrize("u, v, kappa", SHAPES)
def test_tail_bound_holds_against_mc(u, v, kappa):
    bound = gaussian_condition_bound(u, v, kappa)
    est = condition_tail_mc(u, v, kappa, 20_000, rng=[u, v, kappa], level=0.98)
    # one-sided 99% lower limit below the bound; the ratio bound/estimate (1.4 .. 100)
    # is the looseness reported in docs/conditioning.md
    assert est.low <= bound
    assert bound < 1
    # negative control: the same one-sided check rejects a wrong target, Lemma 1 evaluated
    # at 100 kappa (100^(|v-u|+1) times smaller than the bound at kappa)
    assert est.low > gaussian_condition_bound(u, v, 100 * kappa)


def test_tail_bound_57x60():
    # 2000 draws (4000 cost twice the CPU), the interval at the same 98%: [0.0018, 0.0094]
    # here, the bound 0.021 above it and the control's 8.3e-5 twenty times below it
    est = condition_tail_mc(57, 60, 200, 2_000, rng=5760, level=0.98)
    assert est.low <= gaussian_condition_bound(57, 60, 200)
    # negative control: the bound at 4 kappa (4^4 = 256 times smaller) is rejected
    assert est.low > gaussian_condition_bound(57, 60, 800)


def test_tail_negative_control_wrong_constant():
    # C = 4 < 5.013 (below Chen-Dongarra's admissible range): the bound must be violated
    est = condition_tail_mc(12, 12, 200, 20_000, rng=1212, level=0.98)
    assert est.low > gaussian_condition_bound(12, 12, 200, C=4.0)


def test_tail_mc_serial_equals_pool():
    a = condition_tail_mc(4, 6, 20, 3_000, rng=3, chunk_size=1_000)
    b = condition_tail_mc(4, 6, 20, 3_000, rng=3, chunk_size=1_000, executor=2)
    assert a == b


# ---------------------------------------------------------------------------
# worst case over subsets and empirical s_kappa


def _brute_max(G, t):
    return max(np.linalg.cond(G[:, list(T)]) for T in itertools.combinations(range(G.shape[1]), t))


def test_max_condition_exhaustive_equals_brute_force():
    G = gaussian_generator(4, 9, rng=9)
    for t in (4, 6, 9):
        mc = max_condition(G, t)
        assert mc.exact and mc.method == "exhaustive" and mc.n_subsets == math.comb(9, t)
        assert mc.value == pytest.approx(_brute_max(G, t), rel=1e-9)  # brute-force enumeration
        assert np.linalg.cond(G[:, list(mc.subset)]) == pytest.approx(mc.value, rel=1e-9)


def test_max_condition_estimate_is_labelled_lower_bound():
    G = gaussian_generator(5, 14, rng=4)
    exact = max_condition(G, 7)
    est = max_condition(G, 7, method="estimate", samples=200, rng=1)
    assert not est.exact and "estimate" in est.method and est.upper == math.inf
    assert est.value <= exact.value * (1 + 1e-12)
    assert est.value >= 0.5 * exact.value  # local search gets near the worst subset


def test_max_condition_flags_float64():
    G = vandermonde_generator(30, 31, nodes="equispaced")
    with pytest.warns(Float64Warning):
        mc = max_condition(G, 30, mp_dps=None)
    assert not mc.float64_reliable
    ref = partial(vandermonde_condition_mp, 30, 31, nodes="equispaced", dps=60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mc2 = max_condition(G, 30, mp_reference=ref)
    assert mc2.value_mp == pytest.approx(float(ref(mc2.subset)), rel=1e-12)


def test_empirical_s_kappa_by_definition():
    G = gaussian_generator(3, 9, rng=12)
    kappa = 30.0
    e = empirical_s_kappa(G, kappa)
    # brute force: largest s such that all (9 - s')-subsets, s' <= s, have cond <= kappa
    s_ref = None
    for s in range(0, 7):
        if _brute_max(G, 9 - s) > kappa:
            break
        s_ref = s
    assert e.exact and e.value == s_ref


def test_theorem2_holds_in_mc_with_negative_control():
    # Theorem 2: P(max_{|T|=t*} cond(G_T) > kappa) <= f(t*) <= eps
    b = s_kappa_bound(8, 3, 100, 0.1)
    est = subset_failure_mc(8, 3, b.t_star, 100, 2_000, rng=83, level=0.98)
    assert est.low <= b.f_t_star <= 0.1
    # negative control: t = K (two more stragglers than guaranteed) fails far above eps
    bad = subset_failure_mc(8, 3, 3, 100, 2_000, rng=83, level=0.98)
    assert bad.low > 0.1


def test_theorem2_is_lower_bound_of_empirical_mean():
    b = s_kappa_bound(10, 2, 1000, 1e-3)
    est = empirical_s_kappa_mc(10, 2, 1000, 300, rng=102)
    assert est.low >= b.s_kappa
    # negative control: the same check fails against the bound shifted up by 2
    assert not est.low >= b.s_kappa + 2


@settings(max_examples=25, deadline=None)
@given(
    u=st.integers(3, 14),
    extra=st.integers(0, 5),
    tall=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_fast_gram_path_equals_svd(u, extra, tall, seed):
    # Householder + Laguerre extreme eigenvalues == LAPACK SVD (fast path == slow path)
    rng = np.random.default_rng(seed)
    shape = (16, u + extra, u) if tall else (16, u, u + extra)
    M = rng.standard_normal(shape)
    sv = np.linalg.svd(M, compute_uv=False)
    ref = sv[:, 0] / sv[:, -1]
    # the Gram route (kappa <= GRAM_LIMIT) loses kappa^2 eps relative accuracy: the tolerance
    # is derived from it (a seed with kappa = 6.9e3 shows 0.24 kappa^2 eps)
    tol = 1e-11 + 4 * ref**2 * np.finfo(float).eps
    assert np.all(np.abs(condition_numbers(M) / ref - 1) <= tol)


@pytest.mark.parametrize("N, t", [(1, 1), (5, 0), (6, 3), (9, 4), (12, 12), (13, 6)])
def test_combinations_array_is_itertools(N, t):
    from gctheory.conditioning import _combinations_array

    got = _combinations_array(N, t)
    assert got.shape == (math.comb(N, t), t)
    assert {tuple(r) for r in got} == set(itertools.combinations(range(N), t))


def test_branch_and_bound_top_values_equal_full_enumeration():
    # the pruned search returns the same top-5 values as evaluating every subset
    G = gaussian_generator(6, 13, rng=613)
    mc = max_condition(G, 7, top=5)
    subsets = list(itertools.combinations(range(13), 7))
    allv = np.sort([np.linalg.cond(G[:, list(T)]) for T in subsets])[::-1][:5]
    np.testing.assert_allclose([v for v, _ in mc.top], allv, rtol=1e-9)


@pytest.mark.parametrize("N, K, kappa, eps", [(8, 3, 100, 0.1), (10, 2, 1000, 1e-3)])
def test_theorem2_rate_at_least_one_minus_eps(N, K, kappa, eps):
    # Theorem 2: P(empirical s_kappa < guaranteed s_kappa) <= eps (one-sided 99% limit)
    est = s_kappa_shortfall_mc(N, K, kappa, eps, 1_000, rng=[N, K], level=0.98)
    assert est.low <= eps
    # negative control: the guarantee raised by 2 fails the same check
    bound = s_kappa_bound(N, K, kappa, eps).s_kappa
    bad = s_kappa_shortfall_mc(N, K, kappa, eps, 1_000, rng=[N, K], level=0.98, target=bound + 2)
    assert bad.low > eps


def _worst_ye_abbe_condition(n, nodes, s=1):
    K = n - s
    if nodes == "gaussian":
        vals = [max_condition(gaussian_generator(K, n, rng=[n, r]), K).value for r in range(3)]
        return float(np.median(vals))
    ref = partial(vandermonde_condition_mp, K, n, nodes=nodes, dps=60)
    mc = max_condition(vandermonde_generator(K, n, nodes=nodes), K, mp_reference=ref)
    return mc.value_mp if mc.value_mp is not None else mc.value


def test_section1_vandermonde_unstable_beyond_25_gaussian_usable_to_30():
    # Kadhe et al. Section I (after Ye & Abbe): criterion "unstable" = worst decoding
    # matrix has kappa > 1e10 (float64 keeps fewer than 6 digits); s = 1 straggler
    limit = 1e10
    assert _worst_ye_abbe_condition(20, "equispaced") < limit
    assert _worst_ye_abbe_condition(26, "equispaced") > limit
    assert _worst_ye_abbe_condition(30, "gaussian") < 1e6
    # contrast: the same criterion does not call roots-of-unity nodes unstable at n = 30
    assert not _worst_ye_abbe_condition(30, "roots_of_unity") > limit


def test_condition_numbers_exact_edge_cases():
    # closed forms: identity 1, diag(1, 1, 1, 2) -> 2, orthogonal 1, zero matrix inf
    assert condition_numbers(np.eye(5)[None])[0] == pytest.approx(1.0, rel=1e-14)
    assert condition_numbers(np.diag([1.0, 1, 1, 2])[None])[0] == pytest.approx(2.0, rel=1e-14)
    Q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((6, 6)))
    assert condition_numbers(Q)[()] == pytest.approx(1.0, rel=1e-12)
    assert np.all(np.isinf(condition_numbers(np.zeros((2, 4, 4)))))
    with pytest.raises(ValueError, match="M must have shape"):
        condition_numbers(np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        max_condition(np.full((2, 3), np.nan), 2)


# ---------------------------------------------------------------------------
# issue 12: the regime is checked before any work; large N in log space


def test_eq8_violation_refused_before_f_is_evaluated(monkeypatch):
    import gctheory.conditioning.bounds as bounds_mod
    import gctheory.conditioning.skappa as skappa_mod

    def boom(*args):
        raise AssertionError("f evaluated although eq. (8) already refuses")

    monkeypatch.setattr(skappa_mod, "_f_mp", boom)
    monkeypatch.setattr(skappa_mod, "_decreasing", boom)
    monkeypatch.setattr(bounds_mod, "_f_mp", boom)
    for s in (10**4, 10**5, 10**6):  # C s / 2 > kappa = 1000: eq. (8) fails
        with pytest.raises(ValueError, match=r"violates Kadhe et al. eq. \(8\)"):
            s_kappa_commfr(s, s, kappa=1000, eps=1e-3)


def test_large_n_in_log_space_with_few_exact_evaluations(monkeypatch):
    import gctheory.conditioning.bounds as bounds_mod
    import gctheory.conditioning.skappa as skappa_mod

    calls = []
    real = bounds_mod._f_mp

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(bounds_mod, "_f_mp", counted)
    monkeypatch.setattr(skappa_mod, "_f_mp", counted)
    b = s_kappa_bound(10**5 + 10, 10, 10**6, 1e-3)  # N = 1e5 + 10: one mpmath f per t before
    assert len(calls) <= 10
    # the answer is the first t with f(t) <= eps, checked exactly around it (eq. (7), mpmath)
    assert _f_reference(10**5 + 10, 10, b.t_star, 10**6) <= 1e-3
    assert _f_reference(10**5 + 10, 10, b.t_star - 1, 10**6) > 1e-3


@settings(max_examples=30, deadline=None)
@given(
    N=st.integers(3, 80),
    frac=st.floats(0.05, 0.95),
    kappa=st.sampled_from([50.0, 300.0, 1000.0, 1e4]),
    eps=st.sampled_from([0.3, 1e-3, 1e-9]),
)
def test_log_space_t_star_equals_exact_scan(N, frac, kappa, eps):
    # the log-space search with exact tie-breaking == the plain mpmath scan of eq. (7)
    K = max(2, min(N, round(frac * N)))
    ts = [t for t in range(K, N + 1) if _f_reference(N, K, t, kappa) <= eps]
    try:
        b = s_kappa_bound(N, K, kappa, eps, strict=False)
    except ValueError:
        assert not [t for t in ts if t <= kappa]
        return
    except RegimeWarning:
        return
    assert b.t_star == min(t for t in ts if t <= kappa)


# ---------------------------------------------------------------------------
# certified worst case: branch and bound against enumeration


def _adversarial(K, N, seed, bad=(1, 4), scale=1e-4):
    """Gaussian K x N with columns ``bad`` made almost parallel: one terrible subset family."""
    G = gaussian_generator(K, N, rng=seed)
    G[:, bad[1]] = G[:, bad[0]] + scale * G[:, bad[1]]
    return G


@pytest.mark.parametrize(
    "G, t",
    [
        (gaussian_generator(4, 10, rng=1), 5),
        (gaussian_generator(6, 12, rng=2), 8),
        (gaussian_generator(9, 12, rng=3), 9),  # square submatrices (Ye-Abbe shape)
        (gaussian_generator(2, 11, rng=4), 3),  # CommFR-GC shape
        (_adversarial(4, 11, 5), 7),
        (_adversarial(3, 12, 6, bad=(2, 9), scale=1e-7), 4),
        (vandermonde_generator(5, 11, nodes="roots_of_unity"), 6),  # complex
        (vandermonde_generator(6, 10, nodes="chebyshev"), 7),
    ],
)
def test_branch_and_bound_equals_enumeration(G, t):
    ex = max_condition(G, t, method="exhaustive")
    bb = max_condition(G, t, method="branch-and-bound", samples=20, starts=1, max_rounds=0, rng=0)
    brute = _brute_max(G, t)  # enumeration with np.linalg.cond
    assert ex.exact and bb.exact and bb.complete and bb.lower == bb.upper
    assert bb.value == pytest.approx(brute, rel=1e-9) and ex.value == pytest.approx(brute, rel=1e-9)
    assert bb.evaluated + bb.pruned >= math.comb(G.shape[1], t) - 20  # every subset accounted
    assert np.linalg.cond(G[:, list(bb.subset)]) == pytest.approx(bb.value, rel=1e-9)


def test_certified_interval_contains_the_truth_when_time_runs_out():
    G = gaussian_generator(6, 18, rng=11)
    truth = max_condition(G, 9)  # 48,620 subsets: enumeration
    cut = max_condition(G, 9, method="branch-and-bound", time_limit=0.02, samples=50, rng=1)
    assert not cut.exact and not cut.complete and "time limit" in cut.method
    assert cut.lower <= truth.value <= cut.upper


def test_certificate_never_exact_when_float64_cannot_decide():
    # cond ~1e14 > 1 / (2 delta): float64 cannot bound the true value, so no upper bound
    G = vandermonde_generator(30, 32, nodes="equispaced")
    mc = max_condition(G, 30)
    assert mc.complete and not mc.exact and mc.upper == math.inf and mc.value_mp is not None
    assert mc.lower == mc.value_mp  # the mpmath value of the subset found: a true lower bound


def test_block_workers_match_expanded_columns():
    # block = 2: a worker is two columns; the worst case over worker subsets by enumeration
    G = gaussian_generator(6, 14, rng=12)
    mc = max_condition(G, 4, block=2)
    ref = max(
        np.linalg.cond(G[:, [c for w in T for c in (2 * w, 2 * w + 1)]])
        for T in itertools.combinations(range(7), 4)
    )
    assert mc.value == pytest.approx(ref, rel=1e-9)
    bb = max_condition(G, 4, block=2, method="branch-and-bound", samples=5, rng=0)
    assert bb.value == pytest.approx(ref, rel=1e-9) and bb.exact


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(G=np.ones((3, 2)), t=2), "K <= N"),
        (dict(G=np.array([[1.0, np.inf]]), t=1), "finite"),
        (dict(G=np.ones((2, 5)), t=6), r"t must lie in \[ceil\(K / block\), N\]"),
        (dict(G=np.ones((2, 5)), t=3, method="magic"), "method must be one of"),
        (dict(G=np.ones((2, 6)), t=3, block=4), "block must divide"),
        (dict(G=np.ones((2, 6)), t=3, time_limit=0), r"time_limit must lie in \(0, inf\]"),
        (dict(G=np.ones((2, 6)), t=3, rng=True), "rng must be None"),
    ],
)
def test_max_condition_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        max_condition(**kwargs)


def test_empirical_s_kappa_exact_beyond_enumeration():
    # beyond the enumeration limit the branch and bound still decides s_kappa exactly
    G = gaussian_generator(3, 16, rng=21)
    ref = empirical_s_kappa(G, 30.0)  # enumeration of every subset
    # a wall-clock budget far above the ~1 s of CPU it needs: a loaded machine stopped the
    # search at the default 10 s budget (exact=False)
    bb = empirical_s_kappa(G, 30.0, exhaustive_limit=50, samples=50, rng=0, time_limit=600.0)
    assert ref.exact and bb.exact and bb.value == ref.value == bb.low
    assert any("branch" in st.method for st in bb.steps)
