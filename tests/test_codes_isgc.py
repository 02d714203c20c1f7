"""IS-GC: fractional, cyclic and hybrid repetition with the largest-partial-sum decoder."""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory.codes import (
    FractionalRepetitionCode,
    ISGCCode,
    ISGCDecoder,
    cyclic_max_disjoint,
    cyclic_support,
    frc_expected_recovered,
    hybrid_max_disjoint,
    hybrid_support,
    max_disjoint_exhaustive,
)
from gctheory.codes.base import GradientCode
from gctheory.montecarlo import estimate_mean


@st.composite
def _hybrid_case(draw):
    n = draw(st.integers(2, 12))
    groups = draw(st.sampled_from([g for g in range(1, n + 1) if n % g == 0]))
    n0 = n // groups
    c = draw(st.integers(1, n0))
    c1 = draw(st.integers(0, c))
    T = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    return n, c, c1, groups, T


@settings(max_examples=150, deadline=None)
@given(case=_hybrid_case())
def test_hybrid_decoder_is_maximum_and_disjoint(case):
    n, c, c1, groups, T = case
    S = hybrid_support(n, c, c1, groups)
    assert (S.sum(axis=1) == c).all()  # c distinct partitions per worker
    chosen = hybrid_max_disjoint(n, c, c1, groups, T)
    assert set(chosen) <= set(T)
    assert S[chosen].sum(axis=0).max(initial=0) <= 1  # disjoint
    assert len(chosen) == max_disjoint_exhaustive(S, T)  # enumeration


