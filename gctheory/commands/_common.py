"""Helpers shared by several CLI command modules.

It sits below them (imports nothing from :mod:`gctheory.commands`), so
``codes`` can import ``_codes_approx`` and both can import this without a
circle.  Light: only the standard library, so building the parser stays fast.
"""

from __future__ import annotations

import argparse
import os


def _need(args: argparse.Namespace, *names: str) -> None:
    """Raise ``ValueError`` naming the ``--options`` the chosen family needs but were not given."""
    missing = [f"--{n}" for n in names if getattr(args, n) is None]
    if missing:
        raise ValueError(f"family {args.family!r} needs {', '.join(missing)}")


def use_file_backend() -> None:
    """Select matplotlib's non-interactive Agg backend for a command that only writes files.

    Called by the figure-writing commands before they plot, never on import (no
    module of gctheory changes matplotlib's global state when imported). A
    backend named by the ``MPLBACKEND`` environment variable is left alone.
    """
    if os.environ.get("MPLBACKEND"):
        return
    import matplotlib

    matplotlib.use("Agg")


def cli_warning(message: str) -> None:
    """Print ``gctheory: warning: message`` on stderr (the CLI's one warning format)."""
    import sys

    print(f"gctheory: warning: {message}", file=sys.stderr)


#: the release in which the old option spellings stop being accepted (docs/cli.md)
REMOVED_IN = "0.3"


class _Renamed(argparse.Action):
    """An old option spelling: stores into the new option's destination and says so."""

    def __init__(self, option_strings, dest, new: str = "", **kwargs) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        cli_warning(
            f"{option_string} is deprecated and will be removed in {REMOVED_IN}; "
            f"use {self.new} (docs/cli.md lists the option names)"
        )
        setattr(namespace, self.dest, values)


def add_renamed(parser: argparse.ArgumentParser, old: str, new: str, **kwargs) -> None:
    """Accept ``old`` (e.g. ``--xi``) for one release as a hidden spelling of ``new``
    (``--shape``), with a deprecation message; ``kwargs`` as for ``new`` (type, nargs)."""
    dest = new.lstrip("-").replace("-", "_")
    kwargs.pop("default", None)
    kwargs.pop("help", None)
    parser.add_argument(
        old, dest=dest, action=_Renamed, new=new, help=argparse.SUPPRESS,
        default=argparse.SUPPRESS, **kwargs,
    )  # fmt: skip


def renamed_choice(mapping: dict[str, str], option: str):
    """An argparse ``type`` that maps old choice names to their new ones, with a message
    (``maxcond --generator chebyshev`` -> ``vandermonde-chebyshev``)."""

    def convert(text: str) -> str:
        if text in mapping:
            cli_warning(
                f"{option} {text} is deprecated and will be removed in {REMOVED_IN}; "
                f"use {option} {mapping[text]}"
            )
            return mapping[text]
        return text

    return convert


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether the option of ``dest`` was written on the command line: ``gctheory``'s main
    records them (``args._given``), so an option with a default counts only when typed;
    without that record (a Namespace built by hand), when its value is not None or False."""
    if hasattr(args, "_given"):
        return dest in args._given
    return getattr(args, dest, None) not in (None, False)


def unused_options(args: argparse.Namespace, unused: dict[str, str], flags=None) -> None:
    """Refuse options given that the chosen configuration does not read:
    ``unused = {dest: why}`` (:func:`given` says which were given); ``flags`` maps a
    destination to its option where that is not ``--dest`` (``lam`` -> ``--lambda``)."""
    names = [d for d in unused if given(args, d)]
    given_ = [(flags or {}).get(d, f"--{d.replace('_', '-')}") for d in names]
    if given_:
        why = "; ".join(dict.fromkeys(unused[d] for d in names))
        raise ValueError(
            f"{', '.join(given_)} {'is' if len(given_) == 1 else 'are'} not used here ({why}): "
            "remove it"
        )


def _plugin_names() -> tuple[str, ...]:
    """Names of the installed code plug-ins' entry points (no plug-in imported)."""
    from importlib import metadata

    return tuple(sorted(ep.name for ep in metadata.entry_points(group="gctheory.codes")))


def scheme_type(valid=None, *, plugins: bool = False, refused: dict[str, str] | None = None):
    """An argparse ``type`` for a scheme name: the canonical, hyphenated name of
    :data:`gctheory._names.SCHEME_NAMES` (``valid``: those accepted here), an old spelling
    with a deprecation message, a plug-in's family (``plugins``); anything else is refused
    while parsing, in one line with the closest names. ``refused`` maps a valid-elsewhere
    name to why this command refuses it."""
    from gctheory._names import resolve_scheme

    def scheme(text: str) -> str:
        try:
            canonical, note = resolve_scheme(text, valid, hint="--list names them")
        except ValueError as exc:
            if plugins and text in _plugin_names():
                return text
            raise argparse.ArgumentTypeError(str(exc)) from None
        if refused and canonical in refused:
            raise argparse.ArgumentTypeError(f"{text!r} {refused[canonical]}")
        if note:
            cli_warning(note)
        return canonical

    return scheme


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bar (on a terminal) and no progress lines (elsewhere)."""
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar on a terminal, no progress lines"
    )


def progress_enabled(args: argparse.Namespace) -> bool | None:
    """``enabled`` of :class:`gctheory._progress.Progress` for a command: off with --quiet."""
    return False if getattr(args, "quiet", False) else None
