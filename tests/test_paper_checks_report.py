"""The report counts findings (root causes) as well as claims (issue 26)."""

from __future__ import annotations

import paper_checks
from paper_checks import Outcome
from paper_checks._framework.findings import GROUPS, finding_of
from paper_checks._framework.registry import Claim, ClaimResult
from paper_checks._framework.report import findings, render_markdown


def _result(paper: str, id: str, verdict: str) -> ClaimResult:
    c = Claim(paper, id, "somewhere", "a statement", 0, lambda q: None)
    cause = "" if verdict == "reproduced" else f"cause of {id}"
    return ClaimResult(c, Outcome(verdict, 1, "cmp", cause), 0.0)


def test_every_grouped_claim_exists():
    keys = {c.key for c in paper_checks.all_claims()}
    for fid, (_, members) in GROUPS.items():
        assert set(members) <= keys, (fid, set(members) - keys)


def test_one_root_cause_counts_once_and_checks_of_gctheory_never():
    results = [
        _result("kadhe2019", "remark3-stragglers-per-group", "differs"),
        _result("kadhe2019", "remark3-scaling-law-n10000", "differs"),
        _result("kadhe2019", "footnote1-lemma1-domain", "differs"),
        _result("kadhe2019", "analogue-V-fig3-commfr-curve-leftmost", "differs"),
        _result("kadhe2019", "internal-remark2-sublinear-m-complexity", "reproduced"),
        _result("kadhe2019", "table1-common-C", "reproduced"),
    ]
    found = findings(results)
    assert set(found) == {"kadhe2019:remark3-4249", "kadhe2019:footnote1-lemma1-domain"}
    assert len(found["kadhe2019:remark3-4249"]) == 2
    md = render_markdown(results, quick=True)
    assert "Findings (distinct root causes" in md and "): 2, from 3 differing claims" in md
    assert "The papers' own claims (4): differs: 3, reproduced: 1" in md
    # the overview row: 4 own claims, 2 internal/analogue, 2 findings
    row = next(line for line in md.splitlines() if line.startswith("| kadhe2019 |"))
    assert row.rstrip(" |").endswith("| 2 | 2")
    assert finding_of("kadhe2019:table1-common-C", "reproduced") is None
