"""CLI pieces for heterogeneous and memoryful workers.

``gctheory optimum hetero`` (hooked into :mod:`gctheory.commands.runtime`) and
``gctheory delays fit PATH --per-worker`` (hooked into :mod:`gctheory.commands.delays`).
Kept in their own module so the tables' rework elsewhere does not collide with them.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from gctheory._output import add_format_argument, format_table
from gctheory.commands._common import scheme_type

_SINGLE_GROUP = ("uncoded", "ignore-s", "cyclic-mds", "ye-abbe")


def _group(text: str) -> tuple[Any, int]:
    from gctheory.delays import parse_delay

    count, sep, spec = text.partition(":")
    if not sep:
        raise ValueError(
            f"--group takes COUNT:SPEC, e.g. 128:shifted_exp(shift=1, mean=0.5); got {text!r}"
        )
    try:
        c = int(count)
    except ValueError:
        raise ValueError(f"--group: COUNT must be an integer, got {count!r} in {text!r}") from None
    if c < 1:
        raise ValueError(f"--group: COUNT must be >= 1, got {c}")
    model = parse_delay(spec)
    if model.dist is None or not hasattr(model.dist, "cdf"):
        raise ValueError(f"--group: {spec!r} is not a law with a CDF")
    return model.dist, c


def _scaled(dist: Any, c: float) -> Any:
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    return dist.dist(*shapes, loc=loc * c, scale=scale * c)


def _cmd_optimum_hetero(args: argparse.Namespace) -> int:
    if args.trace:
        return _optimum_trace(args)
    if not args.group:
        raise ValueError(
            "gctheory optimum hetero needs --group COUNT:SPEC (repeatable) or --trace PATH"
        )
    _check_group_options(args)
    groups = [_group(g) for g in args.group]
    laws = [d for d, _ in groups]
    counts = [c for _, c in groups]
    rows, split = _group_rows(args, laws, counts)
    best = min(rows, key=lambda r: r["hetero"])
    n = sum(counts)
    desc = ", ".join(f"{c} x {g.split(':', 1)[1]}" for g, c in zip(args.group, counts))
    title = (
        f"gctheory optimum hetero: {args.scheme}, n={n} workers in {len(groups)} groups "
        f"({desc}); "
        f"best s = {best['s']} (expected time {best['hetero']:.6g})"
    )
    if split:
        b2 = min((r for r in rows if np.isfinite(r["split"])), key=lambda r: r["split"])
        title += f"; measure-then-split loads: best s = {b2['s']} ({b2['split']:.6g})"
    if not args.curve:
        rows = [best] + ([b2] if split and b2 is not best else [])
    print(format_table(rows, args.format, title=title))
    return 0


def _check_group_options(args: argparse.Namespace) -> None:
    """``--group``'s options checked: the trace-only ones refused, the scheme's own."""
    from gctheory.commands._common import unused_options

    trace_only = ("n", "where", "clusters", "law", "trials", "bootstrap", "seed")
    unused_options(args, {d: "read with --trace, not --group" for d in trace_only})
    if args.scheme != "ye-abbe":
        unused_options(args, {"m": "the communication saving of --scheme ye-abbe"})
    if args.scheme != "cyclic-mds":
        why = "the measure-then-split loads are for --scheme cyclic-mds"
        unused_options(args, {"split_points": why, "partitions": why})
    for dest, low in (("m", 1), ("split_points", 0), ("partitions", 1)):
        if getattr(args, dest) < low:
            flag = "--" + dest.replace("_", "-")
            raise ValueError(f"{flag} must be an integer >= {low}, got {getattr(args, dest)}")
    if not (math.isfinite(args.tau) and args.tau >= 0):
        raise ValueError(f"--tau must be a finite number >= 0, got {args.tau}")
    if args.scheme not in _SINGLE_GROUP:
        raise ValueError(
            f"--scheme must be one of {_SINGLE_GROUP} with --group, got {args.scheme!r}"
        )


def _group_rows(
    args: argparse.Namespace, laws: list[Any], counts: list[int]
) -> tuple[list[dict[str, Any]], bool]:
    """One row per ``s``: the workers waited for, the load and the expected time with the
    groups' laws, and (cyclic-MDS, at ``--split-points`` values of ``s``) with the
    measure-then-split loads. Returns the rows and whether they have a ``split`` column."""
    from gctheory.delays.heterogeneity import grouped_order_means

    n = sum(counts)
    # E[X_(k)] of the per-unit times for every k at once: equal loads scale every worker alike
    ex = grouped_order_means(laws, counts)
    m = args.m
    svals = [s for s in range(n) if args.scheme != "ye-abbe" or s + m <= n]
    if args.scheme == "uncoded":
        svals = [0]
    split_s = set(svals[:: max(1, len(svals) // args.split_points)]) if args.split_points else set()
    split = bool(split_s) and args.scheme == "cyclic-mds"
    comm = args.tau / m if args.scheme == "ye-abbe" else args.tau
    rows = []
    for s in svals:
        wait = n if args.scheme == "uncoded" else n - s
        load = {
            "uncoded": 1 / n,
            "ignore-s": 1 / n,
            "cyclic-mds": (s + 1) / n,
            "ye-abbe": (s + m) / n,
        }[args.scheme]
        r = {"s": s, "wait": wait, "load": load, "hetero": load * float(ex[wait - 1]) + comm}
        if s in split_s and args.scheme == "cyclic-mds":
            r["split"] = _split_time(laws, counts, args.partitions * n, s, wait) + comm
        rows.append(r)
    if split:
        for r in rows:
            r.setdefault("split", math.nan)
    return rows, split


def _split_time(laws: list[Any], counts: list[int], k: int, s: int, wait: int) -> float:
    """The expected time of cyclic-MDS at ``s`` with the measure-then-split loads of ``k``
    partitions (:func:`gctheory.codes.heterogeneous.measured_split`)."""
    from gctheory.codes.heterogeneous import measured_split
    from gctheory.delays.heterogeneity import grouped_order_means

    means = np.repeat([float(d.mean()) for d in laws], counts)
    d = measured_split(means, k, s)
    scaled = [_scaled(d0, di / k) for d0, di in zip(np.repeat(laws, counts), d)]
    # two groups, same law within a group, same load within a group (the split is by group)
    pairs: dict[tuple, list] = {}
    for law, di, dd in zip(np.repeat(np.arange(len(laws)), counts), d, scaled):
        pairs.setdefault((int(law), int(di)), [dd, 0])[1] += 1
    ls = [v[0] for v in pairs.values()]
    cs = [v[1] for v in pairs.values()]
    return float(grouped_order_means(ls, cs)[wait - 1])


def _optimum_trace(args: argparse.Namespace) -> int:
    from gctheory.delays import decision_table, read_trace
    from gctheory.delays.heterogeneity import hetero_scheme_times

    tr = read_trace(args.trace)
    where = {}
    for it in args.where or []:
        key, eq, val = it.partition("=")
        if not eq:
            raise ValueError(f"--where takes COLUMN=VALUE, got {it!r}")
        where[key.strip()] = val.strip()
    if where:
        tr = tr.select(**where)
    tr.require_single_campaign("gctheory optimum hetero --trace")
    res = hetero_scheme_times(
        tr, args.scheme, args.n, clusters=args.clusters, law=args.law, laws=(args.law,),
        trials=args.trials, bootstrap=args.bootstrap, rng=args.seed, m=args.m, tau=args.tau,
    )  # fmt: skip
    if args.curve:
        print(format_table(res.rows(), args.format, title=f"{args.scheme} curve"))
        return 0
    rows = decision_table(res, reference="rounds")
    cols = None
    if args.format == "text":
        cols = ["estimator", "s_opt", "predicted", "rounds_at_s_opt", "rounds_s_opt", "lost_pct"]
    title = (
        f"gctheory optimum hetero: {args.scheme}, n={args.n}, {tr.campaign_label()}; "
        "reference: the measured rounds"
    )
    print(format_table(rows, args.format, columns=cols, title=title))
    if args.format == "text":
        r0 = rows[0]
        if not math.isnan(r0["plausible_lo"]):
            print(
                f"the measured rounds cannot tell s = {r0['plausible_lo']}..{r0['plausible_hi']} "
                f"from their optimum s = {r0['rounds_s_opt']}"
            )
        for k, v in res.notes.items():
            print(f"note ({k}): {v}")
    return 0


def add_optimum_hetero(osub: Any) -> None:
    """``gctheory optimum hetero``."""
    from gctheory._names import RUNTIME_SCHEMES

    h = osub.add_parser(
        "hetero",
        help="best s with heterogeneous workers (groups of laws, or a trace per worker)",
        description="Expected iteration time vs s when workers differ: either --group "
        "COUNT:SPEC (repeatable; exact non-identical order statistics, plus the "
        "measure-then-split loads for cyclic-mds), or --trace PATH (per-worker, "
        "per-cluster and Markov estimates next to the measured rounds). The schemes are "
        "Tandon et al. 2017's cyclic-MDS and FRC, Ye-Abbe and CommFR-GC (Kadhe et al. 2019).",
    )
    h.add_argument("--group", action="append", metavar="COUNT:SPEC", help="e.g. 128:exp(mean=2)")
    h.add_argument("--trace", help="trace CSV instead of groups")
    h.add_argument("--where", action="append", metavar="COLUMN=VALUE", help="trace rows to keep")
    h.add_argument(
        "--scheme",
        default="cyclic-mds",
        type=scheme_type(RUNTIME_SCHEMES),
        metavar="SCHEME",
        help=f"the scheme: {', '.join(RUNTIME_SCHEMES)}",
    )
    h.add_argument("--n", type=int, default=None, help="workers (with --trace)")
    h.add_argument("--m", type=int, default=1, help="communication saving (ye-abbe)")
    h.add_argument("--tau", type=float, default=0.0, help="upload time of a full gradient")
    h.add_argument("--clusters", type=int, default=4, help="clusters of workers (--trace)")
    h.add_argument("--law", default="lognormal", help="law fitted per cluster (--trace)")
    h.add_argument("--trials", type=int, default=20_000, help="Monte Carlo rounds (--trace)")
    h.add_argument("--bootstrap", type=int, default=200, help="bootstrap over rounds (--trace)")
    h.add_argument("--split-points", type=int, default=12, help="s values for the split loads")
    h.add_argument(
        "--partitions", type=int, default=12, help="data partitions per worker for the split (12)"
    )
    h.add_argument(
        "--seed", type=int, default=0, help="seed of the bootstrap and Monte Carlo (--trace)"
    )
    h.add_argument("--curve", action="store_true", help="every s instead of the optimum")
    add_format_argument(h)
    h.set_defaults(func=_cmd_optimum_hetero)


def add_per_worker(q: argparse.ArgumentParser) -> None:
    """``--per-worker`` (and its options) on ``gctheory delays fit``."""
    q.add_argument(
        "--per-worker",
        action="store_true",
        help="test whether the workers differ, fit a law per cluster and the straggler chain",
    )
    q.add_argument("--clusters", type=int, default=4, help="clusters with --per-worker (4)")
    q.add_argument(
        "--quantile", type=float, default=0.9, help="straggler = above this pooled quantile (0.9)"
    )


def run_fit_per_worker(args: argparse.Namespace, tr: Any) -> int:
    """The ``--per-worker`` report of ``gctheory delays fit``."""
    from gctheory.delays import fit_law
    from gctheory.delays.heterogeneity import cluster_workers, workers_differ
    from gctheory.delays.markov import fit_gilbert_elliott, straggler_matrix

    load = float(args.load)
    d = workers_differ(tr, load)
    print(
        format_table(
            [d.row()],
            args.format,
            title=f"do the workers differ? {tr.campaign_label()}, load {load:g} "
            "(Kruskal-Wallis; Friedman with rounds as blocks; ANOVA of log times = LR test)",
        )
    )
    M = tr.rounds(load)
    lab = cluster_workers(M, args.clusters)
    law = args.laws[0] if args.laws else "lognormal"
    rows: list[dict[str, Any]] = []
    for c in range(args.clusters):
        f = fit_law(M[:, lab == c].ravel(), law)
        r: dict[str, Any] = {
            "cluster": c,
            "workers": int((lab == c).sum()),
            "median": float(np.median(M[:, lab == c])),
        }
        r.update({"law": law, "params": f.row().get("params", ""), "converged": f.converged})
        rows.append(r)
    print(format_table(rows, args.format, title=f"{law} per cluster (clusters by median time)"))
    S, rule = straggler_matrix(M, quantile=args.quantile)
    g = fit_gilbert_elliott(S, rule=rule, level=args.level)
    rows = [
        {"parameter": k, "estimate": v, "low": g.intervals.get(k, (math.nan,))[0],
         "high": g.intervals.get(k, (math.nan, math.nan))[1]}
        for k, v in g.params.items()
    ]  # fmt: skip
    print(
        format_table(
            rows,
            args.format,
            title=f"two-state Markov straggler chain, straggler = {rule}; LR test vs i.i.d.: "
            f"2 dlogL = {g.lr:.4g}, p = {g.p_value:.3g}",
        )
    )
    return 0
