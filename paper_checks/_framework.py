"""The claim registry, the runner and the report writer behind ``gctheory reproduce``."""

from __future__ import annotations

import importlib
import json
import math
import pkgutil
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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

# Papers outside the five seeds whose claims the toolkit also checks (the later literature
# behind the code families and generators). Their checks are reported under their own
# heading. A paper-check module adds its source with :func:`register_source` at import.
OTHER_SOURCES: dict[str, str] = {}

VERDICTS = ("reproduced", "differs", "not checkable")
KINDS = ("claim", "theorem")


def register_source(key: str, citation: str) -> None:
    """Register a paper outside the five seeds (``PAPERS``) so claims can cite it.

    Registering the same key twice with the same citation is a no-op.
    """
    if key in PAPERS:
        raise ValueError(f"source {key!r} is one of the seed papers; use it directly")
    old = OTHER_SOURCES.get(key)
    if old is not None and old != citation:
        raise ValueError(f"source {key!r} is already registered with another citation")
    OTHER_SOURCES[key] = citation


def all_sources() -> dict[str, str]:
    """Seed papers first, then the other sources (in registration order)."""
    return {**PAPERS, **OTHER_SOURCES}


@dataclass(frozen=True)
class Outcome:
    """What a claim's check found.

    ``computed`` is the recomputed value (number, tuple, dict, or text);
    ``comparison`` says how it was compared (tolerance, interval);
    ``cause`` is required for ``differs`` and ``not checkable``.

    ``key`` names the numbers the ledger pins (``paper_checks/ledger.json``):
    ``{name: value}`` with a default tolerance of ``rtol=1e-6``, or
    ``{name: (value, rtol)}`` / ``{name: (value, rtol, atol)}`` for numbers that
    vary more (Monte Carlo estimates: give a tolerance the seed-to-seed spread
    cannot reach, or pin an integer count exactly with ``rtol=0``). Strings and
    booleans are compared exactly.

    A theorem checked over its parameter range (``kind="theorem"``) reports
    ``instances`` (how many parameter points were verified), ``slack`` (the
    smallest relative slack found) and, when it fails, ``counterexample``.
    """

    verdict: str
    computed: Any
    comparison: str = ""
    cause: str = ""
    key: Mapping[str, Any] = field(default_factory=dict)
    instances: int | None = None
    slack: float | None = None
    counterexample: Any = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict != "reproduced" and not self.cause:
            raise ValueError(f"a {self.verdict!r} verdict needs its cause")
        for name, v in self.key.items():
            value = v[0] if isinstance(v, tuple) else v
            if not isinstance(value, (bool, int, float, str, np.integer, np.floating)):
                raise ValueError(
                    f"key number {name!r} must be a number, bool or string (optionally "
                    f"(value, rtol[, atol])), got {type(value).__name__}"
                )


@dataclass(frozen=True)
class Claim:
    """One claim of a paper and the functions that recompute and judge it.

    ``check(quick)`` runs the whole claim. For a claim split into *compute*
    and *judge* (every claim should be), ``compute(quick)`` returns the
    computed numbers, ``judge(computed)`` is a pure function from them to an
    :class:`Outcome`, and ``check`` is ``judge(compute(quick))``. ``examples``
    are counterfactual computed values with the verdict the judge must give
    for each: they show that the verdict can flip (``tests/test_judges.py``
    runs them).
    """

    paper: str
    id: str
    where: str
    statement: str
    paper_value: Any
    check: Callable[[bool], Outcome]
    slow: bool = False
    compute: Callable[[bool], Any] | None = None
    judge: Callable[[Any], Outcome] | None = None
    examples: tuple[tuple[Any, str], ...] = ()
    kind: str = "claim"

    @property
    def key(self) -> str:
        return f"{self.paper}:{self.id}"

    @property
    def seed(self) -> bool:
        """Whether the claim is from one of the five seed papers."""
        return self.paper in PAPERS


