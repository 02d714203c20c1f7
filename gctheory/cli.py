"""The ``gctheory`` command line.

Core commands live here: ``reproduce`` (every paper check and figure, and the
report), ``check`` (the claims of one paper, printed as a table) and
``figures`` (remake figures). Topic commands (``table1``, ``threshold``,
``orderstat``, ...) are contributed by the modules of :mod:`gctheory.commands`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from gctheory import __version__
from gctheory._output import add_format_argument, format_table, set_parameters
from gctheory.commands._common import add_quiet_argument

__all__ = ["main", "build_parser"]


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _run_figures(outdir: Path, quick: bool, names: Sequence[str] | None = None) -> int:
    import contextlib

    from gctheory.commands._common import use_file_backend
    from gctheory.plots import all_figures
    from gctheory.plots._base import raster_only

    use_file_backend()
    with raster_only() if quick else contextlib.nullcontext():
        return _make_figures(all_figures(), outdir, quick, names)


def _make_figures(makers, outdir: Path, quick: bool, names: Sequence[str] | None) -> int:
    if names:
        known = {m.name for m in makers}
        unknown = sorted(set(names) - known)
        if unknown:
            raise ValueError(f"unknown figure(s) {unknown}; known: {sorted(known)}")
        makers = [m for m in makers if m.name in names]
    failed = 0
    for m in makers:
        if quick and m.slow:
            _log(f"figure {m.name}: skipped (slow) in --quick")
            continue
        t0 = time.perf_counter()
        try:
            paths = m.make(outdir, quick)
            _log(f"figure {m.name}: {len(paths)} files ({time.perf_counter() - t0:.1f}s)")
        except Exception:
            failed += 1
            _log(f"figure {m.name}: FAILED\n{traceback.format_exc()}")
    return failed


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from paper_checks import all_claims
    from paper_checks._framework.ledger import (
        LEDGER_PATH,
        compare_ledger,
        format_diffs,
        load_ledger,
        updated_ledger,
        write_ledger,
    )
    from paper_checks._framework.report import write_report

    if args.outdir is None:
        # a quick run never overwrites the committed full-run outputs of a checkout
        outdir = Path(".")
        stem, figdir = (
            ("REPORT.quick", Path("figures") / "quick")
            if args.quick
            else (
                "REPORT",
                Path("figures"),
            )
        )
    else:
        outdir = Path(args.outdir)
        stem, figdir = "REPORT", outdir / "figures"
    ledger_path = Path(args.ledger) if args.ledger else LEDGER_PATH
    ledger = load_ledger(ledger_path)
    claims = all_claims(args.paper)
    _log(f"running {len(claims)} claims ({'quick' if args.quick else 'full'} mode)")
    results = _run_claims_with_progress(claims, args.quick, log=True, quiet=args.quiet)
    md, js = write_report(results, outdir / "paper_checks", quick=args.quick, stem=stem)
    failed_figs = 0
    if not args.no_figures:
        if args.paper is None:
            failed_figs = _run_figures(figdir, args.quick)
        else:  # only that paper's figures (--paper X remade all of them)
            from gctheory.plots import all_figures

            mine = [m.name for m in all_figures() if m.paper == args.paper]
            if mine:
                failed_figs = _run_figures(figdir, args.quick, mine)
            else:
                _log(f"no figure belongs to {args.paper}")
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    print(f"report: {md} and {js}")
    print("verdicts: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
    errors = counts.get("error", 0)
    rc = 0
    if args.update_ledger:
        new = updated_ledger(results, ledger, quick=args.quick)
        print(f"ledger updated: {write_ledger(new, ledger_path)}")
    else:
        diffs = compare_ledger(results, ledger, quick=args.quick, complete=args.paper is None)
        if diffs:
            print(format_diffs(diffs), file=sys.stderr)
            rc = 1
        else:
            print(f"ledger: every verdict as expected ({ledger_path})")
    if errors or failed_figs:
        print(f"{errors} claim(s) raised and {failed_figs} figure(s) failed", file=sys.stderr)
        rc = 1
    return rc


def _run_claims_with_progress(claims, quick: bool, log: bool = False, quiet: bool = False):
    """``run_claims`` one claim at a time, with a progress line on a terminal (and, with
    ``log``, one line per claim on stderr, as ``reproduce`` always printed)."""
    from gctheory._progress import Progress
    from paper_checks import run_claims

    results = []
    with Progress(len(claims), "check", enabled=False if quiet else None) as bar:
        for i, c in enumerate(claims):
            bar.update(i, c.key)
            (res,) = run_claims([c], quick=quick)
            results.append(res)
            if log:
                bar.close()
                _log(f"{c.key}: {res.verdict} ({res.seconds:.1f}s)")
        bar.update(len(claims))
    return results


# CPU seconds of every claim, measured with /usr/bin/time on 2 shared AMD EPYC (x86-64)
# cores: `gctheory check` 41 s (3 min 05 s of wall time with ~10 other jobs running),
# `gctheory check --full` 238 s (15 min wall on the same busy machine; 1.0 GB at most).
# The claims run one after another on one core: on an idle machine wall ~ CPU.
_CHECK_ALL_SECONDS = {"quick": 41, "full": 238}


def _check_all_time(mode: str) -> str:
    from gctheory._progress import duration

    return f"about {duration(_CHECK_ALL_SECONDS[mode])} of CPU"


def _cmd_check(args: argparse.Namespace) -> int:
    from paper_checks import all_claims
    from paper_checks._framework.report import _fmt

    if args.list:
        claims = all_claims()
        counts: dict[str, list[int]] = {}
        for c in claims:
            counts.setdefault(c.paper, [0, 0])
            counts[c.paper][0] += 1
            counts[c.paper][1] += int(c.slow)
        rows = [{"paper": k, "claims": v[0], "slow": v[1]} for k, v in counts.items()]
        print(format_table(rows, args.format, title="papers and sources with claims"))
        return 0
    if args.full and args.quick:
        raise ValueError("give --quick or --full, not both")
    quick = args.quick or (args.paper is None and not args.full)
    claims = all_claims(args.paper)
    if args.paper is None:
        if quick:
            slow = sum(c.slow for c in claims)
            what = (
                f"{len(claims)} claims in quick mode, {_check_all_time('quick')} "
                f"({slow} slow claims skipped; --full runs every claim in full mode, "
                f"{_check_all_time('full')})"
            )
        else:
            what = f"{len(claims)} claims in full mode, {_check_all_time('full')}"
        _log(
            f"gctheory check: every paper, {what}; one paper: gctheory check PAPER "
            "(gctheory check --list names them)"
        )
    results = _run_claims_with_progress(claims, quick, quiet=args.quiet)
    rows = []
    for r in results:
        o = r.outcome
        rows.append(
            {
                "claim": r.claim.key,
                "where": r.claim.where,
                "paper": _fmt(r.claim.paper_value),
                "computed": _fmt(o.computed) if o else "",
                "verdict": r.verdict,
                "cause": (o.cause if o else (r.skipped or r.error.strip().splitlines()[-1])),
            }
        )
    title = f"claims of {args.paper or 'every paper'} ({'quick' if quick else 'full'} mode)"
    print(format_table(rows, args.format, title=title, optional=("where", "paper")))
    return 1 if any(r.verdict == "error" for r in results) else 0


def _cmd_figures(args: argparse.Namespace) -> int:
    if args.list:
        from gctheory.plots import all_figures

        rows = [
            {"name": m.name, "paper": m.paper or "", "slow": m.slow, "description": m.description}
            for m in all_figures()
        ]
        print(format_table(rows, args.format))
        return 0
    return 1 if _run_figures(Path(args.outdir), args.quick, args.names) else 0


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are short: an unknown choice or option gets the three
    closest valid names ("did you mean"), in one line, never the whole list of choices.
    Subparsers are of this class too (``add_subparsers`` makes its parent's class)."""

    _CHOICE = re.compile(r"^argument (.+?): invalid choice: '(.*)' \(choose from (.*)\)$", re.S)

    def error(self, message: str):
        m = self._CHOICE.match(message)
        if m:
            from gctheory._names import did_you_mean

            choices = re.findall(r"'([^']*)'", m.group(3))
            dest = m.group(1)
            what = "command" if dest in ("COMMAND", "MODEL") or dest.startswith("{") else "choice"
            message = f"argument {dest}: " + did_you_mean(m.group(2), choices, what)
        # "--n must be ..." as the commands' own checks say it; "--scheme: unknown ..."
        message = re.sub(
            r"^argument (\S+): (must )?",
            lambda m: f"{m[1]} must " if m[2] else f"{m[1]}: ",
            message,
        )
        super().error(self._fit(message))

    def _fit(self, message: str, width: int = 99) -> str:
        """The error line within ``width`` columns: drop a trailing ``(hint)``, then the
        last of the suggested names (never the first), then the word after ``unknown``."""
        room = width - len(f"{self.prog}: error: ")
        if len(message) > room:
            message = re.sub(r" \([^()]*\)$", "", message)
        while len(message) > room and re.search(r"did you mean [^,?]+, [^?]*\?", message):
            message = re.sub(r", [^,?]+\?", "?", message, count=1)
        if len(message) > room:
            message = re.sub(r"^(\S+: )?unknown \w+ '", r"\1unknown '", message)
        return message

    def unrecognized(self, extras: Sequence[str]) -> None:
        """Report arguments this (sub)command does not take, with the closest options."""
        import difflib

        options = [o for a in self._actions if a.help != argparse.SUPPRESS
                   for o in a.option_strings]  # fmt: skip
        hints = []
        for tok in extras:
            if tok.startswith("--"):
                close = difflib.get_close_matches(tok.split("=", 1)[0], options, n=3, cutoff=0.6)
                if close:
                    hints.append(f"did you mean {', '.join(close)}?")
        shown = " ".join(extras)
        shown = shown if len(shown) <= 30 else shown[:27] + "..."
        self.error(f"unrecognized arguments: {shown}" + (f"; {hints[0]}" if hints else ""))


