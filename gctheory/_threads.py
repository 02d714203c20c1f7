"""One BLAS thread for small, many-times-repeated linear algebra.

Fits, bootstraps, the training simulator and the rare-event samplers call BLAS
on small arrays thousands of times; extra BLAS threads only contend (measured: a
mixture fit takes several times longer with 2 threads on a busy 2-core machine,
``subset_failure_is(35, 35, 35, 1e12, 35)`` 0.6 s with one thread and 12.6 s with
two while another process kept a core busy).

``threadpoolctl.threadpool_limits(1)`` scans every loaded shared library on each
call (1.8 ms; ``gctheory reproduce --quick`` entered it thousands of times). The
scan is kept and redone only when a module was imported since (a new BLAS or
OpenMP library arrives with an extension module): the same libraries get the
same limits, at 15 us a call.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

__all__ = ["blas_single_thread"]

# (len(sys.modules) when scanned, the controller): a memo of what is loaded, not state
_SCANNED: list[Any] = [-1, None]


def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    n = len(sys.modules)
    if _SCANNED[0] != n or _SCANNED[1] is None:
        ctl = ThreadpoolController()
        _SCANNED[:] = [len(sys.modules), ctl]  # the scan itself may import modules
    return _SCANNED[1]


def blas_single_thread() -> Any:
    """A context limiting BLAS (and OpenMP) to one thread, as
    ``threadpoolctl.threadpool_limits(1)`` (a no-op without threadpoolctl)."""
    try:
        ctl = _controller()
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        return contextlib.nullcontext()
    return ctl.limit(limits=1)
