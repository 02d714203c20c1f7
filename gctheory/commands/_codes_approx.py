"""CLI: ``gctheory codes approx`` -- an approximate construction's decoding error vs stragglers.

For one family (expander code on a random or Margulis graph with the optimal or
fixed decoder, graph assignment, BIBD, stochastic gradient coding, IS-GC on
FR / cyclic / hybrid placements) the code is built for the given parameters
and, for each number ``e`` of stragglers, its decoder's error
``||A_S^T u - 1||^2`` (eq. (5) form of Wang et al. 2019; partitions not
recovered for IS-GC) is computed:

- over every one of the ``C(n, e)`` straggler sets when there are at most
  ``--max-sets`` (exact mean and worst case, method ``exhaustive``);
- otherwise by a seeded Monte Carlo through
  :func:`gctheory.codes.approximate.estimate_mean_error` (mean with its
  confidence interval, method ``monte carlo``); the worst case is then given
  only where the family has it in closed form (BIBD: the error is the same
  for every set; IS-GC FR: ``c floor(e / c)`` partitions lost when the
  adversary empties whole groups);

next to the family's reference value (column ``reference``): its bound where
one exists (expander: the spectral bound on the fixed decoder, valid for every
set, gctheory's derivation (:func:`gctheory.codes.expander.expander_error_bound`;
Raviv et al.'s printed bound is not in the stored sources); graph
assignment: Glasgow-Wootters Corollary 40, every set; BIBD: the closed form
of :func:`gctheory.codes.designs.bibd_error`; SGC: the exact mean over
uniformly random sets, hypergeometric, derived here; IS-GC FR: the exact
expected loss of :func:`gctheory.codes.isgc.frc_expected_recovered`).
Nothing heavy is imported until the command runs.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING, Any

from gctheory._output import add_format_argument, format_table
from gctheory.commands._common import _need

if TYPE_CHECKING:
    from gctheory.codes.base import GradientCode

APPROX_FAMILIES = ("expander", "graph-assignment", "bibd", "sgc", "isgc")
GRAPHS = ("random", "margulis")
EXPANDER_DECODERS = ("optimal", "fixed")
SGC_PLACEMENTS = ("cyclic", "bibd")
ISGC_PLACEMENTS = ("frc", "cyclic", "hybrid")

#: options each family reads (besides --stragglers, --trials, --max-sets, --seed, --format)
_FAMILY_OPTIONS: dict[str, tuple[str, ...]] = {
    "expander": ("n", "degree", "graph", "decoder"),
    "graph-assignment": ("n", "degree", "graph"),
    "bibd": ("v", "k", "lam"),
    "sgc": ("n", "degree", "placement", "v", "k", "lam", "p"),
    "isgc": ("n", "s", "placement", "c1", "groups"),
}
_OPTIONAL = (
    "n",
    "degree",
    "graph",
    "decoder",
    "v",
    "k",
    "lam",
    "p",
    "s",
    "placement",
    "c1",
    "groups",
)


def _choice(value: str | None, name: str, choices: tuple[str, ...]) -> None:
    if value is not None and value not in choices:
        raise ValueError(f"--{name} must be one of {', '.join(choices)}, got {value!r}")


def _check_args(args: argparse.Namespace) -> None:
    """Refuse options the family does not read, bad choices and counts, before any work."""
    if args.family not in APPROX_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(APPROX_FAMILIES)}, got {args.family!r}")
    allowed = _FAMILY_OPTIONS[args.family]
    unused = [f"--{o}" for o in _OPTIONAL if o not in allowed and getattr(args, o) is not None]
    if unused:
        opts = ", ".join(f"--{o}" for o in allowed)
        raise ValueError(
            f"{', '.join(unused)} {'is' if len(unused) == 1 else 'are'} not used by family "
            f"{args.family!r} (its options: {opts}); remove it"
        )
    _choice(args.graph, "graph", GRAPHS)
    _choice(args.decoder, "decoder", EXPANDER_DECODERS)
    if args.placement is not None:
        places = SGC_PLACEMENTS if args.family == "sgc" else ISGC_PLACEMENTS
        _choice(args.placement, "placement", places)
    for name, lo in (("trials", 2), ("max_sets", 1), ("degree", 1), ("n", 1)):
        v = getattr(args, name)
        if v is not None and v < lo:
            raise ValueError(f"--{name.replace('_', '-')} must be an integer >= {lo}, got {v}")
    if args.p is not None and not 0 <= args.p < 1:
        raise ValueError(f"--p must lie in [0, 1), got {args.p}")
    if args.stragglers is not None and any(e < 0 for e in args.stragglers):
        raise ValueError(f"--stragglers must be integers >= 0, got {args.stragglers}")


def _graph(args: argparse.Namespace) -> Any:
    from gctheory.codes.expander import margulis_graph, random_regular_graph

    graph = args.graph or "random"
    if graph == "margulis":
        _need(args, "n")
        if args.degree is not None:
            raise ValueError("--degree is not used with --graph margulis (it is 8-regular)")
        side = math.isqrt(args.n)
        if side * side != args.n or side < 2:
            raise ValueError(
                f"--graph margulis lives on Z_m x Z_m: --n must be a square m^2 with m >= 2, "
                f"got {args.n}"
            )
        return margulis_graph(side)
    _need(args, "n", "degree")
    return random_regular_graph(args.n, args.degree, rng=args.seed)


def _build(args: argparse.Namespace) -> tuple[Any, str]:
    """The code and a description of the family's bound column."""
    f = args.family
    code: GradientCode
    if f == "expander":
        from gctheory.codes.expander import ExpanderCode

        code = ExpanderCode(_graph(args), decoder=args.decoder or "optimal")
        return code, (
            "upper bound (lam/d)^2 n e/(n-e) on the fixed decoder's error for every set "
            "(gctheory's derivation, expander_error_bound; not Raviv et al.'s printed "
            "bound), so on the optimal decoder's too"
        )
    if f == "graph-assignment":
        from gctheory.codes.expander import GraphAssignmentCode

        code = GraphAssignmentCode(_graph(args))
        return code, "upper bound of Glasgow-Wootters Cor. 40 for every set of e machines"
    if f == "bibd":
        from gctheory.codes.designs import BIBDGradientCode, bibd

        _need(args, "v", "k")
        D = bibd(args.v, args.k, 1 if args.lam is None else args.lam)
        return BIBDGradientCode(D), (
            f"exact error b - r^2 w/(r - lam + lam w) of every set ({D.name}; bibd_error)"
        )
    if f == "sgc":
        from gctheory.codes.designs import StochasticGradientCode, bibd

        p = 0.1 if args.p is None else args.p
        if (args.placement or "cyclic") == "bibd":
            _need(args, "v", "k")
            if args.n is not None or args.degree is not None:
                raise ValueError("--n and --degree are not used with --placement bibd (give v, k)")
            D = bibd(args.v, args.k, 1 if args.lam is None else args.lam)
            code = StochasticGradientCode.pairwise_balanced(D, p)
        else:
            _need(args, "n", "degree")
            if any(getattr(args, o) is not None for o in ("v", "k", "lam")):
                raise ValueError("--v, --k, --lam are used with --placement bibd only")
            code = StochasticGradientCode.cyclic(args.n, args.degree, p)
        return code, (
            f"exact mean over uniform sets of e stragglers (hypergeometric, derived here), "
            f"estimator scaled for p={p}"
        )
    from gctheory.codes.isgc import ISGCCode

    _need(args, "n", "s")
    placement = args.placement or "frc"
    kw = {"c1": args.c1, "groups": args.groups} if placement == "hybrid" else {}
    if placement != "hybrid" and (args.c1 is not None or args.groups is not None):
        raise ValueError("--c1 and --groups are options of --placement hybrid only")
    code = ISGCCode(args.n, args.s, placement, **kw)
    what = (
        "exact expected partitions lost over uniform sets (frc_expected_recovered)"
        if placement == "frc"
        else "none in closed form (exhaustive rows are exact)"
    )
    return code, what


