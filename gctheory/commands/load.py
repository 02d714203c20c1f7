"""``gctheory load``: every lower bound on the computation load and the loads codes achieve."""

from __future__ import annotations

import argparse
from typing import Any

from gctheory._output import add_format_argument, format_table

__all__ = ["register"]


def _handler(args: argparse.Namespace) -> int:
    from gctheory.commands._common import unused_options
    from gctheory.load_bounds import all_bounds, brc_parameters

    if not args.mc:
        unused_options(args, {"seed": "it seeds the Monte Carlo of --mc"})
    rows = []
    for label, b, p in all_bounds(args.n, args.s, eps=args.eps, target=args.target):
        rel = "=" if b.kind == "achievable" else (">" if b.strict else ">=")
        rows.append(
            {
                "bound": label,
                "kind": b.kind,
                "rel": rel,
                "d": b.value,
                "load": b.load,
                "FRC P(fail) at load": float(p),
                "asymptotic": bool(b.asymptotic),
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
                "rel": "=",
                "d": float(par.average_load),
                "load": par.max_load,
                "FRC P(fail) at load": None,
                "asymptotic": True,
                "source": "Wang et al. 2019, Theorem 6, eq. (17)",
                "notes": "load column is the maximum b(D+1)"
                + ("" if par.condition_53 else "; eq. (53) fails"),
            }
        )
    if args.mc:
        rows += _mc_rows(args)
    title = (
        f"Computation load for n={args.n}, s={args.s} (eps={args.eps:g}, "
        f"target failure probability {args.target:g})"
    )
    print(format_table(rows, args.format, title=title, optional=("source", "kind")))
    return 0


_MC_FAMILIES = (
    ("brc", "BRC (Thm 6 P_w, batch size b)", "b"),
    ("bgc", "Bernoulli GC (p = q/n)", "q"),
)


def _mc_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Monte Carlo achieved-load rows (``--mc TRIALS``) for the batch raptor code and the
    Bernoulli gradient code, through :func:`gctheory.load_bounds.achieved_load_mc`."""
    from gctheory.load_bounds import achieved_load_mc

    if args.mc < 1:
        raise ValueError(f"--mc must be a positive number of trials, got {args.mc}")
    rows = []
    for i, (family, label, knob) in enumerate(_MC_FAMILIES):
        row: dict[str, Any] = {
            "bound": f"{label}, achieved (Monte Carlo)",
            "kind": "achieved (MC)",
            "rel": None,
            "d": None,
            "load": None,
            "FRC P(fail) at load": None,
            "asymptotic": False,
            "source": "Monte Carlo: gctheory.load_bounds.achieved_load_mc",
            "notes": "",
        }
        if family == "brc" and not 0 < args.eps < 0.25:
            row["notes"] = f"not run: the BRC of Theorem 6 needs 0 < eps < 1/4, got {args.eps:g}"
            rows.append(row)
            continue
        best, tried = achieved_load_mc(
            family, args.n, args.s, args.eps, args.target, args.mc, rng=args.seed + i, level=0.98
        )
        if best is None:
            lows = ", ".join(f"{knob}={t.parameter:g}: <= {t.estimate.high:.3g}" for t in tried)
            row["notes"] = (
                f"no member reached the target with {args.mc} trials "
                f"(99% upper limits of P(err > eps n): {lows or 'no member could be built'})"
            )
        else:
            e = best.estimate
            row["bound"] = f"{label}, achieved (Monte Carlo, {knob}={best.parameter:g})"
            row["rel"], row["d"] = "=", best.mean_load
            row["load"] = best.max_load
            row["notes"] = (
                f"load column is the maximum; P(err > eps n) = {e.value:.3g}, 99% upper "
                f"limit {e.high:.3g} <= target ({e.trials} trials, {len(tried)} member(s) "
                "tried, smallest accepted)"
            )
        rows.append(row)
    return rows


def _grid_handler(args: argparse.Namespace) -> int:
    from gctheory.load_bounds import frc_failure_probability, load_curves

    rows = []
    for n in args.n:
        if n < 2:
            raise ValueError(f"--n must be integers >= 2, got {n}")
    for dl in args.delta:
        if not 0 <= dl < 1:  # also refuses nan
            raise ValueError(f"--delta must lie in [0, 1) (s = round(delta n) < n), got {dl}")
    for n in args.n:
        s_values = sorted({int(round(dl * n)) for dl in args.delta})
        for s in s_values:
            if not 0 <= s < n:
                raise ValueError(f"--delta: delta * n must give 0 <= s < n, got s={s} for n={n}")
        c = load_curves(n, s_values, eps=args.eps, target=args.target)
        for i, s in enumerate(c["s"]):
            d = c["frc_exact_min_load"][i]
            rows.append(
                {
                    "n": n,
                    "s": s,
                    "s+1": c["worst_case"][i],
                    "eq13": c["thm3_eq13_load"][i],
                    "eq52(eps)": c["thm5_eq52_load"][i],
                    "LB finite eps=0": c["finite_n_lb_eps0"][i],
                    "LB finite eps": c["finite_n_lb_eps"][i],
                    "FRC eq14": c["frc_eq14_load"][i],
                    "FRC exact d": d,
                    "FRC P(fail) at d": float(frc_failure_probability(n, s, d)),
                }
            )
    title = (
        f"Integer loads (target failure probability {args.target:g}, eps={args.eps:g}); "
        "LB = finite-n lower bound, FRC exact d = smallest d-FRC load meeting the target"
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
    p.add_argument(
        "--mc",
        type=int,
        default=0,
        metavar="TRIALS",
        help="also estimate, with TRIALS Monte Carlo frames per code, the smallest load the "
        "batch raptor code and the Bernoulli gradient code achieve at the target (slow: "
        "seconds to minutes; default 0 = off)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the --mc rows (default 0)")
    add_format_argument(p)
    p.set_defaults(func=_handler)

    g = subparsers.add_parser(
        "load-grid",
        help="integer load bounds and the exact smallest d-FRC load over a grid of n and s",
        description=(
            "For each n and s = round(delta n): the worst-case load s+1, the integer loads of "
            "Wang et al.'s eq. (13) and eq. (52), the exact finite-n lower bounds, Theorem 4's "
            "FRC load and the exact smallest d-FRC load whose failure probability is at most "
            "the target."
        ),
    )
    g.add_argument("--n", type=int, nargs="+", required=True, help="numbers of workers")
    g.add_argument(
        "--delta",
        type=float,
        nargs="+",
        default=[0.01, 0.05, 0.1, 0.2, 0.3, 0.5],
        help="straggler fractions s/n (default 0.01 0.05 0.1 0.2 0.3 0.5)",
    )
    g.add_argument("--eps", type=float, default=0.01, help="error level eps (default 0.01)")
    g.add_argument("--target", type=float, default=0.01, help="target failure probability")
    add_format_argument(g)
    g.set_defaults(func=_grid_handler)
