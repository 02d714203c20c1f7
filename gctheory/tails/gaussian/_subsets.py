"""Theorem 2's union over column subsets: ``max_T cond(G_T) > kappa`` and its
mixture importance sampler."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._threads import blas_single_thread
from gctheory._validate import check_int, check_real
from gctheory.conditioning import condition_numbers
from gctheory.conditioning._common import _most_subsets
from gctheory.montecarlo import Estimate, importance_sampling
from gctheory.tails.gaussian._conditional import _inverse_probability_sum, _redraw_row

__all__ = ["SubsetConditionTail", "SubsetMaxExceeds", "subset_failure_is"]


# ---------------------------------------------------------------------------
# Theorem 2's union over column subsets


def _combinations(N: int, t: int) -> np.ndarray:
    return np.array(list(itertools.combinations(range(N), t)), dtype=np.intp)


@dataclass(frozen=True)
class SubsetMaxExceeds:
    """Event ``max_{|T| = t} cond(G_T) > kappa`` for K x N matrices ``G``.

    Reads the maximum the proposal computed when given its samples (a pair
    ``(G, max_cond)``); computes it over every subset for plain matrices.

    Parameters
    ----------
    N, K : int
        Generator shape ``K x N``.
    t : int
        Survivors.
    kappa : float
        Threshold.

    Examples
    --------
    >>> from gctheory.tails import SubsetMaxExceeds
    >>> import numpy as np
    >>> event = SubsetMaxExceeds(N=4, K=2, t=3, kappa=1e3)
    >>> G = np.random.default_rng(0).standard_normal((5, 2, 4))
    >>> event(G).tolist()
    [False, False, False, False, False]
    """

    N: int
    K: int
    t: int
    kappa: float

    def __call__(self, x: Any) -> np.ndarray:
        if isinstance(x, tuple):
            return x[1] > self.kappa
        return _subset_conds(np.asarray(x), _combinations(self.N, self.t)).max(axis=1) > self.kappa


_BLOCK_ENTRIES = 1 << 22  # floats of submatrices conditioned at once (~32 MB)


def _subset_conds(G: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """cond(G_T) for every sample and subset: (n, S), in blocks of samples."""
    n, K, _ = G.shape
    S, t = subsets.shape
    out = np.empty((n, S))
    block = max(1, _BLOCK_ENTRIES // (S * K * t))
    for start in range(0, n, block):
        sub = G[start : start + block][:, :, subsets]  # (b, K, S, t)
        out[start : start + block] = condition_numbers(np.moveaxis(sub, 2, 1))
    return out


@dataclass(frozen=True)
class SubsetConditionTail:
    """Proposal for Theorem 2's event ``max_{|T|=t} cond(G_T) > kappa``, G K x N Gaussian.

    A mixture over the subsets ``T`` and the rows ``j``: for a uniformly chosen
    pair, ``G_T``'s row ``j`` is put last and its Bartlett diagonal entry drawn
    from its law given ``cond(G_T) > kappa`` (the rest of ``G`` from its
    law). The weight is ``1 / mean_{T, j} [1{A_T} / P(A_T | rest_{T,j})]``
    (exact); the proposal lives on the union, so its weights average to
    ``P(union)``, not 1 (the union estimator of Owen, Maximov and Chertkov).
    Samples are pairs ``(G, max_cond)``; use :class:`SubsetMaxExceeds` as the
    event. Every one of the ``binom(N, t)`` subsets is conditioned per sample,
    so ``binom(N, t) <= max_subsets`` is required.

    Parameters
    ----------
    N, K : int
        Generator shape ``K x N``.
    t : int
        Survivors.
    kappa : float
        Threshold.
    max_subsets : int
        Refuse above this many subsets.

    Examples
    --------
    >>> from gctheory.tails import SubsetConditionTail
    >>> import numpy as np
    >>> prop = SubsetConditionTail(N=5, K=2, t=3, kappa=100.0)
    >>> (G, worst), logw = prop.sample(np.random.default_rng(0), 3)
    >>> G.shape, bool((worst > 100.0).all())
    ((3, 2, 5), True)
    """

    N: int
    K: int
    t: int
    kappa: float
    max_subsets: int = 20_000

    def __post_init__(self) -> None:
        N = check_int(self.N, "N", low=2)
        K = check_int(self.K, "K", low=2, high=N)
        t = check_int(self.t, "t", low=K, high=N)
        object.__setattr__(self, "N", N)
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "kappa", check_real(self.kappa, "kappa", low=1.0, low_open=True))
        _most_subsets(N, range(t, t + 1), self.max_subsets, " (each conditioned per sample)")

    full_support = False

    def sample(self, rng: np.random.Generator, size: int) -> tuple[tuple, np.ndarray]:
        K, t, kappa = self.K, self.t, self.kappa
        subsets = _combinations(self.N, t)
        S = len(subsets)
        G = rng.standard_normal((size, K, self.N))
        chosen = subsets[rng.integers(0, S, size=size)][:, None, :]  # (size, 1, t)
        GT = _redraw_row(
            rng, np.take_along_axis(G, chosen, axis=2), rng.integers(0, K, size), kappa
        )
        np.put_along_axis(G, chosen, GT, axis=2)
        conds = _subset_conds(G, subsets)
        hit_i, hit_s = np.nonzero(conds > kappa)
        total = np.zeros(size)
        if hit_i.size:
            sub = np.take_along_axis(G[hit_i], subsets[hit_s][:, None, :], axis=2)
            np.add.at(total, hit_i, _inverse_probability_sum(sub, kappa))
        with np.errstate(divide="ignore"):
            logw = np.where(total > 0, math.log(S * K) - np.log(total), -np.inf)
        return (G, conds.max(axis=1)), logw


def subset_failure_is(
    N: int, K: int, t: int, kappa: float, trials: int, *, rng: Any = None, **engine: Any
) -> Estimate:
    """``P(max_{|T| = t} cond(G_T) > kappa)`` for a ``K x N`` standard Gaussian ``G``.

    Theorem 2 of Kadhe et al. 2019 bounds it by ``f(t)`` of eq. (7) (the union
    bound over the ``binom(N, t)`` subsets of Lemma 1); this is its rare-event
    estimate (the twin of :func:`gctheory.conditioning.subset_failure_mc`).

    Parameters
    ----------
    N, K : int
        Generator shape ``K x N``.
    t : int
        Survivors.
    kappa : float
        Threshold.
    trials : int
        Importance samples.
    rng : None, int or numpy.random.Generator
        Seed.
    **engine
        ``level``, ``chunk_size``, ``executor``, ``progress``, ``checkpoint``, ``stop`` of
        :func:`gctheory.montecarlo.importance_sampling`.

    Returns
    -------
    Estimate
        ``P(max_{|T|=t} cond(G_T) > kappa)``.

    Examples
    --------
    >>> from gctheory.tails import subset_failure_is
    >>> from gctheory.conditioning import straggler_union_bound
    >>> est = subset_failure_is(6, 2, 4, 1e3, 2000, rng=0)
    >>> est.high <= straggler_union_bound(6, 2, 4, 1e3), f"{est.value:.3g}"
    (True, '1.16e-07')
    """
    proposal = SubsetConditionTail(N, K, t, kappa)
    event = SubsetMaxExceeds(proposal.N, proposal.K, proposal.t, proposal.kappa)
    with blas_single_thread():  # stacks of small matrices: extra threads only contend
        return importance_sampling(event, proposal, trials, rng=rng, **engine)
