"""Tandon et al. 2017's master does not preempt: judged on real runs of gctheory.cluster.

Their public master (mpi4py) cannot cancel a worker's running computation, so
a straggler finishes its old task before it takes the newest parameters, and
its lateness carries into the next iteration. gctheory's master preempts by
default. With ``preempt=False`` it behaves like theirs.

* ``tandon2017:internal-carryover-measured-vs-predicted``: a real run of
  cyclic-MDS (n = 8, s = 3) without preemption agrees with the carried-over
  queue's prediction (:mod:`gctheory.runtime.carryover`, through
  :func:`gctheory.cluster.compare`). The same run is rejected by the
  fresh-start prediction (the order statistic every formula of the papers
  uses). The queue is the cause of the slowdown, not noise: both halves are
  needed for ``reproduced``.
"""

from __future__ import annotations

import functools
from typing import Any

from paper_checks._framework.common_cluster import LAW, LEVEL, N, unavailable
from paper_checks._framework.registry import Outcome, claim
from paper_checks.tandon2017.cluster_runs import TANDON  # registered there

CASE = {"scheme": "cyclic_mds", "s": 3, "preempt": False}


@functools.lru_cache(maxsize=2)
def _runs(quick: bool) -> dict[str, Any]:
    """One real run without preemption, predicted by both models."""
    from gctheory.cluster import compare, run
    from gctheory.cluster.processes import can_start_processes

    ok, why = can_start_processes()
    if not ok:
        return {"ok": False, "why": why}
    T = 60 if quick else 150
    r = run(n=N, delay=LAW, iterations=T, rng=11, eval_every=0, progress=False, **CASE)
    out: dict[str, Any] = {"ok": True, "iterations": T}
    for name, preempt in (("carried", False), ("fresh", True)):
        c = compare(r, level=LEVEL, preempt=preempt)
        out[name] = {
            "measured_ms": round(1e3 * c.measured, 3),
            "predicted_ms": round(1e3 * c.predicted, 3),
            "predicted_low_ms": round(1e3 * c.predicted_low, 3),
            "predicted_high_ms": round(1e3 * c.predicted_high, 3),
            "p": c.p_value,
            "agrees": bool(c.agrees),
            "method": c.method,
        }
    return out


def _judge(c: dict) -> Outcome:
    cmp = (
        f"the measured mean iteration time of a run without preemption against the "
        f"carried-over queue's prediction and against the fresh-start one, z-tests at level "
        f"{LEVEL} (batch-means standard error: the iteration times are correlated)"
    )
    if not c["ok"]:
        return unavailable(c, cmp)
    carried, fresh = c["carried"]["agrees"], c["fresh"]["agrees"]
    key = {"queue agrees": carried, "fresh start agrees": fresh}
    if carried and not fresh:
        return Outcome("reproduced", c, cmp, key=key)
    why = []
    if not carried:
        why.append(f"the queue's prediction is rejected (p = {c['carried']['p']:.2g})")
    if fresh:
        why.append("the fresh-start prediction is not rejected: the run cannot tell them apart")
    return Outcome("differs", c, cmp, key=key, cause="; ".join(why))


def _example(carried: bool, fresh: bool) -> dict:
    row = {"measured_ms": 142.0, "predicted_ms": 144.0, "predicted_low_ms": 143.0,
           "predicted_high_ms": 145.0, "p": 0.5, "method": "monte carlo"}  # fmt: skip
    return {"ok": True, "carried": {**row, "agrees": carried}, "fresh": {**row, "agrees": fresh}}


@claim(
    paper=TANDON,
    id="internal-carryover-measured-vs-predicted",
    where="internal consistency check (a master without preemption, as in the authors' "
    "mpi4py implementation of Section 7), not a printed statement of the paper",
    statement=f"on n = {N} real worker processes with injected shifted-exponential waits "
    f"({LAW} per partition), a cyclic-MDS run (s = 3) whose stragglers finish their old task "
    "has the mean iteration time of the carried-over queue plus the measured overheads, and "
    "not the fresh-start order statistic's",
    paper_value="none (gctheory's prediction held against gctheory's measurement)",
    judge=_judge,
    examples=[
        (_example(True, False), "reproduced"),
        (_example(False, False), "differs"),
        (_example(True, True), "differs"),
        ({"ok": False, "why": "cannot start a worker process"}, "not checkable"),
    ],
)
def _carryover(quick: bool) -> dict:
    return _runs(quick)
