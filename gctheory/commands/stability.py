"""CLI: ``gctheory stability compare`` (every generator family on the same footing) and
``gctheory stability table`` ("for this n, s, m and kappa, use this generator")."""

from __future__ import annotations

import argparse
from typing import Any

from gctheory._names import COMPARE_SCHEMES, GENERATOR_FAMILIES
from gctheory._output import add_format_argument, format_table
from gctheory._progress import Progress
from gctheory.commands._common import add_quiet_argument, progress_enabled


def _families(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    names = tuple(f.strip() for f in text.split(",") if f.strip())
    for f in names:
        if f not in GENERATOR_FAMILIES:
            raise ValueError(f"--families: {f!r} is not one of {list(GENERATOR_FAMILIES)}")
    return names


def _compare(args: argparse.Namespace, compare_generators: Any, progress: Any = None) -> Any:
    return compare_generators(
        args.n,
        args.s,
        args.m,
        families=_families(args.families),
        schemes=tuple(args.schemes.split(",")),
        kappa=args.kappa,
        eps=args.eps,
        time_limit=args.time_limit,
        rng=args.seed,
        progress=progress,
    )


def _cmd_compare(args: argparse.Namespace) -> int:
    from gctheory.codes.stability import compare_generators, recommend

    with Progress(1, "stability compare", enabled=progress_enabled(args)) as bar:
        rows = _compare(args, compare_generators, progress=bar)
    best = recommend(rows)
    title = f"generators at n={args.n}, s={args.s}, m={args.m}, kappa={args.kappa:g}: " + "; ".join(
        f"{k}: use {v.family if v else 'none certified'}" for k, v in best.items()
    )
    cols = None
    if args.format == "text":  # the full detail stays in md/csv/json
        cols = ["scheme", "family", "worst_kappa_low", "worst_kappa_high", "certified"]
        cols += ["s_kappa", "theorem2_gaussian", "decoding_error"]
    print(format_table([r.row() for r in rows], args.format, columns=cols, title=title))
    return 0


def _cmd_table(args: argparse.Namespace) -> int:
    from gctheory.tables import generator_table

    nsm = None
    if args.n is not None:
        nsm = [(n, s, args.m) for n in args.n for s in args.s]
    with Progress(1, "stability table", enabled=progress_enabled(args)) as bar:
        rows = generator_table(
            nsm,
            args.kappa,
            families=_families(args.families),
            time_limit=args.time_limit,
            progress=bar,
        )
    print(format_table(rows, args.format, title="for this n, s, m and kappa, use this generator"))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "stability", help="which generator: every family compared (certified worst case)"
    )
    sub = p.add_subparsers(dest="what", metavar="{compare,table}")
    sub.required = True

    c = sub.add_parser(
        "compare",
        description=(
            "Every generator family (Gaussian, Vandermonde, Chebyshev-Vandermonde, Legendre, "
            "rotation and circulant embeddings, RKRP) as Ye-Abbe's V and as CommFR-GC's G at "
            "n, s and m, with its certified worst-case condition number over the straggler "
            "sets, beside Theorem 2 of Kadhe et al. 2019."
        ),
        help="every family as Ye-Abbe V and CommFR-GC G at n, s, m",
    )
    c.add_argument("--n", type=int, required=True, help="workers")
    c.add_argument("--s", type=int, required=True, help="stragglers")
    c.add_argument("--m", type=int, required=True, help="communication saving")
    c.add_argument("--families", help="comma-separated names (default all): " + ", ".join(
        GENERATOR_FAMILIES))  # fmt: skip
    c.add_argument("--schemes", default=",".join(COMPARE_SCHEMES), help="ye-abbe,commfr")
    c.add_argument("--kappa", type=float, default=1000.0, help="stability bound (default 1000)")
    c.add_argument("--eps", type=float, default=1e-3, help="Theorem 2's eps (default 1e-3)")
    c.add_argument("--time-limit", type=float, default=10.0, help="seconds per worst case")
    c.add_argument("--seed", type=int, default=0, help="seed of the random families")
    add_quiet_argument(c)
    add_format_argument(c)
    c.set_defaults(func=_cmd_compare)

    t = sub.add_parser(
        "table",
        description=(
            "For each n and s: which generator family to use for the Ye-Abbe and CommFR-GC "
            "schemes (Kadhe et al. 2019) so that every decoding matrix keeps condition number"
            " <= kappa, from certified worst cases."
        ),
        help="for this n, s, m and kappa, use this generator",
    )
    t.add_argument("--n", type=int, nargs="+", help="workers (default 12 24 36 48 60)")
    t.add_argument("--s", type=int, nargs="+", default=[1, 2], help="stragglers (default 1 2)")
    t.add_argument("--m", type=int, default=2, help="communication saving (default 2)")
    t.add_argument("--kappa", type=float, nargs="+", help="bounds (default 1e3 1e6)")
    t.add_argument("--families", help="comma-separated family names (default all)")
    t.add_argument("--time-limit", type=float, default=10.0, help="seconds per worst case")
    add_quiet_argument(t)
    add_format_argument(t)
    t.set_defaults(func=_cmd_table)
