"""What a worst-case search reports, and how far a float64 condition number can be trusted.

:class:`MaxCondition` is the result of :func:`~gctheory.conditioning.worst_case.max_condition`;
``_delta`` and ``_true_range`` turn one float64 condition number into the interval that
holds the true one (backward stability of the SVD; see the package docstring and Horn and
Johnson, Cor. 7.3.6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["MaxCondition"]

_EPS = float(np.finfo(float).eps)
#: a complete search is reported exact (lower = upper = value) when one float64 condition
#: number is accurate to this relative error (``delta kappa``; 1e-4 at FLOAT64_RELIABLE_LIMIT)
_EXACT_ROUNDING = 1e-4


@dataclass(frozen=True)
class MaxCondition:
    """Worst condition number over the t-worker column submatrices of a generator.

    Attributes
    ----------
    value : float
        float64 condition number of the worst subset found (inf if singular).
    subset : tuple of int
        Workers of the worst subset found.
    exact : bool
        True when the search is complete and the certificate closes
        (``lower == upper``); then ``value`` is the worst case.
    method : str
        ``"exhaustive"``, ``"branch-and-bound"`` or ``"estimate (random subsets +
        local search)"``; ``" (stopped at the time limit)"`` is appended when
        the search did not finish.
    evaluated : int
        Submatrices whose condition number was computed exactly.
    n_subsets : int
        ``binom(N, t)`` (N, t in workers).
    t : int
        Surviving workers.
    float64_reliable : bool
        False if ``value`` exceeds :data:`FLOAT64_RELIABLE_LIMIT`.
    value_mp : float or None
        High-precision condition number of the worst subset found (when float64
        is unreliable and ``mp_dps``/``mp_reference`` allow).
    top : tuple
        The few worst ``(condition number, subset)`` pairs found.
    lower, upper : float
        Certified interval for the worst case: ``lower`` is attained by
        ``subset`` (from ``value_mp`` when present), ``upper`` bounds every
        subset (inf when nothing is certified).
    pruned : int
        Subsets excluded by a bound without an exact evaluation.
    nodes : int
        Branch-and-bound nodes expanded.
    complete : bool
        Whether every subset was evaluated or pruned.
    seconds : float
        Wall time of the search.
    rounding : float
        Relative float64 uncertainty of one condition number at ``value``
        (``delta kappa`` in the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.conditioning import max_condition
    >>> G = np.random.default_rng(0).standard_normal((3, 6))
    >>> r = max_condition(G, 4)
    >>> r.subset, f"{r.value:.4g}", r.exact, r.evaluated, r.n_subsets
    ((0, 1, 2, 5), '9.616', True, 15, 15)
    """

    value: float
    subset: tuple[int, ...]
    exact: bool
    method: str
    evaluated: int
    n_subsets: int
    t: int
    float64_reliable: bool
    value_mp: float | None = None
    top: tuple = field(default=(), repr=False)
    lower: float = math.nan
    upper: float = math.inf
    pruned: int = 0
    nodes: int = 0
    complete: bool = False
    seconds: float = 0.0
    rounding: float = 0.0


def _delta(K: int, t: int) -> float:
    """Relative accuracy of sigma_min against sigma_max in one float64 condition number."""
    return 8.0 * max(K, t) * _EPS


def _true_range(kappa: float, delta: float) -> tuple[float, float]:
    """Interval holding the true condition number of a matrix whose float64 value is kappa."""
    if not math.isfinite(kappa) or delta * kappa >= 0.5:
        return (kappa * (1 - delta) / (1 + delta * kappa) if math.isfinite(kappa) else 0.0), (
            math.inf
        )
    return kappa * (1 - delta) / (1 + delta * kappa), kappa * (1 + delta) / (1 - delta * kappa)
