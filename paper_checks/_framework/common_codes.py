"""Shared judges for the code-construction claims of other sources (issue 16)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from paper_checks._framework.registry import Outcome, claim


def bound_judge(what: str, tol: float = 1e-9) -> Callable[[dict], Outcome]:
    """Judge of a bound verified over instances: ``max ratio`` (measured / bound) <= 1 + tol.

    ``numbers``: ``instances`` (int), ``max ratio`` (float), ``slack`` (smallest
    relative slack ``1 - measured / bound``) and ``counterexample`` (text,
    empty when none).
    """

    def judge(c: dict) -> Outcome:
        ok = c["max ratio"] <= 1 + tol and not c["counterexample"]
        cmp = f"{what}: largest measured/bound over {c['instances']} instances <= 1 + {tol:g}"
        key: dict[str, Any] = {
            "instances": (c["instances"], 0),
            "max ratio": (c["max ratio"], 1e-3, 1e-9),
        }
        if ok:
            return Outcome(
                "reproduced", c, cmp, key=key, instances=c["instances"], slack=c["slack"]
            )
        return Outcome(
            "differs",
            c,
            cmp,
            cause=f"the bound fails: measured/bound = {c['max ratio']:.6g} at "
            f"{c['counterexample'] or 'an instance'}",
            key=key,
            instances=c["instances"],
            slack=c["slack"],
            counterexample=c["counterexample"],
        )

    return judge


def bound_examples() -> list[tuple[dict, str]]:
    """Counterfactual numbers for :func:`bound_judge`: within, and broken."""
    return [
        ({"instances": 10, "max ratio": 0.8, "slack": 0.2, "counterexample": ""}, "reproduced"),
        (
            {"instances": 10, "max ratio": 1.3, "slack": -0.3, "counterexample": "set (0, 1)"},
            "differs",
        ),
    ]


def unretrieved_judge(comparison: str, cause: Callable[[dict], str]) -> Callable[[dict], Outcome]:
    """Judge of a statement the stored sources do not print in checkable form.

    ``not checkable`` while ``numbers["retrieved"]`` is False (the cause text
    is ``cause(numbers)``, formatted from the computed values); once a source
    gives it, ``numbers["holds"]`` decides (``differs`` with ``numbers["why"]``).
    """

    def judge(c: dict) -> Outcome:
        if not c["retrieved"]:
            return Outcome("not checkable", c, comparison, cause=cause(c))
        if c["holds"]:
            return Outcome("reproduced", c, comparison)
        return Outcome("differs", c, comparison, cause=c["why"])

    return judge


def unretrieved_examples(numbers: dict) -> list[tuple[dict, str]]:
    """Counterfactuals for :func:`unretrieved_judge` around the computed ``numbers``."""
    return [
        ({**numbers, "retrieved": False}, "not checkable"),
        ({**numbers, "retrieved": True, "holds": True}, "reproduced"),
        ({**numbers, "retrieved": True, "holds": False, "why": "fails"}, "differs"),
    ]


def unretrieved_claim(
    *,
    paper: str,
    id: str,
    where: str,
    statement: str,
    stored_text: str,
    internal: tuple[str, ...],
) -> None:
    """Register the ``not checkable`` claim of a printed statement the stored sources lack.

    ``stored_text`` says what the stored copies hold; ``internal`` names the
    ``internal-`` claims that check gctheory's own derivation in its place
    (they are not the paper's claims, and the cause says so).
    """
    names = ", ".join(f"'{i}'" for i in internal)

    def compute(quick: bool) -> dict:
        # nothing to compare with: the printed statement could not be read
        return {"retrieved": False, "stored text": stored_text, "internal checks": names}

    compute.__qualname__ = f"unretrieved_claim[{paper}:{id}]"  # one name per claim
    claim(
        paper=paper,
        id=id,
        where=where,
        statement=statement,
        paper_value=f"not retrievable (stored copies: {stored_text})",
        judge=unretrieved_judge(
            f"the printed statement ({where}) against gctheory's computation",
            lambda c: (
                f"the printed statement is not in the stored sources ({c['stored text']}); "
                f"gctheory's own derivation is checked separately by {c['internal checks']} "
                "(not the paper's claims)"
            ),
        ),
        examples=unretrieved_examples({"stored text": "abstract", "internal checks": "'x'"}),
    )(compute)


class DecoderBoundTally:
    """Largest ``max(fixed, optimal) / bound`` over instances, for :func:`bound_judge`.

    A fixed (linear-time) decoder and the optimal one are measured against one
    bound; an instance is a counterexample when the ratio exceeds 1 or the
    optimal decoder errs more than the fixed one (it cannot, by optimality).
    """

    def __init__(self) -> None:
        self.instances, self.worst, self.slack, self.cex = 0, 0.0, math.inf, ""

    def add(self, fixed: float, optimal: float, bound: float, where: str) -> None:
        r = max(fixed, optimal) / bound
        self.instances += 1
        self.slack = min(self.slack, 1 - r)
        if r > self.worst:
            self.worst = r
            if r > 1 + 1e-9 or optimal > fixed + 1e-9:
                self.cex = where

    def numbers(self) -> dict:
        return {
            "instances": self.instances,
            "max ratio": self.worst,
            "slack": self.slack,
            "counterexample": self.cex,
        }