def test_hybrid_contains_fr_and_cr():
    # c1 = c, groups = n/c is Tandon et al.'s FR placement; c1 = 0, groups = 1 is cyclic
    for n, c in ((12, 3), (10, 2), (8, 4)):
        fr = FractionalRepetitionCode(n, c - 1)
        np.testing.assert_array_equal(hybrid_support(n, c, c, n // c), fr.support)
        np.testing.assert_array_equal(hybrid_support(n, c, 0, 1), cyclic_support(n, c))


def test_hybrid_layout_matches_the_description():
    # n = 12, groups = 3 (n0 = 4), c = 3, c1 = 2: worker 5 is position 1 of group 1 (base 4):
    # in-group (1 - 2 + j) mod 4 = 3, 0 -> partitions 7, 4; cyclic 5 (c2 = 1)
    S = hybrid_support(12, 3, 2, 3)
    assert np.flatnonzero(S[5]).tolist() == [4, 5, 7]
    # worker 7 (position 3): in-group 1, 2 -> 5, 6; cyclic 7
    assert np.flatnonzero(S[7]).tolist() == [5, 6, 7]


def test_cyclic_decoder_equals_the_independent_greedy():
    rng = np.random.default_rng(4)
    for n, c in ((30, 4), (25, 5), (17, 3)):
        code = ISGCCode(n, c - 1, "cyclic")
        for _ in range(40):
            T = rng.permutation(n)[: rng.integers(0, n + 1)]
            assert len(code.select(T)) == len(cyclic_max_disjoint(n, c, T))


def test_isgc_code_decodes_the_largest_partial_sum():
    rng = np.random.default_rng(5)
    for code in (
        ISGCCode(12, 2, "frc"),
        ISGCCode(12, 2, "cyclic"),
        ISGCCode(12, 2, "hybrid", c1=1, groups=3),
    ):
        P = rng.standard_normal((12, 4))
        Y = code.encode(P)
        np.testing.assert_allclose(Y, code.support.astype(float) @ P)  # plain sums
        for _ in range(20):
            T = rng.permutation(12)[: rng.integers(1, 13)]
            got = code.decode(T, Y[T], 4)
            res = code.ignore_decode(T, Y[T])
            np.testing.assert_allclose(got, res.gradient, atol=1e-12)
            np.testing.assert_allclose(got, P[list(res.partitions)].sum(axis=0), atol=1e-12)
            assert res.recovered == code.recovered_count(T) == 3 * len(res.workers)
            assert code.decoder_error(T) == 12 - res.recovered
            # closed-form residual = the residual evaluated by products
            A, r = code._coefficients_residual(np.asarray(T))
            assert r == pytest.approx(GradientCode._residual(code, np.asarray(T), A), abs=1e-14)
            detail = code.decode_detail(T, Y[T], 4)
            assert detail.err == pytest.approx(12 - res.recovered)


def test_nothing_recoverable_is_an_empty_result_not_an_exception():
    code = ISGCCode(9, 2, "hybrid", c1=1, groups=3)
    empty = code.ignore_decode([], np.zeros((0, 3)))
    assert empty.empty and empty.recovered == 0 and not empty.gradient.any()
    assert ISGCDecoder(9, 2, "hybrid", c1=1, groups=3).decode([], np.zeros((0, 3))).empty
    # decode and decode_detail flag it too (issue 16), rather than "too few survivors"
    np.testing.assert_array_equal(code.decode([], np.zeros((0, 3)), 3), np.zeros(3))
    detail = code.decode_detail([], np.zeros((0, 3)), 3)
    assert detail.empty and not detail.exact and detail.err == 9 and detail.survivors == ()
    assert detail.unrecovered == tuple(range(9)) and detail.coefficients.shape == (0, 1)
    assert code.decoder_error([]) == 9  # nothing recovered: all k partitions missing
    assert not code.decode_detail([4], np.ones((1, 3)), 3).empty
    # bad shapes and indices still raise
    with pytest.raises(ValueError, match="received must have shape"):
        code.decode([], np.zeros((2, 3)))
    with pytest.raises(ValueError, match="worker indices"):
        code.decode_detail([9], np.zeros((1, 3)))
    # exact codes keep refusing too few survivors
    from gctheory.codes.tandon import CyclicMDSCode

    exact = CyclicMDSCode(6, 2, rng=0)
    for f in (exact.decode, exact.decode_detail):
        with pytest.raises(ValueError, match="too few survivors"):
            f([], np.zeros((0, 3)))


def test_expected_recovered_exact_and_monte_carlo():
    code = ISGCCode(10, 1, "hybrid", c1=1, groups=2)
    for e in (0, 3, 6, 10):
        tot = sum(
            code.recovered_count(T) for T in itertools.combinations(range(10), 10 - e)
        )  # enumeration
        exact = code.expected_recovered(e)
        assert exact == Fraction(tot, len(list(itertools.combinations(range(10), e))))
    assert ISGCCode(12, 2, "frc").expected_recovered(5) == frc_expected_recovered(12, 2, 5)
    est = estimate_mean(partial(code.sample_recovered, 6), 4000, rng=7, progress=False)
    exact = float(code.expected_recovered(6))
    assert est.low <= exact <= est.high
    assert not est.low <= exact + 0.5 <= est.high  # negative control: a shifted target fails
    with pytest.raises(ValueError, match="max_sets"):
        ISGCCode(40, 3, "cyclic").expected_recovered(20)


def test_hybrid_beats_neither_bound():
    # for every survivor set the recovered count lies between 0 and n (and is a multiple of c)
    code = ISGCCode(12, 3, "hybrid", c1=2, groups=3)
    rng = np.random.default_rng(1)
    for _ in range(30):
        T = rng.permutation(12)[: rng.integers(1, 13)]
        r = code.recovered_count(T)
        assert 0 < r <= 12 and r % 4 == 0


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(n=12, s=2, placement="hybrid"), "needs c1"),
        (dict(n=12, s=2, placement="hybrid", c1=1, groups=5), "groups must divide n"),
        (dict(n=12, s=4, placement="hybrid", c1=1, groups=3), "c = s \\+ 1 must be <="),
        (dict(n=12, s=2, placement="hybrid", c1=4, groups=3), "c1"),
        (dict(n=12, s=2, placement="frc", c1=1), "placement='hybrid' only"),
        (dict(n=10, s=2, placement="frc"), "s \\+ 1 must divide n"),
        (dict(n=10, s=2, placement="ring"), "placement"),
    ],
)
def test_bad_parameters_are_refused_with_the_reason(kw, match):
    with pytest.raises(ValueError, match=match):
        ISGCCode(**kw)


