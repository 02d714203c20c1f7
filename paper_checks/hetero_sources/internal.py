"""gctheory's own derivations for issue 23, checked (not any paper's printed claims)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from paper_checks import claim, register_source
from paper_checks._framework import Outcome

PAPER = "hetero-internal"
register_source(
    PAPER,
    "gctheory's derivations for heterogeneous and memoryful workers (issue 23): "
    "non-identical order statistics, the heterogeneous code, the Markov straggler fits",
)


def _close(c: dict) -> Outcome:
    cmp = "largest relative gap between the routes (must be <= 1e-8)"
    if c["max rel gap"] <= 1e-8:
        return Outcome("reproduced", c, cmp, key={"max rel gap": (c["max rel gap"], 1.0, 1e-8)})
    return Outcome("differs", c, cmp, cause=f"routes disagree by {c['max rel gap']:.3g}")


@claim(
    paper=PAPER,
    id="internal-hetero-orderstat-exact",
    where="gctheory.order_stats.heterogeneous (the Markov-chain sum for exponential groups)",
    statement="for two groups of exponential workers the chain sum over done-counts and the "
    "quadrature of the Poisson-binomial survival function give the same mean and variance of "
    "the k-th fastest, and the minimum is exponential with the summed rate",
    paper_value="none (gctheory's derivation)",
    judge=_close,
    examples=[({"max rel gap": 1e-12}, "reproduced"), ({"max rel gap": 1e-3}, "differs")],
)
def _orderstat(quick: bool) -> dict:
    from gctheory.order_stats import order_statistic_moments

    laws = [(stats.expon(scale=1.0), 30), (stats.expon(scale=3.0), 20)]
    gap = 0.0
    for k in (1, 10, 25, 40, 50):
        a = order_statistic_moments(laws, k)
        b = order_statistic_moments(laws, k, method="quad")
        gap = max(gap, abs(a.mean - b.mean) / a.mean, abs(a.variance - b.variance) / a.variance)
    m = order_statistic_moments(laws, 1).mean
    gap = max(gap, abs(m - 1 / (30 + 20 / 3)) * (30 + 20 / 3))
    return {"max rel gap": gap}


def _decodes(c: dict) -> Outcome:
    cmp = "straggler sets that fail to decode exactly (must be 0)"
    if c["failures"] == 0:
        return Outcome("reproduced", c, cmp, key={"failures": (0, 0), "sets": (c["sets"], 0)})
    return Outcome("differs", c, cmp, cause=f"{c['failures']} of {c['sets']} sets failed")


@claim(
    paper=PAPER,
    id="internal-hetero-code-decodes",
    where="gctheory.codes.heterogeneous (measure-then-split loads, random-H code)",
    statement="the heterogeneous gradient code on measure-then-split loads decodes the exact "
    "gradient sum from every set of n - s survivors",
    paper_value="none (gctheory's construction)",
    judge=_decodes,
    examples=[
        ({"failures": 0, "sets": 10}, "reproduced"),
        ({"failures": 1, "sets": 10}, "differs"),
    ],
    kind="theorem",
)
def _code(quick: bool) -> dict:
    from gctheory.codes.base import verify_straggler_sets
    from gctheory.codes.heterogeneous import HeterogeneousGradientCode, measured_split

    fails = sets = 0
    cases = [
        ([1, 1, 2, 2, 4, 4], 12, 2),
        ([1, 3, 1, 3, 1, 3, 1], 7, 3),
        ([1, 2, 3, 4, 5, 6, 7, 8], 16, 2),
    ]
    for means, k, s in cases:
        code = HeterogeneousGradientCode(measured_split(means, k, s), k, s, rng=23)
        chk = verify_straggler_sets(code)
        fails += len(chk.failures)
        sets += chk.sets
    return {"failures": int(fails), "sets": int(sets)}


def _recovers(c: dict) -> Outcome:
    cmp = (
        "interval coverage of (p, r) over 20 synthetic traces (>= 15) and i.i.d. "
        "rejections of 20 (<= 4)"
    )
    if c["covered"] >= 15 and c["iid rejected"] <= 4 and c["markov rejected"] == 20:
        return Outcome("reproduced", c, cmp, key={"covered": (c["covered"], 0.3)})
    return Outcome(
        "differs",
        c,
        cmp,
        cause=f"coverage {c['covered']}/20, iid rejections {c['iid rejected']}/20",
    )


@claim(
    paper=PAPER,
    id="internal-markov-fit-recovers",
    where="gctheory.delays.markov.fit_gilbert_elliott",
    statement="the two-state Markov fit covers the true (p, r) with its 95% intervals on "
    "synthetic traces, rejects the i.i.d. model there, and does not reject it on i.i.d. traces",
    paper_value="none (gctheory's estimator)",
    judge=_recovers,
    examples=[
        ({"covered": 19, "iid rejected": 1, "markov rejected": 20}, "reproduced"),
        ({"covered": 5, "iid rejected": 1, "markov rejected": 20}, "differs"),
    ],
)
def _markov(quick: bool) -> dict:
    from gctheory.delays.markov import GilbertElliott, fit_gilbert_elliott

    true = GilbertElliott(0.05, 0.4)
    cov = rej = rej_iid = 0
    for seed in range(20):
        f = fit_gilbert_elliott(true.sample(30, 256, rng=seed))
        cov += f.contains("p", 0.05) and f.contains("r", 0.4)
        rej += f.rejects_iid(0.05)
        S = (np.random.default_rng(100 + seed).random((30, 256)) < 0.1).astype(int)
        rej_iid += fit_gilbert_elliott(S).rejects_iid(0.05)
    return {"covered": int(cov), "iid rejected": int(rej_iid), "markov rejected": int(rej)}
