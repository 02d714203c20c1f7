"""Kadhe et al. 2019: Lemma 1 and Theorem 2 where they live, far in the tail.

Lemma 1 (Chen and Dongarra's bound) is used at ``kappa = 1000`` on the
``m x t*`` submatrices of Table I's group codes, where ``P(cond > kappa)`` is
``1e-5`` to ``1e-13``; Theorem 2 promises failure probability at most
``eps = 1e-3``. Crude Monte Carlo cannot see either, so both are estimated
here by importance sampling with exact likelihood ratios
(:mod:`gctheory.tails`), the ``2 x t`` shapes also against the exact law
``((2x)/(1 + x^2))^(t-1)``.
"""

from __future__ import annotations

import math

from gctheory.conditioning import (
    gaussian_condition_bound,
    s_kappa_bound,
    straggler_union_bound,
)
from gctheory.montecarlo import Stop
from gctheory.tables import TABLE1_PARAMETERS
from gctheory.tails import condition_tail_2xn, condition_tail_is, subset_failure_is
from paper_checks import Outcome, claim, seeded_pin

PAPER = "kadhe2019"
KAPPA, EPS = 1000.0, 1e-3  # Table I caption
FAR = 1e-12  # the far tail: kappa where the bound itself is 1e-12
SEED = 20191215
ROWS_N60 = [r for r in TABLE1_PARAMETERS if r[0] == 60]


def _t_star(s: int, m: int) -> int:
    return s_kappa_bound(m + s, m, KAPPA, EPS).t_star


def _far_kappa(u: int, v: int) -> float:
    """kappa at which the Chen-Dongarra bound (1/sqrt(2 pi) (C/x)^d, x = kappa d/v) is FAR."""
    d = abs(v - u) + 1
    return 6.414 * v / d * (math.sqrt(2 * math.pi) * FAR) ** (-1.0 / d)


def _precision(quick: bool) -> tuple[float, int]:
    return (0.3, 2_000) if quick else (0.1, 20_000)


# ---------------------------------------------------------------------------
# Lemma 1 far in the tail


def _judge_lemma1(c: dict) -> Outcome:
    rows = c["instances"]
    bad = [r for r in rows if r["IS low"] > r["bound eq7"]]
    ratios = [r["bound eq7"] / r["IS"] for r in rows]
    slack = min((r["bound eq7"] - r["IS high"]) / r["bound eq7"] for r in rows)
    exact = [r for r in rows if r["exact"] is not None]
    misses = [r for r in exact if not r["IS low"] <= r["exact"] <= r["IS high"]]
    lo, hi = min(ratios), max(ratios)
    where = {f"{r['shape']} kappa={r['kappa']:.4g}": r["bound eq7"] / r["IS"] for r in rows}
    loosest = max(where, key=where.get)
    tightest = min(where, key=where.get)
    cmp = (
        f"IS lower 99% limit <= bound at each of {len(rows)} (shape, kappa); bound / estimate "
        f"from {lo:.3g} ({tightest}) to {hi:.3g} ({loosest}); Lemma 1 as printed "
        f"(sqrt(2 pi)) is a further {2 * math.pi:.4g}x looser; the 2 x t estimates contain the "
        f"exact law in {len(exact) - len(misses)} of {len(exact)} cases"
    )
    key = {
        "instances": (len(rows), 0),
        "min bound/IS": seeded_pin(lo),  # was rtol 0.5
        "max bound/IS": seeded_pin(hi),
    }
    if misses:
        return Outcome(
            "not checkable",
            c,
            cmp,
            f"the estimator missed the exact law at {[m['shape'] for m in misses]}: the "
            "estimates cannot be trusted",
            key=key,
            instances=len(rows),
            slack=slack,
        )
    if bad:
        worst = bad[0]
        return Outcome(
            "differs",
            c,
            cmp,
            f"the bound is violated: at {worst['shape']}, kappa = {worst['kappa']:.4g}, "
            f"P(cond > kappa) >= {worst['IS low']:.4g} > bound {worst['bound eq7']:.4g}",
            key=key,
            instances=len(rows),
            slack=slack,
            counterexample=(worst["shape"], worst["kappa"]),
        )
    return Outcome("reproduced", c, cmp, key=key, instances=len(rows), slack=slack)


