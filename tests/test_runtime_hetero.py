"""Scheme times with per-worker laws; tradeoff(delay=[...]) (issue 23)."""

from __future__ import annotations

import pytest
from scipy import stats

from gctheory.runtime import scheme_time_mc, scheme_time_moments

LAWS = [stats.expon(loc=1, scale=1)] * 6 + [stats.expon(loc=2, scale=3)] * 6


@pytest.mark.parametrize(
    ("scheme", "s"), [("cyclic-mds", 3), ("frc", 2), ("uncoded", 0), ("ignore-s", 4)]
)
def test_matches_monte_carlo(scheme, s):
    m = scheme_time_moments(scheme, LAWS, 12, s)
    e = scheme_time_mc(scheme, LAWS, 12, s, trials=20_000, rng=7)
    assert e.low <= m.mean <= e.high


@pytest.mark.parametrize(("scheme", "s"), [("cyclic-mds", 3), ("frc", 2), ("frc", 3)])
def test_identical_laws_reduce_to_iid(scheme, s):
    d = stats.gamma(2.0, scale=0.5)
    a = scheme_time_moments(scheme, [d] * 12, 12, s)
    b = scheme_time_moments(scheme, d, 12, s)
    assert a.mean == pytest.approx(b.mean, rel=1e-8)
    assert a.variance == pytest.approx(b.variance, rel=1e-6)


def test_count_mismatch():
    with pytest.raises(ValueError, match="n: dists describes 12 workers"):
        scheme_time_moments("cyclic-mds", LAWS, 10, 1)


def test_tradeoff_accepts_per_worker_laws():
    from gctheory.tradeoff import tradeoff

    laws = [stats.expon(loc=1, scale=1)] * 3 + [stats.expon(loc=2, scale=3)] * 3
    res = tradeoff(6, delay=laws, quick=True, schemes=["cyclic-mds"])
    assert res.parameters["delay"].startswith("per-worker: 3 x")
    rows = [r for r in res.rows if r.get("scheme") == "cyclic-mds" and r.get("time") is not None]
    for r in rows:
        assert r["time"] == pytest.approx(scheme_time_moments("cyclic-mds", laws, 6, r["s"]).mean)
    with pytest.raises(ValueError, match="n: delay describes 6 workers"):
        tradeoff(8, delay=laws, quick=True, schemes=["cyclic-mds"])
