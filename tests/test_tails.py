"""Rare-event estimates (gctheory.tails) against exact values, with negative controls."""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import brentq

from gctheory import ldpc
from gctheory.conditioning import condition_numbers, condition_tail_mc, subset_failure_mc
from gctheory.montecarlo import Stop, UnreliableEstimateWarning, importance_sampling
from gctheory.tails import (
    ConditionExceeds,
    GaussianConditionTail,
    SubsetConditionTail,
    TiltedErasures,
    block_failure_is,
    condition_tail_2xn,
    condition_tail_is,
    conditional_tail_probability,
    subset_failure_is,
)
from gctheory.tails.gaussian import _bartlett, _roots_2, _roots_general
from tests._mc_events import failure_probability_exact, peeling_failure_counts

# --- the exact law of cond for 2 x n, derived here ------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 7, 15])
def test_exact_2xn_law_from_the_wishart_eigenvalue_density(n):
    # Muirhead (1982) Thm 3.2.18: the eigenvalues l1 > l2 of a 2 x 2 real Wishart(n, I) have
    # density prop. to (l1 l2)^((n-3)/2) exp(-(l1+l2)/2) (l1 - l2). With l2 = r l1 the scale
    # integrates out: int_0^oo a^(n-1) exp(-a (1+r)/2) da = Gamma(n) (2/(1+r))^n, so r has density
    # prop. to r^((n-3)/2) (1 - r) / (1 + r)^n on (0, 1); cond > x is r < 1/x^2.
    # F(r) = (2 sqrt(r) / (1 + r))^(n-1) is its CDF: F(0) = 0, F(1) = 1, F' = const * density.
    r = sp.symbols("r", positive=True)
    dens = r ** sp.Rational(n - 3, 2) * (1 - r) / (1 + r) ** n
    F = (2 * sp.sqrt(r) / (1 + r)) ** (n - 1)
    assert F.subs(r, 1) == 1 and sp.limit(F, r, 0) == 0
    assert sp.simplify(sp.diff(F, r) / dens - (n - 1) * 2 ** (n - 2)) == 0
    for x in (sp.Integer(3), sp.Rational(17, 2), sp.Integer(40)):
        closed = (2 * x / (1 + x**2)) ** (n - 1)
        assert sp.simplify(F.subs(r, 1 / x**2) - closed) == 0
        assert condition_tail_2xn(n, float(x)) == pytest.approx(float(closed), rel=1e-14)
    assert condition_tail_2xn(n, 1.0) == 1.0


def test_exact_2xn_law_by_crude_monte_carlo_with_negative_control():
    # cond > 6 for 2 x 3 Gaussians: ((12)/(37))^2 = 0.10519... (closed form above)
    exact = condition_tail_2xn(3, 6.0)
    est = condition_tail_mc(2, 3, 6.0, 200_000, rng=5)
    assert est.contains(exact)
    assert not est.contains(condition_tail_2xn(3, 6.3))  # the law at another x is rejected


# --- the conditional law of the last Bartlett entry -----------------------------------------


def test_secular_roots_equal_the_closed_form_for_2_rows():
    rng = np.random.default_rng(0)
    for q in (2, 3, 6):
        L = _bartlett(rng, 3_000, 2, q)
        for x in (1.5, 10.0, 1e3, 1e9):
            lo_a, hi_a = _roots_2(L, x)
            lo_b, hi_b = _roots_general(L, x, q - 1)
            fin = np.isfinite(lo_a)
            assert np.array_equal(fin, np.isfinite(lo_b))
            np.testing.assert_allclose(lo_b[fin], lo_a[fin], rtol=1e-12)
            # the upper root only where its chi^2 tail is not negligible
            keep = np.isfinite(hi_b)
            np.testing.assert_allclose(hi_b[keep], hi_a[keep], rtol=1e-12)


@pytest.mark.parametrize(("p", "q", "x"), [(3, 5, 50.0), (12, 16, 1e3), (5, 5, 1e8)])
def test_the_event_changes_exactly_at_the_roots(p, q, x):
    rng = np.random.default_rng(1)
    L = _bartlett(rng, 300, p, q)
    lo, _ = _roots_general(L, x, q - p + 1)
    fin = np.isfinite(lo)
    assert fin.mean() > 0.9
    for factor, expect in ((1 - 1e-7, True), (1 + 1e-7, False)):
        A = L[fin].copy()
        A[:, -1, -1] = lo[fin] * factor
        assert np.all((condition_numbers(A) > x) == expect)