def _instance(shape: str, kappa: float, bound: float, est, exact) -> dict:
    return {
        "shape": shape,
        "kappa": kappa,
        "bound eq7": bound,
        "IS": est[0],
        "IS low": est[1],
        "IS high": est[2],
        "exact": exact,
    }


@claim(
    paper=PAPER,
    id="lemma1-far-tail-table1-shapes",
    where="Appendix B, Lemma 1 (eq. (9)) used in step (b) of Theorem 2's proof",
    statement="P(cond(M) / (v/(|v-u|+1)) > x) <= a (C/x)^(|v-u|+1) for u x v Gaussian M, "
    "C <= 6.414, at the m x t* shapes of Table I's n = 60 group codes, at kappa = 1000 and "
    "where the bound is 1e-12",
    paper_value="bound >= P(cond > kappa)",
    kind="theorem",
    judge=_judge_lemma1,
    examples=[
        (
            {
                "instances": [
                    _instance("2x3", 1e3, 3.7e-5, (4.0e-6, 3.8e-6, 4.2e-6), 4.0e-6),
                    _instance("12x16", 1e3, 1.45e-9, (8.7e-11, 8.3e-11, 9.1e-11), None),
                ]
            },
            "reproduced",
        ),
        (
            {
                "instances": [
                    _instance("2x3", 1e3, 3.7e-5, (4.0e-6, 3.8e-6, 4.2e-6), 4.0e-6),
                    _instance("12x16", 1e3, 1.45e-9, (3e-9, 2.8e-9, 3.2e-9), None),
                ]
            },
            "differs",
        ),
        (
            {"instances": [_instance("2x3", 1e3, 3.7e-5, (2.0e-6, 1.9e-6, 2.1e-6), 4.0e-6)]},
            "not checkable",
        ),
    ],
)
def _lemma1_far_tail(quick: bool) -> dict:
    rel, budget = _precision(quick)
    shapes = sorted({(m, _t_star(s, m)) for _, s, m in ROWS_N60})
    rows = []
    for i, (u, v) in enumerate(shapes):
        for j, kappa in enumerate((KAPPA, _far_kappa(u, v))):
            est = condition_tail_is(
                u,
                v,
                kappa,
                budget,
                rng=[SEED, i, j],
                chunk_size=100 if u > 2 else 1_000,
                stop=Stop(rel_half_width=rel),
            )
            exact = condition_tail_2xn(v, kappa) if u == 2 else None
            bound = gaussian_condition_bound(u, v, kappa)
            rows.append(_instance(f"{u}x{v}", kappa, bound, (est.value, est.low, est.high), exact))
    return {"instances": rows, "relative half-width target": rel}


# ---------------------------------------------------------------------------
# Theorem 2 at Table I's n = 60 rows


def _judge_theorem2(c: dict) -> Outcome:
    rows = c["rows"]
    eps = c["eps"]
    over = [r for r in rows if r["low"] > eps]
    unsure = [r for r in rows if r["low"] <= eps < r["high"]]
    slack = min((eps - r["high"]) / eps for r in rows)
    est = [r for r in rows if r["method"] == "estimated"]
    precise = [r for r in est if r["rel half-width"] <= c["target"]]
    bracketed = [r for r in rows if r["method"] != "estimated"]
    cmp = (
        f"upper 99% limit <= eps = {eps:g} for each row; {len(precise)} of {len(est)} estimated "
        f"rows reached relative half-width <= {c['target']:g}"
    )
    if est:
        cmp += (
            f"; largest estimate {max(r['value'] for r in est):.3g}; the union bound f(t*) "
            f"exceeds the estimate by {min(r['f(t*)'] / r['value'] for r in est):.3g}x to "
            f"{max(r['f(t*)'] / r['value'] for r in est):.3g}x"
        )
    if bracketed:
        cmp += "; bracketed, not estimated: " + ", ".join(
            f"{r['row']} in [{r['low']:.3g}, {r['high']:.3g}] ({r['subsets']:,} subsets per "
            "sample is beyond exhaustive evaluation)"
            for r in bracketed
        )
    key = {f"{r['row']} estimate": seeded_pin(r["value"]) for r in est}  # was rtol 0.5
    key["rows"] = (len(rows), 0)
    common = dict(key=key, instances=len(rows), slack=slack)
    if over:
        r = over[0]
        return Outcome(
            "differs",
            c,
            cmp,
            f"the guarantee fails at {r['row']}: P(worst subset > kappa) >= {r['low']:.3g} > "
            f"eps = {eps:g}",
            counterexample=r["row"],
            **common,
        )
    if unsure:
        return Outcome(
            "not checkable",
            c,
            cmp,
            f"the intervals at {[r['row'] for r in unsure]} contain eps = {eps:g}",
            **common,
        )
    return Outcome("reproduced", c, cmp, **common)