_REGISTRY: dict[str, Claim] = {}


def _validate_examples(key: str, examples: Sequence[Any]) -> tuple[tuple[Any, str], ...]:
    out = []
    for ex in examples:
        if not (isinstance(ex, tuple) and len(ex) == 2 and ex[1] in VERDICTS):
            raise ValueError(
                f"claim {key!r}: each example must be a (computed, verdict) pair with verdict "
                f"one of {VERDICTS}, got {ex!r}"
            )
        out.append((ex[0], ex[1]))
    if len({v for _, v in out}) < 2:
        raise ValueError(
            f"claim {key!r}: examples must show at least two different verdicts (a verdict "
            "that cannot change is a defect)"
        )
    return tuple(out)


def claim(
    *,
    paper: str,
    id: str,
    where: str,
    statement: str,
    paper_value: Any,
    slow: bool = False,
    judge: Callable[[Any], Outcome] | None = None,
    examples: Sequence[tuple[Any, str]] = (),
    kind: str = "claim",
) -> Callable[[Callable[[bool], Any]], Callable[[bool], Any]]:
    """Register a claim of ``paper``.

    With ``judge`` (the form every claim should take), the decorated function
    is ``compute(quick) -> computed`` and returns the numbers only;
    ``judge(computed) -> Outcome`` decides the verdict from them alone, and
    ``examples`` (at least two different verdicts) are counterfactual
    computed values with the verdict ``judge`` must return for each. Without
    ``judge`` the decorated function is a legacy ``check(quick) -> Outcome``.

    ``quick=True`` is the desk mode (``gctheory reproduce --quick``): fewer
    Monte Carlo trials, smaller grids; a claim with ``slow=True`` is skipped
    then. ``paper_value`` is what the paper prints, for the report and the
    judge's comparison: the computation must never use it. ``kind="theorem"``
    marks a theorem or lemma verified over its parameter range (the report
    lists those with their instance counts and smallest slack).
    """
    if paper not in PAPERS and paper not in OTHER_SOURCES:
        raise ValueError(
            f"paper must be one of {sorted(PAPERS)} or a source registered with "
            f"register_source ({sorted(OTHER_SOURCES)}), got {paper!r}"
        )
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    key = f"{paper}:{id}"
    if judge is None and examples:
        raise ValueError(f"claim {key!r}: examples need a judge")
    checked = _validate_examples(key, examples) if judge is not None else ()

    def register(func: Callable[[bool], Any]) -> Callable[[bool], Any]:
        if judge is None:
            c = Claim(paper, id, where, statement, paper_value, func, slow, kind=kind)
        else:
            j = judge

            def check(quick: bool) -> Outcome:
                return j(func(quick))

            check.__qualname__ = func.__qualname__
            c = Claim(paper, id, where, statement, paper_value, check, slow, func, j, checked, kind)
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
    sources = all_sources()
    if paper is not None and paper not in sources:
        raise ValueError(f"paper must be one of {sorted(sources)}, got {paper!r}")
    claims = [c for c in _REGISTRY.values() if paper is None or c.paper == paper]
    order = list(sources)
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
        # no timings: a second run of an unchanged checkout must write the same file
        o = self.outcome
        out = {
            "paper": self.claim.paper,
            "id": self.claim.id,
            "kind": self.claim.kind,
            "where": self.claim.where,
            "statement": self.claim.statement,
            "paper_value": _jsonable(self.claim.paper_value),
            "verdict": self.verdict,
            "computed": _jsonable(o.computed) if o else None,
            "comparison": o.comparison if o else "",
            "cause": o.cause if o else "",
            "key": _jsonable(dict(o.key)) if o else {},
            "error": self.error,
            "skipped": self.skipped,
        }
        if o is not None and self.claim.kind == "theorem":
            out["instances"] = o.instances
            out["slack"] = _jsonable(o.slack)
            out["counterexample"] = _jsonable(o.counterexample)
        return out


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


