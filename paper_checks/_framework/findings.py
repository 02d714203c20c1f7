"""Findings: the root causes behind the ``differs`` verdicts .

One printed number must not count as two findings: the transposed 4294 is judged by two
claims, Table I's constant by eight. Every claim stays in the report; the summary counts
*findings*, the distinct things in a paper that do not hold. A ``differs`` claim belongs to
the finding :data:`GROUPS` names for it, else it is a finding of its own. Claims that check
gctheory (``internal-``) or its simulated analogue (``analogue-``) are never findings of
the paper.

The grouping is editorial, like a claim's ``where``: it says which verdicts share one
cause, read from their causes; ``tests/test_judges.py`` holds it in step with the registry.
"""

from __future__ import annotations

from paper_checks._framework.experiments import is_not_the_paper

__all__ = ["GROUPS", "finding_of"]

# finding id -> (what does not hold, the claims whose 'differs' it explains)
GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "kadhe2019:table1-constant": (
        "Table I's entries need C in about (6.85, 7.18] with eq. (7)'s factor 1/sqrt(2 pi), "
        "not the stated C = 6.414",
        (
            "kadhe2019:table1-common-C",
            "kadhe2019:table1-n1000-s190-m10",
            "kadhe2019:table1-n1000-s190-m210",
            "kadhe2019:table1-n1000-s40-m210",
            "kadhe2019:table1-n1000-s90-m10",
            "kadhe2019:table1-n1000-s90-m210",
            "kadhe2019:table1-n60-s8-m12",
            "kadhe2019:table1-n60-s8-m2",
        ),
    ),
    "kadhe2019:table1-row-60-13-12": (
        "Table I's row (60, 13, 12) is out of the table's pattern: its printed thresholds fit no "
        "C common to the other rows",
        ("kadhe2019:table1-n60-s13-m12",),
    ),
    "kadhe2019:remark3-4249": (
        "Remark 3's 4249 stragglers per group: the threshold gives 4294 (transposed digits), "
        "and neither count is 'w.h.p.' at n = 10,000",
        ("kadhe2019:remark3-stragglers-per-group", "kadhe2019:remark3-scaling-law-n10000"),
    ),
    "wang2019:thm6-condition53": (
        "Theorem 6's condition (53) is not implied by its choice of b, and where it fails the "
        "recovery error does not vanish",
        ("wang2019:thm6-condition53-region", "wang2019:thm6-recovery-monte-carlo"),
    ),
}

_OF = {key: fid for fid, (_, keys) in GROUPS.items() for key in keys}


def finding_of(claim_key: str, verdict: str) -> str | None:
    """The finding a claim's verdict counts toward: None unless a paper claim differs."""
    if verdict != "differs" or is_not_the_paper(claim_key.split(":", 1)[1]):
        return None
    return _OF.get(claim_key, claim_key)
