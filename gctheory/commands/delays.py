"""CLI: ``gctheory delays summary|fit|scaling|optimum PATH ...``: measured delays."""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from gctheory._output import add_format_argument, format_table
from gctheory._progress import Progress

# text: short names for the main columns (md/csv/json keep every column, full names)
_SUMMARY_TEXT = {
    "campaign": "campaign", "load": "load", "q0.5": "median", "q0.99": "q0.99",
    "straggler_rate": "strag", "rounds_with": "rounds_w", "rounds_with_iid": "iid_w",
    "dispersion": "disp", "h": "h", "icc_log": "icc",
}  # fmt: skip
_FIT_TEXT = ("law", "converged", "params", "aic", "delta_aic", "ks", "ks_p", "ad", "ad_p")
_OPT_TEXT = (
    "estimator", "s_opt", "wait", "predicted", "empirical_at_s_opt", "low", "high",
    "lost_pct", "speedup_vs_wait_all",
)  # fmt: skip


def _where(items: list[str] | None) -> dict[str, str]:
    out = {}
    for it in items or []:
        key, eq, val = it.partition("=")
        if not eq or not key:
            raise ValueError(f"--where takes COLUMN=VALUE (e.g. region=London), got {it!r}")
        out[key.strip()] = val.strip()
    return out


def _trace(args: argparse.Namespace, single: bool) -> Any:
    from gctheory.delays import read_trace

    tr = read_trace(args.path if len(args.path) > 1 else args.path[0])
    where = _where(args.where)
    if where:
        tr = tr.select(**where)
    if single:
        tr.require_single_campaign(f"gctheory delays {args.action}")
    return tr


def _print(
    rows: list[dict],
    fmt: str,
    text_cols: tuple[str, ...],
    title: str,
    notes: list[str] | tuple[str, ...] = (),
    optional: tuple[str, ...] = (),
) -> None:
    cols = [c for c in text_cols if rows and c in rows[0]] if fmt == "text" else None
    print(format_table(rows, fmt, columns=cols, title=title, notes=notes, optional=optional))


def _cmd_summary(args: argparse.Namespace) -> int:
    from gctheory.commands._common import unused_options
    from gctheory.delays import summarize

    if args.threshold is not None:
        unused_options(args, {"factor": "--threshold gives the straggler threshold itself"})
    tr = _trace(args, single=False)
    res = summarize(tr, threshold=args.threshold, factor=args.factor, top=args.top, rng=args.seed)
    rows = [r.row() for r in res]
    if args.format == "text":  # campaign values only, numbers to 3 digits: fits 100 columns
        short = []
        for r in rows:
            r["campaign"] = "/".join(v.split("=", 1)[1] for v in r["campaign"].split(", ") if v)
            short.append(
                {
                    new: float(f"{r[old]:.3g}") if isinstance(r[old], float) else r[old]
                    for old, new in _SUMMARY_TEXT.items()
                }
            )
        rows = short
    title = (
        f"gctheory delays summary {tr.source}\n"
        "strag: share above the threshold; rounds_w: share of rounds with a straggler (iid_w:\n"
        "if workers were independent); disp: var/mean of the count per round; h: persistence\n"
        f"of the slowest {args.top:g} (1 = none); icc: correlation of log times within a round"
    )
    _print(rows, args.format, tuple(_SUMMARY_TEXT.values()), title)
    return 0


def _fit_load(args: argparse.Namespace, tr: Any) -> float:
    """``--load``, or the trace's only load; ValueError naming the loads otherwise."""
    if args.load is not None:
        return float(args.load)
    loads = np.unique(tr.load)
    if loads.size == 1:
        return float(loads[0])
    raise ValueError(
        f"--load is required: the trace has {loads.size} loads "
        f"({', '.join(f'{v:g}' for v in loads[:8])}{' ...' if loads.size > 8 else ''})"
    )


