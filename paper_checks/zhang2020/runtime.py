"""Zhang & Simeone 2020, Section V: time and communication analysis, eqs. (21), (22), (28).

The paper's Section V-D (its numerical illustrations) is lost from our copy, so
"G-LAG provides the best wall-clock time" is checked with the paper's own
analysis: time complexity = sum over the iterations needed to reach the target
gap of the expected time of each iteration (eqs. (10), (21)-(22), (28)), with
worker times of mean proportional to the load r (Section II), and with the
iterations and the lazy selection of every scheme MEASURED on the digits data
(the seeded runs of the training comparison, zhang2020:abstract-glag-best-time-and-comm):
a scheme that selects more units, or needs more iterations, pays for it, so the
comparison can go either way.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import stats

from gctheory.order_stats import (
    grouped_completion_mc,
    grouped_completion_moments,
    harmonic_difference,
    order_statistic_moments,
)
from gctheory.runtime import zhang_metrics
from paper_checks import Outcome, claim
from paper_checks._framework.common_training import (
    estimate_over_runs,
    runs,
    sklearn_missing,
    zhang_run_args,
)
from paper_checks.halbawi2017.theorems import judge_theorem, theorem_examples

PAPER = "zhang2020"
N, R = 12, 3  # the runs: n = 12 workers, redundancy r = 3; LAGC with 2 groups of 6
# per scheme: (zhang_metrics name, redundancy, units that can be selected, comm per unit, groups)
UNITS = {
    "GD": ("GD", 1, 1, 24, None),
    "GC": ("GC", R, 1, 22, None),
    "LAG": ("LAG", 1, N, 2, None),
    "G-GD": ("G-GD", R, N // R, R + 1, None),
    "G-LAG": ("G-LAG", R, N // R, R + 1, None),
    "LAGC": ("LAGC", R, 2, 6 + 4, 2),
}


@functools.lru_cache(maxsize=4096)
def _iteration_time(label: str, selected: int, model: str, shape: float) -> float:
    """Expected time of one iteration of ``label`` with ``selected`` units active."""
    if selected == 0:
        return 0.0  # nothing selected: the clock counts computation only (Section II-A)
    name, r, units, _, groups = UNITS[label]
    return zhang_metrics(name, N, r, model=model, shape=shape, rho=selected / units,
                         groups=groups).time  # fmt: skip


def time_complexity(run: Any, *, label: str, model: str, shape: float) -> float:
    """eq. (10) for one run: the expected times of its iterations, summed to the target."""
    per_unit = UNITS[label][3]
    sel = np.rint(np.asarray(run.comm) / per_unit).astype(int)
    if label in ("GD", "GC"):
        sel = np.ones_like(sel)
    return float(sum(_iteration_time(label, int(s), model, shape) for s in sel))


def _complexities(quick: bool, model: str, shape: float) -> dict[str, Any]:
    args = zhang_run_args(quick)
    return {
        lab: estimate_over_runs(
            functools.partial(time_complexity, label=lab, model=model, shape=shape),
            args["trials"],
            rng=args["rng"],
            **kw,
        )
        for lab, kw in args["schemes"].items()
    }


def rank(est: dict[str, tuple[float, float, float]], target: str = "G-LAG") -> tuple[str, list]:
    """``("best", [])`` if ``target``'s interval lies below every other one,
    ``("beaten", labels)`` if some intervals lie below it, else ``("unresolved", labels)``."""
    _, lo_t, hi_t = est[target]
    beaten = [lab for lab, (_, _, hi) in est.items() if lab != target and hi < lo_t]
    if beaten:
        return "beaten", beaten
    overlap = [lab for lab, (_, lo, _) in est.items() if lab != target and lo <= hi_t]
    return ("best", []) if not overlap else ("unresolved", overlap)


def _fmt_est(est: dict) -> str:
    return "; ".join(f"{lab} {v:.4g} [{lo:.4g}, {hi:.4g}]" for lab, (v, lo, hi) in est.items())


def _judge_exp(c: dict) -> Outcome:
    if c.get("missing"):
        return Outcome("not checkable", c, cause=c["missing"])
    est = c["time complexity (95% CI over seeds)"]
    verdict, who = rank(est)
    same = c["G-LAG with S groups vs LAG with S workers, per-iteration time, max difference"]
    cmp = (
        f"time to the target gap by Section V's analysis, exponential worker times of mean r: "
        f"{_fmt_est(est)}; per iteration, with S units selected, G-LAG waits as long as LAG "
        f"does with S workers (min of r Exp(mean r) is Exp(1); largest difference {same:.1e}), "
        "so G-LAG's advantage comes only from having n/r units to select and from the "
        "selections and iterations measured on the data; reproduced iff G-LAG's interval "
        "lies below every other scheme's"
    )
    key = {"G-LAG time complexity": (est["G-LAG"][0], 0.05)}
    if verdict == "best":
        return Outcome("reproduced", c, cmp, key=key)
    if verdict == "beaten":
        return Outcome("differs", c, cmp, f"{', '.join(who)} below G-LAG", key=key)
    return Outcome("not checkable", c, cmp, f"G-LAG's interval overlaps {', '.join(who)}",
                   key=key)  # fmt: skip


def _ex(glag: tuple[float, float, float]) -> dict:
    est = {"GD": (700.0, 700.0, 700.0), "LAG": (500.0, 480.0, 520.0), "G-LAG": glag}
    return {
        "time complexity (95% CI over seeds)": est,
        "G-LAG with S groups vs LAG with S workers, per-iteration time, max difference": 0.0,
    }


@claim(
    paper=PAPER,
    id="sec5d-glag-best-exponential",
    where="Abstract; Section V (eqs. (10), (21), (28)); Section V-D",
    statement="G-LAG provides the best wall-clock time (time complexity) for exponential "
    "computing times",
    paper_value="G-LAG",
    judge=_judge_exp,
    examples=[
        (_ex((260.0, 250.0, 270.0)), "reproduced"),
        (_ex((600.0, 590.0, 610.0)), "differs"),
        (_ex((490.0, 470.0, 510.0)), "not checkable"),
        ({"missing": "no scikit-learn"}, "not checkable"),
    ],
)
def _exp(quick: bool) -> dict:
    if (o := sklearn_missing()) is not None:
        return {"missing": o.cause}
    est = _complexities(quick, "exponential", 1.0)
    same = max(
        abs(_iteration_time("G-LAG", s, "exponential", 1.0) - _iteration_time("LAG", s,
            "exponential", 1.0)) for s in range(1, N // R + 1)
    )  # fmt: skip
    return {
        "time complexity (95% CI over seeds)": {
            lab: (e.value, e.low, e.high) for lab, e in est.items()
        },
        "G-LAG with S groups vs LAG with S workers, per-iteration time, max difference": same,
    }


PARETO_SHAPES = (1.5, 2.0, 2.5, 3.0, 4.0, 6.0)


def _judge_pareto(c: dict) -> Outcome:
    if c.get("missing"):
        return Outcome("not checkable", c, cause=c["missing"])
    res = {float(a): rank(est) for a, est in c["time complexity by shape"].items()}
    best = [a for a, (v, _) in res.items() if v == "best"]
    beaten = {a: who for a, (v, who) in res.items() if v == "beaten"}
    open_ = {a: who for a, (v, who) in res.items() if v == "unresolved"}
    status = "; ".join(
        f"a = {a}: " + ("G-LAG best" if v == "best" else f"{', '.join(who)} below G-LAG"
                        if v == "beaten" else f"G-LAG overlaps {', '.join(who)}")
        for a, (v, who) in res.items()
    )  # fmt: skip
    cmp = (
        "time to the target gap by Section V's analysis, Pareto worker times of scale r and "
        f"shape a, with the measured selections and iterations (95% CI over seeds): {status}"
    )
    key = {"shapes where G-LAG is best": (len(best), 0), "shapes where G-LAG is beaten":
           (len(beaten), 0)}  # fmt: skip
    if len(best) == len(res):
        return Outcome("reproduced", c, cmp, key=key)
    if len(beaten) == len(res):
        return Outcome("differs", c, cmp, "G-LAG is beaten at every shape tried", key=key)
    return Outcome(
        "not checkable",
        c,
        cmp,
        f"the Pareto shape of Section V-D is lost from our copy and the verdict depends on it "
        f"(or is not resolved by the intervals): G-LAG best for a in {best}, beaten for a in "
        f"{sorted(beaten)}, undecided for a in {sorted(open_)}",
        key=key,
    )


@claim(
    paper=PAPER,
    id="sec5d-glag-best-pareto",
    where="Abstract; Section V (eqs. (10), (22), (28)); Section V-D",
    statement="G-LAG provides the best wall-clock time (time complexity) for Pareto computing "
    "times",
    paper_value="G-LAG",
    judge=_judge_pareto,
    examples=[
        (
            {
                "time complexity by shape": {
                    1.5: _ex((2.0, 1.0, 3.0))["time complexity (95% CI over seeds)"]
                }
            },
            "reproduced",
        ),
        (
            {
                "time complexity by shape": {
                    1.5: _ex((2.0, 1.0, 3.0))["time complexity (95% CI over seeds)"],
                    3.0: _ex((900.0, 890.0, 910.0))["time complexity (95% CI over seeds)"],
                }
            },
            "not checkable",
        ),
        (
            {
                "time complexity by shape": {
                    3.0: _ex((900.0, 890.0, 910.0))["time complexity (95% CI over seeds)"]
                }
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _pareto(quick: bool) -> dict:
    if (o := sklearn_missing()) is not None:
        return {"missing": o.cause}
    shapes = PARETO_SHAPES[::2] if quick else PARETO_SHAPES
    out = {}
    for a in shapes:
        est = _complexities(quick, "pareto", a)
        out[a] = {lab: (e.value, e.low, e.high) for lab, e in est.items()}
    return {"time complexity by shape": out}


# ---------------------------------------------------------------------------
# Section V-B


def _judge_comm(c: dict) -> Outcome:
    sup, over = c["largest ratio GD/GC over r, at n = n_max"], c["pairs with ratio >= 2"]
    cmp = (
        f"per-iteration communication (downloads + uploads, eqs. (32)-(33)): GD 2n, GC "
        f"n + (n - r + 1); the ratio 2n/(2n - r + 1) is largest at r = n, 2n/(n + 1): "
        f"{c['largest ratio at n = 12']:.4f} at n = 12, {sup:.5f} at n = {c['n_max']}, below 2 "
        f"on all {c['pairs']:,} (n, r); the simulated runs (n = 12, r = 3) spend "
        f"{c['simulated GD/GC communication to the target']:.4f}x, the per-iteration ratio "
        f"{c['formula ratio at n = 12, r = 3']:.4f} (same iterations)"
    )
    ok = not over and sup > 1.99 and not c["gctheory's loads differ from (32)-(33) (n <= 20)"]
    sim_ok = abs(c["simulated GD/GC communication to the target"]
                 - c["formula ratio at n = 12, r = 3"]) < 1e-9  # fmt: skip
    key = {"largest ratio at n = 12": (c["largest ratio at n = 12"], 1e-9)}
    if ok and sim_ok:
        return Outcome("reproduced", c, cmp + " (the text's '(35)' must be (32))", key=key)
    return Outcome(
        "differs",
        c,
        cmp,
        "the factor exceeds 2"
        if over
        else "the factor stays well below 2"
        if not ok
        else "the simulated communication does not follow (32)-(33)",
        key=key,
    )


@claim(
    paper=PAPER,
    id="sec5b-gc-comm-factor-2",
    where="Section V-B, after eq. (33)",
    statement="GC reduces the communication complexity of GD by the factor 2n/(2n - r + 1), "
    "which can be as large as 2",
    paper_value=2,
    judge=_judge_comm,
    examples=[
        (
            {
                "largest ratio GD/GC over r, at n = n_max": 1.998,
                "pairs with ratio >= 2": 0,
                "largest ratio at n = 12": 1.846,
                "n_max": 1000,
                "pairs": 100,
                "gctheory's loads differ from (32)-(33) (n <= 20)": 0,
                "simulated GD/GC communication to the target": 1.0909,
                "formula ratio at n = 12, r = 3": 1.0909,
            },
            "reproduced",
        ),
        (
            {
                "largest ratio GD/GC over r, at n = n_max": 2.5,
                "pairs with ratio >= 2": 3,
                "largest ratio at n = 12": 1.846,
                "n_max": 1000,
                "pairs": 100,
                "gctheory's loads differ from (32)-(33) (n <= 20)": 0,
                "simulated GD/GC communication to the target": 1.0909,
                "formula ratio at n = 12, r = 3": 1.0909,
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _comm(quick: bool) -> dict:
    nmax = 300
    # the loads of eqs. (32)-(33) as gctheory computes them, on every (n, r) with n <= 20
    mismatch = 0
    for n in range(2, 21):
        for r in range(1, n + 1):
            m = zhang_metrics("GD", n).communication / zhang_metrics("GC", n, r).communication
            mismatch += int(abs(m - Fraction(2 * n, 2 * n - r + 1)) > 1e-12)
    ratios = [Fraction(2 * n, 2 * n - r + 1) for n in range(2, nmax + 1) for r in range(1, n + 1)]
    f12 = zhang_metrics("GD", 12).communication / zhang_metrics("GC", 12, 3).communication
    sim = math.nan
    if sklearn_missing() is None:
        args = zhang_run_args(quick)
        gd = runs(args["trials"], rng=args["rng"], **args["schemes"]["GD"])
        gc = runs(args["trials"], rng=args["rng"], **args["schemes"]["GC"])
        sim = float(np.mean([a.comm.sum() / b.comm.sum() for a, b in zip(gd, gc)]))
    return {
        "pairs": len(ratios),
        "n_max": nmax,
        "pairs with ratio >= 2": sum(x >= 2 for x in ratios),
        "largest ratio GD/GC over r, at n = n_max": float(max(ratios)),
        "largest ratio at n = 12": float(max(Fraction(24, 24 - r + 1) for r in range(1, 13))),
        "gctheory's loads differ from (32)-(33) (n <= 20)": mismatch,
        "formula ratio at n = 12, r = 3": f12,
        "simulated GD/GC communication to the target": sim,
    }


# ---------------------------------------------------------------------------
# eqs. (21), (22), (28)


def paper_eq21(n: int, k: int, mean: float) -> float:
    """eq. (21) (as restated in the notes): ``mean (H_n - H_{n-k})``."""
    return mean * harmonic_difference(n, k)


def paper_eq22(n: int, k: int, scale: float, shape: float) -> float:
    """eq. (22): ``scale Gamma(n+1) Gamma(n-k+1-1/a) / (Gamma(n-k+1) Gamma(n+1-1/a))``."""
    lg = math.lgamma
    a = shape
    return scale * math.exp(lg(n + 1) + lg(n - k + 1 - 1 / a) - lg(n - k + 1) - lg(n + 1 - 1 / a))


def verify_eqs21_22(
    nmax: int, *, eq21=paper_eq21, eq22=paper_eq22, rng: Any = 21, quad_points: int = 12
) -> dict:
    """eqs. (21)-(22) against numerical integration of P(X_(k:n) > t), and their growth in
    k and in the mean (scale): every k <= n <= nmax for the closed-form comparison at a
    seeded subset (integration is slow), monotonicity on all."""
    rng = np.random.default_rng(rng)
    count, worst, smallest_inc, cex = 0, 0.0, math.inf, None
    quad_pts = set(map(tuple, rng.integers(1, nmax + 1, size=(quad_points, 2))))
    for n in range(1, nmax + 1):
        for shape in (1.5, 3.0):
            prev_e = prev_p = None
            for k in range(1, n + 1):
                e = eq21(n, k, 1.0)
                p = eq22(n, k, 1.0, shape) if n - k + 1 > 1 / shape else math.inf
                count += 1
                if prev_e is not None:
                    inc = min(e / prev_e - 1, (p / prev_p - 1) if math.isfinite(p) else math.inf)
                    smallest_inc = min(smallest_inc, inc)
                    if inc <= 0 and cex is None:
                        cex = f"not increasing in k at n = {n}, k = {k}"
                if eq21(n, k, 2.0) <= e or (math.isfinite(p) and eq22(n, k, 2.0, shape) <= p):
                    cex = cex or f"not increasing in the mean at n = {n}, k = {k}"
                prev_e, prev_p = e, p
                if (n, k) in quad_pts or (quad_points and n == nmax and k in (1, n)):
                    for dist, val in ((stats.expon(scale=1.0), e), (stats.pareto(shape), p)):
                        if not math.isfinite(val):
                            continue
                        ref = order_statistic_moments(dist, k, n, method="quad").mean
                        worst = max(worst, abs(val / ref - 1))
    if worst > 1e-7 and cex is None:
        cex = f"the closed forms differ from numerical integration by {worst:.1e}"
    return {
        "instances": count,
        "smallest slack": smallest_inc,
        "counterexample": cex,
        "largest relative difference from quadrature": worst,
        "note": "slack = smallest relative increase from k to k + 1 (Exp(1) and Pareto(1, a), "
        "a in {1.5, 3}); the closed forms agree with quadrature to "
        f"{worst:.1e}",
    }


def _judge_theorem(c: dict, what: str) -> Outcome:
    return judge_theorem(c, what)


@claim(
    paper=PAPER,
    id="eqs21-22-order-statistics",
    kind="theorem",
    where="Section V-A, eqs. (21)-(22)",
    statement="E[X_(k:n)] = mu (H_n - H_{n-k}) for exponential times of mean mu (21) and the "
    "Gamma-ratio formula for Pareto(scale, a) (22); both increase with the mean and with k",
    paper_value="eqs. (21)-(22)",
    judge=lambda c: _judge_theorem(c, "every k <= n <= nmax, Exp(1) and Pareto(1, a)"),
    examples=theorem_examples(0.01),
)
def _eqs21_22(quick: bool) -> dict:
    return verify_eqs21_22(30 if quick else 80)


EQ28_CASES = (  # (distribution label, groups, group size, wait)
    ("exp(mean 3)", 4, 3, 1),
    ("exp(mean 3)", 2, 6, 4),
    ("pareto(3, 2)", 4, 3, 1),
    ("pareto(3, 2)", 2, 6, 4),
    ("exp(mean 1)", 12, 1, 1),
)
_DISTS = {"exp(mean 3)": stats.expon(scale=3.0), "exp(mean 1)": stats.expon(scale=1.0),
          "pareto(3, 2)": stats.pareto(2.0, scale=3.0)}  # fmt: skip


def _judge_eq28(c: dict) -> Outcome:
    rows = c["rows"]
    outside = [r["case"] for r in rows if not r["lo"] <= r["formula"] <= r["hi"]]
    quad = max(abs(r["formula"] / r["quadrature"] - 1) for r in rows)
    cmp = (
        f"eq. (28)'s integral (closed form where one exists) against numerical quadrature "
        f"(largest relative difference {quad:.1e}) and against Monte Carlo with "
        f"{c['trials']:,} draws per case, 99.9% intervals: "
        + "; ".join(
            f"{r['case']}: {r['formula']:.5g} in [{r['lo']:.5g}, {r['hi']:.5g}]" for r in rows
        )
    )
    key = {"cases outside": (len(outside), 0)}
    if outside or quad > 1e-6:
        return Outcome("differs", c, cmp, f"outside the interval: {outside}", key=key)
    return Outcome("reproduced", c, cmp, key=key)


@claim(
    paper=PAPER,
    id="eq28-grouped-order-statistic",
    where="Section V-A, eq. (28)",
    statement="the expected time until the fastest worker(s) of every group return is the "
    "integral of the survival function 1 - (1 - (1 - F(t))^r)^(n/r) (eq. (28)), computed "
    "numerically",
    paper_value="eq. (28)",
    judge=_judge_eq28,
    examples=[
        (
            {
                "trials": 10,
                "rows": [{"case": "a", "formula": 1.0, "quadrature": 1.0, "lo": 0.9, "hi": 1.1}],
            },
            "reproduced",
        ),
        (
            {
                "trials": 10,
                "rows": [{"case": "a", "formula": 1.3, "quadrature": 1.3, "lo": 0.9, "hi": 1.1}],
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _eq28(quick: bool) -> dict:
    trials = 20_000 if quick else 200_000
    rows = []
    for i, (lab, G, r, wait) in enumerate(EQ28_CASES):
        d = _DISTS[lab]
        formula = grouped_completion_moments(d, G, r, wait).mean
        quad = grouped_completion_moments(d, G, r, wait, method="quad").mean
        mc = grouped_completion_mc(d, G, r, wait, trials=trials, rng=[28, i], level=0.999)
        rows.append({"case": f"{lab}, {G} groups of {r}, wait {wait}", "formula": formula,
                     "quadrature": quad, "lo": mc.low, "hi": mc.high})  # fmt: skip
    return {"trials": trials, "rows": rows}
