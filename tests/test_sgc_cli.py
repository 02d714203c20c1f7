"""CLI ``gctheory sgc runtime|verify``."""

import json

import numpy as np
import pytest

from gctheory.cli import main
from gctheory.sgc import run_scheme

D = np.array([[1, 1, 2, 1], [1, 3, 2, 9], [5, 1, 2, 9]], float)  # workers x rounds


@pytest.fixture
def trace_csv(tmp_path):
    p = tmp_path / "t.csv"
    lines = ["profile,region,round,worker,load,duration_s"]
    for prof in ("a", "b"):
        for t in range(D.shape[1]):
            for i in range(D.shape[0]):
                lines.append(f"{prof},X,{t},{i},0.0,{D[i, t] if prof == 'a' else 1.0}")
    p.write_text("\n".join(lines) + "\n")
    return p


def test_runtime_json(trace_csv, capsys):
    rc = main(["sgc", "runtime", str(trace_csv), "--where", "profile=a", "--jobs", "3",
               "--mu", "1", "--format", "json"])  # fmt: skip
    assert rc == 0
    rows = json.loads(capsys.readouterr().out)["rows"]  # {title, parameters, rows, notes}
    assert [r["scheme"] for r in rows] == ["GC", "SR-SGC", "M-SGC", "no coding", "no-wait"]
    for r in rows:
        assert set(r) >= {"scheme", "runtime", "params", "load"}
        assert isinstance(r["runtime"], float) and isinstance(r["load"], float)
        again = run_scheme(D, r["scheme"], tuple(r["params"]), jobs=3, mu=1.0)
        assert again.runtime == r["runtime"]
    assert rows[3]["runtime"] == 10.0


def test_runtime_text_fits_100_columns(trace_csv, capsys):
    assert main(["sgc", "runtime", str(trace_csv), "--where", "profile=a", "--jobs", "3"]) == 0
    out = capsys.readouterr().out
    assert "SR-SGC" in out and max(len(x) for x in out.splitlines()) <= 100


def test_runtime_two_campaigns_refused(trace_csv, capsys):
    assert main(["sgc", "runtime", str(trace_csv), "--jobs", "3"]) != 0


def test_verify(capsys):
    args = ["sgc", "verify", "m-sgc", "--n", "3", "--B", "1", "--W", "2", "--lambda", "2"]
    assert main(args + ["--format", "json", "--negative-control"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert (
        row["failures"] == 0 and row["patterns"] == 271 and "lambda" in row["outside_model_failure"]
    )


def test_codes_verify_is_an_alias_of_sgc_verify(capsys):
    args = ["sr-sgc", "--n", "3", "--B", "1", "--W", "2", "--lambda", "2", "--format", "json"]
    assert main(["sgc", "verify", *args]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert main(["codes", "verify", *args]) == 0
    alias = json.loads(capsys.readouterr().out)
    assert alias["rows"] == direct["rows"] and alias["title"] == direct["title"]
    assert main(["codes", "verify", "sr-sgc", "--n", "3", "--W", "2", "--lambda", "2"]) == 2
    assert "B must be an integer" in capsys.readouterr().err


def test_memory_exact_inside_the_monte_carlo_interval(capsys):
    delay = "markov(p=0.05, r=0.2, fast=constant(1), slow=constant(5))"
    args = ["--n", "4", "--B", "1", "--W", "3", "--lambda", "2", "--schemes", "GC,SR-SGC"]
    rc = main(["sgc", "memory", "--delay", delay, *args, "--runs", "300", "--format", "json"])
    assert rc == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["scheme"] for r in rows] == ["GC", "SR-SGC"]
    for r in rows:
        assert r["mc_low"] <= r["exact_jobs"] <= r["mc_high"], r
    assert rows[1]["states"] == 51  # lumped (chain state, window) columns of 4 workers


def test_memory_refuses_a_continuous_law_for_the_exact_time(capsys):
    delay = "markov(p=0.05, r=0.2, fast=exp(1), slow=constant(5))"
    assert main(["sgc", "memory", "--delay", delay, "--n", "4", "--runs", "0"]) != 0
    assert "finite support" in capsys.readouterr().err
