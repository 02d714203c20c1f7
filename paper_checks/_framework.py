"""The claim registry, the runner and the report writer behind ``gctheory reproduce``."""

from __future__ import annotations

import importlib
import json
import math
import pkgutil
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PAPERS = {
    "kadhe2019": "Kadhe, Koyluoglu, Ramchandran, 'Communication-efficient gradient coding for "
    "straggler mitigation in distributed learning' (CommFR-GC), 2019",
    "wang2019": "Wang, Liu, Shroff, 'Fundamental limits of approximate gradient coding', 2019",
    "halbawi2017": "Halbawi, Azizan, Salehi, Hassibi, 'Improving distributed gradient descent "
    "using Reed-Solomon codes', 2017",
    "zhang2020": "Zhang, Simeone, 'LAGC: Lazily aggregated gradient coding for straggler-tolerant "
    "and communication-efficient distributed learning', 2020",
    "xu2021": "Xu, Huang, Song, Lan, 'Live gradient compensation for evading stragglers in "
    "distributed learning' (LGC-SGD), 2021",
}

VERDICTS = ("reproduced", "differs", "not checkable")


@dataclass(frozen=True)
class Outcome:
    """What a claim's check found.

    ``computed`` is the recomputed value (number, tuple, dict, or text);
    ``comparison`` says how it was compared (tolerance, interval);
    ``cause`` is required for ``differs`` and ``not checkable``.
    """

    verdict: str
    computed: Any
    comparison: str = ""
    cause: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict != "reproduced" and not self.cause:
            raise ValueError(f"a {self.verdict!r} verdict needs its cause")


@dataclass(frozen=True)
class Claim:
    """One numeric claim of a paper and the function that recomputes it."""

    paper: str
    id: str
    where: str
    statement: str
    paper_value: Any
    check: Callable[[bool], Outcome]
    slow: bool = False

    @property
    def key(self) -> str:
        return f"{self.paper}:{self.id}"


_REGISTRY: dict[str, Claim] = {}


def claim(
    *,
    paper: str,
    id: str,
    where: str,
    statement: str,
    paper_value: Any,
    slow: bool = False,
) -> Callable[[Callable[[bool], Outcome]], Callable[[bool], Outcome]]:
    """Register ``check(quick: bool) -> Outcome`` as the check of a claim.

    ``quick=True`` is the CI mode (``gctheory reproduce --quick``): fewer Monte
    Carlo trials, smaller grids. A claim with ``slow=True`` is skipped in quick
    mode. ``paper_value`` is what the paper prints, for the report only: the
    check may compare against it but must never compute from it.
    """
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)}, got {paper!r}")

    def register(func: Callable[[bool], Outcome]) -> Callable[[bool], Outcome]:
        c = Claim(paper, id, where, statement, paper_value, func, slow)
        if c.key in _REGISTRY and _REGISTRY[c.key].check.__qualname__ != func.__qualname__:
            raise ValueError(f"claim {c.key!r} is registered twice")
        _REGISTRY[c.key] = c
        return func

    return register


def close_verdict(
    computed: float,
    paper_value: float,
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    cause: str = "",
) -> Outcome:
    """``reproduced`` if ``|computed - paper| <= atol + rtol |paper|``, else ``differs``."""
    ok = math.isclose(float(computed), float(paper_value), rel_tol=rtol, abs_tol=atol)
    cmp = f"|computed - paper| <= {atol:g} + {rtol:g}*|paper|"
    if ok:
        return Outcome("reproduced", computed, cmp)
    return Outcome("differs", computed, cmp, cause or "no cause identified")


def all_claims(paper: str | None = None) -> list[Claim]:
    """Import every module of ``paper_checks`` and return the registered claims."""
    import paper_checks

    for mod in pkgutil.iter_modules(paper_checks.__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"paper_checks.{mod.name}")
    if paper is not None and paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)}, got {paper!r}")
    claims = [c for c in _REGISTRY.values() if paper is None or c.paper == paper]
    order = list(PAPERS)
    return sorted(claims, key=lambda c: (order.index(c.paper), c.id))


