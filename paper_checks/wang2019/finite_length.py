"""Wang et al. 2019, Theorem 6 at finite n: the failure probability of the batch raptor code.

Theorem 6 says the ``(b, P_w)``-batch raptor code, decoded by peeling, leaves more
than a fraction ``eps`` of the batches unrecovered with probability
``< exp(-c0 n)``. :func:`gctheory.ldpc.raptor_failure_profile` computes that
probability exactly at finite ``n`` (the Karp-Luby-Shokrollahi recursion over
the decoder's cloud and ripple), so the decay and its rate can be read off,
where the analysis applies: eq. (53) holds (``wang2019.ldpc.thm6-condition53-region``
shows where it does not).
"""

from __future__ import annotations

import numpy as np

from gctheory import ldpc
from paper_checks import Outcome, claim

PAPER = "wang2019"
EPS, DELTA = 0.1, 0.2  # (53) holds: b = 2, overhead 1.6 > (1 - 2 eps)/(1 - 4 eps) = 1.33
BAD_EPS, BAD_DELTA = 0.2, 0.3  # (53) fails: b = 2, overhead 1.4 < 2


def _judge(c: dict) -> Outcome:
    ns = [int(n) for n in c["exact P(err > eps)"]]
    P = np.array([c["exact P(err > eps)"][str(n)] for n in ns])
    decreasing = bool(np.all(np.diff(P) < 0))
    mc_ok = all(
        r["low"] - c["truncation"] <= c["exact P(err > eps)"][n] <= r["high"] + c["truncation"]
        for n, r in c["MC P(err > eps)"].items()
    )
    key = {
        "c0 (fitted)": (c["c0 (fitted)"], 1e-6),
        **{f"exact P(err > eps), n = {n}": (c["exact P(err > eps)"][str(n)], 1e-6) for n in ns},
    }
    comparison = (
        f"exact P(err > eps) of Theorem 6's code at eps = {EPS}, delta = s/n = {DELTA} (Karp-Luby-"
        f"Shokrollahi recursion, truncation <= {c['truncation']:.1e}) for n = {ns}; rate c0 by "
        "least squares on log P vs n; Monte Carlo (fresh code and stragglers per trial, 99% "
        "intervals) must contain the exact values"
    )
    if not mc_ok:
        return Outcome(
            "not checkable",
            c,
            comparison,
            "the exact recursion and the Monte Carlo of the code disagree, so neither can be "
            "taken for the code's failure probability",
            key=key,
        )
    if decreasing and c["c0 (fitted)"] > 0 and c["max |log residual|"] < 1.0:
        return Outcome("reproduced", c, comparison, key=key)
    return Outcome(
        "differs",
        c,
        comparison,
        f"P(err > eps) does not decay exponentially in n: {dict(zip(ns, P.round(8).tolist()))} "
        f"(fitted c0 = {c['c0 (fitted)']:.4g}, largest deviation from the fit "
        f"{c['max |log residual|']:.2f} in log P)",
        key=key,
    )


_EX = {
    "exact P(err > eps)": {"100": 9.49e-3, "200": 4.35e-4, "300": 2.46e-5, "600": 6.29e-9},
    "c0 (fitted)": 0.0285,
    "max |log residual|": 0.3,
    "truncation": 1e-12,
    "MC P(err > eps)": {"100": {"value": 0.009, "low": 0.005, "high": 0.016}},
    "where (53) fails": {"60": 0.44, "180": 0.6},
}


@claim(
    paper=PAPER,
    id="thm6-finite-n-failure",
    where="Theorem 6, Algorithm 1",
    statement="the (b, P_w)-batch raptor code decoded by peeling has P(err(A_S) > eps) < "
    "exp(-c0 n) (err = fraction of batches not recovered)",
    paper_value="exponential decay in n",
    judge=_judge,
    examples=[
        (_EX, "reproduced"),
        (
            {
                **_EX,
                "exact P(err > eps)": {"100": 0.44, "200": 0.52, "300": 0.58, "600": 0.7},
                "c0 (fitted)": -0.001,
                "MC P(err > eps)": {"100": {"value": 0.45, "low": 0.4, "high": 0.5}},
            },
            "differs",
        ),
        (
            {**_EX, "MC P(err > eps)": {"100": {"value": 0.05, "low": 0.03, "high": 0.07}}},
            "not checkable",
        ),
    ],
)
def _finite_n(quick: bool) -> dict:
    ns = [100, 200] if quick else [100, 200, 300, 600]
    exact, trunc = {}, 0.0
    for n in ns:
        prof = ldpc.raptor_failure_profile(n, round(DELTA * n), EPS)
        exact[str(n)] = prof.prob_fraction_above(EPS)
        trunc = max(trunc, prof.truncation)
    logs = np.log([exact[str(n)] for n in ns])
    slope, icpt = np.polyfit(ns, logs, 1)
    resid = logs - (slope * np.array(ns) + icpt)
    mc = {}
    for n in ns[:1] if quick else ns[:2]:
        est = ldpc.raptor_failure_rate(n, round(DELTA * n), EPS, 300 if quick else 1000, rng=[n, 6])
        mc[str(n)] = {"value": est.value, "low": round(est.low, 6), "high": round(est.high, 6)}
    bad = {}
    for n in (60, 120) if quick else (60, 180):
        prof = ldpc.raptor_failure_profile(n, round(BAD_DELTA * n), BAD_EPS)
        bad[str(n)] = round(prof.prob_fraction_above(BAD_EPS), 6)
    return {
        "exact P(err > eps)": {k: float(f"{v:.8g}") for k, v in exact.items()},
        "c0 (fitted)": round(float(-slope), 6),
        "max |log residual|": round(float(np.max(np.abs(resid))), 4),
        "truncation": trunc,
        "MC P(err > eps)": mc,
        "where (53) fails": bad,
    }