class _CheckParser(Parser):
    """The ``check`` parser: its help ends with the seed papers (imported on demand)."""

    def format_help(self) -> str:
        from paper_checks._framework.registry import PAPERS

        self.epilog = (
            "papers: "
            + "; ".join(f"{k} ({v.split(',')[0]} et al.)" for k, v in PAPERS.items())
            + ". Other sources: gctheory check --list."
        )
        return super().format_help()


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help that shows every option's default: appended as ``(default: X)`` unless the
    help text already says it (``default`` in it) or there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text.lower() or action.default in (None, False, argparse.SUPPRESS):
            return text
        if not action.option_strings and action.nargs not in ("?", "*"):
            return text
        d = action.default
        shown = " ".join(map(str, d)) if isinstance(d, (list, tuple)) else str(d)
        return f"{text} (default: {shown.replace('%', '%%')})"

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return "\n".join(
            textwrap.fill(p, width, initial_indent=indent, subsequent_indent=indent)
            for p in text.splitlines()
        )


#: ranges that hold wherever an integer option of this name appears (the library checks the
#: finer rules); checked while parsing, so a range error costs no import of numpy or scipy
_INT_AT_LEAST = {
    "n": 1, "s": 0, "seed": 0, "trials": 1, "iterations": 1, "m": 1, "K": 1, "k": 1, "N": 1,
    "jobs": 1, "mc": 0, "max_sets": 1, "time_trials": 1, "bootstrap": 0, "dv": 1, "dc": 1,
    "B": 1, "W": 1, "points": 1, "codes": 1, "r": 1, "groups": 1, "persist": 1, "n_slow": 0,
    "warmup": 0, "worst_samples": 0, "erasures": 0, "max_states": 1, "t": 1,
    "degree": 1, "v": 1, "block_size": 1, "blocks": 1, "D": 1, "stragglers": 0, "d": 1,
    "w": 1, "eval_every": 0, "max_events": 1, "max_trials": 1, "batch_size": 1, "workers": 1,
}  # fmt: skip
#: (command, option) -> a stricter lower bound of that command
_INT_AT_LEAST_IN = {("tradeoff", "n"): 2}
#: real options: (low, high, low included, high included); None: unbounded
#: (``mean`` is left to the commands: ``orderstat --dist pareto --mu -1`` says it is unused)
_REAL_RANGE: dict[str, tuple[float | None, float | None, bool, bool]] = {
    "kappa": (1.0, None, True, True), "eps": (0.0, 1.0, True, True),
    "error": (0.0, 1.0, True, True), "level": (0.0, 1.0, False, False),
    "quantile": (0.0, 1.0, True, True), "p": (0.0, 1.0, True, True),
    "scale": (0.0, None, False, True), "shape": (0.0, None, False, True),
    "shift": (0.0, None, True, True),
    "tau": (0.0, None, True, True), "timeout": (0.0, None, False, True),
    "deadline": (0.0, None, False, True), "step_size": (0.0, None, False, True),
    "comm_time": (0.0, None, True, True), "decode_time_per_op": (0.0, None, True, True),
    "max_seconds": (0.0, None, False, True), "time_limit": (0.0, None, False, True),
    "n_cg": (0.0, None, True, True), "c_m": (0.0, None, True, True),
    "rel_half_width": (0.0, None, False, True),
    "slowdown": (0.0, None, False, True), "C": (0.0, None, False, True),
}  # fmt: skip


