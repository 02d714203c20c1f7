"""CLI: ``gctheory sgc runtime|verify|memory``: sequential gradient coding (Krishnan et al.)."""

from __future__ import annotations

import argparse

from gctheory._output import add_format_argument, format_table


def _where(items: list[str] | None) -> dict[str, str]:
    out = {}
    for it in items or []:
        key, eq, val = it.partition("=")
        if not eq or not key:
            raise ValueError(f"--where takes COLUMN=VALUE (e.g. region=Canada), got {it!r}")
        out[key.strip()] = val.strip()
    return out


def _cmd_runtime(args: argparse.Namespace) -> int:
    from gctheory.delays import read_trace
    from gctheory.sgc import search_runtimes, trace_delays

    tr = read_trace(args.path if len(args.path) > 1 else args.path[0])
    where = _where(args.where)
    if where:
        tr = tr.select(**where)
    D = trace_delays(tr, args.load)
    if args.n is not None:
        if not 1 <= args.n <= D.shape[0]:
            raise ValueError(f"--n must be between 1 and the trace's {D.shape[0]} workers")
        D = D[: args.n]
    schemes = args.schemes.split(",") if args.schemes else None
    kw = {"schemes": schemes} if schemes else {}
    best, _ = search_runtimes(
        D, jobs=args.jobs, mu=args.mu, base_load=args.load, base_comp=args.base_comp,
        rules=args.rules, **kw,
    )  # fmt: skip
    rows = [
        {"scheme": b["scheme"], "runtime": b["runtime"], "params": b["params"],
         "load": b["load"], "waits": b["waits"]}
        for b in best
    ]  # fmt: skip
    if args.format == "text":
        for r in rows:
            r["runtime"] = round(r["runtime"], 6)
            r["load"] = round(r["load"], 6)
            r["params"] = tuple(r["params"])
    n, R = D.shape
    title = (
        f"gctheory sgc runtime {tr.source}: n = {n} workers, {R} rounds, {args.jobs} jobs, "
        f"mu = {args.mu:g},\nbase load {args.load:g}, base comp {args.base_comp:g} s, "
        f"rules = {args.rules}; params: GC (s), SR-SGC/M-SGC (B, W, lambda)"
    )
    print(format_table(rows, args.format, title=title))
    return 0


