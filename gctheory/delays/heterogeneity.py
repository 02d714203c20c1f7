"""Per-worker delays from a trace: do the workers differ, and what does it change?

The runtime model draws every worker from one law. A measured cluster's function
slots may not be alike. This module

* **tests whether the workers differ** at one load (:func:`workers_differ`):
  Kruskal-Wallis on each worker's times across rounds (ranks, no law assumed);
  Friedman's test with rounds as blocks (removes what a round shares: a slow round
  slows everyone); and the likelihood-ratio (F) test of per-worker means of the log
  times against one common mean (one-way ANOVA: the likelihood ratio of a lognormal
  per worker with a common sigma, against one lognormal);
* **groups the workers** into ``G`` clusters of equal size by their median time
  (:func:`cluster_workers`) and fits a law to each cluster
  (:mod:`gctheory.delays.fitting`);
* gives the **expected iteration time of a scheme under the heterogeneous model**,
  next to the i.i.d. fit, the pooled empirical law and the measured rounds
  (:func:`hetero_scheme_times`, the estimators of
  :func:`gctheory.delays.scheme_times` plus):

  ``clusters-<law>``  the first ``n`` slots, each from its cluster's fitted law: the
                      non-identical order statistic
                      (:mod:`gctheory.order_stats.heterogeneous`), for every ``k`` at
                      once by integrating ``P(N(t) < k)`` on a grid of ``t``;
  ``per-worker``      each of the first ``n`` slots from its own measured times
                      (resampled across rounds, independently): Monte Carlo;
  ``markov``          the straggler chain of :mod:`gctheory.delays.markov` fitted at
                      that load, a worker's time drawn from the measured on-time or
                      straggling times by its state: Monte Carlo.

  Only decoding rules "the fastest ``wait`` of all ``n``" (uncoded, ignore-s,
  cyclic-MDS, Ye-Abbe) get the three; for grouped rules (FRC, CommFR-GC) which
  workers form a group matters and the estimators are not computed (a note says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np
from scipy import integrate, special, stats

from gctheory._validate import as_generator, check_int, check_real
from gctheory.delays.censored import as_data_shares, is_run_trace
from gctheory.delays.decisions import SchemeTimes, scheme_times
from gctheory.delays.fitting import fit_law
from gctheory.delays.loadplan import load_plans, resolve_load_model
from gctheory.delays.markov import MemoryDelay, fit_gilbert_elliott, straggler_matrix
from gctheory.delays.trace import Trace

__all__ = [
    "WorkerDifference",
    "workers_differ",
    "cluster_workers",
    "fit_clusters",
    "grouped_order_means",
    "hetero_scheme_times",
]


@dataclass(frozen=True)
class WorkerDifference:
    """Tests of "all workers have the same law" at one load (module docstring)."""

    load: float
    rounds: int
    workers: int
    kruskal_h: float
    kruskal_p: float
    friedman_chi2: float
    friedman_p: float
    anova_f: float
    anova_p: float
    spread: float  # ratio of the slowest to the fastest worker's median

    def row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _matrix(trace: Trace, load: float) -> np.ndarray:
    if not isinstance(trace, Trace):
        raise ValueError(f"trace must be a Trace (see read_trace), got {type(trace).__name__}")
    trace.require_single_campaign("per-worker delays (the same slots in every round)")
    return trace.rounds(load)


def workers_differ(trace: Trace, load: float) -> WorkerDifference:
    """Kruskal-Wallis, Friedman (rounds as blocks) and the log-time ANOVA likelihood-ratio
    test of "every worker has the same law", at ``load``, on one campaign."""
    M = _matrix(trace, load)
    R, W = M.shape
    if R < 3 or W < 2:
        raise ValueError(
            f"trace: {R} rounds of {W} workers at load {load:g}; the tests need >= 3 rounds "
            "and >= 2 workers"
        )
    cols = [M[:, j] for j in range(W)]
    kw = stats.kruskal(*cols)
    fr = stats.friedmanchisquare(*cols)
    logs = np.log(np.maximum(M, 1e-12))
    an = stats.f_oneway(*[logs[:, j] for j in range(W)])
    med = np.median(M, axis=0)
    return WorkerDifference(
        float(load),
        R,
        W,
        float(kw.statistic),
        float(kw.pvalue),
        float(fr.statistic),
        float(fr.pvalue),
        float(an.statistic),
        float(an.pvalue),
        float(med.max() / med.min()),
    )


def cluster_workers(M: np.ndarray, G: int) -> np.ndarray:
    """Cluster label (0 = fastest) of each worker: ``G`` groups of (nearly) equal size
    by the worker's median time."""
    M = np.asarray(M, dtype=float)
    W = M.shape[1]
    G = check_int(G, "clusters", low=1, high=W)
    order = np.argsort(np.median(M, axis=0), kind="stable")
    lab = np.empty(W, dtype=int)
    for g, idx in enumerate(np.array_split(order, G)):
        lab[idx] = g
    return lab


