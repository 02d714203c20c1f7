"""``gctheory threshold`` and ``gctheory waterfall``: LDPC codes on the erasure channel."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gctheory._output import Interval, add_format_argument, format_table
from gctheory._safe_json import bounded_loads

__all__ = ["register"]


def _parse_distribution(text: str, name: str) -> dict[int, float]:
    """``"2:0.3,3:0.7"`` -> ``{2: 0.3, 3: 0.7}``."""
    out: dict[int, float] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if ":" not in part:
            raise ValueError(f"--{name}: expected 'degree:fraction,...', got {text!r}")
        d, f = part.split(":", 1)
        try:
            out[int(d)] = float(f)
        except ValueError:
            raise ValueError(f"--{name}: expected 'degree:fraction,...', got {text!r}") from None
    return out


def _load_file(path: str) -> tuple[dict[int, float], dict[int, float]]:
    """JSON file ``{"lam": {"2": 0.3, "3": 0.7}, "rho": {"6": 1}}`` (edge perspective)."""
    try:
        data = bounded_loads(Path(path).read_bytes(), f"--file {path!r}")
    except OSError as exc:
        raise ValueError(f"--file: cannot read an ensemble from {path!r}: {exc}") from None
    if not isinstance(data, dict) or "lam" not in data or "rho" not in data:
        raise ValueError(f"--file: {path!r} must hold a JSON object with keys 'lam' and 'rho'")

    def conv(d, key):
        if not isinstance(d, dict):
            raise ValueError(f"--file: {key!r} must map degree -> fraction")
        try:
            return {int(k): float(v) for k, v in d.items()}
        except ValueError:
            raise ValueError(f"--file: {key!r} must map integer degrees to numbers") from None

    return conv(data["lam"], "lam"), conv(data["rho"], "rho")


def _positive(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise ValueError(f"--{name} must be a positive integer, got {value}")


def _ensembles(args: argparse.Namespace) -> list[tuple[str, dict, dict]]:
    ensembles = []
    if args.file:
        lam, rho = _load_file(args.file)
        ensembles.append((f"file {args.file}", lam, rho))
    if args.lam or args.rho:
        if not (args.lam and args.rho):
            raise ValueError("--lam and --rho must be given together")
        lam, rho = _parse_distribution(args.lam, "lam"), _parse_distribution(args.rho, "rho")
        ensembles.append(("irregular", lam, rho))
    if args.dv is not None or args.dc is not None or not ensembles:
        dv = 3 if args.dv is None else args.dv
        dc = 6 if args.dc is None else args.dc
        if dv < 1:
            raise ValueError(f"--dv must be an integer >= 1, got {dv}")
        if dc < 2:
            raise ValueError(f"--dc must be an integer >= 2, got {dc}")
        ensembles.insert(0, (f"({dv},{dc}) regular", {dv: 1.0}, {dc: 1.0}))
    return ensembles


def _threshold(args: argparse.Namespace) -> int:
    from gctheory.ldpc import bec_threshold, design_rate, map_threshold

    _positive("n", args.n)
    ensembles = _ensembles(args)
    # JSON gets numbers (full float precision); text/md/csv get fixed-point strings so the
    # 12 digits of eps* are not cut to the table's default 6 significant digits
    as_number = args.format == "json"

    def num(x: float, digits: int) -> float | str:
        return float(x) if as_number else f"{x:.{digits}f}"

    rows = []
    for label, lam, rho in ensembles:
        th = bec_threshold(lam, rho)
        row = {
            "ensemble": label,
            "design rate": float(design_rate(lam, rho)),
            "eps*": num(th.eps, 12),
            "critical x": num(th.x, 10),
            "limited by": "stability (x->0)" if th.stability else "interior point",
        }
        if args.map:
            mt = map_threshold(lam, rho)
            row["eps_MAP (Maxwell)"] = num(mt.eps, 12)
            row["x_MAP"] = num(mt.x, 10)
            row["capacity 1-R"] = num(1 - mt.design_rate, 6)
        if args.n:
            row[f"eps* x n (n={args.n})"] = num(th.eps * args.n, 2)
            if args.map:
                row[f"eps_MAP x n (n={args.n})"] = num(mt.eps * args.n, 2)
        rows.append(row)
    title = "BEC peeling (density-evolution) thresholds"
    if args.map:
        title += (
            "; MAP thresholds by the Maxwell construction (Measson, Montanari, Urbanke 2008: "
            "exact for regular ensembles, an upper bound otherwise)"
        )
    print(format_table(rows, args.format, title=title))
    return 0


def _waterfall(args: argparse.Namespace) -> int:
    import numpy as np

    from gctheory.ldpc import regular_threshold, waterfall

    _check_waterfall_args(args)
    eps = (
        np.linspace(args.eps_min, args.eps_max, args.points)
        if args.eps is None
        else np.asarray(args.eps, dtype=float)
    )
    pts = waterfall(
        args.n,
        eps,
        args.dv,
        args.dc,
        args.trials,
        codes=args.codes,
        multi_edges=args.ensemble,
        rng=args.seed,
        level=args.level,
    )
    th = regular_threshold(args.dv, args.dc)
    law, exact = _waterfall_predictors(args) if args.predict else (None, {})
    rows = [_waterfall_row(args, p, law, exact) for p in pts]
    optional = ("DE residual (n=inf)", "exact (config. model)", "residual CLT CI")
    print(format_table(rows, args.format, title=_waterfall_title(args, th.eps), optional=optional))
    return 0


def _check_waterfall_args(args: argparse.Namespace) -> None:
    """Refuse ``waterfall``'s bad options by name, before any work."""
    _positive("points", args.points)
    _positive("codes", args.codes)
    if args.trials < 2:
        raise ValueError(f"--trials must be at least 2, got {args.trials}")
    if not 0 < args.level < 1:
        raise ValueError(f"--level must lie in (0, 1), got {args.level}")
    for n in args.n:
        _positive("n", n)


