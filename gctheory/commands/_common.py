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


def unused_options(args: argparse.Namespace, unused: dict[str, str]) -> None:
    """Refuse options given that the chosen configuration does not read:
    ``unused = {dest: why}``; an option counts as given when its value is not None."""
    given = [f"--{d.replace('_', '-')}" for d in unused if getattr(args, d, None) is not None]
    if given:
        why = "; ".join(unused[d] for d in unused if getattr(args, d, None) is not None)
        raise ValueError(
            f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} not used here ({why}): "
            "remove it"
        )
