"""Raviv, Tamo, Tandon and Dimakis' expander code (the normalised adjacency as coding
matrix) and the spectral bounds on its fixed decoder's error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory._validate import (
    check_choice,
    check_int,
    check_real,
)
from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import _ApproximateCode, recovery_error
from gctheory.codes.base import DecodingCost, check_positive_int, validate_survivors
from gctheory.codes.expander._graphs import _check_adjacency, graph_spectrum

__all__ = ["ExpanderCode", "expander_error_bound", "expander_worst_case_lower_bound"]


# ------------------------------------------------------------ Raviv et al.
def expander_error_bound(n: int, s: int, d: int, lam: float) -> float:
    """Spectral bound on the fixed decoder's error, ``(lam / d)^2 n s / (n - s)``.

    gctheory's derivation, not a statement read from Raviv et al. (whose
    printed bound could not be retrieved); the expander-mixing argument,
    which Glasgow-Wootters Proposition 39 makes for assignment matrices: for
    survivors K,
    ``|K| = n - s``, ``u = n / (n - s) 1_K`` and ``B = Adj / d`` with
    ``1^T B = 1^T``, ``u^T B - 1^T = x^T B`` with ``x = u - 1`` orthogonal to
    ``1``; ``||x||^2 = s n / (n - s)``; and ``||x^T B|| <= (lam / d) ||x||``
    on ``1^perp``. The optimal decoder does at least as well. ``0 <= s < n``.

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Stragglers, ``0 <= s < n``.
    d : int
        Degree of the graph.
    lam : float
        Its spectral expansion ``max(|lambda_2|, |lambda_n|)``.

    Returns
    -------
    float
        ``(lam / d)^2 n s / (n - s)``.

    Examples
    --------
    >>> from gctheory.codes import expander_error_bound
    >>> round(expander_error_bound(50, 5, 8, 5.0), 6)
    2.170139
    """
    n = check_int(n, "n", low=1)
    s = check_int(s, "s", low=0)
    d = check_int(d, "d", low=1)
    if s >= n:
        raise ValueError(f"s must be < n (some worker survives), got s={s}, n={n}")
    lam = check_real(lam, "lam", low=0.0)
    if s == 0:
        return 0.0
    try:
        return (lam / d) ** 2 * n * s / (n - s)
    except OverflowError:  # lam = 1e300 raised it: products of floats
        r = lam / d  # overflow to inf instead, and stay finite where the bound is
        return r * (r * (n * s / (n - s)))


def expander_worst_case_lower_bound(s: int, d: int) -> float:
    """Worst-case lower bound ``s / d`` on the squared error ``||u^T B_K - 1||^2``.

    The bound Raviv et al.'s own code plots as "Lower Bound (worst case)" (its
    square root ``sqrt(s / d)`` on the l2 error; ``rashisht1/approx_gradient_coding``,
    ``all1_approx_tests.py``, at n = 50, d = 3, s = 3..7): some set of ``s``
    stragglers leaves every decoder of a code whose partitions are each held by
    ``d`` workers with at least this squared error. When ``d`` divides ``s`` and
    the graph has ``s / d`` vertices with disjoint neighbourhoods, straggling those
    neighbourhoods loses ``s / d`` partitions entirely, so the bound is attained by
    that set (each lost partition costs 1). ``0 <= s``, ``d >= 1``.

    Parameters
    ----------
    s : int
        Stragglers.
    d : int
        Replication of every partition.

    Returns
    -------
    float
        ``s / d``.

    Examples
    --------
    >>> from gctheory.codes import expander_worst_case_lower_bound
    >>> expander_worst_case_lower_bound(6, 3)
    2.0
    """
    s = check_int(s, "s", low=0)
    d = check_int(d, "d", low=1)
    return s / d


class ExpanderCode(_ApproximateCode):
    """Expander-graph approximate gradient code (Raviv et al. 2020, expander-graph part).

    Parameters
    ----------
    adjacency : (n, n) symmetric non-negative integer matrix of a d-regular graph
        E.g. :func:`random_regular_graph`, :func:`margulis_graph`.
    decoder : {"optimal", "fixed"}
        Least squares (eq. (5) of Wang et al. 2019), or the linear-time
        ``u = n / |K|`` on the survivors K.

    Attributes
    ----------
    A : (n, n) float
        The coding matrix ``Adj / d`` (worker i sends ``sum_j A[i, j] g_j``).
    d, lambda2, lam : degree, second eigenvalue, ``max(|lambda_2|, |lambda_n|)``.

    Examples
    --------
    >>> from gctheory.codes import ExpanderCode, load
    >>> import numpy as np
    >>> from gctheory.codes import random_regular_graph
    >>> code = ExpanderCode(random_regular_graph(12, 4, rng=0))
    >>> code.n, code.load
    (12, 4)
    >>> err = code.decoder_error([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])  # 2 stragglers
    >>> 0 <= err <= code.error_bound(2)
    True
    """

    name = "expander code (Raviv et al. 2020)"

    def __init__(self, adjacency: Any, *, decoder: str = "optimal") -> None:
        check_choice(decoder, "decoder", ("optimal", "fixed"))
        Adj = _check_adjacency(adjacency)
        self.adjacency = Adj
        self.n = self.k = Adj.shape[0]
        self.d, self.lambda2, self.lam = graph_spectrum(Adj)
        self.A = Adj / self.d
        self.support = Adj > 0
        self.load = int(self.support.sum(axis=1).max())
        self.decoder = decoder

    def error_bound(self, s: int) -> float:
        """:func:`expander_error_bound` for this graph and ``s`` stragglers."""
        return expander_error_bound(self.n, s, self.d, self.lam)

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        if self.decoder == "optimal":
            return super()._solve(T)
        return np.full((T.size, 1), self.n / T.size), 1.0

    def decoder_error(self, survivors: Survivors) -> float:
        """``||u^T A_K - 1||^2`` of this code's decoder on ``survivors``."""
        T = validate_survivors(survivors, self.n, 1)
        if self.decoder == "optimal":
            return recovery_error(self.A[T])
        e = (self.n / T.size) * self.A[T].sum(axis=0) - 1.0
        return float(e @ e)

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Fixed decoder: one scaled sum of the survivors (``|K| d``); optimal: dense model."""
        if self.decoder == "optimal":
            return super().decoding_cost(survivors, d)
        t = self.n if survivors is None else len(survivors)
        return DecodingCost(setup=0, apply=t * check_positive_int("d", d), method="fixed n/|K|")
