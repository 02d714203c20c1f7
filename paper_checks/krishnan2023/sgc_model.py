"""Krishnan, Ebrahimi, Khisti: sequential gradient coding (ICLR 2023): the (B, W, lambda)
bursty straggler model, as their public code checks it.

Source read: ``mamaj/Sequential-Gradient-Coding-2``, ``2_find_runtimes/multiplexed_sgc.py``
(``MultiplexedSGC.follows_straggler_model``): in the past ``W`` rounds at most ``lambda``
distinct stragglers, and a worker straggling now did not straggle ``B`` to ``W - 1`` rounds
before. The check: :class:`gctheory.delays.markov.BurstyModel` implements that rule (its
verdicts on hand-made patterns agree with the rule as the code states it) and its sampler
produces only conforming patterns.
"""

from __future__ import annotations

import numpy as np

from gctheory.delays.markov import BurstyModel
from paper_checks import Outcome, claim

PAPER = "krishnan2023"  # registered by paper_checks/krishnan2023/sgc.py


def _judge(c: dict) -> Outcome:
    cmp = "rule verdicts on hand-made patterns, and conformity of sampled patterns (must be 1)"
    if c["rule mismatches"] == 0 and c["sampled conformity"] == 1.0:
        return Outcome("reproduced", c, cmp, key={"rule mismatches": (0, 0)})
    return Outcome(
        "differs", c, cmp,
        cause=f"{c['rule mismatches']} hand-made patterns judged against the rule; sampled "
        f"conformity {c['sampled conformity']}",
    )  # fmt: skip


@claim(
    paper=PAPER,
    id="bursty-model-rule",
    where="Section 2 (the (B, W, lambda)-bursty straggler model) and the authors' simulator",
    statement="a straggler pattern follows the (B, W, lambda) model when every window of W "
    "rounds has at most lambda distinct stragglers and each worker's straggling inside a "
    "window is a single burst of at most B rounds",
    paper_value="the rule as the authors' code checks it (no number)",
    judge=_judge,
    examples=[
        ({"rule mismatches": 0, "sampled conformity": 1.0}, "reproduced"),
        ({"rule mismatches": 2, "sampled conformity": 1.0}, "differs"),
    ],
)
def _rule(quick: bool) -> dict:
    m = BurstyModel(2, 4, 2)
    cases = []
    # (pattern, round, expected verdict)
    a = np.zeros((5, 4), int)
    a[0, 0] = a[1, 0] = 1  # one burst of length 2: fine
    cases.append((a, 1, True))
    b = np.zeros((5, 4), int)
    b[0, 0] = b[2, 0] = 1  # two bursts within W = 4: the second breaks it
    cases.append((b, 2, False))
    c = np.zeros((5, 4), int)
    c[0, 0], c[1, 1], c[2, 2] = 1, 1, 1  # three distinct stragglers within W: lambda = 2 broken
    cases.append((c, 2, False))
    d = np.zeros((6, 4), int)
    d[0, 0] = d[4, 0] = 1  # far enough apart (4 >= W): fine
    cases.append((d, 4, True))
    bad = sum(bool(m.follows(p)[t]) != want for p, t, want in cases)
    S = BurstyModel(3, 6, 5).sample(200 if quick else 1000, 30, 0.05, rng=2023)
    return {"rule mismatches": bad, "sampled conformity": BurstyModel(3, 6, 5).conformity(S)}
