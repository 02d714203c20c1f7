"""Rows of the generator-based schemes, Ye-Abbe (Ye and Abbe 2018) and CommFR-GC (Kadhe
et al. 2019, Theorem 1): one row per generator family at the stability points, with
Theorem 2's guaranteed ``s_kappa`` and the certified empirical interval
(:mod:`gctheory.tradeoff.stability`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory.tradeoff.schemes.context import CannotExist, Context, _finish, seed_for
from gctheory.tradeoff.schemes.exact import _exact_code_fields, _runtime_row
from gctheory.tradeoff.stability import (
    empirical_s_kappa_interval,
    generator_too_wide,
    s_kappa_guarantee,
)

__all__ = ["GENERATOR_BUILDERS"]


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


GENERATOR_BUILDERS = {"ye-abbe": _ye_abbe, "commfr-gc": _commfr}
