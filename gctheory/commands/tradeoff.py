"""``gctheory tradeoff``: the atlas of every scheme for the user's cluster, and the
schemes that are not dominated there."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

from gctheory._output import FORMATS, Interval, _json_value, format_table, wrap
from gctheory._progress import Progress
from gctheory.commands._common import add_quiet_argument, progress_enabled, scheme_type

__all__ = ["register"]

# Halbawi et al. 2017, Section 6: t0 = 0.001, xi = 1.1
_DEFAULT_DELAY = "pareto(scale=0.001, shape=1.1)"


class _NotATerminal(io.TextIOBase):
    """stderr as seen by the computation: writes pass through, but it is not a terminal,
    so the Monte Carlo runs inside draw no bars of their own under ours."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return False


def _time(r: dict[str, Any]) -> float | None:
    return r.get("time")


def _time_mc(r: dict[str, Any]) -> Interval | None:
    if r.get("time_mc") is None:
        return None
    return Interval(r["time_low"], r["time_high"])


def _failure_interval(r: dict[str, Any]) -> Interval | None:
    if r.get("failure_low") is None or r["failure_low"] == r["failure_high"]:
        return None
    return Interval(r["failure_low"], r["failure_high"])


def _missing_axes(r: dict[str, Any], axes: list[str]) -> list[str]:
    """The axes on which ``r`` has no value (None or NaN): it cannot be compared there."""
    from gctheory.tradeoff import TRADEOFF_AXES

    out = []
    for a in axes:
        v = r.get(TRADEOFF_AXES[a][0])
        if v is None or (isinstance(v, float) and math.isnan(v)):
            out.append(a)
    return out


def summary_rows(table: Any) -> list[dict[str, Any]]:
    """Per scheme, the rows worth reading at the operating point ``s``, and why each is shown.

    ``standing`` is ``non-dominated`` (no row is at least as good on every axis and better
    on one, and the row has a value on every axis), or ``incomparable`` (no row dominates
    it, but a value it lacks, e.g. an s_kappa nobody can compute for a code that always
    fails, keeps it from being compared: it is not called non-dominated). ``why`` says
    whether the row is at ``s`` or is the scheme's nearest such point (none at ``s``).
    Schemes every row of which is dominated are left out (listed under the table).
    """
    s0 = table.parameters["s"]
    axes = [a for a in str(table.parameters.get("axes", "")).split(",") if a]
    out = []
    for name in table.schemes():
        rows = [
            r
            for r in table.rows
            if r["scheme"] == name
            and r["dominated"] is False
            and r["generator"] in (None, "gaussian")
        ]
        if not rows:
            continue
        full = [r for r in rows if not _missing_axes(r, axes)]
        standing = "non-dominated" if full else "incomparable"
        rows = full or rows
        here = [r for r in rows if r["s"] == s0]
        if here:
            why = f"at s = {s0}"
        else:
            best = min(abs(r["s"] - s0) for r in rows)
            here = [r for r in rows if abs(r["s"] - s0) == best][:1]
            why = f"nearest (none at s = {s0})"
        for r in sorted(here, key=lambda r: r["m"]):
            missing = _missing_axes(r, axes)
            note = f"no value for {', '.join(missing)}" if missing else ""
            if r.get("failure") is not None and r["failure"] >= 1:
                note = "always fails" + (f"; {note}" if note else "")
            out.append(
                {
                    "scheme": name,
                    "standing": standing,
                    "s": r["s"],
                    "m": r["m"],
                    "load": r["load"],
                    "comm": r["communication"],
                    "exact": bool(r["exact"]),
                    "P(fail)": r.get("failure"),
                    "P(fail) CI": _failure_interval(r),
                    "s_kappa": r["stable_s"],
                    "time": _time(r),
                    "time MC CI": _time_mc(r),
                    "covered": bool(r["covered"]),
                    "why shown": why,
                    "note": note,
                }
            )
    return out