def test_large_hybrid_decode_is_refused_at_once():
    with pytest.raises(ValueError, match="steps"):
        hybrid_max_disjoint(10**6, 100, 50, 1000, [0, 1])


def test_isgc_scheme_in_the_training_simulator():
    from gctheory.training import SCHEMES, make_scheme, simulate

    assert "isgc" in SCHEMES
    sch = make_scheme("isgc", 12, K=9, rng=1)  # design s = 3, 4 | 12: FR
    assert isinstance(sch.code, ISGCCode) and sch.code.placement == "frc" and sch.f == 9
    hyb = make_scheme(
        "isgc", 12, K=8, code_options=dict(design_s=2, placement="hybrid", c1=1, groups=3)
    )
    assert hyb.code.c1 == 1 and hyb.code.groups == 3
    run = simulate("isgc", n=12, K=9, iterations=3, rng=0)
    assert np.all(np.isfinite(run.loss)) and len(run.loss) == 4


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(-2, 30),
    s=st.integers(-2, 31),
    placement=st.sampled_from(["frc", "cyclic", "hybrid", "ring"]),
    c1=st.one_of(st.none(), st.integers(-1, 12)),
    groups=st.one_of(st.none(), st.integers(-1, 31)),
)
def test_isgc_parameter_domain(n, s, placement, c1, groups):
    # every input either builds a code whose workers hold s + 1 distinct partitions or is a
    # ValueError naming what is wrong -- never another exception
    try:
        code = ISGCCode(n, s, placement, c1=c1, groups=groups)
    except ValueError as err:
        assert any(w in str(err) for w in ("n", "s", "c1", "groups", "placement", "c ="))
        return
    assert (code.support.sum(axis=1) == s + 1).all()
    T = np.arange(0, n, 2)
    if T.size <= 12:  # exhaustive reference
        assert code.recovered_count(T) == (s + 1) * max_disjoint_exhaustive(code.support, T)


def test_decode_many_gives_a_zero_row_for_an_empty_set():
    from gctheory.codes.designs import StochasticGradientCode

    for code in (ISGCCode(12, 2, "cyclic"), StochasticGradientCode.cyclic(12, 3, 0.2)):
        P = np.random.default_rng(7).standard_normal((12, 3))
        Y = code.encode(P)
        sets = [[0, 4, 8], [], [1, 2, 5, 9]]
        got = code.decode_many(sets, Y, 3)
        assert not got[1].any()
        for i in (0, 2):  # the other rows are the single decodes
            np.testing.assert_allclose(got[i], code.decode(sets[i], Y[sets[i]], 3), atol=1e-12)
        per_set = [Y[s] if s else np.zeros((0, 3)) for s in sets]
        np.testing.assert_allclose(code.decode_many(sets, per_set, 3), got, atol=1e-12)
        assert not code.decode_many([[]], Y).any()
        with pytest.raises(ValueError, match="received must have shape"):
            code.decode_many([[0], []], [Y[[0]], np.zeros((2, 3))])


def test_decode_many_returns_bounds_with_an_empty_set():
    """return_bounds is the base contract's; the empty-set mixin used to refuse it."""
    from gctheory.codes.designs import StochasticGradientCode

    for code in (ISGCCode(12, 2, "cyclic"), StochasticGradientCode.cyclic(12, 3, 0.2)):
        Y = code.encode(np.random.default_rng(8).standard_normal((12, 3)))
        for sets in ([[0, 4, 8], [], [1, 2, 5, 9]], [[0, 4, 8], [1, 2, 5]]):
            got, bounds = code.decode_many(sets, Y, 3, return_bounds=True)
            np.testing.assert_array_equal(got, code.decode_many(sets, Y, 3))
            for i, S in enumerate(sets):
                assert bounds[i] == code.decode_detail(S, Y[S], 3).noise_bound
        with pytest.raises(ValueError, match="return_bounds"):
            code.decode_many([[]], Y, return_bounds=1)
