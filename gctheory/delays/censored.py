"""Delay laws fitted to right-censored times: the traces of real runs.

``gctheory run`` waits for the fastest ``n - s`` workers of each iteration and cancels
the rest, so a straggler's time is known only to exceed the moment the iteration
ended: it is **right-censored** there (its trace row has ``status`` ``never`` and
``time`` equal to how long it was observed). Fitting only the completed rows keeps the
fastest ``n - s`` of each round and biases every law towards fast times (with
``shifted_exp(0.02, 0.02)`` per unit load injected into cyclic-MDS with ``n = 8``,
``s = 2``, the excess mean came out about 35% low). Here each law is fitted by censored
maximum likelihood, ``log L = sum_obs log f(x_i) + sum_cens log S(c_j)``:

- ``shifted_exp`` and ``pareto`` in closed form (total time on test), with the
  chi-square intervals of Type II censoring (exact when each round keeps its fastest
  ``r`` of ``n``, as the run does; ``2r - 2`` degrees of freedom for the estimated
  shift) and the sample minimum's law for the shift / scale;
- ``weibull``, ``gamma``, ``lognormal`` and ``mixture`` numerically (L-BFGS-B from the
  fit of the completed times, the mixture's tail threshold held at that fit's), with
  Wald intervals from the Hessian of the censored log-likelihood.

Coverage at 95% on seeded synthetic runs (50 rounds of 8 workers at unit load 3, the
fastest 6 kept, the rest censored 2 ms after the sixth): ``shifted_exp`` mean 381/400
and shift 387/400; Weibull shape (1.5) 277/300 and lognormal sigma (0.5) 281/300 (the
Wald intervals fall a little short, as at small n without censoring).

Per round, the likelihood of "the fastest ``r`` of ``n`` observed, the rest beyond the
iteration's end" has exactly this form (the end is a function of the other workers'
times), so the estimates are consistent for independent, identically distributed
per-unit times.

The empirical side is the Kaplan-Meier estimate (:func:`kaplan_meier`, through
``scipy.stats.ecdf``). Goodness of fit: the KS-type distance ``sup |F_KM - F_fit|`` over
the observed range, with a seeded parametric-bootstrap p-value that redraws each round
from the fitted law and censors it the way the run did (the round's fastest ``r``
observed, the rest censored where the round ended, relative to its ``r``-th time).

A run trace's ``load`` column is the worker's unit load ``l_i`` = (partitions held) x
``n`` / ``k``, the factor of the injected sleep ``l_i X`` (its ``load_unit`` column
says ``unit``; older traces carried the data share and are converted): the times are
divided by :func:`run_unit_loads` (the one place that reads the loads), so the fitted
law is per unit load, in the units ``--delay`` takes. The times also contain the
engine's own overhead (computing and sending the gradient): the fitted shift sits above
the injected one by about the smallest overhead per unit load.

The SGC profiles and the AWS Lambda traces carry every worker's time (nothing is
cancelled), so they are not censored and are fitted by :func:`gctheory.delays.fit_laws`.
"""

from __future__ import annotations

import dataclasses
import math
import time as _time
from typing import Any

import numpy as np
from scipy import optimize, special, stats

from gctheory._validate import as_generator, check_choice, check_int, check_probability
from gctheory.delays._mle import (
    _FITTERS,
    LAW_PARAMETERS,
    LAWS,
    FitConvergenceError,
    LawFit,
    _frozen3,
    _mix_terms,
    _wald,
)
from gctheory.delays._threads import blas_single_thread
from gctheory.delays.censored_sample import (
    CENSORED,
    LOAD_UNIT,
    LOAD_UNITS,
    OBSERVED,
    CensoredSample,
    _as_sample,
    as_data_shares,
    censored_sample,
    is_run_trace,
    kaplan_meier,
    km_distance,
    product_limit,
    run_unit_loads,
)
from gctheory.delays.mixture import _BodyTailGen, body_tail

__all__ = [
    "LOAD_UNIT",
    "LOAD_UNITS",
    "CensoredSample",
    "as_data_shares",
    "censored_fits_by_share",
    "censored_sample",
    "fit_law_censored",
    "fit_laws_censored",
    "fit_by_worker",
    "is_run_trace",
    "kaplan_meier",
    "km_distance",
    "product_limit",
    "run_unit_loads",
]