def _ranged(conv: type, rule: tuple[float | None, float | None, bool, bool]):
    """An argparse ``type``: ``conv`` (int or float) and a range, refused while parsing."""
    low, high, low_in, high_in = rule
    kind = "an integer" if conv is int else "a number"
    parts = []
    if low is not None:
        parts.append(f"{'>=' if low_in else '>'} {low:g}")
    if high is not None:
        parts.append(f"{'<=' if high_in else '<'} {high:g}")
    text = f"must be {kind} {' and '.join(parts)}"

    def check(value: str):
        v = conv(value)  # a ValueError: argparse's "invalid int value: 'x'"
        ok = v == v and (
            (low is None or (v >= low if low_in else v > low))
            and (high is None or (v <= high if high_in else v < high))
        )  # NaN fails (v != v)
        if not ok:
            raise argparse.ArgumentTypeError(f"{text}, got {value}")
        return v

    check.__name__ = conv.__name__
    return check


def _set_formatter(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> None:
    """Every (sub)parser: the help formatter, and the range checks of its options."""
    parser.formatter_class = HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                _set_formatter(sub, (*path, name))
        elif action.help == argparse.SUPPRESS:  # an old spelling: its own message first
            continue
        elif action.type is int and action.dest in _INT_AT_LEAST:
            low = _INT_AT_LEAST_IN.get((" ".join(path), action.dest), _INT_AT_LEAST[action.dest])
            action.type = _ranged(int, (low, None, True, True))
        elif action.type is float and action.dest in _REAL_RANGE:
            action.type = _ranged(float, _REAL_RANGE[action.dest])


def build_parser() -> Parser:
    """The full parser, with every discovered topic subcommand."""
    parser = Parser(
        prog="gctheory",
        description="Gradient-coding theory as numbers you can check: bounds, thresholds, "
        "optima and their Monte Carlo twins, and the source papers' claims recomputed.",
    )
    parser.add_argument("--version", action="version", version=f"gctheory {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "reproduce",
        help="run every paper check, write figures and paper_checks/REPORT.md",
        description="Run every registered paper claim and figure maker; write "
        "OUTDIR/paper_checks/REPORT.md, REPORT.json and OUTDIR/figures/*.",
    )
    p.add_argument("--quick", action="store_true", help="desk mode: fewer trials, skip slow claims")
    p.add_argument(
        "--outdir",
        default=None,
        help="where paper_checks/ and figures/ go (default: the current folder; with --quick, "
        "paper_checks/REPORT.quick.* and figures/quick/, so the committed outputs stay)",
    )
    p.add_argument("--paper", help="only this paper's claims (a seed paper or another source)")
    p.add_argument("--no-figures", action="store_true", help="skip the figures")
    add_quiet_argument(p)
    p.add_argument(
        "--ledger",
        default=None,
        help="ledger of expected verdicts to compare with (default paper_checks/ledger.json)",
    )
    p.add_argument(
        "--update-ledger",
        action="store_true",
        help="rewrite the ledger from this run instead of comparing (a deliberate change: "
        "commit it)",
    )
    p.set_defaults(func=_cmd_reproduce)

    p = sub.add_parser(
        "check",
        help="run one paper's claims and print a table",
        description="Recompute the claims of one paper (or of every paper: quick mode unless "
        "--full) and print each claim's verdict.",
    )
    p.__class__ = _CheckParser  # its help lists the papers, read only when asked
    p.add_argument("paper", nargs="?", help="paper or source (default: every one; see --list)")
    p.add_argument(
        "--quick",
        action="store_true",
        help="fewer trials, skip slow claims (the default when no paper is named)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help=f"every claim in full mode (every paper: {_check_all_time('full')})",
    )
    p.add_argument("--list", action="store_true", help="list the papers and sources and exit")
    add_quiet_argument(p)
    add_format_argument(p)
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser(
        "figures",
        description=(
            "Remake the figures of the source papers and of gctheory's own studies: a PNG and"
            " the CSV behind each (and an SVG where the figure is vector), seeded, so a rerun"
            " writes the same bytes. --list names each figure with its paper."
        ),
        help="remake figures (all, or those named)",
    )
    p.add_argument("names", nargs="*", help="figure names (default: all); see --list")
    p.add_argument("--list", action="store_true", help="list the figures and exit")
    p.add_argument("--quick", action="store_true", help="smaller grids, fewer trials")
    p.add_argument("--outdir", default="figures", help="output folder (default figures)")
    add_format_argument(p)
    p.set_defaults(func=_cmd_figures)

    import gctheory.commands as commands

    for mod in pkgutil.iter_modules(commands.__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"gctheory.commands.{mod.name}").register(sub)
    _set_formatter(parser)
    return parser


# Commands whose outputs are committed: their numbers must not depend on how many threads
# a BLAS or OpenMP library splits a sum over (the order of a floating-point sum changes
# its last bits), so they run single-threaded.
_PINNED_COMMANDS = ("reproduce", "figures")
_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def _pin_threads(argv: Sequence[str]) -> None:
    """Set every BLAS/OpenMP thread count to 1 for :data:`_PINNED_COMMANDS`, before
    numpy loads (the libraries read these variables once, at load); worker processes
    inherit them. Where numpy is already loaded (``main`` called in-process) and
    threadpoolctl is installed, its limits apply instead."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in _PINNED_COMMANDS:
        return
    for var in _THREAD_VARIABLES:
        os.environ[var] = "1"
    if "numpy" in sys.modules:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - optional
            return
        threadpool_limits(1)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``gctheory: warning: ...``: one line, without the interpreter's source line."""
    stream = sys.stderr if file is None else file
    kind = "" if category in (UserWarning, RuntimeWarning) else f" ({category.__name__})"
    try:
        stream.write(f"gctheory: warning{kind}: {message}\n")
    except (OSError, ValueError):  # pragma: no cover - stderr closed
        pass


def _leaf_parser(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """The (sub)parser of the command that was chosen (``delays fit``, ``optimum xu``...)."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return parser
        chosen = getattr(args, subs[0].dest, None) if subs[0].dest != argparse.SUPPRESS else None
        if chosen not in subs[0].choices:
            return parser
        parser = subs[0].choices[chosen]


def _given(parser: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """The destinations of the options written on the command line (defaults are not)."""
    out = set()
    for tok in argv:
        if tok == "--":
            break
        if tok.startswith("-") and len(tok) > 1 and not tok[1:2].isdigit() and tok != "-":
            action = parser._option_string_actions.get(tok.split("=", 1)[0])
            if action is not None:
                out.add(action.dest)
    return out


#: library parameter names that the CLI spells differently (checked in this order)
_ALIASES = {
    "t0": ("scale",),
    "xi": ("shape",),
    "mu": ("mean",),
    "delta": ("shift",),
    "N": ("n",),
    "kappas": ("kappa",),
    "eps": ("eps_min", "eps_max"),
    "rng seed": ("seed",),
    "rng": ("seed",),
    "lambda": ("lam",),
}
_NAMED = re.compile(r"^(rng seed|[A-Za-z_]\w*)( in \w+)?(?=(?: \(.*?\))? must\b| \S+ is not\b)")


def _option_error(msg: str, parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """A library's message that begins with its parameter's Python name (``n must lie in
    [2, inf]``), rewritten to begin with the option the user typed (``--n must ...``)."""
    m = _NAMED.match(msg)
    if not m:
        return msg
    name = m.group(1)
    options = {
        a.dest: a.option_strings[0]
        for a in parser._actions
        if a.option_strings and a.help != argparse.SUPPRESS and a.dest != "help"
    }
    cands = [d for d in (name, *_ALIASES.get(name, ())) if d in options]
    if not cands:
        return msg
    given = [d for d in cands if d in getattr(args, "_given", ())]
    cands = given or cands
    if len(cands) > 1:  # the one whose value the message quotes (``got -1``)
        got = re.search(r"got (?:\w+=)?(\S+?)[,;)]?$", msg)
        same = [d for d in cands if got and str(getattr(args, d, None)) in (got.group(1),)]
        cands = same or cands
    flag = " or ".join(options[d] for d in cands)
    return flag + msg[m.end() :]


def _parameters(args: argparse.Namespace) -> dict:
    """The options of the command line as given (for json and csv output)."""
    skip = {"func", "format"}
    return {k: v for k, v in vars(args).items() if k not in skip and not k.startswith("_")}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gctheory`` console script.

    Parameters
    ----------
    argv : sequence of str, optional
        The command line without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success, 1 when a check or run failed, 2 for a command
        line the parser refused.

    Examples
    --------
    >>> from gctheory.cli import main
    >>> main(["load", "--n", "12", "--s", "2"])  # doctest: +SKIP
    0
    """
    import warnings

    _pin_threads(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:  # reported by the subcommand's own parser, with its usage line
            leaf = _leaf_parser(parser, args)
            if isinstance(leaf, Parser):
                leaf.unrecognized(extras)
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exc:  # a refused command line: its status (2), as every error
        if exc.code in (0, None):  # --help, --version
            raise
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    leaf = _leaf_parser(parser, args)
    args._given = _given(leaf, sys.argv[1:] if argv is None else list(argv))
    saved = warnings.showwarning
    if argv is None:  # the console script (not a caller's in-process main([...])): restored
        warnings.showwarning = _show_warning  # on the way out
    set_parameters(_parameters(args))
    try:
        seed = getattr(args, "seed", None)
        if isinstance(seed, int) and seed < 0:
            raise ValueError(f"--seed must lie in [0, inf] (a non-negative integer), got {seed}")
        rc = int(args.func(args) or 0)
        sys.stdout.flush()
        return rc
    except BrokenPipeError:
        # the reader closed the pipe (e.g. `gctheory table1 | head`): stop quietly, as
        # Unix tools do, and keep Python from complaining when it flushes at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except ValueError as exc:  # the subcommand's own usage line, then the error
        leaf.print_usage(sys.stderr)
        msg = _option_error(str(exc), leaf, args)
        if "did you mean" in msg and isinstance(leaf, Parser):  # one line, within 100 columns
            msg = leaf._fit(msg)
        print(f"{leaf.prog}: error: {msg}", file=sys.stderr)
        return 2
    except OSError as exc:
        from gctheory.montecarlo.checkpoint import CheckpointDiskFullError

        if not isinstance(exc, CheckpointDiskFullError):
            raise
        print(f"{leaf.prog}: error: {exc}", file=sys.stderr)  # one line
        return 1
    except RuntimeError as exc:
        from gctheory.montecarlo.engine import WorkerLostError

        if not isinstance(exc, WorkerLostError):
            raise
        print(f"{leaf.prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.showwarning = saved
        set_parameters(None)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
