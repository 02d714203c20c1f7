"""CLI: ``gctheory sgc runtime|verify``: sequential gradient coding (Krishnan et al. 2023)."""

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
    sub = p.add_subparsers(dest="action", metavar="{runtime,verify}", required=True)

    q = sub.add_parser("runtime", help="best total runtime per scheme on a measured trace")
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

    q = sub.add_parser("verify", help="decode every admissible straggler pattern (small n)")
    q.add_argument("scheme", choices=("sr-sgc", "m-sgc"))
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
