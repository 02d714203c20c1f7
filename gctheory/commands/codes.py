"""CLI: ``gctheory codes list`` (the families, installed plug-ins included),
``gctheory codes verify`` (build a gradient code and decode from every straggler set),
``gctheory codes stability`` (relative decoding error versus n, per family) and
``gctheory codes approx`` (approximate constructions: error versus stragglers next to their
bounds; in :mod:`gctheory.commands._codes_approx`)."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import TYPE_CHECKING

from gctheory._names import COMMFR_FAMILIES, STABILITY_FAMILIES
from gctheory._output import add_format_argument, format_table
from gctheory.commands._codes_approx import add_parser as add_approx_parser
from gctheory.commands._common import (
    _need,
    add_quiet_argument,
    progress_enabled,
    unused_options,
)

if TYPE_CHECKING:  # the codes (scipy) load when a command runs, not to build the parser
    from gctheory.codes.base import GradientCode

SEQUENTIAL = ("sr-sgc", "m-sgc")  # sequential codes: verified by gctheory.commands.sgc
CLI_FAMILIES = (
    "fractional-repetition",
    "cyclic-mds",
    "cyclic-mds-deterministic",
    "ye-abbe-vandermonde",
    "ye-abbe-gaussian",
    *(f"commfr-{f}" for f in COMMFR_FAMILIES),
    "commfr-ldpc",
    "reed-solomon",
)


#: the options each family reads (besides --n, --d, --max-sets, --seed, --format)
_FAMILY_OPTIONS = {
    "fractional-repetition": ("s", "k"),
    "cyclic-mds": ("s",),
    "cyclic-mds-deterministic": ("s",),
    "ye-abbe-vandermonde": ("s", "m"),
    "ye-abbe-gaussian": ("s", "m"),
    "commfr-ldpc": ("k", "N", "dv", "dc"),
    "reed-solomon": ("k", "w"),
}
_OPTIONAL = ("s", "m", "k", "N", "K", "w", "dv", "dc")


def _family_options(family: str) -> tuple[str, ...]:
    if family not in CLI_FAMILIES:  # a code plug-in: built from (n, s)
        return ("s",)
    return _FAMILY_OPTIONS.get(family, ("k", "N", "K"))


def _check_args(args: argparse.Namespace) -> None:
    """Refuse options the family does not read and out-of-range counts, before any work."""
    why = f"the sequential codes {', '.join(SEQUENTIAL)} read it, not {args.family!r}"
    unused_options(
        args,
        {d: why for d in ("B", "W", "lam", "jobs", "negative_control")},
        flags={"lam": "--lambda"},
    )
    allowed = _family_options(args.family)
    unused = [f"--{o}" for o in _OPTIONAL if o not in allowed and getattr(args, o) is not None]
    if unused:
        opts = ", ".join(f"--{o}" for o in ("n", *allowed))
        raise ValueError(
            f"{', '.join(unused)} {'is' if len(unused) == 1 else 'are'} not used by family "
            f"{args.family!r} (its options: {opts}); "
            + (
                "for reed-solomon s follows from n, k and w (s = floor(w n / k) - 1, Halbawi et "
                "al. eq. (2)), so --s would be ignored"
                if args.family == "reed-solomon" and "--s" in unused
                else "remove it"
            )
        )
    for name, lo in (("max_sets", 1), ("m", 1), ("d", 1), ("dv", 1), ("dc", 1)):
        v = getattr(args, name)
        if v is not None and v < lo:
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} must be an integer >= {lo}, got {v}")


def _build(args: argparse.Namespace) -> GradientCode:
    from gctheory.codes.commfr import commfr_code
    from gctheory.codes.tandon import CyclicMDSCode, FractionalRepetitionCode
    from gctheory.codes.ye_abbe import YeAbbeCode

    f = args.family
    if f == "fractional-repetition":
        _need(args, "s")
        return FractionalRepetitionCode(args.n, args.s, args.k)
    if f in ("cyclic-mds", "cyclic-mds-deterministic"):
        _need(args, "s")
        cons = "random" if f == "cyclic-mds" else "deterministic"
        return CyclicMDSCode(args.n, args.s, construction=cons, rng=args.seed)
    if f.startswith("ye-abbe-"):
        _need(args, "s")
        V = f.removeprefix("ye-abbe-")
        return YeAbbeCode(args.n, args.s, 1 if args.m is None else args.m, V=V, rng=args.seed)
    if f == "commfr-ldpc":
        _need(args, "k", "N")
        from gctheory.codes.commfr import CommFRLDPCCode
        from gctheory.ldpc import regular_ensemble

        dv = 3 if args.dv is None else args.dv
        dc = 6 if args.dc is None else args.dc
        H = regular_ensemble(args.N, dv, dc, rng=args.seed)
        return CommFRLDPCCode(args.n, args.k, H)
    if f.startswith("commfr-"):
        _need(args, "k", "N", "K")
        return commfr_code(
            args.n, args.k, args.N, args.K, family=f.removeprefix("commfr-"), rng=args.seed
        )
    if f == "reed-solomon":
        _need(args, "k", "w")
        from gctheory.codes.reed_solomon import ReedSolomonCode

        return ReedSolomonCode(args.n, args.k, args.w)
    from gctheory.codes.plugins import code_family, plugin_families

    if f not in plugin_families():
        valid = (*CLI_FAMILIES, *SEQUENTIAL, *plugin_families())
        raise ValueError(f"family must be one of {', '.join(valid)}, got {f!r}")
    _need(args, "s")
    return code_family(f).make(args.n, args.s)


def _family_name(text: str) -> str:
    """The code family of a name as typed: a family, a canonical scheme name (``frc``,
    ``commfr-gc``: the family built for it) or an old spelling (with a deprecation
    message); a plug-in's family; else a ``ValueError`` with the closest names."""
    from gctheory._names import SCHEME_FAMILIES, did_you_mean, resolve_scheme
    from gctheory.commands._common import cli_warning

    builtin = (*CLI_FAMILIES, *SEQUENTIAL)
    if text in builtin:
        return text
    try:
        canonical, note = resolve_scheme(text, (*SCHEME_FAMILIES, *builtin), what="family")
    except ValueError:
        from gctheory.codes.plugins import plugin_families

        plugins = tuple(plugin_families())
        if text in plugins:
            return text
        names = (*builtin, *SCHEME_FAMILIES, *plugins)
        raise ValueError(did_you_mean(text, names, "family", "gctheory codes list")) from None
    if note:
        cli_warning(note)
    return SCHEME_FAMILIES.get(canonical, canonical)


