"""Wang et al. 2019, Theorem 6 (batch raptor code): P_w, eqs. (53)-(55), recovery by peeling.

Recomputed with :mod:`gctheory.ldpc`: the degree distribution exactly (Fractions),
eq. (55) against an mpmath series, condition (54) numerically on [0, 1 - eps],
condition (53) over a grid of (eps, delta), and the decoding behaviour by Monte
Carlo against the LT and-or-tree prediction of the residual fraction. The
batch size is b = ceil(1/ln(1/delta)) + 1 of the theorem's definition
(natural log); the b - 1 of the code's name is covered by
``wang2019.codes.thm6-batch-size``. The probability statement and condition (54)
are verified over their whole parameter range (:mod:`paper_checks._framework.range_search`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from mpmath import inf, log, mp, mpf, nsum

from gctheory import ldpc
from paper_checks import Outcome, claim
from paper_checks._framework.blas import single_threaded
from paper_checks._framework.range_search import (
    UNDECIDED,
    search,
    theorem_examples,
    theorem_judge,
)

PAPER = "wang2019"


def _judge_pw(c: dict) -> Outcome:
    diff = c["max |Omega' - eq. (55)|"]
    ok = c["exact sums all 1"] and diff < 1e-20
    cmp = (
        f"exact Fractions for {c['eps values']} values of eps; eq. (55) against the derivative "
        f"of Omega at {c['points']} points, mpmath 30 digits (series tail by nsum): largest "
        f"difference {diff:.1e}"
    )
    key = {"eps values": (c["eps values"], 0.0)}
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome("differs", c, cmp, "P_w does not sum to 1 or eq. (55) is not Omega'", key=key)


@claim(
    paper=PAPER,
    id="thm6-pw-and-eq55",
    where="Theorem 6, eq. (17); Appendix F, eq. (55)",
    statement="P_w with D = floor(1/eps), u = 2eps(1-2eps)/(1-4eps)^2 is a degree distribution, "
    "and Omega'(x) = (u - ln(1-x) + x^D - sum_{d>D} x^d/d)/(u+1)",
    paper_value="sum p_k = 1; eq. (55)",
    judge=_judge_pw,
    examples=[
        (
            {
                "exact sums all 1": True,
                "max |Omega' - eq. (55)|": 1e-30,
                "eps values": 98,
                "points": 12,
            },
            "reproduced",
        ),
        (
            {
                "exact sums all 1": True,
                "max |Omega' - eq. (55)|": 0.3,
                "eps values": 98,
                "points": 12,
            },
            "differs",
        ),
    ],  # fmt: skip
)
@single_threaded
def _pw(quick: bool) -> dict:
    eps_list = [Fraction(1, k) for k in range(5, 101)] + [Fraction(3, 20), Fraction(7, 30)]
    sums_ok = all(sum(ldpc.raptor_degree_distribution(e).values()) == 1 for e in eps_list)
    worst = mpf(0)
    points = 0
    with mp.workdps(30):
        for e in [Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(7, 30)]:
            p = ldpc.raptor_degree_distribution(e)
            D = max(p) - 1
            uf = 2 * e * (1 - 2 * e) / (1 - 4 * e) ** 2
            u = mpf(uf.numerator) / uf.denominator
            for x in (mpf("0.1"), mpf("0.5"), 1 - mpf(e.numerator) / e.denominator):
                direct = sum(
                    k * mpf(v.numerator) / v.denominator * x ** (k - 1) for k, v in p.items()
                )
                tail = nsum(lambda d, x=x: x**d / d, [D + 1, inf])
                eq55 = (u - log(1 - x) + x**D - tail) / (u + 1)
                worst = max(worst, abs(direct - eq55))
                points += 1
    return {
        "exact sums all 1": sums_ok,
        "max |Omega' - eq. (55)|": float(worst),
        "eps values": len(eps_list),
        "points": points,
    }


def c54_evaluate(eps: float, overhead_scale: float = 1.0) -> tuple:
    """(54) at one eps: the margin min (1-x) - exp(-c Omega'(x)) on [0, 1-eps], relative to 1-x."""
    p = ldpc.raptor_degree_distribution(eps)
    c = overhead_scale * (1 - 2 * eps) / (1 - 4 * eps)
    m, x = ldpc.check_condition_54(p, c, 1 - eps)
    D = max(p) - 1
    with mp.workdps(40):  # the proof's inequality x^D > sum_{d>D} x^d/d, worst at x = 1 - eps
        xm = 1 - mpf(eps)
        tail = -log(1 - xm) - mp.fsum(xm**d / d for d in range(1, D + 1))
        hint = bool(xm**D > tail)
    detail = f"margin {m:.4g} at x = {x:.4f}; x^D > sum_(d>D) x^d/d at x = 1 - eps: {hint}"
    return m > 0 and hint, m / (1 - x), detail


def c54_search(quick: bool, overhead_scale: float = 1.0) -> dict:
    step = 0.04 if quick else 0.01
    grid = [round(float(e), 4) for e in np.arange(0.005, 0.2491, step)]

    def neighbours(e: float) -> list[float]:
        # toward eps -> 0 (where the margin shrinks) and around interior minima
        if e <= 0.005:
            return [round(e / 2, 7)]
        return [round(e + d, 5) for d in (-step / 4, step / 4) if 0 < e + d < 0.25]

    out = search(lambda e: c54_evaluate(e, overhead_scale), grid, neighbours,
                 rounds=2 if quick else 3)  # fmt: skip
    out["eps grid"] = (grid[0], grid[-1], step)
    return out


@claim(
    paper=PAPER,
    id="thm6-condition54",
    where="Appendix F, eq. (54)",
    statement="exp(-(1-2eps)/(1-4eps) Omega'(x)) < 1 - x for all x in [0, 1 - eps] "
    "(using x^D > sum_{d>D} x^d/d), for every eps in (0, 1/4)",
    paper_value="holds for all eps in (0, 1/4)",
    kind="theorem",
    judge=theorem_judge(
        lambda c: (
            f"eps from {c['eps grid'][0]} to {c['eps grid'][1]} in steps of "
            f"{c['eps grid'][2]}, refined toward eps -> 0 where the margin shrinks (by halving): "
            "min over [0, 1 - eps] of "
            "(1 - x) - exp(-c Omega'(x)) (grid of 20001 points, refined by a bounded minimiser), "
            "and the proof's x^D > tail (mpmath, 40 digits); slack = that margin relative to "
            "1 - x (it vanishes like eps as eps -> 0 but stays positive)"
        ),
        slack_rtol=1e-4,
    ),
    examples=theorem_examples(
        0.245, "margin 0.012 at x = 0.75", **{"eps grid": (0.005, 0.245, 0.01)}
    ),
)
@single_threaded
def _c54(quick: bool) -> dict:
    return c54_search(quick)


def _judge_c53(c: dict) -> Outcome:
    frac = c["fraction of (eps, delta) grid where (53) fails"]
    key = {"fraction failing": (frac, 1e-9)}
    cmp = (
        f"(53) evaluated on a {c['grid'][0]} x {c['grid'][1]} grid of eps in (0, 1/4), delta in "
        "(0, 1), natural log in b"
    )
    if frac == 0:
        return Outcome("reproduced", c, cmp, key=key)
    ex = c["example"]
    return Outcome(
        "differs",
        c,
        cmp,
        f"(53) fails on {frac:.1%} of the grid: it is not implied by the choice of b. With "
        f"b = 2 (every delta < 1/e) it reads (1-2eps)/(1-4eps) < 2(1-delta), false for every "
        f"such delta once eps >= {c['smallest eps failing for every delta < 1/e']}; e.g. "
        f"eps = {ex['eps']}, delta = {ex['delta']}: b = {ex['b']}, needed "
        f"{ex['needed (1-2eps)/(1-4eps)']:.4f} > available b(1-delta) = "
        f"{ex['available b(1-delta)']:.4f}. The proof silently needs eps small enough",
        key=key,
    )


_C53_EX = {
    "grid": (49, 99),
    "fraction of (eps, delta) grid where (53) fails": 0.31,
    "smallest eps failing for every delta < 1/e": 0.17,
    "example": {"eps": 0.2, "delta": 0.3, "b": 2, "needed (1-2eps)/(1-4eps)": 3.0,
                "available b(1-delta)": 1.4},
}  # fmt: skip


@claim(
    paper=PAPER,
    id="thm6-condition53-region",
    where="Appendix F, eq. (53)",
    statement="with b = ceil(1/log(1/delta)) + 1 and delta = s/n, n(1-2eps)/(b(1-4eps)) < n - s",
    paper_value="holds (stated for every eps, delta)",
    judge=_judge_c53,
    examples=[
        (_C53_EX, "differs"),
        ({**_C53_EX, "fraction of (eps, delta) grid where (53) fails": 0.0}, "reproduced"),
    ],
)
@single_threaded
def _c53(quick: bool) -> dict:
    eps_grid = np.round(np.arange(0.005, 0.2491, 0.005), 4)
    delta_grid = np.round(np.arange(0.01, 0.991, 0.01), 3)
    fails = np.array(
        [
            [not ldpc.raptor_parameters(float(e), float(d)).condition_53 for d in delta_grid]
            for e in eps_grid
        ]
    )
    below = delta_grid < math.exp(-1)
    all_fail = [float(e) for e, row in zip(eps_grid, fails) if row[below].all()]
    # the example: the smallest eps failing at delta = 0.3 (b = 2)
    e_ex = min(float(e) for e, row in zip(eps_grid, fails) if row[list(delta_grid).index(0.3)])
    ex = ldpc.raptor_parameters(e_ex, 0.3)
    return {
        "grid": (len(eps_grid), len(delta_grid)),
        "fraction of (eps, delta) grid where (53) fails": round(float(fails.mean()), 6),
        "smallest eps failing for every delta < 1/e": min(all_fail) if all_fail else None,
        "example": {
            "eps": e_ex,
            "delta": 0.3,
            "b": ex.b,
            "needed (1-2eps)/(1-4eps)": ex.overhead_needed,
            "available b(1-delta)": ex.overhead,
        },
    }


# ---------------------------------------------------------------------------
# Theorem 6's probability statement over (eps, delta)


def thm6_evaluate(point: tuple, n: int, trials: int) -> tuple:
    """One (eps, delta): the LT residual prediction and Monte Carlo P(err > eps) at ``n``."""
    eps, delta = point
    if not (0 < eps < 0.25 and 0 < delta < 1):
        return None, None, "outside the theorem's range"
    prm = ldpc.raptor_parameters(eps, delta)
    p = ldpc.raptor_degree_distribution(eps)
    pred = ldpc.lt_residual_fraction(p, prm.overhead)
    s = int(round(delta * n))
    if n % prm.b or max(p) > n // prm.b:
        return None, None, f"n = {n} does not fit b = {prm.b}"
    fail = ldpc.raptor_failure_rate(n, s, eps, trials, rng=[n, s, round(1000 * eps)], level=0.98)
    detail = {
        "b": prm.b,
        "(53)": "holds" if prm.condition_53 else "fails",
        "LT residual": round(pred, 6),
        f"P(err > eps), n = {n}": f"{fail.value:.3f} [{fail.low:.3f}, {fail.high:.3f}]",
    }
    slack = (eps - pred) / eps
    if fail.high < 0.05 and pred < eps:
        return True, slack, detail
    if fail.low > 0.5 and pred > eps:
        return False, slack, detail  # P(err > eps) -> 1, not exp(-c0 n)
    return UNDECIDED, slack, {**detail, "note": "inconclusive at this n"}


def thm6_search(quick: bool) -> dict:
    n = 600 if quick else 1800
    trials = 110 if quick else 150  # 0 failures in >= 104 trials: one-sided 99% limit < 0.05
    eps_v = (0.05, 0.1, 0.2) if quick else (0.05, 0.1, 0.15, 0.2)
    delta_v = (0.1, 0.3, 0.5) if quick else (0.1, 0.2, 0.3, 0.4, 0.5)
    grid = [(e, d) for e in eps_v for d in delta_v]
    tally: dict[str, int] = {}

    def evaluate(pt: tuple) -> tuple:
        ok, slack, detail = thm6_evaluate(pt, n, trials)
        if ok is not None:
            k = f"(53) {detail['(53)']}, {'verified' if ok else 'counterexample'}"
            tally[k] = tally.get(k, 0) + 1
        return ok, slack, detail

    def neighbours(pt: tuple) -> list[tuple]:
        e, d = pt
        return [(round(e + de, 4), round(d + dd, 4)) for de, dd in
                ((0.025, 0), (-0.025, 0), (0, 0.05), (0, -0.05))]  # fmt: skip

    out = search(evaluate, grid, neighbours, rounds=1 if quick else 2)
    out.update(
        {
            "n": n,
            "trials": trials,
            "grid": {"eps": list(eps_v), "delta": list(delta_v)},
            "conclusive points by (53)": dict(sorted(tally.items())),
        }
    )
    return out


def _thm6_cause(c: dict) -> str:
    t = c["conclusive points by (53)"]
    return (
        "the theorem is stated for every eps < 1/4, but at these points the peeling error "
        "concentrates at the LT residual, above eps, so P(err > eps) -> 1; by condition (53): "
        + ", ".join(f"{k}: {v}" for k, v in t.items())
    )


@claim(
    paper=PAPER,
    id="thm6-recovery-monte-carlo",
    where="Theorem 6, Algorithm 1",
    statement="for every eps in (0, 1/4) and delta, the (b, P_w)-batch raptor code decoded by "
    "peeling has P(err(A_S) > eps) < exp(-c0 n) (err = fraction of batches not recovered)",
    paper_value="P(err > eps) -> 0 exponentially in n",
    kind="theorem",
    judge=theorem_judge(
        lambda c: (
            f"grid eps in {c['grid']['eps']}, delta in {c['grid']['delta']}, refined "
            "toward the edge where the LT and-or-tree residual at overhead b(1 - delta) meets eps; "
            f"at each point {c['trials']} fresh codes at n = {c['n']} with uniformly random "
            "stragglers: the statement holds there if the one-sided 99% upper limit of "
            "P(err > eps) is below 0.05 and the residual is below eps, and fails (P -> 1, not 0) "
            "if the lower limit is above 0.5 and the residual exceeds eps; slack = "
            "(eps - residual)/eps"
        ),
        slack_rtol=1e-3,
        cause=_thm6_cause,
    ),
    examples=theorem_examples(
        (0.2, 0.3),
        {"b": 2, "(53)": "fails", "LT residual": 0.31},
        n=1800,
        trials=150,
        grid={"eps": [0.1, 0.2], "delta": [0.1, 0.3]},
        **{"conclusive points by (53)": {"(53) fails, counterexample": 1}},
    ),
)
@single_threaded
def _thm6(quick: bool) -> dict:
    return thm6_search(quick)
