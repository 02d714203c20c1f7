"""Shared computation of the generator-literature claims (issue 13): certified worst cases."""

from __future__ import annotations

import math
import warnings

from gctheory.codes.stability import growth_exponent
from gctheory.conditioning import Float64Warning, max_condition
from gctheory.generators import generator, generator_block


def worst_kappas(family: str, s: int, ns, rng=0) -> list[float]:
    """Certified worst condition number of the (n - s)-worker submatrices, for each n.

    The (n - s) x n generator of ``family`` (Ye-Abbe shape: recovery from any n - s of
    n workers); exact by enumeration (every C(n, s) subset). Raises if a certificate does
    not close (then the number would not be exact).
    """
    out = []
    for n in ns:
        G = generator(family, n - s, n, rng=[rng, n, s])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Float64Warning)
            b = generator_block(family, n)
            # no time limit: an enumeration, and a clock would make the check depend on load
            mc = max_condition(G, n - s, block=b, mp_dps=None, time_limit=math.inf)
        if not mc.exact:
            raise RuntimeError(f"{family}, n={n}, s={s}: certificate did not close ({mc})")
        out.append(mc.value)
    return out


def exponent_numbers(family: str, ss, ns) -> dict:
    """Fitted exponents (95% t-intervals) of the certified worst case, one per s."""
    numbers = {}
    for s in ss:
        ks = worst_kappas(family, s, ns)
        fit = growth_exponent(ns, ks)
        numbers[f"s={s}"] = {
            "exponent": round(fit.exponent, 4),
            "low": round(fit.low, 4),
            "high": round(fit.high, 4),
            "ns": list(ns),
            "worst_kappa": [float(f"{k:.6g}") for k in ks],
        }
    return numbers


def rank_census(G, k: int, block: int = 1) -> dict:
    """Every k-worker submatrix of G by enumeration: how many, how many are numerically
    rank-deficient (sigma_min <= 1e-10 sigma_max), and the smallest sigma_min / sigma_max."""
    import itertools

    import numpy as np

    n = G.shape[1] // block
    sig, bad, count = np.inf, 0, 0
    for T in itertools.combinations(range(n), k):
        cols = [w * block + c for w in T for c in range(block)]
        sv = np.linalg.svd(G[:, cols], compute_uv=False)
        count += 1
        sig = min(sig, sv[-1] / sv[0])
        bad += int(not sv[-1] > 1e-10 * sv[0])
    return {"subsets": count, "min_sigma": float(sig), "rank_deficient": bad}
