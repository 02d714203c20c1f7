"""Subramaniam, Heidarzadeh, Narayanan 2019: random Khatri-Rao-product codes (issue 13).

Checked against the abstract's statements (arXiv:1907.05965; the body was not
available to us). The paper's setting is matrix multiplication with A and B
split into K1 and K2 blocks; here the same product-structured generator is a
K x N code with K = K1 K2 (:func:`gctheory.generators.rkrp_generator`), compared
with the polynomial (monomial Vandermonde) and OrthoPoly (Chebyshev-Vandermonde)
generators of the same shape.
"""

from __future__ import annotations

import numpy as np

from gctheory.conditioning import condition_numbers
from gctheory.generators import generator
from paper_checks import Outcome, claim, register_source
from paper_checks._framework.common_generators import rank_census, worst_kappas

PAPER = "subramaniam2019"
register_source(
    PAPER,
    "Subramaniam, Heidarzadeh, Narayanan, 'Random Khatri-Rao-product codes for "
    "numerically-stable distributed matrix multiplication', Allerton 2019 (arXiv:1907.05965)",
)


def _judge_mds(numbers: dict) -> Outcome:
    bad = numbers["rank_deficient"]
    text = (f"{numbers['generators']} sampled RKRP generators, {numbers['subsets']} K-subsets, "
            f"smallest sigma_min/sigma_max {numbers['min_sigma']:.3g}")  # fmt: skip
    key = {"rank-deficient": (bad, 0.0)}
    if bad:
        return Outcome("differs", text, "every K-subset full rank", f"{bad} rank-deficient",
                       key=key)  # fmt: skip
    return Outcome("reproduced", text, "every K-subset full rank (enumeration)", key=key)


@claim(
    paper=PAPER,
    id="abstract-mds-probability-one",
    where="Abstract",
    statement="RKRP codes are maximum distance separable with probability 1",
    paper_value="every K columns independent",
    judge=_judge_mds,
    examples=[
        ({"generators": 20, "subsets": 4000, "min_sigma": 1e-3, "rank_deficient": 0}, "reproduced"),
        ({"generators": 20, "subsets": 4000, "min_sigma": 0.0, "rank_deficient": 1}, "differs"),
    ],  # fmt: skip
)
def _mds(quick: bool) -> dict:
    gens = 10 if quick else 40
    census = [
        rank_census(generator("rkrp", K, N, rng=[2019, g, K]), K)
        for g in range(gens)
        for K, N in ((4, 9), (6, 10))  # K = 2 x 2 and 2 x 3
    ]
    return {
        "generators": len(census),
        "subsets": sum(c["subsets"] for c in census),
        "min_sigma": min(c["min_sigma"] for c in census),
        "rank_deficient": sum(c["rank_deficient"] for c in census),
    }


def _mean_log10_condition(family: str, n: int, s: int, sets: int, seed: int) -> float:
    G = generator(family, n - s, n, rng=[seed, n])
    rng = np.random.default_rng([seed, n, 1])
    T = np.sort(rng.random((sets, n)).argsort(axis=1)[:, : n - s], axis=1)
    sub = np.swapaxes(G.T[T], -1, -2)
    return float(np.mean(np.log10(condition_numbers(sub))))


def _judge_stable(numbers: dict) -> Outcome:
    avg = numbers["mean_log10_cond"]
    ok = all(avg["rkrp"][i] < min(avg["chebyshev-vandermonde"][i], avg["vandermonde-equispaced"][i])
             for i in range(len(numbers["ns"])))  # fmt: skip
    text = (
        f"n = {numbers['ns']}, s = {numbers['s']}: mean log10 cond over random survivor "
        "sets "
        + "; ".join(f"{k} {[round(v, 2) for v in vs]}" for k, vs in avg.items())
        + "; certified worst case "
        + "; ".join(f"{k} {[float(f'{v:.3g}') for v in vs]}" for k, vs in numbers["worst"].items())
    )
    key = {f"{k} n={n}": (v[i], 1e-2) for k, v in avg.items()
           for i, n in enumerate(numbers["ns"])}  # fmt: skip
    cmp = "RKRP's mean log10 condition number below OrthoPoly's and Polynomial's at every n"
    if ok:
        return Outcome("reproduced", text, cmp, key=key)
    ns, cheb, poly, rk = (
        numbers["ns"],
        avg["chebyshev-vandermonde"],
        avg["vandermonde-equispaced"],
        avg["rkrp"],
    )
    cause = (
        "in this setting (a K x n generator with K = n - s, s = 2: recovery from any n - 2 of "
        "n) RKRP's mean log10 condition number is "
        + ", ".join(f"{r - c:+.2f}" for r, c in zip(rk, cheb))
        + f" decades from OrthoPoly's at n = {ns} (it beats the Polynomial code by "
        + ", ".join(f"{p_ - r:.2f}" for p_, r in zip(poly, rk))
        + " decades); the paper's own setting (its K1, K2 and error measure for matrix "
        "multiplication) is not stated in the abstract we could read"
    )
    return Outcome("differs", text, cmp, cause, key=key)


@claim(
    paper=PAPER,
    id="abstract-more-stable-than-orthopoly",
    where="Abstract",
    statement="decoding of RKRP codes is highly numerically stable in comparison to "
    "Polynomial codes and OrthoPoly codes (average relative error substantially better)",
    paper_value="RKRP best conditioned",
    judge=_judge_stable,
    examples=[
        (
            {
                "ns": [16],
                "s": 2,
                "mean_log10_cond": {
                    "rkrp": [1.0],
                    "chebyshev-vandermonde": [2.0],
                    "vandermonde-equispaced": [5.0],
                },
                "worst": {},
            },
            "reproduced",
        ),
        (
            {
                "ns": [16],
                "s": 2,
                "mean_log10_cond": {
                    "rkrp": [3.0],
                    "chebyshev-vandermonde": [2.0],
                    "vandermonde-equispaced": [5.0],
                },
                "worst": {},
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _stable(quick: bool) -> dict:
    ns = (16, 32) if quick else (16, 32, 48)
    s, sets = 2, (200 if quick else 1000)
    fams = ("rkrp", "chebyshev-vandermonde", "vandermonde-equispaced")
    avg = {f: [_mean_log10_condition(f, n, s, sets, 7) for n in ns] for f in fams}
    worst = {f: worst_kappas(f, s, ns, rng=7) for f in fams[:2]}
    return {"ns": list(ns), "s": s, "mean_log10_cond": avg, "worst": worst}
