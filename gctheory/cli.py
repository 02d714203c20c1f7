"""The ``gctheory`` command line.

Core commands live here: ``reproduce`` (every paper check and figure, and the
report), ``check`` (the claims of one paper, printed as a table) and
``figures`` (remake figures). Topic commands (``table1``, ``threshold``,
``orderstat``, ...) are contributed by the modules of :mod:`gctheory.commands`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from gctheory import __version__
from gctheory._output import add_format_argument, format_table

__all__ = ["main", "build_parser"]


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _run_figures(outdir: Path, quick: bool, names: Sequence[str] | None = None) -> int:
    from gctheory.commands._common import use_file_backend
    from gctheory.plots import all_figures

    use_file_backend()

    makers = all_figures()
    if names:
        known = {m.name for m in makers}
        unknown = sorted(set(names) - known)
        if unknown:
            raise ValueError(f"unknown figure(s) {unknown}; known: {sorted(known)}")
        makers = [m for m in makers if m.name in names]
    failed = 0
    for m in makers:
        if quick and m.slow:
            _log(f"figure {m.name}: skipped (slow) in --quick")
            continue
        t0 = time.perf_counter()
        try:
            paths = m.make(outdir, quick)
            _log(f"figure {m.name}: {len(paths)} files ({time.perf_counter() - t0:.1f}s)")
        except Exception:
            failed += 1
            _log(f"figure {m.name}: FAILED\n{traceback.format_exc()}")
    return failed


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from paper_checks import all_claims, run_claims
    from paper_checks._framework.ledger import (
        LEDGER_PATH,
        compare_ledger,
        format_diffs,
        load_ledger,
        updated_ledger,
        write_ledger,
    )
    from paper_checks._framework.report import write_report

    if args.outdir is None:
        # a quick run never overwrites the committed full-run outputs of a checkout
        outdir = Path(".")
        stem, figdir = (
            ("REPORT.quick", Path("figures") / "quick")
            if args.quick
            else (
                "REPORT",
                Path("figures"),
            )
        )
    else:
        outdir = Path(args.outdir)
        stem, figdir = "REPORT", outdir / "figures"
    ledger_path = Path(args.ledger) if args.ledger else LEDGER_PATH
    ledger = load_ledger(ledger_path)
    claims = all_claims(args.paper)
    _log(f"running {len(claims)} claims ({'quick' if args.quick else 'full'} mode)")
    results = run_claims(claims, quick=args.quick, progress=_log)
    md, js = write_report(results, outdir / "paper_checks", quick=args.quick, stem=stem)
    failed_figs = 0
    if not args.no_figures:
        failed_figs = _run_figures(figdir, args.quick)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    print(f"report: {md} and {js}")
    print("verdicts: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
    errors = counts.get("error", 0)
    rc = 0
    if args.update_ledger:
        new = updated_ledger(results, ledger, quick=args.quick)
        print(f"ledger updated: {write_ledger(new, ledger_path)}")
    else:
        diffs = compare_ledger(results, ledger, quick=args.quick, complete=args.paper is None)
        if diffs:
            print(format_diffs(diffs), file=sys.stderr)
            rc = 1
        else:
            print(f"ledger: every verdict as expected ({ledger_path})")
    if errors or failed_figs:
        print(f"{errors} claim(s) raised and {failed_figs} figure(s) failed", file=sys.stderr)
        rc = 1
    return rc


def _cmd_check(args: argparse.Namespace) -> int:
    from paper_checks import all_claims, run_claims
    from paper_checks._framework.report import _fmt

    results = run_claims(all_claims(args.paper), quick=args.quick)
    rows = []
    for r in results:
        o = r.outcome
        rows.append(
            {
                "claim": r.claim.key,
                "where": r.claim.where,
                "paper": _fmt(r.claim.paper_value),
                "computed": _fmt(o.computed) if o else "",
                "verdict": r.verdict,
                "cause": (o.cause if o else (r.skipped or r.error.strip().splitlines()[-1])),
            }
        )
    print(format_table(rows, args.format))
    return 1 if any(r.verdict == "error" for r in results) else 0


def _cmd_figures(args: argparse.Namespace) -> int:
    if args.list:
        from gctheory.plots import all_figures

        rows = [
            {"name": m.name, "paper": m.paper or "", "slow": m.slow, "description": m.description}
            for m in all_figures()
        ]
        print(format_table(rows, args.format))
        return 0
    return 1 if _run_figures(Path(args.outdir), args.quick, args.names) else 0


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every discovered topic subcommand."""
    parser = argparse.ArgumentParser(
        prog="gctheory",
        description="Gradient-coding theory as numbers you can check: bounds, thresholds, "
        "optima and their Monte Carlo twins, and the source papers' claims recomputed.",
    )
    parser.add_argument("--version", action="version", version=f"gctheory {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "reproduce",
        help="run every paper check, write figures and paper_checks/REPORT.md",
        description="Run every registered paper claim and figure maker; write "
        "OUTDIR/paper_checks/REPORT.md, REPORT.json and OUTDIR/figures/*.",
    )
    p.add_argument("--quick", action="store_true", help="desk mode: fewer trials, skip slow claims")
    p.add_argument(
        "--outdir",
        default=None,
        help="where paper_checks/ and figures/ go (default: the current folder; with --quick, "
        "paper_checks/REPORT.quick.* and figures/quick/, so the committed outputs stay)",
    )
    p.add_argument("--paper", help="only this paper's claims (a seed paper or another source)")
    p.add_argument("--no-figures", action="store_true", help="skip the figures")
    p.add_argument(
        "--ledger",
        default=None,
        help="ledger of expected verdicts to compare with (default paper_checks/ledger.json)",
    )
    p.add_argument(
        "--update-ledger",
        action="store_true",
        help="rewrite the ledger from this run instead of comparing (a deliberate change: "
        "commit it)",
    )
    p.set_defaults(func=_cmd_reproduce)

    p = sub.add_parser("check", help="run one paper's claims and print a table")
    p.add_argument("paper", nargs="?", help="paper (default: all)")
    p.add_argument("--quick", action="store_true", help="fewer trials, skip slow claims")
    add_format_argument(p)
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("figures", help="remake figures (all, or those named)")
    p.add_argument("names", nargs="*", help="figure names (default: all); see --list")
    p.add_argument("--list", action="store_true", help="list the figures and exit")
    p.add_argument("--quick", action="store_true", help="smaller grids, fewer trials")
    p.add_argument("--outdir", default="figures", help="output folder (default figures)")
    add_format_argument(p)
    p.set_defaults(func=_cmd_figures)

    import gctheory.commands as commands

    for mod in pkgutil.iter_modules(commands.__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"gctheory.commands.{mod.name}").register(sub)
    return parser


