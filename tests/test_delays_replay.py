"""Replay of measured rounds in the training simulator, and the ``gctheory delays`` CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gctheory import delays as dl
from gctheory import training as tr
from gctheory.cli import main


def _rounds(R=5, W=6, seed=0):
    rng = np.random.default_rng(seed)
    M = 1 + rng.exponential(0.3, size=(R, W))
    M[2, 3] = 30.0  # a straggler in round 2
    return M


def _trace(Ms: dict[float, np.ndarray], **cols) -> dl.Trace:
    parts = []
    for ld, M in Ms.items():
        R, W = M.shape
        r, w = np.divmod(np.arange(R * W), W)
        extra = {k: np.full(R * W, v) for k, v in cols.items()}
        parts.append(dl.make_trace(r, w, np.full(R * W, ld), M.ravel(), **extra))
    return dl.concat_traces(parts)


def test_replay_reproduces_the_per_round_maxima_of_wait_for_all(tmp_path):
    n = 4
    M = _rounds(W=n)
    trace = _trace({1 / n: M})  # gd: every worker holds 1/n of the data, a measured load
    run = tr.simulate("gd", n=n, delay=trace, iterations=5, rng=0)
    assert np.array_equal(run.wait, M.max(axis=1))  # exact: the measured floats
    # the same through a file and the "trace:PATH" spec, cycling through the rounds
    path = dl.write_trace(trace, tmp_path / "m.csv")
    run = tr.simulate("gd", n=n, delay=f"trace:{path}", iterations=7, rng=0)
    assert np.array_equal(run.wait, M.max(axis=1)[[0, 1, 2, 3, 4, 0, 1]])


def test_replay_keeps_each_worker_in_its_round():
    n = 6
    M = _rounds(W=n)
    run = tr.simulate("ignore", K=4, n=n, delay=_trace({1 / n: M}), iterations=5, record_draws=True)
    assert np.array_equal(run.draws, M)  # worker i of round t is worker slot i of round t
    assert np.array_equal(run.wait, np.sort(M, axis=1)[:, 3])
    # cyclic-MDS with s = 1 holds 2/6 of the data: a load the trace has -> measured times
    M2 = _rounds(W=n, seed=1)
    both = _trace({1 / n: M, 2 / n: M2})
    run = tr.simulate("cyclic_mds", s=1, n=n, delay=both, iterations=5, record_draws=True)
    assert np.allclose(run.loads * run.draws, M2, rtol=1e-15)
    assert np.array_equal(run.wait, np.sort(run.loads * run.draws, axis=1)[:, 4])


def test_unmeasured_loads_use_the_fitted_slope_or_are_refused():
    n = 6
    Ms = {0.0: _rounds(W=n), 0.5: _rounds(W=n, seed=2) + 0.5, 1.0: _rounds(W=n, seed=3) + 1}
    trace = _trace(Ms)
    sc = dl.fit_load_scaling(trace)
    run = tr.simulate("gd", n=n, delay=trace, iterations=5, record_draws=True)
    # share 1/6 is not measured: the nearest load (0) moved by the fitted slope
    assert np.allclose(run.draws, Ms[0.0] + sc.slope / 6, rtol=1e-12)
    rep = dl.TraceReplay(trace, load_model=None)
    with pytest.raises(ValueError, match=r"data share 0.166667 is not a measured load"):
        tr.simulate("gd", n=n, delay=rep, iterations=2)
    with pytest.raises(ValueError, match="cannot simulate n=8"):
        tr.simulate("gd", n=8, delay=trace, iterations=2)
    with pytest.raises(ValueError, match="persist, n_slow and slowdown do not apply"):
        tr.simulate("gd", n=n, delay=trace, persist=3, iterations=2)


def test_a_file_of_several_campaigns_needs_a_selection(tmp_path):
    n = 4
    a = _trace({1 / n: _rounds(W=n)}, region="London")
    b = _trace({1 / n: _rounds(W=n, seed=5)}, region="Canada")
    path = dl.write_trace(dl.concat_traces([a, b]), tmp_path / "two.csv")
    with pytest.raises(ValueError, match="holds 2: region=London; region=Canada"):
        tr.simulate("gd", n=n, delay=f"trace:{path}", iterations=2)
    run = tr.simulate("gd", n=n, delay=f"trace:{path}?region=Canada", iterations=5)
    assert np.array_equal(run.wait, _rounds(W=n, seed=5).max(axis=1))
    with pytest.raises(ValueError, match="no row .* has region='Tokyo'"):
        tr.simulate("gd", n=n, delay=f"trace:{path}?region=Tokyo", iterations=2)


# ---------------------------------------------------------------- CLI


def _csv(tmp_path):
    rng = np.random.default_rng(8)
    Ms = {ld: 0.5 + ld + rng.exponential(0.2, size=(6, 16)) for ld in (0.0, 0.5, 1.0)}
    return dl.write_trace(_trace(Ms, region="Canada"), tmp_path / "t.csv")


def test_cli_delays_summary_fit_scaling_optimum(tmp_path, capsys):
    p = str(_csv(tmp_path))
    assert main(["delays", "summary", p, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["load"] for r in rows] == [0.0, 0.5, 1.0] and rows[0]["rounds"] == 6
    argv = ["delays", "fit", p, "--load", "0.5", "--laws", "shifted_exp,lognormal"]
    assert main([*argv, "--bootstrap", "9", "--format", "csv"]) == 0
    out = [x for x in capsys.readouterr().out.splitlines() if not x.startswith("#")]
    assert out[0].startswith("law,n,converged") and len(out) == 3
    assert main(["delays", "scaling", p, "--format", "md"]) == 0
    assert "| p | load | measured |" in capsys.readouterr().out
    argv = ["delays", "optimum", p, "--scheme", "cyclic-mds", "--n", "8", "--laws", "lognormal"]
    assert main([*argv, "--bootstrap", "20"]) == 0
    text = capsys.readouterr().out
    assert "empirical" in text and "rounds" in text and "lognormal" in text
    assert main([*argv, "--bootstrap", "0", "--curve", "--format", "json"]) == 0
    curve = json.loads(capsys.readouterr().out)["rows"]
    assert [r["s"] for r in curve] == list(range(8))


def test_cli_delays_errors(tmp_path, capsys):
    p = str(_csv(tmp_path))
    assert main(["delays", "fit", p, "--load", "0.3"]) == 2
    assert "load 0.3 is not in the trace" in capsys.readouterr().err
    assert main(["delays", "summary", p, "--where", "region"]) == 2
    assert "--where takes COLUMN=VALUE" in capsys.readouterr().err
    assert main(["delays", "summary", str(tmp_path / "none.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["delays"]) == 2  # refused while parsing: exit status 2, as every error
    assert "summary,fit,scaling,optimum" in capsys.readouterr().err