def _waterfall_predictors(args: argparse.Namespace) -> tuple[Any, dict[int, Any]]:
    """``--predict``'s scaling law (None where stability-limited) and the exact erasure
    profiles of the small lengths (for ``--ensemble keep`` only)."""
    from gctheory.ldpc import erasure_profile, finite_length_cost, regular_scaling_parameters

    law, exact = None, {}
    try:
        law = regular_scaling_parameters(args.dv, args.dc)
    except ValueError:
        law = None  # stability-limited: no scaling law; the column says so
    if args.ensemble == "keep":
        for n in set(args.n):
            if finite_length_cost(n, args.dv, args.dc) < 30:
                exact[n] = erasure_profile(n, args.dv, args.dc)
    return law, exact


def _waterfall_row(
    args: argparse.Namespace, p: Any, law: Any, exact: dict[int, Any]
) -> dict[str, Any]:
    """One waterfall point's row: the Monte Carlo rates, DE's residual, the predictions."""
    from gctheory.ldpc import de_fixed_point, error_floor

    row = {
        "n": p.n,
        "eps": round(p.eps, 6),
        "P(fail)": p.failure.value,
        "P(fail) CI": Interval(p.failure.low, p.failure.high),
        "residual": p.residual.value,
        "residual CLT CI": Interval(p.residual.low, p.residual.high),
        "DE residual (n=inf)": de_fixed_point({args.dv: 1}, {args.dc: 1}, p.eps)[1],
    }
    if args.predict:
        floor_me = "keep" if args.ensemble == "keep" else "resample"
        wf = law.block_erasure(p.n, p.eps) if law is not None else None
        fl = error_floor(p.n, args.dv, args.dc, p.eps, multi_edges=floor_me)
        row["scaling law"] = wf if wf is not None else "n/a (stability-limited)"
        row["floor (small stopping sets)"] = fl
        row["prediction"] = 1 - (1 - wf) * (1 - min(fl, 1.0)) if wf is not None else None
        row["exact (config. model)"] = exact[p.n].block_erasure(p.eps) if p.n in exact else None
    return row


