"""Tests of gctheory.codes.approximate (Wang-Liu-Shroff 2019; Charles et al. 2017)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory import ldpc
from gctheory import load_bounds as lb
from gctheory.codes.approximate import (
    BatchRaptorCode,
    BernoulliGradientCode,
    DFractionalRepetitionCode,
    dfrc_expected_error,
    dfrc_failure_probability,
    dfrc_group_sizes,
    dfrc_theorem4_load,
    estimate_decoding_failure,
    estimate_mean_error,
    peeling_decode,
    recovery_error,
    theorem6_batch_size,
    theorem6_degree_distribution,
    theorem6_mean_degree,
)

EPS = np.finfo(float).eps

# ------------------------------------------------------------ Example 1 (wang2019)
# Batches B1 = {D1}, B2 = {D2}, B3 = {D3, D4}, B4 = {D5, D6} (0-based partitions here).
EX1_BATCHES = [[0], [1], [2, 3], [4, 5]]
# first variant: g~1 = g1+g2, g~2 = g1, g~3 = g2+(g5+g6), g~4 = (g3+g4)+(g5+g6), g~5 = g5+g6,
# g~6 = g2+(g5+g6), transcribed from Example 1 of Wang et al. as worker x batch incidence.
EX1_H = np.array(
    [[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 1, 0, 1]], bool
)
# second variant: g~3 = g2, g~4 = g3+g4, g~6 = g1+g2
EX1_H2 = EX1_H.copy()
EX1_H2[2] = [0, 1, 0, 0]
EX1_H2[3] = [0, 0, 1, 0]
EX1_H2[5] = [1, 1, 0, 0]


def test_example1_first_variant_peels_everything_in_the_papers_order():
    code = BatchRaptorCode(EX1_BATCHES, EX1_H)
    assert code.load == 4  # worker 4 computes g3+g4+g5+g6 ("computation load ... 4")
    g = np.random.default_rng(0).standard_normal((6, 3))
    Y = code.encode(g)
    S = [0, 1, 2, 3]  # workers 5 and 6 straggle
    # value-level Algorithm 1 on the received rows
    X, rec, order = peeling_decode(EX1_H[S], Y[S])
    assert rec.all()
    # the paper's narrative: ripple g~2 gives g1; g~1 - g~2 = g2; g~3 - g2 = g5+g6;
    # g~4 - (g5+g6) = g3+g4  (rows/batches 0-based)
    assert order == [(1, 0), (0, 1), (2, 3), (3, 2)]
    for b, parts in enumerate(EX1_BATCHES):
        np.testing.assert_allclose(X[b], g[parts].sum(0), atol=8 * EPS * np.abs(g).sum())
    res = code.decode_detail(S, Y[S])
    assert res.exact and res.err == 0 and res.unrecovered == ()
    np.testing.assert_allclose(res.gradient, g.sum(0), atol=8 * EPS * np.abs(g).sum())


def test_example1_second_variant_recovers_g1_g2_g5_g6():
    code = BatchRaptorCode(EX1_BATCHES, EX1_H2)
    assert code.load == 2  # "the computation load is decreased from 4 to 2"
    g = np.random.default_rng(1).standard_normal((6, 2))
    Y = code.encode(g)
    S = [0, 1, 2, 4]  # workers 4 and 6 straggle
    res = code.decode_detail(S, Y[S])
    # Example 1: the estimate is g1 + g2 + g5 + g6, without g3, g4
    np.testing.assert_allclose(res.gradient, g[[0, 1, 4, 5]].sum(0), atol=8 * EPS * np.abs(g).sum())
    assert not res.exact and res.unrecovered == (2, 3)
    assert res.err == 2.0  # two missing partitions, each contributes 1 to ||A_S^T u - 1||^2
    # here peeling is optimal: eq. (5) gives the same error (columns 3, 4 of A_S are zero)
    assert math.isclose(recovery_error(code.A[S]), 2.0, abs_tol=1e-12)
    assert code.decoder_error(S) == 2.0


# ------------------------------------------------------------ peeling kernel
def test_peeling_coefficients_equal_value_peeling():
    rng = np.random.default_rng(2)
    code = BatchRaptorCode.theorem6(60, 6, 0.1, rng=rng)
    g = rng.standard_normal((60, 4))
    Y = code.encode(g)
    S = np.sort(rng.permutation(60)[:54])
    X, rec, _ = peeling_decode(code.H[S], Y[S])
    res = code.decode_detail(S, Y[S])
    want = X[rec].sum(0)
    u1 = np.abs(res.coefficients).sum()
    np.testing.assert_allclose(res.gradient, want, atol=10 * u1 * EPS * np.abs(g).sum())
    missing = sum(code.batches[b].size for b in np.flatnonzero(~rec))
    assert res.err == missing == code.decoder_error(S)


def test_peeling_stops_without_ripple():
    H = np.array([[1, 1], [1, 1]], bool)  # no degree-one row: nothing can be peeled
    X, rec, order = peeling_decode(H, np.ones((2, 1)))
    assert not rec.any() and order == []


# ------------------------------------------------------------ d-FRC
def test_definition4_structure():
    code = DFractionalRepetitionCode(12, 3)
    A_b = np.kron(np.eye(4, dtype=int), np.ones((1, 3), dtype=int))  # Definition 4's A_b
    np.testing.assert_array_equal(code.A, np.vstack([A_b] * 3))
    assert code.load == 3 and code.s is None and code.worst_case_tolerance == 2


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.data())
def test_dfrc_load_and_replication(n, data):
    d = data.draw(st.integers(1, n))
    code = DFractionalRepetitionCode(n, d, rng=data.draw(st.integers(0, 2**32 - 1)))
    sizes = code.group_sizes
    assert sizes.sum() == n and sizes.max() - sizes.min() <= (0 if n % d == 0 else 1)
    np.testing.assert_array_equal(code.A.sum(axis=0), np.full(n, d))  # d replicas each
    want = d if n % d == 0 else -(-n // (n // d))  # Remark 1: blocks of ceil(n / floor(n/d))
    assert code.load == want
    # everyone survives: the group-sum decoder is exact
    assert code.decoder_error(range(n)) == 0


@pytest.mark.parametrize("n,d", [(12, 3), (12, 4), (10, 5), (9, 3)])
def test_dfrc_exhaustive_worst_case(n, d):
    code = DFractionalRepetitionCode(n, d)
    g = np.random.default_rng(n * d).standard_normal((n, 3))
    Y = code.encode(g)
    for lost in itertools.combinations(range(n), d - 1):  # every set of s = d - 1 stragglers
        S = [i for i in range(n) if i not in lost]
        res = code.decode_detail(S, Y[S])
        assert res.exact and res.err == 0
        np.testing.assert_allclose(res.gradient, g.sum(0), atol=4 * n * EPS * np.abs(g).sum())
    # d stragglers holding the same block: the block is lost (err = d), as Theorem 4's event
    lost = {p * (n // d) for p in range(d)}
    S = [i for i in range(n) if i not in lost]
    res = code.decode_detail(S, Y[S])
    assert not res.exact and res.err == d and res.unrecovered == tuple(range(d))


def _best_disjoint_cover(code, S):
    """Brute force: most partitions covered by a pairwise-disjoint subset of survivors."""
    best = 0
    for r in range(len(S) + 1):
        for sub in itertools.combinations(S, r):
            cover = code.A[list(sub)].sum(axis=0)
            if np.all(cover <= 1):
                best = max(best, int(cover.sum()))
    return best


@pytest.mark.parametrize("n,d,seed", [(7, 3, 0), (8, 3, 1), (7, 2, 2)])
def test_group_sum_decoder_is_optimal_disjoint_cover(n, d, seed):
    code = DFractionalRepetitionCode(n, d, rng=seed)  # Remark 1 (d does not divide n)
    for r in range(1, n + 1):
        for S in itertools.combinations(range(n), r):
            assert code.decoder_error(S) == n - _best_disjoint_cover(code, list(S))


def test_dfrc_failure_probability_against_enumeration():
    n, d = 12, 3
    code = DFractionalRepetitionCode(n, d)
    for s in range(0, 9):
        fails = errs = 0
        for lost in itertools.combinations(range(n), s):
            e = code.decoder_error([i for i in range(n) if i not in lost])
            fails += e > 0
            errs += e
        total = math.comb(n, s)
        assert dfrc_failure_probability(n, d, s) == Fraction(fails, total)
        assert dfrc_expected_error(n, d, s) == Fraction(int(errs), total)


def test_dfrc_failure_monte_carlo_with_negative_control():
    n, d, s = 30, 3, 12
    code = DFractionalRepetitionCode(n, d)
    exact = float(dfrc_failure_probability(n, d, s))
    est = estimate_decoding_failure(code, s, 3000, rng=20190601, level=0.99)
    assert est.contains(exact)
    # negative control: the failure probability with d - 1 = 2 replicas is a wrong target
    wrong = float(dfrc_failure_probability(n, 2, s))
    assert not est.contains(wrong)
    # expected error (CLT interval through estimate_mean)
    m = estimate_mean_error(code, s, 3000, rng=7, level=0.99)
    assert m.contains(float(dfrc_expected_error(n, d, s)))
    assert not m.contains(float(dfrc_expected_error(n, d, s + 3)))


def test_theorem4_load():
    # eq. (14) by hand: n = 1000, s = 100: log(1000 ln 10) / ln 10 = 3.3622...
    assert math.isclose(dfrc_theorem4_load(1000, 100), math.log(1000 * math.log(10)) / math.log(10))
    # delta = 0.9: log(10 ln(10/9)) / ln(10/9) = log(1.054) / 0.105 = 0.50 < 1, so the max is 1
    assert dfrc_theorem4_load(10, 9) == 1.0
    with pytest.raises(ValueError, match="s must be >= 1"):
        dfrc_theorem4_load(10, 0)


def test_lstsq_decoder_never_worse_than_group_sum():
    rng = np.random.default_rng(4)
    grp = DFractionalRepetitionCode(11, 3, rng=5)
    ls = DFractionalRepetitionCode(11, 3, rng=5, decoder="lstsq")
    np.testing.assert_array_equal(grp.A, ls.A)
    for _ in range(40):
        S = rng.permutation(11)[: rng.integers(1, 12)]
        assert ls.decoder_error(S) <= grp.decoder_error(S) + 1e-9


# ------------------------------------------------------------ batch raptor code
def test_theorem6_distribution():
    deg, p = theorem6_degree_distribution(0.1)
    # eq. (17) by hand with eps = 1/10: D = 10, u = 2(0.1)(0.8)/0.36 = 4/9, u + 1 = 13/9
    np.testing.assert_array_equal(deg, np.arange(1, 12))
    assert math.isclose(p[0], (4 / 9) / (13 / 9), rel_tol=1e-15)
    assert math.isclose(p[1], 1 / (2 * 13 / 9), rel_tol=1e-15)
    assert math.isclose(p[-1], 1 / (10 * 13 / 9), rel_tol=1e-15)
    assert math.isclose(p.sum(), 1.0, rel_tol=1e-15)
    # mean: exact closed form vs the float pmf
    assert math.isclose(float(theorem6_mean_degree(0.1)), float(deg @ p), rel_tol=1e-14)
    # (u + H_9 + 1 + 1/10) / (u + 1) with u = 4/9, H_9 = 7129/2520 (harmonic number)
    assert theorem6_mean_degree("0.1") == (
        Fraction(4, 9) + Fraction(7129, 2520) + Fraction(11, 10)
    ) / Fraction(13, 9)


def test_theorem6_matches_ldpc_module_if_present():
    # an independent implementation of eq. (17) lives in gctheory.ldpc (another author)
    f = ldpc.raptor_degree_distribution
    theirs = f(Fraction(1, 20))  # {degree: probability}
    deg, mine = theorem6_degree_distribution(Fraction(1, 20))
    assert sorted(theirs) == deg.tolist()
    np.testing.assert_allclose([float(theirs[k]) for k in deg], mine, rtol=1e-15)


def test_theorem6_batch_size():
    # b = ceil(1/ln(1/delta)) + 1 by hand: delta = 0.1 -> ceil(0.434) + 1 = 2;
    # delta = 0.5 -> ceil(1.443) + 1 = 3; delta = 0.9 -> ceil(9.49) + 1 = 11
    assert theorem6_batch_size(100, 10) == 2
    assert theorem6_batch_size(100, 50) == 3
    assert theorem6_batch_size(100, 90) == 11


@settings(max_examples=40, deadline=None)
@given(st.integers(8, 60), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_random_brc_structure(n, b, seed):
    K = n // b
    degrees = np.arange(1, min(K, 4) + 1)
    pmf = np.full(degrees.size, 1 / degrees.size)
    code = BatchRaptorCode.random(n, b, degrees, pmf, rng=seed)
    sizes = np.array([bt.size for bt in code.batches])
    assert sizes.sum() == n and len(sizes) == K
    assert set(sizes.tolist()) <= {n // K, -(-n // K)}  # leftover spread evenly
    if n % b < K:
        assert set(sizes.tolist()) <= {b, b + 1}  # the Remark 1 pattern
    assert set(code.H.sum(axis=1).tolist()) <= set(degrees.tolist())
    # load = max over workers of the partitions in its batches (Definition 2)
    assert code.load == max(sizes[code.H[i]].sum() for i in range(n))
    # optimal decoding is never worse than peeling
    rng = np.random.default_rng(seed)
    S = rng.permutation(n)[: rng.integers(1, n + 1)]
    ls = BatchRaptorCode(code.batches, code.H, decoder="lstsq")
    assert ls.decoder_error(S) <= code.decoder_error(S) + 1e-9


def test_brc_exact_enumeration_vs_monte_carlo():
    code = BatchRaptorCode.theorem6(16, 4, 0.2, rng=11)
    s = 4
    errs = [
        code.decoder_error([i for i in range(16) if i not in lost])
        for lost in itertools.combinations(range(16), s)
    ]
    p_exact = float(np.mean(np.array(errs) > 0))  # brute-force enumeration, 1820 sets
    est = estimate_decoding_failure(code, s, 4000, rng=3, level=0.99)
    assert est.contains(p_exact)
    assert not est.contains(min(1.0, p_exact + 0.1))  # negative control
    m = estimate_mean_error(code, s, 4000, rng=4, level=0.99)
    assert m.contains(float(np.mean(errs)))
    assert not m.contains(float(np.mean(errs)) * 1.3)


# ------------------------------------------------------------ Bernoulli gradient code
def test_bgc_least_squares_decoding():
    code = BernoulliGradientCode(20, 0.25, rng=8)
    rng = np.random.default_rng(9)
    g = rng.standard_normal((20, 3))
    Y = code.encode(g)
    S = np.sort(rng.permutation(20)[:14])
    res = code.decode_detail(S, Y[S])
    assert math.isclose(res.err, recovery_error(code.A[S]), rel_tol=1e-9, abs_tol=1e-12)
    # |u^T A_S g - 1^T g| = |e^T g| <= ||e|| ||g||  (Cauchy-Schwarz), plus rounding
    bound = math.sqrt(res.err) * np.linalg.norm(g, axis=0) + 1e-10
    assert np.all(np.abs(res.gradient - g.sum(0)) <= bound)
    # err(A_S) >= number of all-zero columns of A_S (they are unreachable)
    assert res.err >= np.sum(~code.A[S].any(axis=0)) - 1e-9


def test_bgc_monte_carlo_against_enumeration():
    n, s = 10, 3
    code = BernoulliGradientCode(n, 0.3, rng=12)
    errs = np.array(
        [
            code.decoder_error([i for i in range(n) if i not in lost])
            for lost in itertools.combinations(range(n), s)
        ]
    )
    est = estimate_mean_error(code, s, 2000, rng=13, level=0.99)
    assert est.contains(errs.mean())  # brute-force enumeration over the 120 sets
    assert not est.contains(errs.mean() + 0.3)  # negative control


# ------------------------------------------------------------ recovery error, bad input
def test_recovery_error_limits():
    assert recovery_error(np.zeros((0, 5))) == 5.0
    assert recovery_error(np.zeros((2, 5))) == 5.0
    assert math.isclose(recovery_error(np.ones((1, 5))), 0.0, abs_tol=1e-20)
    # one row [1, 0]: the best multiple misses the second coordinate entirely
    assert math.isclose(recovery_error(np.array([[1.0, 0.0]])), 1.0)


def test_bad_input():
    with pytest.raises(ValueError, match="d must be <= n"):
        DFractionalRepetitionCode(4, 5)
    with pytest.raises(ValueError, match="decoder must be"):
        DFractionalRepetitionCode(4, 2, decoder="magic")
    with pytest.raises(ValueError, match="d must divide n"):
        dfrc_failure_probability(10, 3, 2)
    with pytest.raises(ValueError, match="s must be < n"):
        dfrc_failure_probability(9, 3, 9)
    with pytest.raises(ValueError, match="s must be < n"):
        estimate_decoding_failure(DFractionalRepetitionCode(6, 2), 6, 10, rng=0)
    for threshold in (math.nan, True, -1.0, math.inf, "0"):  # True is not a threshold of 1
        with pytest.raises(ValueError, match=r"^threshold must"):
            estimate_decoding_failure(DFractionalRepetitionCode(6, 2), 2, 10, threshold=threshold)
    with pytest.raises(ValueError, match="eps must lie in"):
        theorem6_degree_distribution(0.25)
    with pytest.raises(ValueError, match="eps must lie in"):
        theorem6_degree_distribution(-0.1)
    with pytest.raises(ValueError, match="p must be a probability"):
        BernoulliGradientCode(5, 1.5)
    with pytest.raises(ValueError, match="cover partitions"):
        BatchRaptorCode([[0], [2]], np.ones((3, 2)))
    with pytest.raises(ValueError, match="H must be an n x K"):
        BatchRaptorCode([[0], [1]], np.ones((3, 3)))
    with pytest.raises(ValueError, match="every degree with positive mass"):
        BatchRaptorCode.random(10, 5, [1, 3], [0.5, 0.5], rng=0)
    with pytest.raises(ValueError, match="b must be <= k"):
        BatchRaptorCode.random(4, 5, [1], [1.0], rng=0)
    with pytest.raises(ValueError, match="sum to 1"):
        BatchRaptorCode.random(10, 2, [1, 2], [0.5, 0.6], rng=0)
    code = DFractionalRepetitionCode(6, 2)
    Y = code.encode(np.ones((6, 2)))
    with pytest.raises(ValueError, match="distinct"):
        code.decode([0, 0], Y[[0, 0]])
    with pytest.raises(ValueError, match="received must have shape"):
        code.decode([0, 1], Y[[0]])
    with pytest.raises(ValueError, match="partials must have shape"):
        code.encode(np.ones((5, 2)))
    with pytest.raises(ValueError, match="in \\[0, n\\)"):
        code.decoder_error([0, 6])
    with pytest.raises(ValueError, match="n must be"):
        dfrc_group_sizes(0, 1)


def test_monte_carlo_bit_identical_on_a_process_pool():
    code = DFractionalRepetitionCode(24, 3)
    serial = estimate_decoding_failure(code, 9, 400, rng=5, chunk_size=100)
    pooled = estimate_decoding_failure(code, 9, 400, rng=5, chunk_size=100, executor=2)
    assert serial.successes == pooled.successes


def test_decoding_costs():
    frc = DFractionalRepetitionCode(12, 3)
    c = frc.decoding_cost(range(12), d=5)
    assert c.setup == 24 and c.apply == 4 * 5  # DP over 12 + 12, four blocks of length 5
    brc = BatchRaptorCode(EX1_BATCHES, EX1_H)
    c = brc.decoding_cost([0, 1, 2, 3], d=2)
    assert c.setup == 7 and c.apply == 14  # 7 edges among workers 1-4 of Example 1


def test_dfrc_failure_probability_matches_load_bounds_module():
    # an independent implementation (generating polynomial, gctheory.load_bounds, another
    # author) of the same exact probability when d | n
    f = lb.frc_failure_probability
    for n, d in [(12, 3), (30, 5), (100, 4)]:
        for s in (0, d - 1, d, n // 3, n - 1):
            assert f(n, s, d) == dfrc_failure_probability(n, d, s)
