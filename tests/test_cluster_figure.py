"""The measured-vs-predicted figure and the real-run claims where no process can start."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

import paper_checks  # noqa: E402
from gctheory.cluster import processes  # noqa: E402
from gctheory.cluster.compare import law_mean  # noqa: E402


def test_figure_writes_nothing_and_says_why_without_processes(tmp_path, monkeypatch, capsys):
    from gctheory.plots import cluster as fig

    monkeypatch.setattr(fig, "can_start_processes", lambda: (False, "no fork here"))
    assert fig._measured_vs_predicted(tmp_path, True) == []
    assert list(tmp_path.iterdir()) == []
    assert "not drawn: no fork here" in capsys.readouterr().err


def test_claims_are_not_checkable_without_processes(monkeypatch):
    from paper_checks._framework import common_cluster as runs

    monkeypatch.setattr(processes, "can_start_processes", lambda: (False, "no fork here"))
    runs.cluster_runs.cache_clear()
    try:
        keys = {c.key: c for c in paper_checks.all_claims()}
        out = keys["tandon2017:internal-cluster-measured-vs-predicted"].check(True)
        assert out.verdict == "not checkable" and "no fork here" in out.cause
        out = keys["wang2019erasurehead:approx-frc-beats-exact-gc"].check(True)
        assert out.verdict == "not checkable"
    finally:
        runs.cluster_runs.cache_clear()


def test_law_mean_matches_the_order_statistic():
    # uncoded GD on 4 workers, Exp(mean 0.01) per partition: E[max] = 0.01 H_4
    assert abs(law_mean("gd", 4, "exp(0.01)") - 0.01 * (1 + 1 / 2 + 1 / 3 + 1 / 4)) < 1e-12
    with pytest.raises(ValueError, match="unknown delay"):
        law_mean("gd", 4, "nope(1)")
