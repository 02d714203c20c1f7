"""Charalambides, Mahdavifar, Hero, 'Generalized fractional repetition codes for binary coded
computations' (2021, arXiv:2109.10484; ISIT 2020 'Numerically stable binary gradient coding').

What the stored sources give (searched: the pages corpus for the title, the
authors, "binary gradient coding", "generalized fractional repetition",
"(s+1) does not divide n", "close to balanced"; arxiv.org/html/2109.10484v3,
sciencestack.ai, newx.sg, arxivlens and deepai listing pages; the code corpus
for a public implementation, none found): the abstract and summaries. They
say the construction keeps the binary encoding matrix "close to perfectly
balanced for any set of coding parameters" without the condition
``(s + 1) | n`` and that load balance is measured by a metric ``d_s``; the
construction itself and ``d_s`` are not in the stored text, so the code is
not built and the claim is not checkable. (For ``(s + 1)`` not dividing n,
gctheory's binary FRC variant is the d-FRC of Wang et al. 2019, Remark 1.)
"""

from __future__ import annotations

from gctheory.codes.approximate import DFractionalRepetitionCode
from paper_checks._framework.common_codes import unretrieved_examples, unretrieved_judge
from paper_checks._framework.registry import claim, register_source

PAPER = "charalambides2021"
register_source(
    PAPER,
    "Charalambides, Mahdavifar, Hero, 'Generalized fractional repetition codes for binary coded "
    "computations', 2021 (arXiv:2109.10484); ISIT 2020 version 'Numerically stable binary "
    "gradient coding'",
)


@claim(
    paper=PAPER,
    id="gfrc-construction",
    where="Abstract; Section III (generalised FRC)",
    statement="a binary fractional-repetition gradient code exists for any (n, s), without "
    "(s + 1) | n, with an encoding matrix close to perfectly balanced and exact recovery from "
    "any n - s workers",
    paper_value="construction and balance metric d_s (not retrievable)",
    judge=unretrieved_judge(
        "generalised FRC for (s + 1) not dividing n: exactness and balance",
        lambda c: (
            "the close-to-balanced construction and the balance metric d_s are not in "
            "the stored sources (abstract and summaries only); the nearest binary code built "
            f"here, the d-FRC with n = {c['n']}, d = {c['d']}, has loads {c['d-FRC loads']} "
            "(Wang et al. 2019, Remark 1)"
        ),
    ),
    examples=unretrieved_examples({"n": 7, "d": 3, "d-FRC loads": [2, 3]}),
)
def _gfrc(quick: bool) -> dict:
    code = DFractionalRepetitionCode(10, 3, rng=0)
    loads = sorted({int(x) for x in code.support.sum(axis=1)})
    return {"retrieved": False, "n": 10, "d": 3, "d-FRC loads": loads}
