"""Tests of Tandon et al.'s fractional repetition and cyclic-MDS gradient codes."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory.codes.base import verify_straggler_sets
from gctheory.codes.tandon import (
    CyclicMDSCode,
    FractionalRepetitionCode,
    MatrixGradientCode,
    cyclic_support,
)

# Tandon et al. 2017, Section 2 (n = 3, s = 1 example)
B_TANDON = [[0.5, 1.0, 0.0], [0.0, 1.0, -1.0], [0.5, 0.0, 1.0]]


def test_tandon_example_decodes_from_any_two():
    code = MatrixGradientCode(B_TANDON, s=1)
    assert (code.n, code.k, code.load, code.m) == (3, 3, 2, 1)
    check = verify_straggler_sets(code, rng=0)
    assert check.ok and check.sets == 3  # C(3, 1) straggler sets
    # a^T B_T = 1^T solved by hand: T = {0, 1}: a = (2, -1); T = {1, 2}: a = (1, 2);
    # T = {0, 2}: a = (1, 1)
    for T, a in (([0, 1], [2, -1]), ([1, 2], [1, 2]), ([0, 2], [1, 1])):
        A, kappa, res = code.decoding_coefficients(T)
        np.testing.assert_allclose(A[:, 0], a, atol=1e-14)
        assert res < 1e-15
    # two stragglers: no single row of B is the all-ones vector
    assert len(verify_straggler_sets(code, 2, rng=0).failures) == 3


@pytest.mark.parametrize("construction", ["random", "deterministic"])
@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8])
def test_cyclic_mds_exhaustive(n, construction):
    for s in range(n):
        code = CyclicMDSCode(n, s, construction=construction, rng=n)
        assert code.load == s + 1 and code.is_optimal  # Tandon Thm 1: s+1 is the minimum
        np.testing.assert_array_equal(code.support, cyclic_support(n, s + 1))
        check = verify_straggler_sets(code, rng=s)
        assert check.ok and check.exhaustive and check.sets == math.comb(n, s)
        if s + 1 < n:
            # load s + 1 cannot tolerate s + 1 stragglers (Tandon et al. Thm 1): some set fails
            assert verify_straggler_sets(code, s + 1, rng=s).failures


def test_deterministic_is_real_when_n_minus_s_odd():
    assert not CyclicMDSCode(8, 3, construction="deterministic").is_complex
    assert not CyclicMDSCode(7, 2, construction="deterministic").is_complex
    assert CyclicMDSCode(8, 2, construction="deterministic").is_complex


@pytest.mark.parametrize("n,s,k", [(6, 1, None), (6, 2, None), (8, 3, 4), (9, 2, 6), (4, 3, None)])
def test_fractional_repetition_exhaustive(n, s, k):
    code = FractionalRepetitionCode(n, s, k)
    groups = n // (s + 1)
    kk = n if k is None else k
    assert code.load == kk // groups  # = k (s + 1) / n
    assert np.all(code.support.sum(axis=1) == code.load)
    assert verify_straggler_sets(code, rng=0).ok
    if s + 1 < n:
        # s + 1 stragglers fail exactly when they are one whole group: `groups` sets
        assert len(verify_straggler_sets(code, s + 1, rng=0).failures) == groups
    cost = code.decoding_cost(d=10)
    assert cost.setup == n and cost.apply == groups * 10


def test_encoding_matrix_vanishes_outside_support():
    for code in (CyclicMDSCode(7, 3, rng=1), FractionalRepetitionCode(6, 2)):
        E = code.encoding_matrix
        assert np.all(E.T[~code.support] == 0)
        assert np.all(E.T[code.support] != 0)


def test_decoding_matrix_is_B_T():
    code = CyclicMDSCode(6, 2, rng=0)
    np.testing.assert_array_equal(code.decoding_matrix([4, 1, 0, 2]), code.B[[4, 1, 0, 2]])


def test_bad_input():
    with pytest.raises(ValueError, match="s must be < n"):
        CyclicMDSCode(4, 4)
    with pytest.raises(ValueError, match="s must be an integer"):
        CyclicMDSCode(4, -1)
    with pytest.raises(ValueError, match="s \\+ 1 must divide n"):
        FractionalRepetitionCode(7, 2)
    with pytest.raises(ValueError, match="must divide k"):
        FractionalRepetitionCode(6, 1, k=4)
    with pytest.raises(ValueError, match="construction"):
        CyclicMDSCode(5, 1, construction="magic")
    with pytest.raises(ValueError, match="n x k matrix"):
        MatrixGradientCode(np.ones(3), s=0)
    with pytest.raises(ValueError, match="finite"):
        MatrixGradientCode([[np.nan]], s=0)
    with pytest.raises(ValueError, match="load must be <= n"):
        cyclic_support(3, 4)
    code = CyclicMDSCode(5, 2, rng=0)
    Y = code.encode(np.ones((5, 3)))
    with pytest.raises(ValueError, match="too few survivors"):
        code.decode([0, 1], Y[:2])


@settings(max_examples=25, deadline=None, derandomize=True)
@given(n=st.integers(2, 12), data=st.data())
def test_cyclic_mds_properties(n, data):
    s = data.draw(st.integers(0, n - 1))
    code = CyclicMDSCode(n, s, rng=data.draw(st.integers(0, 2**32 - 1)))
    # load s + 1 meets eq. (1) of Kadhe et al. with equality for m = 1, k = n
    assert code.load == s + 1 and code.is_optimal and code.m == 1
    P = np.random.default_rng(0).standard_normal((n, 3))
    assert code.encode(P).shape == (n, 3)  # no communication saving: d numbers per worker
    check = verify_straggler_sets(code, max_sets=20, rng=1)
    assert check.ok


@settings(max_examples=25, deadline=None, derandomize=True)
@given(groups=st.integers(1, 5), size=st.integers(1, 4), mult=st.integers(1, 3))
def test_fractional_repetition_properties(groups, size, mult):
    n, s, k = groups * size, size - 1, groups * mult
    code = FractionalRepetitionCode(n, s, k)
    assert code.load * n == k * (s + 1) and code.is_optimal
    # each partition is held by exactly s + 1 workers
    assert np.all(code.support.sum(axis=0) == s + 1)
    for S in itertools.islice(itertools.combinations(range(n), s), 30):
        alive = [i for i in range(n) if i not in S]
        A, _, res = code.decoding_coefficients(alive)
        assert res < 1e-15
