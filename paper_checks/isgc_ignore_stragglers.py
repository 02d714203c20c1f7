"""IS-GC, 'On arbitrary ignorance of stragglers with gradient coding': the largest partial
sum recoverable from fractional-repetition and cyclic-repetition placements.

Neither the full reference nor the text of the paper is in the stored
sources; the decoders of :mod:`gctheory.codes.isgc` implement the described
idea (sum survivors with disjoint partitions), checked here against exhaustive
enumeration and exact expectations.
"""

from __future__ import annotations

import itertools
from functools import partial

import numpy as np

from gctheory.codes.isgc import ISGCDecoder, frc_expected_recovered
from gctheory.montecarlo import estimate_mean
from paper_checks._codes_common import bound_examples, bound_judge
from paper_checks._framework import Outcome, claim, register_source

PAPER = "isgc"
register_source(
    PAPER,
    "'On arbitrary ignorance of stragglers with gradient coding' (IS-GC); full reference "
    "not in the stored sources",
)


def _largest_disjoint(support: np.ndarray, T) -> int:
    """Brute force: most partitions covered by survivors with pairwise disjoint supports."""
    best = 0
    T = list(T)
    for r in range(len(T), 0, -1):
        for c in itertools.combinations(T, r):
            cov = support[list(c)].sum(axis=0)
            if cov.max() <= 1:
                best = max(best, int(cov.sum()))
        if best:
            return best
    return best


@claim(
    paper=PAPER,
    id="largest-partial-sum",
    where="IS-GC decoding for FRC and cyclic-repetition placements",
    statement="with more than s stragglers the decoder recovers the largest partial sum "
    "obtainable from survivors with disjoint partitions (FRC: every group with a survivor)",
    paper_value="largest recoverable partial sum",
    judge=bound_judge("|decoder count - brute-force maximum| (must be 0)"),
    examples=bound_examples(),
    kind="theorem",
)
def _largest(quick: bool) -> dict:
    inst, worst, cex = 0, 0.0, ""
    cases = [(8, 1, "cyclic"), (8, 2, "cyclic"), (8, 1, "frc")]
    if not quick:
        cases += [(10, 2, "cyclic"), (9, 2, "frc"), (10, 3, "cyclic")]
    for n, s, pl in cases:
        dec = ISGCDecoder(n, s, pl)
        for t in range(n + 1):
            for T in itertools.combinations(range(n), t):
                diff = abs(dec.recovered_count(T) - _largest_disjoint(dec.support, T))
                inst += 1
                if diff > worst:
                    worst = float(diff)
                    cex = f"n={n}, s={s}, {pl}, survivors {T}"
    return {"instances": inst, "max ratio": worst, "slack": 1 - worst, "counterexample": cex}


def _judge_expected(c: dict) -> Outcome:
    bad = [r for r in c["rows"] if not r["low"] <= r["exact"] <= r["high"]]
    cmp = "exact expectation inside the 99% Monte Carlo interval, for every straggler count"
    key = {f"E[recovered] e={r['e']}": (r["exact"], 1e-9) for r in c["rows"]}
    if not bad:
        return Outcome("reproduced", c, cmp, key=key)
    r = bad[0]
    return Outcome(
        "differs",
        c,
        cmp,
        cause=f"e = {r['e']}: exact {r['exact']:.5g} outside [{r['low']:.5g}, {r['high']:.5g}]",
        key=key,
    )


@claim(
    paper=PAPER,
    id="frc-expected-partitions",
    where="IS-GC analysis: expected number of partitions recovered (FRC)",
    statement="with e uniformly random stragglers, FRC recovers k (1 - C(n-s-1, e-s-1)/C(n, e)) "
    "partitions in expectation",
    paper_value="closed form (as derived)",
    judge=_judge_expected,
    examples=[
        ({"rows": [{"e": 3, "exact": 11.5, "low": 11.4, "high": 11.6}]}, "reproduced"),
        ({"rows": [{"e": 3, "exact": 11.5, "low": 11.7, "high": 11.9}]}, "differs"),
    ],
)
def _expected(quick: bool) -> dict:
    n, s = 12, 2
    dec = ISGCDecoder(n, s, "frc")
    trials = 2000 if quick else 20000
    rows = []
    for e in (3, 5, 7, 9):
        est = estimate_mean(partial(dec.sample_recovered, e), trials, rng=[12, e], progress=False)
        rows.append(
            {
                "e": e,
                "exact": float(frc_expected_recovered(n, s, e)),
                "mc": est.value,
                "low": est.low,
                "high": est.high,
            }
        )
    return {"rows": rows}
