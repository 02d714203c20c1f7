"""The ``gctheory`` command line.

Core commands (:mod:`gctheory.cli._core`): ``reproduce`` (every paper check and figure, and the
report), ``check`` (the claims of one paper, printed as a table) and
``figures`` (remake figures). Topic commands (``table1``, ``threshold``,
``orderstat``, ...) are contributed by the modules of :mod:`gctheory.commands`.
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.cli import _core, _entry, _parser
from gctheory.cli._core import _run_figures as _run_figures
from gctheory.cli._entry import _THREAD_VARIABLES as _THREAD_VARIABLES
from gctheory.cli._entry import _given as _given
from gctheory.cli._entry import _option_error as _option_error
from gctheory.cli._entry import _pin_threads as _pin_threads
from gctheory.cli._entry import _show_warning as _show_warning
from gctheory.cli._entry import main
from gctheory.cli._parser import build_parser

__all__ = ["main", "build_parser"]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _core, _entry, _parser)
