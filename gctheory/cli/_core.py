"""The core commands: ``reproduce`` (every paper check and figure, and the report),
``check`` (the claims of one paper, printed as a table) and ``figures``."""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from gctheory._output import format_table

__all__ = []


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _run_figures(outdir: Path, quick: bool, names: Sequence[str] | None = None) -> int:
    import contextlib

    from gctheory.commands._common import use_file_backend
    from gctheory.plots import all_figures
    from gctheory.plots._base import raster_only

    use_file_backend()
    with raster_only() if quick else contextlib.nullcontext():
        return _make_figures(all_figures(), outdir, quick, names)


def _make_figures(makers, outdir: Path, quick: bool, names: Sequence[str] | None) -> int:
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
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            paths = m.make(outdir, quick)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            _log(f"figure {m.name}: {len(paths)} files ({wall:.1f}s, {cpu:.1f}s CPU)")
        except Exception:
            failed += 1
            _log(f"figure {m.name}: FAILED\n{traceback.format_exc()}")
    return failed


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from paper_checks import all_claims
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
    results = _run_claims_with_progress(claims, args.quick, log=True, quiet=args.quiet)
    md, js = write_report(results, outdir / "paper_checks", quick=args.quick, stem=stem)
    failed_figs = 0
    if not args.no_figures:
        if args.paper is None:
            failed_figs = _run_figures(figdir, args.quick)
        else:  # only that paper's figures (--paper X remade all of them)
            from gctheory.plots import all_figures

            mine = [m.name for m in all_figures() if m.paper == args.paper]
            if mine:
                failed_figs = _run_figures(figdir, args.quick, mine)
            else:
                _log(f"no figure belongs to {args.paper}")
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


def _run_claims_with_progress(claims, quick: bool, log: bool = False, quiet: bool = False):
    """``run_claims`` one claim at a time, with a progress line on a terminal (and, with
    ``log``, one line per claim on stderr, as ``reproduce`` always printed)."""
    from gctheory._progress import Progress
    from paper_checks import run_claims

    results = []
    with Progress(len(claims), "check", enabled=False if quiet else None) as bar:
        for i, c in enumerate(claims):
            bar.update(i, c.key)
            (res,) = run_claims([c], quick=quick)
            results.append(res)
            if log:
                bar.close()
                _log(f"{c.key}: {res.verdict} ({res.seconds:.1f}s, {res.cpu_seconds:.1f}s CPU)")
        bar.update(len(claims))
    return results


# CPU seconds of every claim, measured with /usr/bin/time on 2 shared AMD EPYC (x86-64)
# cores: `gctheory check` 41 s (3 min 05 s of wall time with ~10 other jobs running),
# `gctheory check --full` 238 s (15 min wall on the same busy machine; 1.0 GB at most).
# The claims run one after another on one core: on an idle machine wall ~ CPU.
_CHECK_ALL_SECONDS = {"quick": 41, "full": 238}


def _check_all_time(mode: str) -> str:
    from gctheory._progress import duration

    return f"about {duration(_CHECK_ALL_SECONDS[mode])} of CPU"


def _cmd_check(args: argparse.Namespace) -> int:
    from paper_checks import all_claims
    from paper_checks._framework.report import _fmt

    if args.list:
        claims = all_claims()
        counts: dict[str, list[int]] = {}
        for c in claims:
            counts.setdefault(c.paper, [0, 0])
            counts[c.paper][0] += 1
            counts[c.paper][1] += int(c.slow)
        rows = [{"paper": k, "claims": v[0], "slow": v[1]} for k, v in counts.items()]
        print(format_table(rows, args.format, title="papers and sources with claims"))
        return 0
    if args.full and args.quick:
        raise ValueError("give --quick or --full, not both")
    quick = args.quick or (args.paper is None and not args.full)
    claims = all_claims(args.paper)
    if args.paper is None:
        if quick:
            slow = sum(c.slow for c in claims)
            what = (
                f"{len(claims)} claims in quick mode, {_check_all_time('quick')} "
                f"({slow} slow claims skipped; --full runs every claim in full mode, "
                f"{_check_all_time('full')})"
            )
        else:
            what = f"{len(claims)} claims in full mode, {_check_all_time('full')}"
        _log(
            f"gctheory check: every paper, {what}; one paper: gctheory check PAPER "
            "(gctheory check --list names them)"
        )
    results = _run_claims_with_progress(claims, quick, quiet=args.quiet)
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
    title = f"claims of {args.paper or 'every paper'} ({'quick' if quick else 'full'} mode)"
    print(format_table(rows, args.format, title=title, optional=("where", "paper")))
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