def censored_fits_by_share(tr: Any, laws: Any) -> tuple[dict, dict[str, str]]:
    """Each law fitted to a run trace's times (seconds) at each data share, as censored data.

    The ``fits`` :func:`gctheory.delays.scheme_times` takes for a run trace (keys ``(law,
    share)`` with the shares of :func:`as_data_shares`), so its per-law rows use the
    cancelled stragglers' survival instead of reading only the fastest ``n - s`` of each
    round. Returns ``(fits, notes)``: a law that does not fit at some share is left out of
    ``fits`` and named in ``notes`` (the caller drops it rather than refit it uncensored).
    """
    from gctheory.delays.fitting import fit_law

    shr = as_data_shares(tr)
    status = np.asarray(tr.columns["status"]).astype(str)
    keep = np.isin(status, OBSERVED + CENSORED)
    fits: dict = {}
    notes: dict[str, str] = {}
    for ld in shr.loads:
        m = keep & (shr.load == ld)
        cens = np.isin(status[m], CENSORED)
        t = np.asarray(tr.time, float)[m]
        smp = CensoredSample(t, cens, np.ones(t.size), tr.round[m], tr.worker[m])
        for law in laws:
            try:
                f = fit_law_censored(smp, law) if cens.any() else fit_law(t, law)
            except (FitConvergenceError, ValueError) as exc:
                notes[law] = f"no censored fit at load {float(ld):g}: {exc}"
                continue
            fits[(law, float(ld))] = f
    return fits, notes


# ---------------------------------------------------------------------------- closed forms


def _closed(law: str, s: CensoredSample, level: float | None) -> tuple[dict, dict, Any]:
    x, c = s.observed, s.times[s.censored]
    n, r, lo = s.times.size, x.size, float(x.min())
    if law == "shifted_exp":
        ttt = float(np.sum(x - lo) + np.sum(np.maximum(c - lo, 0.0)))
        if not ttt > 0:
            raise FitConvergenceError("all times are equal: no exponential part to fit")
        mean = ttt / r
        params, dist = {"shift": lo, "mean": mean}, stats.expon(loc=lo, scale=mean)
    else:
        if not lo > 0:
            raise FitConvergenceError(f"a Pareto law needs times > 0; the minimum is {lo:g}")
        ttt = float(np.sum(np.log(x / lo)) + np.sum(np.log(np.maximum(c, lo) / lo)))
        if not ttt > 0:
            raise FitConvergenceError("all times are equal: the Pareto shape is unbounded")
        xi = r / ttt
        params, dist = {"scale": lo, "shape": xi}, stats.pareto(xi, scale=lo)
    if level is None:
        return params, {k: (math.nan, math.nan) for k in params}, dist
    a = 1 - level
    c_hi, c_lo = stats.chi2.ppf([1 - a / 2, a / 2], 2 * r - 2)  # 2 TTT / theta ~ chi2
    if law == "shifted_exp":
        ci = {
            "shift": (lo + mean * math.log(a / 2) / n, lo + mean * math.log(1 - a / 2) / n),
            "mean": (2 * ttt / c_hi, 2 * ttt / c_lo),
        }
    else:
        ci = {
            "scale": (lo * (a / 2) ** (1 / (n * xi)), lo * (1 - a / 2) ** (1 / (n * xi))),
            "shape": (c_lo / (2 * ttt), c_hi / (2 * ttt)),
        }
    return params, ci, dist


# ---------------------------------------------------------------------------- numerical


def _logsf(dist: Any, c: np.ndarray) -> np.ndarray:
    if isinstance(dist.dist, _BodyTailGen):  # scipy's generic logsf goes through its ppf
        return np.log(dist.sf(c))
    return dist.logsf(c)


def _nll(dist: Any, s: CensoredSample) -> float:
    try:
        with np.errstate(all="ignore"):
            v = -float(np.sum(dist.logpdf(s.observed)) + np.sum(_logsf(dist, s.times[s.censored])))
    except (ValueError, FloatingPointError):
        return math.inf
    return v if math.isfinite(v) else math.inf


