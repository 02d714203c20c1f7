"""Tests of the common gradient-code interface (gctheory.codes.base)."""

from fractions import Fraction

import numpy as np
import pytest

from gctheory.codes.base import (
    DecodingCost,
    GradientCode,
    check_positive_int,
    effective_condition_number,
    join_chunks,
    split_chunks,
    target_matrix,
    validate_survivors,
    verify_straggler_sets,
    ye_abbe_lower_bound,
)


class _Replication(GradientCode):
    """Every worker holds every partition and sends the full sum (load k, s = n - 1)."""

    def __init__(self, n: int, k: int, *, perturb: float = 0.0) -> None:
        self.n, self.k, self.m, self.s, self.load = n, k, 1, n - 1, k
        self.support = np.ones((n, k), dtype=bool)
        self._E = np.ones((k, n))
        self._E[0, 0] += perturb  # a broken code for negative controls

    @property
    def encoding_matrix(self) -> np.ndarray:
        return self._E


class _Split(GradientCode):
    """Uncoded m-fold split: worker i holds everything, sends chunk i of the sum (n = m, s = 0)."""

    def __init__(self, m: int, k: int) -> None:
        self.n, self.k, self.m, self.s, self.load = m, k, m, 0, k
        self.support = np.ones((m, k), dtype=bool)
        self._E = np.tile(np.eye(m), (k, 1))

    @property
    def encoding_matrix(self) -> np.ndarray:
        return self._E


def test_validate_survivors_rules():
    assert validate_survivors([2, 0, 1], 3).tolist() == [2, 0, 1]
    assert validate_survivors(np.array([1.0, 0.0]), 3).tolist() == [1, 0]
    with pytest.raises(ValueError, match="distinct"):
        validate_survivors([0, 1, 1], 3)
    with pytest.raises(ValueError, match=r"in \[0, n\)"):
        validate_survivors([0, 3], 3)
    with pytest.raises(ValueError, match=r"in \[0, n\)"):
        validate_survivors([-1], 3)
    with pytest.raises(ValueError, match="too few survivors"):
        validate_survivors([0], 3, 2)
    with pytest.raises(ValueError, match="1-D"):
        validate_survivors([[0, 1]], 3)
    with pytest.raises(ValueError, match="integer"):
        validate_survivors([0.5], 3)


def test_check_positive_int():
    assert check_positive_int("n", np.int64(3)) == 3
    for bad in (0, -1, 2.0, True, "3"):
        with pytest.raises(ValueError, match="n must be an integer"):
            check_positive_int("n", bad)
    assert check_positive_int("s", 0, minimum=0) == 0


def test_ye_abbe_lower_bound():
    # eq. (1) of Kadhe et al.: l/k >= (s+m)/n, exact fraction
    assert ye_abbe_lower_bound(8, 4, 2, 2) == Fraction(1, 2)
    with pytest.raises(ValueError, match="s must be < n"):
        ye_abbe_lower_bound(4, 4, 4, 1)


def test_effective_condition_number():
    assert effective_condition_number(np.eye(3)) == pytest.approx(1.0)
    # singular values 1 and 1e-3 -> 1e3 (closed form for a diagonal matrix)
    assert effective_condition_number(np.diag([1.0, 1e-3])) == pytest.approx(1e3)
    # repeated columns: rank 1, the zero singular value is ignored
    assert effective_condition_number(np.ones((2, 3))) == pytest.approx(1.0)
    assert effective_condition_number(np.zeros((2, 2))) == np.inf


def test_chunks_roundtrip_with_padding():
    P = np.arange(14.0).reshape(2, 7)
    rows, d = split_chunks(P, 3)
    assert rows.shape == (6, 3) and d == 7  # r = ceil(7/3) = 3
    assert rows[2].tolist() == [6.0, 0.0, 0.0]  # chunk 2 of partition 0: entry 6 then padding
    assert join_chunks(rows[:3], 7).tolist() == P[0].tolist()
    assert target_matrix(2, 3).shape == (6, 3)


def test_generic_decode_and_result():
    code = _Replication(4, 3)
    rng = np.random.default_rng(1)
    P = rng.standard_normal((3, 5))
    Y = code.encode(P)
    assert Y.shape == (4, 5)
    res = code.decode_detail([3], Y[[3]], 5)
    np.testing.assert_allclose(res.gradient, P.sum(0), rtol=0, atol=res.error_bound(3 * 4, 3))
    assert res.exact and res.survivors == (3,)
    assert "condition_number" in repr(res) and "gradient" not in repr(res)
    assert code.decode([0, 2], Y[[0, 2]]).shape == (5,)
    # replication: l/k = 1 = (s + m)/n with s = n - 1, m = 1, so eq. (1) holds with equality
    assert code.is_optimal
    assert _Split(3, 2).is_optimal  # l/k = 1 = (0 + 3)/3


