"""The schemes of the atlas: how each one's row is computed from the modules of gctheory.

Every number comes from a module function: loads and layouts from
:mod:`gctheory.runtime` (``scheme_layout``) and :mod:`gctheory.load_bounds`,
failure probabilities from :mod:`gctheory.load_bounds` (exact, d-FRC) or from
the Monte Carlo estimators of :mod:`gctheory.codes` (batch raptor, Bernoulli),
deterministic error bounds from :mod:`gctheory.codes` (expander spectral bound,
BIBD closed form), stability from :mod:`gctheory.tradeoff.stability`, times
from :mod:`gctheory.runtime` (``scheme_time_moments``, ``scheme_time_mc``).

Time model (that of :func:`gctheory.runtime.scheme_expected_time`): a worker
holding a share ``load / n`` of the data returns after ``(load / n) X``,
``X ~ delay`` i.i.d., then sends ``1/m`` of a gradient in ``tau / m``. An
approximate code decodes from the fastest ``n - s`` workers, so its iteration
time is that of ``ignore-s`` scaled by its load:
``E[(d/n) X_(n-s:n)] = d E[(1/n) X_(n-s:n)]`` (exact, linearity), computed as
``d * scheme_time_moments("ignore-s", ...)``. On a measured trace the time is
not proportional to the load, so an approximate code's time is the ``ignore-s``
layout evaluated at its own load ``d/n`` (``gctheory.delays.scheme_times(...,
load=d/n)``). Reed-Solomon codes have the
cyclic-MDS layout (load ``s + 1``, any ``n - s`` workers). Decoding time is
not modelled.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._names import TRADEOFF_SCHEMES as _TRADEOFF_SCHEMES
from gctheory.montecarlo import Estimate
from gctheory.tradeoff.stability import (
    GeneratorMaker,
    empirical_s_kappa_interval,
    generator_too_wide,
    s_kappa_guarantee,
)
from gctheory.tradeoff.table import make_row

__all__ = ["TRADEOFF_SCHEMES", "TRADEOFF_LEFT_OUT", "CannotExist"]

#: name -> (kind, one-line description). Colours and the CLI follow this order.
TRADEOFF_SCHEMES = _TRADEOFF_SCHEMES

#: Constructions gctheory has that the atlas leaves out, and why.
TRADEOFF_LEFT_OUT: dict[str, str] = {
    "sgc": "stochastic gradient coding promises an unbiased estimate whose variance depends "
    "on the gradients (gctheory.codes.sgc_variance), not a failure probability or error "
    "bound at s stragglers",
    "graph-assignment": "Glasgow-Wootters codes put machines on the edges of a graph: the "
    "number of machines is the number of edges, not a free n",
    "is-gc": "ignore-stragglers decoders recover a partial sum whose size is random; they "
    "reuse the FRC and cyclic placements drawn here",
}


class CannotExist(ValueError):
    """The scheme cannot be built for these parameters (the message says why)."""


def seed_for(root: np.random.SeedSequence, *key: Any) -> np.random.SeedSequence:
    """A child seed determined by ``key`` alone (so a row does not depend on which
    other schemes were asked for)."""
    h = zlib.crc32(repr(key).encode())
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, h))


@dataclass
class Context:
    """Everything a scheme builder needs, and caches shared between builders."""

    n: int
    m: int  # the communication saving of the sweep (empirical stability only there)
    eps: float
    error: float
    kappa: float | None
    tau: float
    dist: Any  # frozen scipy.stats distribution, per-worker laws, a MemoryDelay, or None
    replay: Any  # gctheory.delays.TraceReplay of a measured trace, or None
    root: np.random.SeedSequence
    trials: int
    time_trials: int
    mc_s: frozenset[int]
    trace_bootstrap: int  # bootstrap resamples of a measured trace's rounds per time
    stability_budget: float  # work units left for the empirical s_kappa intervals
    stability_calls: int  # intervals still to compute (each gets an equal share of what is left)
    families: dict[str, GeneratorMaker]
    stability_families: tuple[str, ...]
    stab_s: dict[str, frozenset[int]] = field(default_factory=dict)
    sweep: tuple[int, ...] = ()  # the straggler counts of the sweep
    cache: dict[Any, Any] = field(default_factory=dict)
    memory: bool = False  # dist is a MemoryDelay (stragglers with memory)

    @property
    def threshold(self) -> float:
        """Error level ``error * n`` (partitions) of the approximate codes' failure event."""
        return self.error * self.n

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]


