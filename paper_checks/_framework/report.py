"""The report writer behind ``gctheory reproduce``: ``REPORT.md`` and ``REPORT.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paper_checks._framework.experiments import is_not_the_paper
from paper_checks._framework.findings import GROUPS, finding_of
from paper_checks._framework.registry import PAPERS, ClaimResult, all_sources


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(_fmt(v) for v in x) + ")"
    if isinstance(x, dict):
        return "; ".join(f"{k}: {_fmt(v)}" for k, v in x.items())
    return str(x).replace("\n", " ")


def _value(v: Any) -> Any:
    """A ledger key's number without its tolerance."""
    return v[0] if isinstance(v, tuple) else v


def _verdict_counts(results: list[ClaimResult]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return counts


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _overview(results: list[ClaimResult]) -> list[str]:
    """Per paper: statements in the inventory, how many are checked, the verdicts of the
    paper's own claims, the internal-/analogue- checks, and the distinct findings."""
    from paper_checks._framework.inventory import load_inventory

    cols = ["reproduced", "differs", "not checkable", "error", "skipped"]
    found = findings(results)
    lines = [
        "| paper | statements (inventory) | checked | claims | "
        + " | ".join(cols)
        + " | internal-/analogue- | findings |",
        "|---|---|---|---|" + "---|" * len(cols) + "---|---|",
    ]
    for paper in all_sources():
        rows = [r for r in results if r.claim.paper == paper]
        if not rows:
            continue
        ran = {r.claim.id for r in rows if not r.error and not r.skipped}
        inv = load_inventory(paper)
        checked = sum(all(c in ran for c in e.claims) for e in inv)
        own, checks = _paper_rows(rows)
        counts = _verdict_counts(own)
        n_found = sum(1 for v in found.values() if v[0].claim.paper == paper)
        inv_cells = [str(len(inv)), str(checked)] if inv else ["-", "-"]
        lines.append(
            "| "
            + " | ".join(
                [
                    paper,
                    *inv_cells,
                    str(len(own)),
                    *(str(counts.get(c, 0)) for c in cols),
                    str(len(checks)),
                    str(n_found),
                ]
            )
            + " |"
        )
    return lines


def _paper_rows(results: list[ClaimResult]) -> tuple[list[ClaimResult], list[ClaimResult]]:
    """(the papers' own claims, the checks of gctheory: internal- and analogue- claims)."""
    own = [r for r in results if not is_not_the_paper(r.claim.id)]
    return own, [r for r in results if is_not_the_paper(r.claim.id)]


def findings(results: list[ClaimResult]) -> dict[str, list[ClaimResult]]:
    """Finding id -> the differing paper claims it explains (see ``findings.py``)."""
    out: dict[str, list[ClaimResult]] = {}
    for r in results:
        f = finding_of(r.claim.key, r.verdict)
        if f is not None:
            out.setdefault(f, []).append(r)
    return out


def _summary(results: list[ClaimResult]) -> list[str]:
    own, checks = _paper_rows(results)
    found = findings(results)

    def verdicts(rows: list[ClaimResult]) -> str:
        return ", ".join(f"{v}: {n}" for v, n in sorted(_verdict_counts(rows).items()))

    return [
        f"Summary: {len(results)} claims. The papers' own claims ({len(own)}): {verdicts(own)}. "
        f"Checks of gctheory standing in for a statement (internal-, analogue-; "
        f"{len(checks)}): {verdicts(checks) or 'none'}.",
        "",
        f"Findings (distinct root causes of the papers' 'differs'; one printed number counts "
        f"once however many claims judge it): {len(found)}, from "
        f"{sum(len(v) for v in found.values())} differing claims.",
    ]


def _findings_section(results: list[ClaimResult]) -> list[str]:
    found = findings(results)
    if not found:
        return []
    per_paper: dict[str, int] = {}
    for rows in found.values():
        per_paper[rows[0].claim.paper] = per_paper.get(rows[0].claim.paper, 0) + 1
    lines = [
        "## Findings by root cause",
        "",
        "Distinct findings per paper: "
        + ", ".join(f"{p}: {n}" for p, n in per_paper.items())
        + ".",
        "",
        "| finding | paper | claims | what does not hold |",
        "|---|---|---|---|",
    ]
    for f, rows in found.items():
        what = GROUPS[f][0] if f in GROUPS else (rows[0].outcome.cause if rows[0].outcome else "")
        if len(what) > 300:
            what = what[:297] + "..."
        ids = ", ".join(r.claim.id for r in rows)
        lines.append(
            "| " + " | ".join(_cell(c) for c in (f, rows[0].claim.paper, ids, what)) + " |"
        )
    return lines + [""]


def _theorem_table(results: list[ClaimResult]) -> list[str]:
    rows = [r for r in results if r.claim.kind == "theorem"]
    if not rows:
        return []
    lines = [
        "## Theorems verified over their parameter range",
        "",
        "| claim | where | instances | undecided | smallest slack | verdict | counterexample |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        o = r.outcome
        inst = "" if o is None or o.instances is None else f"{o.instances:,}"
        slack = "" if o is None or o.slack is None else _fmt(float(o.slack))
        cex = "" if o is None or o.counterexample is None else _fmt(o.counterexample)
        und = "" if o is None or "undecided" not in o.key else _fmt(_value(o.key["undecided"]))
        cells = [r.claim.key, r.claim.where, inst, und, slack, f"**{r.verdict}**", cex]
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
    lines += _summary(results)
    lines.append("")
    lines += _overview(results)
    lines.append("")
    lines += _findings_section(results)
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
            {"quick": quick, "claims": [r.to_json(finding_of) for r in results]},
            indent=1,
            sort_keys=False,
        )
        + "\n"
    )
    return md, js


__all__ = ["findings", "render_markdown", "write_report"]
