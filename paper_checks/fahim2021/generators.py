"""Fahim and Cadambe 2021: Chebyshev-Vandermonde (orthogonal-polynomial) codes (issue 13).

Checked against the abstract's statements (arXiv:1903.08326; the body was not
available to us, so its theorem numbers are not cited).
"""

from __future__ import annotations

from gctheory.generators import chebyshev_vandermonde_generator
from paper_checks import Outcome, claim, register_source
from paper_checks._framework.common_generators import exponent_numbers, rank_census

PAPER = "fahim2021"
register_source(
    PAPER,
    "Fahim, Cadambe, 'Numerically stable polynomially coded computing', IEEE Trans. Inf. "
    "Theory 67(5), 2021 (arXiv:1903.08326)",
)


def _judge_growth(numbers: dict) -> Outcome:
    bad = {k: v for k, v in numbers.items() if v["high"] > 2 * int(k[2:])}
    text = "; ".join(
        f"{k}: p = {v['exponent']:.3g} [{v['low']:.3g}, {v['high']:.3g}] vs 2(n-m) = "
        f"{2 * int(k[2:])}"
        for k, v in numbers.items()
    )
    key = {f"exponent {k}": (v["exponent"], 1e-3) for k, v in numbers.items()}
    cmp = "95% t-interval of the fitted exponent of the certified worst case vs 2(n - m)"
    if bad:
        cause = f"measured growth exceeds O(n^(2(n-m))) for {sorted(bad)}"
        return Outcome("differs", text, cmp, cause, key=key)
    return Outcome("reproduced", text, cmp, key=key)


@claim(
    paper=PAPER,
    id="abstract-chebyshev-vandermonde-growth",
    where="Abstract, contribution 2",
    statement="the condition number of every m x m submatrix of an m x n Chebyshev-Vandermonde "
    "matrix on the n-point Chebyshev grid grows as O(n^(2(n-m))) for n > m: polynomially in n "
    "for a fixed number s = n - m of redundant nodes",
    paper_value="exponent <= 2 s",
    judge=_judge_growth,
    examples=[
        ({"s=1": {"exponent": 1.5, "low": 1.49, "high": 1.52}}, "reproduced"),
        ({"s=1": {"exponent": 2.6, "low": 2.5, "high": 2.7}}, "differs"),
    ],
)
def _growth(quick: bool) -> dict:
    ns = (12, 20, 28, 36) if quick else (12, 20, 28, 36, 44, 52, 60)
    out = exponent_numbers("chebyshev-vandermonde", (1, 2), ns)
    if not quick:
        out.update(exponent_numbers("chebyshev-vandermonde", (3,), (12, 18, 24, 30, 36)))
    return out


def _judge_mds(numbers: dict) -> Outcome:
    bad = sum(v["rank_deficient"] for v in numbers.values())
    text = ", ".join(f"{k}: {v['subsets']} subsets, smallest sigma_min/sigma_max "
                     f"{v['min_sigma']:.3g}" for k, v in numbers.items())  # fmt: skip
    key = {f"{k} rank-deficient": (v["rank_deficient"], 0.0) for k, v in numbers.items()}
    if bad:
        return Outcome("differs", text, "every m-subset of columns full rank (enumeration)",
                       f"{bad} rank-deficient submatrices", key=key)  # fmt: skip
    return Outcome("reproduced", text, "every m-subset of columns full rank (enumeration)",
                   key=key)  # fmt: skip


@claim(
    paper=PAPER,
    id="abstract-same-straggler-tolerance",
    where="Abstract, contribution 1",
    statement="codes in a basis of orthogonal polynomials achieve the same fault/straggler "
    "tolerance as MatDot and Polynomial codes (any m of the n evaluations decode)",
    paper_value="every m x m submatrix invertible",
    judge=_judge_mds,
    examples=[
        ({"m=5 n=11": {"subsets": 462, "min_sigma": 1e-3, "rank_deficient": 0}}, "reproduced"),
        ({"m=5 n=11": {"subsets": 462, "min_sigma": 0.0, "rank_deficient": 3}}, "differs"),
    ],
)
def _mds(quick: bool) -> dict:
    out = {}
    for m, n in ((5, 11), (7, 12)) if quick else ((5, 11), (7, 12), (8, 16)):
        out[f"m={m} n={n}"] = rank_census(chebyshev_vandermonde_generator(m, n), m)
    return out
