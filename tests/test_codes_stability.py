"""Tests of the decoding-stability study and the ``gctheory codes`` CLI."""

import json

import numpy as np
import pytest

from gctheory.cli import main
from gctheory.codes import CyclicMDSCode
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


@pytest.mark.filterwarnings("ignore:too few draws:gctheory.montecarlo.UnreliableEstimateWarning")
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


@pytest.mark.filterwarnings("ignore:too few draws:gctheory.montecarlo.UnreliableEstimateWarning")
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


@pytest.mark.filterwarnings("ignore:too few draws:gctheory.montecarlo.UnreliableEstimateWarning")
def test_cli_stability(capsys):
    argv = ["codes", "stability", "--families", "commfr-gaussian", "--n", "8", "--trials", "3"]
    assert main([*argv, "--format", "csv"]) == 0
    out = [x for x in capsys.readouterr().out.strip().splitlines() if not x.startswith("#")]
    assert out[0].startswith("family,n,s,m,worst_rel_error")
    assert out[1].startswith("commfr-gaussian,8,2,2,")


def test_cli_verify_ldpc(capsys):
    pytest.importorskip("gctheory.ldpc")
    argv = ["codes", "verify", "commfr-ldpc", "--n", "24", "--k", "12", "--N", "12"]
    assert main([*argv, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["sets"]
    assert rows[0]["failures"] == 0 and rows[0]["exhaustive"]


# ---------------------------------------------------------------------------
# the deterministic cyclic-MDS construction (Raviv et al. 2018), issue 13


def _decode_all(code, sets, P):
    worst, fails = 0.0, 0
    for S in sets:
        alive = np.setdiff1d(np.arange(code.n), S)
        try:
            res = code.decode_detail(alive, code.encode(P)[alive], P.shape[1])
        except ValueError:
            fails += 1
            continue
        worst = max(worst, np.linalg.norm(res.gradient - P.sum(0)) / np.linalg.norm(P.sum(0)))
    return worst, fails


def test_cyclic_mds_cause_consecutive_roots_make_the_old_systems_singular():
    # the cause, computed: with s consecutive frequencies the s x s systems H[:, S_i] of the
    # former construction are Vandermonde matrices on s consecutive n-th roots of unity
    for n, s, at_least in ((100, 10, 1e10), (200, 20, 1e16)):
        H = np.exp(2j * np.pi * np.outer(1 + np.arange(s), np.arange(n)) / n)
        assert np.linalg.cond(H[:, 1 : s + 1]) > at_least  # float64: 7.6e10 and 2.8e17
        # spread frequencies (the new choice) give well-conditioned systems
        F = CyclicMDSCode(n, s, construction="deterministic").frequencies
        Hs = np.exp(2j * np.pi * np.outer(F, np.arange(n)) / n)
        assert np.linalg.cond(Hs[:, 1 : s + 1]) < 1e3


@pytest.mark.parametrize("n, s", [(5, 1), (6, 2), (7, 3), (8, 3), (9, 4), (10, 4), (11, 5)])
def test_cyclic_mds_deterministic_is_mds_exhaustively(n, s):
    import itertools

    code = CyclicMDSCode(n, s, construction="deterministic")
    assert np.isrealobj(code.B) == bool((n - s) % 2)  # real exactly when n - s is odd
    # rows are shifts of g with b_i = 1 on the cyclic window, and lie in null(H)
    assert np.allclose(np.diag(code.B), 1) and np.all(code.support.sum(axis=1) <= s + 1)
    H = np.exp(2j * np.pi * np.outer(code.frequencies, np.arange(n)) / n)
    assert np.abs(H @ code.B.T).max() < 1e-12
    P = np.random.default_rng(n).standard_normal((n, 2))
    sets = list(itertools.combinations(range(n), s))  # every straggler set (enumeration)
    worst, fails = _decode_all(code, sets, P)
    assert fails == 0 and worst < 1e-12


@pytest.mark.slow  # about 30 s of CPU (n = 200); the construction is covered at small n
def test_cyclic_mds_deterministic_at_n100_s10_and_where_it_stops():
    # n = 100, s = 10 (was: most sets refused) decodes every 4th cyclic block and 15 random sets
    rng = np.random.default_rng(100)
    for n, s in ((100, 10), (101, 10)):
        code = CyclicMDSCode(n, s, construction="deterministic")
        P = rng.standard_normal((n, 3))
        sets = [tuple((i + np.arange(s)) % n) for i in range(0, n, 4)]
        sets += [tuple(rng.choice(n, s, replace=False)) for _ in range(15)]
        worst, fails = _decode_all(code, sets, P)
        assert fails == 0 and worst < 1e-8, (n, s, worst, fails)
    # n = 200, s = 20: even spread roots leave some survivor matrices B_T near cond 1e10, so
    # the residual check (rtol = 1e-6) refuses a few sets: documented limit of the construction
    code = CyclicMDSCode(200, 20, construction="deterministic")
    P = rng.standard_normal((200, 3))
    sets = [tuple((i + np.arange(20)) % 200) for i in range(0, 200, 10)]
    worst, fails = _decode_all(code, sets, P)
    assert fails <= 2 and worst < 1e-4


# ---------------------------------------------------------------------------
# every generator family on the same footing (issue 13)


def test_compare_generators_small_case_against_enumeration():
    import itertools

    from gctheory.codes.stability import compare_generators, recommend
    from gctheory.generators import generator, generator_block

    rows = compare_generators(9, 2, 2, families=("gaussian", "rotation-embedding", "legendre"))
    assert len(rows) == 6
    for r in rows:
        K, N = (7, 9) if r.scheme == "ye-abbe" else (2, 4)
        b = generator_block(r.family, N)
        G = generator(r.family, K, N, rng=np.random.default_rng([0, 0]))  # not reused: check
        # the certified worst case equals enumeration with np.linalg.cond on the same matrix
        # (the random family is re-drawn from the comparison's own stream, so compare the
        # deterministic ones exactly and the Gaussian by its certificate only)
        if r.family != "gaussian":
            ref = max(
                np.linalg.cond(G[:, [w * b + c for w in T for c in range(b)]])
                for T in itertools.combinations(range(N), N - 2)
            )
            assert r.exact and r.worst_lower == pytest.approx(ref, rel=1e-9)
        assert r.exact and r.worst_lower == r.worst_upper
        assert r.decoding_error < 1e3 * r.worst_upper * _EPS * K
    best = recommend(rows)
    assert best["commfr"].family == "rotation-embedding"  # smallest certified worst case


def test_compare_generators_bad_input():
    from gctheory.codes.stability import compare_generators

    with pytest.raises(ValueError, match=r"family must be one of \['gaussian'"):
        compare_generators(8, 2, 2, families=("polar",))
    with pytest.raises(ValueError, match=r"s must lie in \[0, 7\]"):
        compare_generators(8, 8, 2)
    with pytest.raises(ValueError, match="s \\+ m must be <= n"):
        compare_generators(8, 6, 3)
    with pytest.raises(ValueError, match="scheme must be one of"):
        compare_generators(8, 2, 2, schemes=("polar",))


@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_cli_stability_compare(capsys, fmt):
    argv = ["stability", "compare", "--n", "8", "--s", "2", "--m", "2"]
    argv += ["--families", "gaussian,chebyshev-vandermonde", "--format", fmt]
    assert main(argv) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        rows = json.loads(out)["rows"]
        assert {r["family"] for r in rows} == {"gaussian", "chebyshev-vandermonde"}
        assert all(r["certified"] for r in rows)
    else:
        assert "chebyshev-vandermonde" in out
    assert main(["stability", "compare", "--n", "8", "--s", "2", "--m", "2", "--families",
                 "polar"]) == 2  # fmt: skip
    assert "is not one of" in capsys.readouterr().err