# --------------------------------------------------------------------------- time


def _time_fields(
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
    if ctx.memory:  # stragglers with memory (issue 23): gctheory.delays.markov_times
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


def _mc_failure(est: Estimate) -> dict[str, Any]:
    return {
        "failure": float(est.value),
        "failure_low": float(est.low),
        "failure_high": float(est.high),
        "failure_method": f"monte carlo ({est.trials} straggler sets, "
        f"{100 * est.level:g}% {est.method})",
    }


def _exact_failure(p: float, method: str) -> dict[str, Any]:
    return {"failure": p, "failure_low": p, "failure_high": p, "failure_method": method}


def _finish(row: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    row["note"] = "; ".join(x for x in [row.get("note") or "", *notes] if x)
    return row


# ------------------------------------------------------------------ exact schemes


def _runtime_row(ctx: Context, scheme: str, layout: str, s: int, m: int, **extra: Any):
    """A row of a scheme of gctheory.runtime (load, communication and time from its layout)."""
    from gctheory.runtime import scheme_layout

    code = extra.pop("code", None)
    try:
        lay = scheme_layout(layout, ctx.n, s, m, code=code)
    except ValueError as exc:
        raise CannotExist(str(exc)) from None
    kind = TRADEOFF_SCHEMES[scheme][0]
    load = round(lay.load * ctx.n, 9)  # the layout's share of the data, in partitions (k = n)
    t, notes = _time_fields(ctx, s, m, layout=layout, code=code, mc=s in ctx.mc_s)
    row = make_row(
        scheme,
        kind,
        n=ctx.n,
        s=s,
        m=m,
        k=ctx.n,
        load=load,
        load_value=load,
        communication=lay.comm,
        exact=lay.exact,
        **t,
        **extra,
    )
    return row, notes


def _exact_code_fields(s: int) -> dict[str, Any]:
    return {
        "guarantee": f"every set of up to {s} stragglers decodes exactly",
        **_exact_failure(0.0, "exact code (every straggler set)"),
    }


def _uncoded(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    if s != 0:
        raise CannotExist("uncoded waits for all n workers: it tolerates no straggler")
    row, notes = _runtime_row(
        ctx,
        "uncoded",
        "uncoded",
        0,
        1,
        **_exact_code_fields(0),
        stable_s=0,
        source="baseline",
        s_kappa_method="no system solved (a plain sum)",
    )
    return [_finish(row, notes)]


def _ignore_s(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    # every straggler's one partition is lost: err = s for every straggler set (k = n)
    fail = 1.0 if s > ctx.threshold else 0.0
    row, notes = _runtime_row(
        ctx,
        "ignore-s",
        "ignore-s",
        s,
        1,
        guarantee=f"err = s = {s} partitions lost, for every straggler set",
        **_exact_failure(fail, "every straggler set (deterministic)"),
        error_bound=s / ctx.n,
        stable_s=s,
        s_kappa_method="no system solved (a plain sum)",
        source="baseline (Xu et al. 2021 K-SGD / Tandon et al. ignore-s)",
    )
    return [_finish(row, notes)]


def _not_theorem2(name: str) -> str:
    return (
        f"stability not covered: Theorem 2 of Kadhe et al. 2019 is about Gaussian generators, "
        f"and {name} decodes with its own matrix (see docs/codes.md, decoding stability)"
    )


def _cyclic_mds(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    row, notes = _runtime_row(
        ctx,
        "cyclic-mds",
        "cyclic-mds",
        s,
        1,
        **_exact_code_fields(s),
        source="Tandon et al. 2017, Theorem 1",
        s_kappa_method=_not_theorem2("cyclic-MDS"),
    )
    return [_finish(row, notes)]


def _frc(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    row, notes = _runtime_row(
        ctx,
        "frc",
        "frc",
        s,
        1,
        **_exact_code_fields(s),
        stable_s=s,
        s_kappa_method="no system solved (one survivor per group)",
        source="Tandon et al. 2017, fractional repetition",
    )
    return [_finish(row, notes)]


def _reed_solomon(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    from gctheory.codes import rs_tolerance
    from gctheory.load_bounds import halbawi_load

    w = halbawi_load(ctx.n, s).load  # smallest w with s <= floor(w n / k) - 1, k = n
    if rs_tolerance(ctx.n, ctx.n, w) < s:  # pragma: no cover - eq. (2) is attained
        raise CannotExist(f"no w <= k gives tolerance {s}")
    row, notes = _runtime_row(
        ctx,
        "reed-solomon",
        "cyclic-mds",
        s,
        1,
        **_exact_code_fields(s),
        source="Halbawi et al. 2017, eq. (2) and Algorithm 2",
        s_kappa_method=_not_theorem2("Reed-Solomon"),
        note="time: the cyclic-MDS layout (load w = s + 1, any n - s workers)",
    )
    if row["load"] != w:  # pragma: no cover - the two sources agree for k = n
        raise AssertionError(f"RS load {w} differs from the layout's {row['load']}")
    return [_finish(row, notes)]


def _empirical_here(ctx: Context, scheme: str, s: int, m: int) -> bool:
    return ctx.kappa is not None and m == ctx.m and s in ctx.stab_s.get(scheme, frozenset())


def _stability_fields(
    ctx: Context, scheme: str, family: str, s: int, m: int
) -> tuple[dict[str, Any], list[str]]:
    if ctx.kappa is None:
        return {"s_kappa_method": "no kappa given"}, []
    n = ctx.n
    guar, why = s_kappa_guarantee(scheme, family, n, s, m, ctx.kappa, ctx.eps)
    out: dict[str, Any] = {"s_kappa_guaranteed": guar}
    notes = [why] if why else []
    K, N = (n - s, n) if scheme == "ye-abbe" else (m, s + m)
    maker = ctx.families.get(family)
    wide = generator_too_wide(maker, K, N) if maker is not None else None
    if _empirical_here(ctx, scheme, s, m) and maker is not None and wide is None:
        rng = np.random.default_rng(seed_for(ctx.root, "generator", scheme, family, s, m))
        G = maker.build(K, N, rng)
        share = ctx.stability_budget / max(1, ctx.stability_calls)
        iv = empirical_s_kappa_interval(G, ctx.kappa, budget=share, block=maker.block(N), rng=rng)
        ctx.stability_budget -= iv.work
        ctx.stability_calls -= 1
        out.update(s_kappa_low=iv.low, s_kappa_high=iv.high, s_kappa_method=iv.method)
        # certified for this generator; Theorem 2's guarantee (w.p. >= 1 - eps over the
        # Gaussian draw) where the certified upper end does not contradict it
        out["stable_s"] = iv.low if guar is None or guar > iv.high else max(iv.low, guar)
    elif wide is not None and _empirical_here(ctx, scheme, s, m):
        ctx.stability_calls -= 1
        out["s_kappa_method"] = wide
        out["stable_s"] = guar
    else:
        out["s_kappa_method"] = "empirical not computed at this s (Theorem 2 only)"
        out["stable_s"] = guar
    return out, notes


def _generator_scheme(ctx: Context, scheme: str, s: int, m: int) -> list[dict[str, Any]]:
    if scheme == "ye-abbe":
        extra: dict[str, Any] = {"source": "Ye and Abbe 2018; Kadhe et al. 2019 eq. (1), App. A"}
    else:
        from gctheory.codes import commfr_triple

        N, K = s + m, m
        if ctx.n % N:
            raise CannotExist(f"CommFR-GC needs (s + m) | n, got s + m = {N}, n = {ctx.n}")
        load, mm, ss = commfr_triple(ctx.n, ctx.n, N, K, N - K + 1)  # Theorem 1: (kN/n, K, d-1)
        extra = {"code": (N, K, N - K + 1), "source": "Kadhe et al. 2019, Theorem 1"}
        if (mm, ss) != (m, s):  # pragma: no cover - Theorem 1 with an MDS code
            raise AssertionError((load, mm, ss))
    base, notes = _runtime_row(ctx, scheme, scheme, s, m, **_exact_code_fields(s), **extra)
    rows = []
    families = ["gaussian"]
    if _empirical_here(ctx, scheme, s, m):
        families += [f for f in ctx.stability_families if f != "gaussian"]
    for fam in families:
        row = dict(base, generator=fam)
        fields, more = _stability_fields(ctx, scheme, fam, s, m)
        row.update(fields)
        if fam != "gaussian":  # the same layout and time; only stability differs
            row.update(time_mc=None, time_low=None, time_high=None, time_trials=None)
        if row.get("s_kappa_guaranteed") is None and fam == "gaussian" and ctx.kappa is not None:
            row["covered"] = False
        rows.append(_finish(row, notes + more))
    return rows


def _ye_abbe(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    return _generator_scheme(ctx, "ye-abbe", s, m)


def _commfr(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    return _generator_scheme(ctx, "commfr-gc", s, m)


# ------------------------------------------------------------ approximate schemes


def _approx_row(ctx: Context, scheme: str, s: int, load: float, k: int, **extra: Any):
    t, notes = _time_fields(ctx, s, 1, layout="ignore-s", scale=float(load), mc=s in ctx.mc_s)
    row = make_row(
        scheme,
        "approximate",
        n=ctx.n,
        s=s,
        m=1,
        k=k,
        load=float(load),
        load_value=float(load),
        communication=1.0,
        exact=False,
        **t,
        **extra,
    )
    return row, notes


def dfrc_load(ctx: Context, s: int) -> tuple[int, Fraction, Fraction]:
    """Smallest d-FRC load with exact ``P(err > error n) <= eps``, that probability and
    ``E[err]`` (from :func:`gctheory.load_bounds.frc_error_pmf`, aligned groups).

    The scan over ``d`` starts at the answer for the largest smaller ``s`` already
    found: for a fixed code ``P(err > c)`` does not decrease with ``s`` (couple the
    straggler sets so the smaller lies inside the larger; a group lost stays lost).
    """
    from gctheory.load_bounds.frc import _frc_counts, _frc_error_counts

    def scan() -> tuple[int, Fraction, Fraction]:
        target = Fraction(repr(ctx.eps))
        done = [k[1] for k in ctx.cache if k[0] == "dfrc" and k[1] < s]
        start = ctx.cache[("dfrc", max(done))][0] if done else 1
        failed = set()  # group structures already found to miss the target
        for d in range(start, ctx.n + 1):
            # the law of err depends on d only through the groups ({size: count}, the same
            # for every d with the same ceil(n/d)): a structure that missed the target
            # misses it again (thousands of loads share a few structures when s is near n)
            counts = _frc_counts(ctx.n, d, "ceil")
            key = tuple(sorted(counts.items()))
            if key in failed:
                continue
            # n - s survivors receive at most n - s blocks, so err >= n - (n - s) (largest
            # block): past the threshold, P(err > threshold) = 1 > eps with no pmf to sum
            big = max(a for a, x in counts.items() if x)
            if ctx.n - (ctx.n - s) * big > ctx.threshold:
                failed.add(key)
                continue
            # frc_error_pmf's numerators over C(n, s): the same exact sums, one Fraction each
            nums, den = _frc_error_counts(ctx.n, s, d)
            p = Fraction(sum(q for e, q in nums.items() if e > ctx.threshold), den)
            if p <= target:
                return d, p, Fraction(sum(e * q for e, q in nums.items()), den)
            failed.add(key)
        raise AssertionError("unreachable: the FRC with d = n never fails")  # pragma: no cover

    return ctx.memo(("dfrc", s), scan)


def _dfrc(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    d, p, mean = dfrc_load(ctx, s)
    row, notes = _approx_row(
        ctx,
        "d-frc",
        s,
        d,
        ctx.n,
        guarantee=f"P(err > {ctx.threshold:g}) <= eps over {s} uniformly random stragglers",
        **_exact_failure(float(p), "exact (inclusion-exclusion, Wang et al. App. D)"),
        error_bound=None,
        stable_s=s,
        s_kappa_method="no system solved (group sums)",
        source="Wang et al. 2019, Definition 4, Theorem 4; load_bounds.frc_error_pmf",
        note=f"E[err]/k = {float(mean) / ctx.n:.3g} (exact)",
    )
    return [_finish(row, notes)]


def _batch_raptor(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    from gctheory.codes import BatchRaptorCode, estimate_decoding_failure
    from gctheory.load_bounds import brc_condition_54_margin, brc_parameters

    if s not in ctx.mc_s:
        raise CannotExist("Monte Carlo only at the Monte Carlo points")
    try:
        par = brc_parameters(ctx.n, s, ctx.error)
        code = BatchRaptorCode.theorem6(
            ctx.n, s, ctx.error, rng=np.random.default_rng(seed_for(ctx.root, "brc", s))
        )
    except ValueError as exc:
        raise CannotExist(f"Theorem 6's batch raptor code: {exc}") from None
    est = estimate_decoding_failure(
        code,
        s,
        ctx.trials,
        threshold=ctx.threshold,
        rng=np.random.default_rng(seed_for(ctx.root, "brc-mc", s)),
    )
    margin = ctx.memo(("brc54",), lambda: brc_condition_54_margin(ctx.error))
    notes = []
    covered = bool(par.condition_53) and margin > 0
    if not par.condition_53:
        notes.append("eq. (53) fails: Theorem 6's guarantee does not apply (Monte Carlo shown)")
    if margin <= 0:
        notes.append(f"eq. (54) fails (margin {margin:.3g}): Theorem 6 does not apply")
    row, more = _approx_row(
        ctx,
        "batch-raptor",
        s,
        code.load,
        ctx.n,
        guarantee=f"P(err > {ctx.threshold:g}) over {s} random stragglers, peeling decoder",
        **_mc_failure(est),
        covered=covered,
        asymptotic=True,
        s_kappa_method="not covered: peeling solves a unit triangular system whose "
        "condition number is not bounded here",
        source="Wang et al. 2019, Definition 5, Theorem 6 (b, P_w)",
        note=f"load = the largest of one sampled code (b = {par.b}, average load "
        f"{float(par.average_load):.3g})",
    )
    return [_finish(row, notes + more)]


def _bernoulli(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    from gctheory.codes import BernoulliGradientCode, estimate_decoding_failure

    if s not in ctx.mc_s:
        raise CannotExist("Monte Carlo only at the Monte Carlo points")
    d, _, _ = dfrc_load(ctx, s)
    code = BernoulliGradientCode(
        ctx.n, d / ctx.n, rng=np.random.default_rng(seed_for(ctx.root, "bgc", s))
    )
    est = estimate_decoding_failure(
        code,
        s,
        ctx.trials,
        threshold=ctx.threshold,
        rng=np.random.default_rng(seed_for(ctx.root, "bgc-mc", s)),
    )
    row, notes = _approx_row(
        ctx,
        "bernoulli",
        s,
        code.load,
        ctx.n,
        guarantee=f"P(err > {ctx.threshold:g}) over {s} random stragglers, least squares",
        **_mc_failure(est),
        s_kappa_method="not covered: least squares on a random 0/1 matrix",
        source="Charles et al. 2017; Wang et al. 2019 eqs. (4)-(5)",
        note=f"p = {d}/{ctx.n} (the d-FRC's load as mean); load = the largest of one "
        f"sampled code (mean {code.expected_load:.3g})",
    )
    return [_finish(row, notes)]


_RRG_MAX_D = 16  # random regular graphs above this degree are slow to sample (switching)


#: above this n the random regular graph's lam comes from a sparse Lanczos solver (ARPACK,
#: to machine precision: 8e-15 from the dense solver at n = 1500) on its n d / 2 edges, not a
#: dense n x n eigensolver (O(n^3): about 1.5 s at n = 2000, minutes at 10**4)
_DENSE_SPECTRUM_MAX_N = 1000


def _sparse_regular_lam(n: int, d: int, rng: np.random.Generator) -> float:
    """``max(|lambda_2|, |lambda_n|)`` of the graph ``random_regular_graph(n, d, rng=rng)``
    (the same draws), from its edges: the two largest and the smallest eigenvalue."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components
    from scipy.sparse.linalg import eigsh

    from gctheory.codes.expander import _random_regular_edges

    e = _random_regular_edges(n, d, rng)
    rows, cols = np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]]
    A = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    if connected_components(A, directed=False)[0] > 1:
        return float(d)  # d is an eigenvalue of every component: lambda_2 = d
    if d == 2:  # one cycle C_n: eigenvalues 2 cos(2 pi j / n); Lanczos crawls on them
        return 2.0 if n % 2 == 0 else 2.0 * math.cos(math.pi / n)
    v0 = 1.0 + np.arange(n) / n  # deterministic start (ARPACK's default is random)
    # both ends in one Lanczos run: the two largest (d, lambda_2) and the smallest
    ev = np.sort(
        eigsh(A, k=3, which="BE", tol=0, ncv=min(n - 1, 64), return_eigenvectors=False, v0=v0)
    )
    return float(max(abs(ev[1]), abs(ev[0])))


def _expander_graph(ctx: Context, d: int) -> tuple[float, str]:
    """``lam`` of a d-regular graph on n vertices: random regular for small d, a random
    circulant (exact spectrum) above."""
    from gctheory.codes import (
        circulant_spectrum,
        graph_spectrum,
        random_regular_graph,
    )

    def make() -> tuple[float, str]:
        rng = np.random.default_rng(seed_for(ctx.root, "expander", d))
        if d <= _RRG_MAX_D and ctx.n > _DENSE_SPECTRUM_MAX_N:
            return _sparse_regular_lam(ctx.n, d, rng), "random regular graph"
        if d <= _RRG_MAX_D:
            _, _, lam = graph_spectrum(random_regular_graph(ctx.n, d, rng=rng))
            return lam, "random regular graph"
        gens = rng.choice(np.arange(1, (ctx.n + 1) // 2), d // 2, replace=False)
        _, _, lam = circulant_spectrum(ctx.n, sorted(int(g) for g in gens))
        return lam, "random circulant graph"

    return ctx.memo(("graph", d), make)


def _expander(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    from gctheory.codes import expander_error_bound

    n = ctx.n
    found = None
    # Every d-regular graph on n vertices has lam^2 >= d (n - d)/(n - 1) (the trace of A^2 is
    # n d, and lam bounds all eigenvalues but d), so the bound is at least
    # (n - d)/(d (n - 1)) n s/(n - s): it cannot reach the threshold below d = n/(1 + R), R
    # = threshold (n - 1)(n - s)/(n s). The scan starts two even degrees below that (the
    # degrees skipped would all have failed, whatever their graphs), which spares building
    # and solving up to n/2 graphs at the s where no degree works.
    if s > 0:
        ratio = ctx.threshold * (n - 1) * (n - s) / (n * s)
        first = max(2, 2 * int(n / (1 + ratio) / 2) - 2)
    else:
        first = 2
    for d in range(first, n, 2):  # even degrees: a d-regular graph on n vertices exists
        lam, kind = _expander_graph(ctx, d)
        bound = expander_error_bound(n, s, d, lam)
        if bound <= ctx.threshold:
            found = (d, lam, kind, bound)
            break
    if found is None:
        raise CannotExist(
            f"no even degree d < n gives the spectral bound (lam/d)^2 n s/(n-s) <= "
            f"{ctx.threshold:g} at s = {s}"
        )
    d, lam, kind, bound = found
    row, notes = _approx_row(
        ctx,
        "expander",
        s,
        d,
        n,
        guarantee=f"err <= {bound:.3g} for every set of {s} stragglers (fixed decoder)",
        **_exact_failure(0.0, "every straggler set (spectral bound)"),
        error_bound=bound / n,
        stable_s=s,
        s_kappa_method="no system solved (fixed decoder)",
        source="Raviv et al. 2020 (code); bound derived here (expander_error_bound)",
        note=f"{kind}, d = {d}, lam = {lam:.4g}",
    )
    return [_finish(row, notes)]


def _designs(ctx: Context) -> list[Any]:
    """BIBDs on n points the constructions of gctheory.codes.bibd can build (lambda = 1)."""
    from gctheory.codes import bibd

    def find() -> list[Any]:
        out = []
        for k in range(2, ctx.n):
            if (ctx.n - 1) % (k - 1):
                continue
            try:
                out.append(bibd(ctx.n, k, 1))
            except ValueError:
                continue
        return out

    return ctx.memo(("bibd",), find)


def _bibd(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    from gctheory.codes import bibd_error

    n = ctx.n
    designs = _designs(ctx) if n >= 3 else []
    if not designs:
        raise CannotExist(
            f"no BIBD with lambda = 1 on n = {n} points from the constructions here "
            "(PG(2, q) with n = q^2 + q + 1, AG(2, q) with n = q^2, q a prime power; "
            "Steiner triple systems, n = 1 or 3 mod 6; the complete design with "
            "C(n, 2) <= 5000 blocks)"
        )
    best = None
    for D in sorted(designs, key=lambda D: Fraction(n * D.r, D.b)):
        err = bibd_error(D.v, D.b, D.r, D.lam, s)
        if err <= Fraction(repr(ctx.error)) * D.b:
            best = (D, err)
            break
    if best is None:
        raise CannotExist(
            f"no BIBD on {n} points keeps err <= error k at s = {s} (closed-form error, "
            "every straggler set)"
        )
    D, err = best
    row, notes = _approx_row(
        ctx,
        "bibd",
        s,
        float(Fraction(n * D.r, D.b)),
        D.b,
        guarantee=f"err = {float(err):.3g} of k = {D.b} for every set of {s} stragglers",
        **_exact_failure(0.0, "every straggler set (closed form)"),
        error_bound=float(err / D.b),
        stable_s=s,
        s_kappa_method="no system solved (uniform closed-form coefficients)",
        source="Kadhe, Koyluoglu, Ramchandran, ISIT 2019 (bibd_error)",
        note=f"{D.name}: v = {D.v}, b = {D.b}, r = {D.r}",
    )
    return [_finish(row, notes)]


#: builders, by scheme name; each returns the scheme's rows at (s, m) or raises CannotExist.
BUILDERS: dict[str, Callable[[Context, int, int], list[dict[str, Any]]]] = {
    "uncoded": _uncoded,
    "ignore-s": _ignore_s,
    "cyclic-mds": _cyclic_mds,
    "frc": _frc,
    "reed-solomon": _reed_solomon,
    "ye-abbe": _ye_abbe,
    "commfr-gc": _commfr,
    "d-frc": _dfrc,
    "batch-raptor": _batch_raptor,
    "bernoulli": _bernoulli,
    "expander": _expander,
    "bibd": _bibd,
}


# ------------------------------------------------------------ code plug-ins


def _plugin(family: Any, ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    """The row of a code plug-in (:mod:`gctheory.codes.plugins`) at ``(n, s)``.

    From the family's own ``tradeoff(n, s)`` columns when it has one, else read
    off the code ``family.make(n, s)`` builds: ``k``, the load in units of
    ``1/n`` of the data (``load n / k``), messages ``1/m``, and, for an exact
    code (``s`` not None), failure 0 as the family declares it. Time (with a
    delay): the ``ignore-s`` order statistic scaled by the load, messages ``tau / m``.
    A family that cannot be built there is refused (``CannotExist``), as a built-in is.
    """
    name = family.name
    try:
        if family.tradeoff is not None:
            fields = dict(family.tradeoff(ctx.n, s))
        else:
            code = family.make(ctx.n, s)
            if code.s is not None and code.s < s:
                raise ValueError(f"the code built tolerates s = {code.s} < {s} stragglers")
            fields = {"k": code.k, "load": code.load * ctx.n / code.k, "m": code.m,
                      "communication": 1 / code.m, "exact": code.s is not None}  # fmt: skip
            if code.s is not None:
                fields.update(_exact_code_fields(s))
                fields["guarantee"] += f" ({type(code).__name__}, as the plug-in declares)"
    except ValueError as exc:
        raise CannotExist(str(exc)) from None
    kind = fields.pop("kind", "exact" if fields.get("exact") else "approximate")
    fields.setdefault("source", f"code plug-in {family.source}")
    fields.setdefault("load_value", fields.get("load"))
    mm = int(fields.pop("m", 1))
    fields.setdefault("communication", 1 / mm)
    notes: list[str] = []
    if "load" in fields and "time" not in fields:
        t, notes = _time_fields(ctx, s, 1, layout="ignore-s", scale=float(fields["load"]),
                                mc=s in ctx.mc_s)  # fmt: skip
        for key in ("time", "time_mc", "time_low", "time_high"):
            if t.get(key) is not None:
                t[key] += ctx.tau * (1 / mm - 1)  # messages of 1/m take tau / m
        fields = {**t, **fields}
    for key in ("scheme", "n", "s"):  # the row's own, not the family's to say
        fields.pop(key, None)
    row = make_row(name, kind, n=ctx.n, s=s, m=mm, **fields)
    return [_finish(row, notes)]


def plugin_builders() -> dict[str, Callable[[Context, int, int], list[dict[str, Any]]]]:
    """Row builders of the installed code plug-ins, by family name (read when asked)."""
    from functools import partial

    from gctheory.codes.plugins import plugin_families

    fams = plugin_families()
    return {k: partial(_plugin, f) for k, f in fams.items() if k not in BUILDERS}
