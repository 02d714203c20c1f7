"""Tests of the decoding-stability study and the ``gctheory codes`` CLI."""

import json

import numpy as np
import pytest

from gctheory.cli import main
from gctheory.codes.stability import (
    STABILITY_FAMILIES,
    decoding_error,
    decoding_stability,
    stability_code,
)

_EPS = np.finfo(float).eps


@pytest.mark.parametrize("family", STABILITY_FAMILIES)
def test_stability_code_parameters(family):
    code = stability_code(family, 12, 0)
    assert code.n == code.k == 12 and code.s == 3
    assert code.m == (1 if family in ("reed-solomon", "cyclic-mds") else 3)
    assert code.is_optimal  # every family in the study meets eq. (1) with equality


def test_small_n_is_exact_within_condition_bound():
    pts = decoding_stability(STABILITY_FAMILIES, (4, 8), trials=4, worst_samples=2, rng=1)
    assert len(pts) == 2 * len(STABILITY_FAMILIES)
    for p in pts:
        assert p.worst_exhaustive  # C(8, 2) = 28 <= exhaustive_limit
        # forward error <= 10 * size * kappa * eps (size = k m of the decoding system); the
        # measured ratio error / (size kappa eps) is at most 0.17 for this seed, so the former
        # extra factor 100 (a bound 6000x looser than needed) is dropped
        assert p.worst_error <= 10 * p.n * p.m * p.worst_condition * _EPS, p


def test_ye_abbe_vandermonde_breaks_and_commfr_does_not():
    fams = ("ye-abbe-vandermonde", "commfr-gaussian")
    pts = {p.family: p for p in decoding_stability(fams, (28,), trials=20, worst_samples=3, rng=2)}
    ya, cf = (
        pts["ye-abbe-vandermonde"].random_log10_error,
        pts["commfr-gaussian"].random_log10_error,
    )
    assert ya.low > -9 and cf.high < -12  # 99% CIs of mean log10 relative error
    # negative control: the CommFR-GC interval does not contain the Ye-Abbe mean
    assert not cf.contains(ya.value)


def test_reproducible_and_decoding_error():
    a = decoding_stability(("cyclic-mds",), (8,), trials=6, worst_samples=2, rng=3)
    b = decoding_stability(("cyclic-mds",), (8,), trials=6, worst_samples=2, rng=3)
    assert a == b
    code = stability_code("commfr-systematic", 8, 0)
    P = np.random.default_rng(0).standard_normal((8, 4))
    err, kappa = decoding_error(code, [0, 1], P)
    assert err < 1e-14 and kappa >= 1


def test_bad_input():
    with pytest.raises(ValueError, match="multiple of 4"):
        stability_code("cyclic-mds", 10)
    with pytest.raises(ValueError, match="family must be one of"):
        stability_code("polar", 8)
    with pytest.raises(ValueError, match="family must be one of"):
        decoding_stability(("polar",), (8,))
    with pytest.raises(ValueError, match="trials must be"):
        decoding_stability(("cyclic-mds",), (8,), trials=1)


def test_cli_verify(capsys):
    assert main(["codes", "verify", "commfr-systematic", "--n", "8", "--k", "4", "--N", "4",
                 "--K", "2", "--format", "json"]) == 0  # fmt: skip
    rows = json.loads(capsys.readouterr().out)["sets"]
    # s = 2: C(8, 2) = 28 sets, none fails; s + 1 = 3: the 2 C(4, 3) = 8 one-group sets fail
    assert [(r["stragglers"], r["sets"], r["failures"]) for r in rows] == [(2, 28, 0), (3, 56, 8)]
    assert main(["codes", "verify", "cyclic-mds", "--n", "6"]) == 2
    assert "needs --s" in capsys.readouterr().err
    assert main(["codes", "verify", "ye-abbe-gaussian", "--n", "5", "--s", "5"]) == 2
    assert "s must be < n" in capsys.readouterr().err


def test_cli_stability(capsys):
    argv = ["codes", "stability", "--families", "commfr-gaussian", "--n", "8", "--trials", "3"]
    assert main([*argv, "--format", "csv"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("family,n,s,m,worst_rel_error")
    assert out[1].startswith("commfr-gaussian,8,2,2,")


def test_cli_verify_ldpc(capsys):
    pytest.importorskip("gctheory.ldpc")
    argv = ["codes", "verify", "commfr-ldpc", "--n", "24", "--k", "12", "--N", "12"]
    assert main([*argv, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["sets"]
    assert rows[0]["failures"] == 0 and rows[0]["exhaustive"]
