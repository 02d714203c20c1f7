"""Tests of the exact finite-length analysis of LT / batch raptor peeling (gctheory.ldpc.raptor)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import sparse

from gctheory import ldpc


def _enumerate_lt(k: int, N: int, p: dict) -> np.ndarray:
    """P(j inputs unrecovered), by enumerating every tuple of N output neighbourhoods.

    All tuples are decoded at once: their graphs stacked block-diagonally, every input erased.
    """
    subsets = []
    for d, w in p.items():
        for S in itertools.combinations(range(k), d):
            subsets.append((S, w / math.comb(k, d)))
    combos = list(itertools.product(subsets, repeat=N))
    rows, cols = [], []
    probs = np.empty(len(combos))
    for c, combo in enumerate(combos):
        probs[c] = math.prod(w for _, w in combo)
        for i, (S, _) in enumerate(combo):
            rows += [c * N + i] * len(S)
            cols += [c * k + j for j in S]
    shape = (len(combos) * N, len(combos) * k)
    A = sparse.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=shape)
    left = ldpc.peel(A, np.ones(shape[1], dtype=bool)).reshape(-1, k)
    return np.bincount(left.sum(axis=1), weights=probs, minlength=k + 1)


@pytest.mark.parametrize(
    "k, N, p",
    [(3, 4, {1: 0.5, 2: 0.3, 3: 0.2}), (4, 3, {1: 0.4, 2: 0.6}), (4, 4, {1: 0.3, 3: 0.7})],
)
def test_lt_profile_equals_enumeration(k, N, p):
    want = _enumerate_lt(k, N, p)  # enumeration of all output neighbourhoods
    got = ldpc.lt_peeling_profile(k, N, p)
    np.testing.assert_allclose(got.unrecovered, want, atol=1e-12)
    assert got.truncation < 1e-12


def test_raptor_profile_matches_monte_carlo():
    n, s, eps = 100, 20, 0.1  # Theorem 6 with (53) holding: b = 2, K = 50
    prof = ldpc.raptor_failure_profile(n, s, eps)
    mc_mean = ldpc.raptor_residual_rate(n, s, eps, 600, rng=3, level=0.999)
    assert mc_mean.contains(prof.mean_fraction())
    # negative control: the exact mean with 70 instead of 80 results received
    fewer = ldpc.lt_peeling_profile(50, 70, ldpc.raptor_degree_distribution(eps))
    assert not mc_mean.contains(fewer.mean_fraction())
    # where (53) fails (eps = 0.2, delta = 0.3) the error concentrates above eps: its mean
    # is above eps and P(err > eps) grows with n instead of vanishing
    small, large = (
        ldpc.raptor_failure_profile(60, 18, 0.2),
        ldpc.raptor_failure_profile(180, 54, 0.2),
    )
    assert small.mean_fraction() > 0.2 and large.mean_fraction() > 0.2
    assert large.prob_fraction_above(0.2) > small.prob_fraction_above(0.2)


def test_lt_profile_bad_input():
    with pytest.raises(ValueError, match="degree"):
        ldpc.lt_peeling_profile(3, 5, {4: 1.0})
    with pytest.raises(ValueError, match="tol"):
        ldpc.lt_peeling_profile(3, 5, {1: 1.0}, tol=0.1)
    with pytest.raises(ValueError, match="eps"):
        ldpc.lt_peeling_profile(3, 5, {1: 1.0}).prob_fraction_above(1.5)
    with pytest.raises(ValueError, match="multiple of b"):
        ldpc.raptor_failure_profile(101, 20, 0.1)
    with pytest.raises(ValueError, match="s must"):
        ldpc.raptor_failure_profile(100, 100, 0.1)
