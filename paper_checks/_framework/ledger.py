"""The ledger of expected verdicts: ``gctheory reproduce`` fails when a verdict changes.

``paper_checks/ledger.json`` maps each claim key (``paper:id``) to the verdict
the committed code gives and the key numbers its outcome pins, each with a
tolerance::

    {"kadhe2019:remark3-threshold-3-6": {
        "verdict": "reproduced",
        "key": {"p*": {"value": 0.4294398, "rtol": 1e-06, "atol": 0.0}}}}

A claim whose quick-mode verdict differs from the full one (fewer Monte Carlo
trials) also carries ``"quick_verdict"``. Quick runs compare verdicts only;
full runs compare the key numbers too. Changing the ledger is a deliberate
commit: ``gctheory reproduce --update-ledger`` rewrites it from a run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paper_checks._framework.registry import ClaimResult

LEDGER_PATH = Path(__file__).parent.parent / "ledger.json"
DEFAULT_RTOL = 1e-6

__all__ = [
    "DEFAULT_RTOL",
    "LEDGER_PATH",
    "LedgerDiff",
    "compare_ledger",
    "format_diffs",
    "load_ledger",
    "updated_ledger",
    "write_ledger",
]


@dataclass(frozen=True)
class LedgerDiff:
    """One difference between a run and the ledger."""

    claim: str
    expected: str
    got: str
    why: str


def _key_entry(v: Any) -> dict[str, Any]:
    if isinstance(v, tuple) and len(v) == 2:
        (value, rtol), atol = v, 0.0
    elif isinstance(v, tuple):
        value, rtol, atol = v
    else:
        value, rtol, atol = v, DEFAULT_RTOL, 0.0
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        value = str(value)
    return {"value": value, "rtol": float(rtol), "atol": float(atol)}


def _same(expected: Mapping[str, Any], got: Any) -> bool:
    e = expected["value"]
    g = _key_entry(got)["value"]
    if isinstance(e, (bool, str)) or isinstance(g, (bool, str)):
        return e == g
    return math.isclose(float(g), float(e), rel_tol=expected["rtol"], abs_tol=expected["atol"])


def load_ledger(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The ledger at ``path`` (default the committed one); a missing file is an empty ledger."""
    path = path or LEDGER_PATH
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"ledger {path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or not all(
        isinstance(v, dict) and "verdict" in v for v in data.values()
    ):
        raise ValueError(f"ledger {path}: must map claim keys to objects with a 'verdict'")
    return data


def compare_ledger(
    results: list[ClaimResult],
    ledger: Mapping[str, Mapping[str, Any]],
    *,
    quick: bool,
    complete: bool,
) -> list[LedgerDiff]:
    """Every difference between ``results`` and ``ledger``.

    ``complete`` says the run covered every registered claim, so a ledger
    entry with no result is a claim that disappeared.
    """
    diffs = []
    seen = set()
    for r in results:
        k = r.claim.key
        seen.add(k)
        entry = ledger.get(k)
        if r.skipped:
            continue
        if entry is None:
            diffs.append(LedgerDiff(k, "(not in the ledger)", r.verdict, "new claim"))
            continue
        want = entry.get("quick_verdict", entry["verdict"]) if quick else entry["verdict"]
        if r.error:
            last = r.error.strip().splitlines()[-1]
            diffs.append(LedgerDiff(k, want, "error", last))
            continue
        if r.verdict != want:
            o = r.outcome
            why = (o.cause or o.comparison) if o is not None else ""
            diffs.append(LedgerDiff(k, want, r.verdict, why))
            continue
        if quick:
            continue
        assert r.outcome is not None
        got_key = dict(r.outcome.key)
        for name, exp in entry.get("key", {}).items():
            if name not in got_key:
                diffs.append(LedgerDiff(k, f"{name} = {exp['value']}", "(missing)", "key number"))
            elif not _same(exp, got_key[name]):
                got = _key_entry(got_key[name])["value"]
                tol = f"rtol {exp['rtol']:g}, atol {exp['atol']:g}"
                diffs.append(
                    LedgerDiff(k, f"{name} = {exp['value']}", f"{name} = {got}", f"outside {tol}")
                )
        for name in sorted(set(got_key) - set(entry.get("key", {}))):
            got = _key_entry(got_key[name])["value"]
            diffs.append(LedgerDiff(k, "(not in the ledger)", f"{name} = {got}", "new key number"))
    if complete:
        for k in sorted(set(ledger) - seen):
            diffs.append(
                LedgerDiff(k, ledger[k]["verdict"], "(no such claim)", "claim removed or renamed")
            )
    return diffs


def format_diffs(diffs: list[LedgerDiff]) -> str:
    """The diff a failing ``gctheory reproduce`` prints."""
    lines = [f"{len(diffs)} difference(s) from the ledger:"]
    for d in diffs:
        lines.append(f"  {d.claim}: expected {d.expected}, got {d.got}")
        if d.why:
            why = d.why if len(d.why) <= 300 else d.why[:297] + "..."
            lines.append(f"      why: {why}")
    lines.append(
        "If the change is intended, update the ledger deliberately: "
        "gctheory reproduce --update-ledger (full mode), and commit paper_checks/ledger.json."
    )
    return "\n".join(lines)


def updated_ledger(
    results: list[ClaimResult], ledger: Mapping[str, Mapping[str, Any]], *, quick: bool
) -> dict[str, dict[str, Any]]:
    """The ledger with the verdicts (and, in full mode, key numbers) of ``results``.

    A full run rewrites each claim's entry; a quick run only records the
    claims whose quick verdict differs from the full one (``quick_verdict``).
    Claims that raised are left out: an error is never an expected verdict.
    """
    out = {k: dict(v) for k, v in ledger.items()}
    for r in results:
        if r.skipped or r.error:
            continue
        assert r.outcome is not None
        k = r.claim.key
        if quick:
            if k not in out:
                raise ValueError(
                    f"claim {k} is not in the ledger: record it with a full run "
                    "(gctheory reproduce --update-ledger without --quick) first"
                )
            out[k].pop("quick_verdict", None)
            if r.verdict != out[k]["verdict"]:
                out[k]["quick_verdict"] = r.verdict
            continue
        entry: dict[str, Any] = {"verdict": r.verdict}
        if r.outcome.key:
            entry["key"] = {n: _key_entry(v) for n, v in sorted(r.outcome.key.items())}
        old_quick = out.get(k, {}).get("quick_verdict")
        if old_quick is not None and old_quick != r.verdict:
            entry["quick_verdict"] = old_quick
        out[k] = entry
    return dict(sorted(out.items()))


def write_ledger(ledger: Mapping[str, Any], path: Path | None = None) -> Path:
    """Write ``ledger`` as sorted, indented JSON; return the path."""
    path = path or LEDGER_PATH
    path.write_text(json.dumps(ledger, indent=1, sort_keys=True) + "\n")
    return path