def _verdict_counts(results: list[ClaimResult]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return counts


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _overview(results: list[ClaimResult]) -> list[str]:
    """Per paper: statements in the inventory, how many are checked, and the verdicts."""
    from paper_checks._inventory import load_inventory

    cols = ["reproduced", "differs", "not checkable", "error", "skipped"]
    lines = [
        "| paper | statements (inventory) | checked | claims | " + " | ".join(cols) + " |",
        "|---|---|---|---|" + "---|" * len(cols),
    ]
    for paper in all_sources():
        rows = [r for r in results if r.claim.paper == paper]
        if not rows:
            continue
        ran = {r.claim.id for r in rows if not r.error and not r.skipped}
        inv = load_inventory(paper)
        checked = sum(all(c in ran for c in e.claims) for e in inv)
        counts = _verdict_counts(rows)
        inv_cells = [str(len(inv)), str(checked)] if inv else ["-", "-"]
        lines.append(
            "| "
            + " | ".join(
                [paper, *inv_cells, str(len(rows)), *(str(counts.get(c, 0)) for c in cols)]
            )
            + " |"
        )
    return lines


def _theorem_table(results: list[ClaimResult]) -> list[str]:
    rows = [r for r in results if r.claim.kind == "theorem"]
    if not rows:
        return []
    lines = [
        "## Theorems verified over their parameter range",
        "",
        "| claim | where | instances | smallest slack | verdict | counterexample |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        o = r.outcome
        inst = "" if o is None or o.instances is None else f"{o.instances:,}"
        slack = "" if o is None or o.slack is None else _fmt(float(o.slack))
        cex = "" if o is None or o.counterexample is None else _fmt(o.counterexample)
        cells = [r.claim.key, r.claim.where, inst, slack, f"**{r.verdict}**", cex]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return lines + [""]


def render_markdown(results: list[ClaimResult], *, quick: bool) -> str:
    """The human-readable report: a summary, then one section per paper."""
    lines = ["# gctheory paper checks", ""]
    lines.append(
        f"Mode: {'quick' if quick else 'full'}. Every computed value below was recomputed "
        "by gctheory; the paper's printed value is shown for comparison only."
    )
    lines.append("")
    counts = _verdict_counts(results)
    lines.append("Summary: " + ", ".join(f"{v}: {n}" for v, n in sorted(counts.items())))
    lines.append("")
    lines += _overview(results)
    lines.append("")
    lines += _theorem_table(results)
    other_heading = False
    for paper, title in all_sources().items():
        rows = [r for r in results if r.claim.paper == paper]
        if not rows:
            continue
        if paper not in PAPERS and not other_heading:
            lines += [
                "# Other sources",
                "",
                "Claims of papers beyond the five seeds, behind the constructions the "
                "toolkit adds.",
                "",
            ]
            other_heading = True
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
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


def write_report(
    results: list[ClaimResult], outdir: Path, *, quick: bool, stem: str = "REPORT"
) -> tuple[Path, Path]:
    """Write ``<stem>.md`` and ``<stem>.json`` into ``outdir``; return their paths."""
    outdir.mkdir(parents=True, exist_ok=True)
    md = outdir / f"{stem}.md"
    js = outdir / f"{stem}.json"
    md.write_text(render_markdown(results, quick=quick))
    js.write_text(
        json.dumps(
            {"quick": quick, "claims": [r.to_json() for r in results]}, indent=1, sort_keys=False
        )
        + "\n"
    )
    return md, js


__all__ = [
    "KINDS",
    "OTHER_SOURCES",
    "PAPERS",
    "VERDICTS",
    "Claim",
    "ClaimResult",
    "Outcome",
    "all_claims",
    "all_sources",
    "claim",
    "close_verdict",
    "register_source",
    "render_markdown",
    "run_claims",
    "write_report",
]
