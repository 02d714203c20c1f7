"""Paper tables as data: computed by gctheory, printed values only alongside for comparison.

- :func:`table1`: Table I of Kadhe et al. 2019 (s_kappa of the Gaussian Ye-Abbe
  scheme and of CommFR-GC from Theorem 2).

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019.
"""

from __future__ import annotations

from typing import Any

from gctheory.conditioning import C_CHEN_DONGARRA, s_kappa_bound
from gctheory.conditioning._common import _C, _eps, _kappa, _prefactor

__all__ = ["TABLE1_PARAMETERS", "TABLE1_PRINTED", "table1"]

#: The (n, s, m) rows of Table I of Kadhe et al. 2019 (the inputs of the table).
TABLE1_PARAMETERS: tuple[tuple[int, int, int], ...] = (
    (60, 3, 2),
    (60, 8, 2),
    (60, 13, 2),
    (60, 3, 12),
    (60, 8, 12),
    (60, 13, 12),
    (1000, 40, 10),
    (1000, 90, 10),
    (1000, 190, 10),
    (1000, 40, 210),
    (1000, 90, 210),
    (1000, 190, 210),
)

#: The printed outputs (s_kappa^YA, s_kappa) of Table I, keyed by (n, s, m).
#: Comparison targets only: nothing in gctheory computes from them.
TABLE1_PRINTED: dict[tuple[int, int, int], tuple[int, int]] = {
    (60, 3, 2): (0, 2),  # Table I of Kadhe et al. 2019
    (60, 8, 2): (2, 6),
    (60, 13, 2): (6, 11),
    (60, 3, 12): (0, 1),
    (60, 8, 12): (2, 4),
    (60, 13, 12): (2, 4),
    (1000, 40, 10): (8, 32),
    (1000, 90, 10): (29, 78),
    (1000, 190, 10): (85, 172),
    (1000, 40, 210): (8, 16),
    (1000, 90, 210): (29, 48),
    (1000, 190, 210): (85, 121),
}


def table1(
    kappa: float = 1000,
    eps: float = 1e-3,
    C: float = C_CHEN_DONGARRA,
    prefactor: str = "eq7",
    *,
    rows: Any = None,
) -> list[dict[str, Any]]:
    """Table I of Kadhe et al. 2019, recomputed from Theorem 2.

    For each (n, s, m): ``s_kappa_ya`` = Theorem 2 with ``m + s -> n``,
    ``m -> n - s`` (Gaussian Ye-Abbe scheme) and ``s_kappa`` = Theorem 2 for
    an ``[m + s, m]`` Gaussian code (CommFR-GC), with the paper's printed
    values beside them (``paper_ya``, ``paper``; only for the paper's rows)
    and whether eq. (8) holds for each. A cell is None (with the reason in
    ``note``) where the theorem gives nothing.

    Parameters
    ----------
    kappa, eps, C, prefactor
        As in :func:`gctheory.conditioning.s_kappa_bound` (paper: 1000, 1e-3, C <= 6.414).
    rows : iterable of (n, s, m), optional
        Defaults to :data:`TABLE1_PARAMETERS`.
    """
    _kappa(kappa), _eps(eps), _C(C), _prefactor(prefactor)  # bad input raises, never a note
    out = []
    for n, s, m in TABLE1_PARAMETERS if rows is None else rows:
        notes = []
        cells = {}
        for key, (N, K) in (("ya", (n, n - s)), ("commfr", (m + s, m))):
            try:
                b = s_kappa_bound(N, K, kappa, eps, C, prefactor)
                cells[key] = b.s_kappa
            except ValueError as exc:
                cells[key] = None
                notes.append(f"{key}: {exc}")
        printed = TABLE1_PRINTED.get((n, s, m), (None, None))
        out.append(
            {
                "n": n,
                "s": s,
                "m": m,
                "s_kappa_ya": cells["ya"],
                "paper_ya": printed[0],
                "s_kappa": cells["commfr"],
                "paper": printed[1],
                "note": "; ".join(notes),
            }
        )
    return out
