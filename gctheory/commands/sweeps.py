"""``gctheory collect``, ``gctheory combine`` and ``gctheory plot``: sweeps into a stats file.

The command line of :mod:`gctheory.sweeps` (sinter's collect / combine / plot):

    gctheory collect --problem ldpc-block --n 100 200 --eps 0.3 0.35 0.4 \\
        --max-trials 100000 --max-events 100 --out stats.csv
    gctheory combine a.csv b.csv --out stats.csv
    gctheory plot stats.csv --x eps --group n --out fig.png
"""

from __future__ import annotations

import argparse
from typing import Any

from gctheory._output import add_format_argument, format_table

__all__ = ["PARAMETERS", "register"]

#: Every parameter some estimator takes (``tests/test_sweeps_cli.py`` keeps it in step with
#: ``gctheory.sweeps.ESTIMATORS``; listed here so building the parser imports nothing).
PARAMETERS = (
    "n", "eps", "dv", "dc", "code_seed", "multi_edges", "s", "d", "rounding", "u", "v", "kappa",
    "scheme", "m", "dist", "mu", "delta", "xi", "t0", "tau", "delay", "iterations", "model",
    "workload",
)  # fmt: skip


def _values(estimator: Any, name: str, texts: list[str]) -> list:
    kind = estimator.params[name][0]
    if kind is str:
        return list(texts)
    out = []
    for t in texts:
        try:
            out.append(int(t) if kind is int else float(t))
        except ValueError:
            want = "an integer" if kind is int else "a number"
            raise ValueError(f"--{name.replace('_', '-')}: expected {want}, got {t!r}") from None
    return out


def _stat_rows(stats: list) -> list[dict]:
    # the parameters that tell the problems apart (all of them for a single problem)
    names = {k for s in stats for k in s.params}
    varying = [k for k in sorted(names) if len({repr(s.params.get(k)) for s in stats}) > 1]
    rows = []
    for s in stats:
        shown = varying if varying else sorted(s.params)
        est = s.estimate
        rows.append(
            {
                "estimator": s.estimator,
                "problem": " ".join(f"{k}={s.params.get(k)}" for k in shown),
                "trials": s.trials,
                "events": s.events,
                "value": None if est is None else est.value,
                "low": None if est is None else est.low,
                "high": None if est is None else est.high,
                "seconds": round(s.seconds, 3),
                "key": s.key[:12],
            }
        )
    return rows


def _collect(args: argparse.Namespace) -> int:
    from gctheory.sweeps import ESTIMATORS, collect, grid

    if args.problem not in ESTIMATORS:
        raise ValueError(f"--problem {args.problem!r}: unknown; known: {sorted(ESTIMATORS)}")
    est = ESTIMATORS[args.problem]
    given = {n: getattr(args, n) for n in PARAMETERS if getattr(args, n) is not None}
    unknown = sorted(set(given) - set(est.params))
    if unknown:
        opts = ", ".join(f"--{u.replace('_', '-')}" for u in unknown)
        raise ValueError(
            f"--problem {args.problem} takes no {opts} (it takes {sorted(est.params)})"
        )
    values = {n: _values(est, n, v) for n, v in given.items()}
    problems = grid(args.problem, seed=args.seed, batch_size=args.batch_size, **values)
    summary = collect(
        problems,
        args.out,
        max_trials=args.max_trials,
        max_events=args.max_events,
        rel_half_width=args.rel_half_width,
        worker=args.worker,
        workers=args.workers,
        max_seconds=args.max_seconds,
        progress=None if not args.no_progress else False,
    )
    title = (
        f"{args.out}: {summary.rows_written} rows written, {summary.batches_dropped} batches "
        f"dropped (another process had them), {summary.seconds:.1f}s"
    )
    print(format_table(_stat_rows(summary.stats), args.format, title=title))
    return 0


def _combine(args: argparse.Namespace) -> int:
    from gctheory.sweeps import combine, read_stats

    n = combine(args.files, args.out, overwrite=args.force)
    title = f"{args.out}: {n} problems from {len(args.files)} files"
    print(format_table(_stat_rows(read_stats(args.out)), args.format, title=title))
    return 0


