"""``gctheory load``: every lower bound on the computation load and the loads codes achieve."""

from __future__ import annotations

import argparse

from gctheory._output import add_format_argument, format_table

__all__ = ["register"]


def _handler(args: argparse.Namespace) -> int:
    from gctheory.load_bounds import all_bounds, brc_parameters

    rows = []
    for label, b, p in all_bounds(args.n, args.s, eps=args.eps, target=args.target):
        rel = "=" if b.kind == "achievable" else (">" if b.strict else ">=")
        rows.append(
            {
                "bound": label,
                "kind": b.kind,
                "d": f"{rel} {b.value:.4g}",
                "load": b.load,
                "FRC P(fail) at load": float(p),
                "asymptotic": "yes" if b.asymptotic else "no",
                "source": b.source,
                "notes": "; ".join(n.split(":")[0] for n in b.notes),
            }
        )
    if args.s >= 1 and 0 < args.eps < 0.25:
        par = brc_parameters(args.n, args.s, args.eps)
        rows.append(
            {
                "bound": f"BRC, Thm 6 (b={par.b}, D={par.D}), average",
                "kind": "achievable",
                "d": f"= {float(par.average_load):.4g}",
                "load": par.max_load,
                "FRC P(fail) at load": None,
                "asymptotic": "yes",
                "source": "Wang et al. 2019, Theorem 6, eq. (17)",
                "notes": "load column is the maximum b(D+1)"
                + ("" if par.condition_53 else "; eq. (53) fails"),
            }
        )
    title = (
        f"Computation load for n={args.n}, s={args.s} (eps={args.eps:g}, "
        f"target failure probability {args.target:g})"
    )
    print(format_table(rows, args.format, title=title))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "load",
        help="lower bounds on the computation load and the loads codes achieve",
        description=(
            "Every bound on the number of data partitions per worker for n workers and s "
            "stragglers: worst case (Tandon, Ye-Abbe, Halbawi), Wang et al. 2019 Theorems 3-5 "
            "(asymptotic) and their exact finite-n versions, the d-FRC's load from Theorem 4 "
            "and the smallest d-FRC load reaching the target failure probability (exact). "
            "The column 'FRC P(fail) at load' is the exact failure probability of the d-FRC "
            "built with that row's load."
        ),
    )
    p.add_argument("--n", type=int, required=True, help="number of workers (n >= 2)")
    p.add_argument("--s", type=int, required=True, help="number of stragglers (0 <= s < n)")
    p.add_argument("--eps", type=float, default=0.01, help="error level eps (default 0.01)")
    p.add_argument(
        "--target",
        type=float,
        default=0.01,
        help="target failure probability for the finite-n rows (default 0.01)",
    )
    add_format_argument(p)
    p.set_defaults(func=_handler)
