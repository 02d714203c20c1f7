"""The lower bounds on the load as rows of the tradeoff table: the worst case (eq. (1)),
Theorems 3 and 5 of Wang et al. 2019 as stated and in the proof's form, their exact
finite-n versions, and Ye-Abbe's ``l/k >= (s + m)/n`` at the operating point."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gctheory.tradeoff.table import make_row

__all__ = ["bound_rows"]


def bound_rows(
    n: int, sweep: Sequence[int], s_fixed: int, mvals: Sequence[int], eps: float, error: float
) -> list[dict[str, Any]]:
    """Lower bounds on the load: worst case (eq. (1)), Theorems 3 and 5 of Wang et al. 2019
    as stated and in the proof's form, and their exact finite-n versions."""
    from gctheory.load_bounds import (
        approximate_recovery_lower_bound,
        exact_recovery_lower_bound,
        min_load_lower_bound,
        worst_case_load,
    )

    rows = []

    def add(name: str, s: int, m: int, b: Any, guarantee: str) -> None:
        notes = list(b.notes)
        if b.asymptotic:
            notes.insert(0, "asymptotic (n -> infinity): a guide at this n, not a guarantee")
        rows.append(
            make_row(
                f"bound:{name}",
                "bound",
                n=n,
                s=s,
                m=m,
                k=n,
                load=float(b.load),
                load_value=float(b.value),
                communication=1.0 / m,
                guarantee=guarantee,
                covered=b.in_regime,
                asymptotic=b.asymptotic,
                source=b.source,
                note="; ".join(notes),
            )
        )

    proof_ok = 2 * error * n + 4 < n
    for s in sweep:
        add("exact", s, 1, worst_case_load(n, s), "every straggler set (load >= s + 1)")
        add(
            "thm3",
            s,
            1,
            exact_recovery_lower_bound(n, s, warn=False),
            "exact recovery w.p. 1 - o(1), random stragglers",
        )
        add(
            "thm3-finite",
            s,
            1,
            min_load_lower_bound(n, s, eps),
            f"P(err > 0) <= {eps:g} (finite n, exact)",
        )
        add(
            "thm5",
            s,
            1,
            approximate_recovery_lower_bound(n, s, error, warn=False),
            f"P(err > {error:g} n) = o(1), random stragglers (as stated)",
        )
        if proof_ok:
            add(
                "thm5-eq52",
                s,
                1,
                approximate_recovery_lower_bound(n, s, error, "proof", warn=False),
                f"P(err > {error:g} n) = o(1) (proof, eq. (52))",
            )
        add(
            "thm5-finite",
            s,
            1,
            min_load_lower_bound(n, s, eps, error),
            f"P(err > {error:g} n) <= {eps:g} (finite n, exact)",
        )
    for m in mvals:
        add(
            "ye-abbe",
            s_fixed,
            m,
            worst_case_load(n, s_fixed, m),
            f"every straggler set, messages 1/{m} (l/k >= (s + m)/n)",
        )
    return rows
