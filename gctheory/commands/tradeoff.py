"""``gctheory tradeoff``: the atlas of every scheme for the user's cluster, and the
schemes that are not dominated there."""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import sys
import time
from typing import Any

from gctheory._output import FORMATS, format_table

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


class _Bar:
    """One line on a terminal: steps done, the current step, elapsed time."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.start = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int, label: str) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        width = 30
        fill = int(width * done / total)
        line = (
            f"\rtradeoff [{'#' * fill}{'-' * (width - fill)}] {done}/{total} "
            f"{now - self.start:5.1f}s {label[:40]:<40}"
        )
        self.stream.write(line)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _fmt_time(r: dict[str, Any]) -> str | None:
    t = r.get("time")
    if t is None:
        return None
    if not math.isfinite(t):
        return "inf"
    if r.get("time_mc") is not None:
        return f"{t:.4g} (MC {r['time_low']:.4g}..{r['time_high']:.4g})"
    return f"{t:.4g}"


def _fmt_failure(r: dict[str, Any]) -> str | None:
    f = r.get("failure")
    if f is None:
        return None
    if r.get("failure_low") is not None and r["failure_low"] != r["failure_high"]:
        return f"{f:.3g} [{r['failure_low']:.3g}, {r['failure_high']:.3g}]"
    return f"{f:.3g}"


def summary_rows(table: Any) -> list[dict[str, Any]]:
    """The non-dominated schemes with what each costs: per scheme, its non-dominated rows
    at the operating point ``s`` (or, if none, its non-dominated row nearest to it)."""
    s0 = table.parameters["s"]
    out = []
    for name in table.schemes():
        rows = [
            r
            for r in table.rows
            if r["scheme"] == name and not r["dominated"] and r["generator"] in (None, "gaussian")
        ]
        if not rows:
            continue
        here = [r for r in rows if r["s"] == s0]
        if not here:
            best = min(abs(r["s"] - s0) for r in rows)
            here = [r for r in rows if abs(r["s"] - s0) == best][:1]
        for r in sorted(here, key=lambda r: r["m"]):
            out.append(
                {
                    "scheme": name,
                    "s": r["s"],
                    "m": r["m"],
                    "load": r["load"],
                    "comm": r["communication"],
                    "exact": "yes" if r["exact"] else "no",
                    "P(fail)": _fmt_failure(r),
                    "s_kappa": r["stable_s"],
                    "time": _fmt_time(r),
                    "covered": "yes" if r["covered"] else "no",
                }
            )
    return out


def _handler(args: argparse.Namespace) -> int:
    from gctheory.commands._common import use_file_backend
    from gctheory.plots.tradeoff import save_atlas
    from gctheory.tradeoff import tradeoff

    use_file_backend()

    delay = None if args.delay.strip().lower() == "none" else args.delay
    bar = _Bar(sys.stderr)
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
    paths = save_atlas(table, args.out, dpi=100 if args.quick else 130)
    if args.format == "json":
        print(table.to_json())
    elif args.format == "csv":
        print(paths[2].read_text().rstrip("\n"))
    else:
        p = table.parameters
        title = (
            f"Non-dominated schemes at s = {p['s']} (n = {p['n']}; axes: {p['axes']}; "
            f"eps = {p['eps']:g}, error = {p['error']:g}"
            + (f", kappa = {p['kappa']:g}" if p["kappa"] else "")
            + (f", delay {p['delay']}" if p["delay"] else "")
            + ")"
        )
        print(format_table(summary_rows(table), args.format, title=title))
        dom = table.dominated_schemes()
        if dom:
            print("\ndominated (drawn faded):")
            for name in dom:
                by = next(r["dominated_by"] for r in table.rows if r["scheme"] == name)
                print(f"  {name}: e.g. by {by}")
        if table.notes:
            print("\nnotes:")
            for note in table.notes:
                print(f"  - {note}")
        print("\nwrote " + ", ".join(str(x) for x in paths))
    if args.format == "json" or args.format == "csv":
        print("wrote " + ", ".join(str(x) for x in paths), file=sys.stderr)
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
    p.add_argument(
        "--schemes",
        nargs="+",
        default=None,
        metavar="SCHEME",
        help=f"schemes to compare (default all): {', '.join(TRADEOFF_SCHEMES)}",
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
        help=f"axes of the dominance relation: {', '.join(TRADEOFF_AXES)} (default: all "
        "that were computed)",
    )
    p.add_argument("--quick", action="store_true", help="smaller grids and Monte Carlo runs")
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
    p.add_argument("--out", default="atlas", help="output path without extension (default ./atlas)")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text/md: the non-dominated schemes; csv/json: the whole table",
    )
    p.set_defaults(func=_handler)
