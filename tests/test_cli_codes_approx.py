"""``gctheory codes approx``: the approximate constructions' error versus stragglers."""

from __future__ import annotations

import json
import math

import pytest

from gctheory.cli import main


def _json(capsys, *argv: str) -> dict:
    assert main(["codes", "approx", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bibd_rows_are_exact_and_equal_the_closed_form(capsys):
    out = _json(capsys, "bibd", "--v", "7", "--k", "3", "--stragglers", "2", "5")
    r2, r5 = out["rows"]
    assert r2["method"] == "exhaustive" and r2["sets"] == 21  # C(7, 2)
    # closed form b - r^2 w / (r - lam + lam w), Fano plane r = 3, lam = 1: w = 5 -> 4/7
    assert r2["mean_error"] == pytest.approx(4 / 7, rel=1e-12)
    assert r2["worst_error"] == pytest.approx(4 / 7, rel=1e-12)
    assert r2["reference"] == pytest.approx(4 / 7, rel=1e-12)
    assert r5["reference"] == pytest.approx(7 - 9 * 2 / 4, rel=1e-12)  # closed form, w = 2


def test_sgc_exhaustive_and_monte_carlo_against_the_hypergeometric_mean(capsys):
    out = _json(
        capsys,
        "sgc",
        "--placement",
        "bibd",
        "--v",
        "13",
        "--k",
        "3",
        "--p",
        "0.1",
        "--stragglers",
        "2",
        "10",
        "--max-sets",
        "400",
        "--trials",
        "4000",
    )
    ex, mc = out["rows"]
    assert ex["method"] == "exhaustive" and ex["sets"] == 325  # C(26, 2)
    assert ex["mean_error"] == pytest.approx(ex["reference"], rel=1e-9)  # enumeration
    assert mc["method"] == "monte carlo"
    assert mc["ci_low"] <= mc["reference"] <= mc["ci_high"]
    # negative control: the binomial (with-replacement) variance, no finite-population
    # correction, is rejected by the same interval
    n, d, k, c, w = 26, 6, 13, 6 * 0.9, 16
    wrong = k * (d * (w / n) * (1 - w / n) / c**2 + (d * w / n / c - 1) ** 2)
    assert not mc["ci_low"] <= wrong <= mc["ci_high"]


def test_isgc_frc_worst_case_closed_form_matches_enumeration(capsys):
    out = _json(capsys, "isgc", "--n", "12", "--s", "2", "--stragglers", "3", "5", "6")
    for row in out["rows"]:
        e = row["stragglers"]
        assert row["method"] == "exhaustive"
        assert row["worst_error"] == 3 * (e // 3)  # closed form: whole groups emptied
        assert row["mean_error"] == pytest.approx(row["reference"], rel=1e-12)
    mc = _json(capsys, "isgc", "--n", "12", "--s", "2", "--stragglers", "6", "--max-sets", "5")
    assert mc["rows"][0]["worst_error"] == 6 and mc["rows"][0]["method"] == "monte carlo"


def test_expander_fixed_decoder_within_its_spectral_bound(capsys):
    out = _json(
        capsys, "expander", "--n", "16", "--degree", "4", "--decoder", "fixed", "--seed", "3"
    )
    for row in out["rows"]:
        top = row["worst_error"] if row["method"] == "exhaustive" else row["ci_low"]
        assert top <= row["reference"] * (1 + 1e-12)


def test_graph_assignment_and_hybrid_run_in_csv(capsys):
    assert (
        main(
            ["codes", "approx", "graph-assignment", "--n", "10", "--degree", "3"]
            + ["--stragglers", "2", "--format", "csv"]
        )
        == 0
    )
    lines = [x for x in capsys.readouterr().out.strip().splitlines() if not x.startswith("#")]
    assert lines[0].startswith("stragglers,method,sets,mean_error") and len(lines) == 2
    out = _json(
        capsys,
        *("isgc", "--n", "12", "--s", "2", "--placement", "hybrid", "--c1", "1"),
        *("--groups", "2", "--stragglers", "4"),
    )
    assert out["rows"][0]["reference"] is None  # no closed form for hybrid
    assert 0 <= out["rows"][0]["mean_error"] <= out["rows"][0]["worst_error"] <= 12


@pytest.mark.parametrize(
    "argv, match",
    [
        (["nope", "--n", "5"], "family must be one of expander, graph-assignment"),
        (["expander", "--n", "16", "--degree", "4", "--graph", "ring"], "--graph must be one of"),
        (["expander", "--n", "16", "--degree", "4", "--decoder", "x"], "--decoder must be one"),
        (["isgc", "--n", "12", "--s", "2", "--placement", "bibd"], "--placement must be one of"),
        (["sgc", "--n", "12", "--degree", "3", "--placement", "frc"], "--placement must be one"),
        (["expander", "--n", "16", "--degree", "4", "--v", "7"], "--v is not used"),
        (["expander", "--n", "15", "--graph", "margulis"], "square"),
        (["bibd", "--v", "7", "--k", "3", "--stragglers", "7"], "must be < n = 7"),
        (["bibd", "--v", "7", "--k", "3", "--trials", "1"], "--trials must be"),
        (["bibd", "--v", "43", "--k", "7"], "Bruck-Ryser-Chowla"),
        (["sgc", "--n", "12", "--degree", "3", "--p", "1.0"], "--p must lie in"),
        (["isgc", "--n", "12"], "needs --s"),
    ],
)
def test_bad_options_are_errors_naming_the_option(capsys, argv, match):
    assert main(["codes", "approx", *argv]) == 2
    err = capsys.readouterr().err
    assert match in err, err


def test_default_stragglers_cover_the_range(capsys):
    out = _json(capsys, "bibd", "--v", "13", "--k", "4")
    assert [r["stragglers"] for r in out["rows"]] == [1, 3, 6]  # 1, n/10 -> 1, n/4, n/2
    assert all(math.isfinite(r["mean_error"]) for r in out["rows"])


def test_margulis_expander_optimal_decoder_within_the_bound(capsys):
    out = _json(capsys, "expander", "--n", "16", "--graph", "margulis", "--stragglers", "1", "2")
    assert out["n"] == 16 and out["load"] <= 8  # Z_4 x Z_4, 8-regular (multi-edges merge)
    for row in out["rows"]:
        assert row["method"] == "exhaustive"
        assert row["worst_error"] <= row["reference"] * (1 + 1e-12)