def test_communication_split_code():
    code = _Split(3, 2)
    P = np.random.default_rng(2).standard_normal((2, 7))
    Y = code.encode(P)
    assert Y.shape == (3, 3)  # ceil(7 / 3) = 3 numbers per worker
    np.testing.assert_allclose(code.decode([2, 0, 1], Y[[2, 0, 1]], 7), P.sum(0), atol=1e-14)
    assert code.decode([0, 1, 2], Y).shape == (9,)  # without d: the padded length m r
    with pytest.raises(ValueError, match="too few survivors"):
        code.decode([0, 1], Y[:2])


def test_bad_shapes():
    code = _Replication(3, 2)
    with pytest.raises(ValueError, match=r"partials must have shape \(k, d\)"):
        code.encode(np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"partials must have shape \(k, d\)"):
        code.encode(np.zeros(4))
    Y = code.encode(np.ones((2, 4)))
    with pytest.raises(ValueError, match="received must have shape"):
        code.decode([0, 1], Y[:1])
    with pytest.raises(ValueError, match="ceil"):
        code.decode([0], Y[:1], d=9)
    with pytest.raises(ValueError, match="distinct"):
        code.decode([0, 0], Y[:2])


def test_exact_code_refuses_inconsistent_survivors():
    # encoding matrix with a zero column: worker 1 sends nothing useful
    code = _Replication(2, 1)
    code._E = np.array([[1.0, 0.0]])
    Y = code.encode(np.ones((1, 2)))
    with pytest.raises(ValueError, match="cannot decode"):
        code.decode([1], Y[[1]])
    res = code.decode_detail([1], Y[[1]], check=False)
    assert not res.exact and res.residual == pytest.approx(1.0)


def test_decoding_cost():
    c = DecodingCost(setup=5, apply=7, method="x")
    assert c.total == 12
    cost = _Replication(4, 3).decoding_cost(d=10)
    # dense least squares on a (k m) x t = 3 x 1 system: 2 * 3 * 1 * 1 setup, 1 * 1 * 10 apply
    assert (cost.setup, cost.apply) == (6, 10)


def test_verify_straggler_sets_and_negative_control():
    good = verify_straggler_sets(_Replication(4, 3), rng=0)
    assert good.ok and good.exhaustive and good.sets == 4  # C(4, 3) sets of s = 3 stragglers
    # negative control: worker 0 mis-encodes, so the sets where it alone survives fail
    bad = verify_straggler_sets(_Replication(4, 3, perturb=1e-3), rng=0)
    assert bad.failures == ((1, 2, 3),)
    sample = verify_straggler_sets(_Replication(6, 2), 2, max_sets=3, rng=0)
    assert not sample.exhaustive and sample.sets == 3
    with pytest.raises(ValueError, match="stragglers must be < n"):
        verify_straggler_sets(_Replication(3, 2), 3)


def test_cli_verify_refused_rows_print_na_not_zero(capsys):
    # issue 4: a straggler-set size at which every set is refused (too few survivors) must not
    # print max_rel_error = max_condition = 0 (reads as perfect decoding) but n/a, "refused"
    import json

    from gctheory.cli import main

    # Ye-Abbe n=6, s=2, m=2: with 3 stragglers only 3 < s + m = 4 survivors remain, so every
    # one of the C(6,3) = 20 sets is refused (brute-force count); with 2, all 15 decode
    argv = ["codes", "verify", "ye-abbe-vandermonde", "--n", "6", "--s", "2", "--m", "2"]
    assert main([*argv, "--format", "json"]) == 0
    ok, refused = json.loads(capsys.readouterr().out)["sets"]
    assert refused["status"] == "refused" and refused["failures"] == refused["sets"] == 20
    for col in ("max_rel_error", "max_condition", "error/bound"):
        assert refused[col] is None
    assert ok["status"] == "ok" and ok["max_condition"] >= 1  # a solved system: kappa >= 1
    assert main(argv) == 0
    # the row of 3 stragglers (a narrow terminal abbreviates the header and adds a legend
    # line below the table, so the row is found by its first cell, not taken as the last)
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines() if ln.split()[:1] == ["3"]]
    assert rows[-1][-4:] == ["refused", "n/a", "n/a", "n/a"]
    # negative control: a row with decodable but inexact sets keeps its measured numbers
    assert main(["codes", "verify", "cyclic-mds", "--n", "6", "--s", "2", "--format", "json"]) == 0
    failed = json.loads(capsys.readouterr().out)["sets"][1]
    assert failed["status"] == "failures" and failed["max_condition"] >= 1
    assert failed["max_rel_error"] > 0.01  # wrong sum: 3 stragglers > s = 2