def _cmd_verify(args: argparse.Namespace) -> int:
    args.family = _family_name(args.family)
    if args.family in SEQUENTIAL:  # a thin alias of `gctheory sgc verify`
        from gctheory.commands.sgc import _cmd_verify as sgc_verify

        return sgc_verify(argparse.Namespace(**vars(args), scheme=args.family))
    if args.family not in CLI_FAMILIES:
        _build(args)  # an unknown family is refused before the options are checked
    _check_args(args)
    if args.family in ("cyclic-mds", "cyclic-mds-deterministic", "fractional-repetition"):
        if args.s is not None and not 0 <= args.s < args.n:  # before the codes are imported
            raise ValueError(
                f"--s must be < n (at least one worker must survive), got s={args.s}, n={args.n}"
            )
    from gctheory.codes.base import verify_straggler_sets

    code = _build(args)
    s = code.s
    assert s is not None, "every family _build makes is an exact code"
    rows = []
    sizes = [s] + ([s + 1] if s + 1 < code.n else [])
    # A solved system has condition number >= 1, so max_condition == 0 means no set was
    # decoded at all: every one was refused (too few survivors). Its max_* are then the
    # initial 0s of verify_straggler_sets, not measurements: print n/a, not a perfect 0.
    na = None if args.format in ("json", "csv") else "n/a"
    for e in sizes:
        chk = verify_straggler_sets(code, e, max_sets=args.max_sets, rng=args.seed)
        refused = chk.sets > 0 and chk.max_condition == 0
        status = "refused" if refused else ("ok" if chk.ok else "failures")
        rows.append(
            {
                "stragglers": e,
                "sets": chk.sets,
                "exhaustive": chk.exhaustive,
                "failures": len(chk.failures),
                "status": status,
                "max_rel_error": na if refused else chk.max_error,
                "max_condition": na if refused else chk.max_condition,
                "error/bound": na if refused else chk.max_error_over_bound,
            }
        )
    bound = Fraction(s + code.m, code.n)
    title = (
        f"{code.name}: n={code.n}, k={code.k}, load l={code.load}, m={code.m}, s={code.s}; "
        f"l/k={Fraction(code.load, code.k)} vs (s+m)/n={bound} "
        f"({'optimal' if code.is_optimal else 'not optimal'}); "
        f"decoding cost {code.decoding_cost(d=args.d).total} ops for d={args.d}"
    )
    if args.format == "json":
        header = {
            "title": title,
            "parameters": json.loads(format_table([], "json"))["parameters"],
            "code": code.name,
            "n": code.n,
            "k": code.k,
            "load": code.load,
            "m": code.m,
            "s": code.s,
            "load_fraction": str(Fraction(code.load, code.k)),
            "ye_abbe_bound": str(bound),
            "optimal": code.is_optimal,
            "decoding_cost_ops": code.decoding_cost(d=args.d).total,
            "d": args.d,
        }
        header["sets"] = json.loads(format_table(rows, "json-rows"))
        print(json.dumps(header, indent=1))
    else:
        print(format_table(rows, args.format, title=title))
    return 0 if rows[0]["failures"] == 0 else 1


