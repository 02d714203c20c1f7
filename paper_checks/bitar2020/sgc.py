"""Bitar, Wootters, El Rouayheb, 'Stochastic gradient coding for straggler mitigation in
distributed learning' (2020): the SGC estimator, its bias and variance.

The stored copies give the abstract only (searched: the pages corpus for the
title, "stochastic gradient coding", "pair-wise balanced", "variance",
"unbiased estimator", "d(1-p)", "SGC convergence"; the docs, code and issues
corpora). The paper's printed estimator and variance expression could not be
read, so its claim ``unbiased-estimator-variance`` is ``not checkable``. The
estimator and variance in :mod:`gctheory.codes.designs` are gctheory's own
derivation; they are checked under their own names, each saying it is not
the paper's claim: ``internal-sgc-variance-montecarlo`` (the derived variance
and zero bias against Monte Carlo, with a negative control) and
``internal-pairwise-balanced-closed-form`` (the general variance sum against
the pair-wise balanced closed form).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from gctheory.codes.designs import StochasticGradientCode, affine_plane, projective_plane
from gctheory.montecarlo import estimate_mean
from paper_checks._framework.common_codes import (
    bound_examples,
    bound_judge,
    unretrieved_claim,
)
from paper_checks._framework.registry import Outcome, claim, register_source

PAPER = "bitar2020"
register_source(
    PAPER,
    "Bitar, Wootters, El Rouayheb, 'Stochastic gradient coding for straggler mitigation in "
    "distributed learning', IEEE J. Sel. Areas Inf. Theory 1(1), 2020",
)


def _bias_sampler(code, G, rng, size):
    alive = rng.random((size, code.n)) >= code.p
    coef = (alive @ code.A.astype(float)) / (code.d * (1 - code.p)) - 1.0
    return (coef @ G)[:, 0]


def _judge_sgc(c: dict) -> Outcome:
    var_ok = c["mse low"] <= c["exact variance"] <= c["mse high"]
    bias_ok = c["bias low"] <= 0 <= c["bias high"]
    control = not (c["mse low"] <= c["independent-pairs variance"] <= c["mse high"])
    cmp = "99% intervals from Monte Carlo: contain the exact variance and zero bias, exclude "
    cmp += "the variance that ignores shared workers (negative control)"
    key = {"exact variance": (c["exact variance"], 1e-9)}
    if var_ok and bias_ok and control:
        return Outcome("reproduced", c, cmp, key=key)
    why = []
    if not var_ok:
        why.append(
            f"E||g_hat - g||^2 in [{c['mse low']:.5g}, {c['mse high']:.5g}] misses "
            f"{c['exact variance']:.5g}"
        )
    if not bias_ok:
        why.append(f"the bias interval [{c['bias low']:.3g}, {c['bias high']:.3g}] excludes 0")
    if not control:
        why.append("the negative control is not rejected (too few trials to tell)")
    return Outcome("differs", c, cmp, cause="; ".join(why), key=key)


unretrieved_claim(
    paper=PAPER,
    id="unbiased-estimator-variance",
    where="SGC estimator with pair-wise balanced placement (section not readable)",
    statement="the paper's SGC estimator and its printed variance expression for pair-wise "
    "balanced placements",
    stored_text="title and abstract",
    internal=("internal-sgc-variance-montecarlo", "internal-pairwise-balanced-closed-form"),
)


@claim(
    paper=PAPER,
    id="internal-sgc-variance-montecarlo",
    where="internal consistency check (gctheory.codes.designs.StochasticGradientCode), not a "
    "printed statement of the paper",
    statement="gctheory's derivation, checked by Monte Carlo, not the paper's statement: "
    "g_hat = sum_{alive} y_i / (d (1-p)) is unbiased and, with a pair-wise balanced placement, "
    "has variance p/(d^2 (1-p)) ((d - lambda) sum ||g_j||^2 + lambda ||sum g_j||^2)",
    paper_value="none (the derived variance is gctheory's)",
    judge=_judge_sgc,
    examples=[
        (
            {
                "exact variance": 1.43,
                "mse low": 1.40,
                "mse high": 1.46,
                "bias low": -0.01,
                "bias high": 0.01,
                "independent-pairs variance": 0.9,
            },
            "reproduced",
        ),
        (
            {
                "exact variance": 1.43,
                "mse low": 1.50,
                "mse high": 1.56,
                "bias low": -0.01,
                "bias high": 0.01,
                "independent-pairs variance": 0.9,
            },
            "differs",
        ),
    ],
)
def _sgc(quick: bool) -> dict:
    D = projective_plane(2)
    code = StochasticGradientCode.pairwise_balanced(D, 0.2)
    G = np.random.default_rng(2020).standard_normal((code.k, 4)) + 0.5
    trials = 40_000 if quick else 400_000
    mse = estimate_mean(partial(code.sample_error, G), trials, rng=[2020, 1], progress=False)
    bias = estimate_mean(partial(_bias_sampler, code, G), trials, rng=[2020, 2], progress=False)
    d, p = code.d, code.p
    indep = p / (d * d * (1 - p)) * d * float((G * G).sum())  # as if no two partitions shared
    return {
        "placement": f"{D.name}: {code.n} workers, {code.k} partitions, d = {d}, lambda = {D.lam}",
        "p": p,
        "exact variance": code.variance(G),
        "mse": mse.value,
        "mse low": mse.low,
        "mse high": mse.high,
        "bias low": bias.low,
        "bias high": bias.high,
        "independent-pairs variance": indep,
    }


@claim(
    paper=PAPER,
    id="internal-pairwise-balanced-closed-form",
    where="internal consistency check (StochasticGradientCode.variance), not a printed "
    "statement of the paper",
    statement="gctheory's derivation, not the paper's statement: for pair-wise balanced "
    "placements the general variance sum reduces to "
    "p/(d^2(1-p)) ((d - lambda) sum ||g_j||^2 + lambda ||sum g_j||^2)",
    paper_value="none (both forms are gctheory's)",
    judge=bound_judge("|general sum - closed form| / (1e-12 x size)"),
    examples=bound_examples(),
    kind="theorem",
)
def _closed(quick: bool) -> dict:
    rng = np.random.default_rng(7)
    inst, worst = 0, 0.0
    for D in (projective_plane(2), projective_plane(3), affine_plane(3)):
        for p in (0.05, 0.3, 0.7):
            code = StochasticGradientCode.pairwise_balanced(D, p)
            for _ in range(5 if quick else 40):
                G = rng.standard_normal((code.k, 3))
                d, lam = code.d, D.lam
                closed = (
                    p
                    / (d * d * (1 - p))
                    * ((d - lam) * float((G * G).sum()) + lam * float(G.sum(0) @ G.sum(0)))
                )
                diff = abs(code.variance(G) - closed) / (1e-12 * max(1.0, closed))
                inst += 1
                worst = max(worst, diff)
    return {"instances": inst, "max ratio": worst, "slack": 1 - worst, "counterexample": ""}
