"""One policy for claims about a paper's own experiment (issue 26).

A paper's experiment (EC2, CIFAR-10 with a VGG network, MNIST on a MATLAB cluster, ...)
depends on data, networks and constants the paper does not give. A claim about that
experiment is judged only in the paper's own setting: while anything the verdict depends
on is missing, it is ``not checkable`` (the cause lists what is missing). What gctheory's
simulated analogue shows is a *separate* claim, with an id starting ``analogue-`` and its
own verdict; like an ``internal-`` claim it is a check of gctheory, not the paper
reproduced, and the report counts both apart from the paper's claims.

The judge flips when the missing things are supplied (``lacks`` empty and a result in the
paper's setting given): ``tests/test_judges.py`` feeds it that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paper_checks._framework.registry import Outcome, claim

INTERNAL_PREFIX = "internal-"
ANALOGUE_PREFIX = "analogue-"

__all__ = [
    "ANALOGUE_PREFIX",
    "INTERNAL_PREFIX",
    "is_not_the_paper",
    "judge_paper_experiment",
    "paper_experiment",
]


def is_not_the_paper(claim_id: str) -> bool:
    """Whether a claim checks gctheory (``internal-``) or its analogue (``analogue-``)."""
    return claim_id.startswith((INTERNAL_PREFIX, ANALOGUE_PREFIX))


def judge_paper_experiment(c: dict) -> Outcome:
    """``not checkable`` while the paper's setting lacks anything; else the given result."""
    lacks = list(c["not given by the paper"])
    result = c.get("result in the paper's setting")
    if lacks or result is None:
        return Outcome(
            "not checkable",
            c,
            f"the paper's own experiment: {c['experiment']}",
            "the verdict depends on what the paper does not give ("
            + "; ".join(lacks or ["a result in the paper's setting"])
            + f"); what gctheory's simulation shows is the separate claim "
            f"{c['analogue claim']}, with its own verdict",
            key={"missing items": (len(lacks), 0)},
        )
    holds = bool(result["holds"])
    return Outcome(
        "reproduced" if holds else "differs",
        c,
        f"the paper's own experiment: {c['experiment']}; {result.get('comparison', '')}",
        "" if holds else result.get("cause", "the statement fails in the paper's setting"),
    )


def paper_experiment(
    *,
    paper: str,
    id: str,
    where: str,
    statement: str,
    paper_value: Any,
    experiment: str,
    lacks: Sequence[str],
    analogue: str,
) -> None:
    """Register the paper's claim about its own experiment (see the module docstring).

    ``experiment`` describes the paper's setting, ``lacks`` what of it the paper does not
    give (constants, data, network), ``analogue`` the id of gctheory's analogue claim.
    """
    computed = {
        "experiment": experiment,
        "not given by the paper": tuple(lacks),
        "analogue claim": f"{paper}:{analogue}",
        "result in the paper's setting": None,
    }
    supplied = {**computed, "not given by the paper": ()}

    def compute(quick: bool) -> dict:
        return dict(computed)

    compute.__qualname__ = f"paper_experiment.{paper}.{id}"
    claim(
        paper=paper,
        id=id,
        where=where,
        statement=statement,
        paper_value=paper_value,
        judge=judge_paper_experiment,
        examples=[
            (computed, "not checkable"),
            ({**supplied, "result in the paper's setting": {"holds": True}}, "reproduced"),
            ({**supplied, "result in the paper's setting": {"holds": False}}, "differs"),
        ],
    )(compute)
