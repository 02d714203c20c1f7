"""Theorems verified over their parameter range: a seeded grid, then an adversarial refinement.

Shared by the theorem checks of ``kadhe2019/theorems.py``, ``wang2019/theorems.py`` and
``wang2019/ldpc.py`` (issue 11, section 3). A theorem's check supplies

- ``evaluate(point) -> (verdict, slack, detail)``: ``verdict`` is True (the
  statement holds at the point), False (a counterexample) or None (the point
  is outside the hypothesis, or a Monte Carlo interval is inconclusive: not
  counted); ``slack`` is the relative slack (0 means the bound is met with
  equality, negative a violation);
- a seeded grid of points;
- ``neighbours(point)``: the points to try next around one of the tightest.

:func:`search` evaluates the grid, then repeatedly the neighbours of the
``top`` points of smallest slack (the refinement pushes toward the smallest
slack, or the edge of the hypothesis), and summarises: instances verified,
smallest slack and where, counterexamples. :func:`theorem_judge` turns the
summary into an :class:`Outcome` with ``instances``, ``slack`` and
``counterexample`` set.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from paper_checks._framework.registry import Outcome

__all__ = ["search", "theorem_judge", "theorem_examples"]


def search(
    evaluate: Callable[[Any], tuple[bool | None, float | None, Any]],
    grid: Iterable[Hashable],
    neighbours: Callable[[Any], Iterable[Hashable]] | None = None,
    *,
    rounds: int = 3,
    top: int = 3,
    keep: int = 5,
) -> dict[str, Any]:
    """Evaluate ``grid``, refine around the tightest points, and summarise.

    Returns a dict with ``instances`` (points where the statement was verified),
    ``grid points`` and ``refined points`` (evaluated), ``inconclusive``,
    ``smallest slack`` (over verified points) with ``at`` (its point and
    detail), ``counterexample count`` and ``counterexamples`` (the first
    ``keep``, the most violated first).
    """
    seen: dict[Hashable, tuple[bool | None, float | None, Any]] = {}

    def run(p: Hashable) -> None:
        if p not in seen:
            ok, slack, detail = evaluate(p)
            seen[p] = (
                None if ok is None else bool(ok),
                None if slack is None else float(slack),
                detail,
            )

    for p in grid:
        run(p)
    n_grid = len(seen)
    for _ in range(rounds if neighbours is not None else 0):
        ranked = sorted(
            (p for p, (_, sl, _) in seen.items() if sl is not None and math.isfinite(sl)),
            key=lambda p: seen[p][1],
        )[:top]
        new = [q for p in ranked for q in neighbours(p) if q not in seen]  # type: ignore[misc]
        if not new:
            break
        for q in new:
            run(q)
    ok = [(p, v) for p, v in seen.items() if v[0] is True]
    bad = sorted(
        ((p, v) for p, v in seen.items() if v[0] is False),
        key=lambda pv: pv[1][1] if pv[1][1] is not None else -math.inf,
    )
    slack, at = None, None
    finite = [(p, v) for p, v in ok if v[1] is not None and math.isfinite(v[1])]
    if finite:
        p, v = min(finite, key=lambda pv: pv[1][1])
        slack, at = float(v[1]), {"point": p, "detail": v[2]}
    return {
        "instances": len(ok),
        "grid points": n_grid,
        "refined points": len(seen) - n_grid,
        "inconclusive": sum(v[0] is None for v in seen.values()),
        "smallest slack": slack,
        "at": at,
        "counterexample count": len(bad),
        "counterexamples": [{"point": p, "slack": v[1], "detail": v[2]} for p, v in bad[:keep]],
    }


def theorem_judge(
    comparison: str | Callable[[dict], str],
    *,
    slack_rtol: float = 1e-6,
    slack_atol: float = 0.0,
    cause: Callable[[dict], str] | None = None,
) -> Callable[[dict], Outcome]:
    """A judge for a :func:`search` summary (extra keys of the summary are carried along).

    ``reproduced`` when every evaluated point in the hypothesis verified the
    statement, ``differs`` with the tightest counterexample otherwise, ``not
    checkable`` when no point was conclusive. ``slack_rtol`` / ``slack_atol``
    pin the smallest slack in the ledger (loose for Monte Carlo slacks).
    ``cause(summary)`` may add the reading of a counterexample.
    """

    def judge(c: dict) -> Outcome:
        cmp = comparison(c) if callable(comparison) else comparison
        n, slack, nbad = c["instances"], c["smallest slack"], c["counterexample count"]
        key: dict[str, Any] = {"instances": (n, 0.0), "counterexamples": (nbad, 0.0)}
        if slack is not None:
            key["smallest slack"] = (slack, slack_rtol, slack_atol)
        where = "" if c["at"] is None else f" at {c['at']['point']}"
        if nbad:
            ce = c["counterexamples"][0]
            text = (
                f"counterexample at {ce['point']} (slack {_g(ce['slack'])}; {ce['detail']}); "
                f"{nbad} counterexample(s) among {n + nbad} conclusive points"
            )
            if cause is not None:
                text += "; " + cause(c)
            return Outcome(
                "differs", c, cmp, text, key=key, instances=n, slack=slack, counterexample=ce
            )
        if n == 0:
            return Outcome(
                "not checkable",
                c,
                cmp,
                f"no conclusive point ({c['inconclusive']} inconclusive)",
                key=key,
                instances=0,
            )
        return Outcome(
            "reproduced",
            c,
            f"{cmp}; verified on {n:,} instances ({c['grid points']} grid points, "
            f"{c['refined points']} by refinement), smallest slack {_g(slack)}{where}",
            key=key,
            instances=n,
            slack=slack,
        )

    return judge


def _g(x: Any) -> str:
    return "n/a" if x is None else f"{x:.3g}"


def theorem_examples(point: Any, detail: Any = "", **extra: Any) -> list[tuple[dict, str]]:
    """Counterfactual summaries: all verified (reproduced), one counterexample (differs).

    ``extra`` keys are added to every summary (the keys a theorem's texts read).
    """
    good = {
        **extra,
        "instances": 40,
        "grid points": 30,
        "refined points": 10,
        "inconclusive": 0,
        "smallest slack": 0.2,
        "at": {"point": point, "detail": detail},
        "counterexample count": 0,
        "counterexamples": [],
    }
    bad = {
        **good,
        "instances": 39,
        "counterexample count": 1,
        "counterexamples": [{"point": point, "slack": -0.1, "detail": detail}],
    }
    none = {**good, "instances": 0, "smallest slack": None, "at": None, "inconclusive": 40}
    return [(good, "reproduced"), (bad, "differs"), (none, "not checkable")]
