"""CLI: ``gctheory simulate``: one scheme's simulated training run(s), as CSV and a figure."""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from gctheory._output import add_format_argument, format_table
from gctheory.commands._common import scheme_type


def _partition(text: str) -> str | int:
    if text == "iid":
        return "iid"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--partition must be 'iid' or an integer c (non-IID(c)), got {text!r}"
        ) from None


#: options of the coded schemes: flag -> key of ``code_options`` (see make_scheme)
_CODE_FLAGS = {
    "--degree": "d",
    "--graph": "graph",
    "--decoder": "decoder",
    "--placement": "placement",
    "--c1": "c1",
    "--block-size": "block_size",
    "--lam": "lam",
    "--v": "v",
    "--p": "p",
}


def _code_options(args: argparse.Namespace, scheme: str) -> dict:
    """``code_options`` from the flags given; a flag the scheme has no use for is an error."""
    from gctheory.training.codes import CODE_OPTIONS

    valid = CODE_OPTIONS.get(scheme, ())
    out = {}
    for flag, key in _CODE_FLAGS.items():
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is None:
            continue
        if key not in valid:
            users = [name for name, keys in CODE_OPTIONS.items() if key in keys]
            raise ValueError(
                f"{flag} is not an option of scheme {scheme!r}; it applies to: {', '.join(users)}"
            )
        out[key] = value
    if args.groups is not None and "groups" in valid:
        out["groups"] = args.groups
    return out


#: the scheme options each scheme reads (the gradient codes: K, s, m for ye_abbe/commfr)
_SCHEME_READS = {
    "gd": (),
    "asysg": ("K", "s"),
    "ignore": ("K", "s"),
    "lgc": ("K", "s", "blocks", "warmup", "partial_work", "no_linear_scaling"),
    "lag": ("xi", "D"),
    "ggd": ("r", "xi", "D"),
    "glag": ("r", "xi", "D"),
    "lagc": ("r", "groups", "xi", "D"),
    "sr_sgc": ("s",),
    "m_sgc": ("s",),
}
_SCHEME_OPTIONS = ("K", "s", "r", "groups", "m", "xi", "D", "blocks", "warmup", "partial_work",
                   "no_linear_scaling")  # fmt: skip


def _check_unused(args: argparse.Namespace, name: str) -> None:
    """Refuse a scheme option the chosen scheme does not read (``--r`` with ``gd``)."""
    from gctheory.commands._common import unused_options
    from gctheory.training.codes import CODE_OPTIONS

    reads = _SCHEME_READS.get(name)
    if reads is None:  # a gradient code (or a plug-in family)
        reads = ("K", "s") + (("m",) if name in ("ye_abbe", "commfr") else ())
        reads += ("groups",) if "groups" in CODE_OPTIONS.get(name, ()) else ()
    mine = ", ".join("--" + o.replace("_", "-") for o in reads) or "none of them"
    why = f"scheme {args.scheme!r} reads {mine}"
    unused_options(args, {o: why for o in _SCHEME_OPTIONS if o not in reads})


def _cmd_simulate(args: argparse.Namespace) -> int:
    from gctheory import training as tr

    if args.list:
        return _list_schemes(args)
    if args.scheme is None:
        raise ValueError("--scheme is required; gctheory simulate --list names the schemes")
    runs = tr.repeat_runs(args.trials, rng=args.seed, **_simulate_kwargs(args))
    if args.out is None:
        # nothing unasked in the current folder: a fresh temporary folder, named below
        out = Path(tempfile.mkdtemp(prefix="gctheory-simulate-")) / "simulate"
    else:
        out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    csv_path = out.with_suffix(".csv")
    _write_csv(csv_path, runs)
    png = _plot(out.with_suffix(".png"), runs, args)
    rows: list[dict[str, Any]] = [
        {
            "trial": j,
            "iterations": r.iterations,
            "time": float(r.time[-1]),
            "final_loss": float(r.loss[-1]),
            "accuracy": float(r.accuracy[-1]),
            "mean_grad_error": float(np.mean(r.grad_error)),
            "comm": float(r.comm.sum()),
            "comp": float(r.comp.sum()),
        }
        for j, r in enumerate(runs)
    ]
    print(format_table(rows, args.format, title=f"gctheory simulate {args.scheme}"))
    # on stderr, so that stdout stays a clean table in every --format (json included)
    print(f"gctheory simulate: wrote {csv_path} and {png}", file=sys.stderr)
    return 0