def test_conditional_probability_integrates_to_the_tail():
    # E[P(cond > x | rest)] over the rest's law is P(cond > x): 2 x 3 at x = 10 (exact law)
    rng = np.random.default_rng(2)
    L = _bartlett(rng, 200_000, 2, 3)
    prob = conditional_tail_probability(L, 10.0, 3)
    half = 3.3 * prob.std() / math.sqrt(prob.size)
    assert abs(prob.mean() - condition_tail_2xn(3, 10.0)) < half
    assert abs(prob.mean() - condition_tail_2xn(3, 10.5)) > half  # negative control


# --- importance sampling at 1e-6, 1e-9, 1e-12 against the exact law ---------------------------


def _x_for(n: int, p: float) -> float:
    return brentq(lambda x: math.log(condition_tail_2xn(n, x)) - math.log(p), 1.0 + 1e-9, 1e15)


@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("p", [1e-6, 1e-9, 1e-12])
def test_gaussian_tail_is_reaches_the_exact_value(n, p):
    x = _x_for(n, p)
    stop = Stop(rel_half_width=0.1)
    est = condition_tail_is(2, n, x, 10**6, rng=n, chunk_size=1_000, stop=stop, level=0.999)
    assert est.contains(condition_tail_2xn(n, x)), (est, p)
    assert not est.contains(1.25 * p) and not est.contains(p / 1.25)  # negative controls
    crude = (2.576 / 0.1) ** 2 * (1 - p) / p  # trials crude MC needs for the same precision
    assert est.stopped_by == "rel_half_width" and est.trials <= 1e-3 * crude


def test_tall_matrices_and_the_tilt_method():
    x = _x_for(4, 1e-8)
    for method in ("conditional", "tilt"):
        est = condition_tail_is(4, 2, x, 40_000, rng=3, method=method)  # 4 x 2: transposed
        assert est.contains(1e-8), (method, est)


class _ForgotTheGammaRatio(GaussianConditionTail):
    """The tilt proposal with its normalising constant left out (a classic slip)."""

    def sample(self, rng, size):
        M, logw = super().sample(rng, size)
        return M, logw - 0.5


def test_wrong_normalisation_of_the_gaussian_proposals_is_caught():
    x = _x_for(3, 1e-6)
    # full support: the weights' mean is checked against 1
    with pytest.warns(UnreliableEstimateWarning, match="mis-normalised"):
        est = importance_sampling(
            ConditionExceeds(x), _ForgotTheGammaRatio(2, 3, x, method="tilt"), 20_000, rng=1
        )
    assert not est.contains(1e-6)
    # on the event only: the exact value is what rejects it
    est = importance_sampling(
        ConditionExceeds(x), _ForgotTheGammaRatio(2, 3, x, method="conditional"), 20_000, rng=1
    )
    assert not est.contains(1e-6) and est.contains(math.exp(-0.5) * 1e-6)


# --- Theorem 2's union over column subsets -----------------------------------------------------


def test_union_estimate_agrees_with_crude_monte_carlo():
    crude = subset_failure_mc(5, 2, 3, 30.0, 100_000, rng=2)
    est = subset_failure_is(5, 2, 3, 30.0, 3_000, rng=1)
    assert est.low <= crude.high and crude.low <= est.high  # the intervals overlap
    assert not est.contains(1.2 * crude.value) and not est.contains(crude.value / 1.2)
    assert est.rel_half_width < 0.05


def test_union_proposal_refuses_too_many_subsets():
    with pytest.raises(ValueError, match=r"binom\(25, 17\) = 1,081,575 subsets"):
        SubsetConditionTail(25, 12, 17, 1000.0)


# --- peeling: exact enumeration, importance sampling and crude Monte Carlo ---------------------

CODE = ldpc.regular_ensemble(20, 3, 6, rng=3)  # 10 x 20, smallest stopping set: 2 variables


