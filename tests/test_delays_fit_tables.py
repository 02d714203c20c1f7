"""The Weibull shape table shipped as package data agrees with a fresh Monte Carlo.

The table (``gctheory/delays/_tables/weibull_shape.npz``) is made offline by
``python -m gctheory.delays._tables.make_weibull_shape``; here grid points are
recomputed with another seed and the table's quantile must lie inside the
distribution-free interval of the recomputed quantile (order statistics of the fresh
sample, binomial at level 0.999), which covers the table's Monte Carlo error too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gctheory.delays import _weibull_shape as ws
from gctheory.delays._tables import make_weibull_shape as mk


def _quantile_interval(sample: np.ndarray, p: float, level: float = 0.999) -> tuple[float, float]:
    """A distribution-free interval of the ``p``-quantile from sorted ``sample``."""
    v = np.sort(sample)
    m = v.size
    lo_i, hi_i = stats.binom.ppf([(1 - level) / 2, (1 + level) / 2], m, p).astype(int)
    return float(v[max(lo_i - 1, 0)]), float(v[min(hi_i, m - 1)])


def _check(n: int, j: int, fresh: np.ndarray) -> None:
    tab = ws.load_table()
    for p in (0.025, 0.1, 0.9, 0.975):
        lo, hi = _quantile_interval(fresh, p)
        q = ws.table_quantile(n, j, p)
        assert lo <= q <= hi, (n, j, p, q, lo, hi)
    assert int(tab["seed"]) == ws._SEED and int(tab["version"]) == mk.VERSION


def test_the_table_is_package_data_with_its_provenance():
    tab = ws.load_table()
    assert tab["shape_q"].shape == (len(mk.N_GRID), len(ws.GRID), len(mk.PROBS))
    assert tuple(tab["n_grid"]) == mk.N_GRID and tuple(tab["probs"]) == mk.PROBS
    assert int(tab["replicates"]) == mk.REPLICATES
    # quantiles increase with the probability and (common random numbers) with the shape
    q = tab["shape_q"]
    assert np.all(np.diff(q, axis=2) >= 0)
    assert np.all(np.diff(q[:, 8:, :], axis=1) >= 0)  # shapes >= 1: no refused fits


@pytest.mark.parametrize("n,j", [(20, 4), (40, 8)])
def test_grid_points_agree_with_a_fresh_monte_carlo(n, j):
    fresh = ws.shape_law(n, j, 1000, seed=12345)
    _check(n, j, fresh)


def test_a_wrong_table_is_caught():  # the negative control: a shape off by one grid step
    fresh = ws.shape_law(40, 9, 1000, seed=12345)
    tab = ws.load_table()
    p = 0.5 if 0.5 in tab["probs"] else 0.9
    lo, hi = _quantile_interval(fresh, p)
    assert not (lo <= ws.table_quantile(40, 8, p) <= hi)


def test_the_pivot_agrees_and_interpolation_is_between_neighbours():
    fresh = ws.pivot_law(80, 2000, seed=999)
    for p in (0.025, 0.975):
        lo, hi = _quantile_interval(fresh, p)
        assert lo <= ws.table_pivot(80, p) <= hi
    a, b, mid = (ws.table_quantile(n, 8, 0.975) for n in (40, 80, 57))
    assert min(a, b) <= mid <= max(a, b)


def test_the_interval_uses_the_table_and_a_high_level_runs_the_monte_carlo(monkeypatch):
    rng = np.random.default_rng(4)
    x = 0.5 + 2 * rng.weibull(1.5, size=60)
    from gctheory.delays import fit_law

    f = fit_law(x, "weibull")
    lo, hi = f.ci["shape"]
    assert 0 < lo < f.params["shape"] < hi < math.inf
    calls = []
    monkeypatch.setattr(ws, "shape_law", lambda *a, **k: calls.append(a) or np.ones(10))
    fit_law(x, "weibull")
    assert calls == []  # the table, no Monte Carlo
    fit_law(x, "weibull", level=0.999)
    assert calls  # beyond the table's probabilities


@pytest.mark.slow
@pytest.mark.parametrize("n,j", [(80, 6), (160, 10), (400, 2)])
def test_more_grid_points_agree(n, j):
    _check(n, j, ws.shape_law(n, j, 2000, seed=777))