def _cmd_fit(args: argparse.Namespace) -> int:
    from gctheory.commands._common import unused_options
    from gctheory.delays.censored import is_run_trace

    tr = _trace(args, single=True)
    if not getattr(args, "per_worker", False):
        unused_options(args, {d: "read with --per-worker" for d in ("clusters", "quantile")})
        if args.bootstrap == 0:
            unused_options(args, {"seed": "it seeds the bootstrap refits; --bootstrap is 0"})
    if is_run_trace(tr):
        return _fit_run(args, tr)
    args.load = _fit_load(args, tr)
    if getattr(args, "per_worker", False):
        from gctheory.commands._hetero import run_fit_per_worker

        return run_fit_per_worker(args, tr)
    x = tr.times(args.load)
    title = f"gctheory delays fit: {tr.campaign_label() or tr.source}, load {args.load:g}"
    return _fit_and_print(args, x, None, title)


def _fit_and_print(args: argparse.Namespace, x: Any, censored: Any, title: str) -> int:
    """Fit ``args.laws`` (censored when ``censored`` is a sample) with a progress line."""
    from gctheory.delays import fit_laws
    from gctheory.delays.censored import fit_laws_censored

    refits = f"{args.bootstrap} bootstrap refits (--bootstrap 0 is quick)"
    with Progress(len(args.laws), "delays fit") as bar:

        def step(done: int, total: int, law: str) -> None:
            bar(done, total, law and f"{law}, {refits}")

        kw = dict(bootstrap=args.bootstrap, rng=args.seed, level=args.level, progress=step)
        fits = (
            fit_laws(x, args.laws, **kw)
            if censored is None
            else fit_laws_censored(censored, args.laws, **kw)
        )
    best = min((f.aic for f in fits if f.converged), default=math.nan)
    rows = []
    for f in fits:
        r = f.row()
        r["delta_aic"] = f.aic - best if f.converged else math.nan
        rows.append(r)
    n = len(x) if censored is None else censored.times.size
    how = "KS-type distance of the Kaplan-Meier estimate" if censored is not None else "KS, AD"
    title += f", n={n}; p-values ({how}) from {args.bootstrap} parametric-bootstrap refits"
    _print(rows, args.format, _FIT_TEXT, title)
    return 0


def _fit_run(args: argparse.Namespace, tr: Any) -> int:
    """A trace of ``gctheory run``: times per unit load, the cancelled stragglers censored."""
    import sys
    import warnings

    from gctheory.delays.censored import censored_sample

    where = _where(args.where)
    if "status" in where:
        warnings.warn(
            f"--where status={where['status']} on a run trace keeps only some of each "
            "iteration's times (the fastest n - s are 'used'): the fitted law is biased "
            "towards fast times; drop it to fit every row with the cancelled stragglers "
            "censored",
            UserWarning,
            stacklevel=2,
        )
    if args.load is not None:
        tr = tr._subset(tr.load == tr.check_load(args.load))
    sample = censored_sample(tr)
    k = int(sample.censored.sum())
    title = (
        f"gctheory delays fit: {tr.campaign_label() or tr.source}, time per unit load "
        f"(as --delay takes it); {k} of {sample.times.size} times right-censored"
    )
    print(f"fitting {sample.times.size} run-trace times per unit load, {k} censored "
          "(cancelled stragglers)", file=sys.stderr)  # fmt: skip
    if getattr(args, "per_worker", False):
        return _fit_run_per_worker(args, sample, title)
    return _fit_and_print(args, sample.times, sample if k else None, title)


def _fit_run_per_worker(args: argparse.Namespace, sample: Any, title: str) -> int:
    from gctheory.delays.censored import fit_by_worker

    with Progress(len(args.laws), "delays fit --per-worker") as bar:
        by = fit_by_worker(sample, args.laws, level=args.level, progress=bar)
    rows = []
    for w, fits in by.items():
        for f in fits:
            r = {"worker": w, **f.row()}
            rows.append(r)
    cols = ("worker", "law", "converged", "params", "aic", "ks")
    _print(rows, args.format, cols, title + "; per worker (no bootstrap)")
    return 0


def _cmd_scaling(args: argparse.Namespace) -> int:
    from gctheory.delays import fit_load_scaling

    tr = _trace(args, single=True)
    sc = fit_load_scaling(tr)
    rows = sc.rows()
    title = (
        f"gctheory delays scaling: Q_l(p) = a(p) + b l with b = {sc.slope:.4g} +- "
        f"{sc.slope_se:.2g} s per unit load; rms residual {sc.rms():.3g} s (free slopes "
        f"{sc.rms('free'):.3g} s, proportional to load {sc.rms('proportional'):.3g} s)"
    )
    _print(rows, args.format, tuple(rows[0]) if rows else (), title)
    return 0


