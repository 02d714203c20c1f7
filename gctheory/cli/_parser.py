"""The command line's parser: its error messages, help format, ranged numbers, and
every command registered by :mod:`gctheory.commands`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
from collections.abc import Sequence

from gctheory import __version__
from gctheory._output import add_format_argument
from gctheory.cli._core import _check_all_time, _cmd_check, _cmd_figures, _cmd_reproduce
from gctheory.commands._common import add_quiet_argument

__all__ = ["build_parser"]


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
