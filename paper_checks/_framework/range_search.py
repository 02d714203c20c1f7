"""Theorems verified over their parameter range: a seeded grid, then an adversarial refinement.

Shared by the theorem checks of ``kadhe2019/theorems.py``, ``wang2019/theorems.py`` and
``wang2019/ldpc.py`` (issue 11, section 3). A theorem's check supplies

- ``evaluate(point) -> (verdict, slack, detail)``: ``verdict`` is True (the
  statement holds at the point), False (a counterexample), None (the point is
  outside the hypothesis: not counted) or :data:`UNDECIDED` (in the hypothesis,
  but a Monte Carlo interval cannot decide it); ``slack`` is the relative slack
  (0 means the bound is met with equality, negative a violation);
- a seeded grid of points;
- ``neighbours(point)``: the points to try next around one of the tightest.

:func:`search` evaluates the grid, then repeatedly the neighbours of the
``top`` points of smallest slack (the refinement pushes toward the smallest
slack, or the edge of the hypothesis), and summarises: instances verified,
smallest slack and where, counterexamples. :func:`theorem_judge` turns the
summary into an :class:`Outcome` with ``instances``, ``slack`` and
``counterexample`` set.

One rule for every theorem checked over its range (this judge and
``halbawi2017.theorems.judge_theorem`` both call :func:`range_verdict`; stated in
``docs/design.md``, "Verdicts"): a decided violation is ``differs``; otherwise any
undecided point in the hypothesis makes it ``not checkable`` (an undecided point is
evidence neither way, and "verified over the range" would claim it); otherwise, with at
least one verified point, ``reproduced``. Points outside the hypothesis are not counted.
The number of undecided points is in the ledger key and the report's theorem table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from paper_checks._framework.registry import Outcome

__all__ = ["UNDECIDED", "range_verdict", "search", "theorem_judge", "theorem_examples"]

UNDECIDED = "undecided"
"""What ``evaluate`` returns for a point in the hypothesis that a Monte Carlo interval
cannot decide."""


def range_verdict(instances: int, violations: int, undecided: int) -> str:
    """The one rule for a theorem over its range: see the module docstring."""
    if violations:
        return "differs"
    if undecided or not instances:
        return "not checkable"
    return "reproduced"


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
    ``grid points`` and ``refined points`` (evaluated), ``outside hypothesis``,
    ``undecided`` (in the hypothesis, not decided by a Monte Carlo interval),
    ``smallest slack`` (over verified points) with ``at`` (its point and
    detail) and ``slack precision`` (from a dict detail's ``"slack precision"``: the
    absolute error of a Monte Carlo slack, which the ledger pins it at; else None),
    ``counterexample count`` and ``counterexamples`` (the first ``keep``, the most
    violated first).
    """
    seen: dict[Hashable, tuple[bool | None, float | None, Any]] = {}

    def run(p: Hashable) -> None:
        if p not in seen:
            ok, slack, detail = evaluate(p)
            seen[p] = (
                None if ok is None else ok if ok == UNDECIDED else bool(ok),
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
    # a slack carrying an error (a Monte Carlo estimate) says how large in its detail
    precision = None
    if at is not None and isinstance(at["detail"], dict):
        precision = at["detail"].get("slack precision")
    return {
        "slack precision": precision,
        "instances": len(ok),
        "grid points": n_grid,
        "refined points": len(seen) - n_grid,
        "outside hypothesis": sum(v[0] is None for v in seen.values()),
        "undecided": sum(v[0] == UNDECIDED for v in seen.values()),
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
        und = c.get("undecided", 0)
        key: dict[str, Any] = {
            "instances": (n, 0.0),
            "counterexamples": (nbad, 0.0),
            "undecided": (und, 0.0),
        }
        if slack is not None:
            prec = c.get("slack precision")
            # pinned at the precision of its computation: a Monte Carlo slack at its interval
            key["smallest slack"] = (
                (slack, slack_rtol, slack_atol) if prec is None else (slack, 0.0, float(prec))
            )
        where = "" if c["at"] is None else f" at {c['at']['point']}"
        outside = c.get("outside hypothesis", 0)
        counts = f"{outside} point(s) outside the hypothesis not counted, {und} undecided"
        verdict = range_verdict(n, nbad, und)
        if verdict == "differs":
            ce = c["counterexamples"][0]
            text = (
                f"counterexample at {ce['point']} (slack {_g(ce['slack'])}; {ce['detail']}); "
                f"{nbad} counterexample(s) among {n + nbad} conclusive points ({counts})"
            )
            if cause is not None:
                text += "; " + cause(c)
            return Outcome(
                "differs", c, cmp, text, key=key, instances=n, slack=slack, counterexample=ce
            )
        if verdict == "not checkable":
            why = (
                f"{und} point(s) in the hypothesis not decided by their Monte Carlo intervals "
                f"(verified at {n:,}; no counterexample)"
                if und
                else f"no conclusive point ({counts})"
            )
            return Outcome("not checkable", c, cmp, why, key=key, instances=n, slack=slack)
        return Outcome(
            "reproduced",
            c,
            f"{cmp}; verified on {n:,} instances ({c['grid points']} grid points, "
            f"{c['refined points']} by refinement; {counts}), smallest slack {_g(slack)}{where}",
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
        "outside hypothesis": 0,
        "undecided": 0,
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
    none = {**good, "instances": 0, "smallest slack": None, "at": None, "outside hypothesis": 40}
    undecided = {**good, "undecided": 1}
    return [
        (good, "reproduced"),
        (bad, "differs"),
        (none, "not checkable"),
        (undecided, "not checkable"),
    ]
