"""The ``gctheory`` command line.

Core commands (:mod:`gctheory.cli.core`): ``reproduce`` (every paper check and figure, and the
report), ``check`` (the claims of one paper, printed as a table) and
``figures`` (remake figures). Topic commands (``table1``, ``threshold``,
``orderstat``, ...) are contributed by the modules of :mod:`gctheory.commands`.
"""

from __future__ import annotations

from gctheory.cli.core import _run_figures as _run_figures
from gctheory.cli.entry import _THREAD_VARIABLES as _THREAD_VARIABLES
from gctheory.cli.entry import _given as _given
from gctheory.cli.entry import _option_error as _option_error
from gctheory.cli.entry import _pin_threads as _pin_threads
from gctheory.cli.entry import _show_warning as _show_warning
from gctheory.cli.entry import main
from gctheory.cli.parser import build_parser

__all__ = ["main", "build_parser"]
