"""Every claim's verdict is a function of computed numbers, and can be shown to flip.

Each claim split into compute and judge carries counterfactual computed values
(``examples``) with the verdict its judge must return; this runs them all. A
claim without a judge returns a verdict no test can flip.
"""

from __future__ import annotations

import pytest

import paper_checks
from paper_checks import Outcome
from paper_checks._framework.registry import claim

CLAIMS = paper_checks.all_claims()
JUDGED = [c for c in CLAIMS if c.judge is not None]


@pytest.mark.parametrize("c", JUDGED, ids=[c.key for c in JUDGED])
def test_judge_gives_each_example_its_verdict(c):
    for computed, verdict in c.examples:
        out = c.judge(computed)
        assert isinstance(out, Outcome), f"{c.key}: judge returned {type(out).__name__}"
        assert out.verdict == verdict, (
            f"{c.key}: judge gave {out.verdict!r} for the example meant to give {verdict!r}"
        )
        # pure: the same numbers give the same outcome
        assert c.judge(computed) == out


@pytest.mark.parametrize("c", JUDGED, ids=[c.key for c in JUDGED])
def test_examples_show_the_verdict_flipping(c):
    assert len({v for _, v in c.examples}) >= 2


def test_a_judge_needs_examples_with_two_verdicts():
    def judge(c):
        return Outcome("reproduced", c)

    with pytest.raises(ValueError, match="at least two different verdicts"):
        claim(
            paper="kadhe2019",
            id="t-one-verdict",
            where="",
            statement="",
            paper_value=0,
            judge=judge,
            examples=[(1, "reproduced"), (2, "reproduced")],
        )
    with pytest.raises(ValueError, match="examples need a judge"):
        claim(
            paper="kadhe2019",
            id="t-no-judge",
            where="",
            statement="",
            paper_value=0,
            examples=[(1, "reproduced"), (2, "differs")],
        )


def test_check_is_judge_of_compute():
    def judge(c):
        ok = c["x"] == 4
        return Outcome("reproduced" if ok else "differs", c, cause="" if ok else "not four")

    @claim(
        paper="kadhe2019",
        id="t-split",
        where="",
        statement="",
        paper_value=4,
        judge=judge,
        examples=[({"x": 4}, "reproduced"), ({"x": 5}, "differs")],
    )
    def compute(quick):
        return {"x": 2 + 2}

    from paper_checks._framework.registry import _REGISTRY

    c = _REGISTRY.pop("kadhe2019:t-split")
    assert c.compute is compute and c.judge is judge
    assert c.check(True).verdict == "reproduced"


PAPERS = list(paper_checks.all_sources())


@pytest.mark.parametrize("paper", PAPERS)
def test_every_claim_of_the_paper_has_a_judge(paper):
    legacy = [c.key for c in CLAIMS if c.paper == paper and c.judge is None]
    assert not legacy, f"claims without a judge (their verdict cannot be shown to flip): {legacy}"


@pytest.mark.parametrize("paper", PAPERS)
def test_inventory_and_registry_agree(paper):
    from paper_checks._framework.inventory import load_inventory

    inv = load_inventory(paper)
    registered = {c.id for c in CLAIMS if c.paper == paper}
    assert inv, f"{paper} has no inventory (paper_checks/inventory/{paper}.json)"
    named = {cid for e in inv for cid in e.claims}
    assert not named - registered, f"inventory names unregistered claims: {named - registered}"
    assert not registered - named, f"claims missing from the inventory: {registered - named}"


def test_inventory_reads_every_topic_file(tmp_path):
    import json

    from paper_checks._framework.inventory import load_inventory

    e = {"where": "Sec. 1", "statement": "s", "claims": ["a"]}
    (tmp_path / "xu2021.json").write_text(json.dumps([e]))
    (tmp_path / "xu2021_topic.json").write_text(json.dumps([{**e, "claims": ["b", "c"]}]))
    (tmp_path / "xu2021x.json").write_text(json.dumps([e]))  # another paper's name
    inv = load_inventory("xu2021", tmp_path)
    assert [x.claims for x in inv] == [("a",), ("b", "c")]
    (tmp_path / "xu2021_bad.json").write_text(json.dumps([{"where": "w"}]))
    with pytest.raises(ValueError, match="needs the fields"):
        load_inventory("xu2021", tmp_path)


def test_one_rule_for_undecided_points_in_every_theorem_range_check():
    """range_search.theorem_judge and halbawi2017.theorems.judge_theorem give the same verdict
    for the same counts: a violation differs, an undecided point is not checkable, points
    outside the hypothesis are not counted (issue 26)."""
    from paper_checks._framework.range_search import UNDECIDED, search, theorem_judge
    from paper_checks.halbawi2017.theorems import judge_theorem

    def evaluate(x):
        if x < 0:
            return None, None, "outside"
        if x == 5:
            return UNDECIDED, 0.5, "interval straddles the bound"
        return x <= 10, (10 - x) / 10, f"x = {x}"

    judge = theorem_judge("x <= 10")
    for grid, want in (
        ([-1, 0, 4], "reproduced"),
        ([-1, 0, 5], "not checkable"),
        ([0, 5, 11], "differs"),
        ([-1, -2], "not checkable"),
    ):
        out = search(evaluate, grid)
        got = judge(out)
        assert got.verdict == want, (grid, got)
        assert got.key["undecided"] == (out["undecided"], 0.0)
        cex = None if not out["counterexample count"] else "x > 10"
        summary = {
            "instances": out["instances"],
            "smallest slack": out["smallest slack"],
            "counterexample": cex,
            "inconclusive": out["undecided"],
        }
        assert judge_theorem(summary, "x <= 10").verdict == want
