"""Rows of the exact schemes laid out by :mod:`gctheory.runtime`: uncoded, ignore-s,
cyclic-MDS (Tandon et al. 2017), the FRC, and Reed-Solomon codes (Halbawi et al. 2017,
eq. (2)) on the cyclic-MDS layout."""

from __future__ import annotations

from typing import Any

from gctheory.tradeoff.schemes.context import (
    TRADEOFF_SCHEMES,
    CannotExist,
    Context,
    _exact_failure,
    _finish,
)
from gctheory.tradeoff.schemes.times import time_fields
from gctheory.tradeoff.table import make_row

__all__ = ["EXACT_BUILDERS"]


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
    t, notes = time_fields(ctx, s, m, layout=layout, code=code, mc=s in ctx.mc_s)
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


EXACT_BUILDERS = {
    "uncoded": _uncoded,
    "ignore-s": _ignore_s,
    "cyclic-mds": _cyclic_mds,
    "frc": _frc,
    "reed-solomon": _reed_solomon,
}
