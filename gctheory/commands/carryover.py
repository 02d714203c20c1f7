"""CLI: ``gctheory carryover``: how much slower a run is when stragglers are not preempted
(:mod:`gctheory.runtime.carryover`)."""

from __future__ import annotations

import argparse

from gctheory._names import RUNTIME_SCHEMES as SCHEMES
from gctheory._output import Interval, add_format_argument, format_table
from gctheory._validate import check_int
from gctheory.commands._common import scheme_type


def _cmd_carryover(args: argparse.Namespace) -> int:
    from gctheory.delays import parse_delay
    from gctheory.runtime import carryover_slowdown

    n = check_int(args.n, "--n", low=1)
    law = parse_delay(args.delay)
    if not hasattr(law.dist, "dist") or law.n_slow or law.persist != 1:  # scipy law, i.i.d.
        raise ValueError(f"--delay must be an i.i.d. law such as shifted_exp(1, 0.5), got "
                         f"{args.delay!r}")  # fmt: skip
    rows = []
    for s in args.s:
        c = carryover_slowdown(
            args.scheme, law.dist, n, s, args.m, iterations=args.iterations,
            trials=args.trials, tau=args.tau, rng=args.seed, level=args.level,
        )  # fmt: skip
        rows.append(
            {
                "scheme": args.scheme,
                "s": s,
                "fresh": c.fresh,
                "carried": c.carried.value,
                "carried_ci": Interval(c.carried.low, c.carried.high),
                "slowdown": c.slowdown,
                "slowdown_ci": Interval(c.slowdown_low, c.slowdown_high),
            }
        )
    title = (
        f"Mean iteration time over {args.iterations} iterations, n={n}, delay {args.delay}: "
        f"every iteration afresh (exact) vs stragglers finishing their task (Monte Carlo, "
        f"{args.trials} runs, {args.level:.0%} interval)"
    )
    print(format_table(rows, args.format, title=title))
    return 0


def register(subparsers) -> None:
    """Add ``carryover`` to the ``gctheory`` command."""
    p = subparsers.add_parser(
        "carryover",
        help="iteration time when stragglers finish their old task (no preemption)",
        description=(
            "A master that cannot cancel a running task (the mpi4py masters of the papers' "
            "scripts, Tandon et al. 2017) lets a late worker finish its old task before it "
            "takes the newest parameters, so its lateness carries into the next iteration. "
            "This compares the mean iteration time of that queue (Monte Carlo, a run from "
            "idle workers) with the exact time when every iteration starts afresh."
        ),
    )
    p.add_argument("--scheme", type=scheme_type(SCHEMES), default="cyclic-mds",
                   help=f"the scheme (default cyclic-mds): {', '.join(SCHEMES)}")  # fmt: skip
    p.add_argument("--n", type=int, required=True, help="number of workers")
    p.add_argument("--s", type=int, nargs="+", default=[1], help="straggler tolerances")
    p.add_argument("--m", type=int, default=1, help="communication saving (Ye-Abbe)")
    p.add_argument(
        "--delay",
        default="shifted_exp(shift=1, mean=0.5)",
        help="time to process the whole dataset (default shifted_exp(1, 0.5))",
    )
    p.add_argument("--tau", type=float, default=0.0, help="time to send one full gradient")
    p.add_argument("--iterations", type=int, default=100, help="iterations per run")
    p.add_argument("--trials", type=int, default=2000, help="runs simulated")
    p.add_argument("--level", type=float, default=0.99, help="confidence level")
    p.add_argument("--seed", type=int, default=0, help="Monte Carlo seed")
    add_format_argument(p)
    p.set_defaults(func=_cmd_carryover)