def _cmd_memory(args: argparse.Namespace) -> int:
    from gctheory._validate import check_int, check_real
    from gctheory.commands._common import unused_options
    from gctheory.delays.markov_times import parse_memory_delay
    from gctheory.sgc import SCHEMES
    from gctheory.sgc.memory_exact import sequential_time_exact
    from gctheory.sgc.memory_times import sequential_time_mc

    schemes = args.schemes.split(",") if args.schemes else ["GC", "SR-SGC", "M-SGC", "no coding"]
    for name in schemes:
        if name not in SCHEMES:
            raise ValueError(f"--schemes: {name!r} is not one of {', '.join(SCHEMES)}")
    n = check_int(args.n, "n", low=1)
    runs = check_int(args.runs, "runs", low=0)
    if runs == 1:
        raise ValueError("runs must be 0 (exact only) or >= 2 (an interval), got 1")
    for dest in ("jobs", "B", "W", "lam"):
        check_int(getattr(args, dest), dest, low=1)
    check_int(args.s, "s", low=0)
    check_real(args.mu, "mu", low=0.0)
    check_int(args.seed, "seed", low=0)
    if args.max_states is not None:
        check_int(args.max_states, "max_states", low=1)
    sgc_used = any(x in schemes for x in ("SR-SGC", "M-SGC"))
    unused: dict[str, str] = {}
    if "GC" not in schemes:
        unused["s"] = "GC is not among --schemes"
    if not sgc_used:
        unused.update(dict.fromkeys(("B", "W", "lam"), "neither SR-SGC nor M-SGC is in --schemes"))
    if not args.exact:
        unused.update(arithmetic="--no-exact", max_states="--no-exact")
    if runs == 0:
        unused.update(seed="--runs 0 (exact only)")
    if not args.exact and runs == 0:
        raise ValueError("--runs 0 with --no-exact computes nothing: give --runs >= 2")
    unused_options(args, unused, {"lam": "--lambda"})
    delay = parse_memory_delay(args.delay)
    sgc = (args.B, args.W, args.lam)
    params = {"GC": (args.s,), "SR-SGC": sgc, "M-SGC": sgc}
    rows = []
    for name in schemes:
        ps = params.get(name, ())
        row: dict = {"scheme": name, "params": ps}
        if args.exact:
            ex = sequential_time_exact(
                delay, name, ps, n, mu=args.mu, jobs=args.jobs, arithmetic=args.arithmetic,
                max_states=args.max_states,
            )  # fmt: skip
            row.update(exact_steady=ex.steady, exact_jobs=ex.first, states=ex.states)
        if runs:
            est = sequential_time_mc(
                delay, name, ps, n, jobs=args.jobs, mu=args.mu, runs=runs,
                span="jobs", rng=args.seed,
            )  # fmt: skip
            row.update(mc=est.value, mc_low=est.low, mc_high=est.high)
        rows.append(row)
    if args.format == "text":
        for r in rows:
            for k, v in r.items():
                if isinstance(v, float):
                    r[k] = round(v, 6)
    title = (
        f"gctheory sgc memory: time per job under {args.delay}, n = {args.n}, mu = {args.mu:g};"
        f"\nexact_jobs and mc: the first {args.jobs} rounds / jobs (exact: the lumped Markov "
        "chain, gctheory.sgc.memory_exact; mc: 99 % interval over independent runs); "
        "exact_steady: the long-run time per job"
    )
    print(format_table(rows, args.format, title=title))
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from gctheory.codes.sequential import MSGC, SRSGC, find_failure, verify_sequential

    cls = {"sr-sgc": SRSGC, "m-sgc": MSGC}[args.scheme]
    code = cls(args.n, args.B, args.W, args.lam)
    res = verify_sequential(code, args.jobs)
    row = {
        "scheme": code.name, "n": code.n, "B": code.B, "W": code.W, "lambda": code.lam,
        "T": code.T, "load": float(code.load), "jobs": args.jobs, "patterns": res.patterns,
        "failures": res.failures, "max_delay": res.max_delay,
    }  # fmt: skip
    if args.negative_control:
        bad = find_failure(code, args.jobs)
        row["outside_model_failure"] = "none found" if bad is None else bad[1]
    title = (
        f"gctheory sgc verify: every admissible (B, W, lambda) pattern over jobs + T = "
        f"{args.jobs + code.T} rounds"
    )
    print(format_table([row], args.format, title=title))
    return 0 if res.ok else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sgc",
        help="sequential gradient coding: runtime on a trace, exhaustive verification",
        description="Sequential gradient coding (SR-SGC, M-SGC; Krishnan, Ebrahimi, Khisti, "
        "ICLR 2023): the runtime of GC, SR-SGC, M-SGC, no coding and no-wait on measured "
        "rounds, and an exhaustive check of the constructions.",
    )
    sub = p.add_subparsers(dest="action", metavar="{runtime,verify,memory}", required=True)
    _register_runtime(sub)
    _register_verify(sub)
    _register_memory(sub)


def _register_runtime(sub: argparse._SubParsersAction) -> None:
    """``gctheory sgc runtime``: the best total runtime per scheme on a measured trace."""
    q = sub.add_parser(
        "runtime",
        description=(
            "The best total runtime of GC, SR-SGC, M-SGC, no coding and no-wait on measured "
            "rounds (a trace CSV or the public AWS Lambda profile pickles), each scheme at "
            "its best parameters (Krishnan, Ebrahimi & Khisti, ICLR 2023)."
        ),
        help="best total runtime per scheme on a measured trace",
    )
    q.add_argument("path", nargs="+", help="trace CSV file(s) or profile pickle(s)")
    q.add_argument(
        "--where",
        action="append",
        metavar="COLUMN=VALUE",
        help="keep the rows with this value (repeatable), e.g. --where region=Canada",
    )
    q.add_argument(
        "--load",
        type=float,
        default=0.0,
        help="the measured (base) load whose rounds are used (default 0)",
    )
    q.add_argument("--jobs", type=int, default=20, help="jobs to finish (default 20)")
    q.add_argument(
        "--mu",
        type=float,
        default=1.0,
        help="a round waits (1 + mu) x the fastest time (default 1)",
    )
    q.add_argument(
        "--base-comp",
        type=float,
        default=0.0,
        help="seconds per unit of normalised load added to every time (default 0)",
    )
    q.add_argument("--n", type=int, help="use the first N workers (default: all)")
    q.add_argument(
        "--rules",
        choices=("paper", "scripts"),
        default="paper",
        help="the paper's model (default) or the authors' scripts' rules",
    )
    q.add_argument("--schemes", help="comma-separated subset of GC,SR-SGC,M-SGC,no coding,no-wait")
    add_format_argument(q)
    q.set_defaults(func=_cmd_runtime)


