"""CLI: ``gctheory orderstat`` (expected k-th order statistic, exact, approximate and
sampled) and ``gctheory optimum {halbawi,scheme,zhang,xu}`` (runtime-optimal parameters)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from gctheory._names import RUNTIME_SCHEMES as SCHEMES
from gctheory._names import ZHANG_SCHEMES
from gctheory._output import Interval, add_format_argument, format_table
from gctheory._validate import check_int
from gctheory.commands._common import (
    REMOVED_IN,
    add_renamed,
    cli_warning,
    given,
    scheme_type,
    unused_options,
)

_PARETO = {"scale": 0.001, "shape": 1.1}  # Halbawi et al. 2017, Section 6
_EXPON = {"mean": 1.0, "shift": 0.0}


def _dist_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--delay",
        metavar="LAW",
        help='worker-time law, as in run and tradeoff: "pareto(scale=0.001, shape=1.1)" '
        '(the default, Halbawi et al. 2017), "shifted_exp(shift=0, mean=1)", "exp(mean=1)"',
    )
    old = "deprecated, stops working in 0.3: use --delay"
    p.add_argument(
        "--dist", choices=("pareto", "exponential"), default="pareto", help=f"({old}) the law"
    )
    p.add_argument("--scale", type=float, help=f"({old}) Pareto scale t0")
    p.add_argument("--shape", type=float, help=f"({old}) Pareto shape xi")
    p.add_argument("--mean", type=float, help=f"({old}) exponential mean mu")
    p.add_argument("--shift", type=float, help=f"({old}) exponential shift delta")
    add_renamed(p, "--t0", "--scale", type=float)
    add_renamed(p, "--xi", "--shape", type=float)
    add_renamed(p, "--mu", "--mean", type=float)
    add_renamed(p, "--delta", "--shift", type=float)


_OLD_LAW_OPTIONS = ("dist", "scale", "shape", "mean", "shift")


def _law_of_delay(args: argparse.Namespace):
    """The frozen law of ``--delay``, with ``args.dist`` and its parameters set from it
    (``pareto`` or ``exponential`` where the papers' approximations apply, else ``other``)."""
    old = [f"--{k}" for k in _OLD_LAW_OPTIONS if given(args, k)]
    if old:
        raise ValueError(f"give --delay or {', '.join(old)} (deprecated), not both")
    if args.delay.strip().startswith("trace:"):
        raise ValueError(
            "--delay must be a law here, not a trace (gctheory delays fit fits laws to one)"
        )
    from gctheory.delays import parse_delay

    dist = parse_delay(args.delay).dist
    name = getattr(getattr(dist, "dist", None), "name", "")
    if not hasattr(dist, "kwds") or dist.args:
        raise ValueError(
            f"--delay must be a law such as pareto(scale=.., shape=..), got {args.delay!r}"
        )
    kw = dist.kwds
    if name == "pareto":
        args.dist, args.shape, args.scale = "pareto", float(kw["b"]), float(kw.get("scale", 1.0))
    elif name == "expon":
        args.dist, args.shift, args.mean = (
            "exponential",
            float(kw.get("loc", 0.0)),
            float(kw.get("scale", 1.0)),
        )
    else:
        args.dist = "other"
    return dist


def _make_dist(args: argparse.Namespace):
    """The worker-time law of ``--delay`` (or of the deprecated ``--dist`` and its
    parameters: options of the other law are refused, every option given is checked, and
    the unset ones take their defaults, set on ``args``)."""
    if getattr(args, "delay", None) is not None:
        return _law_of_delay(args)
    from scipy import stats

    old = [f"--{k}" for k in _OLD_LAW_OPTIONS if given(args, k)]
    if old:
        cli_warning(
            f"{', '.join(old)} {'is' if len(old) == 1 else 'are'} deprecated and will be "
            f'removed in {REMOVED_IN}; use --delay, e.g. --delay "pareto(scale=0.001, '
            'shape=1.1)" or --delay "shifted_exp(shift=0, mean=1)"'
        )
    mine, other = (_PARETO, _EXPON) if args.dist == "pareto" else (_EXPON, _PARETO)
    unused_options(args, {k: f"--dist {args.dist} reads {', '.join('--' + m for m in mine)}"
                          for k in other})  # fmt: skip
    for k, v in mine.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    for k in ("scale", "shape", "mean"):
        given_ = getattr(args, k, None)
        if given_ is not None and not (math.isfinite(given_) and given_ > 0):
            raise ValueError(f"--{k} must be a positive number, got {given_}")
    if args.shift is not None and not (math.isfinite(args.shift) and args.shift >= 0):
        raise ValueError(f"--shift must be a number >= 0, got {args.shift}")
    if args.dist == "pareto":
        return stats.pareto(args.shape, scale=args.scale)
    return stats.expon(loc=args.shift, scale=args.mean)


def _cmd_orderstat(args: argparse.Namespace) -> int:
    from gctheory.order_stats import (
        halbawi_proposition1_error,
        order_statistic_mc,
        order_statistic_moments,
        xu_log_approx_error,
    )

    dist = _make_dist(args)
    n = check_int(args.n, "--n", low=1)
    ks = [check_int(k, "--k", low=1, high=n) for k in args.k] if args.k else [n]
    check_int(args.mc, "--mc (Monte Carlo trials; 0 = none)", low=0)
    if not args.mc:
        unused_options(args, {"seed": "it seeds the Monte Carlo of --mc"})
    check_int(args.seed, "--seed", low=0)
    rows = []
    for k in ks:
        m = order_statistic_moments(dist, k, args.n)
        row = {
            "k": k,
            "n": args.n,
            "mean": m.mean,
            "std": m.std,
            "method": m.method,
        }
        if args.dist == "pareto":
            alpha = 1 - k / args.n
            if alpha > 0:
                a = halbawi_proposition1_error(args.scale, args.shape, alpha, args.n, f=k)
                row["prop1_limit"] = a.approx
                row["prop1_rel_err"] = a.rel_error if math.isfinite(a.exact) else None
        elif args.dist == "exponential":
            a = xu_log_approx_error(args.shift, args.mean, k, args.n)
            row["log_approx"] = a.approx
            row["log_rel_err"] = a.rel_error
        if args.mc:
            if math.isfinite(m.variance):
                e = order_statistic_mc(dist, k, args.n, args.mc, rng=args.seed)
                row["mc_mean"], row["mc_interval"] = e.value, Interval(e.low, e.high)
            else:
                row["mc_mean"] = None
        row["note"] = m.reason or ""
        rows.append(row)
    cols = list(dict.fromkeys(c for r in rows for c in r))
    desc = (
        f"Pareto(scale={args.scale:g}, shape={args.shape:g})"
        if args.dist == "pareto"
        else f"{args.shift:g} + Exp(mean {args.mean:g})"
        if args.dist == "exponential"
        else args.delay.strip()
    )
    title = f"E[X_(k:n)] for X ~ {desc}" + (
        " (MC skipped where variance is infinite)" if args.mc else ""
    )
    print(format_table(rows, args.format, columns=cols, title=title))
    return 0


def _cmd_halbawi(args: argparse.Namespace) -> int:
    from gctheory.runtime import halbawi_alpha_star, halbawi_cm_range, halbawi_f, halbawi_optimal_f

    check_int(args.n, "--n", low=1)
    if args.target_f is not None:
        check_int(args.target_f, "--target-f", low=1, high=args.n)
    rows = []
    for dec in ("none", "rs", "generic"):
        o = halbawi_optimal_f(
            args.n, t0=args.scale, xi=args.shape, n_cg=args.n_cg, c_m=args.c_m, decoding=dec
        )
        rows.append(
            {"decoding": dec, "f_opt": o.f, "alpha": o.alpha, "T_f": o.time, "c_m": args.c_m}
        )
    try:
        a = halbawi_alpha_star(args.scale, args.shape, args.n_cg)
        rows.append(
            {"decoding": "eq. (22) alpha*", "f_opt": halbawi_f(a, args.n), "alpha": a, "T_f": None}
        )
    except ValueError as err:
        rows.append({"decoding": f"eq. (22): {err}"})
    if args.target_f:
        for dec in ("rs", "generic"):
            rng_ = halbawi_cm_range(
                args.target_f, args.n, t0=args.scale, xi=args.shape, n_cg=args.n_cg, decoding=dec
            )
            rows.append(
                {
                    "decoding": f"{dec}: c_m making f={args.target_f} optimal"
                    + (" (none)" if rng_ is None else ""),
                    "c_m_low": None if rng_ is None else rng_[0],
                    "c_m_high": None if rng_ is None else rng_[1],
                }
            )
    title = (
        f"Halbawi et al. 2017 eq. (17): n={args.n}, scale t0={args.scale:g}, "
        f"shape xi={args.shape:g}, N c_g={args.n_cg:g}"
    )
    print(
        format_table(
            rows,
            args.format,
            title=title,
            columns=["decoding", "f_opt", "alpha", "T_f", "c_m"]
            + (["c_m_low", "c_m_high"] if args.target_f else []),
        )
    )
    return 0


def _cmd_scheme(args: argparse.Namespace) -> int:
    from gctheory.runtime import optimal_straggler_tolerance

    dist = _make_dist(args)
    n = check_int(args.n, "--n", low=1)
    check_int(args.m, "--m", low=1, high=n)
    rows = []
    for scheme in args.scheme or [s for s in SCHEMES if s not in ("commfr-gc",)]:
        s, times = optimal_straggler_tolerance(scheme, dist, args.n, args.m, tau=args.tau)
        rows.append({"scheme": scheme, "s_opt": s, "time": times[s], "time_s0": times.get(0)})
    print(
        format_table(
            rows,
            args.format,
            title=f"Expected iteration time, n={args.n}, m={args.m}, tau={args.tau:g}",
        )
    )
    return 0


def _cmd_zhang(args: argparse.Namespace) -> int:
    # bad values are errors (exit 2), not rows: only a scheme's structural condition
    # (r | n, G | n, r <= n/G) is reported as a note in its row
    from gctheory.runtime import zhang_best_redundancy, zhang_metrics

    n = check_int(args.n, "--n", low=1)
    check_int(args.r, "--r", low=1, high=n)
    check_int(args.groups, "--groups", low=1, high=n)
    if args.dist != "pareto":
        unused_options(args, {"shape": "--shape is the Pareto shape: --dist pareto"})
    elif args.shape is None:
        args.shape = 2.0
    if args.shape is not None and not (math.isfinite(args.shape) and args.shape > 0):
        raise ValueError(f"--shape must be a positive number, got {args.shape}")
    if not 0 <= args.rho <= 1:
        raise ValueError(f"--rho must lie in [0, 1], got {args.rho}")
    rows: list[dict[str, Any]] = []
    for scheme in ZHANG_SCHEMES:
        try:
            z = zhang_metrics(
                scheme,
                args.n,
                1 if scheme in ("GD", "LAG") else args.r,
                model=args.dist,
                shape=args.shape,
                rho=args.rho,
                groups=args.groups,
            )
        except ValueError as err:
            rows.append({"scheme": scheme, "note": str(err)})
            continue
        rows.append(
            {
                "scheme": scheme,
                "time": z.time,
                "communication": z.communication,
                "computation": z.computation,
            }
        )
    for scheme in ("GC", "G-GD", "G-LAG"):
        r, times = zhang_best_redundancy(
            scheme, args.n, model=args.dist, shape=args.shape, rho=args.rho
        )
        rows.append({"scheme": f"{scheme} best r", "time": times[r], "note": f"r={r}"})
    title = (
        f"Zhang et al. 2020 per iteration: n={args.n}, r={args.r}, {args.dist}"
        + (f" shape={args.shape:g}" if args.dist == "pareto" else "")
        + f", rho={args.rho:g}"
    )
    cols = ["scheme", "time", "communication", "computation", "note"]
    print(format_table(rows, args.format, columns=cols, title=title))
    return 0


def _cmd_xu(args: argparse.Namespace) -> int:
    from gctheory.runtime import xu_feasible_interval, xu_feasible_k_exact, xu_optimal_p

    lo, hi = xu_feasible_interval(args.n, args.s, args.lam)
    ks = xu_feasible_k_exact(args.n, args.s, args.lam, delta=args.shift, mu=args.mean, tau=args.tau)
    k_lo, k_hi = math.ceil(lo * args.n), math.floor(hi * args.n)
    rows = [
        {"quantity": "eq. (23) K/N low", "value": lo},
        {"quantity": "eq. (23) K/N high", "value": hi},
        {"quantity": "eq. (23) K min", "value": k_lo},
        {"quantity": "eq. (23) K max (empty if < K min)", "value": k_hi},
        {"quantity": "exact (19)-(20) K count", "value": len(ks)},
        {"quantity": "exact (19)-(20) K min", "value": min(ks) if ks else None},
        {"quantity": "exact (19)-(20) K max", "value": max(ks) if ks else None},
        {"quantity": "exact (19)-(20) K set", "value": ks},
    ]
    if args.c is not None:
        rows.append({"quantity": f"eq. (25) p* for c={args.c:g}", "value": xu_optimal_p(args.c)})
    print(
        format_table(
            rows,
            args.format,
            title=f"Xu et al. 2021, n={args.n}, s={args.s:g}, lambda={args.lam:g}",
        )
    )
    return 0


def _cmd_optimum_without_model(args: argparse.Namespace) -> int:
    raise ValueError(
        "a model is required: gctheory optimum {halbawi,scheme,zhang,xu} ... "
        "(gctheory optimum MODEL --help lists its options)"
    )


def register(subparsers) -> None:
    """Add ``orderstat`` and ``optimum`` to the ``gctheory`` command."""
    _add_orderstat(subparsers)
    o = subparsers.add_parser(
        "optimum", help="runtime-optimal parameters (halbawi f/alpha, scheme s, zhang r, xu K)"
    )
    osub = o.add_subparsers(dest="model", metavar="MODEL")
    o.set_defaults(func=_cmd_optimum_without_model)
    _add_optimum_halbawi(osub)
    _add_optimum_scheme(osub)
    _add_optimum_zhang(osub)
    from gctheory.commands._hetero import add_optimum_hetero

    add_optimum_hetero(osub)  # heterogeneous workers
    _add_optimum_xu(osub)


def _add_orderstat(subparsers) -> None:
    """``gctheory orderstat``: expected order statistics of worker times."""
    p = subparsers.add_parser(
        "orderstat",
        help="expected k-th smallest of n worker times (exact, asymptotic, Monte Carlo)",
        description="E[X_(k:n)] exactly (closed form), the papers' large-n approximation "
        "and its error (Proposition 1 of Halbawi et al. 2017 for Pareto times, the "
        "logarithmic approximation of Xu et al. 2021 for shifted-exponential ones), and "
        "optionally a seeded Monte Carlo estimate.",
    )
    _dist_args(p)
    p.add_argument("--n", type=int, required=True, help="number of workers")
    p.add_argument("--k", type=int, nargs="*", help="order(s) k (default: n, the maximum)")
    p.add_argument("--mc", type=int, default=0, help="Monte Carlo trials (default 0: none)")
    p.add_argument("--seed", type=int, default=0, help="Monte Carlo seed")
    add_format_argument(p)
    p.set_defaults(func=_cmd_orderstat)


def _add_optimum_halbawi(osub) -> None:
    """``gctheory optimum halbawi``: the optimal f of Halbawi et al. 2017."""
    h = osub.add_parser(
        "halbawi",
        description=(
            "The integer f minimising the expected iteration time of eq. (17) of Halbawi et "
            "al. 2017 under Pareto(t0, xi) worker times, with the large-n optimum alpha* of "
            "eq. (22) and, with --target-f, the range of the decoding cost c_m that makes "
            "that f optimal."
        ),
        help="optimal f under eq. (17) of Halbawi et al. 2017",
    )
    h.add_argument("--n", type=int, default=80, help="number of workers (default 80)")
    h.add_argument("--scale", type=float, default=0.001, help="Pareto scale t0 (default 0.001)")
    h.add_argument("--shape", type=float, default=1.1, help="Pareto shape xi (default 1.1)")
    add_renamed(h, "--t0", "--scale", type=float)
    add_renamed(h, "--xi", "--shape", type=float)
    h.add_argument("--n-cg", type=float, default=0.035, help="N c_g (default 0.035)")
    h.add_argument("--c-m", type=float, default=0.0, help="time per decoding FLOP (default 0)")
    h.add_argument("--target-f", type=int, help="report the c_m range making this f optimal")
    add_format_argument(h)
    h.set_defaults(func=_cmd_halbawi)


def _add_optimum_scheme(osub) -> None:
    """``gctheory optimum scheme``: the optimal straggler tolerance per scheme."""
    s = osub.add_parser(
        "scheme",
        description=(
            "For each scheme, the straggler tolerance s that minimises the expected iteration"
            " time, from exact expected order statistics of the worker-time law (--delay), "
            "the scheme's computation load and the upload time tau: cyclic-MDS and FRC "
            "(Tandon et al. 2017), Ye-Abbe, CommFR-GC (Kadhe et al. 2019), beside uncoded and"
            " ignore-s."
        ),
        help="optimal straggler tolerance s per coding scheme",
    )
    _dist_args(s)
    s.add_argument("--n", type=int, required=True, help="number of workers")
    s.add_argument("--m", type=int, default=1, help="communication saving (Ye-Abbe)")
    s.add_argument("--tau", type=float, default=0.0, help="time to send one full gradient")
    s.add_argument(
        "--scheme",
        type=scheme_type(SCHEMES),
        nargs="*",
        metavar="SCHEME",
        help=f"schemes to optimise (default all): {', '.join(SCHEMES)}",
    )
    add_format_argument(s)
    s.set_defaults(func=_cmd_scheme)


def _add_optimum_zhang(osub) -> None:
    """``gctheory optimum zhang``: Zhang & Simeone's per-iteration metrics."""
    z = osub.add_parser(
        "zhang",
        description=(
            "Per-iteration metrics (time, communication, computation) of GD, GC, LAG, G-GD, "
            "G-LAG and LAGC under normalised exponential or Pareto worker times, as compared "
            "by Zhang & Simeone 2020."
        ),
        help="GD/GC/LAG/G-GD/G-LAG/LAGC per-iteration metrics",
    )
    z.add_argument("--n", type=int, default=24, help="number of workers (default 24)")
    z.add_argument("--r", type=int, default=2, help="storage redundancy")
    z.add_argument(
        "--dist",
        choices=("exponential", "pareto"),
        default="exponential",
        help="worker-time law (default exponential)",
    )
    z.add_argument("--shape", type=float, help="Pareto shape (--dist pareto only; default 2)")
    add_renamed(z, "--model", "--dist", choices=("exponential", "pareto"))
    z.add_argument("--rho", type=float, default=0.5, help="fraction selected by the lazy rule")
    z.add_argument("--groups", type=int, default=6, help="LAGC number of groups")
    add_format_argument(z)
    z.set_defaults(func=_cmd_zhang)


def _add_optimum_xu(osub) -> None:
    """``gctheory optimum xu``: feasible K and optimal p of Xu et al. 2021."""
    x = osub.add_parser(
        "xu",
        description=(
            "Xu et al. 2021, Section IV-C: the numbers K of workers waited for that satisfy "
            "constraint (20) (eq. (23)), and the optimal p of eq. (25), for "
            "shifted-exponential worker times."
        ),
        help="feasible K (eq. (23)) and optimal p (eq. (25)) of Xu et al.",
    )
    x.add_argument("--n", type=int, default=10, help="number of workers N (default 10)")
    add_renamed(x, "--N", "--n", type=int)
    x.add_argument(
        "--s", type=float, default=2.0, help="slack s of constraint (20): mu_N / s <= mu_K + tau"
    )
    x.add_argument(
        "--lam",
        type=float,
        default=0.5,
        help="lambda of constraint (19): mu_K <= (1 + lambda) E[X] (default 0.5)",
    )
    x.add_argument("--mean", type=float, default=1.0, help="exponential mean mu of X (default 1)")
    x.add_argument("--shift", type=float, default=0.0, help="shift Delta of X (default 0)")
    add_renamed(x, "--mu", "--mean", type=float)
    add_renamed(x, "--delta", "--shift", type=float)
    x.add_argument("--tau", type=float, default=0.0, help="communication latency (default 0)")
    x.add_argument("--c", type=float, help="right-hand side of eq. (25)")
    add_format_argument(x)
    x.set_defaults(func=_cmd_xu)
