"""Halbawi et al. 2017: the theorems checked over their whole parameter range.

Each check evaluates the statement on a seeded or exhaustive grid (plus, where
the statement has a slack, an adversarial refinement toward the smallest
slack) and reports the instances verified, the smallest slack and any
counterexample. The statement is a parameter of each verifier, so the tests
(``tests/test_paper_checks_halbawi2017.py``) can feed a broken one and see the
counterexample flagged.

- eq. (2): ``s <= floor(wn/k) - 1`` for every scheme, attained by the RS code;
- Proposition 2 / Corollary 1 (eqs. (23), (26)): the row weights of Algorithm 1
  and their heavy and light index sets;
- Lemma 1 and the correctness of Algorithm 4 (Appendix 8.3);
- Proposition 1 (eq. (19)): ``E[T_delay^(f)] -> t0 alpha^(-1/xi)``;
- eq. (22): the minimiser of (21).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import optimize, stats

from gctheory.codes.reed_solomon import (
    ReedSolomonCode,
    mask_matrix,
    row_balanced_mask_matrix,
    rs_encoding_matrix,
)
from gctheory.order_stats import halbawi_proposition1_error, order_statistic_moments
from gctheory.runtime import halbawi_alpha_star, halbawi_approx_time
from paper_checks import Outcome, claim
from paper_checks._framework.range_search import range_verdict

PAPER = "halbawi2017"


def judge_theorem(c: dict, what: str, *, exact: bool = False) -> Outcome:
    """The verdict of a theorem check from its computed summary.

    ``c`` holds ``instances``, ``smallest slack`` (None for an identity),
    ``counterexample`` (None if none was found) and optionally
    ``inconclusive`` (instances in the hypothesis a Monte Carlo interval could not
    decide) and ``note``. The rule is the one of every theorem range check,
    :func:`paper_checks._framework.range_search.range_verdict`: ``differs`` on a
    counterexample; ``not checkable`` if some instances are undecided; else
    ``reproduced``.
    """
    n, slack, cex = c["instances"], c["smallest slack"], c["counterexample"]
    undecided = c.get("inconclusive", 0)
    where = f"{what}: {n:,} instances"
    if slack is not None:
        where += f", smallest relative slack {slack:.3g}"
    where += f"; {undecided} undecided"
    note = c.get("note", "")
    key: dict[str, Any] = {"instances": (n, 0), "undecided": (undecided, 0)}
    if slack is not None and not exact:
        key["smallest slack"] = (slack, *_slack_tolerance(c))
    verdict = range_verdict(n, int(cex is not None), undecided)
    if verdict == "differs":
        return Outcome(
            "differs",
            c,
            where,
            f"counterexample: {cex}" + (f"; {note}" if note else ""),
            key=key,
            instances=n,
            slack=slack,
            counterexample=cex,
        )
    if verdict == "not checkable":
        return Outcome(
            "not checkable",
            c,
            where,
            (
                f"{undecided} instance(s) not decided by their confidence intervals"
                if undecided
                else "no instance in the hypothesis"
            )
            + (f"; {note}" if note else ""),
            key=key,
            instances=n,
            slack=slack,
        )
    return Outcome(
        "reproduced",
        c,
        where + (f"; {note}" if note else ""),
        key=key,
        instances=n,
        slack=slack,
    )


def _slack_tolerance(c: dict) -> tuple[float, float]:
    """(rtol, atol) pinning the smallest slack at the precision of its computation.

    A slack from closed forms, exact arithmetic or quadrature is pinned at rtol 1e-9
    (atol 1e-12 for a slack of 0); one that carries an error (a Monte Carlo limit, a
    reference solve) says how large with ``slack precision`` (absolute) in the summary,
    and is pinned at that. (It was rtol 0.5 for all: a 50% drift passed.)
    """
    prec = c.get("slack precision")
    if prec is None:
        return (1e-9, 1e-12)
    return (0.0, float(prec))


def theorem_examples(slack: float | None = 0.1) -> list[tuple[dict, str]]:
    base = {"instances": 100, "smallest slack": slack, "counterexample": None}
    return [
        (base, "reproduced"),
        ({**base, "counterexample": "(n, k, w) = (3, 2, 1)"}, "differs"),
        ({**base, "inconclusive": 2}, "not checkable"),
    ]


# ---------------------------------------------------------------------------
# eq. (2)


def paper_eq2_bound(n: int, k: int, w: int) -> int:
    """eq. (2): the most stragglers a scheme with ``w`` of ``k`` parts per worker tolerates."""
    return w * n // k - 1


def decodes(B: np.ndarray, survivors) -> bool:
    """Is the all-one vector in the row space of ``B[survivors]`` (least squares, residual
    below 1e-6 sqrt(k))? The test of whether a code recovers the gradient sum from the
    survivors, used by the straggler-tolerance checks of several papers."""
    F = list(survivors)
    k = B.shape[1]
    if not F:
        return False
    a, *_ = np.linalg.lstsq(B[F].T, np.ones(k), rcond=None)
    return bool(np.linalg.norm(B[F].T @ a - 1) < 1e-6 * math.sqrt(k))


def violations_outcome(c: dict, bad: int, cmp: str, cause: str) -> Outcome:
    """``differs`` (with ``cause``) if ``bad`` instances violate a statement checked
    exhaustively, else ``reproduced``; the ledger pins the count exactly."""
    key = {"violations": (bad, 0)}
    if bad:
        return Outcome("differs", c, cmp, cause, key=key)
    return Outcome("reproduced", c, cmp, key=key)


def verify_eq2(
    nmax: int, *, bound: Callable[[int, int, int], int] = paper_eq2_bound, rng: Any = 2017
) -> dict:
    """eq. (2) on every ``n, k <= nmax``, ``1 <= w <= k``, ``nw >= k``.

    With ``s = bound(n, k, w)``: (a) achievability: the RS code of Sections
    3-4 recovers ``1^T g`` from every set of ``n - s`` survivors (all sets, or
    40 random ones plus the cyclically consecutive set, the worst conditioned;
    Algorithm 3 at the paper's ``s``, least squares otherwise); (b) optimality:
    the ``s + 1`` holders of a lightest column (padded) leave ``1`` outside the
    survivors' row space. A lightest column of ANY ``n x k`` mask with row
    weight ``w`` has weight at most ``floor(nw/k)`` (pigeonhole), checked on
    as many random masks as codes.
    """
    rng = np.random.default_rng(rng)
    count, worst_err, cex = 0, 0.0, None
    for n in range(1, nmax + 1):
        for k in range(1, nmax + 1):
            for w in range(1, k + 1):
                if n * w < k:
                    continue
                count += 1
                code = ReedSolomonCode(n, k, w)
                s = bound(n, k, w)
                if not 0 <= s < n:
                    cex = cex or f"(n, k, w) = ({n}, {k}, {w}): bound s = {s} outside [0, n)"
                    continue
                f = n - s
                B = code.B
                sets = list(itertools.combinations(range(n), f))
                if len(sets) > 40:
                    sets = [tuple(rng.permutation(n)[:f]) for _ in range(40)]
                    sets.append(tuple(range(f)))  # consecutive nodes: the worst conditioned
                g = rng.standard_normal((k, 2))
                Y = code.encode(g)
                for F in sets:
                    if s == code.s:
                        res = code.decode_detail(
                            list(F), Y[list(F)], check=False, on_noise="ignore"
                        )
                        err = np.max(np.abs(res.gradient - g.sum(0))) / max(1.0, np.abs(g).sum())
                        worst_err = max(worst_err, float(err))
                        ok = err <= 1e-9
                    else:
                        ok = decodes(B, F)
                    if not ok:
                        cex = cex or (
                            f"(n, k, w) = ({n}, {k}, {w}): the RS code does not decode from "
                            f"survivors {F} (s = {s})"
                        )
                        break
                if s + 1 < n:
                    j = int(np.argmin(code.support.sum(axis=0)))
                    holders = list(np.flatnonzero(code.support[:, j]))
                    others = [i for i in range(n) if i not in holders]
                    strag = (holders + others)[: s + 1]
                    F = [i for i in range(n) if i not in strag]
                    if decodes(B, F):
                        cex = cex or (
                            f"(n, k, w) = ({n}, {k}, {w}): {s + 1} stragglers {sorted(strag)} "
                            "still leave 1 in the row space, so s is not the largest"
                        )
                # pigeonhole on a random mask of row weight w
                M = np.zeros((n, k), bool)
                for i in range(n):
                    M[i, rng.choice(k, w, replace=False)] = True
                if M.sum(axis=0).min() > n * w // k:
                    cex = cex or f"a mask with a lightest column above floor(nw/k) at ({n},{k},{w})"
    return {
        "instances": count,
        "smallest slack": 0.0 if cex is None else None,
        "counterexample": cex,
        "worst relative decoding error": worst_err,
        "note": "the bound is attained (slack 0) by the RS code on every instance"
        if cex is None
        else "",
    }


@claim(
    paper=PAPER,
    id="eq2-bound-attained",
    kind="theorem",
    where="Section 2.1, eq. (2); Sections 1.2, 3 and 3.2",
    statement="no scheme with w of k parts per worker tolerates more than s = floor(wn/k) - 1 "
    "stragglers, and the RS scheme tolerates exactly that many for any n, k, w (every set of "
    "f = n - s survivors decodes, some s + 1 stragglers cannot)",
    paper_value="s = floor(wn/k) - 1",
    judge=lambda c: judge_theorem(c, "eq. (2) over n, k <= nmax, 1 <= w <= k", exact=True),
    examples=theorem_examples(0.0),
)
def _eq2(quick: bool) -> dict:
    return verify_eq2(8 if quick else 16)


# ---------------------------------------------------------------------------
# Algorithm 1: Proposition 2 and Corollary 1


def cyclic_run(start: int, length: int, n: int) -> set[int]:
    """``{start, ..., start + length - 1}`` reduced modulo ``n``."""
    return {(start + i) % n for i in range(length)}


def paper_cor1_sets(n: int, k: int, d: int, t: int) -> tuple[set[int], set[int]]:
    """eq. (26) as printed: heavy rows ``{t, ..., (t+kd-1)_n}`` (read cyclically, as the
    subscript n says), light rows ``{0, ..., t-1} U {(t+kd)_n, ..., n-1}`` (two plain
    ranges; the garbled ``{0, t-1}`` read as ``{0, ..., t-1}``)."""
    heavy = cyclic_run(t, (k * d) % n, n) if (k * d) % n else set(range(n))
    light = set(range(t)) | set(range((t + k * d) % n, n))
    return heavy, light


def cyclic_cor1_sets(n: int, k: int, d: int, t: int) -> tuple[set[int], set[int]]:
    """eq. (26) with both sets read cyclically: light rows ``{(t+kd)_n, ..., t-1}``."""
    h = (k * d) % n
    if h == 0:
        return set(range(n)), set(range(n))
    return cyclic_run(t, h, n), cyclic_run((t + h) % n, n - h, n)


def verify_row_weights(
    nmax: int,
    *,
    sets: Callable[[int, int, int, int], tuple[set[int], set[int]]] = paper_cor1_sets,
    offsets: bool = True,
) -> dict:
    """Row weights of Algorithm 1 against heavy/light index sets, exhaustively.

    Every ``1 <= n <= nmax``, ``0 <= k <= nmax``, ``1 <= d < n`` and ``t`` in
    ``0..n-1`` (``t = 0`` only without ``offsets``: Proposition 2): rows in the
    heavy set must have weight ``ceil(kd/n)``, rows in the light set
    ``floor(kd/n)``, and every row must be in one of them.
    """
    count, cex, wrap = 0, None, 0
    for n in range(2, nmax + 1):
        for k in range(0, nmax + 1):
            for d in range(1, n):
                for t in range(n) if offsets else (0,):
                    count += 1
                    w = row_balanced_mask_matrix(n, k, d, t).sum(axis=1)
                    hi, lo = -(-k * d // n), k * d // n
                    heavy, light = sets(n, k, d, t)
                    wrap += int(t + (k * d) % n > n)
                    bad = [i for i in heavy if w[i] != hi] + [i for i in light if w[i] != lo]
                    bad += [i for i in range(n) if i not in heavy | light]
                    if bad and cex is None:
                        i = bad[0]
                        cex = (
                            f"(n, k, d, t) = ({n}, {k}, {d}, {t}): row {i} has weight {w[i]}, "
                            f"but the index sets say {'ceil' if i in heavy else ''}"
                            f"{' and ' if i in heavy and i in light else ''}"
                            f"{'floor' if i in light else ''}"
                            f"{'no set' if i not in heavy | light else ''} "
                            f"(ceil(kd/n) = {hi}, floor(kd/n) = {lo})"
                        )
    return {"instances": count, "smallest slack": None, "counterexample": cex, "wrapping": wrap}


def _prop2_sets(n: int, k: int, d: int, t: int) -> tuple[set[int], set[int]]:
    """eq. (23): heavy rows ``{0, ..., (kd-1)_n}``, light rows ``{(kd)_n, ..., n-1}``."""
    return set(range(((k * d - 1) % n) + 1)) if k * d else set(), set(range((k * d) % n, n))


@claim(
    paper=PAPER,
    id="prop2-row-weights",
    kind="theorem",
    where="Appendix 8.1, Proposition 2, eq. (23)",
    statement="for d < n the rows of RowBalancedMaskMatrix(n, k, d, 0) have weight ceil(kd/n) "
    "for i in {0, ..., (kd-1)_n} and floor(kd/n) for i in {(kd)_n, ..., n-1}",
    paper_value="eq. (23)",
    judge=lambda c: judge_theorem(c, "exhaustive over n <= nmax, k <= nmax, d < n", exact=True),
    examples=theorem_examples(None),
)
def _prop2(quick: bool) -> dict:
    return verify_row_weights(16 if quick else 30, sets=_prop2_sets, offsets=False)


def _judge_cor1(c: dict) -> Outcome:
    out = judge_theorem(c["as printed"], "exhaustive over n <= nmax, k <= nmax, d < n, t < n")
    cyc = c["read cyclically"]
    if out.verdict != "differs":
        return Outcome(out.verdict, c, out.comparison, out.cause, out.key, out.instances,
                       out.slack, out.counterexample)  # fmt: skip
    tail = (
        f"the printed light set {{0..t-1}} U {{(t+kd)_n..n-1}} overlaps the heavy run when it "
        f"wraps past row n-1 (t + (kd)_n > n: {c['as printed']['wrapping']} of the "
        f"{c['as printed']['instances']:,} instances); "
    )
    if cyc["counterexample"] is None:
        tail += (
            f"read cyclically, light = {{(t+kd)_n, ..., t-1}}, the corollary holds on all "
            f"{cyc['instances']:,} instances, and Algorithm 4 never wraps (its offset "
            f"t = (k_h d_h)_n makes t + (k_l d_l)_n = n on all {c['Algorithm 4 calls']:,} of its "
            f"calls checked: wrapping calls {c['Algorithm 4 wrapping calls']})"
        )
    else:
        tail += f"even read cyclically it fails: {cyc['counterexample']}"
    return Outcome(
        "differs",
        c,
        out.comparison,
        out.cause + "; " + tail,
        key=out.key,
        instances=out.instances,
        slack=out.slack,
        counterexample=out.counterexample,
    )


def _cor1_example(printed_cex: str | None) -> dict:
    base = {"instances": 10, "smallest slack": None, "counterexample": None}
    return {
        "as printed": {**base, "counterexample": printed_cex, "wrapping": 3},
        "read cyclically": base,
        "Algorithm 4 calls": 5,
        "Algorithm 4 wrapping calls": 0,
    }


@claim(
    paper=PAPER,
    id="cor1-row-weights",
    kind="theorem",
    where="Appendix 8.1, Corollary 1, eq. (26)",
    statement="for d < n the rows of RowBalancedMaskMatrix(n, k, d, t) have weight ceil(kd/n) "
    "for i in {t, ..., (t+kd-1)_n} and floor(kd/n) for i in {0, ..., t-1} U "
    "{(t+kd)_n, ..., n-1}",
    paper_value="eq. (26)",
    judge=_judge_cor1,
    examples=[
        (_cor1_example(None), "reproduced"),
        (_cor1_example("row 0"), "differs"),
    ],  # fmt: skip
)
def _cor1(quick: bool) -> dict:
    nmax = 10 if quick else 14
    calls = wraps = 0
    for n in range(1, nmax + 1):
        for k in range(1, nmax + 1):
            for w in range(1, k + 1):
                if n * w < k:
                    continue
                k_h, d_h, k_l, d_l = (n * w) % k, -(-n * w // k), k - (n * w) % k, n * w // k
                t = (k_h * d_h) % n
                calls += 1
                wraps += int(t + (k_l * d_l) % n > n)
    return {
        "as printed": verify_row_weights(nmax),
        "read cyclically": verify_row_weights(nmax, sets=cyclic_cor1_sets),
        "Algorithm 4 calls": calls,
        "Algorithm 4 wrapping calls": wraps,
    }


# ---------------------------------------------------------------------------
# Lemma 1 and Algorithm 4


def verify_alg4(nmax: int, nmax_b: int) -> dict:
    """Appendix 8.3: Lemma 1's identity, ``n_l = n_h`` (36)-(41), and every row of
    ``MaskMatrix(n, k, w)`` of weight ``w``; for ``n, k <= nmax_b`` also every row of the
    encoding matrix ``B`` (Algorithm 2) with exactly ``w`` non-zeros (section 2.1, property 1)."""
    count, cex = 0, None
    for n in range(1, nmax + 1):
        for k in range(1, nmax + 1):
            for w in range(1, k + 1):
                if n * w < k:
                    continue
                count += 1
                k_h, d_h, k_l, d_l = (n * w) % k, -(-n * w // k), k - (n * w) % k, n * w // k
                a, b = k_h * d_h, k_l * d_l
                lemma = (a // n + -(-b // n), -(-a // n) + b // n)
                if lemma != (w, w) and cex is None:
                    cex = f"Lemma 1 at (n, k, w) = ({n}, {k}, {w}): {lemma} != ({w}, {w})"
                if a % n and (n - a % n) != b % n and cex is None:
                    cex = f"n_l != n_h at (n, k, w) = ({n}, {k}, {w})"
                rows = mask_matrix(n, k, w).sum(axis=1)
                if np.any(rows != w) and cex is None:
                    cex = f"MaskMatrix({n}, {k}, {w}) has row weights {sorted(set(rows))}"
                if n <= nmax_b and k <= nmax_b:
                    B = rs_encoding_matrix(n, k, w)
                    nz = (np.abs(B) > 1e-9 * np.abs(B).max()).sum(axis=1)
                    if np.any(nz != w) and cex is None:
                        cex = f"B({n}, {k}, {w}) has rows with {sorted(set(nz))} non-zeros"
    return {"instances": count, "smallest slack": None, "counterexample": cex}


@claim(
    paper=PAPER,
    id="alg4-row-weight",
    kind="theorem",
    where="Appendix 8.2-8.3, Algorithm 4, Lemma 1; Section 2.1 (property 1)",
    statement="MaskMatrix(n, k, w) has every row of weight w, also when nw/k is not an "
    "integer (Lemma 1: floor(k_h d_h/n) + ceil(k_l d_l/n) = ceil(k_h d_h/n) + floor(k_l d_l/n) "
    "= w, and n_l = n_h), so every row of B has exactly w non-zeros",
    paper_value="all rows of weight w",
    judge=lambda c: judge_theorem(
        c, "exhaustive over n, k <= nmax, 1 <= w <= k, nw >= k", exact=True
    ),  # fmt: skip
    examples=theorem_examples(None),
)
def _alg4(quick: bool) -> dict:
    return verify_alg4(20 if quick else 30, 8 if quick else 12)


# ---------------------------------------------------------------------------
# Proposition 1


def paper_prop1_limit(t0: float, xi: float, alpha: float) -> float:
    """eq. (19): the limit ``t0 alpha^(-1/xi)``."""
    return t0 * alpha ** (-1 / xi)


PROP1_TOL = 1e-3  # our criterion: relative error below 0.1% at n = 10^6, and shrinking


def _prop1_errors(xi: float, alpha: float, ns, limit) -> tuple[list[float], list[float]]:
    """|relative error| of the limit at each n, for f = (1-alpha)n and f of eq. (18)."""
    a, b = [], []
    for n in ns:
        L = limit(1.0, xi, alpha)
        for f, out in ((max(1, round((1 - alpha) * n)), a), (None, b)):
            e = halbawi_proposition1_error(1.0, xi, alpha, n, f=f)
            out.append(abs(e.exact / L - 1))
    return a, b


def verify_prop1(
    grid: int,
    *,
    limit: Callable[[float, float, float], float] = paper_prop1_limit,
    rng: Any = 19,
    refine_evals: int = 60,
    quadrature: bool = True,
) -> dict:
    """eq. (19) on a seeded grid of ``xi in [0.6, 5]``, ``alpha in [0.02, 0.95]``.

    For each point the exact expected order statistic (the Vannman formula of
    Appendix 8.4, in log-gamma) is compared with ``limit`` at
    ``n = 10^3 .. 10^6``, with both the Proposition's ``f = (1-alpha)n`` and
    eq. (18)'s ``f``: the relative error must shrink with ``n`` and end below
    ``PROP1_TOL``. Then an adversarial refinement (Nelder-Mead over the box)
    looks for the point with the largest error at ``n = 10^6``. The Vannman
    formula itself is checked against numerical integration at a few points.
    """
    rng = np.random.default_rng(rng)
    ns = [10**3, 10**4, 10**5, 10**6]
    pts = [
        (float(x), float(a))
        for x, a in zip(rng.uniform(0.6, 5, grid), rng.uniform(0.02, 0.95, grid))
    ]
    pts += [(0.6, 0.02), (5.0, 0.95), (1.1, 0.1477)]  # corners and the paper's point
    cex, worst, count, slopes = None, 0.0, 0, []

    def last_err(p):
        xi, al = float(np.clip(p[0], 0.6, 5)), float(np.clip(p[1], 0.02, 0.95))
        return max(e[-1] for e in _prop1_errors(xi, al, ns[-1:], limit))

    for xi, al in pts:
        for errs in _prop1_errors(xi, al, ns, limit):
            count += 1
            worst = max(worst, errs[-1])
            if errs[0] > 0 and errs[-1] > 0:
                slopes.append(math.log10(errs[-1] / errs[0]) / 3)
            # f = round((1 - alpha) n) makes the error oscillate with n, so "shrinking" is
            # judged from the first to the last n, not step by step
            if (errs[-1] > errs[0] or errs[-1] > PROP1_TOL) and cex is None:
                cex = (
                    f"xi = {xi:.3g}, alpha = {al:.3g}: relative error {errs[0]:.2e} at n = 1e3, "
                    f"{errs[-1]:.2e} at n = 1e6"
                )
    start = max(pts, key=lambda p: last_err(p))
    res = optimize.minimize(lambda p: -last_err(p), start, method="Nelder-Mead",
                            options={"maxfev": refine_evals, "xatol": 1e-3})  # fmt: skip
    count += res.nfev
    refined = -float(res.fun)
    worst = max(worst, refined)
    if refined > PROP1_TOL and cex is None:
        cex = f"at xi, alpha = {np.clip(res.x, [0.6, 0.02], [5, 0.95])}: error {refined:.2e}"
    # the Vannman formula (Appendix 8.4) against numerical integration
    vann = 0.0
    for n, f, xi in ((20, 15, 1.1), (80, 68, 1.1), (50, 10, 3.0)) if quadrature else ():
        d = stats.pareto(xi, scale=1.0)
        a = order_statistic_moments(d, f, n).mean
        b = order_statistic_moments(d, f, n, method="quad").mean
        vann = max(vann, abs(a / b - 1))
    if vann > 1e-7 and cex is None:
        cex = f"the Vannman formula differs from numerical integration by {vann:.1e}"
    return {
        "instances": count,
        "smallest slack": 1 - worst / PROP1_TOL,
        "counterexample": cex,
        "largest error at n = 1e6": worst,
        "decay exponent of the error from n = 1e3 to 1e6, median": float(np.median(slopes)),
        "Vannman vs quadrature, max relative difference": vann,
        "note": f"criterion: |E[T^(f)] / limit - 1| is smaller at n = 10^6 than at 10^3 and "
        f"below {PROP1_TOL:g} there, for f = (1-alpha)n and eq. (18)'s f; slack = 1 - largest "
        f"error / {PROP1_TOL:g}; the error falls like n^{float(np.median(slopes)):.2f} "
        "(median)",
    }


def _judge_prop1(c: dict) -> Outcome:
    out = judge_theorem(
        c,
        "seeded grid over xi in [0.6, 5], alpha in [0.02, 0.95], "
        "n = 1e3..1e6, plus a Nelder-Mead refinement",
    )
    # the refinement's evaluation count follows Nelder-Mead's path, which last-digit changes
    # in the order-statistic means can move (the ledger recorded 110 instances, a run after
    # the order-statistic precision work 121): the instance count is pinned to 20%
    key = {**out.key, "instances": (c["instances"], 0.2)}
    return dataclasses.replace(out, key=key)


@claim(
    paper=PAPER,
    id="prop1-limit",
    kind="theorem",
    where="Section 5, Proposition 1, eq. (19); Appendix 8.4",
    statement="for Pareto(t0, xi) delays, E[T_delay^(f)] -> t0 alpha^(-1/xi) as n grows, "
    "with f = (1 - alpha) n or f of eq. (18)",
    paper_value="t0 alpha^(-1/xi)",
    judge=lambda c: _judge_prop1(c),
    examples=theorem_examples(0.9),
)
def _prop1_limit(quick: bool) -> dict:
    return verify_prop1(8 if quick else 40)


# ---------------------------------------------------------------------------
# eq. (22)


def paper_alpha_star(t0: float, xi: float, n_cg: float) -> float:
    """eq. (22) and its validity: ``(t0/(c_g N xi))^(xi/(1+xi))`` if that ratio is < 1, else 1."""
    ratio = t0 / (n_cg * xi)
    return halbawi_alpha_star(t0, xi, n_cg) if ratio < 1 else 1.0


def _T21(a: float, *, t0: float, xi: float, n_cg: float) -> float:
    return halbawi_approx_time(float(a), t0=t0, xi=xi, n_cg=n_cg)


def verify_eq22(grid: int, *, alpha_star=paper_alpha_star, rng: Any = 22) -> dict:
    """eq. (22) is the minimiser of (21) over ``(0, 1]``: on a seeded log-uniform grid of
    ``t0 in [1e-4, 1e-1]``, ``xi in [0.5, 5]``, ``N c_g in [1e-3, 10]``, (21) at
    ``alpha_star`` is compared with its minimum over a 2000-point grid of ``(0, 1]`` refined
    by a bounded scalar minimisation (the adversarial step). Slack: the relative excess of
    the numerical minimum over T(alpha*), which must not be negative."""
    rng = np.random.default_rng(rng)
    xs = np.concatenate([np.geomspace(1e-6, 1, 2000)])
    count, smallest, cex, boundary = 0, math.inf, None, 0
    for _ in range(grid):
        t0 = float(10 ** rng.uniform(-4, -1))
        xi = float(rng.uniform(0.5, 5))
        ncg = float(10 ** rng.uniform(-3, 1))
        a_star = alpha_star(t0, xi, ncg)
        T = functools.partial(_T21, t0=t0, xi=xi, n_cg=ncg)
        vals = np.array([T(a) for a in xs])
        i = int(np.argmin(vals))
        lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, len(xs) - 1)]
        res = optimize.minimize_scalar(T, bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-14})  # fmt: skip
        t_num = min(vals[i], float(res.fun))
        if not 0 < a_star <= 1:
            cex = cex or f"alpha* = {a_star:.4g} outside (0, 1] at t0={t0:.3g}, xi={xi:.3g}"
            continue
        t_star = T(a_star)
        slack = (t_num - t_star) / t_star
        boundary += int(a_star == 1.0)
        count += 1
        smallest = min(smallest, slack)
        if slack < -1e-9 and cex is None:
            cex = (
                f"t0 = {t0:.3g}, xi = {xi:.3g}, N c_g = {ncg:.3g}: (21) is {-slack:.2e} lower "
                f"at alpha = {res.x:.6g} than at alpha* = {a_star:.6g}"
            )
    return {
        "instances": count,
        # rounding makes the slack of an exact minimiser ~ -1e-16: report it as 0
        "smallest slack": max(smallest, 0.0) if smallest > -1e-9 else smallest,
        "counterexample": cex,
        "instances with t0/(N c_g xi) >= 1 (minimiser alpha = 1)": boundary,
        "note": "slack = (numerical minimum of (21) - (21) at alpha*) / (21) at alpha*, >= 0 "
        "up to rounding (~1e-16) when alpha* is the minimiser",
    }


def _judge_eq22(c: dict) -> Outcome:
    out = judge_theorem(c, "seeded log-uniform grid over t0, xi, N c_g")
    return Outcome(out.verdict, c, out.comparison, out.cause, {"instances": (c["instances"], 0)},
                   out.instances, out.slack, out.counterexample)  # fmt: skip


@claim(
    paper=PAPER,
    id="eq22-minimiser",
    kind="theorem",
    where="Section 5.1, eqs. (21)-(22)",
    statement="alpha* = (t0/(c_g N xi))^(xi/(1+xi)) minimises T_f = t0 alpha^(-1/xi) + "
    "c_g N alpha, and it is valid (< 1) iff t0/(c_g N xi) < 1",
    paper_value="eq. (22)",
    judge=_judge_eq22,
    examples=theorem_examples(1e-16),
)
def _eq22(quick: bool) -> dict:
    return verify_eq22(20 if quick else 200)
