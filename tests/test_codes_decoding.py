"""Fast decoding: the null-space decoder, decode_many, the coefficient cache, the CLI fixes."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from gctheory.cli import main
from gctheory.codes import (
    CommFRCode,
    CyclicMDSCode,
    DFractionalRepetitionCode,
    FractionalRepetitionCode,
    MatrixGradientCode,
    YeAbbeCode,
    verify_straggler_sets,
)


def _lstsq(code, T):
    E_T = code.encoding_matrix[:, T]
    C = np.tile(np.eye(code.m), (code.k, 1))
    return np.linalg.lstsq(E_T, C, rcond=None)[0]


@pytest.mark.parametrize("n, s", [(6, 1), (10, 3), (12, 0), (9, 4)])
def test_nullspace_coefficients_equal_least_squares_at_n_minus_s(n, s):
    # with exactly n - s survivors the decoding vector is unique, so the null-space decoder
    # must give Tandon et al.'s lstsq coefficients (enumeration of every set)
    code = CyclicMDSCode(n, s, rng=n + s)
    for S in itertools.combinations(range(n), s):
        T = np.setdiff1d(np.arange(n), S)
        A = code._nullspace_coefficients(T)
        np.testing.assert_allclose(A, _lstsq(code, T), atol=1e-9)


def test_decode_matches_truth_with_more_survivors_and_any_order():
    code = CyclicMDSCode(10, 3, rng=2)
    P = np.random.default_rng(3).standard_normal((10, 7))
    Y = code.encode(P)
    for T in ([9, 0, 4, 2, 7, 1, 5, 3], list(range(10)), [5, 6, 7, 8, 9, 0, 1]):
        T = np.array(T)
        np.testing.assert_allclose(code.decode(T, Y[T], 7), P.sum(0), atol=1e-10)


def test_decode_has_no_condition_number_but_decode_detail_does():
    code = CyclicMDSCode(8, 2, rng=0)
    P = np.random.default_rng(1).standard_normal((8, 3))
    Y = code.encode(P)
    T = np.arange(6)
    fast = code.decode_detail(T, Y[T], condition=False)
    slow = code.decode_detail(T, Y[T])
    assert math.isnan(fast.condition_number) and slow.condition_number >= 1
    np.testing.assert_allclose(fast.gradient, slow.gradient)
    assert fast.residual == slow.residual < 1e-12


def test_residual_check_still_refuses_an_undecodable_set():
    # negative control: an uncoded placement (B = I) claimed to tolerate s = 1 cannot decode
    # from 3 of 4 workers; the cheap residual check must catch it
    code = MatrixGradientCode(np.eye(4), 1)
    Y = code.encode(np.ones((4, 2)))
    T = np.arange(3)
    with pytest.raises(ValueError, match="cannot decode"):
        code.decode(T, Y[T])
    with pytest.raises(ValueError, match="cannot decode"):
        code.decode_many(T[None, :], Y)
    res = code.decode_detail(T, Y[T], check=False)
    assert res.exact is False and res.residual == pytest.approx(0.5)  # closed form sqrt(1/4)
    code8 = CyclicMDSCode(8, 2, rng=0)
    with pytest.raises(ValueError, match="too few survivors"):
        code8.decode(np.arange(5), code8.encode(np.ones((8, 2)))[:5])


def test_decode_many_equals_single_decodes():
    rng = np.random.default_rng(5)
    for code in (
        CyclicMDSCode(12, 3, rng=1),
        MatrixGradientCode(np.array([[0.5, 1, 0], [0, 1, -1], [0.5, 0, 1]]), 1),
        FractionalRepetitionCode(12, 2),
        CommFRCode(8, 4, np.array([[1.0, 0, 1, 1], [0, 1, 1, 2]])),
        YeAbbeCode(8, 2, 2, V="gaussian", rng=0),
    ):
        P = rng.standard_normal((code.k, 6))
        Y = code.encode(P)
        t = code.n - code.s
        sets = np.array([rng.permutation(code.n)[:t] for _ in range(25)])
        single = np.array([code.decode(T, Y[T], 6) for T in sets])
        many = code.decode_many(sets, Y, 6)
        np.testing.assert_allclose(many, single, atol=1e-9)
        np.testing.assert_allclose(many, np.tile(P.sum(0), (25, 1)), atol=1e-8)
        # per-set received rows, and sets of different sizes
        per = code.decode_many(list(sets), [Y[T] for T in sets], 6)
        np.testing.assert_allclose(per, single, atol=1e-9)
        mixed = [sets[0], np.arange(code.n)]
        np.testing.assert_allclose(
            code.decode_many(mixed, Y, 6), np.tile(P.sum(0), (2, 1)), atol=1e-8
        )


def test_decode_many_refuses_bad_input_and_undecodable_sets():
    code = CyclicMDSCode(8, 2, rng=0)
    Y = code.encode(np.ones((8, 2)))
    with pytest.raises(ValueError, match="distinct"):
        code.decode_many(np.array([[0, 0, 1, 2, 3, 4]]), Y)
    with pytest.raises(ValueError, match=r"in \[0, n\)"):
        code.decode_many(np.array([[0, 1, 2, 3, 4, 8]]), Y)
    with pytest.raises(ValueError, match="too few survivors"):
        code.decode_many(np.array([[0, 1, 2, 3, 4]]), Y)
    with pytest.raises(ValueError, match="one array per survivor set"):
        code.decode_many(np.array([[0, 1, 2, 3, 4, 5]]), [Y[:6], Y[:6]])
    with pytest.raises(ValueError, match="all n=8 workers"):
        code.decode_many(np.array([[0, 1, 2, 3, 4, 5]]), Y[:6])


def test_cache_returns_the_same_read_only_coefficients():
    code = CyclicMDSCode(10, 2, rng=4)
    Y = code.encode(np.random.default_rng(0).standard_normal((10, 3)))
    T = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    A1, _, r1 = code.decoding_coefficients(T)
    A2, _, r2 = code.decoding_coefficients(T)
    assert A1 is A2 and r1 == r2 and not A1.flags.writeable
    code.decode_cache_size = 2
    for S in ([0, 1], [2, 3], [4, 5]):
        alive = np.setdiff1d(np.arange(10), S)
        code.decode(alive, Y[alive])
    assert len(code._decode_cache) == 2  # the oldest set was dropped
    code.clear_decode_cache()
    assert "_decode_cache" not in code.__dict__
    code.decode_cache_size = 0
    code.decode(T, Y[T])
    assert "_decode_cache" not in code.__dict__


def test_group_decoders_pick_one_survivor_per_group():
    rng = np.random.default_rng(0)
    for code, block in (
        (FractionalRepetitionCode(20, 4), lambda w: w // 5),
        (DFractionalRepetitionCode(20, 4), lambda w: w % 5),
    ):
        for _ in range(20):
            T = rng.permutation(20)[:14]
            A = code.decoding_coefficients(T, check=False)[0][:, 0]
            chosen = T[A == 1]
            assert len({block(int(w)) for w in chosen}) == chosen.size  # disjoint
            assert {block(int(w)) for w in chosen} == {block(int(w)) for w in T}  # all present


def test_verify_refuses_max_sets_zero():
    with pytest.raises(ValueError, match="max_sets"):
        verify_straggler_sets(CyclicMDSCode(6, 1, rng=0), max_sets=0)


# --------------------------------------------------------------- CLI (issue 12)
def test_cli_max_sets_zero_is_an_error(capsys):
    assert main(["codes", "verify", "cyclic-mds", "--n", "6", "--s", "1", "--max-sets", "0"]) == 2
    assert "--max-sets must be an integer >= 1" in capsys.readouterr().err


def test_cli_m_zero_is_an_error(capsys):
    rc = main(["codes", "verify", "ye-abbe-gaussian", "--n", "6", "--s", "1", "--m", "0"])
    assert rc == 2 and "--m must be an integer >= 1, got 0" in capsys.readouterr().err


def test_cli_refuses_options_the_family_ignores(capsys):
    rc = main(["codes", "verify", "reed-solomon", "--n", "8", "--k", "8", "--w", "4", "--s", "5"])
    err = capsys.readouterr().err
    assert rc == 2 and "--s is not used by family 'reed-solomon'" in err
    rc = main(["codes", "verify", "cyclic-mds", "--n", "6", "--s", "1", "--m", "2"])
    assert rc == 2 and "--m is not used" in capsys.readouterr().err


def test_cli_codes_without_subcommand_names_the_choices(capsys):
    assert main(["codes"]) == 2
    err = capsys.readouterr().err
    assert "verify" in err and "stability" in err and "model" not in err


def test_cli_json_keeps_the_header(capsys):
    assert main(["codes", "verify", "cyclic-mds", "--n", "6", "--s", "1", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["code"].startswith("cyclic-MDS") and out["n"] == 6 and out["s"] == 1
    assert out["load"] == 2 and out["optimal"] is True
    assert [r["stragglers"] for r in out["sets"]] == [1, 2]


# ------------------------------------------------- closed-form residuals (issue 16, round 2)
def test_group_residual_closed_form_equals_the_direct_residual():
    # FRC and d-FRC (equal and unequal groups): the count-based residual must equal
    # ||E_T A - 1|| / sqrt(k) evaluated by matrix products (GradientCode._residual)
    from gctheory.codes.base import GradientCode

    rng = np.random.default_rng(11)
    for code in (
        FractionalRepetitionCode(20, 4),
        FractionalRepetitionCode(12, 2, k=24),
        DFractionalRepetitionCode(20, 4),
        DFractionalRepetitionCode(23, 4, rng=1),
    ):
        for t in (20 if code.n == 20 else code.n, 14, 6, 1):
            for _ in range(15):
                T = rng.permutation(code.n)[:t]
                A, res = code._coefficients_residual(T)
                direct = GradientCode._residual(code, T, A)
                assert res == pytest.approx(direct, abs=1e-14)


def test_group_residual_check_can_fail():
    # negative control: the closed form assumes one block of ones per group; a decode that
    # misses groups must report them (residual > 0 and the exact-code check refuses)
    code = FractionalRepetitionCode(12, 2)
    Y = code.encode(np.ones((12, 3)))
    T = np.arange(3, 12)  # group 0 (workers 0..2) straggles entirely
    A, res = code._coefficients_residual(T)
    assert res == pytest.approx(math.sqrt(3 / 12))  # closed form: 1 missing group of 3 of 12
    with pytest.raises(ValueError):
        code.decode(T, Y[T])


def test_nullspace_residual_is_the_residual_of_the_coefficients_used():
    # the null-space decoder's residual comes from E X with the straggler rows set to zero:
    # it must equal the residual of E_T A recomputed from the returned coefficients
    from gctheory.codes.base import GradientCode

    rng = np.random.default_rng(12)
    for code in (CyclicMDSCode(12, 3, rng=1), YeAbbeCode(8, 2, 2, V="gaussian", rng=0)):
        for _ in range(20):
            T = rng.permutation(code.n)[: code.n - code.s]
            A, res = GradientCode._coefficients_residual(code, T)
            assert res == pytest.approx(GradientCode._residual(code, T, A), abs=1e-14)


def test_decode_many_residuals_match_single_and_flag_singular_sets():
    code = CyclicMDSCode(10, 2, rng=3)
    rng = np.random.default_rng(0)
    sets = np.array([rng.permutation(10)[:8] for _ in range(30)])
    from gctheory.codes._survivors import _rows_mask

    X, res = code._nullspace_batch(sets, _rows_mask(sets, 10))
    for i, T in enumerate(sets):
        A, direct = code._coefficients_residual(T)
        # the batch reports an upper bound on the residual, never below the direct one and
        # far below the 1e-8 acceptance threshold for these well-conditioned sets
        assert direct <= res[i] < 1e-11
        np.testing.assert_allclose(X[T, i, :], A, atol=1e-12)
    # negative control: FRC(6, s = 1) claimed to tolerate s = 2 has a null space, but losing
    # both workers of a group cannot be decoded: the bound must flag that set (and only it),
    # and decode_many must then refuse it through the single decode
    frc = MatrixGradientCode(FractionalRepetitionCode(6, 1).B, 2)
    two = np.array([[2, 3, 4, 5], [1, 3, 4, 5]])  # group {0, 1} lost / one per group left
    _, _, _, b = frc._nullspace_batch_factors(two, _rows_mask(two, 6))
    assert b[0] > 1e-6 and b[1] < 1e-10
    Yf = frc.encode(np.ones((6, 2)))
    with pytest.raises(ValueError, match="cannot decode"):
        frc.decode_many(two, Yf)
    np.testing.assert_allclose(frc.decode_many(two[1:], Yf), [[6.0, 6.0]])
    # a placement whose straggler systems are singular (B = I claimed s = 1): inf residuals
    bad = MatrixGradientCode(np.eye(4) + np.eye(4, k=1), 1)
    if bad._nullspace() is not None:
        _, r = bad._nullspace_batch(np.array([[0, 1, 2]]), _rows_mask(np.array([[0, 1, 2]]), 4))
        assert not r[0] <= 1e-6