def _fast_nll(law: str, t: np.ndarray, s: CensoredSample) -> float:
    """The censored negative log-likelihood of a three-parameter law in numpy (the
    optimiser's objective; ``_nll`` through scipy gives the same value)."""
    k, loc, scale = t
    if not (k > 0 and scale > 0):
        return math.inf
    z = (s.times - loc) / scale
    if not np.all(z > 0):
        return math.inf
    obs, cen = z[~s.censored], z[s.censored]
    with np.errstate(all="ignore"):
        if law == "weibull":
            lp = np.log(k) + (k - 1) * np.log(obs) - obs**k
            ls = -(cen**k)
        elif law == "gamma":
            lp = (k - 1) * np.log(obs) - obs - special.gammaln(k)
            ls = np.log(special.gammaincc(k, cen))
        else:
            lz = np.log(z) / k
            lp = -0.5 * lz[~s.censored] ** 2 - np.log(k * obs) - 0.5 * math.log(2 * math.pi)
            ls = special.log_ndtr(-lz[s.censored])
        v = -(float(np.sum(lp)) - obs.size * math.log(scale) + float(np.sum(ls)))
    return v if math.isfinite(v) else math.inf


def _mixture_nll(t: np.ndarray, t0: float, s: CensoredSample) -> float:
    """The censored negative log-likelihood of the mixture (as ``body_tail``) in numpy."""
    w, sig, loc, scale, xi = t
    if not (0 < w < 1 and sig > 0 and scale > 0 and xi > 0 and loc >= 0):
        return math.inf
    x, c = s.observed, s.times[s.censored]
    if not np.all(x > loc):
        return math.inf
    with np.errstate(all="ignore"):
        lb, lt = _mix_terms(x, np.log(x), w, sig, loc, scale, xi, t0)
        zc = (np.log(np.maximum(c - loc, 1e-300)) - math.log(scale)) / sig
        body = np.where(c > loc, special.ndtr(-zc), 1.0)
        tail = np.where(c >= t0, (t0 / np.maximum(c, 1e-300)) ** xi, 1.0)
        v = -float(np.sum(np.logaddexp(lb, lt)) + np.sum(np.log((1 - w) * body + w * tail)))
    return v if math.isfinite(v) else math.inf


def _numeric(
    law: str, s: CensoredSample, level: float | None, start: dict | None = None
) -> tuple[dict, dict, Any]:
    """Censored likelihood maximised from the completed times' fit, or from ``start`` (the
    fitted parameters, for the bootstrap's refits)."""
    x = s.observed
    params0 = _FITTERS[law](x, None)[0] if start is None else start
    lo = float(min(x.min(), s.times.min()))
    names: tuple[str, ...]
    if law == "mixture":
        t0 = params0["t0"]
        names = ("w", "sigma", "loc", "scale", "xi")

        def dist_of(t: np.ndarray) -> Any:
            return body_tail(t[0], t[1], t[2], t[3], t[4], t0)

        bounds = [(1e-9, 1 - 1e-9), (1e-6, 50.0), (0.0, lo * (1 - 1e-9)), (1e-12, None),
                  (1e-3, 1e3)]  # fmt: skip
    else:
        names = LAW_PARAMETERS[law]

        def dist_of(t: np.ndarray) -> Any:
            return _frozen3(law, t[0], t[1], t[2])

        bounds = [(1e-4, 1e3), (0.0, lo * (1 - 1e-9)), (1e-12, None)]
    theta0 = np.array([params0[k] for k in names], float)
    theta0[names.index("loc")] = min(theta0[names.index("loc")], lo * (1 - 1e-6))
    scale = np.maximum(np.abs(theta0), 1e-12)  # optimise theta / theta0: unit steps
    scale[names.index("loc")] = lo  # the shift in units of the sample minimum (it may be 0)

    def f(u: np.ndarray) -> float:
        try:
            if law == "mixture":
                v = _mixture_nll(u * scale, t0, s) / s.times.size
            else:
                v = _fast_nll(law, u * scale, s) / s.times.size
        except ValueError:  # a parameter outside its domain (NaN from a numerical step)
            return 1e100
        return v if math.isfinite(v) else 1e100

    tol = 1e-12 if start is None else 1e-9  # the bootstrap's refits: the statistic's precision
    ub = [(None if b is None else b / sc, None if b2 is None else b2 / sc)
          for (b, b2), sc in zip(bounds, scale)]  # fmt: skip
    res = optimize.minimize(f, theta0 / scale, method="L-BFGS-B", bounds=ub,
                            options={"maxiter": 400, "ftol": tol, "gtol": 1e-8})  # fmt: skip
    theta = res.x * scale if res.fun <= f(theta0 / scale) else theta0
    if not math.isfinite(_nll(dist_of(theta), s)):
        raise FitConvergenceError(f"{law}: no finite maximum of the censored likelihood")
    loc = float(theta[names.index("loc")])
    if law != "mixture" and theta[0] < 1 and lo - loc < 1e-9 * max(lo, 1e-300):
        raise FitConvergenceError(
            f"{law}: the censored likelihood keeps increasing as the shift approaches the "
            "sample minimum: no maximum with a free shift"
        )
    params = dict(zip(names, (float(v) for v in theta)))
    if law == "mixture":
        params["t0"] = float(t0)
    dist = dist_of(theta)
    if level is None:
        return params, {k: (math.nan, math.nan) for k in params}, dist
    room = np.array([min(v - lb if lb is not None else v, (ub_ - v) if ub_ is not None else v)
                     for v, (lb, ub_) in zip(theta, bounds)])  # fmt: skip
    ci_arr = _wald(dist_of, theta, x, level, room, nll=lambda d: _nll(d, s))
    ci = {k: (float(ci_arr[i, 0]), float(ci_arr[i, 1])) for i, k in enumerate(names)}
    if law == "mixture":
        ci["t0"] = (math.nan, math.nan)
    return params, ci, dist


