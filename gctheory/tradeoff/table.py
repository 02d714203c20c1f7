"""The tidy table behind the atlas: one row per scheme (or bound) and parameter point.

Each row is a plain dict with the keys of :data:`TRADEOFF_COLUMNS` (missing values are
None); :class:`TradeoffTable` holds the rows, the parameters they were computed
for, and the notes on what was left out and why. It writes itself as CSV and
JSON, and selects rows for the figure.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TRADEOFF_COLUMNS", "TradeoffTable", "make_row"]

#: Column names of every row, in order (see docs/tradeoff.md for their meaning).
TRADEOFF_COLUMNS: tuple[str, ...] = (
    "scheme",  # scheme name (TRADEOFF_SCHEMES) or "bound:<name>"
    "kind",  # "exact", "approximate", "baseline" or "bound"
    "generator",  # generator family of ye-abbe / commfr-gc rows, else None
    "n",
    "s",  # stragglers the row is designed for
    "m",  # communication saving (messages 1/m of a gradient)
    "k",  # data partitions
    "load",  # partitions per worker, in units of 1/n of the data (d when k = n)
    "load_value",  # the real value a bound's formula gives (= load for codes)
    "communication",  # message length relative to a full gradient (1/m)
    "exact",  # True: every straggler set of size <= s decodes exactly
    "guarantee",  # what the row's failure figure means
    "failure",  # P(err > error k) under s uniformly random stragglers (0 for exact codes)
    "failure_low",
    "failure_high",
    "failure_method",  # "exact", "monte carlo (99% Wilson)", "every straggler set (bound)", ...
    "error_bound",  # deterministic error bound (fraction of k) where one exists
    "s_kappa_guaranteed",  # Theorem 2 of Kadhe et al. 2019 (w.p. >= 1 - eps), None: not covered
    "s_kappa_low",  # certified interval of one generator's empirical s_kappa
    "s_kappa_high",
    "s_kappa_method",
    "stable_s",  # stragglers decodable with condition number <= kappa (the stability axis)
    "time",  # expected iteration time under the delay model (analytic, exact)
    "time_variance",
    "time_mc",  # Monte Carlo twin of time, with its 99% interval
    "time_low",
    "time_high",
    "time_trials",
    "time_optimal",  # True on the s minimising the scheme's time over the sweep
    "covered",  # False: some number of the row is outside its theorem's regime (see note)
    "asymptotic",  # True: the row's bound only holds as n -> infinity
    "source",
    "note",
    "dominated",  # True: another row is no worse on every axis and better on one
    "dominated_by",
)


def make_row(scheme: str, kind: str, **fields: Any) -> dict[str, Any]:
    """A row with every column of :data:`TRADEOFF_COLUMNS` (None where not given)."""
    unknown = set(fields) - set(TRADEOFF_COLUMNS)
    if unknown:
        raise ValueError(f"unknown table columns {sorted(unknown)}; columns are {TRADEOFF_COLUMNS}")
    row = dict.fromkeys(TRADEOFF_COLUMNS)
    row.update(scheme=scheme, kind=kind, covered=True, asymptotic=False, note="")
    row.update(fields)
    return row


def _csv_cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else str(v)
    return v


def _json_cell(v: Any) -> Any:
    if hasattr(v, "item") and callable(v.item):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _json_rows(rows: Iterable[Mapping[str, Any]], cols: Sequence[str]) -> list[dict[str, Any]]:
    """Rows as JSON: a non-finite number becomes null and the row's ``reason`` names it."""
    out = []
    for r in rows:
        row = {c: _json_cell(r[c]) for c in cols}
        why = [f"{c}: {r[c]}" for c in cols if isinstance(r[c], float) and not math.isfinite(r[c])]
        row["reason"] = "; ".join(why) or None
        out.append(row)
    return out


