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