def _bound(code: Any, family: str, e: int) -> float | None:
    if family == "expander":
        return code.error_bound(e)
    if family == "graph-assignment":
        return code.adversarial_bound(e)
    if family == "bibd":
        return float(code.error(e))
    if family == "sgc":
        return _sgc_mean(code, e)
    if code.placement == "frc":
        from gctheory.codes.isgc import frc_expected_recovered

        return float(code.k - frc_expected_recovered(code.n, code.design_s, e))
    return None


def _sgc_mean(code: Any, e: int) -> float | None:
    """Exact ``E ||A_S^T u - 1||^2`` over uniform sets of e stragglers, for column sums d.

    Partition j's coefficient is ``X_j / (d (1 - p))`` with ``X_j`` hypergeometric (d of
    its holders among n workers, w = n - e alive): ``E X = d w / n``, ``Var X = d (w/n)
    (1 - w/n) (n - d) / (n - 1)``.
    """
    n, d, w = code.n, code.d, code.n - e
    c = d * (1 - code.p)
    mean = d * w / n
    var = d * (w / n) * (1 - w / n) * (n - d) / (n - 1) if n > 1 else 0.0
    return code.k * (var / c**2 + (mean / c - 1) ** 2)


def _worst_closed_form(code: Any, family: str, e: int) -> float | None:
    if family == "bibd":
        return float(code.error(e))  # the same for every set
    if family == "isgc" and code.placement == "frc":
        return float(code.c * (e // code.c))  # whole groups emptied
    return None


def _row(code: Any, family: str, e: int, args: argparse.Namespace) -> dict:
    import itertools

    import numpy as np

    from gctheory.codes.approximate import estimate_mean_error

    n = code.n
    total = math.comb(n, e)
    if total <= args.max_sets:
        errs = np.array(
            [
                code.decoder_error(np.setdiff1d(np.arange(n), S))
                for S in itertools.combinations(range(n), e)
            ]
        )
        worst: float | None
        mean, lo, hi, worst = float(errs.mean()), None, None, float(errs.max())
        method, sets = "exhaustive", total
    else:
        est = estimate_mean_error(code, e, args.trials, rng=args.seed)
        mean, lo, hi = est.value, est.low, est.high
        worst, method, sets = _worst_closed_form(code, family, e), "monte carlo", est.trials
    return {
        "stragglers": e,
        "method": method,
        "sets": sets,
        "mean_error": mean,
        "ci_low": lo,
        "ci_high": hi,
        "worst_error": worst,
        "reference": _bound(code, family, e),
    }


def _default_stragglers(n: int) -> list[int]:
    return sorted({e for e in (1, n // 10, n // 4, n // 2) if 0 < e < n} or {0})


def _cmd_approx(args: argparse.Namespace) -> int:
    _check_args(args)
    code, bound_note = _build(args)
    stragglers = args.stragglers if args.stragglers is not None else _default_stragglers(code.n)
    bad = [e for e in stragglers if e >= code.n]
    if bad:
        raise ValueError(
            f"--stragglers must be < n = {code.n} workers of this code (some worker "
            f"survives), got {bad}"
        )
    rows = [_row(code, args.family, e, args) for e in stragglers]
    level = "99% CI"
    title = (
        f"{code.name}: n={code.n} workers, k={code.k} partitions, load {code.load}; "
        f"error ||A_S^T u - 1||^2 of the decoder (partitions lost for IS-GC); exhaustive up "
        f"to {args.max_sets} sets, else Monte Carlo ({args.trials} trials, seed {args.seed}, "
        f"{level}); reference: {bound_note}"
    )
    if args.format == "json":
        out = json.loads(format_table(rows, "json", title=title))
        out.update(code=code.name, n=code.n, k=code.k, load=code.load, reference=bound_note)
        print(json.dumps(out, indent=1))
    else:
        print(format_table(rows, args.format, title=title))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``approx`` to the ``gctheory codes`` subcommands."""
    a = sub.add_parser(
        "approx",
        help="decoding error of an approximate code versus stragglers, next to its bound",
        description=(__doc__ or "").split("\n\n", 1)[1].split("Nothing heavy")[0].strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument("family", help=f"one of {', '.join(APPROX_FAMILIES)}")
    a.add_argument("--n", type=int, help="workers (vertices for graph-assignment)")
    a.add_argument("--degree", type=int, help="graph degree / SGC replication (random, cyclic)")
    a.add_argument("--graph", help=f"expander / graph-assignment graph: {', '.join(GRAPHS)}")
    a.add_argument("--decoder", help=f"expander decoder: {', '.join(EXPANDER_DECODERS)}")
    a.add_argument("--v", type=int, help="design points (bibd; sgc --placement bibd)")
    a.add_argument("--k", type=int, help="block size (bibd; sgc --placement bibd)")
    a.add_argument("--lam", type=int, help="design lambda (default 1)")
    a.add_argument("--p", type=float, help="SGC straggling probability (default 0.1)")
    a.add_argument("--s", type=int, help="IS-GC design tolerance (c = s + 1 per worker)")
    a.add_argument(
        "--placement",
        help=f"sgc: {', '.join(SGC_PLACEMENTS)}; isgc: {', '.join(ISGC_PLACEMENTS)}",
    )
    a.add_argument("--c1", type=int, help="IS-GC hybrid: in-group partitions per worker")
    a.add_argument("--groups", type=int, help="IS-GC hybrid: number of groups")
    a.add_argument(
        "--stragglers",
        type=int,
        nargs="+",
        help="numbers of stragglers (default 1, n/10, n/4, n/2)",
    )
    a.add_argument("--trials", type=int, default=2000, help="Monte Carlo trials per row (>= 2)")
    a.add_argument(
        "--max-sets", type=int, default=2000, help="enumerate every set up to this many (>= 1)"
    )
    a.add_argument("--seed", type=int, default=0, help="seed of random graphs and Monte Carlo")
    add_format_argument(a)
    a.set_defaults(func=_cmd_approx)
