"""One BLAS thread for the paper checks' many small dense solves.

The checks solve thousands of small systems (least squares, SVDs of matrices
with tens of rows); a multi-threaded BLAS only adds contention there, badly so
on a shared machine (a 200 x 180 least-squares solve ran about 25 times faster
on one thread than on the default pool while other jobs ran). threadpoolctl
ships with scikit-learn; without it the limit is skipped.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any

__all__ = ["single_thread_blas", "single_threaded"]


def single_thread_blas() -> Any:
    """A context limiting BLAS to one thread (a no-op without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        return contextlib.nullcontext()
    return threadpool_limits(1)


def single_threaded(func: Callable[[bool], Any]) -> Callable[[bool], Any]:
    """Run a claim's ``compute(quick)`` under :func:`single_thread_blas`."""

    @functools.wraps(func)
    def wrapper(quick: bool) -> Any:
        with single_thread_blas():
            return func(quick)

    return wrapper