def _plot(args: argparse.Namespace) -> int:
    from gctheory.commands._common import use_file_backend

    use_file_backend()
    import matplotlib.pyplot as plt

    from gctheory.plots.sweeps import plot_stats
    from gctheory.sweeps import read_stats

    stats = read_stats(args.files)
    fig, ax = plt.subplots(figsize=(6, 4))
    try:
        curves = plot_stats(ax, stats, x=args.x, group=args.group, estimator=args.estimator)
        if args.ylog:
            ax.set_yscale("log")
        if args.xlog:
            ax.set_xscale("log")
        if args.group:
            ax.legend()
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.out)
    finally:
        plt.close(fig)
    print(f"{args.out}: {len(curves)} curves, {sum(len(c.x) for c in curves)} points")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    c = subparsers.add_parser(
        "collect",
        help="run a grid of Monte Carlo problems into a resumable stats file",
        description=(
            "Every combination of the parameter values given is one problem, keyed by the "
            "SHA-256 of its exact parameters, code fingerprint, seed and batch size. Batches "
            "are appended to --out as CSV rows; a rerun (or a run after a kill) continues "
            "where the file stands. Problems: ldpc-block (--n --eps [--dv --dc --code-seed "
            "--multi-edges]), dfrc-failure (--n --s --d [--rounding]), condition-tail (--u --v "
            "--kappa), runtime (--scheme --n [--s --m --dist --mu --delta --xi --t0 --tau]), "
            "training-time (--scheme --n [--s --delay --iterations --model]), cluster-time "
            "(--scheme --n [--s --delay --iterations --workload]: real runs on local processes)."
        ),
    )
    c.add_argument("--problem", required=True, help="the estimator (e.g. ldpc-block)")
    for name in PARAMETERS:
        c.add_argument(
            f"--{name.replace('_', '-')}",
            dest=name,
            nargs="+",
            metavar="V",
            help=f"values of the estimators' parameter {name} (one problem per combination)",
        )
    c.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    c.add_argument("--batch-size", type=int, help="trials per row (default: the estimator's)")
    c.add_argument("--max-trials", type=int, required=True, help="trial budget per problem")
    c.add_argument("--max-events", type=int, help="stop a problem after this many events")
    c.add_argument("--rel-half-width", type=float, help="stop at this relative half-width")
    c.add_argument("--worker", type=int, default=0, help="this process' index (default 0)")
    c.add_argument("--workers", type=int, default=1, help="processes sharing the batches")
    c.add_argument("--max-seconds", type=float, help="start no batch after this long")
    c.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    c.add_argument("--out", required=True, help="the stats file (CSV), created or appended to")
    add_format_argument(c)
    c.set_defaults(func=_collect)

    m = subparsers.add_parser(
        "combine",
        help="merge stats files, summing the rows of each problem",
        description="Merge stats files (from several processes or machines) into one, one row "
        "per problem; refuses a file of another format, a corrupted row (naming it) and a "
        "batch counted twice.",
    )
    m.add_argument("files", nargs="+", help="stats files")
    m.add_argument("--out", required=True, help="the merged stats file")
    m.add_argument("--force", action="store_true", help="replace --out if it exists")
    add_format_argument(m)
    m.set_defaults(func=_combine)

    p = subparsers.add_parser(
        "plot",
        help="curves with interval bands from stats files",
        description="One curve per --group value of the estimates against --x, with their "
        "confidence intervals as bands.",
    )
    p.add_argument("files", nargs="+", help="stats files")
    p.add_argument("--x", required=True, help="the parameter on the x axis (e.g. eps)")
    p.add_argument("--group", help="one curve per value of this parameter (e.g. n)")
    p.add_argument("--estimator", help="only this estimator's problems")
    p.add_argument("--ylog", action="store_true", help="logarithmic y axis")
    p.add_argument("--xlog", action="store_true", help="logarithmic x axis")
    p.add_argument("--out", required=True, help="the figure file (png, svg, pdf)")
    p.set_defaults(func=_plot)
