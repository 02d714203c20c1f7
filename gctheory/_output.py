"""Printing tables as text, Markdown, CSV or JSON (``--format`` of the CLI).

One renderer for every command. The text format

* never splits a number or an identifier (a cell without spaces is one token; a
  cell with spaces wraps at word boundaries only);
* fits the terminal (:func:`text_width`: ``shutil.get_terminal_size``, 100 columns
  when stdout is not a terminal and ``COLUMNS`` is unset) by, in turn, wrapping
  prose cells and headers at spaces, abbreviating long one-word headers (with a
  legend under the table), leaving out the columns a command marks optional
  (named under the table), and finally printing one block of ``name: value``
  lines per row;
* wraps titles and notes at word boundaries.

JSON is an object ``{"title", "parameters", "rows", "notes"}``: numbers as
numbers, booleans as booleans, intervals (:class:`Interval`) as ``[low, high]``,
non-finite numbers as ``null`` with a ``reason`` column saying which value was
what. ``--format json-rows`` prints the bare list of rows. CSV starts with the
title and the parameters as ``#`` comment lines, then the header.
"""

from __future__ import annotations

import csv
import io
import json
import math
import numbers
import re
import shutil
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

FORMATS = ("text", "md", "csv", "json", "json-rows")

__all__ = [
    "FORMATS",
    "TEXT_WIDTH",
    "Interval",
    "add_format_argument",
    "format_table",
    "set_parameters",
    "text_width",
    "wrap",
]

TEXT_WIDTH = 100  # the width used when stdout is not a terminal and COLUMNS is unset
_MIN_WIDTH = 40

# the parameters of the command being run (set by the CLI entry), written into the
# json object and the csv comment header of every table it prints
_PARAMETERS: dict[str, Any] | None = None


class Interval(tuple):
    """A ``(low, high)`` pair: ``[low, high]`` in text, a two-element array in JSON."""

    def __new__(cls, low: Any, high: Any) -> Interval:
        return super().__new__(cls, (low, high))

    @property
    def low(self) -> Any:
        return self[0]

    @property
    def high(self) -> Any:
        return self[1]


def set_parameters(parameters: Mapping[str, Any] | None) -> None:
    """Record the parameters of the running command (``None`` to forget them)."""
    global _PARAMETERS
    _PARAMETERS = None if parameters is None else {k: _json_value(v) for k, v in parameters.items()}


def text_width() -> int:
    """Columns available to the text format: the terminal's (``COLUMNS`` first), else 100."""
    return max(_MIN_WIDTH, shutil.get_terminal_size((TEXT_WIDTH, 24)).columns)


def wrap(text: str, width: int | None = None, indent: str = "") -> list[str]:
    """``text`` wrapped at spaces (never inside a word or a number); keeps its newlines."""
    width = text_width() if width is None else width
    out: list[str] = []
    for para in str(text).split("\n"):
        out += textwrap.wrap(
            para,
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [""]
    return out


def _num(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.6g}"


def _cell(v: Any) -> str:
    if hasattr(v, "item") and callable(v.item) and not isinstance(v, (list, tuple)):
        try:
            v = v.item()
        except (TypeError, ValueError):
            pass
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Interval):
        return f"[{_cell(v[0])}, {_cell(v[1])}]"
    if isinstance(v, (list, tuple)):
        return ",".join(_cell(x) for x in v) if v else "empty"
    if isinstance(v, float):
        return _num(v)
    return str(v)


def _json_value(v: Any) -> Any:
    if hasattr(v, "item") and callable(v.item) and not isinstance(v, (list, tuple)):
        try:
            v = v.item()
        except (TypeError, ValueError):
            pass
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, numbers.Rational):  # Fraction: its value, as a number
        return float(v)
    if isinstance(v, numbers.Real):
        return _json_value(float(v))
    return str(v)


def _nonfinite(v: Any) -> str | None:
    """``'inf'``/``'-inf'``/``'nan'`` for a non-finite number (also inside an interval)."""
    if isinstance(v, (list, tuple)):
        found = [f for f in (_nonfinite(x) for x in v) if f]
        return "/".join(found) or None
    try:
        f = float(v) if isinstance(v, numbers.Real) and not isinstance(v, bool) else None
    except (TypeError, ValueError, OverflowError):
        return None
    return None if f is None or math.isfinite(f) else _num(f)


