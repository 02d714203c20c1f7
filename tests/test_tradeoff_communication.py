"""gctheory.tradeoff.communication: the best code against bandwidth and the crossover."""

from __future__ import annotations

import json
import math

import matplotlib
import pytest
from scipy import stats

from gctheory.cli import main
from gctheory.runtime import BYTES_PER_MBIT, Link, scheme_expected_time
from gctheory.tradeoff.communication import communication_atlas, communication_crossover

matplotlib.use("Agg")

X = stats.expon(loc=1.0, scale=0.5)
FREE_DOWN = Link(up=1.0, down=math.inf)


@pytest.mark.parametrize("n, s, m, x, d", [(12, 2, 2, 1.0, 1000), (20, 3, 4, 0.25, 4000)])
def test_crossover_constant_by_hand(n, s, m, x, d):
    # hand: T_1 = (s+1) x / n + 8 d / B, T_m = (s+m) x / n + 8 d / (m B); equal at
    # B* = 8 d (1 - 1/m) n / ((m - 1) x) = 8 d n / (m x)
    c = communication_crossover(x, n, s, m, link=FREE_DOWN, d=d, bracket=(1.0, 1e12))
    assert c.method == "exact" and c.winner_below == "m-fold" and c.winner_above == "cyclic-mds"
    assert c.bandwidth == pytest.approx(8 * d * n / (m * x), rel=1e-9)


def test_crossover_law_closed_form():
    # per-worker link: the difference is dE + (U_m - U_1) / B with the exact order statistics
    dE = scheme_expected_time("ye-abbe", X, 12, 2, 2) - scheme_expected_time("cyclic-mds", X, 12, 2)
    c = communication_crossover(X, 12, 2, 2, link=FREE_DOWN, d=10**5, bracket=(1e3, 1e10))
    assert c.bandwidth == pytest.approx(4e5 / dE, rel=1e-9)


def test_crossover_monte_carlo_interval_holds_exact():
    kw = dict(link=FREE_DOWN, d=10**5, bracket=(1e5, 1e9))
    exact = communication_crossover(X, 12, 2, 2, **kw)
    mc = communication_crossover(X, 12, 2, 2, method="monte-carlo", trials=3000, rng=5, **kw)
    assert mc.method == "monte-carlo" and mc.low < exact.bandwidth < mc.high
    # negative control: 5% away from the exact crossover is outside the interval
    assert not mc.low < 1.05 * exact.bandwidth < mc.high


def test_shared_link_moves_the_crossover_up():
    kw = dict(d=10**5, bracket=(1e5, 1e10))
    per = communication_crossover(X, 12, 2, 2, link=FREE_DOWN, **kw)
    sh = communication_crossover(
        X, 12, 2, 2, link=Link(up=1.0, down=math.inf, shared=True), trials=2000, **kw
    )
    assert sh.method == "monte-carlo" and sh.low > per.bandwidth


def test_no_crossover_in_bracket():
    c = communication_crossover(1.0, 12, 2, 2, link=FREE_DOWN, d=1000, bracket=(1e6, 1e9))
    assert c.bandwidth is None and c.winner_below == c.winner_above == "cyclic-mds"


def test_atlas_best_and_commfr():
    B = [b * BYTES_PER_MBIT for b in (1, 10, 100, 1000, 10000)]
    a = communication_atlas(X, 12, 2, d=10**5, link=Link(up=1.0), bandwidths=B, ms=(2, 4))
    assert a.ms == (1, 2, 4) and a.best[0] == 4 and a.best[-1] == 1
    fr = communication_atlas(
        X, 12, 2, d=10**5, link=Link(up=1.0), bandwidths=B, ms=(2, 4), family="commfr-gc"
    )
    assert fr.crossovers[2].bandwidth is not None


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(family="lt"), "family"),
        (dict(family="commfr-gc", ms=(3,)), r"need \(s \+ m\) \| n"),
        (dict(bandwidths=[1e6]), "bandwidths must be"),
        (dict(bandwidths=[1e7, 1e6]), "bandwidths must be"),
        (dict(ms=(11,)), "m must"),
    ],
)
def test_atlas_refuses(kw, match):
    args = dict(d=100, link=Link(up=1.0), bandwidths=[1e6, 1e7], ms=(2,))
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        communication_atlas(X, 12, 2, **args)


@pytest.mark.parametrize(
    "kw, match",
    [(dict(m=1), "m must be >= 2"), (dict(bracket=(5.0, 1.0)), "bracket must be")],
)
def test_crossover_refuses(kw, match):
    args = dict(m=2, link=FREE_DOWN, d=10, bracket=(1.0, 10.0))
    args.update(kw)
    m = args.pop("m")
    with pytest.raises(ValueError, match=match):
        communication_crossover(1.0, 12, 2, m, **args)


def test_cli_writes_figure_and_json(tmp_path, capsys):
    argv = ["tradeoff-comm", "--n", "12", "--s", "2", "--d", "100000", "--points", "4"]
    assert main([*argv, "--out", str(tmp_path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["crossovers"]) == {"2", "4"}
    assert (tmp_path / "comm_atlas.png").exists() and (tmp_path / "comm_atlas.csv").exists()


@pytest.mark.parametrize(
    "opt, value", [("--bandwidth", "10:1"), ("--down", "0"), ("--latency", "-1"), ("--ms", "1")]
)
def test_cli_refuses(opt, value, tmp_path, capsys):
    argv = ["tradeoff-comm", "--n", "12", "--d", "10", "--out", str(tmp_path), opt, value]
    try:
        rc = main(argv)
    except SystemExit as exc:  # refused by the subcommand's parser
        rc = exc.code
    assert rc == 2 and opt in capsys.readouterr().err
