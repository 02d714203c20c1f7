"""Checks of gctheory's partial-straggler schemes (Tandon et al., ICML 2017, Sec. 5).

The stored sources hold neither the paper's text nor its Sec. 5 (the pages
corpus returns other papers on partial stragglers), so the printed statements
are ``not checkable``. What is checked is gctheory's own derivation
(``internal-`` claims), from the scheme as the authors' public code runs it
(``rashisht1/gradient_coding``, ``src/partial_coded.py``,
``src/partial_replication.py``; :mod:`gctheory.codes.partial`): two messages
per worker (its uncoded pieces' sum, then a coded part), exact decoding from
every first message and ``n - s`` second messages (cyclic) or one per group
(replication); the slow-down a partial straggler may have, ``p / (p - s - 1)``
(the factor the authors' code prints); and the exact recovery values against
enumeration.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats

from gctheory.codes.partial import PartialCyclicScheme, PartialPlacement, PartialReplicationScheme
from paper_checks import Outcome, claim, register_source
from paper_checks._framework.common_codes import unretrieved_claim

PAPER = "tandon2017"
register_source(
    PAPER,
    "Tandon, Lei, Dimakis, Karampatziakis, 'Gradient coding: avoiding stragglers in distributed "
    "learning', ICML 2017",
)

INTERNAL = (
    "internal-partial-decode-exhaustive",
    "internal-partial-slowdown-tolerance",
    "internal-partial-recovery-exact",
)

unretrieved_claim(
    paper=PAPER,
    id="partial-stragglers-section5",
    where="Section 5 (partial stragglers)",
    statement="the partial coded and partial replication schemes tolerate s full stragglers "
    "and partial stragglers that finish their uncoded part",
    stored_text="no copy of the paper in the stored sources; only the authors' code",
    internal=INTERNAL,
)

_CASES = [
    (PartialCyclicScheme, 5, 2, 4),
    (PartialCyclicScheme, 4, 1, 3),
    (PartialReplicationScheme, 6, 2, 5),
    (PartialReplicationScheme, 4, 1, 3),
]


def _judge_decode(c: dict) -> Outcome:
    text = (
        f"{c['straggler sets']} straggler sets over {c['schemes']} schemes: {c['wrong']} wrong "
        f"decodes; {c['controls caught']}/{c['controls']} too-many-straggler sets refused exactness"
    )
    if c["wrong"] == 0 and c["controls caught"] == c["controls"] > 0:
        return Outcome("reproduced", c, text, key={"straggler sets": (c["straggler sets"], 0)})
    return Outcome("differs", c, text, cause="a decode was wrong or a set beyond the tolerance "
                   "was reported exact")  # fmt: skip


@claim(
    paper=PAPER,
    id="internal-partial-decode-exhaustive",
    where="Sec. 5 schemes as in gctheory.codes.partial (the authors' code's two messages)",
    statement="with every worker's uncoded sum, the partial cyclic scheme decodes the full "
    "gradient from any n - s coded messages and partial replication from one per group; what "
    "fewer messages give is exactly the sum of the partitions reported",
    paper_value="exact recovery as designed",
    judge=_judge_decode,
    examples=[
        (
            {"schemes": 4, "straggler sets": 96, "wrong": 0, "controls": 40, "controls caught": 40},
            "reproduced",
        ),
        (
            {"schemes": 4, "straggler sets": 96, "wrong": 1, "controls": 40, "controls caught": 40},
            "differs",
        ),
        (
            {"schemes": 4, "straggler sets": 96, "wrong": 0, "controls": 40, "controls caught": 39},
            "differs",
        ),
    ],  # fmt: skip
)
def _decode(quick: bool) -> dict:
    sets = wrong = controls = caught = 0
    for cls, n, s, p in _CASES[:2] if quick else _CASES:
        sch = cls(n, s, p)
        P = np.random.default_rng(0).standard_normal((sch.k, 3))
        first, second = sch.encode(P)
        for size in range(n + 1):
            for S in itertools.combinations(range(n), size):
                alive = [i for i in range(n) if i not in S]
                r = sch.decode(range(n), alive, first, second)
                if cls is PartialCyclicScheme:
                    should = size <= s
                else:
                    should = all(any(i // (s + 1) == g for i in alive) for g in range(n // (s + 1)))
                sets += 1
                target = P.sum(axis=0) if should else P[list(r.partitions)].sum(axis=0)
                wrong += r.exact != should or not np.allclose(r.gradient, target, atol=1e-8)
                if not should:
                    controls += 1
                    caught += not r.exact
    return {"schemes": 2 if quick else 4, "straggler sets": sets, "wrong": wrong,
            "controls": controls, "controls caught": caught}  # fmt: skip


def _judge_slowdown(c: dict) -> Outcome:
    text = (
        f"{c['patterns']} placements of s slowed workers: {c['late at the factor']} late at "
        f"p/(p-s-1), {c['on time above it']} on time at 1.01 x that factor"
    )
    if c["late at the factor"] == 0 and c["on time above it"] == 0 and c["patterns"] > 0:
        return Outcome("reproduced", c, text, key={"patterns": (c["patterns"], 0)})
    return Outcome("differs", c, text, cause="the tolerated slow-down is not p / (p - s - 1)")


@claim(
    paper=PAPER,
    id="internal-partial-slowdown-tolerance",
    where="Sec. 5; the factor p / (p - s - 1) the authors' partial_coded.py prints",
    statement="with n - s workers at normal speed, any s workers up to p / (p - s - 1) times "
    "slower still let the master decode exactly when the others finish (and not when slower)",
    paper_value="p / (p - s - 1)",
    judge=_judge_slowdown,
    examples=[
        ({"patterns": 30, "late at the factor": 0, "on time above it": 0}, "reproduced"),
        ({"patterns": 30, "late at the factor": 2, "on time above it": 0}, "differs"),
        ({"patterns": 30, "late at the factor": 0, "on time above it": 3}, "differs"),
    ],  # fmt: skip
)
def _slowdown(quick: bool) -> dict:
    pats = late = early = 0
    for cls, n, s, p in _CASES:
        sch = cls(n, s, p)
        if sch.u == 0:
            continue
        normal = sch.p / sch.k
        for S in itertools.combinations(range(n), s):
            X = np.ones(n)
            X[list(S)] = sch.slowdown_tolerated
            pats += 1
            late += not np.isclose(sch.recovery_time(X), normal, rtol=1e-12)
            X[list(S)] = sch.slowdown_tolerated * 1.01
            early += bool(sch.recovery_time(X) <= normal * (1 + 1e-12))
    return {"patterns": pats, "late at the factor": late, "on time above it": early}


def _enumerate(sch, tau: float, dist) -> tuple[float, float]:
    pmf = []
    for i in range(sch.n):
        L = int(sch.lengths[i])
        ge = [1.0] + [float(dist.cdf(tau * sch.k / a)) for a in range(1, L + 1)] + [0.0]
        pmf.append([ge[a] - ge[a + 1] for a in range(L + 1)])
    ef = pe = 0.0
    for ms in itertools.product(*[range(len(q)) for q in pmf]):
        pr = float(np.prod([pmf[i][m] for i, m in enumerate(ms)]))
        if pr:
            r = int(sch.recovered(np.array(ms)))
            ef += pr * r / sch.k
            pe += pr * (r == sch.k)
    return ef, pe


def _judge_exact(c: dict) -> Outcome:
    text = f"{c['instances']} (scheme, deadline) instances, largest |exact - enumeration|"
    if c["max abs difference"] <= 1e-10:
        return Outcome("reproduced", c, text, key={"instances": (c["instances"], 0)})
    return Outcome("differs", c, text, cause=f"the closed forms differ from enumeration by "
                   f"{c['max abs difference']:.3g}")  # fmt: skip


@claim(
    paper=PAPER,
    id="internal-partial-recovery-exact",
    where="gctheory.codes.partial: expected fraction and P(exact recovery) by a deadline",
    statement="the closed forms (linearity over partitions; a transfer matrix around the cycle "
    "for cyclic and staggered fractional repetition; binomial forms for the two-message schemes) "
    "equal enumeration over every progress vector",
    paper_value="equality",
    judge=_judge_exact,
    examples=[
        ({"instances": 12, "max abs difference": 1e-15}, "reproduced"),
        ({"instances": 12, "max abs difference": 0.02}, "differs"),
    ],  # fmt: skip
)
def _exact(quick: bool) -> dict:
    dist = stats.expon(loc=1.0, scale=0.7)
    schemes = [PartialPlacement.cyclic(5, 2), PartialPlacement.frc(6, 2),
               PartialCyclicScheme(4, 1, 3), PartialReplicationScheme(4, 1, 4)]  # fmt: skip
    taus = (0.4, 1.0) if quick else (0.2, 0.4, 0.7, 1.0, 1.7)
    inst, worst = 0, 0.0
    for sch in schemes:
        for tau in taus:
            ef, pe = _enumerate(sch, tau, dist)
            worst = max(worst, abs(ef - sch.expected_fraction(tau, dist)),
                        abs(pe - sch.exact_probability(tau, dist)))  # fmt: skip
            inst += 1
    return {"instances": inst, "max abs difference": worst}