@dataclass(frozen=True)
class TradeoffTable:
    """Rows of the atlas with the parameters they were computed for.

    Attributes
    ----------
    rows : tuple of dict
        One per scheme (or bound) and parameter point; keys :data:`TRADEOFF_COLUMNS`.
    parameters : dict
        ``n``, ``s`` (the operating point of panel 2), ``m``, ``kappa``, ``eps``,
        ``error``, ``delay``, ``tau``, ``axes``, the grids and the Monte Carlo effort.
    notes : tuple of str
        What was left out and why (schemes that cannot exist at some ``(n, s)``,
        theorems that do not cover a parameter, infinite means, ...).

    Examples
    --------
    >>> from gctheory.tradeoff import TradeoffTable, tradeoff
    >>> table = tradeoff(8, schemes=["cyclic-mds", "frc"], quick=True)
    >>> [(r["s"], r["load"]) for r in table.select(scheme="frc")]
    [(0, 1.0), (1, 2.0), (3, 4.0), (7, 8.0)]
    """

    rows: tuple[dict[str, Any], ...]
    parameters: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        schemes = sorted({r["scheme"] for r in self.rows if r["kind"] != "bound"})
        return (
            f"TradeoffTable({len(self.rows)} rows, n={self.parameters.get('n')}, "
            f"schemes={schemes}, {len(self.notes)} notes)"
        )

    def select(self, **where: Any) -> list[dict[str, Any]]:
        """Rows whose columns equal the given values (``scheme="frc", s=3``)."""
        for key in where:
            if key not in TRADEOFF_COLUMNS:
                raise ValueError(f"unknown column {key!r}; columns are {TRADEOFF_COLUMNS}")
        return [r for r in self.rows if all(r[k] == v for k, v in where.items())]

    def schemes(self) -> list[str]:
        """Scheme names with at least one row (bounds excluded), in table order."""
        seen: dict[str, None] = {}
        for r in self.rows:
            if r["kind"] != "bound":
                seen.setdefault(r["scheme"], None)
        return list(seen)

    def dominated_schemes(self) -> list[str]:
        """Schemes every row of which is dominated (see :func:`dominance`)."""
        out = []
        for name in self.schemes():
            rows = [r for r in self.rows if r["scheme"] == name]
            if rows and all(r["dominated"] for r in rows):
                out.append(name)
        return out

    def to_csv(self, path: str | Path) -> Path:
        """Write every row (all of :data:`TRADEOFF_COLUMNS`) as CSV; returns the path."""
        path = Path(path)
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(TRADEOFF_COLUMNS)
            for r in self.rows:
                w.writerow([_csv_cell(r[c]) for c in TRADEOFF_COLUMNS])
        return path

    def to_json(self, columns: Sequence[str] | None = None, *, rows_only: bool = False) -> str:
        """The table as a JSON object: ``title``, ``parameters``, ``notes`` and ``rows``
        (``rows_only``: the bare list of rows). Numbers stay numbers and booleans booleans;
        a non-finite number is ``null`` and the row's ``reason`` says what it was
        (``time: inf``), so the output is strict JSON."""
        cols = list(TRADEOFF_COLUMNS if columns is None else columns)
        rows = _json_rows(self.rows, cols)
        if rows_only:
            return json.dumps(rows, indent=1, default=str, allow_nan=False)
        payload = {
            "title": f"tradeoff atlas for n = {self.parameters.get('n')}",
            "parameters": {k: _json_cell(v) for k, v in self.parameters.items()},
            "notes": list(self.notes),
            "rows": rows,
        }
        return json.dumps(payload, indent=1, default=str, allow_nan=False)

    #: rows an HTML view shows before it says how many more there are
    HTML_ROWS = 60

    def _repr_html_(self) -> str:
        """The table as HTML (Jupyter shows it in place of the repr): the columns that
        hold a value in some row, the first :attr:`HTML_ROWS` rows, then the notes."""
        import html

        cols = [c for c in TRADEOFF_COLUMNS if any(r[c] not in (None, "") for r in self.rows)]

        def cell(v: Any) -> str:
            text = "" if v is None else (f"{v:.6g}" if isinstance(v, float) else str(v))
            return html.escape(text)

        head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
        body = "".join(
            "<tr>" + "".join(f"<td>{cell(r[c])}</td>" for c in cols) + "</tr>"
            for r in self.rows[: self.HTML_ROWS]
        )
        more = len(self.rows) - self.HTML_ROWS
        if more > 0:
            body += f'<tr><td colspan="{len(cols)}">... {more} more rows</td></tr>'
        notes = "".join(f"<li>{html.escape(x)}</li>" for x in self.notes)
        return (
            f'<div class="gctheory-tradeoff"><table><caption>{html.escape(repr(self))}'
            f"</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            + (f"<ul>{notes}</ul>" if notes else "")
            + "</div>"
        )

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame`` (columns :data:`TRADEOFF_COLUMNS`; the
        parameters and notes in ``DataFrame.attrs``). pandas is not a dependency."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "TradeoffTable.to_pandas needs pandas, which gctheory does not install: "
                "pip install pandas"
            ) from None
        df = pd.DataFrame([dict(r) for r in self.rows], columns=list(TRADEOFF_COLUMNS))
        df.attrs.update(parameters=dict(self.parameters), notes=list(self.notes))
        return df

    @staticmethod
    def from_rows(
        rows: Iterable[Mapping[str, Any]],
        parameters: Mapping[str, Any] | None = None,
        notes: Iterable[str] = (),
    ) -> TradeoffTable:
        """A table from hand-built rows (missing columns become None)."""
        full = []
        for r in rows:
            scheme = r.get("scheme")
            if scheme is None:
                raise ValueError("every row needs a 'scheme'")
            extra = {k: v for k, v in r.items() if k not in ("scheme", "kind")}
            full.append(make_row(scheme, r.get("kind", "exact"), **extra))
        return TradeoffTable(tuple(full), dict(parameters or {}), tuple(notes))