def _register_verify(sub: argparse._SubParsersAction) -> None:
    """``gctheory sgc verify``: decode every admissible straggler pattern at small n."""
    q = sub.add_parser(
        "verify",
        description=(
            "Decode every straggler pattern that the (B, W, lambda) bursty model admits, for "
            "SR-SGC or M-SGC at small n, exhaustively: each job's gradient must be recovered "
            "by its deadline (Krishnan et al. 2023)."
        ),
        help="decode every admissible straggler pattern (small n)",
    )
    q.add_argument(
        "scheme", choices=("sr-sgc", "m-sgc"), help="the sequential code: sr-sgc or m-sgc"
    )
    q.add_argument("--n", type=int, required=True, help="workers (at most 8)")
    q.add_argument("--B", type=int, required=True, help="burst length")
    q.add_argument("--W", type=int, required=True, help="window length")
    q.add_argument("--lambda", dest="lam", type=int, required=True, help="stragglers a window")
    q.add_argument("--jobs", type=int, default=3, help="jobs (default 3)")
    q.add_argument(
        "--negative-control",
        action="store_true",
        help="also search the patterns outside the model for a failure",
    )
    add_format_argument(q)
    q.set_defaults(func=_cmd_verify)  # fmt: skip


def _register_memory(sub: argparse._SubParsersAction) -> None:
    """``gctheory sgc memory``: time per job under stragglers with memory."""
    q = sub.add_parser(
        "memory",
        description=(
            "The time per job of GC, SR-SGC and M-SGC when stragglers have memory (a Markov "
            "or Fritchman chain per worker): exact by the Markov chain where the fast and "
            "slow laws have finite support, and by a seeded Monte Carlo (Krishnan et al. "
            "2023's schemes)."
        ),
        help="time per job under stragglers with memory: exact Markov chain and Monte Carlo",
    )
    q.add_argument(
        "--delay",
        required=True,
        help="markov(p=.., r=.., fast=constant(1), slow=constant(3)) or fritchman(...); "
        "exact needs fast/slow of finite support",
    )
    q.add_argument("--n", type=int, required=True, help="workers")
    q.add_argument("--s", type=int, default=1, help="GC's s (default 1)")
    q.add_argument("--B", type=int, default=1, help="SR-SGC/M-SGC burst length (default 1)")
    q.add_argument("--W", type=int, default=2, help="SR-SGC/M-SGC window (default 2)")
    q.add_argument("--lambda", dest="lam", type=int, default=1, help="stragglers a window")
    q.add_argument("--jobs", type=int, default=20, help="jobs of a run (default 20)")
    q.add_argument("--mu", type=float, default=1.0, help="wait (1 + mu) x the fastest (default 1)")
    q.add_argument("--schemes", help="comma-separated subset of GC,SR-SGC,M-SGC,no coding,no-wait")
    q.add_argument("--runs", type=int, default=200, help="Monte Carlo runs (0: exact only)")
    q.add_argument("--seed", type=int, default=0, help="Monte Carlo seed (default 0)")
    q.add_argument("--no-exact", dest="exact", action="store_false", help="Monte Carlo only")
    q.add_argument(
        "--arithmetic",
        choices=("fraction", "float"),
        default="float",
        help="the exact chain in exact fractions or in floating point",
    )
    q.add_argument("--max-states", type=int, help="bound on the chain's lumped states")
    add_format_argument(q)
    q.set_defaults(func=_cmd_memory)
