"""``gctheory collect / combine / plot`` and ``plot_stats`` on a caller's axes."""

from __future__ import annotations

import json

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from gctheory.cli import main  # noqa: E402
from gctheory.commands.sweeps import PARAMETERS  # noqa: E402
from gctheory.plots.sweeps import plot_stats  # noqa: E402
from gctheory.sweeps import ESTIMATORS, read_stats  # noqa: E402


def test_the_cli_knows_every_parameter_of_every_estimator():
    assert set(PARAMETERS) == {p for e in ESTIMATORS.values() for p in e.params}


def _collect(path, *extra):
    args = ["collect", "--problem", "dfrc-failure", "--n", "20", "--s", "3", "5", "--d", "3"]
    return main([*args, "--max-trials", "2000", "--batch-size", "500", "--out", str(path), *extra])


def test_collect_combine_plot(tmp_path, capsys):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert _collect(a, "--worker", "0", "--workers", "2", "--format", "json") == 0
    out = json.loads(capsys.readouterr().out)["rows"]
    assert [r["problem"] for r in out] == ["s=3", "s=5"] and out[0]["trials"] == 1000
    assert _collect(b, "--worker", "1", "--workers", "2") == 0
    one = tmp_path / "one.csv"
    assert _collect(one) == 0
    capsys.readouterr()
    c = tmp_path / "c.csv"
    assert main(["combine", str(a), str(b), "--out", str(c), "--format", "json"]) == 0
    merged = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["trials"], r["events"]) for r in merged] == [
        (s.trials, s.events) for s in read_stats(one)
    ]
    assert main(["combine", str(a), "--out", str(c)]) == 2  # exists
    assert "exists" in capsys.readouterr().err
    fig = tmp_path / "fig.png"
    assert main(["plot", str(c), "--x", "s", "--out", str(fig)]) == 0
    assert fig.stat().st_size > 1000 and "1 curves, 2 points" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--problem", "nope", "--n", "3"], "unknown; known"),
        (["--problem", "dfrc-failure", "--n", "20", "--eps", "0.3"], "takes no --eps"),
        (["--problem", "dfrc-failure", "--n", "x", "--s", "3", "--d", "3"], "--n: expected"),
        (["--problem", "dfrc-failure", "--n", "20", "--d", "3"], "'s' is required"),
    ],
)
def test_bad_collect_options_name_the_problem(tmp_path, capsys, args, message):
    out = ["--max-trials", "10", "--out", str(tmp_path / "x.csv")]
    assert main(["collect", *args, *out]) == 2
    assert message in capsys.readouterr().err


def test_plot_stats_draws_on_the_given_axes_and_returns_what_it_drew(tmp_path):
    path = tmp_path / "s.csv"
    assert _collect(path) == 0
    backend = matplotlib.get_backend()
    rc = dict(matplotlib.rcParams)
    fig, (ax0, ax) = plt.subplots(1, 2)
    curves = plot_stats(ax, path, x="s", group="d", estimator="dfrc-failure")
    assert len(curves) == 1 and list(curves[0].x) == [3.0, 5.0]
    c = curves[0]
    assert c.line in ax.lines and c.band in ax.collections and not ax0.lines
    assert all(c.low <= c.value) and all(c.value <= c.high)
    assert c.line.get_label() == "d=3" and ax.get_xlabel() == "s"
    assert matplotlib.get_backend() == backend and dict(matplotlib.rcParams) == rc
    plt.close(fig)
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="no parameter of dfrc-failure"):
        plot_stats(ax, read_stats(path), x="eps")
    with pytest.raises(ValueError, match="no statistics"):
        plot_stats(ax, read_stats(path), x="s", estimator="ldpc-block")
    plt.close(fig)