# Commands whose outputs are committed: their numbers must not depend on how many threads
# a BLAS or OpenMP library splits a sum over (the order of a floating-point sum changes
# its last bits), so they run single-threaded.
_PINNED_COMMANDS = ("reproduce", "figures")
_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def _pin_threads(argv: Sequence[str]) -> None:
    """Set every BLAS/OpenMP thread count to 1 for :data:`_PINNED_COMMANDS`, before
    numpy loads (the libraries read these variables once, at load); worker processes
    inherit them. Where numpy is already loaded (``main`` called in-process) and
    threadpoolctl is installed, its limits apply instead."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in _PINNED_COMMANDS:
        return
    for var in _THREAD_VARIABLES:
        os.environ[var] = "1"
    if "numpy" in sys.modules:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - optional
            return
        threadpool_limits(1)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gctheory`` console script."""
    _pin_threads(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        rc = int(args.func(args) or 0)
        sys.stdout.flush()
        return rc
    except BrokenPipeError:
        # the reader closed the pipe (e.g. `gctheory table1 | head`): stop quietly, as
        # Unix tools do, and keep Python from complaining when it flushes at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except ValueError as exc:
        print(f"gctheory {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        from gctheory.montecarlo.checkpoint import CheckpointDiskFullError

        if not isinstance(exc, CheckpointDiskFullError):
            raise
        print(f"gctheory {args.command}: error: {exc}", file=sys.stderr)  # one line
        return 1
    except RuntimeError as exc:
        from gctheory.montecarlo.engine import WorkerLostError

        if not isinstance(exc, WorkerLostError):
            raise
        print(f"gctheory {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
