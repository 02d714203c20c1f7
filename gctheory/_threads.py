"""One BLAS thread for small, many-times-repeated linear algebra.

Fits, bootstraps, the training simulator and the rare-event samplers call BLAS
on small arrays thousands of times; extra BLAS threads only contend (measured: a
mixture fit takes several times longer with 2 threads on a busy 2-core machine,
``subset_failure_is(35, 35, 35, 1e12, 35)`` 0.6 s with one thread and 12.6 s with
two while another process kept a core busy).
"""

from __future__ import annotations

import contextlib
from typing import Any


def blas_single_thread() -> Any:
    """A context limiting BLAS to one thread (a no-op without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        return contextlib.nullcontext()
    return threadpool_limits(1)
