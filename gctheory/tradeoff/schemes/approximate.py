"""Rows of the approximate codes: the d-FRC (exact law of err, Wang et al. 2019 Definition 4),
the batch raptor code (Theorem 6, Monte Carlo), the Bernoulli code (Monte Carlo) and BIBD
codes (Kadhe et al. ISIT 2019, closed-form error). The expander code is in
:mod:`gctheory.tradeoff.schemes.expander`."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from gctheory.tradeoff.schemes.context import (
    CannotExist,
    Context,
    _exact_failure,
    _finish,
    _mc_failure,
    seed_for,
)
from gctheory.tradeoff.schemes.times import time_fields
from gctheory.tradeoff.table import make_row

__all__ = ["APPROXIMATE_BUILDERS", "dfrc_load"]


def _approx_row(ctx: Context, scheme: str, s: int, load: float, k: int, **extra: Any):
    t, notes = time_fields(ctx, s, 1, layout="ignore-s", scale=float(load), mc=s in ctx.mc_s)
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
    ``E[err]`` (the sums of :func:`gctheory.load_bounds.frc_error_pmf`'s law, aligned groups,
    taken without the whole law by ``load_bounds.frc._frc_error_tail``).

    The scan over ``d`` starts at the answer for the largest smaller ``s`` already
    found: for a fixed code ``P(err > c)`` does not decrease with ``s`` (couple the
    straggler sets so the smaller lies inside the larger; a group lost stays lost).
    """
    from gctheory.load_bounds.frc import _frc_counts, _frc_error_tail

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
            # the sums of frc_error_pmf's numerators over C(n, s) this needs (the tail above
            # the threshold and the mean), without the whole law: the same exact Fractions
            above, mean, den = _frc_error_tail(ctx.n, s, d, ctx.threshold)
            p = Fraction(above, den)
            if p <= target:
                return d, p, Fraction(mean, den)
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


APPROXIMATE_BUILDERS = {
    "d-frc": _dfrc,
    "batch-raptor": _batch_raptor,
    "bernoulli": _bernoulli,
    "bibd": _bibd,
}