@functools.lru_cache(maxsize=1)
def _counts() -> tuple[int, ...]:
    return tuple(peeling_failure_counts(CODE))  # enumeration of all 2^20 patterns (~1 s)


def test_enumeration_agrees_with_the_peeling_decoder():
    counts = _counts()
    assert sum(counts) < 2**20 and counts[0] == 0
    rng = np.random.default_rng(4)
    E = rng.random((4_000, 20)) < 0.3
    fails = ldpc.peel_batch(CODE, E).any(axis=1)
    # recount the sample's failures from the enumeration: a pattern fails iff it is a superset
    # of a stopping set; compare the failure frequency by weight with the enumerated fraction
    k = E.sum(axis=1)
    for w in (4, 6, 8):
        frac = counts[w] / math.comb(20, w)
        sel = fails[k == w]
        if sel.size > 200:
            half = 3.3 * math.sqrt(frac * (1 - frac) / sel.size) + 1e-9
            assert abs(sel.mean() - frac) < half


@pytest.mark.parametrize("target", [1e-6, 1e-9])
def test_block_failure_is_matches_exact_enumeration(target):
    counts = _counts()
    eps = brentq(
        lambda e: float(failure_probability_exact(counts, Fraction(e))) - target, 1e-8, 0.3
    )
    exact = float(failure_probability_exact(counts, Fraction(eps)))
    est = block_failure_is(CODE, eps, 20_000, rng=7)
    assert est.contains(exact)
    assert not est.contains(1.3 * exact) and not est.contains(exact / 1.3)


def test_block_failure_crude_agrees_where_crude_can_reach():
    counts = _counts()
    exact = float(failure_probability_exact(counts, Fraction(1, 10)))
    crude = ldpc.block_failure_rate(CODE, 0.1, 100_000, rng=8)
    is_est = block_failure_is(CODE, 0.1, 20_000, rng=8)
    assert crude.contains(exact) and is_est.contains(exact)
    assert not crude.contains(1.3 * exact)


def test_tilted_erasure_weights_are_exact():
    # sum over all 2^6 patterns of Q(E) w(E) = sum of P(E) = 1, for one tilt and a mixture
    n = 6
    E = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
    for prop in (
        TiltedErasures(n, 0.01, 0.3),
        TiltedErasures(n, 0.01, [[0.3] * 6, [0.5, 0.01, 0.2, 0.2, 0.4, 0.1]], weights=[0.4, 0.6]),
    ):
        logw = prop.log_weight(E)
        p = np.prod(np.where(E, 0.01, 0.99), axis=1)
        np.testing.assert_allclose(p * np.exp(-logw), _mixture_q(prop, E), rtol=1e-12)
        assert np.sum(p) == pytest.approx(1.0, rel=1e-12)


def _mixture_q(prop, E):
    tilt, w = np.array(prop.eps_tilt), np.array(prop.weights)
    return sum(wm * np.prod(np.where(E, t, 1 - t), axis=1) for wm, t in zip(w, tilt))


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: GaussianConditionTail(1, 5, 10.0), r"u must lie in \[2, inf\]"),
        (lambda: GaussianConditionTail(2, 5, 1.0), r"x must lie in \(1, 1e\+100\]"),
        (lambda: GaussianConditionTail(2, 5, 10.0, method="svd"), "method must be one of"),
        (lambda: GaussianConditionTail(2, 5, 10.0, method="tilt", dof=9), r"dof must lie in"),
        (lambda: TiltedErasures(5, 0.1, 1.0), r"eps_tilt must lie in the open interval"),
        (lambda: TiltedErasures(5, 0.0, 0.2), r"eps must lie in \(0, 1\)"),
        (lambda: TiltedErasures(5, 0.1, [0.2, 0.3]), "eps_tilt must be a probability"),
        (lambda: TiltedErasures(5, 0.1, [[0.2] * 5] * 2, weights=[1, 1]), "summing to 1"),
        (lambda: SubsetConditionTail(5, 6, 6, 10.0), r"K must lie in \[2, 5\]"),
        (lambda: block_failure_is(CODE, 0.1, 100), "needs a seed"),
    ],
)
def test_bad_input(make, match):
    with pytest.raises(ValueError, match=match):
        make()
