"""Per-worker delays from a trace (issue 23, part 3)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gctheory.delays import make_trace
from gctheory.delays.heterogeneity import (
    cluster_workers,
    grouped_order_means,
    hetero_scheme_times,
    workers_differ,
)
from gctheory.order_stats import expected_order_statistic


def _trace(R, W, scales, rng, loads=(0.5, 1.0)):
    rows = {"round": [], "worker": [], "load": [], "time": []}
    for ld in loads:
        for r in range(R):
            t = (0.2 + ld) * scales * rng.lognormal(0.0, 0.3, W)
            rows["round"] += [r] * W
            rows["worker"] += list(range(W))
            rows["load"] += [ld] * W
            rows["time"] += list(t)
    return make_trace(**{k: np.array(v) for k, v in rows.items()})


def test_workers_differ_detects_and_controls():
    rng = np.random.default_rng(1)
    W = 16
    het = _trace(20, W, np.r_[np.ones(8), 1.6 * np.ones(8)], rng)
    d = workers_differ(het, 1.0)
    assert d.kruskal_p < 1e-6 and d.friedman_p < 1e-6 and d.anova_p < 1e-6
    same = [
        workers_differ(_trace(20, W, np.ones(W), np.random.default_rng(s)), 1.0) for s in range(20)
    ]
    assert sum(x.kruskal_p < 0.05 for x in same) <= 4
    assert sum(x.anova_p < 0.05 for x in same) <= 4


def test_grouped_order_means_matches_exact():
    laws = [stats.lognorm(0.5, scale=1.0), stats.lognorm(0.3, loc=0.5, scale=1.5)]
    m = grouped_order_means(laws, [5, 7])
    for k in (1, 6, 12):
        assert m[k - 1] == pytest.approx(
            expected_order_statistic([(laws[0], 5), (laws[1], 7)], k), rel=1e-5
        )


def test_clusters_by_median():
    M = np.array([[1.0, 5.0, 2.0, 9.0], [1.1, 5.5, 2.2, 9.9]])
    np.testing.assert_array_equal(cluster_workers(M, 2), [0, 1, 0, 1])


def test_hetero_scheme_times_runs_and_orders():
    rng = np.random.default_rng(3)
    W = 24
    tr = _trace(30, W, np.r_[np.ones(16), 3.0 * np.ones(8)], rng, loads=(0.25, 0.5, 0.75, 1.0))
    st = hetero_scheme_times(tr, "cyclic-mds", W, clusters=2, trials=4000, bootstrap=20, rng=1)
    for k in ("rounds", "empirical", "lognormal", "clusters-lognormal", "per-worker", "markov"):
        assert k in st.times and np.all(np.isfinite(st.times[k]))
    # a cluster with 8 slow slots: the heterogeneous models see that waiting for 16 is cheap
    s_het = st.optimum("clusters-lognormal")[0]
    s_pw = st.optimum("per-worker")[0]
    assert s_het >= 7 and s_pw >= 7
    assert abs(st.at("per-worker", 8) - st.at("rounds", 8)) < 0.05 * st.at("rounds", 8)
