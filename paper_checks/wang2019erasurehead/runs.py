"""ErasureHead (Wang, Charles, Papailiopoulos 2019) judged on real runs of :mod:`gctheory.cluster`.

The runs are Tandon et al.'s (:mod:`paper_checks._framework.common_cluster`,
n = 8 local processes); the claim computes first, then judges:

* ``wang2019erasurehead:approx-frc-beats-exact-gc``: at the same load 2,
  approximate FRC (d-FRC, d = 2, decoding from the fastest 4 of 8) has a lower
  measured mean iteration time than exact gradient coding (cyclic-MDS, s = 1,
  waiting for 7 of 8), the intervals apart. Judged on iteration time only:
  ErasureHead's result is about time to accuracy, of which this is the time part.

ErasureHead's printed time-to-accuracy gains on their own EC2 clusters are
about machines and networks we do not have: registered as a ``not checkable``
claim of its own.
"""

from __future__ import annotations

from paper_checks._framework.common_cluster import (
    LAW,
    cluster_runs,
    ec2_claim,
    example,
    faster_judge,
    pick,
)
from paper_checks._framework.registry import claim, register_source

ERASUREHEAD = "wang2019erasurehead"
register_source(
    ERASUREHEAD,
    "Wang, Charles, Papailiopoulos, 'ErasureHead: distributed gradient descent without "
    "delays using approximate gradient coding', 2019",
)


@claim(
    paper=ERASUREHEAD,
    id="approx-frc-beats-exact-gc",
    where="Section 5 (experiments): ErasureHead (approximate FRC) against exact gradient coding",
    statement="approximate FRC, decoding from the fastest workers it has, finishes an "
    "iteration sooner than exact gradient coding at the same load, which waits for n - s; "
    "judged on our measured iteration times (the time part of their time-to-accuracy "
    "result): n = 8, load 2, d-FRC d = 2 from the fastest 4 against cyclic-MDS s = 1",
    paper_value="qualitative: approximate FRC faster than exact GC",
    judge=faster_judge("d-FRC (d = 2, K = 4)", "cyclic-MDS s = 1", f"{LAW} per partition"),
    examples=[
        (example(22.0, 44.0), "reproduced"),
        (example(44.0, 22.0), "differs"),
        ({"ok": False, "why": "no processes"}, "not checkable"),
    ],
)
def _approx_beats_exact(quick: bool) -> dict:
    c = cluster_runs(quick)
    if not c["ok"]:
        return c
    rows = c["law"]
    return {"ok": True, "fast": pick(rows, "dfrc", 4), "slow": pick(rows, "cyclic_mds", 1)}


# ------------------------------------------------------------------ their own clusters
ec2_claim(
    ERASUREHEAD,
    "ec2-time-to-accuracy",
    "Section 5 (Amazon EC2 experiments)",
    "the printed time-to-accuracy gains of ErasureHead over exact gradient coding and over "
    "uncoded distributed GD on their EC2 clusters with injected exponential delays",
    {"judged by": "wang2019erasurehead:approx-frc-beats-exact-gc"},
)
