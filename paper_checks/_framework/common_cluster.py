"""Real runs shared by the claims of several sources (Tandon et al. 2017, ErasureHead).

Local worker processes, sleep-dominated injected delays, n = 8. The runs
(:func:`gctheory.cluster.compare.sweep`, the numpy-only ``quadratic``
workload: the injected sleeping dominates, the model is beside the point) are
made once per mode (:func:`cluster_runs`) and shared by the claims of
``paper_checks/tandon2017/cluster_runs.py`` and
``paper_checks/wang2019erasurehead/runs.py``, which judge the computed
numbers. On a machine where worker processes cannot start, the runs are not
made and every such claim is ``not checkable`` with that cause. The peers'
printed numbers about their own EC2 clusters are registered by
:func:`ec2_claim` as ``not checkable`` claims of their own.
"""

from __future__ import annotations

import functools
from typing import Any

from paper_checks._framework.common_codes import unretrieved_examples, unretrieved_judge
from paper_checks._framework.registry import Outcome, claim

__all__ = [
    "N",
    "LAW",
    "STRAGGLERS",
    "LEVEL",
    "APART",
    "SPARE",
    "cluster_runs",
    "brief",
    "unavailable",
    "EX_RUN",
    "faster_judge",
    "example",
    "pick",
    "ec2_claim",
]

N = 8
# Load margin. The verdicts must not move with the machine's load. The master's own
# overhead is measured in each run and added to the prediction; what load adds beyond it
# (late wake-ups of sleeping workers, a busy master) is an absolute shift of a few ms. At
# twice the earlier law (5 ms + 10 ms per partition) and 100 full-mode iterations (was 200),
# that shift is under a tenth of a run's interval half-width. Measured on 2 cores at load
# 6-8 (eight other jobs), quick mode: the same seeds at 1x and 4x the law gave p-values
# within 0.01 of each other (0.026/0.023, 0.55/0.51, 0.027/0.037, 0.56/0.48, 0.21/0.19),
# so the load's effect was below the sampling error; every run agreed.
LAW = "shifted_exp(0.01, 0.02)"  # seconds per partition: sleep-dominated (see the note above)
STRAGGLERS: dict[str, Any] = {"delay": "shifted_exp(0.02, 0.004)", "n_slow": 2, "slowdown": 8.0}
LEVEL = 0.999  # agreement test per run (several runs: a wide level per run)
APART = 0.95  # intervals of the qualitative comparisons
#: runs allowed outside their interval: with 80-200 iterations the mean of the skewed
#: iteration times has heavier tails than the normal interval assumes (over 200 seeds of
#: the injected draws alone, 1-1.5% fell beyond the 0.999 interval, not 0.1%)
SPARE = 1


@functools.lru_cache(maxsize=2)
def cluster_runs(quick: bool) -> dict[str, Any]:
    """All real runs of these claims (once per mode); ``{"ok": False, "why": ...}`` if none."""
    from gctheory.cluster.compare import sweep
    from gctheory.cluster.processes import can_start_processes

    ok, why = can_start_processes()
    if not ok:
        return {"ok": False, "why": why}
    T = 25 if quick else 100
    law_cases = [
        {"scheme": "gd"},
        {"scheme": "cyclic_mds", "s": 2},
        {"scheme": "frc", "s": 1},
        {"scheme": "dfrc", "K": 4, "code_options": {"d": 2}},
        {"scheme": "cyclic_mds", "s": 1},
    ]
    law = [sweep([case], n=N, delay=LAW, iterations=T, rng=7 + i, level=LEVEL)[0]
           for i, case in enumerate(law_cases)]  # fmt: skip
    strag = sweep(
        [{"scheme": "gd"}, {"scheme": "cyclic_mds", "s": 2}],
        n=N,
        iterations=T,
        rng=8,
        level=APART,
        **STRAGGLERS,
    )
    return {"ok": True, "iterations": T, "law": law, "stragglers": strag}


_MS = ("measured", "measured_low", "measured_high", "predicted", "predicted_low", "predicted_high")


def brief(row: dict) -> dict:
    ms = {k: round(1e3 * row[k], 3) for k in _MS}
    return {
        "scheme": row["scheme"],
        "s": row["s"],
        **ms,
        "p": round(row["p_value"], 4),
        "agrees": bool(row["agrees"]),
        "method": row["method"],
    }


def unavailable(c: dict, comparison: str) -> Outcome:
    return Outcome("not checkable", c, comparison, cause=f"no real run here: {c['why']}")


EX_RUN = {
    "scheme": "gd",
    "s": 0,
    "measured": 31.0,
    "measured_low": 29.0,
    "measured_high": 33.0,
    "predicted": 31.5,
    "predicted_low": 31.2,
    "predicted_high": 31.8,
    "p": 0.6,
    "agrees": True,
    "method": "exact",
}


def faster_judge(fast: str, slow: str, what: str):
    def judge(c: dict) -> Outcome:
        cmp = (
            f"measured mean iteration time of {fast} against {slow}, {APART:.0%} intervals ({what})"
        )
        if not c["ok"]:
            return unavailable(c, cmp)
        apart = c["fast"]["measured_high"] < c["slow"]["measured_low"]
        key = {"faster with intervals apart": apart}
        if apart:
            return Outcome("reproduced", c, cmp, key=key)
        return Outcome(
            "differs",
            c,
            cmp,
            key=key,
            cause=f"{fast} {c['fast']['measured']} ms is not below {slow} "
            f"{c['slow']['measured']} ms with the intervals apart",
        )

    return judge


def example(fast_ms: float, slow_ms: float) -> dict:
    f = {**EX_RUN, "measured": fast_ms, "measured_low": fast_ms - 2, "measured_high": fast_ms + 2}
    s = {**EX_RUN, "measured": slow_ms, "measured_low": slow_ms - 2, "measured_high": slow_ms + 2}
    return {"ok": True, "fast": f, "slow": s}


def pick(rows: list[dict], scheme: str, s: int) -> dict:
    return brief(next(r for r in rows if r["scheme"] == scheme and r["s"] == s))


def ec2_claim(paper: str, id: str, where: str, statement: str, numbers: dict) -> None:
    cause = (
        "a statement about the authors' own EC2 experiments (their instances, network and "
        "injected delays); no run on this machine reproduces their hardware, so it is judged "
        "only qualitatively, by the separate measured-time claims of the same source"
    )

    def compute(quick: bool) -> dict:
        return {**numbers, "retrieved": False}

    compute.__qualname__ = f"ec2_claim[{paper}:{id}]"
    claim(
        paper=paper,
        id=id,
        where=where,
        statement=statement,
        paper_value="their EC2 measurements",
        judge=unretrieved_judge(
            "their measured speedups against a run on their hardware", lambda c: cause
        ),
        examples=unretrieved_examples(numbers),
    )(compute)
