"""Coverage study of every interval-reporting function, on skewed and heavy-tailed laws.

Each :class:`Case` runs one function that reports an interval, at a seed and a
stated level, on a law whose answer is exact: the engine's probability
(Clopper-Pearson by default) and mean (Hall's interval), the rare-event
estimators (importance sampling, multilevel splitting), the fitted-law
intervals of :func:`gctheory.delays.fit_law`, the measured means of real runs
(:func:`gctheory.montecarlo.mean_of_samples`, what
:func:`gctheory.cluster.compare` reports) and the sweeps' combined estimates
(rows of several batches merged by :func:`gctheory.sweeps.stats.merge_rows`).
:func:`run_study` measures each case's coverage over seeded replications with a
99% Clopper-Pearson interval on the coverage itself, and the share of runs that
issued a warning; :func:`verdict` marks a shortfall (the coverage's upper limit
below the stated level) as flagged when most runs warned.

``python -m gctheory.coverage_study --out DIR`` writes the table
(``coverage_study.csv``) and its Markdown form, the one in docs/coverage.md.
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import special

from gctheory.montecarlo.estimates import Estimate, binomial_estimate

__all__ = [
    "Case",
    "CaseResult",
    "binomial_minimum_table",
    "cases",
    "compare_mean_intervals",
    "run_case",
    "run_study",
    "verdict",
]

#: Replications per case of the published table, and the coverage interval's confidence.
REPLICATIONS = 400
CONFIDENCE = 0.99


@dataclass(frozen=True)
class Case:
    """One interval-reporting function on one law: ``run(seed, level) -> Estimate``,
    ``truth`` the exact answer, ``law`` a short name of the law (``kind``: light,
    skewed or heavy-tailed)."""

    name: str
    function: str
    law: str
    kind: str
    truth: float
    level: float
    run: Callable[[int, float], Estimate]


@dataclass(frozen=True)
class CaseResult:
    """Coverage of one case: ``covered`` of ``runs`` intervals held the truth, ``low``,
    ``high`` its Clopper-Pearson interval at :data:`CONFIDENCE`; ``warned`` runs
    issued a warning."""

    name: str
    function: str
    law: str
    kind: str
    level: float
    covered: int
    runs: int
    low: float
    high: float
    warned: int

    @property
    def fraction(self) -> float:
        return self.covered / self.runs


def verdict(r: CaseResult) -> str:
    """The study's verdict on one case: does the interval keep its stated level?

    Parameters
    ----------
    r : CaseResult
        A case's measured coverage with its Clopper-Pearson interval and warning count.

    Returns
    -------
    str
        ``ok``; ``short, warned`` (the coverage's upper limit below the level, and at
        least half the runs warned); ``SHORT, no warning`` otherwise.

    Examples
    --------
    >>> from gctheory.coverage_study import cases, run_case, verdict
    >>> verdict(run_case(cases()[0], range(20)))
    'ok'
    """
    if r.high >= r.level:
        return "ok"
    return "short, warned" if 2 * r.warned >= r.runs else "SHORT, no warning"


# --- laws and estimators (module level: picklable) ---------------------------------------

_LOGN_SIGMA = 1.5
_MEANS = {
    "exponential": 1.0,
    "lognormal(1.5)": math.exp(_LOGN_SIGMA**2 / 2),
    "pareto(2.5)": 2.5 / 1.5,
    "normal": 0.0,
    "shifted-exp": 1.5,
}


def _draw(law: str, rng: np.random.Generator, size: int) -> np.ndarray:
    if law == "exponential":
        return rng.exponential(1.0, size)
    if law == "lognormal(1.5)":
        return rng.lognormal(0.0, _LOGN_SIGMA, size)
    if law == "pareto(2.5)":
        return rng.pareto(2.5, size) + 1.0
    if law == "shifted-exp":
        return 1.0 + rng.exponential(0.5, size)
    return rng.normal(0.0, 1.0, size)


def _bernoulli(rng: np.random.Generator, size: int, p: float) -> np.ndarray:
    return rng.random(size) < p


def _probability(seed: int, level: float, *, p: float, trials: int, **kw) -> Estimate:
    from gctheory.montecarlo import estimate_probability

    ev = functools.partial(_bernoulli, p=p)
    return estimate_probability(ev, trials, rng=seed, level=level, progress=False, **kw)


def _mean(seed: int, level: float, *, law: str, trials: int) -> Estimate:
    from gctheory.montecarlo import estimate_mean

    f = functools.partial(_draw, law)
    return estimate_mean(f, trials, rng=seed, level=level, progress=False)


def _measured(seed: int, level: float, *, law: str, trials: int) -> Estimate:
    from gctheory.montecarlo import mean_of_samples

    return mean_of_samples(_draw(law, np.random.default_rng(seed), trials), level=level)


def _sweep(seed: int, level: float, *, law: str, trials: int, batches: int) -> Estimate:
    """As a sweep of ``batches`` batches: each batch a mean through the engine (which
    warns for its batch) written as a stats-file row, the rows merged and given the
    sweeps' interval (Hall's, from the merged higher sums)."""
    from gctheory.montecarlo import mean_of_samples
    from gctheory.sweeps.stats import _estimate, merge_rows
    from gctheory.sweeps.statsfile import Higher, Row

    rng = np.random.default_rng(seed)
    rows = []
    for b in range(batches):
        est = mean_of_samples(_draw(law, rng, trials // batches), level=level)
        assert est.diagnostics is not None, "a mean carries its sample summary"
        m = est.diagnostics.moments
        higher = Higher(m.m3, m.m4, m.lo, m.hi, m.top)
        rows.append(Row("k", (b,), m.n, None, m.mean * m.n, m.m2, 0.0, seed, "mean", "{}",
                        higher))  # fmt: skip
    merged = _estimate(merge_rows(rows), level, "clopper-pearson")
    assert merged is not None, "a mean row of >= 2 trials has an estimate"
    return merged


def _tail_event(x: np.ndarray, t: float) -> np.ndarray:
    return x[:, 0] > t


def _first(x: np.ndarray) -> np.ndarray:
    return x[:, 0]


def _importance(seed: int, level: float, *, t: float, trials: int) -> Estimate:
    from gctheory.montecarlo import ShiftedGaussian, importance_sampling

    ev = functools.partial(_tail_event, t=t)
    return importance_sampling(ev, ShiftedGaussian((t,)), trials, rng=seed, level=level,
                               progress=False)  # fmt: skip


def _splitting(seed: int, level: float, *, t: float, runs: int, particles: int) -> Estimate:
    from gctheory.montecarlo import GaussianSpace, estimate_splitting

    return estimate_splitting(_first, t, GaussianSpace(1), runs, particles=particles, rng=seed,
                              level=level, progress=False)  # fmt: skip


_FIT_SAMPLERS = {
    "shifted_exp": lambda rng, n: 1.0 + rng.exponential(2.0, n),
    "pareto": lambda rng, n: rng.pareto(2.5, n) + 1.0,
    "weibull": lambda rng, n: 0.5 + 2.0 * rng.weibull(1.5, n),
}


def _fit(seed: int, level: float, *, law: str, param: str, n: int) -> Estimate:
    from gctheory.delays import FitConvergenceError, fit_law

    x = _FIT_SAMPLERS[law](np.random.default_rng(seed), n)
    try:
        fit = fit_law(x, law, level=level)
    except FitConvergenceError:  # no interval given: a miss
        return Estimate(math.nan, math.nan, math.nan, n, level, method="refused")
    lo, hi = fit.ci[param]
    return Estimate(fit.params[param], lo, hi, n, level, method=f"fit_law {law} {param}")


# --- the list ------------------------------------------------------------------------------


def cases() -> list[Case]:
    """Every case of the published table."""
    out: list[Case] = []

    def add(name, function, law_name, kind, truth, run, level=0.95, **kw):
        part = functools.partial(run, **kw)
        out.append(Case(name, function, law_name, kind, truth, level, part))

    for p, n in ((1e-3, 500), (0.02, 2000), (0.3, 50)):
        law = f"Bernoulli({p:g}), n={n}"
        add(f"probability p={p:g} n={n}", "estimate_probability", law, "light", p, _probability,
            p=p, trials=n)  # fmt: skip
    add("probability wilson p=0.001 n=500", "estimate_probability(interval='wilson')",
        "Bernoulli(0.001), n=500", "light", 1e-3, _probability, p=1e-3, trials=500,
        interval="wilson")  # fmt: skip
    mean_laws = (("normal", "light", 30), ("exponential", "skewed", 30),
                 ("lognormal(1.5)", "heavy", 200), ("pareto(2.5)", "heavy", 200))  # fmt: skip
    for law, kind, n in mean_laws:
        for level in (0.95, 0.99):
            add(f"mean {law} n={n} @{level:g}", "estimate_mean", law, kind, _MEANS[law], _mean,
                level=level, law=law, trials=n)  # fmt: skip
    for law, kind, n in (("shifted-exp", "skewed", 50), ("lognormal(1.5)", "heavy", 200),
                         ("normal", "light", 30)):  # fmt: skip
        add(f"measured {law} n={n}", "mean_of_samples (cluster.compare)", law, kind,
            _MEANS[law], _measured, law=law, trials=n)  # fmt: skip
        add(f"sweep {law} n={4 * n}", "sweeps combined (4 batches)", law, kind, _MEANS[law],
            _sweep, law=law, trials=4 * n, batches=4)  # fmt: skip
    for t in (3.0, 4.0):
        q = float(special.ndtr(-t))
        add(f"importance t={t:g}", "importance_sampling", f"normal tail > {t:g}", "light", q,
            _importance, t=t, trials=500)  # fmt: skip
        add(f"splitting t={t:g}", "estimate_splitting", f"normal tail > {t:g}", "light", q,
            _splitting, t=t, runs=10, particles=30)  # fmt: skip
    fits = (("shifted_exp", "mean", 2.0, "skewed"), ("shifted_exp", "shift", 1.0, "skewed"),
            ("pareto", "shape", 2.5, "heavy"), ("weibull", "shape", 1.5, "skewed"))  # fmt: skip
    for law, param, truth, kind in fits:
        n = 100 if law == "weibull" else 50
        add(f"fit {law} {param} n={n}", "delays.fit_law", law, kind, truth, _fit, law=law,
            param=param, n=n)  # fmt: skip
    return out


def run_case(case: Case, seeds: Sequence[int]) -> CaseResult:
    """The coverage of ``case`` over ``seeds``, and how many runs warned.

    Parameters
    ----------
    case : Case
        An interval-reporting function on one law, at one level (:func:`cases`).
    seeds : sequence of int
        One seeded replication per seed.

    Returns
    -------
    CaseResult
        Replications covering the truth, with a 99% Clopper-Pearson interval on the
        coverage and the number of runs that warned.

    Examples
    --------
    >>> from gctheory.coverage_study import cases, run_case
    >>> r = run_case(cases()[0], range(20))
    >>> r.covered, r.runs, r.level
    (20, 20, 0.95)
    """
    covered = warned = 0
    for seed in seeds:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = case.run(seed, case.level)
        covered += est.contains(case.truth)
        warned += bool(caught)
    ci = binomial_estimate(covered, len(seeds), level=CONFIDENCE, interval="clopper-pearson")
    return CaseResult(case.name, case.function, case.law, case.kind, case.level, covered,
                      len(seeds), ci.low, ci.high, warned)  # fmt: skip


def run_study(
    replications: int = REPLICATIONS, names: Sequence[str] | None = None
) -> list[CaseResult]:
    """:func:`run_case` of every case (or those named) over seeds ``0..replications-1``.

    Parameters
    ----------
    replications : int
        Seeded replications per case (the committed table uses 400).
    names : sequence of str, optional
        Only the cases of these names (default: every case).

    Returns
    -------
    list of CaseResult
        One row per case, in the order of :func:`cases`.

    Examples
    --------
    >>> from gctheory.coverage_study import run_study
    >>> [r.covered for r in run_study(10, names=["probability p=0.3 n=50"])]
    [10]
    """
    seeds = list(range(replications))
    return [run_case(c, seeds) for c in cases() if names is None or c.name in names]


FIELDS = ("name", "function", "law", "kind", "level", "covered", "runs", "low", "high",
          "warned")  # fmt: skip


def write_csv(results: Sequence[CaseResult], path: Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow((*FIELDS, "verdict"))
        for r in results:
            row = [getattr(r, f) for f in FIELDS]
            row[7:9] = [f"{r.low:.4f}", f"{r.high:.4f}"]
            w.writerow((*row, verdict(r)))


def read_csv(path: Path) -> list[CaseResult]:
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        CaseResult(
            r["name"],
            r["function"],
            r["law"],
            r["kind"],
            float(r["level"]),
            int(r["covered"]),
            int(r["runs"]),
            float(r["low"]),
            float(r["high"]),
            int(r["warned"]),
        )  # fmt: skip
        for r in rows
    ]


def markdown(results: Sequence[CaseResult]) -> str:
    """The table as Markdown (within 100 columns per row where the names allow)."""
    lines = [
        "| case | function | level | coverage [99% CI] | warned | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.name} | {r.function} | {100 * r.level:g}% | {100 * r.fraction:.1f}% "
            f"[{100 * r.low:.1f}, {100 * r.high:.1f}] | {100 * r.warned / r.runs:.0f}% | "
            f"{verdict(r)} |"
        )
    return "\n".join(lines)


# --- the choice of the mean's interval ------------------------------------------------------

MEAN_METHODS = ("clt", "hall", "bootstrap-t", "bca")


def _bootstrap_t(x: np.ndarray, level: float, rng: np.random.Generator, b: int):
    n = x.size
    xb = x[rng.integers(0, n, (b, n))]
    mb, sb = xb.mean(axis=1), xb.std(axis=1, ddof=1)
    m, s = x.mean(), x.std(ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mb - m) / (sb / math.sqrt(n))
    lo_q, hi_q = np.nanquantile(t, [(1 - level) / 2, (1 + level) / 2])
    return m - hi_q * s / math.sqrt(n), m - lo_q * s / math.sqrt(n)


def _mean_limits(method: str, x: np.ndarray, level: float, seed: int, b: int):
    from scipy import stats

    from gctheory.montecarlo.summaries import Moments, mean_estimate

    if method == "clt":
        half = float(special.ndtri((1 + level) / 2)) * x.std(ddof=1) / math.sqrt(x.size)
        return x.mean() - half, x.mean() + half
    if method == "hall":
        est = mean_estimate(Moments.of(x), level, warn=False)
        return est.low, est.high
    rng = np.random.default_rng([seed, 1])
    if method == "bootstrap-t":
        return _bootstrap_t(x, level, rng, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BCa's degenerate-distribution warnings
        r = stats.bootstrap((x,), np.mean, confidence_level=level, method="BCa",
                            n_resamples=b, random_state=rng)  # fmt: skip
    return r.confidence_interval.low, r.confidence_interval.high


def compare_mean_intervals(
    law: str, n: int, level: float, replications: int = REPLICATIONS, resamples: int = 999
) -> dict[str, CaseResult]:
    """The coverage of the candidate intervals for a mean (the normal CLT interval,
    Hall's, a bootstrap-t and scipy's BCa with ``resamples`` resamples) on ``n`` draws of
    ``law``, over seeds ``0..replications-1``: the study behind ``estimate_mean``'s choice.

    Parameters
    ----------
    law : str
        A law of the study (``"exponential"``, ``"lognormal"``, ...).
    n : int
        Draws per replication.
    level : float
        The intervals' stated level.
    replications : int
        Seeded replications.
    resamples : int
        Bootstrap resamples of the bootstrap-t and BCa intervals.

    Returns
    -------
    dict of str to CaseResult
        The coverage of each method (``clt``, ``hall``, ``bootstrap-t``, ``bca``).

    Examples
    --------
    >>> from gctheory.coverage_study import compare_mean_intervals
    >>> res = compare_mean_intervals("exponential", 30, 0.95, replications=20, resamples=99)
    >>> sorted(res), res["hall"].runs
    (['bca', 'bootstrap-t', 'clt', 'hall'], 20)
    """
    truth = _MEANS[law]
    counts = dict.fromkeys(MEAN_METHODS, 0)
    for seed in range(replications):
        x = _draw(law, np.random.default_rng(seed), n)
        for m in MEAN_METHODS:
            lo, hi = _mean_limits(m, x, level, seed, resamples)
            counts[m] += bool(lo <= truth <= hi)
    out = {}
    for m, c in counts.items():
        ci = binomial_estimate(c, replications, level=CONFIDENCE, interval="clopper-pearson")
        out[m] = CaseResult(f"{m} {law} n={n}", m, law, "", level, c, replications, ci.low,
                            ci.high, 0)  # fmt: skip
    return out


def binomial_minimum_table(table) -> str:
    """Markdown: per method and level, the smallest exact coverage on the grid and where.

    Parameters
    ----------
    table : CoverageTable
        Exact coverages from :func:`gctheory.montecarlo.coverage.coverage_table`.

    Returns
    -------
    str
        A Markdown table, one row per method and level.

    Examples
    --------
    >>> from gctheory.coverage_study import binomial_minimum_table
    >>> from gctheory.montecarlo.coverage import coverage_table
    >>> t = coverage_table(methods=("clopper-pearson",), levels=(0.95,), ns=(50,), ps=(0.1,))
    >>> print(binomial_minimum_table(t).splitlines()[2].split("|")[1].strip())
    clopper-pearson
    """
    lines = ["| method | level | minimum exact coverage | at n | at p |", "|---|---|---|---|---|"]
    for m in dict.fromkeys(r.method for r in table.rows):
        for lv in dict.fromkeys(r.level for r in table.rows):
            r = table.minimum(m, lv)
            lines.append(f"| {m} | {100 * lv:g}% | {100 * r.coverage:.3f}% | {r.n} | {r.p:g} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Coverage study of every interval estimator")
    ap.add_argument("--out", type=Path, required=True, help="folder for coverage_study.csv")
    ap.add_argument("--replications", type=int, default=REPLICATIONS)
    ap.add_argument("--part", choices=("cases", "binomial", "mean-choice"), default="cases")
    args = ap.parse_args(argv)
    t0 = time.process_time()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.part == "cases":
        results = run_study(args.replications)
        write_csv(results, args.out / "coverage_study.csv")
        print(markdown(results))
    elif args.part == "binomial":
        from gctheory.montecarlo.coverage import coverage_table

        table = coverage_table()
        with open(args.out / "binomial_coverage_grid.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(("method", "level", "n", "p", "coverage", "neglected"))
            for r in table.rows:
                w.writerow((r.method, r.level, r.n, r.p, f"{r.coverage:.8f}",
                            f"{r.neglected:.1e}"))  # fmt: skip
        print(binomial_minimum_table(table))
        print(f"largest neglected mass: {table.max_neglected:.2e}")
    else:
        rows: list[CaseResult] = []
        for law, n in (("exponential", 30), ("lognormal(1.5)", 200), ("pareto(2.5)", 200)):
            for level in (0.95, 0.99):
                rows += compare_mean_intervals(law, n, level, args.replications).values()
        print(markdown(rows))
    print(f"\n{time.process_time() - t0:.0f} s CPU")


if __name__ == "__main__":
    main()
