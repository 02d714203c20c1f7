"""The time columns of a row: the expected iteration time (exact, :mod:`gctheory.runtime`)
and its Monte Carlo twin at the Monte Carlo points, or, on a measured trace, the empirical
time with a bootstrap interval (:func:`gctheory.delays.scheme_times`). See the package
docstring for the time model (approximate codes: ``ignore-s`` scaled by the load)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from gctheory.tradeoff.schemes.context import Context, seed_for

__all__ = ["time_fields"]


def time_fields(
    ctx: Context,
    s: int,
    m: int,
    *,
    layout: str,
    code: tuple[int, int, int] | None = None,
    scale: float | None = None,
    mc: bool,
) -> tuple[dict[str, Any], list[str]]:
    """Expected time (exact) and, at the Monte Carlo points, its sampled twin."""
    from gctheory.montecarlo import UnreliableEstimateWarning
    from gctheory.runtime import scheme_time_mc, scheme_time_moments

    if ctx.replay is not None:
        return _trace_time_fields(ctx, s, m, layout=layout, code=code, scale=scale)
    if ctx.dist is None:
        return {}, []
    if ctx.memory:  # stragglers with memory: gctheory.delays.markov_times
        from gctheory.delays.markov_times import atlas_time_fields

        rng = np.random.default_rng(seed_for(ctx.root, "memory-time", layout, s, m, scale))
        return atlas_time_fields(
            ctx.dist, layout, ctx.n, s, m, tau=ctx.tau, code=code, scale=scale, mc=mc,
            time_trials=ctx.time_trials, rng=rng,
        )  # fmt: skip
    n, notes = ctx.n, []
    if scale is None:
        mom = scheme_time_moments(layout, ctx.dist, n, s, m, tau=ctx.tau, code=code)
        mean, var = mom.mean, mom.variance
    else:  # an approximate code: ignore-s scaled by the load (see the module docstring)
        mom = ctx.memo(
            ("ignore-s-time", s), lambda: scheme_time_moments("ignore-s", ctx.dist, n, s)
        )
        mean, var = scale * mom.mean + ctx.tau, scale * scale * mom.variance
    out: dict[str, Any] = {"time": float(mean), "time_variance": float(var)}
    if not math.isfinite(mean):
        notes.append(f"expected time infinite ({mom.reason})")
        return out, notes
    if not mc:
        return out, notes
    if not math.isfinite(var):
        notes.append(
            "no Monte Carlo time point: the variance is infinite, an interval would mean nothing"
        )
        return out, notes
    rng = np.random.default_rng(seed_for(ctx.root, "time", layout, s, m, scale))
    # the engine's heavy-tail diagnostic (a sample whose tail index may be <= 2) is the
    # row's business, not a warning per row: it goes into the row's notes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnreliableEstimateWarning)
        if scale is None:
            est = scheme_time_mc(
                layout, ctx.dist, n, s, m, ctx.time_trials, tau=ctx.tau, code=code, rng=rng
            )
            lo, val, hi = est.low, est.value, est.high
        else:
            est = scheme_time_mc("ignore-s", ctx.dist, n, s, 1, ctx.time_trials, rng=rng)
            lo, val, hi = (scale * x + ctx.tau for x in (est.low, est.value, est.high))
    for w in caught:
        if issubclass(w.category, UnreliableEstimateWarning):
            notes.append(
                f"Monte Carlo time interval unreliable: {str(w.message).split(':', 1)[-1].strip()}"
            )
        else:  # anything else is passed on as it came
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    out.update(time_mc=float(val), time_low=float(lo), time_high=float(hi), time_trials=est.trials)
    return out, notes


_TRACE_LEVEL = 0.99  # the bootstrap interval's level, as the Monte Carlo intervals'


def _trace_time_fields(
    ctx: Context,
    s: int,
    m: int,
    *,
    layout: str,
    code: tuple[int, int, int] | None,
    scale: float | None,
) -> tuple[dict[str, Any], list[str]]:
    """Expected time on a measured trace (:func:`gctheory.delays.scheme_times`: the
    empirical distribution of the measured times at the layout's load, reached from the
    measured loads by the replay's load model), with a bootstrap interval over rounds.
    An approximate code of load ``scale`` partitions is the ``ignore-s`` layout (the
    fastest ``n - s`` workers) at the load ``scale / n``: on a trace the time is not
    proportional to the load, so it is evaluated at that load, not scaled."""
    from gctheory.delays import scheme_times

    model = ctx.replay.load_model if ctx.replay.load_model is not None else "interpolate"
    share = None if scale is None else scale / ctx.n
    key = ("trace", layout, s, m, code) if share is None else ("trace", layout, s, m, share)

    def run(points: list[int]) -> Any:
        return scheme_times(
            ctx.replay.trace,
            layout,
            ctx.n,
            m=m,
            code=code,
            tau=ctx.tau,
            s=points,
            laws=(),
            load_model=model,
            bootstrap=ctx.trace_bootstrap,
            level=_TRACE_LEVEL,
            rng=np.random.default_rng(seed_for(ctx.root, *key)),
            load=share,
        )

    try:
        if share is not None:  # an approximate code: its own load, one s
            res = ctx.memo(("trace-time-approx", s, share), lambda: run([s]))
        elif code is None:  # one call for every s of the sweep at which the layout exists
            from gctheory.delays import scheme_s_values

            ok = set(scheme_s_values(layout, ctx.n, m))
            pts = sorted({x for x in ctx.sweep if x in ok} | {s})
            res = ctx.memo(("trace-time", layout, m), lambda: run(pts))
        else:
            res = ctx.memo(("trace-time", layout, m, code), lambda: run([s]))
    except ValueError as exc:
        return {}, [f"no time on the measured trace: {exc}"]
    out: dict[str, Any] = {"time": res.at("empirical", s)}
    lo, hi = res.interval("empirical", s)
    if math.isfinite(lo):
        out.update(time_low=lo, time_high=hi, time_trials=res.bootstrap)
    note = (
        f"time: empirical distribution of the measured times ({res.load_model} load model), "
        f"{100 * _TRACE_LEVEL:g}% bootstrap over {res.bootstrap} resamples of the rounds"
    )
    return out, [note, *res.notes.values()]