def _fit_one(
    law: str, s: CensoredSample, level: float | None, start: dict | None = None
) -> tuple[dict, dict, Any]:
    if law in ("shifted_exp", "pareto"):
        return _closed(law, s, level)
    return _numeric(law, s, level, start)


def fit_law_censored(times: Any, law: str, censored: Any = None, *, level: float = 0.95) -> LawFit:
    """Censored maximum-likelihood fit of ``law`` to ``times`` (a :class:`CensoredSample`, or
    times with a ``censored`` flag each). ``ks`` is the Kaplan-Meier distance
    (:func:`km_distance`); ``ad`` is NaN (not defined under censoring)."""
    check_choice(law, "law", LAWS)
    level = check_probability(level, "level", open_low=True, open_high=True)
    s = _as_sample(times, censored)
    t0 = _time.perf_counter()
    with blas_single_thread():
        params, ci, dist = _fit_one(law, s, level)
    ll = -_nll(dist, s)
    k = len(LAW_PARAMETERS[law])
    r = int((~s.censored).sum())
    how = (
        "closed form"
        if law in ("shifted_exp", "pareto")
        else "Wald intervals, which covered 92-94% at 95% in a study"
    )
    return LawFit(
        law=law,
        n=s.times.size,
        params=params,
        ci=ci,
        level=level,
        dist=dist,
        loglik=ll,
        aic=2 * k - 2 * ll,
        message=f"right-censored: {r} of {s.times.size} times completed ({how})",
        ks=km_distance(s, dist),
        seconds=_time.perf_counter() - t0,
    )


# ---------------------------------------------------------------------------- bootstrap


def _censoring_plan(s: CensoredSample) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the count ``k`` of completed times in its round and the gap from the
    round's ``k``-th time to where it was censored (rounds with a censored row only;
    ``k = -1`` elsewhere), and the row order by round (for :func:`_redraw`)."""
    k_row = np.full(s.times.size, -1, np.int64)
    gap_row = np.zeros(s.times.size)
    for r in np.unique(s.rounds[(s.rounds >= 0) & s.censored]):
        idx = np.flatnonzero(s.rounds == r)
        real0 = s.times[idx] * s.unit[idx]
        done = ~s.censored[idx]
        k_row[idx] = int(done.sum())
        gap_row[idx] = max(float(real0[~done].min() - (real0[done].max() if done.any() else 0)), 0)
    return k_row, gap_row, np.argsort(s.rounds, kind="stable")


def _redraw(
    s: CensoredSample, dist: Any, rng: np.random.Generator, plan: tuple | None = None
) -> CensoredSample:
    """A sample drawn from ``dist`` and censored as the run censored ``s`` (see the module
    docstring): in each round that had a censored row, the fastest ``k`` (as many as were
    completed) are observed and the rest censored at the ``k``-th real time plus the
    round's gap; rows of unknown round keep their own censoring time."""
    k_row, gap_row, _ = _censoring_plan(s) if plan is None else plan
    t = np.asarray(dist.rvs(size=s.times.size, random_state=rng), float)
    real = t * s.unit
    order = np.lexsort((real, s.rounds))  # by round, then time
    rs = s.rounds[order]
    first = np.searchsorted(rs, rs, side="left")  # each sorted row's round start
    kth = np.full(t.size, np.inf)
    planned = k_row[order] >= 0
    pos = first + np.maximum(k_row[order], 1) - 1
    kth_sorted = np.where(k_row[order] > 0, real[order][np.minimum(pos, t.size - 1)], 0.0)
    kth[order] = np.where(planned, kth_sorted + gap_row[order], np.inf)
    cut = np.where(s.rounds < 0, np.where(s.censored, s.times * s.unit, np.inf), kth)
    cens = real > cut
    out = np.where(cens, cut / s.unit, t)
    return dataclasses.replace(s, times=out, censored=cens)


