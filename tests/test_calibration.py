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
KNOWN_BELOW_SLOW: dict[str, str] = {}
# Was: "delays-weibull-shape", the profile-likelihood interval of the Weibull shape (n = 100
# times of 0.5 + 2 Weibull(1.5)): 929/1000 at 95% (55 misses with the truth above, 16
# below); the Wald interval before it 273/300. Now Neyman's construction on the shape's
# estimate, its law by seeded Monte Carlo (gctheory.delays._weibull_shape): 952/1000
# (18 above, 30 below). The Wald interval stays as the negative control below.

#: Studies that were below the stated level and are checked on 300 seeds (the fast test).
WAS_BELOW: set[str] = set()

#: Studies whose first run takes a minute or more: in the slow tests only. The Weibull
#: shape's interval first computes its estimate's law by Monte Carlo (4000 fits at each
#: of 4 to 6 shapes, n = 100; cached for the process); its pieces have fast tests in
#: tests/test_delays_fitting.py.
SLOW_ONLY = {"delays-weibull-shape"}


def _params(names, known=KNOWN_BELOW, slow_only=()):
    out = []
    for n in names:
        marks = [pytest.mark.xfail(reason=known[n], strict=True)] if n in known else []
        marks += [pytest.mark.slow] if n in slow_only else []
        out.append(pytest.param(n, marks=marks))
    return out


@pytest.mark.parametrize("name", _params(STUDIES, slow_only=SLOW_ONLY))
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
        pytest.param("delays-weibull-shape", 1.5, marks=pytest.mark.slow),
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
        return (
            rule_met(stop, binomial_estimate(k, n, level=level, interval="wilson"), k) is not None
        )

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
            est = binomial_estimate(k, n, level=level, interval="wilson")
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
    # the quick figure leaves the Weibull shape's study to the full one (issue 27)
    small["delays-weibull-shape"] = STUDIES["delays-weibull-shape"]
    monkeypatch.setattr(fig_mod, "QUICK_SEEDS", 1)
    from gctheory.plots._base import raster_only

    with raster_only():  # only the CSV is read: no second SVG render
        maker.make(tmp_path, True)
    with open(tmp_path / "calibration_coverage.csv") as fh:
        assert {r["study"] for r in csv.DictReader(fh)} == set(small) - set(fig_mod.QUICK_SKIPS)


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


def test_sequential_binomial_laws_equal_scipy_stats_bit_for_bit():
    """The sequential interval's pmf and cdf skip scipy.stats' checks (issue 27): the same
    floats as binom.pmf / binom.cdf, in and off the support, at p from tiny to 1; and
    with the ufuncs away (an older SciPy) the public path gives them too."""
    from gctheory.montecarlo import sequential as sq

    k = np.arange(-3, 60)
    for n in (0, 1, 7, 40, 59, 300):
        for p in (1e-300, 1e-9, 0.01, 0.3, 0.5, 0.97, 1.0):
            for fast, slow in ((sq._binom_pmf, stats.binom.pmf), (sq._binom_cdf, stats.binom.cdf)):
                kk = k[k >= 0] if fast is sq._binom_pmf else k  # the pmf is asked for counts
                want, got = slow(kk, n, p), fast(kk, n, p)
                assert got.dtype == want.dtype and np.array_equal(got, want), (n, p)
    # negative control: the unclipped, off-support ufunc differs from scipy.stats somewhere
    raw = sq._binom_ufuncs()[0](np.arange(0, 12), 7, 0.3)  # k > n
    assert not np.array_equal(raw, stats.binom.pmf(np.arange(0, 12), 7, 0.3))
    sq._binom_ufuncs.cache_clear()
    try:
        import unittest.mock as um

        with um.patch.object(sq, "_binom_ufuncs", lambda: None):
            assert np.array_equal(sq._binom_cdf(k, 9, 0.2), stats.binom.cdf(k, 9, 0.2))
            assert np.array_equal(sq._binom_pmf(k[3:], 9, 0.2), stats.binom.pmf(k[3:], 9, 0.2))
    finally:
        sq._binom_ufuncs.cache_clear()


# --- the Weibull shape: its negative control and the shift at its bound ------------------


def _weibull_wald(seed: int, level: float, *, n: int = 100):
    """The Wald interval of the Weibull shape (observed information, shift and scale free)
    on the calibration study's sample: the interval fit_law gave before issue 30."""
    from gctheory.delays._mle import _frozen3, _inner_weibull, _profile_loc, _wald
    from gctheory.montecarlo import Estimate

    x = 0.5 + 2.0 * np.random.default_rng(seed).weibull(1.5, n)
    _, loc, (k, lam), _ = _profile_loc(x, _inner_weibull)
    room = np.array([k, min(loc, float(x.min()) - loc), lam])
    ci = _wald(lambda t: _frozen3("weibull", *t), np.array([k, loc, lam]), x, level, room)
    return Estimate(k, ci[0, 0], ci[0, 1], n, level, method="Wald")


@pytest.mark.slow
def test_the_wald_interval_of_the_weibull_shape_is_rejected():  # the negative control
    study = replace(STUDIES["delays-weibull-shape"], run=_weibull_wald)
    cov = study.coverage(range(300), LEVEL)
    assert cov.below_level, cov  # measured 273/300 before issue 30


def _weibull_no_shift(seed: int, level: float, *, n: int = 100):
    from gctheory.delays import FitConvergenceError, fit_law
    from gctheory.montecarlo import Estimate

    x = 2.0 * np.random.default_rng(seed).weibull(1.5, n)  # true shift 0: often at the bound
    try:
        fit = fit_law(x, "weibull", level=level)
    except FitConvergenceError:
        return Estimate(np.nan, np.nan, np.nan, n, level, method="refused")
    lo, hi = fit.ci["shape"]
    return Estimate(fit.params["shape"], lo, hi, n, level, method=fit.message or "free shift")


@pytest.mark.slow
def test_the_weibull_shape_interval_covers_with_the_shift_at_its_bound():
    # a true shift of 0 puts the estimated one at its bound 0 in about a quarter of the
    # samples (Thoman, Bain & Antle's pivot there, Neyman's construction elsewhere):
    # measured 967/1000 at 95% (388/400 on the first 400 seeds)
    study = replace(STUDIES["delays-weibull-shape"], run=_weibull_no_shift)
    cov = study.coverage(range(1000), LEVEL)
    assert not cov.below_level, cov
