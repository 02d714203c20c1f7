"""Printing tables as text, Markdown, CSV or JSON (``--format`` of the CLI)."""

from __future__ import annotations

import csv
import io
import json
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

FORMATS = ("text", "md", "csv", "json")

__all__ = ["FORMATS", "format_table", "add_format_argument"]


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return ",".join(_cell(x) for x in v) if v else "empty"
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v):
            return str(v)
        return f"{v:.6g}"
    return str(v)


def _json_value(v: Any) -> Any:
    if hasattr(v, "item") and callable(v.item):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if isinstance(v, numbers.Rational):  # Fraction: its value, as a number
        return float(v)
    return str(v)


def format_table(
    rows: Sequence[Mapping[str, Any]],
    fmt: str = "text",
    columns: Sequence[str] | None = None,
    title: str | None = None,
) -> str:
    """Render ``rows`` (dicts with the same keys) in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    cols = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    if fmt == "json":
        return json.dumps([{c: _json_value(r.get(c)) for c in cols} for r in rows], indent=1)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([_cell(r.get(c)) for c in cols])
        return buf.getvalue().rstrip("\n")
    cells = [[_cell(r.get(c)) for c in cols] for r in rows]
    if fmt == "md":
        out = [] if title is None else [f"**{title}**", ""]
        out.append("| " + " | ".join(cols) + " |")
        out.append("|" + "|".join("---" for _ in cols) + "|")
        out += ["| " + " | ".join(row) + " |" for row in cells]
        return "\n".join(out)
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]
    out = [] if title is None else [title]
    out.append("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(out)


def add_format_argument(parser: Any) -> None:
    """Add the common ``--format text|md|csv|json`` option to an argparse parser."""
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="table output format (default: text)"
    )
