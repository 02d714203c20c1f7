"""Moved to :mod:`gctheory._threads` (shared with the rare-event samplers); kept importable."""

from gctheory._threads import blas_single_thread

__all__ = ["blas_single_thread"]
