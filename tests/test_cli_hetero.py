"""CLI of issue 23: gctheory optimum hetero, gctheory delays fit --per-worker."""

from __future__ import annotations

import numpy as np

from gctheory.cli import main
from gctheory.delays import make_trace, write_trace


def test_optimum_hetero_groups(capsys):
    # two split points (s = 0 and 6; each one's split loads are a quadrature)
    rc = main(
        ["optimum", "hetero", "--group", "6:exp(mean=1)", "--group", "6:exp(mean=3)",
         "--scheme", "cyclic-mds", "--split-points", "2", "--format", "json"]
    )  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert '"hetero"' in out and '"split"' in out


def test_optimum_hetero_bad_group(capsys):
    assert main(["optimum", "hetero", "--group", "exp(mean=1)"]) == 2
    assert "COUNT:SPEC" in capsys.readouterr().err


def test_delays_fit_per_worker(tmp_path, capsys):
    rng = np.random.default_rng(0)
    R, W = 12, 16
    cols = {"round": [], "worker": [], "load": [], "time": []}
    for r in range(R):
        cols["round"] += [r] * W
        cols["worker"] += list(range(W))
        cols["load"] += [1.0] * W
        cols["time"] += list(1 + np.arange(W) / W + rng.exponential(0.2, W))
    path = write_trace(make_trace(**{k: np.array(v) for k, v in cols.items()}), tmp_path / "t.csv")
    rc = main(["delays", "fit", str(path), "--load", "1", "--per-worker", "--laws", "lognormal",
               "--clusters", "2"])  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert "kruskal" in out and "persistence" in out and "lognormal per cluster" in out
