"""Tests of CommFR-GC (Kadhe, Koyluoglu, Ramchandran 2019, Section III)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory import ldpc
from gctheory.codes.base import verify_straggler_sets
from gctheory.codes.commfr import (
    COMMFR_FAMILIES,
    CommFRCode,
    CommFRLDPCCode,
    commfr_code,
    commfr_triple,
    minimum_distance,
)
from gctheory.codes.tandon import FractionalRepetitionCode

# Kadhe et al. 2019, eq. (6): generator of the [4, 2, 3] code of the Fig. 1 example
G_EQ6 = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 2.0]])


def test_fig1_example():
    code = CommFRCode(8, 4, G_EQ6)
    # delta by enumeration of column pairs (any two columns of G independent)
    assert code.delta == 3
    assert code.triple == (2, 2, 2)  # Theorem 1: (kN/n, K, delta - 1) = (4 * 4 / 8, 2, 3 - 1)
    assert code.groups == 2 and code.systematic_columns.tolist() == [0, 1]
    # placement: workers 0-3 hold D_1, D_2; workers 4-7 hold D_3, D_4 (Section III-A)
    assert code.support[:4].tolist() == [[True, True, False, False]] * 4
    assert code.support[4:].tolist() == [[False, False, True, True]] * 4
    P = np.random.default_rng(0).standard_normal((4, 4))
    Y = code.encode(P)
    assert Y.shape == (8, 2)  # ceil(d / m) = 2
    for i, grp in enumerate([(0, 1), (2, 3)]):
        gsum = P[list(grp)].sum(0)
        g_mat = np.array([[gsum[0], gsum[2]], [gsum[1], gsum[3]]])  # the 2 x 2 matrix of Fig. 1
        for j in range(4):
            np.testing.assert_allclose(Y[4 * i + j], g_mat @ G_EQ6[:, j], atol=1e-14)
    check = verify_straggler_sets(code, rng=1)
    assert check.ok and check.sets == 28  # C(8, 2)
    # 3 stragglers fail iff all 3 are in one group: 2 * C(4, 3) = 8 sets (closed form)
    assert len(verify_straggler_sets(code, 3, rng=1).failures) == 8


_CASES = [
    (fam, *params)
    for params in [(8, 4, 4, 2), (6, 6, 3, 1), (12, 6, 6, 3), (9, 3, 3, 2)]
    for fam in COMMFR_FAMILIES
    if fam != "repetition" or params[3] == 1
]


@pytest.mark.parametrize("family,n,k,N,K", _CASES)
def test_families_exhaustive(family, n, k, N, K):
    code = commfr_code(n, k, N, K, family=family, rng=n + K)
    assert minimum_distance(code.G) == N - K + 1  # MDS, checked by enumeration
    assert code.triple == (k * N // n, K, N - K)  # Theorem 1 with delta = N - K + 1
    assert code.is_optimal  # Corollary 1
    check = verify_straggler_sets(code, rng=0)
    assert check.ok and check.sets == math.comb(n, N - K)
    fails = verify_straggler_sets(code, N - K + 1, rng=0).failures
    # s + 1 stragglers fail iff they all fall in one group: (n / N) * C(N, s + 1) sets
    assert len(fails) == (n // N) * math.comb(N, N - K + 1)


def test_remark1_repetition_is_fractional_repetition():
    for n, k, N in [(8, 4, 4), (6, 6, 3), (12, 8, 3), (5, 5, 5)]:
        rep = commfr_code(n, k, N, 1, family="repetition")
        fr = FractionalRepetitionCode(n, N - 1, k)
        assert rep.triple == (fr.load, 1, fr.s)
        np.testing.assert_array_equal(rep.encoding_matrix, fr.encoding_matrix)
        np.testing.assert_array_equal(rep.support, fr.support)


def test_systematic_fast_path_equals_generic_solve():
    code = commfr_code(12, 6, 6, 3, family="systematic", rng=3)
    P = np.random.default_rng(4).standard_normal((6, 9))
    Y = code.encode(P)
    rng = np.random.default_rng(5)
    for _ in range(10):
        T = np.sort(rng.choice(12, 8, replace=False))
        if any(np.sum((T >= g * 6) & (T < g * 6 + 6)) < 3 for g in range(2)):
            continue
        A, _, res = code.decoding_coefficients(T, check=False)
        E_T = code.encoding_matrix[:, T]
        generic = np.linalg.lstsq(E_T, np.tile(np.eye(3), (6, 1)), rcond=None)[0]
        assert res < 1e-12
        # both are exact decoders: they give the same chunk sums
        np.testing.assert_allclose(A.T @ Y[T], generic.T @ Y[T], atol=1e-10)


def test_proposition1_cost():
    # systematic [m+s, m] MDS, worst case: each group inverts a min(m, s) block
    n, m, s = 60, 4, 2
    code = commfr_code(n, n, m + s, m, family="systematic", rng=0)
    cost = code.decoding_cost()
    groups = n // (m + s)
    assert cost.setup == groups * min(m, s) ** 3  # Prop. 1: (min(m,s))^3 n / (m+s)
    # a set with no systematic worker erased costs nothing to set up
    alive = [i for i in range(n) if i % (m + s) < m]
    assert code.decoding_cost(alive).setup == 0


def test_complex_vandermonde_decodes_real_gradient():
    code = commfr_code(10, 5, 10, 4, family="vandermonde-complex")
    assert code.is_complex
    P = np.random.default_rng(0).standard_normal((5, 8))
    Y = code.encode(P)
    T = [0, 2, 3, 9]
    g = code.decode(T, Y[T], 8)
    np.testing.assert_allclose(g.real, P.sum(0), atol=1e-12)
    np.testing.assert_allclose(g.imag, 0, atol=1e-12)


def test_decoding_matrix_block_diagonal():
    code = CommFRCode(8, 4, G_EQ6)
    M = code.decoding_matrix([5, 0, 7, 2])
    assert M.shape == (4, 4)
    np.testing.assert_array_equal(M[:2, [1, 3]], G_EQ6[:, [0, 2]])
    np.testing.assert_array_equal(M[2:, [0, 2]], G_EQ6[:, [1, 3]])
    assert np.all(M[:2, [0, 2]] == 0) and np.all(M[2:, [1, 3]] == 0)


def test_bad_input():
    with pytest.raises(ValueError, match="N must divide n"):
        commfr_code(10, 5, 4, 2)
    with pytest.raises(ValueError, match="n must divide k N"):
        commfr_code(10, 5, 5, 2)
    with pytest.raises(ValueError, match="K must be <= N"):
        commfr_code(8, 4, 4, 5)
    with pytest.raises(ValueError, match="repetition code has K = 1"):
        commfr_code(8, 4, 4, 2, family="repetition")
    with pytest.raises(ValueError, match="family must be one of"):
        commfr_code(8, 4, 4, 2, family="polar")
    with pytest.raises(ValueError, match="finite"):
        CommFRCode(8, 4, np.full((2, 4), np.inf))
    with pytest.raises(ValueError, match="Singleton"):
        commfr_triple(8, 4, 4, 2, 4)
    with pytest.raises(ValueError, match="rank K"):
        minimum_distance(np.ones((2, 4)))
    with pytest.raises(ValueError, match="max_subsets"):
        minimum_distance(np.random.default_rng(0).standard_normal((10, 30)), max_subsets=10)
    code = CommFRCode(8, 4, G_EQ6)
    Y = code.encode(np.ones((4, 4)))
    with pytest.raises(ValueError, match="too few survivors"):
        code.decode([0, 1, 2, 3, 4], Y[:5])


def test_s_plus_one_in_one_group_is_reported():
    code = CommFRCode(8, 4, G_EQ6)
    Y = code.encode(np.ones((4, 4)))
    # 3 stragglers, all in group 2: group 2 keeps one worker (< K = 2)
    res = code.decode_detail([0, 1, 2, 3, 4], Y[:5], check=False)
    assert not res.exact and res.residual > 0.1


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    p=st.integers(1, 3),
    N=st.integers(1, 6),
    data=st.data(),
)
def test_theorem1_triple(p, N, data):
    K = data.draw(st.integers(1, N))
    l_ = data.draw(st.integers(1, 3))
    n, k = p * N, p * l_
    family = data.draw(st.sampled_from(["gaussian", "systematic", "vandermonde"]))
    code = commfr_code(n, k, N, K, family=family, rng=data.draw(st.integers(0, 2**31)))
    assert code.triple == (l_, K, N - K)  # (kN/n, K, delta - 1) with delta = N - K + 1
    assert minimum_distance(code.G) == N - K + 1
    # eq. (1) with equality: l/k = (s + m)/n  <=>  l n = k (s + m)
    assert code.load * n == k * (code.s + code.m)
    assert verify_straggler_sets(code, max_sets=15, rng=0).ok


def test_ldpc_peeling():
    H = ldpc.regular_ensemble(12, 3, 6, rng=3)
    code = CommFRLDPCCode(24, 12, H)
    assert code.K == 12 - np.linalg.matrix_rank(np.asarray(H.toarray(), float))
    assert code.s >= 1 and code.triple == (6, code.K, code.s)
    check = verify_straggler_sets(code, rng=0)
    assert check.ok and check.sets == math.comb(24, code.s)
    # beyond s: decoding succeeds exactly when peeling (gctheory.ldpc.peel) succeeds in each group
    P = np.random.default_rng(1).standard_normal((12, 4))
    Y = code.encode(P)
    rng = np.random.default_rng(2)
    seen = {True: 0, False: 0}
    for _ in range(40):
        T = np.sort(rng.choice(24, 18, replace=False))
        peeled = all(
            not ldpc.peel(
                H, ~np.isin(np.arange(12), T[(T >= g * 12) & (T < g * 12 + 12)] - g * 12)
            ).any()
            for g in range(2)
        )
        seen[peeled] += 1
        if peeled:
            np.testing.assert_allclose(code.decode(T, Y[T], 4), P.sum(0), atol=1e-10)
        else:
            with pytest.raises(ValueError, match="cannot decode"):
                code.decode(T, Y[T], 4)
    assert seen[True] and seen[False]  # both outcomes exercised with this seed
    assert code.decoding_cost(d=4).method == "peeling"


def test_ldpc_bad_input():
    with pytest.raises(ValueError, match="0/1 parity-check"):
        CommFRLDPCCode(4, 4, np.array([[2, 1, 0, 1]]))
    with pytest.raises(ValueError, match="K = 0"):
        CommFRLDPCCode(2, 2, np.eye(2))


@settings(max_examples=20, deadline=None, derandomize=True)
@given(N=st.integers(2, 6), p=st.integers(1, 2), data=st.data())
def test_theorem1_non_mds_codes(N, p, data):
    # small integer generators, often not MDS: delta by enumeration, tolerance by decoding
    K = data.draw(st.integers(1, N))
    entries = st.lists(st.integers(-1, 1), min_size=K * N, max_size=K * N)
    G = np.array(data.draw(entries), dtype=float).reshape(K, N)
    G[:, :K] += np.eye(K) * 3  # full rank K (diagonally dominant leading block)
    code = CommFRCode(p * N, p, G)
    delta = code.delta
    assert 1 <= delta <= N - K + 1  # Singleton bound
    n, k, s, m = code.n, code.k, code.s, code.m
    # eq. (1): l/k >= (s + m)/n, with equality iff the code is MDS (Corollary 1)
    assert code.load * n >= k * (s + m)
    assert (code.load * n == k * (s + m)) == (delta == N - K + 1)
    assert verify_straggler_sets(code, rng=0).ok
    if s + 1 < N:
        # delta - 1 is tight: some set of delta erasures in one group leaves rank < K
        assert verify_straggler_sets(code, s + 1, rng=0).failures


def test_fast_paths_equal_generic_interface():
    # per-group encode / residual == the generic formulas of GradientCode on the full E
    from gctheory.codes.base import GradientCode

    code = commfr_code(12, 6, 6, 3, family="gaussian", rng=8)
    P = np.random.default_rng(9).standard_normal((6, 7))
    np.testing.assert_allclose(code.encode(P), GradientCode.encode(code, P), atol=1e-13)
    for T in ([0, 1, 2, 6, 7, 8], [0, 1, 6, 7, 8, 9, 10], [0, 3, 4, 5, 11]):
        T = np.array(T)
        A, _ = code._solve(T)
        assert code._residual(T, A) == pytest.approx(GradientCode._residual(code, T, A), abs=1e-14)
