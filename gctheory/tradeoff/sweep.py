"""Where the tradeoff table is computed: the straggler counts of the sweep (a grid, the
``s`` at which the FRC and CommFR-GC exist, the operating point and the runtime schemes'
exact time optima), the communication savings of panel 2 and the points of the
empirical stability intervals."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from gctheory._validate import check_int

__all__ = ["check_s_list", "m_values_at", "spread", "stability_points", "sweep_points"]


def spread(values: Sequence[int], count: int) -> list[int]:
    """``count`` values of a sorted sequence, evenly by position (both ends included)."""
    values = sorted(set(values))
    if len(values) <= count:
        return values
    idx = np.unique(np.round(np.linspace(0, len(values) - 1, count)).astype(int))
    return [values[i] for i in idx]


def check_s_list(values: Iterable[Any], n: int, name: str) -> list[int]:
    out = sorted({check_int(v, name, low=0, high=n - 1) for v in values})
    if not out:
        raise ValueError(f"{name} must hold at least one straggler count in [0, {n - 1}]")
    return out


def sweep_points(
    n: int,
    s_fixed: int,
    m: int,
    names: Sequence[str],
    s_values: Sequence[int] | None,
    effort: dict[str, float],
    dist: Any,
    tau: float,
) -> list[int]:
    """The straggler counts of the sweep: a grid, the s where the FRC and CommFR-GC exist,
    the operating point and the exact time optima of the runtime schemes."""
    if s_values is not None:
        return sorted(set(s_values) | {s_fixed})
    count = int(effort["grid"])
    if n <= count + 7:
        pts = set(range(n))
    else:
        pts = {int(round(x)) for x in np.linspace(0, n - 1, count)}
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    keep = int(min(effort["divisor_points"], len(divisors)))
    if "frc" in names:
        pts |= set(spread([d - 1 for d in divisors], keep))
    if "commfr-gc" in names:
        pts |= set(spread([d - m for d in divisors if 0 <= d - m <= n - 1], keep))
    pts.add(s_fixed)
    if dist is not None:
        from gctheory.runtime import optimal_straggler_tolerance
        from gctheory.runtime.schemes import _optimum_screened

        for name, layout in (("cyclic-mds", "cyclic-mds"), ("frc", "frc"), ("ye-abbe", "ye-abbe")):
            if name in names or (name == "cyclic-mds" and "reed-solomon" in names):
                mm = m if name == "ye-abbe" else 1
                # the same s as the scan, from closed-form running sums where the law and
                # layout allow (O(1) per s; 2.3 s per layout at n = 10**4 by the scan)
                best = _optimum_screened(layout, dist, n, mm, tau=tau)
                if best is None:
                    best = optimal_straggler_tolerance(layout, dist, n, mm, tau=tau)[0]
                pts.add(best)
    return sorted(x for x in pts if 0 <= x <= n - 1)


def m_values_at(n: int, s: int, m: int, m_values: Sequence[int] | None, quick: bool) -> list[int]:
    """Communication savings of panel 2 at the operating point (``s + m <= n``): a grid,
    and (not in quick mode) every ``m <= 16`` at which CommFR-GC exists there."""
    if m_values is None:
        base = {1, 2, 4, 8, m} if quick else {1, 2, 3, 4, 6, 8, 12, 16, m}
        if not quick:
            base |= {d - s for d in range(1, n + 1) if n % d == 0 and 1 <= d - s <= 16}
        m_values = sorted(base)
    return [x for x in m_values if s + x <= n]


def stability_points(
    n: int, m: int, sweep: Sequence[int], s_fixed: int, names: Sequence[str], count: int
) -> dict[str, frozenset[int]]:
    """Where the empirical s_kappa is computed: ``count`` points of the sweep in
    ``[0, max(s, n/2)]`` at which the scheme exists, and the operating point."""
    sweep = [x for x in sweep if x <= max(s_fixed, n // 2)]
    out = {}
    if "ye-abbe" in names:
        ok = [x for x in sweep if x + m <= n]
        out["ye-abbe"] = frozenset(spread(ok, count) + ([s_fixed] if s_fixed in ok else []))
    if "commfr-gc" in names:
        ok = [x for x in sweep if n % (x + m) == 0]
        out["commfr-gc"] = frozenset(spread(ok, count) + ([s_fixed] if s_fixed in ok else []))
    return out
