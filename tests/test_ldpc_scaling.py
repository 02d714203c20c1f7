"""Tests of the finite-length scaling law (gctheory.ldpc.scaling) and the error floor
(gctheory.ldpc.stopping_sets): constants against closed forms and independent computations,
predictions against the exact recursion and Monte Carlo, with negative controls."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from gctheory import ldpc
from gctheory.ldpc import scaling
from gctheory.montecarlo import estimate_mean

ENSEMBLES = [
    ({3: 1}, {6: 1}),
    ({4: 1}, {8: 1}),
    ({2: 0.3, 3: 0.7}, {6: 1}),
    ({2: 0.25, 3: 0.35, 8: 0.4}, {7: 0.5, 8: 0.5}),
]


@pytest.mark.parametrize("lam, rho", ENSEMBLES)
def test_alpha_covariance_evolution_equals_closed_form(lam, rho):
    p = ldpc.scaling_parameters(lam, rho)
    # two independent routes: the ODE integrated numerically vs the closed form of
    # Amraoui, Montanari, Urbanke (2007) in mpmath
    assert abs(p.alpha - p.alpha_closed_form) < 1e-10
    assert p.eps == pytest.approx(ldpc.bec_threshold(lam, rho).eps, abs=1e-12)
    fixed = ldpc.scaling_parameters(lam, rho, erasures="fixed")
    assert fixed.alpha < p.alpha  # a fixed number of erasures removes the binomial spread
    assert fixed.beta == pytest.approx(p.beta)  # the local shape does not depend on it


def test_local_constants_of_the_3_6_ensemble():
    p = ldpc.regular_scaling_parameters(3, 6).points[0]
    assert p.diffusion == pytest.approx(0.5, abs=1e-12)  # (dv - 2)/(dv - 1), closed form
    # the critical point: r_1 = 0 and dr_1/dtau = 0 along the fluid path (ODE mean)
    lam, rho = {3: 1.0}, {6: 1.0}
    vdeg, rmax, mean0, _ = scaling._initial_state(lam, rho, p.eps, "random")
    chain = scaling._Chain(vdeg, rmax)

    def r1_at(tau):
        sol = integrate.solve_ivp(
            lambda t, y: chain.drift(y), (0, tau), mean0, method="DOP853", rtol=1e-12, atol=1e-14
        )
        return sol.y[len(vdeg), -1]

    h = 2e-3
    r_m, r_0, r_p = r1_at(p.tau - h), r1_at(p.tau), r1_at(p.tau + h)
    assert abs(r_0) < 1e-9
    assert (r_p - 2 * r_0 + r_m) / h**2 == pytest.approx(p.curvature, rel=1e-4)  # 2nd difference


def test_omega_constant():
    om = ldpc.omega_constant()
    # PDE converged: finer grid and a longer horizon change it by < 1e-5
    assert abs(scaling._omega_pde(2000, T=8.0, X=8.0) - om) < 1e-5
    # Monte Carlo of -min over a two-sided Brownian motion of B(w) + w^2 (the larger of two
    # maxima of W(t) - t^2), discretised with the sqrt(dt) overshoot correction 0.5826
    dt, T = 4e-3, 4.0
    t = np.arange(1, int(T / dt) + 1) * dt

    def sampler(rng, size):
        m = np.zeros(size)
        for _ in range(2):
            W = np.cumsum(rng.standard_normal((size, t.size)) * np.sqrt(dt), axis=1)
            m = np.maximum(m, np.maximum(0.0, (W - t**2).max(axis=1)))
        return m + 0.5826 * np.sqrt(dt)

    est = estimate_mean(sampler, 6000, rng=4, chunk_size=1000, level=0.999)
    assert est.contains(om)
    assert not est.contains(om * 1.05) and not est.contains(om * 0.95)  # negative control


def test_scaling_law_approaches_the_exact_analysis():
    p = ldpc.regular_scaling_parameters(3, 6)
    eps = np.array([0.38, 0.40, 0.42])
    gaps = []
    for n in (100, 200):
        exact = ldpc.erasure_profile(n, 3, 6).block_erasure(eps)
        gaps.append(np.max(np.abs(p.block_erasure(n, eps) - exact)))
        # without the shift the law is far off at these lengths
        assert np.max(np.abs(p.block_erasure(n, eps, shift=False) - exact)) > 2 * gaps[-1]
    assert gaps[1] < gaps[0] < 0.07


def test_scaling_law_within_monte_carlo_and_perturbed_alpha_rejected():
    # n = 2000 near the threshold; the law speaks for both ensembles at this order, here the
    # configuration model (fresh code per frame); a +-15% alpha must leave the interval
    p = ldpc.regular_scaling_parameters(3, 6)
    n = 2000
    for eps in (0.405, 0.415):
        mc = ldpc.ensemble_failure_rate(
            n, 3, 6, 3000, eps=eps, multi_edges="keep", frames_per_code=30, rng=[n, 9]
        )
        assert mc.contains(p.block_erasure(n, eps))
        for f in (0.85, 1.15):
            pt = dataclasses.replace(p.points[0], alpha=p.alpha * f)
            wrong = dataclasses.replace(p, points=(pt,))
            assert not mc.contains(wrong.block_erasure(n, eps))


def test_stopping_set_counts():
    # multigraph: one variable is a stopping set iff its 3 edges are a triple edge:
    # E[N_1] = n m (6)_3 / (6m)_3 (closed form); simple graphs have none
    n, m = 1000, 500
    want = n * m * 6 * 5 * 4 / (3000 * 2999 * 2998)
    assert ldpc.expected_stopping_sets(n, 3, 6, 1, multi_edges="keep") == pytest.approx(want)
    assert ldpc.expected_stopping_sets(n, 3, 6, 1) == 0.0
    for s in range(2, 6):  # simple stopping sets are a subset of the multigraph ones
        assert ldpc.expected_stopping_sets(n, 3, 6, s) <= ldpc.expected_stopping_sets(
            n, 3, 6, s, multi_edges="keep"
        )
    # simple graphs: a size-2 stopping set is two variables with the same three checks. By
    # hand: v1's sockets to 3 distinct checks ((m)_3 6^3 ways), v2's sockets to the same
    # checks in any order (3! 5^3), over all (6m)_6 injective socket maps, times C(n, 2)
    maps = m * (m - 1) * (m - 2) * 6**3 * 6 * 5**3
    hand = n * (n - 1) / 2 * maps / np.prod([3000.0 - i for i in range(6)])
    assert ldpc.expected_stopping_sets(n, 3, 6, 2) == pytest.approx(hand, rel=1e-12)


def test_error_floor_is_the_exact_floor_of_the_multigraph_ensemble():
    prof = ldpc.erasure_profile(120, 3, 6)
    for eps in (0.02, 0.05, 0.1):
        exact = prof.block_erasure(eps)
        floor = ldpc.error_floor(120, 3, 6, eps, multi_edges="keep")
        assert exact <= floor <= 1.05 * exact  # union bound, tight where it matters
    # negative control: the floor of the simple-graph ensemble is not this one
    assert ldpc.error_floor(120, 3, 6, 0.05) < 0.5 * prof.block_erasure(0.05)


def test_simple_graph_pairs_counted_in_sampled_codes():
    # E[N_2] of simple graphs = mean number of pairs of identical columns in sampled codes
    n = 60

    def pairs(rng, size):
        out = np.empty(size)
        for i in range(size):
            H = ldpc.regular_ensemble(n, 3, 6, rng=rng).toarray()
            _, counts = np.unique(H.T, axis=0, return_counts=True)
            out[i] = np.sum(counts * (counts - 1) / 2)
        return out

    est = estimate_mean(pairs, 300, rng=6, chunk_size=100, level=0.999)
    assert est.contains(ldpc.expected_stopping_sets(n, 3, 6, 2))
    assert not est.contains(ldpc.expected_stopping_sets(n, 3, 6, 2, multi_edges="keep"))


def test_lt_profile_refuses_sizes_that_cannot_finish_or_fit():
    # the CI finding: 14 x 3778084798 states (a 28 GiB array), refused at once by name
    with pytest.raises(ValueError, match=r"k, received: .* 14 x 3778084798 states"):
        ldpc.lt_peeling_profile(14, 3778084798.0, {1: 0.5, 2: 0.5})
    with pytest.raises(ValueError, match=r"^n: .*raptor_failure_rate"):
        ldpc.raptor_failure_profile(10**7, 10, 0.1)
    # just under the cap it answers (a distribution over 0..k unrecovered inputs)
    prof = ldpc.lt_peeling_profile(4, 2000, {1: 0.5, 2: 0.5})
    assert prof.unrecovered.sum() + prof.truncation == pytest.approx(1.0, abs=1e-9)


def test_scaling_and_floor_bad_input():
    with pytest.raises(ValueError, match="stability-limited.*Monte Carlo"):
        ldpc.scaling_parameters({2: 1}, {4: 1})
    with pytest.raises(ValueError, match="degree-1"):
        ldpc.scaling_parameters({1: 0.2, 3: 0.8}, {6: 1})
    with pytest.raises(ValueError, match="erasures"):
        ldpc.regular_scaling_parameters(3, 6, erasures="bursty")
    p = ldpc.regular_scaling_parameters(3, 6)
    with pytest.raises(ValueError, match="eps"):
        p.block_erasure(1000, 1.2)
    with pytest.raises(ValueError, match="n must"):
        p.block_erasure(0, 0.4)
    with pytest.raises(ValueError, match="'cancel'"):
        ldpc.expected_stopping_sets(100, 3, 6, 2, multi_edges="cancel")
    with pytest.raises(ValueError, match="eps"):
        ldpc.error_floor(100, 3, 6, -0.5)


_ANY = st.one_of(
    st.integers(-5, 40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
)


# Bounded run time: 70 examples (10 per function); no per-example deadline, since a valid
# call may take seconds, but sizes whose work or arrays do not fit are refused at once,
# so neither a run nor a shrink can take minutes (issue: lt_peeling_profile(14, 3.8e9, ..)
# once allocated 28 GiB and hypothesis spent 5 minutes shrinking the MemoryError).
@settings(max_examples=70, deadline=None)
@given(st.sampled_from(range(7)), _ANY, _ANY, _ANY)
def test_new_public_functions_only_raise_named_value_errors(which, a, b, c):
    # fuzzing over types and ranges: a result or a ValueError, never another exception
    calls = [
        lambda: ldpc.erasure_profile(a, b, c, max_seconds=5),
        lambda: ldpc.regular_scaling_parameters(a, b, erasures=c),
        lambda: ldpc.expected_stopping_sets(40, 3, 6, a, multi_edges=b),
        lambda: ldpc.regular_map_threshold(a, b),
        lambda: ldpc.lt_peeling_profile(a, b, {1: 0.5, 2: 0.5}),
        lambda: ldpc.regular_ensemble(a, b, c),
        lambda: ldpc.erasure_profile(12, 3, 6).block_erasure(a),
    ]
    try:
        calls[which]()
    except ValueError as exc:
        assert str(exc)  # names the rule