def _list_schemes(args: argparse.Namespace) -> int:
    from gctheory._names import SCHEME_NAMES
    from gctheory.codes.plugins import plugin_families

    schemes = [{"scheme": k, "description": v} for k, v in SCHEME_NAMES.items()]
    schemes += [{"scheme": k, "description": f"{f.description} (plug-in {f.source})"}
                for k, f in plugin_families().items()]  # fmt: skip
    print(format_table(schemes, args.format))
    return 0


def _simulate_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`gctheory.training.simulate` the options ask for."""
    from gctheory import training as tr

    opts = {
        k: getattr(args, k)
        for k in ("K", "s", "r", "groups", "xi", "D", "blocks", "warmup")
        if getattr(args, k) is not None
    }
    _check_unused(args, tr._canon(args.scheme))
    code_options = _code_options(args, tr._canon(args.scheme))
    if code_options:
        if "groups" in code_options:  # --groups of IS-GC's hybrid placement, not of lagc
            del opts["groups"]
        opts["code_options"] = code_options
    if args.m is not None:
        opts["m"] = args.m
    if args.partial_work:
        opts["partial_work"] = True
    if args.no_linear_scaling:
        opts["linear_scaling"] = False
    return dict(
        scheme=args.scheme,
        n=args.n,
        delay=args.delay,
        iterations=args.iterations,
        model=args.model,
        partition=args.partition,
        step_size=args.step_size,
        persist=args.persist,
        n_slow=args.n_slow,
        slowdown=args.slowdown,
        comm_time=args.comm_time,
        decode_time_per_op=args.decode_time_per_op,
        target_loss=args.target_loss,
        preempt=not args.no_preempt,
        **opts,
    )


def _write_csv(csv_path: Path, runs: list[Any]) -> None:
    """Every trial's per-iteration record."""
    cols = ("trial", "iteration", "time", "loss", "accuracy", "grad_error", "wait", "comm", "comp")
    with csv_path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for j, r in enumerate(runs):
            for t in range(r.iterations + 1):
                step = [r.grad_error, r.wait, r.comm, r.comp]
                vals = [f"{a[t]:.10g}" if t < r.iterations else "" for a in step]
                w.writerow(
                    [j, t, f"{r.time[t]:.10g}", f"{r.loss[t]:.10g}", f"{r.accuracy[t]:.6g}", *vals]
                )


def _plot(png: Path, runs: list[Any], args: argparse.Namespace) -> Path:
    """The loss against simulated time (mean of the trials, a 95% band over them)."""
    from gctheory import training as tr
    from gctheory.commands._common import use_file_backend
    from gctheory.plots import plt

    use_file_backend()
    fig, ax = plt.subplots(figsize=(6, 4))
    grid = np.linspace(0, min(r.time[-1] for r in runs), 200)
    mean, low, high = tr.loss_band(runs, grid)
    ax.plot(grid, mean, label=f"{runs[0].scheme} (mean of {len(runs)})")
    if len(runs) > 1:
        ax.fill_between(grid, low, high, alpha=0.3, lw=0, label="95% band")
    ax.set_xlabel("simulated wall-clock time")
    ax.set_ylabel("training loss")
    ax.set_title(f"{args.scheme}, n={args.n}, delay {args.delay}")
    ax.legend()
    fig.savefig(png, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return png


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="simulate distributed training with stragglers (GD, K-SGD, LGC, codes, LAG, ...)",
        description="Train softmax/logistic regression on the digits data with n simulated "
        "workers whose times come from a delay model; write per-iteration CSV and a figure. "
        "The schemes are those of Tandon et al. 2017, Wang et al. 2019, Xu et al. 2021, "
        "Zhang & Simeone 2020 and Krishnan et al. 2023 (--list names each with its paper).",
    )
    p.add_argument("--list", action="store_true", help="list the schemes and exit")
    p.add_argument(
        "--scheme", type=scheme_type(plugins=True), help="scheme name (see --list), e.g. cyclic-mds"
    )
    _add_scheme_options(p)
    _add_code_options(p)
    _add_run_options(p)
    add_format_argument(p)
    p.set_defaults(func=_cmd_simulate)


