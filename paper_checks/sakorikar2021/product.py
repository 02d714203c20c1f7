"""Sakorikar and Wang, 'Soft BIBD and product gradient codes' (2021, arXiv:2105.05231).

What the stored sources give (searched: the pages corpus for the title, "soft
BIBD", "product gradient codes", "Kronecker product", "probabilistic
construction"; ar5iv.labs.arxiv.org/html/2105.05231 and two listing pages;
the code, docs and issues corpora, where "soft BIBD" occurs nowhere): the
abstract and the start of the introduction. The abstract names two
constructions: a probabilistic one "that relax[es] the stringent BIBD
gradient code constraints" (soft BIBD: its distribution and decoder are not
in the stored text, so it is not built and its claim is not checkable), and
"taking the Kronecker product of existing gradient codes" (built:
:mod:`gctheory.codes.product`). The exact tolerance ``s1 + s2`` of a product
of exact codes is derived in that module, not read from the paper: it is
checked under its own name, ``internal-product-tolerance``, which says so.
"""

from __future__ import annotations

import itertools

import numpy as np

from gctheory.codes.base import verify_straggler_sets
from gctheory.codes.designs import BIBDGradientCode, bibd, projective_plane
from gctheory.codes.product import product_code
from gctheory.codes.tandon import CyclicMDSCode, FractionalRepetitionCode
from paper_checks._framework.common_codes import unretrieved_examples, unretrieved_judge
from paper_checks._framework.registry import Outcome, claim, register_source

PAPER = "sakorikar2021"
register_source(
    PAPER,
    "Sakorikar, Wang, 'Soft BIBD and product gradient codes', 2021 (arXiv:2105.05231)",
)


@claim(
    paper=PAPER,
    id="soft-bibd-construction",
    where="Abstract; soft-BIBD section",
    statement="a probabilistic relaxation of the BIBD constraints gives gradient codes for a "
    "wide range of parameters with error comparable to BIBD codes",
    paper_value="construction and error comparison (not retrievable)",
    judge=unretrieved_judge(
        "soft-BIBD gradient codes: construction and error against BIBD codes",
        lambda c: (
            "the probabilistic soft-BIBD construction (its distribution, decoder and "
            "error analysis) is not in the stored sources, which hold the abstract only; "
            "searched: " + c["searched"]
        ),
    ),
    examples=unretrieved_examples({"searched": "x"}),
)
def _soft(quick: bool) -> dict:
    return {
        "retrieved": False,
        "searched": "pages (title, 'soft BIBD', 'probabilistic construction', ar5iv 2105.05231),"
        " docs, code and issues corpora",
    }


def _judge_product(c: dict) -> Outcome:
    flexible = c["no BIBD for 49 workers of load 9"] and c["fano x fano"] == [49, 49, 9]
    cmp = (
        "Fano x Fano has (n, k, load) = (49, 49, 9), and the BIBD conditions "
        "(lambda (v - 1) = r (k - 1), b k = v r) have no integer solution with v = 49, r = 9"
    )
    key = {"fano x fano": (str(c["fano x fano"]), 0)}
    if flexible:
        return Outcome("reproduced", c, cmp, key=key, instances=1, slack=0.0)
    return Outcome(
        "differs", c, cmp,
        cause="the product's parameters are also those of a BIBD (no flexibility gained)",
        key=key, instances=1, slack=0.0, counterexample="Fano x Fano",
    )  # fmt: skip


_FLEX = {"no BIBD for 49 workers of load 9": True, "fano x fano": [49, 49, 9]}


@claim(
    paper=PAPER,
    id="product-code-parameters",
    where="Abstract; product gradient codes",
    statement="the Kronecker product of existing gradient codes is a gradient code for "
    "n1 n2 workers and k1 k2 partitions with load l1 l2, so it reaches parameters block "
    "designs do not (abstract: 'flexible choices of system parameters')",
    paper_value="Kronecker product of existing gradient codes with flexible parameters",
    judge=_judge_product,
    examples=[
        (_FLEX, "reproduced"),
        ({**_FLEX, "no BIBD for 49 workers of load 9": False}, "differs"),
    ],
    kind="theorem",
)
def _product(quick: bool) -> dict:
    fano = BIBDGradientCode(projective_plane(2))
    ff = product_code(fano, fano)
    # a BIBD with v = 49 points of replication r = 9 needs lambda = 9 (k - 1) / 48 for its
    # block size k, and b = 49 * 9 / k blocks: no (k, lambda) of integers works
    none = True
    for k, lam in itertools.product(range(2, 49), range(1, 10)):
        if lam * 48 == 9 * (k - 1) and (49 * 9) % k == 0:
            try:
                bibd(49, k, lam)
            except ValueError:
                continue
            none = False
    return {
        "fano x fano": [ff.n, ff.k, ff.load],
        "no BIBD for 49 workers of load 9": none,
        "fano x fano load fraction": float(np.float64(ff.load) / ff.k),
    }


def _judge_tolerance(c: dict) -> Outcome:
    bad = [r for r in c["rows"] if not r["ok"]]
    cmp = "every set of s1 + s2 stragglers decodes for products of exact codes (exhaustive)"
    key = {"straggler sets": (sum(r["sets"] for r in c["rows"]), 0)}
    inst = len(c["rows"])
    if not bad:
        return Outcome("reproduced", c, cmp, key=key, instances=inst, slack=0.0)
    return Outcome(
        "differs", c, cmp,
        cause=f"{bad[0]['code']}: {bad[0]['failures']} straggler sets fail to decode",
        key=key, instances=inst, slack=0.0, counterexample=bad[0]["code"],
    )  # fmt: skip


@claim(
    paper=PAPER,
    id="internal-product-tolerance",
    where="internal check of gctheory.codes.product (gctheory's derivation), not a printed "
    "statement of the paper",
    statement="gctheory's derivation, checked exhaustively: a Kronecker product of exact "
    "codes decodes from any n1 n2 - (s1 + s2) survivors",
    paper_value="none (the tolerance s1 + s2 is gctheory's derivation)",
    judge=_judge_tolerance,
    examples=[
        ({"rows": [{"code": "a x b", "sets": 120, "failures": 0, "ok": True}]}, "reproduced"),
        ({"rows": [{"code": "a x b", "sets": 120, "failures": 3, "ok": False}]}, "differs"),
    ],
    kind="theorem",
)
def _tolerance(quick: bool) -> dict:
    pairs = [
        (CyclicMDSCode(4, 1, rng=0), CyclicMDSCode(4, 1, rng=1)),
        (FractionalRepetitionCode(4, 1), CyclicMDSCode(5, 2, rng=2)),
    ]
    if not quick:
        pairs += [(CyclicMDSCode(5, 2, rng=3), CyclicMDSCode(4, 2, rng=4))]
    rows = []
    for a, b in pairs:
        p = product_code(a, b)
        chk = verify_straggler_sets(p)
        rows.append({"code": p.name, "sets": chk.sets, "failures": len(chk.failures), "ok": chk.ok})
    return {"rows": rows}