def fit_clusters(M: np.ndarray, labels: np.ndarray, law: str) -> list[Any]:
    """A fitted frozen law per cluster (pooled times of its workers)."""
    out = []
    for g in range(int(labels.max()) + 1):
        f = fit_law(M[:, labels == g].ravel(), law)
        if not f.converged:
            raise ValueError(f"law: {law} did not converge on cluster {g}: {f.message}")
        out.append(f.dist)
    return out


def grouped_order_means(laws: list[Any], counts: list[int], points: int = 3000) -> np.ndarray:
    """``E[X_(k)]`` for every ``k = 1..n`` of ``n = sum(counts)`` independent workers,
    ``counts[g]`` of them from ``laws[g]``: ``int P(N(t) < k) dt`` on a grid of ``t``
    placed at the laws' quantiles (normal-score spaced, ``points`` per law, levels
    1e-10 .. 1 - 1e-10), trapezoid rule, plus the union-bound tail
    ``sum_g n_g E[(X_g - t_max)^+]`` for the maximum. Accuracy about 1e-5 relative
    (checked against :func:`gctheory.order_stats.expected_order_statistic`)."""
    from gctheory.order_stats.heterogeneous import _Counts

    n = int(sum(counts))
    z = np.linspace(-6.4, 6.4, points)
    qs = special.ndtr(z)
    grid = np.unique(np.concatenate([np.asarray(d.ppf(qs), dtype=float) for d in laws]))
    grid = grid[np.isfinite(grid)]
    lo = min(float(d.support()[0]) for d in laws)
    if np.isfinite(lo) and lo < grid[0]:
        grid = np.r_[lo, grid]
    cnt = _Counts(list(counts))
    # pmf of N(t) on the grid: convolve the groups' binomial pmfs
    sf_k = np.empty((grid.size, n))  # P(N(t) < k), k = 1..n
    # each law's cdf on the whole grid at once (a scalar call per point was 3/4 of the time)
    cdfs = [np.clip(np.asarray(d.cdf(grid), dtype=float), 0.0, 1.0) for d in laws]
    for i in range(grid.size):
        pmf = np.ones(1)
        for F, c in zip(cdfs, counts, strict=True):
            pmf = np.convolve(pmf, cnt.pmf(c, float(F[i])))
        sf_k[i] = np.cumsum(pmf)[:n]
    means = grid[0] + integrate.trapezoid(sf_k, grid, axis=0)
    tmax = grid[-1]
    tail = 0.0
    for d, c in zip(laws, counts, strict=True):
        tail += c * integrate.quad(lambda t, d=d: float(d.sf(t)), tmax, np.inf, limit=200)[0]
    means[-1] += tail
    return means


#: rounds per simulated stationary run of the Markov estimator (the campaigns' length)
_RUN = 30


