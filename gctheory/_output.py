"""Printing tables as text, Markdown, CSV or JSON (``--format`` of the CLI)."""

from __future__ import annotations

import csv
import io
import json
import math
import numbers
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

FORMATS = ("text", "md", "csv", "json")

__all__ = ["FORMATS", "TEXT_WIDTH", "format_table", "add_format_argument"]


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
    width: int | None = None,
) -> str:
    """Render ``rows`` (dicts with the same keys) in ``fmt`` (one of :data:`FORMATS`).

    The text format keeps every line within ``width`` characters (default
    :data:`TEXT_WIDTH`) by wrapping long cells; md, csv and json keep each cell whole.
    """
    width = TEXT_WIDTH if width is None else width
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
    return _text_table(cols, cells, title, width)


TEXT_WIDTH = 100  # the text format reads in a terminal this wide


def _text_table(cols: list[str], cells: list[list[str]], title: str | None, width: int) -> str:
    """Right-aligned columns two spaces apart, no line longer than ``width``: the widest
    columns are narrowed in turn and their cells wrapped onto continuation lines (numbers
    are short and never wrapped; the md/csv/json formats keep every cell on one line)."""
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]

    def longest_word(i: int) -> int:
        texts = [cols[i]] + [row[i] for row in cells]
        return max((len(w) for t in texts for w in t.split()), default=1)

    # first narrow down to each column's longest word (no word is broken), then, only if
    # that is not enough, down to 8 characters
    for floor in ([min(w, max(8, longest_word(i))) for i, w in enumerate(widths)], None):
        floor = floor or [min(w, 8) for w in widths]
        while sum(widths) + 2 * (len(cols) - 1) > width:
            i = max(range(len(cols)), key=lambda j: widths[j] - floor[j])
            if widths[i] <= floor[i]:
                break
            widths[i] -= 1

    def block(values: list[str]) -> list[str]:
        parts = [
            textwrap.wrap(v, w, break_on_hyphens=False) or [""] for v, w in zip(values, widths)
        ]
        height = max(len(p) for p in parts)
        lines = []
        for k in range(height):
            row = [(p[k] if k < len(p) else "") for p in parts]
            align = [str.rjust if len(p) == 1 else str.ljust for p in parts]
            lines.append("  ".join(a(v, w) for a, v, w in zip(align, row, widths)).rstrip())
        return lines

    out = [] if title is None else textwrap.wrap(title, width)
    out += block(cols)
    out.append("  ".join("-" * w for w in widths))
    for row in cells:
        out += block(row)
    return "\n".join(out)


def add_format_argument(parser: Any) -> None:
    """Add the common ``--format text|md|csv|json`` option to an argparse parser."""
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="table output format (default: text)"
    )