def _code(text: str | None) -> tuple[int, int, int] | None:
    if text is None:
        return None
    try:
        parts = tuple(int(v) for v in text.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3:
        raise ValueError(f"--code takes N,K,delta (three integers), got {text!r}")
    return parts


def _scheme_times(
    args: argparse.Namespace, tr: Any, laws: Any, scheme_times: Any, progress: Any = None
) -> Any:
    from gctheory.delays import LAWS
    from gctheory.delays.censored import censored_fits_by_share, is_run_trace

    fits: Any = None
    notes: dict[str, str] = {}
    if is_run_trace(tr):  # a run's stragglers are cancelled: fit every law as censored data
        laws = list(LAWS if laws is None else laws)
        fits, notes = censored_fits_by_share(tr, laws)
        laws = [law for law in laws if law not in notes]
    res = scheme_times(
        tr,
        args.scheme,
        args.n,
        m=args.m,
        code=_code(args.code),
        tau=args.tau,
        laws=laws,
        load_model=None if args.load_model == "none" else args.load_model,
        bootstrap=args.bootstrap,
        rng=args.seed,
        progress=progress,
        fits=fits,
    )
    res.notes.update(notes)
    if fits is not None:
        res.notes["run trace"] = (
            "per-law rows: censored fits (the cancelled stragglers by their survival); the "
            "empirical and rounds rows read the censoring too (their notes say how), and "
            "give no value where the trace cannot tell the waited-for time"
        )
    return res


def _cmd_optimum(args: argparse.Namespace) -> int:
    from gctheory.commands._common import unused_options
    from gctheory.delays import decision_table, scheme_times

    if args.scheme != "ye-abbe":
        unused_options(args, {"m": "the communication saving of --scheme ye-abbe"})
    if args.scheme != "commfr-gc":
        unused_options(args, {"code": "the code of --scheme commfr-gc"})
    if args.bootstrap == 0:
        unused_options(args, {"seed": "it seeds the bootstrap over rounds; --bootstrap is 0"})
    tr = _trace(args, single=True)
    laws = () if args.laws == [] else args.laws
    with Progress(1, "delays optimum") as bar:
        res = _scheme_times(args, tr, laws, scheme_times, progress=bar)
    if args.curve:
        rows = res.rows()
        _print(rows, args.format, tuple(rows[0]), f"gctheory delays optimum {args.scheme} curve")
        return 0
    rows = decision_table(res, reference=args.reference)
    title = (
        f"gctheory delays optimum: {args.scheme}, n={args.n}, {tr.campaign_label()}; "
        f"time lost measured by '{args.reference}' ({res.bootstrap} bootstrap rounds, "
        f"load model {res.load_model})"
    )
    cols = tuple(c.replace("empirical", args.reference) for c in _OPT_TEXT)
    notes = []
    r0 = rows[0]
    if not math.isnan(r0["plausible_lo"]):
        notes.append(
            f"'{args.reference}' cannot tell s = {r0['plausible_lo']}..{r0['plausible_hi']} "
            f"from its optimum s = {r0[args.reference + '_s_opt']} (time within the "
            f"{100 * res.level:g}% interval there)"
        )
    notes += [f"note ({k}): {v}" for k, v in res.notes.items()]
    _print(rows, args.format, cols, title, notes=notes, optional=("low", "high", "wait"))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``delays`` (summary, fit, scaling, optimum) to the ``gctheory`` command."""

    p = subparsers.add_parser(
        "delays",
        help="measured worker delays: summary, fitted laws, load scaling, the best s",
        description="Read measured worker times (CSV: round, worker, load, time or duration_s; "
        "or the profile pickles of Sequential-Gradient-Coding-2) and summarise them, fit laws, "
        "fit how time grows with load, or find the scheme's best s on the measurements.",
    )
    sub = p.add_subparsers(dest="action", metavar="{summary,fit,scaling,optimum}", required=True)
    _add_summary(sub)
    _add_fit(sub)
    _add_scaling(sub)
    _add_optimum(sub)


def _common(q: argparse.ArgumentParser) -> None:
    """The arguments every ``delays`` action takes: the traces, a row filter, a seed."""
    q.add_argument("path", nargs="+", help="trace CSV file(s) or profile pickle(s)")
    q.add_argument(
        "--where",
        action="append",
        metavar="COLUMN=VALUE",
        help="keep the rows with this value (repeatable), e.g. --where region=London",
    )
    q.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    add_format_argument(q)


def _add_summary(sub: Any) -> None:
    """``gctheory delays summary``: quantiles, stragglers and persistence per load."""
    q = sub.add_parser("summary", help="per-load quantiles, stragglers, persistence")
    _common(q)
    q.add_argument("--threshold", type=float, help="straggler threshold in seconds")
    q.add_argument(
        "--factor", type=float, default=3.0, help="else: this times the median (default 3)"
    )
    q.add_argument(
        "--top", type=float, default=0.1, help="persistence of the slowest fraction (0.1)"
    )
    q.set_defaults(func=_cmd_summary)


def _add_fit(sub: Any) -> None:
    """``gctheory delays fit``: maximum-likelihood laws (censored for run traces)."""
    from gctheory._names import DELAY_LAWS as LAWS

    q = sub.add_parser(
        "fit",
        help="maximum-likelihood laws at one load, with GOF tests (run traces: censored)",
        description="Fit delay laws by maximum likelihood with confidence intervals and "
        "parametric-bootstrap goodness of fit. A trace of 'gctheory run' is fitted per unit "
        "load (the units --delay takes) with the cancelled stragglers right-censored.",
    )
    _common(q)
    q.add_argument(
        "--load",
        type=float,
        default=None,
        help="the measured load to fit (default: the trace's only load; a run trace of "
        "gctheory run is fitted per unit load, every load at once)",
    )
    q.add_argument(
        "--laws",
        type=lambda t: [v.strip() for v in t.split(",") if v.strip()],
        default=list(LAWS),
        help=f"comma-separated laws (default all: {','.join(LAWS)})",
    )
    q.add_argument(
        "--bootstrap", type=int, default=99, help="parametric-bootstrap refits (default 99)"
    )
    q.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    from gctheory.commands._hetero import add_per_worker

    add_per_worker(q)  # --per-worker
    q.set_defaults(func=_cmd_fit)


def _add_scaling(sub: Any) -> None:
    """``gctheory delays scaling``: how time grows with load."""
    q = sub.add_parser("scaling", help="fit how time grows with load (affine) with residuals")
    _common(q)
    q.set_defaults(func=_cmd_scaling)


def _add_optimum(sub: Any) -> None:
    """``gctheory delays optimum``: a scheme's best s on the measurements and per law."""
    from gctheory._names import DELAY_LAWS as LAWS
    from gctheory._names import RUNTIME_SCHEMES as SCHEMES

    q = sub.add_parser("optimum", help="a scheme's best s on the measured data and per law")
    _common(q)
    q.add_argument(
        "--scheme",
        required=True,
        choices=SCHEMES,
        help="the scheme whose straggler tolerance s is optimised",
    )
    q.add_argument("--n", type=int, required=True, help="number of workers")
    q.add_argument("--m", type=int, default=1, help="communication saving (ye-abbe)")
    q.add_argument("--code", help="N,K,delta of the code (commfr-gc)")
    q.add_argument("--tau", type=float, default=0.0, help="upload time of a full gradient")
    q.add_argument(
        "--laws",
        type=lambda t: [v.strip() for v in t.split(",") if v.strip()],
        default=list(LAWS),
        help="laws to fit and compare (comma-separated; '' for none)",
    )
    q.add_argument(
        "--load-model",
        choices=("interpolate", "affine", "proportional", "none"),
        default="interpolate",
        help="how an unmeasured load is reached (default interpolate)",
    )
    q.add_argument("--bootstrap", type=int, default=200, help="bootstrap over rounds (200)")
    q.add_argument(
        "--reference",
        choices=("empirical", "rounds"),
        default="empirical",
        help="estimator that measures the time lost (default empirical)",
    )
    q.add_argument("--curve", action="store_true", help="print the time for every s instead")
    q.set_defaults(func=_cmd_optimum)
