"""Checks of gctheory's SR-SGC and M-SGC (Krishnan, Ebrahimi, Khisti, ICLR 2023).

The stored copies of the paper (pages corpus: arxiv.org/html/2211.13802v2,
ar5iv, an ICLR text dump) return the title, abstract and start of the
introduction only, so the paper's theorems could not be read as printed; the
load and delay formulas checked here are those the issue quotes. Both claims
are ``internal-``: they check gctheory's constructions (every admissible
(B, W, lambda) pattern decodes by its deadline; the counted load equals the
formula), not a printed statement.
"""

from __future__ import annotations

from gctheory.codes.sequential import (
    MSGC,
    SRSGC,
    find_failure,
    m_sgc_load,
    sr_sgc_load,
    verify_sequential,
)
from paper_checks import claim, register_source
from paper_checks._framework.registry import Outcome

PAPER = "krishnan2023"
register_source(
    PAPER,
    "Krishnan, Ebrahimi, Khisti, 'Sequential gradient coding for straggler mitigation', ICLR 2023",
)

_GRID = [(3, 1, 2, 2), (3, 2, 3, 2), (4, 1, 2, 2), (4, 1, 3, 3), (3, 1, 3, 3)]


def _judge_exhaustive(c: dict) -> Outcome:
    ok = c["failures"] == 0 and c["negative controls that fail"] == c["negative controls"]
    text = (
        f"{c['patterns']} admissible patterns over {c['configurations']} (scheme, n, B, W, "
        f"lambda) configurations, {c['failures']} missed deadlines; "
        f"{c['negative controls that fail']}/{c['negative controls']} out-of-model patterns fail"
    )
    if ok:
        return Outcome("reproduced", c, comparison=text, key={"patterns": (c["patterns"], 0)})
    return Outcome("differs", c, comparison=text, cause="a deadline was missed inside the model "
                   "or no out-of-model pattern breaks the scheme")  # fmt: skip


@claim(
    paper=PAPER,
    id="internal-sgc-exhaustive-decoding",
    where="Sections 3.1-3.2 (SR-SGC, M-SGC) as implemented in gctheory.codes.sequential",
    statement="SR-SGC (delay B) and M-SGC (delay W - 2 + B) decode every job by its deadline "
    "under every (B, W, lambda)-admissible straggler pattern; some pattern outside the model "
    "breaks each (negative control)",
    paper_value="every admissible pattern decodes",
    judge=_judge_exhaustive,
    examples=[
        (
            {
                "configurations": 10,
                "patterns": 100,
                "failures": 0,
                "negative controls": 2,
                "negative controls that fail": 2,
            },
            "reproduced",
        ),
        (
            {
                "configurations": 10,
                "patterns": 100,
                "failures": 1,
                "negative controls": 2,
                "negative controls that fail": 2,
            },
            "differs",
        ),
        (
            {
                "configurations": 10,
                "patterns": 100,
                "failures": 0,
                "negative controls": 2,
                "negative controls that fail": 1,
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _exhaustive(quick: bool) -> dict:
    grid = _GRID[:3] if quick else _GRID
    pats = fails = 0
    for p in grid:
        for cls in (SRSGC, MSGC):
            r = verify_sequential(cls(*p), jobs=3)
            pats += r.patterns
            fails += r.failures
    neg = [SRSGC(3, 1, 2, 2), MSGC(3, 1, 2, 2)]
    neg_fail = sum(find_failure(c, 3) is not None for c in neg)
    return {"configurations": 2 * len(grid), "patterns": pats, "failures": fails,
            "negative controls": len(neg), "negative controls that fail": neg_fail}  # fmt: skip


def _judge_loads(c: dict) -> Outcome:
    text = f"{c['instances']} (scheme, n, B, W, lambda), exact fractions"
    if c["mismatches"] == 0:
        return Outcome("reproduced", c, comparison=text, key={"instances": (c["instances"], 0)})
    return Outcome("differs", c, comparison=text, cause="the counted load differs from the formula")


@claim(
    paper=PAPER,
    id="internal-sgc-load-formulas",
    where="SR-SGC and M-SGC loads as quoted in issue 24",
    statement="SR-SGC load (s + 1)/n with s = ceil(B lambda/(W - 1 + B)); M-SGC load "
    "(lambda + 1)(W - 1 + B)/(n (B + (W - 1)(lambda + 1))): equal to the data a worker "
    "touches in a round of the construction",
    paper_value="the two formulas",
    judge=_judge_loads,
    examples=[
        ({"instances": 50, "mismatches": 0}, "reproduced"),
        ({"instances": 50, "mismatches": 2}, "differs"),
    ],  # fmt: skip
)
def _loads(quick: bool) -> dict:
    inst = bad = 0
    for n in (3, 4, 6, 8) if not quick else (4, 8):
        for W in range(2, 7):
            for B in range(1, W):
                for lam in range(1, n):
                    m = MSGC(n, B, W, lam)
                    inst += 1
                    bad += m.construction_load() != m_sgc_load(n, B, W, lam)
                    if (W - 1) % B == 0:
                        s = SRSGC(n, B, W, lam)
                        inst += 1
                        bad += s.construction_load() != sr_sgc_load(n, B, W, lam)
    return {"instances": inst, "mismatches": bad}
