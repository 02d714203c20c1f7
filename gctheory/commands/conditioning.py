"""CLI: ``gctheory table1`` (Table I of Kadhe et al. 2019), ``gctheory skappa`` and
``gctheory maxcond`` (worst condition number of a Gaussian or Vandermonde generator)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gctheory._names import C_CHEN_DONGARRA, GENERATOR_FAMILIES, PREFACTORS, VANDERMONDE_NODES
from gctheory._output import add_format_argument, format_table
from gctheory.commands._common import renamed_choice

if TYPE_CHECKING:
    from gctheory.conditioning import MaxCondition

# maxcond's old names: Vandermonde on these nodes, now named as in the registry
_OLD_GENERATOR_NAMES = {v: "vandermonde-" + v.replace("_", "-") for v in VANDERMONDE_NODES}


def _bound_args(p: argparse.ArgumentParser, kappa: float = 1000, eps: float = 1e-3) -> None:
    p.add_argument(
        "--kappa", type=float, default=kappa, help=f"stability bound (default {kappa:g})"
    )
    p.add_argument("--eps", type=float, default=eps, help=f"failure probability (default {eps:g})")
    p.add_argument(
        "--C",
        type=float,
        default=C_CHEN_DONGARRA,
        help=f"Chen-Dongarra constant (default {C_CHEN_DONGARRA})",
    )
    p.add_argument(
        "--prefactor",
        choices=PREFACTORS,
        default="eq7",
        help="leading factor: eq7 = 1/sqrt(2 pi) (Chen-Dongarra), lemma1 = sqrt(2 pi)",
    )


def _cmd_table1(args: argparse.Namespace) -> int:
    from gctheory.tables import table1

    rows = table1(kappa=args.kappa, eps=args.eps, C=args.C, prefactor=args.prefactor)
    for r in rows:
        r["match"] = (r["s_kappa_ya"], r["s_kappa"]) == (r["paper_ya"], r["paper"])
    cols = ["n", "s", "m", "s_kappa_ya", "paper_ya", "s_kappa", "paper", "match"]
    if any(r["note"] for r in rows):
        cols.append("note")
    title = (
        f"Table I of Kadhe et al. 2019 recomputed (kappa={args.kappa:g}, eps={args.eps:g}, "
        f"C={args.C:g}, prefactor={args.prefactor}); paper columns are the printed values"
    )
    print(format_table(rows, args.format, columns=cols, title=title))
    return 0


def _cmd_skappa(args: argparse.Namespace) -> int:
    from gctheory.conditioning import s_kappa_bound

    rows = []
    schemes = []
    if args.s < 0:
        raise ValueError(f"--s must be >= 0 (stragglers), got {args.s}")
    if args.n is not None and args.s >= args.n:
        raise ValueError(f"--s must be < --n (a worker must survive), got s={args.s}, n={args.n}")
    if args.m is not None and args.m < 2:
        raise ValueError(
            f"--m must be >= 2, got {args.m}: CommFR-GC's [m+s, m] code has K = m rows and "
            "Theorem 2 (Lemma 1) needs K >= 2"
        )
    if args.n is not None and args.n - args.s < 2:
        raise ValueError(
            f"--n - --s must be >= 2, got n={args.n}, s={args.s}: Ye-Abbe's [n, n-s] code has "
            "K = n - s rows and Theorem 2 (Lemma 1) needs K >= 2"
        )
    if not args.kappa >= 1:
        raise ValueError(f"--kappa must be >= 1 (a condition number), got {args.kappa}")
    if not 0 < args.eps < 1:
        raise ValueError(f"--eps must lie in (0, 1), got {args.eps}")
    if args.n is not None:
        schemes.append(("Ye-Abbe", args.n, args.n - args.s))
    if args.m is not None:
        schemes.append(("CommFR-GC", args.m + args.s, args.m))
    for scheme, N, K in schemes:
        b = s_kappa_bound(N, K, args.kappa, args.eps, args.C, args.prefactor, strict=not args.loose)
        rows.append(
            {
                "scheme": scheme,
                "N": N,
                "K": K,
                "t_star": b.t_star,
                "s_kappa": b.s_kappa,
                "f(t_star)": b.f_t_star,
                "eq8_kappa_min": b.kappa_min,
                "eq8_holds": b.condition8,
                "f_monotone": b.monotone,
            }
        )
    if not rows:
        raise ValueError("give --n (Ye-Abbe) and/or --m (CommFR-GC) together with --s")
    print(format_table(rows, args.format, title="Theorem 2 of Kadhe et al. 2019"))
    return 0


def _cmd_maxcond(args: argparse.Namespace) -> int:
    from gctheory.conditioning import empirical_s_kappa, max_condition
    from gctheory.generators import generator, generator_block

    block = generator_block(args.generator, args.N)
    if block != 1:
        raise ValueError(
            f"--generator {args.generator} gives blocks of {block} columns per worker; "
            "maxcond takes the families with one column per worker"
        )
    if not 1 <= args.K <= args.N:
        raise ValueError(f"--K must lie in [1, --N], got K={args.K}, N={args.N}")
    G = generator(args.generator, args.K, args.N, rng=args.seed)
    rows = []
    if args.t is None:
        args.t = args.N - 1
    if args.kappa is not None:
        e = empirical_s_kappa(G, args.kappa, exhaustive_limit=args.exhaustive_limit, rng=args.seed)
        steps: Sequence[MaxCondition] = e.steps
    else:
        steps = [max_condition(G, args.t, exhaustive_limit=args.exhaustive_limit, rng=args.seed)]
    for mc in steps:
        rows.append(
            {
                "t": mc.t,
                "stragglers": args.N - mc.t,
                "max_cond": mc.value,
                "max_cond_mp": mc.value_mp,
                "worst_subset": " ".join(map(str, mc.subset)),
                "method": mc.method,
                "evaluated": mc.evaluated,
                "subsets": mc.n_subsets,
            }
        )
    title = f"{args.generator} {args.K} x {args.N} generator"
    if args.kappa is not None:
        title += f": empirical s_kappa = {e.value} (kappa={args.kappa:g}, exact={e.exact})"
    print(format_table(rows, args.format, title=title))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "table1",
        description=(
            "Table I of Kadhe et al. 2019 recomputed: the number of stragglers s_kappa that "
            "Theorem 2 guarantees for the Ye-Abbe and CommFR-GC schemes with Gaussian "
            "generators (every decoding matrix has condition number <= kappa with probability"
            " >= 1 - eps), beside the values printed in the paper."
        ),
        help="Table I of Kadhe et al. 2019 (s_kappa, Ye-Abbe vs CommFR-GC), recomputed",
    )
    _bound_args(p)
    add_format_argument(p)
    p.set_defaults(func=_cmd_table1)

    p = subparsers.add_parser(
        "skappa",
        description=(
            "Theorem 2 of Kadhe et al. 2019 for one configuration: the guaranteed s_kappa "
            "(stragglers tolerated while every decoding matrix keeps condition number <= "
            "kappa with probability >= 1 - eps) of the Ye-Abbe scheme's (n - s) x n Gaussian "
            "V and of CommFR-GC's Gaussian group code."
        ),
        help="Theorem 2 of Kadhe et al. 2019: guaranteed s_kappa for given n, s, m",
    )
    p.add_argument("--n", type=int, help="workers (Ye-Abbe scheme: (n-s) x n Gaussian V)")
    p.add_argument("--s", type=int, required=True, help="stragglers the code tolerates")
    p.add_argument("--m", type=int, help="communication saving (CommFR-GC: [m+s, m] code)")
    p.add_argument(
        "--loose", action="store_true", help="outside eq. (8): use the bare union bound (warns)"
    )
    _bound_args(p)
    add_format_argument(p)
    p.set_defaults(func=_cmd_skappa)

    p = subparsers.add_parser(
        "maxcond",
        description=(
            "The worst condition number over every t-column subset of a K x N generator, "
            "certified (a lower and an upper bound, by enumeration or branch and bound), or "
            "the largest number of stragglers whose worst case stays <= kappa: the "
            "deterministic s_kappa of Kadhe et al. 2019, Definition 1."
        ),
        help="worst condition number over t-column subsets of a K x N generator, or s_kappa",
    )
    p.add_argument("--K", type=int, required=True, help="code dimension (rows of the generator)")
    p.add_argument("--N", type=int, required=True, help="code length (columns of the generator)")
    p.add_argument("--t", type=int, help="surviving columns (default N - 1)")
    p.add_argument("--kappa", type=float, help="if given, compute the empirical s_kappa instead")
    p.add_argument(
        "--generator",
        type=renamed_choice(_OLD_GENERATOR_NAMES, "--generator"),
        choices=GENERATOR_FAMILIES,
        default="gaussian",
        metavar="FAMILY",
        help="generator family of gctheory.generators (one column per worker): "
        + ", ".join(f for f in GENERATOR_FAMILIES if "embedding" not in f),
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the Gaussian generator, sampling")
    p.add_argument(
        "--exhaustive-limit",
        type=int,
        default=200_000,
        help="enumerate all subsets up to this many, else a labelled estimate (default 200000)",
    )
    add_format_argument(p)
    p.set_defaults(func=_cmd_maxcond)
