"""Shared argument checks and size limits of :mod:`gctheory.runtime` (nothing here
imports another submodule).
"""

from __future__ import annotations

from typing import Any

from gctheory._validate import check_int, check_real
from gctheory.order_stats._common import MAX_WORKERS

__all__ = []


def _int(name: str, v: Any, lo: int = 1) -> int:
    # sizes (workers, groups, redundancy, K...) share the order statistics' ceiling
    return check_int(v, name, low=lo, high=MAX_WORKERS)


def _nonneg(name: str, v: float) -> float:
    return check_real(v, name, low=0.0)


# Scans that evaluate an exact expected time at every candidate cost about 1 ms per
# candidate with a closed form and 0.1-0.3 s with numerical integration: refuse
# before starting a scan that would take minutes.
_SCAN_CLOSED, _SCAN_QUAD = 10**4, 200


def _check_scan(name: str, size: int, dist: Any = None, what: str = "") -> None:
    closed = dist is None or dist.dist.name in ("expon", "pareto")
    limit = _SCAN_CLOSED if closed else _SCAN_QUAD
    if size > limit:
        kind = "a closed form" if closed else "a numerical integration"
        raise ValueError(
            f"{name} must be <= {limit} here, got {size}: {what} evaluates {kind} for every "
            f"candidate ({size} of them), which would take minutes; refused before starting"
        )


# Vectorised scans hold a few float64 arrays of the scan's length.
_MAX_VECTOR = 10**7
