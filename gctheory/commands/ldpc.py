"""``gctheory threshold`` and ``gctheory waterfall``: LDPC codes on the erasure channel."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gctheory._output import add_format_argument, format_table

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
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
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


def _threshold(args: argparse.Namespace) -> int:
    from gctheory.ldpc import bec_threshold, design_rate

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
        if dv < 1 or dc < 2:
            raise ValueError(f"need dv >= 1 and dc >= 2, got dv={dv}, dc={dc}")
        ensembles.insert(0, (f"({dv},{dc}) regular", {dv: 1.0}, {dc: 1.0}))
    # JSON gets numbers (full float precision); text/md/csv get fixed-point strings so the
    # 12 digits of eps* are not cut to the table's default 6 significant digits
    as_number = args.format == "json"
    rows = []
    for label, lam, rho in ensembles:
        th = bec_threshold(lam, rho)
        row = {
            "ensemble": label,
            "design rate": float(design_rate(lam, rho)),
            "eps*": float(th.eps) if as_number else f"{th.eps:.12f}",
            "critical x": float(th.x) if as_number else f"{th.x:.10f}",
            "limited by": "stability (x->0)" if th.stability else "interior point",
        }
        if args.n:
            row[f"eps* x n (n={args.n})"] = (
                float(th.eps * args.n) if as_number else f"{th.eps * args.n:.2f}"
            )
        rows.append(row)
    title = "BEC peeling (density-evolution) thresholds"
    print(format_table(rows, args.format, title=title))
    return 0


def _waterfall(args: argparse.Namespace) -> int:
    import numpy as np

    from gctheory.ldpc import de_fixed_point, regular_threshold, waterfall

    eps = (
        np.linspace(args.eps_min, args.eps_max, args.points)
        if args.eps is None
        else np.asarray(args.eps, dtype=float)
    )
    pts = waterfall(args.n, eps, args.dv, args.dc, args.trials, rng=args.seed, level=args.level)
    th = regular_threshold(args.dv, args.dc)
    rows = []
    for p in pts:
        rows.append(
            {
                "n": p.n,
                "eps": round(p.eps, 6),
                "P(fail)": p.failure.value,
                "fail low": p.failure.low,
                "fail high": p.failure.high,
                "residual": p.residual.value,
                "residual CLT CI": f"[{p.residual.low:.4g}, {p.residual.high:.4g}]",
                "DE residual (n=inf)": de_fixed_point({args.dv: 1}, {args.dc: 1}, p.eps)[1],
            }
        )
    title = (
        f"Peeling on BEC(eps), one ({args.dv},{args.dc}) code per n, {args.trials} frames "
        f"per point, {args.level:g} intervals; DE threshold eps* = {th.eps:.6f}. The residual "
        "CI is the CLT interval, unclipped: its lower limit may be < 0 when residuals are rare"
    )
    print(format_table(rows, args.format, title=title))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "threshold",
        help="BEC peeling threshold of an LDPC ensemble (density evolution)",
        description=(
            "The largest erasure (straggler) probability eps with "
            "eps*lambda(1-rho(1-x)) < x on (0,1] (Kadhe et al. 2019, Sec. IV-A). Regular "
            "ensembles with --dv/--dc; irregular with --lam/--rho 'degree:fraction,...' (edge "
            'perspective) or --file ensemble.json ({"lam": {...}, "rho": {...}}).'
        ),
    )
    p.add_argument("--dv", type=int, help="variable degree (regular ensemble; default 3)")
    p.add_argument("--dc", type=int, help="check degree (regular ensemble; default 6)")
    p.add_argument("--lam", help="edge-perspective variable distribution, e.g. '2:0.3,3:0.7'")
    p.add_argument("--rho", help="edge-perspective check distribution, e.g. '6:1'")
    p.add_argument("--file", help="JSON file with 'lam' and 'rho' mappings")
    p.add_argument("--n", type=int, help="also print eps* x n (random stragglers per group)")
    add_format_argument(p)
    p.set_defaults(func=_threshold)

    w = subparsers.add_parser(
        "waterfall",
        help="finite-length peeling failure rate vs erasure probability (Monte Carlo)",
        description=(
            "Block failure rate and residual erasure fraction of peeling for one code of the "
            "regular (dv,dc) ensemble per length n, with confidence intervals."
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
    w.add_argument("--level", type=float, default=0.99, help="interval level (default 0.99)")
    w.add_argument("--seed", type=int, default=2019, help="seed (default 2019)")
    add_format_argument(w)
    w.set_defaults(func=_waterfall)