def _bootstrap_p(
    law: str, s: CensoredSample, fit: LawFit, B: int, rng: np.random.Generator
) -> tuple[float, int]:
    stat, failed = [], 0
    plan = _censoring_plan(s)
    for _ in range(B):
        sb = _redraw(s, fit.dist, rng, plan)
        try:
            if int((~sb.censored).sum()) < 10:
                raise ValueError("too few completed times")
            _, _, d = _fit_one(law, sb, None, start=fit.params)
            stat.append(km_distance(sb, d))
        except (FitConvergenceError, ValueError, FloatingPointError):
            failed += 1
    arr = np.array(stat)
    return float((1 + np.sum(arr >= fit.ks)) / (1 + arr.size)), failed


def fit_laws_censored(
    sample: Any,
    laws: Any = LAWS,
    *,
    censored: Any = None,
    bootstrap: int = 0,
    rng: Any = None,
    level: float = 0.95,
    progress: Any = None,
) -> list[LawFit]:
    """Fit every law of ``laws`` by censored maximum likelihood; with ``bootstrap > 0``
    the KM distance's parametric-bootstrap p-value (in ``ks_p``; ``ad_p`` stays None).

    As :func:`gctheory.delays.fit_laws`: a law whose fit fails is kept with
    ``converged=False``; ``progress(done, total, law)`` before each law and at the end.
    """
    laws = [check_choice(v, "laws", LAWS) for v in ([laws] if isinstance(laws, str) else laws)]
    s = _as_sample(sample, censored)
    level = check_probability(level, "level", open_low=True, open_high=True)
    B = check_int(bootstrap, "bootstrap", low=0, high=10**4)
    children = as_generator(rng).spawn(len(laws))
    out = []
    for i, (law, child) in enumerate(zip(laws, children)):
        if progress is not None:
            progress(i, len(laws), law)
        try:
            f = fit_law_censored(s, law, level=level)
            if B:
                t0 = _time.perf_counter()
                with blas_single_thread():
                    p, failed = _bootstrap_p(law, s, f, B, child)
                if failed > 0.1 * B:
                    raise FitConvergenceError(
                        f"{law}: {failed} of {B} bootstrap refits did not converge; the "
                        "p-value would be biased"
                    )
                f = dataclasses.replace(f, ks_p=p, bootstrap=B, failed_refits=failed,
                                        seconds=f.seconds + _time.perf_counter() - t0)  # fmt: skip
        except FitConvergenceError as exc:
            names = LAW_PARAMETERS[law]
            f = LawFit(law, s.times.size, {k: math.nan for k in names},
                       {k: (math.nan, math.nan) for k in names}, level, None, math.nan,
                       math.nan, converged=False, message=str(exc))  # fmt: skip
        out.append(f)
    if progress is not None:
        progress(len(laws), len(laws), "")
    return out


def fit_by_worker(sample: CensoredSample, laws: Any = LAWS, **kw: Any) -> dict[int, list[LawFit]]:
    """:func:`fit_laws_censored` for each worker's rows alone (``worker -> fits``); a worker
    with fewer than 10 completed times is left out."""
    out = {}
    for w in np.unique(sample.workers):
        sub = sample.subset(sample.workers == w)
        if int((~sub.censored).sum()) >= 10:
            out[int(w)] = fit_laws_censored(sub, laws, **kw)
    return out