def _waterfall_title(args: argparse.Namespace, threshold: float) -> str:
    """The waterfall table's title: the ensemble, the run and, with ``--predict``, the
    predictions' sources."""
    title = (
        f"Peeling on BEC(eps), ({args.dv},{args.dc}) ensemble (multi_edges={args.ensemble!r}), "
        f"{args.codes} code(s) per n, {args.trials} frames per point, {args.level:g} intervals; "
        f"DE threshold eps* = {threshold:.6f}. The residual CI is the CLT interval, unclipped: "
        "its lower limit may be < 0 when residuals are rare"
    )
    if args.predict:
        title += (
            ". Predictions: scaling law Q(sqrt(n)(eps* - beta n^-2/3 - eps)/alpha) (Amraoui et al. "
            "2009, alpha by covariance evolution), union-bound floor of small stopping sets, "
            "prediction = 1 - (1 - law)(1 - floor); exact = Di et al. recursion (configuration "
            "model, shown for --ensemble keep and small n)"
        )
    return title


def _finite_length(args: argparse.Namespace) -> int:
    import numpy as np

    from gctheory.ldpc import erasure_profile, error_floor, regular_scaling_parameters

    _positive("n", args.n)
    for t in args.erasures or []:
        if not 0 <= t <= args.n:
            raise ValueError(f"--erasures must lie in [0, n] = [0, {args.n}], got {t}")
    for e in args.eps or []:
        if not 0.0 <= e <= 1.0:
            raise ValueError(f"--eps must lie in [0, 1], got {e}")
    if args.eps and args.erasures:
        raise ValueError("give --eps or --erasures, not both")
    prof = erasure_profile(args.n, args.dv, args.dc, exact=args.exact, max_seconds=args.max_seconds)
    try:
        law = regular_scaling_parameters(
            args.dv, args.dc, erasures="fixed" if args.erasures else "random"
        )
    except ValueError:
        law = None
    rows = []
    if args.erasures is not None:
        for t in args.erasures:
            rows.append(
                {
                    "erasures": t,
                    "P(fail | t)": float(prof.block_given_erasures(t)),
                    "bit erasure | t": float(prof.bit_given_erasures(t)),
                    "scaling law (fixed count)": law.block_erasure(args.n, t / args.n)
                    if law is not None
                    else None,
                }
            )
        what = "for a fixed number t of erasures placed uniformly"
    else:
        eps_list = (
            np.round(np.arange(0.30, 0.4601, 0.02), 4) if args.eps is None else np.asarray(args.eps)
        )
        for e in eps_list:
            e = float(e)
            rows.append(
                {
                    "eps": e,
                    "block erasure": float(prof.block_erasure(e)),
                    "bit erasure": float(prof.bit_erasure(e)),
                    "scaling law": law.block_erasure(args.n, e) if law is not None else None,
                    "floor (union bound)": error_floor(
                        args.n, args.dv, args.dc, e, multi_edges="keep"
                    ),
                }
            )
        what = "on BEC(eps)"
    arith = "exact rationals" if args.exact else "float64 (relative error ~1e-15)"
    title = (
        f"Exact peeling erasure probabilities {what}, ({args.dv},{args.dc}) ensemble, "
        f"n = {args.n}: Di et al. 2002 recursion over the residual graph, configuration model "
        f"with multi-edges kept (peeling on the multigraph), {arith}, {prof.seconds:.2f} s"
    )
    print(format_table(rows, args.format, title=title))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "threshold",
        help="BEC peeling (BP) and MAP thresholds of an LDPC ensemble",
        description=(
            "The largest erasure (straggler) probability eps with "
            "eps*lambda(1-rho(1-x)) < x on (0,1] (Kadhe et al. 2019, Sec. IV-A). Regular "
            "ensembles with --dv/--dc; irregular with --lam/--rho 'degree:fraction,...' (edge "
            'perspective) or --file ensemble.json ({"lam": {...}, "rho": {...}}). --map adds '
            "the MAP threshold by the Maxwell construction."
        ),
    )
    p.add_argument("--dv", type=int, help="variable degree (regular ensemble; default 3)")
    p.add_argument("--dc", type=int, help="check degree (regular ensemble; default 6)")
    p.add_argument("--lam", help="edge-perspective variable distribution, e.g. '2:0.3,3:0.7'")
    p.add_argument("--rho", help="edge-perspective check distribution, e.g. '6:1'")
    p.add_argument("--file", help="JSON file with 'lam' and 'rho' mappings")
    p.add_argument("--n", type=int, help="also print eps* x n (random stragglers per group)")
    p.add_argument("--map", action="store_true", help="add the MAP (Maxwell) threshold")
    add_format_argument(p)
    p.set_defaults(func=_threshold)

    w = subparsers.add_parser(
        "waterfall",
        help="finite-length peeling failure rate vs erasure probability (Monte Carlo)",
        description=(
            "Block failure rate and residual erasure fraction of peeling for codes of the "
            "regular (dv,dc) ensemble, per length n, with confidence intervals; --predict adds "
            "the scaling law (Amraoui et al. 2009), the error floor and (for --ensemble keep, "
            "small n) the exact value (Di et al. 2002)."
        ),
    )
    w.add_argument("--dv", type=int, default=3, help="variable degree (default 3)")
    w.add_argument("--dc", type=int, default=6, help="check degree (default 6)")
    w.add_argument(
        "--n", type=int, nargs="+", default=[1000, 4000], help="code lengths (default 1000 4000)"
    )
    w.add_argument("--eps", type=float, nargs="+", help="erasure probabilities (else a grid)")
    w.add_argument("--eps-min", type=float, default=0.36, help="grid start (default 0.36)")
    w.add_argument("--eps-max", type=float, default=0.46, help="grid end (default 0.46)")
    w.add_argument("--points", type=int, default=6, help="grid points (default 6)")
    w.add_argument("--trials", type=int, default=500, help="frames per point (default 500)")
    w.add_argument("--codes", type=int, default=1, help="codes drawn per n (default 1)")
    w.add_argument(
        "--ensemble",
        choices=("resample", "cancel", "keep"),
        default="resample",
        help="multi-edges: resample (simple graphs, default), cancel (mod 2), keep (multigraph)",
    )
    w.add_argument("--predict", action="store_true", help="add scaling law, floor, exact value")
    w.add_argument("--level", type=float, default=0.99, help="interval level (default 0.99)")
    w.add_argument("--seed", type=int, default=2019, help="seed (default 2019)")
    add_format_argument(w)
    w.set_defaults(func=_waterfall)

    f = subparsers.add_parser(
        "finite-length",
        help="exact block and bit erasure probabilities of peeling at length n (Di et al. 2002)",
        description=(
            "Exact ensemble-average erasure probabilities of peeling for the regular (dv,dc) "
            "ensemble of length n (configuration model, multi-edges kept), on BEC(eps) or for a "
            "fixed number of erasures (the recursion of Di et al. 2002), next to the scaling "
            "law (Amraoui et al. 2009) and the stopping-set floor."
        ),
    )
    f.add_argument("--dv", type=int, default=3, help="variable degree (default 3)")
    f.add_argument("--dc", type=int, default=6, help="check degree (default 6)")
    f.add_argument("--n", type=int, default=200, help="code length (default 200)")
    f.add_argument("--eps", type=float, nargs="+", help="erasure probabilities (default a grid)")
    f.add_argument("--erasures", type=int, nargs="+", help="fixed numbers of erasures instead")
    f.add_argument("--exact", action="store_true", help="exact rational arithmetic (slower)")
    f.add_argument(
        "--max-seconds", type=float, default=60.0, help="refuse above this predicted time"
    )
    add_format_argument(f)
    f.set_defaults(func=_finite_length)