def _out_path(text: str | None) -> tuple[Path, bool]:
    """``--out``: a stem (``runs/atlas`` -> runs/atlas.png ...) or an existing folder
    (``/tmp`` -> /tmp/atlas.png ...); none: a new temporary folder. Returns the stem and
    whether it is temporary."""
    if text is None:
        return Path(tempfile.mkdtemp(prefix="gctheory-tradeoff-")) / "atlas", True
    out = Path(text).expanduser()
    if out.is_dir() or text.endswith(("/", "\\")):
        out = out / "atlas"
    if out.suffix.lower() in (".png", ".svg", ".csv"):
        out = out.with_suffix("")
    return out, False


def _handler(args: argparse.Namespace) -> int:
    from gctheory.commands._common import use_file_backend
    from gctheory.plots.tradeoff import save_atlas
    from gctheory.tradeoff import tradeoff

    use_file_backend()

    delay = None if args.delay.strip().lower() == "none" else args.delay
    out, temporary = _out_path(args.out)
    bar = Progress(1, "tradeoff", enabled=progress_enabled(args))
    try:
        with contextlib.redirect_stderr(_NotATerminal(sys.stderr)):
            table = tradeoff(
                args.n,
                s=args.s,
                m=args.m,
                kappa=args.kappa,
                eps=args.eps,
                delay=delay,
                schemes=args.schemes,
                error=args.error,
                tau=args.tau,
                generators=args.generators,
                axes=args.axes,
                quick=args.quick,
                trials=args.trials,
                time_trials=args.time_trials,
                rng=args.seed,
                progress=bar,
            )
    finally:
        bar.close()
    from gctheory.plots._base import raster_only

    # --quick writes the PNG and the CSV only, as every quick figure (reproduce --quick)
    with raster_only() if args.quick else contextlib.nullcontext():
        paths = save_atlas(table, out, dpi=100 if args.quick else 130)
    wrote = "wrote " + ", ".join(str(x) for x in paths)
    if temporary:
        wrote += " (a new temporary folder: --out PATH writes PATH.png, PATH.svg, PATH.csv)"
    p = table.parameters
    if args.format in ("json", "json-rows"):
        print(table.to_json(rows_only=args.format == "json-rows"))
    elif args.format == "csv":
        head = "".join(f"# {k} = {json.dumps(_json_value(v))}\n" for k, v in p.items())
        print(head + paths[-1].read_text().rstrip("\n"))  # the CSV (last)
    else:
        title = (
            f"Schemes not dominated at s = {p['s']} (n = {p['n']}; axes: {p['axes']}; "
            f"eps = {p['eps']:g}, error = {p['error']:g}"
            + (f", kappa = {p['kappa']:g}" if p["kappa"] else "")
            + (f", delay {p['delay']}" if p["delay"] else "")
            + "); the operating point of panel (b)"
        )
        print(
            format_table(
                summary_rows(table),
                args.format,
                title=title,
                optional=("P(fail) CI", "time MC CI", "covered", "comm"),
            )
        )
        dom = table.dominated_schemes()
        lines = []
        if dom:
            lines += ["", "dominated (drawn faded):"]
            for name in dom:
                by = next(r["dominated_by"] for r in table.rows if r["scheme"] == name)
                lines += wrap(f"{name}: e.g. by {by}", indent="  ")
        if table.notes:
            lines += ["", "notes:"]
            for note in table.notes:
                w = wrap(note, indent="    ")
                lines += ["  - " + w[0][4:], *w[1:]]
        print("\n".join(lines + [""] + wrap(wrote)))
    if args.format != "text" and args.format != "md":
        print(wrote, file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    from gctheory._names import TRADEOFF_AXES, TRADEOFF_SCHEMES

    p = subparsers.add_parser(
        "tradeoff",
        help="the atlas of every scheme for your n, delays, kappa and eps (PNG, SVG, CSV)",
        description=(
            "Computation load, communication, straggler tolerance, failure probability, "
            "numerical stability (s_kappa) and expected iteration time of every gradient-"
            "coding scheme for n workers, with the lower bounds of Ye-Abbe and Wang et al. "
            "2019. Writes OUT.png, OUT.svg and OUT.csv (the table behind the figure) and "
            "prints the schemes no other scheme dominates. --format json prints the whole "
            "table."
        ),
    )
    _add_problem_options(p)
    _add_delay_options(p)
    _add_scheme_options(p, TRADEOFF_SCHEMES, TRADEOFF_AXES)
    _add_effort_options(p)
    _add_output_options(p)
    p.set_defaults(func=_handler)


def _add_problem_options(p: argparse.ArgumentParser) -> None:
    """The cluster and the targets: ``--n``, ``--s``, ``--m``, ``--kappa``, ``--eps``,
    ``--error``."""
    p.add_argument("--n", type=int, required=True, help="number of workers (n >= 2)")
    p.add_argument(
        "--s", type=int, default=None, help="operating point: stragglers (default round(n/10))"
    )
    p.add_argument(
        "--m",
        type=int,
        default=None,
        help="communication saving of Ye-Abbe / CommFR-GC in the sweep (default 2)",
    )
    p.add_argument(
        "--kappa",
        type=float,
        default=None,
        help="largest condition number the decoder may invert (>= 1; default: "
        "stability not computed)",
    )
    p.add_argument(
        "--eps",
        type=float,
        default=1e-3,
        help="failure probability in (0, 1): Theorem 2's eps and the target of "
        "the d-FRC and finite-n bounds (default 1e-3)",
    )
    p.add_argument(
        "--error",
        type=float,
        default=0.05,
        help="error level of the approximate codes: fail when err > error * k (default 0.05)",
    )


def _add_delay_options(p: argparse.ArgumentParser) -> None:
    """The time axis: ``--delay`` and ``--tau``."""
    p.add_argument(
        "--delay",
        default=_DEFAULT_DELAY,
        help="delay model: shifted_exp(shift, mean), exp(mean), pareto(scale, "
        "shape), uniform(low, high), a measured trace trace:PATH[?key=value...], or none "
        f"(default {_DEFAULT_DELAY!r}, Halbawi et al.)",
    )
    p.add_argument(
        "--tau", type=float, default=0.0, help="time to send a full gradient (default 0)"
    )


def _add_scheme_options(p: argparse.ArgumentParser, schemes: Any, axes: Any) -> None:
    """What is compared: ``--schemes``, ``--generators``, ``--axes``."""
    p.add_argument(
        "--schemes",
        nargs="+",
        default=None,
        metavar="SCHEME",
        type=scheme_type(schemes, plugins=True),
        help=f"schemes to compare (default all): {', '.join(schemes)}",
    )
    p.add_argument(
        "--generators",
        nargs="+",
        default=None,
        metavar="FAMILY",
        help="generator families of the stability panel (default all)",
    )
    p.add_argument(
        "--axes",
        nargs="+",
        default=None,
        metavar="AXIS",
        help=f"axes of the dominance relation: {', '.join(axes)} (default: all that were computed)",
    )


def _add_effort_options(p: argparse.ArgumentParser) -> None:
    """Monte Carlo and search effort: ``--quick``, ``--trials``, ``--time-trials``, ``--seed``."""
    p.add_argument(
        "--quick",
        action="store_true",
        help="smaller grids and Monte Carlo runs; the atlas as PNG and CSV (no SVG)",
    )
    p.add_argument(
        "--trials",
        type=int,
        default=None,
        help="Monte Carlo straggler sets per approximate-code point",
    )
    p.add_argument(
        "--time-trials", type=int, default=None, help="Monte Carlo iterations per time point"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")


def _add_output_options(p: argparse.ArgumentParser) -> None:
    """Where and how the atlas goes: ``--out``, ``--quiet``, ``--format``."""
    p.add_argument(
        "--out",
        default=None,
        help="where the atlas goes: PATH writes PATH.png, PATH.svg and PATH.csv; an existing "
        "folder DIR writes DIR/atlas.*; default: a new temporary folder, named in the output "
        "(never the current folder)",
    )
    add_quiet_argument(p)
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text/md: the schemes not dominated, and why each row is shown; csv, json "
        "(an object: title, parameters, notes, rows) or json-rows: the whole table",
    )
