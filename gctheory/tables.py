"""Paper tables as data: computed by gctheory, printed values only alongside for comparison.

- :func:`table1`: Table I of Kadhe et al. 2019 (s_kappa of the Gaussian Ye-Abbe
  scheme and of CommFR-GC from Theorem 2).
- :func:`generator_table`: "for this n, s, m and kappa, use this generator",
  from :func:`gctheory.codes.stability.compare_generators`.

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gctheory._validate import check_int, check_real
from gctheory.conditioning import C_CHEN_DONGARRA, s_kappa_bound
from gctheory.conditioning._common import _C, _eps, _kappa, _prefactor

__all__ = [
    "TABLE1_PARAMETERS",
    "TABLE1_PRINTED",
    "table1",
    "GENERATOR_TABLE_GRID",
    "generator_table",
]

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

    Returns
    -------
    list of dict
        One row per (n, s, m).

    Examples
    --------
    >>> from gctheory.tables import table1
    >>> rows = table1()
    >>> {k: rows[0][k] for k in ("n", "s", "m", "s_kappa", "paper")}
    {'n': 60, 's': 3, 'm': 2, 's_kappa': 2, 'paper': 2}
    """
    _kappa(kappa), _eps(eps), _C(C), _prefactor(prefactor)  # bad input raises, never a note
    out = []
    for n, s, m in TABLE1_PARAMETERS if rows is None else _check_rows(rows, "rows"):
        notes = []
        cells: dict[str, int | None] = {}
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


def _check_rows(rows: Any, name: str) -> list[tuple[int, int, int]]:
    """``rows`` as a list of (n, s, m) triples of integers (n >= 1, s >= 0, m >= 1)."""
    rule = f"{name} must be a sequence of (n, s, m) triples of integers"
    if isinstance(rows, (str, bytes, dict)):
        raise ValueError(f"{rule}, got {rows!r}")
    try:
        items = list(rows)
    except TypeError:
        raise ValueError(f"{rule}, got {rows!r}") from None
    out = []
    for row in items:
        if isinstance(row, (str, bytes, dict)):
            raise ValueError(f"{rule}, got the entry {row!r}")
        try:
            n, s, m = row
        except (TypeError, ValueError):
            raise ValueError(f"{rule}, got the entry {row!r}") from None
        out.append(
            (
                check_int(n, f"n in {name}", low=1),
                check_int(s, f"s in {name}", low=0),
                check_int(m, f"m in {name}", low=1),
            )
        )
    return out


#: The default grid of :func:`generator_table`: (n, s, m) and the kappas.
GENERATOR_TABLE_GRID: dict[str, tuple] = {
    "nsm": tuple((n, s, 2) for n in (12, 24, 36, 48, 60) for s in (1, 2)),
    "kappas": (1e3, 1e6),
}


def generator_table(
    nsm: Any = None,
    kappas: Any = None,
    *,
    families: Any = None,
    time_limit: float = 10.0,
    rng: Any = 0,
    progress: Any = None,
) -> list[dict[str, Any]]:
    """For each (n, s, m), kappa and scheme: the generator to use, and the runner-up.

    Every family is compared by :func:`gctheory.codes.stability.compare_generators`
    (certified worst condition number of the decoding matrices); the
    recommendation (:func:`gctheory.codes.stability.recommend`) is the family
    with the smallest certified worst case within kappa, ``"none certified"``
    when no family is certified within kappa at that s. Defaults:
    :data:`GENERATOR_TABLE_GRID`. ``progress``, if given, is called as
    ``progress(done, total, what)`` per family and scheme of each (n, s, m).

    Parameters
    ----------
    nsm : sequence of (n, s, m), optional
        Operating points (default :data:`GENERATOR_TABLE_GRID`).
    kappas : sequence of float, optional
        Stability constraints.
    families : sequence of str, optional
        Generator families compared.
    time_limit : float
        Seconds per worst-case search.
    rng : None, int or numpy.random.Generator
        Seed.
    progress : callable, optional
        Progress callback.

    Returns
    -------
    list of dict
        The recommended family and the runner-up per point, kappa and scheme.

    Examples
    --------
    >>> from gctheory.tables import generator_table
    >>> rows = generator_table(nsm=[(8, 2, 2)], kappas=[1e3], families=["gaussian", "legendre"],
    ...                        time_limit=1.0)
    >>> [(r["scheme"], r["use"], r["runner_up"]) for r in rows]
    [('ye-abbe', 'legendre', 'gaussian'), ('commfr', 'legendre', 'gaussian')]
    """
    from gctheory.codes.stability import _rank, compare_generators, recommend

    nsm = GENERATOR_TABLE_GRID["nsm"] if nsm is None else _check_rows(nsm, "nsm")
    if kappas is None:
        kappas = GENERATOR_TABLE_GRID["kappas"]
    elif isinstance(kappas, (str, bytes, dict)) or not hasattr(kappas, "__iter__"):
        raise ValueError(f"kappas must be a sequence of condition-number bounds, got {kappas!r}")
    kappas = tuple(check_real(k, "kappas", low=1.0, low_open=True) for k in kappas)
    time_limit = check_real(time_limit, "time_limit", low=0.0, low_open=True)
    for n, s, m in nsm:
        if n < 2 or s + m > n:
            raise ValueError(
                f"nsm: each (n, s, m) needs n >= 2 and s + m <= n (load s + m <= k = n), "
                f"got {(n, s, m)}"
            )
    out = []
    for i, (n, s, m) in enumerate(nsm):
        inner = None
        if progress is not None:

            def inner(done: int, total: int, what: str, i: int = i, n: int = n, s: int = s) -> None:
                progress(i * total + done, len(nsm) * total, f"n={n} s={s} {what}")

        rows = compare_generators(
            n, s, m, families=families, time_limit=time_limit, rng=rng, progress=inner
        )
        for kappa in kappas:
            at = [dataclasses.replace(r, kappa=float(kappa)) for r in rows]
            best = recommend(at)
            for scheme, r in best.items():
                ranked = sorted(
                    (x for x in at if x.scheme == scheme and x.worst_upper <= kappa), key=_rank
                )
                out.append(
                    {
                        "n": n,
                        "s": s,
                        "m": m,
                        "kappa": float(kappa),
                        "scheme": scheme,
                        "use": r.family if r else "none certified",
                        "worst_kappa": r.worst_upper if r else None,
                        "runner_up": ranked[1].family if len(ranked) > 1 else "",
                        "stable_families": len(ranked),
                    }
                )
    return out