def _row(row, t, S, f, method, value, low, high, rel) -> dict:
    return {
        "row": row,
        "t*": t,
        "subsets": S,
        "f(t*)": f,
        "method": method,
        "value": value,
        "low": low,
        "high": high,
        "rel half-width": rel,
    }


@claim(
    paper=PAPER,
    id="theorem2-eps-table1-n60",
    where="Theorem 2 and Table I (kappa = 1000, eps = 1e-3, n = 60)",
    statement="with probability at least 1 - eps every t*-column submatrix of the m x (m+s) "
    "Gaussian generator has condition number <= kappa (P(max_T cond(G_T) > kappa) <= eps), "
    "for Table I's n = 60 rows",
    paper_value="P(failure) <= 1e-3",
    slow=True,  # about 35 s: 4,845 subsets of 12 x 16 conditioned per sample at (60, 8, 12)
    kind="theorem",
    judge=_judge_theorem2,
    examples=[
        (
            {
                "eps": 1e-3,
                "target": 0.1,
                "rows": [
                    _row((60, 3, 2), 3, 10, 3.7e-4, "estimated", 3.8e-5, 3.5e-5, 4.1e-5, 0.08)
                ],
            },
            "reproduced",
        ),
        (
            {
                "eps": 1e-3,
                "target": 0.1,
                "rows": [_row((60, 3, 2), 3, 10, 3.7e-4, "estimated", 2e-3, 1.8e-3, 2.2e-3, 0.1)],
            },
            "differs",
        ),
        (
            {
                "eps": 1e-3,
                "target": 0.1,
                "rows": [_row((60, 3, 2), 3, 10, 3.7e-4, "bracketed", 1e-4, 1e-5, 2e-3, 1.0)],
            },
            "not checkable",
        ),
    ],
)
def _theorem2_n60(quick: bool) -> dict:
    rel, budget = _precision(quick)
    rows = []
    for i, (n, s, m) in enumerate(ROWS_N60):
        N, t = m + s, _t_star(s, m)
        S = math.comb(N, t)
        f = straggler_union_bound(N, m, t, KAPPA)
        stop = Stop(rel_half_width=rel)
        if S <= 20_000:
            chunk = max(5, min(200, 200_000 // (S * m * t)))
            est = subset_failure_is(
                N, m, t, KAPPA, budget, rng=[SEED, 2, i], chunk_size=chunk, stop=stop
            )
            rows.append(
                _row(
                    (n, s, m),
                    t,
                    S,
                    f,
                    "estimated",
                    est.value,
                    est.low,
                    est.high,
                    est.rel_half_width,
                )
            )
        else:
            # P(one subset) <= P(union) <= binom(N, t) P(one subset) (the union bound)
            one = condition_tail_is(
                m, t, KAPPA, budget, rng=[SEED, 3, i], chunk_size=100, stop=stop
            )
            rows.append(
                _row((n, s, m), t, S, f, "bracketed", one.value, one.low, S * one.high, math.inf)
            )
    return {"eps": EPS, "target": rel, "rows": rows}
