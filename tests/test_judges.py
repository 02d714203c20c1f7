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
