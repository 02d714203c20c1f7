"""Calibration: over many seeds, intervals contain the known truth at their stated level.

The studies (estimator, case, exact truth) live in :mod:`gctheory.calibration`:
the engine's estimators, the proposals of ``gctheory.tails``, the fitted-law intervals of
``gctheory.delays`` and the atlas's Monte Carlo time. Each fails when its coverage is
below the stated level beyond the coverage's own sampling error (the Clopper-Pearson
upper limit of covered/runs below the level); wrong truths are the negative controls.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from gctheory.calibration import coverage_curve, studies
from gctheory.montecarlo import Stop, binomial_estimate, sampling
from gctheory.montecarlo.calibration import coverage_study
from gctheory.montecarlo.stopping import rule_met

LEVEL = 0.95  # a lower level shows a shortfall with fewer seeds
STUDIES = studies()

#: Studies whose coverage is below the stated level, measured: not fixed yet.
KNOWN_BELOW: dict[str, str] = {}

#: Below the stated level on the slow study's 1000 seeds only (measured): not fixed yet.
KNOWN_BELOW_SLOW = {
    # The Wald interval of the Weibull shape (shift profiled out) covered 273/300 at 95%
    # (n = 100 times of 0.5 + 2 Weibull(1.5)), every miss with the truth above it: the
    # shape's estimate with a free shift is biased low. The profile-likelihood interval
    # (gctheory.delays._mle._weibull_shape_ci) covers 283/300 but 929/1000 (55 misses with
    # the truth above, 16 below): better, still short. The likelihood ratio at n = 100 is
    # not yet chi2(1) here (the shift is a nonregular parameter for shape < 2); a
    # parametric-bootstrap calibration of its cut is the next step.
    "delays-weibull-shape": "profile interval of the Weibull shape: 929/1000 at 95%",
}

#: Studies that were below the stated level and are checked on 300 seeds (the fast test).
WAS_BELOW = {"delays-weibull-shape"}


def _params(names, known=KNOWN_BELOW):
    return [
        pytest.param(n, marks=pytest.mark.xfail(reason=known[n], strict=True)) if n in known else n
        for n in names
    ]


@pytest.mark.parametrize("name", _params(STUDIES))
def test_coverage_fast(name):
    # 300 seeds: enough to show a known shortfall, or that a fixed one stays fixed
    seeds = 300 if name in KNOWN_BELOW or name in WAS_BELOW else 60
    cov = STUDIES[name].coverage(range(seeds), LEVEL)
    assert not cov.below_level, f"{name}: {cov}"


@pytest.mark.slow
@pytest.mark.parametrize("name", _params(STUDIES, {**KNOWN_BELOW, **KNOWN_BELOW_SLOW}))
def test_coverage_slow(name):
    cov = STUDIES[name].coverage(range(1000), LEVEL)
    assert not cov.below_level, f"{name}: {cov}"


@pytest.mark.parametrize(
    "name, factor",
    [
        ("wilson", 1.5),
        ("stop-rel-half-width", 1.6),
        ("tails-condition-conditional", 1.3),
        ("tails-tilted-erasures", 2.0),
        ("delays-pareto-shape", 1.6),
        ("delays-weibull-shape", 1.5),
        ("tradeoff-time", 1.15),
    ],
)
def test_coverage_study_catches_a_wrong_truth(name, factor):  # the negative controls
    study = STUDIES[name]
    cov = replace(study, truth=study.truth * factor).coverage(range(60), LEVEL)
    assert cov.below_level and cov.covered < 40, f"{name}: {cov}"


def test_coverage_curve_at_several_levels():
    curve = coverage_curve(STUDIES["wilson"], [0.8, 0.99], range(40))
    assert [c.level for c in curve] == [0.8, 0.99]
    assert curve[0].covered <= curve[1].covered  # the wider interval covers as often or more


def test_coverage_study_bad_input():
    with pytest.raises(ValueError, match="level"):
        coverage_study(lambda s: None, 0.1, range(3), 1.5)
    with pytest.raises(ValueError, match="must return an Estimate"):
        coverage_study(lambda s: 0.1, 0.1, range(3), 0.9)
    with pytest.raises(ValueError, match="at least one seed"):
        coverage_study(lambda s: 0.1, 0.1, [], 0.9)


# --- Stop(rel_half_width): exact coverage of the whole design, no seeds ------------------


def _exact_coverage(p, size, budget, stop, level, tiny=1e-7):
    """The coverage of the plain and of the sequential interval at ``p``, exactly: every
    way the run can end (after n outcomes with count k) weighed by its probability."""

    def met(k, n):
        return rule_met(stop, binomial_estimate(k, n, level=level), k) is not None

    f, n, plain, seq, skipped = np.array([1.0]), 0, 0.0, 0.0, 0.0
    while n < budget:
        d = min(size, budget - n)
        n += d
        f = np.convolve(f, stats.binom.pmf(np.arange(d + 1), d, p))
        for k in range(len(f)):
            if f[k] == 0 or not (n == budget or met(k, n)):
                continue
            w, f[k] = f[k], 0.0
            if w < tiny:
                skipped += w
                continue
            est = binomial_estimate(k, n, level=level)
            plain += w * est.contains(p)
            seq += w * sampling._rel_stopped(est, k, stop, size, level, "wilson").contains(p)
    return plain, seq, skipped


@pytest.mark.parametrize(
    "p, size, r, level, plain_was",
    [(0.05, 10, 0.6, 0.90, 0.8611), (0.05, 20, 0.5, 0.95, 0.9417)],
)
def test_rel_half_width_stop_covers_at_the_stated_level_exactly(p, size, r, level, plain_was):
    # before: the plain Wilson interval at the stopping point, 86.1% at 90% and 94.2% at 95%
    plain, seq, skipped = _exact_coverage(p, size, 800, Stop(rel_half_width=r), level)
    assert plain == pytest.approx(plain_was, abs=1e-4)
    assert seq >= level - skipped  # measured 91.4% and 95.8%


def test_rel_half_width_stop_reports_the_sequential_interval():
    est = STUDIES["stop-rel-half-width"].run(3, 0.95)
    assert est.method == "sequential" and est.stopped_by == "rel_half_width"
    plain = binomial_estimate(est.successes, est.trials, level=0.95)
    # stopping when the count is high for its length: the exact interval sits lower
    assert est.value == plain.value and est.low < plain.low and est.high < plain.high


# --- the figure ----------------------------------------------------------------------


def test_calibration_figure_is_registered_and_writes_its_data(tmp_path, monkeypatch):
    import csv

    from gctheory.plots import all_figures
    from gctheory.plots import calibration as fig_mod

    (maker,) = [f for f in all_figures() if f.name == "calibration_coverage"]
    small = {k: STUDIES[k] for k in ("wilson", "delays-pareto-shape", "tradeoff-time")}
    monkeypatch.setattr(fig_mod, "studies", lambda: small)
    paths = maker.make(tmp_path, True)
    assert sorted(p.suffix for p in paths) == [".csv", ".png", ".svg"]
    with open(tmp_path / "calibration_coverage.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 3 * len(fig_mod.LEVELS)
    assert {r["study"] for r in rows} == set(small)
    for r in rows:
        assert float(r["low"]) <= float(r["coverage"]) <= float(r["high"])
        assert int(r["runs"]) == fig_mod.QUICK_SEEDS


@pytest.mark.parametrize("interval", ["wilson", "clopper-pearson"])
@pytest.mark.parametrize("r, events, size, n", [(0.5, None, 1, 300), (0.3, 8, 7, 700)])
def test_sequential_design_matches_a_scan_of_every_boundary(interval, r, events, size, n):
    from gctheory.montecarlo.sequential import design

    stop = Stop(rel_half_width=r, events=events)

    def met(k, m):
        est = binomial_estimate(k, m, level=0.95, interval=interval)
        return rule_met(stop, est, k) is not None

    m_got, c_got = design(met, size, n)
    ns = np.arange(size, n, size)
    b = np.array([next((k for k in range(m + 1) if met(k, m)), m + 1) for m in ns])
    keep = [i for i in range(len(b)) if b[i] <= ns[i] and all(b[i] < b[i + 1 :])]
    assert m_got.tolist() == ns[keep].tolist() and c_got.tolist() == b[keep].tolist()