def _add_scheme_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=int, default=10, help="number of workers (default 10)")
    p.add_argument("--K", type=int, help="workers waited for (ignore, lgc, codes)")
    p.add_argument("--s", type=int, help="stragglers tolerated (codes), s = n - K")
    p.add_argument("--r", type=int, help="storage redundancy (ggd, glag, lagc)")
    p.add_argument("--groups", type=int, help="number of groups (lagc; isgc hybrid placement)")
    p.add_argument("--m", type=int, help="communication saving (ye_abbe, commfr)")
    p.add_argument("--xi", type=float, help="LAG weight xi (default 0.1)")
    p.add_argument("--D", type=int, help="LAG memory D (default 10)")
    p.add_argument("--blocks", type=int, help="LGC blocks per mini-batch (default 4)")
    p.add_argument("--warmup", type=int, help="LGC: Full-SGD iterations first")
    p.add_argument("--partial-work", action="store_true", help="LGC: stragglers send partial work")
    p.add_argument("--no-linear-scaling", action="store_true", help="LGC: no eq. (6) scaling")


def _add_code_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "gradient-code options",
        "options of the coded schemes (code_options of make_scheme); a flag the scheme does "
        "not use is an error",
    )
    g.add_argument(
        "--degree",
        type=int,
        help="d: graph degree (expander, graph_assignment), replication (dfrc, sgc cyclic)",
    )
    g.add_argument("--graph", help="graph family: random (default) or margulis (expander, n = m^2)")
    g.add_argument(
        "--decoder",
        help="expander: optimal (default) | fixed; dfrc: group | lstsq; brc: peeling | lstsq; "
        "graph_assignment: components | lstsq; bibd: closed-form | lstsq",
    )
    g.add_argument(
        "--placement",
        help="isgc: frc (alias fr) | cyclic | hybrid (give --c1, --groups); "
        "sgc: cyclic | pairwise-balanced",
    )
    g.add_argument("--c1", type=int, help="isgc hybrid: in-group partitions per worker")
    g.add_argument("--block-size", type=int, help="block size of the design (bibd, sgc)")
    g.add_argument("--lam", type=int, help="lambda of the design (bibd, sgc; default 1)")
    g.add_argument("--v", type=int, help="points (partitions) of sgc's pairwise-balanced design")
    g.add_argument(
        "--p",
        type=float,
        help="sgc: straggling probability the estimator is scaled for (default s/n); "
        "bgc: Bernoulli placement probability",
    )


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--delay",
        default="exp(1)",
        help='delay model, e.g. "shifted_exp(0.05, 0.02)", '
        '"exp(1)", "pareto(scale=1, shape=2.5)", "uniform(a, b)", "constant(1)", '
        "or measured rounds "
        'replayed: "trace:PATH?profile=...&region=..." (see gctheory delays)',
    )
    p.add_argument("--persist", type=int, default=1, help="keep draws for h iterations")
    p.add_argument("--n-slow", type=int, default=0, help="workers slowed each draw")
    p.add_argument("--slowdown", type=float, default=1.0, help="their slowdown factor")
    p.add_argument("--comm-time", type=float, default=0.0, help="upload time of a full gradient")
    p.add_argument("--decode-time-per-op", type=float, default=0.0, help="time per decoder op")
    p.add_argument(
        "--no-preempt",
        action="store_true",
        help="stragglers finish their task before the next (their lateness carries over)",
    )
    p.add_argument(
        "--model",
        choices=("softmax", "logistic"),
        default="softmax",
        help="softmax (the 10 digits) or logistic (digit >= 5); default softmax",
    )
    p.add_argument("--partition", type=_partition, default="iid", help="'iid' or c (non-IID(c))")
    p.add_argument("--iterations", type=int, default=100, help="iterations (default 100)")
    p.add_argument("--step-size", type=float, help="default 1/L")
    p.add_argument("--target-loss", type=float, help="stop at this training loss")
    p.add_argument("--trials", type=int, default=1, help="seeded runs (bands if > 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    p.add_argument(
        "--out",
        default=None,
        help="output path prefix of the .csv and .png (default: a new temporary folder; the "
        "paths are printed on stderr)",
    )