@dataclass
class ClaimResult:
    """A claim together with what running its check gave."""

    claim: Claim
    outcome: Outcome | None
    seconds: float
    error: str = ""
    skipped: str = ""

    @property
    def verdict(self) -> str:
        if self.error:
            return "error"
        if self.skipped:
            return "skipped"
        assert self.outcome is not None
        return self.outcome.verdict

    def to_json(self) -> dict[str, Any]:
        o = self.outcome
        return {
            "paper": self.claim.paper,
            "id": self.claim.id,
            "where": self.claim.where,
            "statement": self.claim.statement,
            "paper_value": _jsonable(self.claim.paper_value),
            "verdict": self.verdict,
            "computed": _jsonable(o.computed) if o else None,
            "comparison": o.comparison if o else "",
            "cause": o.cause if o else "",
            "error": self.error,
            "skipped": self.skipped,
            "seconds": round(self.seconds, 3),
        }


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return x if math.isfinite(x) else str(x)
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if x is None or isinstance(x, (bool, int, str)):
        return x
    return str(x)


def run_claims(
    claims: list[Claim], *, quick: bool = False, progress: Callable[[str], None] | None = None
) -> list[ClaimResult]:
    """Run each claim's check; an exception is recorded as an ``error`` result."""
    results = []
    for c in claims:
        if quick and c.slow:
            results.append(ClaimResult(c, None, 0.0, skipped="slow claim, skipped in --quick"))
            continue
        t0 = time.perf_counter()
        try:
            outcome = c.check(quick)
            if not isinstance(outcome, Outcome):
                raise TypeError(f"check returned {type(outcome).__name__}, not Outcome")
            res = ClaimResult(c, outcome, time.perf_counter() - t0)
        except Exception:
            res = ClaimResult(c, None, time.perf_counter() - t0, error=traceback.format_exc())
        results.append(res)
        if progress is not None:
            progress(f"{c.key}: {res.verdict} ({res.seconds:.1f}s)")
    return results


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(_fmt(v) for v in x) + ")"
    if isinstance(x, dict):
        return "; ".join(f"{k}: {_fmt(v)}" for k, v in x.items())
    return str(x).replace("\n", " ")


def render_markdown(results: list[ClaimResult], *, quick: bool) -> str:
    """The human-readable report: a summary, then one section per paper."""
    lines = ["# gctheory paper checks", ""]
    lines.append(
        f"Mode: {'quick (CI)' if quick else 'full'}. Every computed value below was recomputed "
        "by gctheory; the paper's printed value is shown for comparison only."
    )
    lines.append("")
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    lines.append("Summary: " + ", ".join(f"{v}: {n}" for v, n in sorted(counts.items())))
    lines.append("")
    for paper, title in PAPERS.items():
        rows = [r for r in results if r.claim.paper == paper]
        if not rows:
            continue
        lines += [f"## {paper}", "", f"*{title}*", ""]
        lines.append(
            "| claim | where | statement | paper | computed | verdict | cause / comparison |"
        )
        lines.append("|---|---|---|---|---|---|---|")
        for r in rows:
            o = r.outcome
            note = r.skipped or (r.error.strip().splitlines()[-1] if r.error else "")
            if o is not None:
                note = "; ".join(p for p in (o.cause, o.comparison) if p)
            cells = [
                r.claim.id,
                r.claim.where,
                r.claim.statement,
                _fmt(r.claim.paper_value),
                _fmt(o.computed) if o else "",
                f"**{r.verdict}**",
                note,
            ]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


def write_report(results: list[ClaimResult], outdir: Path, *, quick: bool) -> tuple[Path, Path]:
    """Write ``REPORT.md`` and ``REPORT.json`` into ``outdir``; return their paths."""
    outdir.mkdir(parents=True, exist_ok=True)
    md = outdir / "REPORT.md"
    js = outdir / "REPORT.json"
    md.write_text(render_markdown(results, quick=quick))
    js.write_text(
        json.dumps(
            {"quick": quick, "claims": [r.to_json() for r in results]}, indent=1, sort_keys=False
        )
        + "\n"
    )
    return md, js


__all__ = [
    "PAPERS",
    "VERDICTS",
    "Claim",
    "ClaimResult",
    "Outcome",
    "all_claims",
    "claim",
    "close_verdict",
    "render_markdown",
    "run_claims",
    "write_report",
]