def _mc_order_means(sampler, n: int, trials: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of every order statistic from ``sampler(rng, size)``."""
    g = as_generator(rng)
    acc = np.zeros(n)
    acc2 = np.zeros(n)
    done = 0
    while done < trials:
        b = min(2000, trials - done)
        X = np.sort(sampler(g, b), axis=1)
        acc += X.sum(axis=0)
        acc2 += (X * X).sum(axis=0)
        done += b
    m = acc / trials
    var = np.maximum(acc2 / trials - m * m, 0.0)
    return m, np.sqrt(var / trials)


def hetero_scheme_times(
    trace: Trace,
    scheme: str,
    n: int,
    *,
    clusters: int = 4,
    law: str = "lognormal",
    laws: tuple[str, ...] = ("lognormal",),
    quantile: float = 0.9,
    trials: int = 20_000,
    bootstrap: int = 200,
    load_model: Any = "interpolate",
    rng: Any = None,
    **kw: Any,
) -> SchemeTimes:
    """:func:`gctheory.delays.scheme_times` with the heterogeneous and memoryful
    estimators of the module docstring added (``clusters-<law>``, ``per-worker``,
    ``markov``). ``trace`` must be one campaign with at least ``n`` workers a round;
    the first ``n`` slots are the cluster. Monte Carlo estimators use ``trials``
    simulated rounds per measured load (their standard errors are in ``notes``)."""
    clusters = check_int(clusters, "clusters", low=1)
    trials = check_int(trials, "trials", low=100)
    quantile = check_real(quantile, "quantile", low=0.0, high=1.0, low_open=True, high_open=True)
    g = as_generator(rng)
    base = scheme_times(
        trace, scheme, n, laws=laws, bootstrap=bootstrap, load_model=load_model, rng=g, **kw
    )
    notes = dict(base.notes)
    if np.any(base.groups != 1):
        notes["heterogeneous"] = (
            "not computed for grouped decoding rules (which workers share a group matters)"
        )
        return replace(base, notes=notes)
    if is_run_trace(trace):
        notes["heterogeneous"] = (
            "not computed on a run trace: its stragglers were cancelled, so their times are "
            "right-censored, and the per-cluster, per-worker and Markov estimators need every "
            "worker's completed time (the law and empirical rows read the censoring)"
        )
        return replace(base, notes=notes)
    shares = as_data_shares(trace)
    model, slope, _ = resolve_load_model(shares, load_model)
    lp = load_plans(base.load.tolist(), base.s.tolist(), shares.loads, model, slope)
    per: dict[str, dict[float, np.ndarray]] = {
        f"clusters-{law}": {},
        "per-worker": {},
        "markov": {},
    }
    se_max = {"per-worker": 0.0, "markov": 0.0}
    fits_info = []
    for ld in lp.used:
        M = _matrix(shares, ld)
        if M.shape[1] < n:
            raise ValueError(
                f"n: the trace's rounds have {M.shape[1]} workers at load {ld:g}, fewer than n={n}"
            )
        waits = base.wait[lp.serve[ld]] - 1
        per[f"clusters-{law}"][ld] = _cluster_means(M[:, :n], clusters, law)[waits]
        m, se = _mc_order_means(partial(_per_worker_rounds, Mn=M[:, :n]), n, trials, g)
        per["per-worker"][ld] = m[waits]
        se_max["per-worker"] = max(se_max["per-worker"], float(se[waits].max()))
        md, info = _memory_model(M, quantile, ld)
        fits_info.append(info)
        m, se = _mc_order_means(partial(_markov_rounds, md=md, n=n), n, trials, g)
        per["markov"][ld] = m[waits]
        se_max["markov"] = max(se_max["markov"], float(se[waits].max()))
    times = dict(base.times)
    comm = np.array([base.tau * (1.0 / base.m if scheme == "ye-abbe" else 1.0)] * len(base.s))
    for k, v in per.items():
        times[k] = lp.combine(v) + comm
    notes["per-worker"] = (
        f"Monte Carlo, {trials} rounds per load; largest standard error "
        f"{se_max['per-worker']:.3g} s"
    )
    notes["markov"] = (
        f"Monte Carlo, {trials} rounds per load (runs of {_RUN} rounds); largest standard "
        f"error {se_max['markov']:.3g} s; Gilbert chain, straggler = time above the "
        f"{quantile:g}-quantile of the pooled times at that load; " + "; ".join(fits_info)
    )
    notes[f"clusters-{law}"] = f"{clusters} clusters by median time, {law} fitted per cluster"
    return replace(base, times=times, notes=notes)


def _cluster_means(Mn: np.ndarray, clusters: int, law: str) -> np.ndarray:
    """``E[X_(k)]`` for every ``k`` with each worker from its cluster's fitted ``law``
    (clusters by median time)."""
    lab = cluster_workers(Mn, clusters)
    dists = fit_clusters(Mn, lab, law)
    counts = [int(np.sum(lab == c)) for c in range(clusters)]
    return grouped_order_means(dists, counts)


def _per_worker_rounds(gen: np.random.Generator, size: int, Mn: np.ndarray) -> np.ndarray:
    """``size`` simulated rounds: each worker's time resampled from its own column."""
    idx = gen.integers(0, Mn.shape[0], size=(size, Mn.shape[1]))
    return Mn[idx, np.arange(Mn.shape[1])]


def _memory_model(M: np.ndarray, quantile: float, ld: float) -> tuple[MemoryDelay, str]:
    """The straggler chain fitted at one load (straggler: above the pooled
    ``quantile``) as a delay model, and a line naming its parameters."""
    S, rule = straggler_matrix(M, quantile=quantile)
    thr = float(np.quantile(M, quantile))
    fit = fit_gilbert_elliott(S, rule=rule)
    info = f"load {ld:g}: p={fit.params['p']:.4g}, r={fit.params['r']:.4g} (threshold {thr:.4g} s)"
    return MemoryDelay.from_matrix(M, fit, thr), info


def _markov_rounds(
    gen: np.random.Generator, size: int, md: MemoryDelay, n: int, run: int = _RUN
) -> np.ndarray:
    """``size`` simulated rounds of ``n`` workers of the chain, in stationary runs of
    ``run`` rounds."""
    reps = math.ceil(size / run)
    X = np.concatenate([md.draw_rounds(run, n, gen) for _ in range(reps)])
    return X[:size]
