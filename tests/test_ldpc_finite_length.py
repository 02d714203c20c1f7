"""Tests of gctheory.ldpc.finite_length: the exact recursion against enumeration and Monte Carlo."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.utilities.iterables import multiset_permutations

from gctheory import ldpc
from gctheory.ldpc import erasure_profile


def _stuck(M: np.ndarray, erased: np.ndarray) -> np.ndarray:
    """Largest stopping set of a multigraph inside ``erased``, by enumeration of subsets.

    ``M`` holds edge multiplicities; S is a stopping set when no check has exactly one
    edge (counted with multiplicity) into S. Independent of the decoder.
    """
    idx = np.flatnonzero(erased)
    best = np.zeros(M.shape[1], dtype=bool)
    for k in range(1, idx.size + 1):
        for sub in itertools.combinations(idx, k):
            if not np.any(M[:, list(sub)].sum(axis=1) == 1):
                best[list(sub)] = True
    return best


def _enumerate(n: int, l: int, r: int) -> tuple[list, list]:
    """Exact ensemble averages over every configuration and every erasure set.

    Each configuration (variable sockets -> check labels, each label r times) comes from
    the same number (r!)^m of permutations, so the configurations are equally likely.
    All configurations are decoded at once as the disjoint union of their graphs.
    """
    m = n * l // r
    labels = [c for c in range(m) for _ in range(r)]
    configs = [np.array(seq) for seq in multiset_permutations(labels)]
    C = len(configs)
    M = np.zeros((C * m, C * n), dtype=np.int64)
    for k, seq in enumerate(configs):
        np.add.at(M, (k * m + seq, k * n + np.arange(n * l) // l), 1)
    patterns = np.array(list(itertools.product([False, True], repeat=n)))
    S = ldpc.peel_batch(M, np.tile(patterns, (1, C)), multigraph=True).reshape(-1, C, n)
    sizes = patterns.sum(axis=1)
    fails = np.bincount(sizes, weights=S.any(axis=2).sum(axis=1), minlength=n + 1)
    left = np.bincount(sizes, weights=S.sum(axis=(1, 2)), minlength=n + 1)
    den = [C * math.comb(n, v) for v in range(n + 1)]
    return (
        [Fraction(int(fails[v]), den[v]) for v in range(n + 1)],
        [Fraction(int(left[v]), den[v]) for v in range(n + 1)],
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_multigraph_peeling_leaves_the_largest_stopping_set(m, n, seed):
    rng = np.random.default_rng(seed)
    M = rng.integers(0, 4, size=(m, n)) * (rng.random((m, n)) < 0.6)  # multiplicities 0..3
    E = rng.random((5, n)) < 0.6
    for backend in ["numpy"] + (["numba"] if ldpc.HAVE_NUMBA else []):
        got = ldpc.peel_batch(M, E, multigraph=True, backend=backend)
        for e, g in zip(E, got):
            np.testing.assert_array_equal(g, _stuck(M, e))
    with pytest.raises(ValueError, match="multigraph=True"):
        ldpc.peel(np.array([[2, 1]]), np.array([True, True]))  # 0/1 required by default


@pytest.mark.parametrize("n, l, r", [(4, 2, 4), (3, 2, 3), (4, 3, 6), (3, 3, 3)])
def test_exact_recursion_equals_enumeration(n, l, r):
    fail, left = _enumerate(n, l, r)  # enumeration of every configuration and erasure set
    prof = erasure_profile(n, l, r, exact=True)
    assert list(prof.failure) == fail
    assert list(prof.residual) == left
    flt = erasure_profile(n, l, r)
    np.testing.assert_allclose([float(x) for x in fail], flt.failure, rtol=1e-14, atol=1e-300)


def test_single_erasure_closed_form():
    # one erased degree-3 variable is stuck iff its 3 edges are one triple edge:
    # P = m (r)_3 / (m r)_3 (closed form, configuration model)
    for n in (8, 20, 60):
        m, r = n // 2, 6
        want = Fraction(m * r * (r - 1) * (r - 2), (m * r) * (m * r - 1) * (m * r - 2))
        prof = erasure_profile(n, 3, 6, exact=True)
        assert prof.failure[1] == want
        assert prof.residual[1] == want  # the stuck set is the variable itself


def test_float_equals_exact_and_is_monotone():
    ex = erasure_profile(60, 3, 6, exact=True)
    fl = erasure_profile(60, 3, 6)
    rel = max(abs(float(a) - b) / float(a) for a, b in zip(ex.failure, fl.failure) if a)
    assert rel < 1e-13  # positive recursion: rounding only (measured ~5e-16)
    assert fl.normalisation_error < 1e-13
    assert all(a <= b for a, b in zip(ex.failure, ex.failure[1:]))  # more erasures never help
    assert ex.failure[0] == 0 and ex.failure[60] == 1
    e = Fraction(2, 5)
    exact_block = ex.block_erasure(e)
    assert isinstance(exact_block, Fraction)
    assert abs(float(exact_block) - fl.block_erasure(0.4)) < 1e-13
    assert fl.bit_erasure(0.4) <= fl.block_erasure(0.4)  # leftover fraction <= P(any left)
    np.testing.assert_allclose(
        fl.block_erasure(np.array([0.3, 0.4])), [fl.block_erasure(0.3), fl.block_erasure(0.4)]
    )


def test_exact_analysis_matches_monte_carlo_of_the_same_ensemble():
    n = 120
    prof = erasure_profile(n, 3, 6)
    for eps in (0.35, 0.42):
        mc = ldpc.ensemble_failure_rate(n, 3, 6, 3000, eps=eps, multi_edges="keep", rng=1)
        assert mc.contains(prof.block_erasure(eps))
        # negative control: the exact value 0.015 higher in eps lies outside the interval
        assert not mc.contains(prof.block_erasure(eps + 0.015))
    bit = ldpc.ensemble_residual_rate(n, 3, 6, 3000, eps=0.42, multi_edges="keep", rng=1)
    assert bit.contains(prof.bit_erasure(0.42))
    cnt = ldpc.ensemble_failure_rate(n, 3, 6, 3000, erasures=45, multi_edges="keep", rng=2)
    assert cnt.contains(prof.block_given_erasures(45))
    assert not cnt.contains(prof.block_given_erasures(48))  # negative control


def test_simple_graphs_are_another_ensemble_at_small_n():
    # the configuration model keeps ~5 multi-edges per (3,6) code; at n = 120 they make
    # peeling fail measurably more often than on simple graphs: the exact analysis speaks
    # for the multigraph ensemble, and the Monte Carlo it is compared with must too
    prof = erasure_profile(120, 3, 6)
    simple = ldpc.ensemble_failure_rate(
        120, 3, 6, 3000, eps=0.35, multi_edges="resample", frames_per_code=20, rng=3
    )
    assert simple.high < prof.block_erasure(0.35)


def test_finite_length_bad_input():
    with pytest.raises(ValueError, match="Monte Carlo"):
        erasure_profile(100, 3, 6, multi_edges="resample")
    with pytest.raises(ValueError, match="multi_edges"):
        erasure_profile(100, 3, 6, multi_edges="drop")
    with pytest.raises(ValueError, match="scaling law"):
        erasure_profile(5000, 3, 6)  # predicted minutes to hours: refused at once
    with pytest.raises(ValueError, match="scaling law"):
        erasure_profile(400, 3, 6, exact=True)
    with pytest.raises(ValueError, match="divisible"):
        erasure_profile(101, 3, 6)
    prof = erasure_profile(12, 3, 6)
    with pytest.raises(ValueError, match="eps"):
        prof.block_erasure(1.5)
    with pytest.raises(ValueError, match="eps"):
        prof.bit_erasure(-0.1)
    with pytest.raises(ValueError, match="t must"):
        prof.block_given_erasures(13)
    with pytest.raises(ValueError, match="exact"):
        erasure_profile(12, 3, 6, exact=1)


@pytest.mark.parametrize("eps", [1e-307, 2.2250738585072014e-308, 1.1125369292536007e-308,
                                 1e-301, 5e-324])  # fmt: skip
def test_erasure_rates_near_the_smallest_float_match_the_exact_mixture(eps):
    # scipy's binomial pmf overflows near 1e-307 (a fuzz test found it): the mixture there is
    # held against the exact sum over Fractions, in relative terms (it is tiny, not zero)
    ex = erasure_profile(12, 3, 6, exact=True)
    fl = erasure_profile(12, 3, 6)
    exact = ex.block_erasure(Fraction(eps))
    got = fl.block_erasure(eps)
    assert math.isfinite(got)
    assert abs(got - float(exact)) <= 1e-13 * float(exact) + 1e-320
    np.testing.assert_allclose(  # an array mixes each entry as a scalar does
        fl.block_erasure(np.array([eps, 0.4])), [got, fl.block_erasure(0.4)], rtol=1e-15
    )