def _cmd_list(args: argparse.Namespace) -> int:
    from gctheory.codes.plugins import plugin_families

    rows = [{"family": f, "source": "gctheory", "description": ""} for f in CLI_FAMILIES]
    rows += [{"family": f, "source": "gctheory (gctheory sgc)", "description": ""}
             for f in SEQUENTIAL]  # fmt: skip
    rows += [{"family": k, "source": f"plug-in {f.source}", "description": f.description}
             for k, f in plugin_families().items()]  # fmt: skip
    print(format_table(rows, args.format, title="gradient-code families of gctheory codes verify"))
    return 0


def _cmd_missing(args: argparse.Namespace) -> int:
    raise ValueError(
        "a subcommand is required: 'list' (the families, plug-ins included), 'verify' "
        "(decode from every straggler set), 'stability' "
        "(decoding error versus n) or 'approx' (approximate constructions: error versus "
        "stragglers); see gctheory codes --help"
    )


def _cmd_stability(args: argparse.Namespace) -> int:
    from gctheory._progress import Progress
    from gctheory.codes.stability import decoding_stability

    total = len(args.families) * len(args.n)
    with Progress(total, "codes stability", enabled=progress_enabled(args)) as bar:
        pts = decoding_stability(
            args.families,
            args.n,
            trials=args.trials,
            worst_samples=args.worst_samples,
            rng=args.seed,
            progress=bar,
        )
    title = (
        "relative decoding error ||g_hat - g|| / ||g|| (k = n, s = n/4; m = n/4 for Ye-Abbe and "
        "CommFR-GC, m = 1 for cyclic-MDS and Reed-Solomon); random: mean log10 error with "
        "99% CI"
    )
    print(format_table([p.row() for p in pts], args.format, title=title))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("codes", help="build, verify and compare gradient codes")
    sub = p.add_subparsers(dest="codes_command", metavar="{list,verify,stability,approx}")
    p.set_defaults(func=_cmd_missing)
    lst = sub.add_parser(
        "list",
        description=(
            "List the gradient-code families that gctheory codes verify builds (Tandon et al."
            " 2017's cyclic-MDS and fractional repetition codes, Ye-Abbe 2018, Kadhe et al. "
            "2019's CommFR-GC, Halbawi et al. 2017's Reed-Solomon codes, Krishnan et al. "
            "2023's sequential codes) and those of installed code plug-ins."
        ),
        help="the code families, those of installed plug-ins included",
    )
    add_format_argument(lst)
    lst.set_defaults(func=_cmd_list)

    v = sub.add_parser(
        "verify",
        help="decode from every set of s (and s+1) stragglers; exit 1 if a set of s fails",
        description=(
            "Decode from every set of s (and s+1) stragglers. status: ok (every set decoded "
            "within tolerance), failures (some did not), refused (no set could be decoded at "
            "all, too few survivors; max_rel_error, max_condition and error/bound are then "
            "n/a, empty in csv, null in json). A code tolerates s stragglers when every set "
            "of n - s workers decodes the full gradient (Tandon et al. 2017)."
        ),
    )
    # plug-in families (entry points) are checked when the command runs, not read here
    v.add_argument(
        "family",
        metavar="FAMILY",
        help=f"one of {', '.join((*CLI_FAMILIES, *SEQUENTIAL))}, or a code plug-in's family "
        "(gctheory codes list)",
    )
    v.add_argument("--B", type=int, help="burst length (sr-sgc, m-sgc; as `gctheory sgc verify`)")
    v.add_argument("--W", type=int, help="window (sr-sgc, m-sgc)")
    v.add_argument("--lambda", dest="lam", type=int, help="stragglers a window (sr-sgc, m-sgc)")
    v.add_argument("--jobs", type=int, default=3, help="jobs (sr-sgc, m-sgc; default 3)")
    v.add_argument("--negative-control", action="store_true", help="(sr-sgc, m-sgc) see sgc")
    v.add_argument("--n", type=int, required=True, help="workers")
    v.add_argument("--s", type=int, help="stragglers (Tandon, Ye-Abbe)")
    v.add_argument("--m", type=int, help="communication saving (Ye-Abbe; default 1)")
    v.add_argument("--k", type=int, help="partitions (CommFR-GC, RS, FR; default n for FR)")
    v.add_argument("--N", type=int, help="code length (CommFR-GC)")
    v.add_argument("--K", type=int, help="code dimension (CommFR-GC)")
    v.add_argument("--w", type=int, help="partitions per worker (Reed-Solomon)")
    v.add_argument("--dv", type=int, help="LDPC variable degree (commfr-ldpc; default 3)")
    v.add_argument("--dc", type=int, help="LDPC check degree (commfr-ldpc; default 6)")
    v.add_argument("--d", type=int, default=1000, help="gradient length for the cost model")
    v.add_argument("--max-sets", type=int, default=5000, help="sample beyond this many sets (>= 1)")
    v.add_argument("--seed", type=int, default=0, help="seed of random codes and gradients")
    add_format_argument(v)
    v.set_defaults(func=_cmd_verify)

    s = sub.add_parser(
        "stability",
        description=(
            "The relative decoding error versus n of each code family, over random straggler "
            "sets and the worst set found: how the numerical stability of cyclic-MDS (Tandon "
            "et al. 2017), Reed-Solomon (Halbawi et al. 2017), Ye-Abbe and CommFR-GC (Kadhe "
            "et al. 2019) decoding degrades as n grows."
        ),
        help="decoding error versus n for each code family",
    )
    s.add_argument(
        "--families",
        nargs="+",
        choices=STABILITY_FAMILIES,
        default=list(STABILITY_FAMILIES),
        help=f"code families to compare (default all): {', '.join(STABILITY_FAMILIES)}",
    )
    s.add_argument(
        "--n", nargs="+", type=int, default=[4, 12, 20, 28, 36, 44, 52, 60], help="multiples of 4"
    )
    s.add_argument("--trials", type=int, default=50, help="random straggler sets per point")
    s.add_argument("--worst-samples", type=int, default=30, help="extra sets for the worst case")
    s.add_argument("--seed", type=int, default=0, help="seed of codes and straggler sets")
    add_quiet_argument(s)
    add_format_argument(s)
    s.set_defaults(func=_cmd_stability)

    add_approx_parser(sub)
