"""The command line's entry point: threads pinned, warnings shown in one line, an
option's bad value reported by name, the command run."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

from gctheory._output import set_parameters
from gctheory.cli._parser import Parser, build_parser

__all__ = ["main"]


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