def _json_rows(rows: Sequence[Mapping[str, Any]], cols: list[str]) -> list[dict[str, Any]]:
    """Rows as JSON values; a non-finite number becomes null and the row's ``reason`` says
    what it was (``time: inf``), so no number is lost and no parser meets a string."""
    out: list[dict[str, Any]] = []
    reasons: list[str] = []
    for r in rows:
        why = []
        for c in cols:
            bad = _nonfinite(r.get(c))
            if bad:
                why.append(f"{c}: {bad}")
        reasons.append("; ".join(why))
        out.append({c: _json_value(r.get(c)) for c in cols})
    if any(reasons):
        for row, reason in zip(out, reasons):
            old = row.get("reason")
            row["reason"] = "; ".join(x for x in (old, reason) if x) or None
    return out


def format_table(
    rows: Sequence[Mapping[str, Any]],
    fmt: str = "text",
    columns: Sequence[str] | None = None,
    title: str | None = None,
    width: int | None = None,
    *,
    optional: Sequence[str] = (),
    notes: Sequence[str] = (),
    parameters: Mapping[str, Any] | None = None,
) -> str:
    """Render ``rows`` (dicts with the same keys) in ``fmt`` (one of :data:`FORMATS`).

    Parameters
    ----------
    rows : sequence of mapping
        One dict per row.
    fmt : str
        ``text`` (fits ``width``), ``md``, ``csv`` (with ``#`` comment header), ``json``
        (an object with ``title``, ``parameters``, ``rows``, ``notes``) or ``json-rows``
        (the bare list of rows).
    columns : sequence of str, optional
        Columns in order (default: the first row's keys).
    title : str, optional
        Printed above a text or md table; the ``title`` of the json object.
    width : int, optional
        Text width (default :func:`text_width`).
    optional : sequence of str
        Columns the text format may leave out, first named first, when the table does
        not fit otherwise (it names them under the table; the other formats keep them).
    notes : sequence of str
        Printed under a text table (wrapped) and kept in json.
    parameters : mapping, optional
        The json object's and the csv header's parameters (default: those of the
        running command, :func:`set_parameters`).
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    width = text_width() if width is None else int(width)
    cols = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    params = (
        _PARAMETERS if parameters is None else {k: _json_value(v) for k, v in parameters.items()}
    )
    if fmt == "json-rows":
        return json.dumps(_json_rows(rows, cols), indent=1, allow_nan=False)
    if fmt == "json":
        payload = {
            "title": title,
            "parameters": params or {},
            "rows": _json_rows(rows, cols),
            "notes": list(notes),
        }
        return json.dumps(payload, indent=1, allow_nan=False)
    if fmt == "csv":
        buf = io.StringIO()
        if title:
            for line in str(title).splitlines():
                buf.write(f"# {line}\n")
        for k, v in (params or {}).items():
            buf.write(f"# {k} = {json.dumps(v)}\n")
        for note in notes:
            buf.write(f"# note: {note}\n")
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([_csv_cell(r.get(c)) for c in cols])
        return buf.getvalue().rstrip("\n")
    cells = [[_cell(r.get(c)) for c in cols] for r in rows]
    if fmt == "md":
        out = [] if title is None else [f"**{title}**", ""]
        out.append("| " + " | ".join(cols) + " |")
        out.append("|" + "|".join("---" for _ in cols) + "|")
        out += ["| " + " | ".join(row) + " |" for row in cells]
        out += [""] + [f"- {n}" for n in notes] if notes else []
        return "\n".join(out)
    return _text_table(cols, cells, title, width, optional=optional, notes=notes)


def _csv_cell(v: Any) -> str:
    if isinstance(v, Interval):
        return f"[{_cell(v[0])}, {_cell(v[1])}]"
    return _cell(v)


# ---------------------------------------------------------------------------
# the text layout

_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?%?$|^[-+]?(inf|nan)$")


def _is_number(text: str) -> bool:
    return bool(_NUMBER.match(text))


def _longest_word(text: str) -> int:
    return max((len(w) for w in text.split()), default=0)


def _abbreviate(name: str, taken: set[str], room: int = 4) -> str:
    """A short unique label for a long one-word header: its first ``room`` letters if
    they fit, else the initials of its parts (``speedup_vs_wait_all`` -> ``svwa``)."""
    parts = [p for p in re.split(r"[_\-.]+", name) if p]
    candidates = []
    if len(parts) > 1:
        candidates += ["".join(p[0] for p in parts)]
    candidates += [name[:k] for k in range(room, 3, -1)]
    candidates += [name[:k] for k in range(4, len(name))]
    for c in candidates:
        if c not in taken:
            return c
    k = 2
    while f"{name[:3]}{k}" in taken:
        k += 1
    return f"{name[:3]}{k}"


def _text_table(
    cols: list[str],
    cells: list[list[str]],
    title: str | None,
    width: int,
    optional: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> str:
    """Columns two spaces apart, no line longer than ``width``, no token split (see the
    module docstring for the order of the steps that make a table fit)."""
    head = wrap(title, width) if title else []
    keep = list(range(len(cols)))
    dropped: list[str] = []
    drop_order = [cols.index(c) for c in optional if c in cols]
    while True:
        body = _grid([cols[i] for i in keep], [[row[i] for i in keep] for row in cells], width)
        if body is not None or not drop_order:
            break
        i = drop_order.pop(0)
        keep.remove(i)
        dropped.append(cols[i])
    if body is None:
        keep = list(range(len(cols)))
        dropped = []
        body = _blocks(cols, cells, width)
    tail = []
    if dropped:
        tail += wrap("not shown here (--format csv or json has them): " + ", ".join(dropped), width)
    for note in notes:
        tail += wrap(note, width)
    return "\n".join(head + body + tail)


def _grid(cols: list[str], cells: list[list[str]], width: int) -> list[str] | None:
    """The table as aligned columns within ``width``, or None if it cannot fit."""
    n = len(cols)
    if n == 0:
        return []
    gap = 2
    # each column's cells: single tokens (numbers, identifiers) never break; prose wraps
    cell_floor = [max([0] + [_longest_word(row[i]) for row in cells]) for i in range(n)]
    numeric = [
        bool(cells) and all(_is_number(row[i]) or row[i] == "" for row in cells) for i in range(n)
    ]
    headers = list(cols)
    legend: list[tuple[int, str]] = []

    def total(ws: list[int]) -> int:
        return sum(ws) + gap * (n - 1)

    body_w = [max([0] + [len(row[i]) for row in cells]) for i in range(n)]
    taken = set(cols)
    while True:
        head_floor = [_longest_word(h) for h in headers]
        floor = [max(1, cf, hf) for cf, hf in zip(cell_floor, head_floor)]
        widths = [max(len(h), body_w[i]) for i, h in enumerate(headers)]
        while total(widths) > width:
            i = max(range(n), key=lambda j: widths[j] - floor[j])
            if widths[i] <= floor[i]:
                break
            widths[i] -= 1
        if total(widths) <= width:
            break
        # abbreviate the one-word header that overhangs its cells the most (legend below)
        over = [
            (head_floor[i] - max(cell_floor[i], 4), i)
            for i in range(n)
            if headers[i] == cols[i] and " " not in cols[i].strip()
        ]
        over = [(d, i) for d, i in over if d > 0]
        if not over:
            return None
        _, i = max(over)
        short = _abbreviate(cols[i], taken, max(cell_floor[i], 4))
        taken.add(short)
        headers[i] = short
        legend.append((i, f"{short}={cols[i]}"))

    def line_block(values: list[str]) -> list[str]:
        parts = [wrap(v, w) if len(v) > w else [v] for v, w in zip(values, widths)]
        height = max(len(p) for p in parts)
        lines = []
        for k in range(height):
            row = []
            for i, p in enumerate(parts):
                v = p[k] if k < len(p) else ""
                row.append(v.rjust(widths[i]) if numeric[i] else v.ljust(widths[i]))
            lines.append("  ".join(row).rstrip())
        return lines

    out = line_block(headers)
    out.append("  ".join("-" * w for w in widths))
    for row in cells:
        out += line_block(row)
    if legend:
        out += wrap("columns: " + ", ".join(t for _, t in sorted(legend)), width)
    return out


def _blocks(cols: list[str], cells: list[list[str]], width: int) -> list[str]:
    """One block of ``name: value`` lines per row (the layout for tables too wide for any
    grid); values wrap at spaces under themselves, or start on the next line."""
    key_w = min(max((len(c) for c in cols), default=0), width // 2)
    out: list[str] = []
    for r, row in enumerate(cells):
        if r:
            out.append("")
        for c, v in zip(cols, row):
            if v == "":
                continue
            room = width - key_w - 2
            if len(c) <= key_w and _longest_word(v) <= room:
                lines = wrap(v, room)
                out.append(f"{c.ljust(key_w)}  {lines[0]}".rstrip())
                out += [" " * (key_w + 2) + ln for ln in lines[1:]]
            else:
                out.append(f"{c}:")
                out += wrap(v, width, indent="    ")
    return out


def add_format_argument(parser: Any) -> None:
    """Add the common ``--format`` option to an argparse parser."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output: text (fits the terminal), md, csv (with a # header of parameters), "
        "json (an object: title, parameters, rows) or json-rows (the bare list of rows)",
    )
