"""Monte Carlo twins of the stability bounds (through :mod:`gctheory.montecarlo`).

- :func:`condition_tail_mc`: ``P(cond(M) > kappa)`` for a Gaussian M, the twin of
  Lemma 1 of Kadhe et al. 2019 (Chen and Dongarra 2005, Thm. 4.5);
- :func:`subset_failure_mc`: the failure event of Theorem 2 (eq. (11));
- :func:`empirical_s_kappa_mc`, :func:`s_kappa_shortfall_mc`: the empirical
  s_kappa of sampled Gaussian generators against Theorem 2's guarantee.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from gctheory._validate import check_memory
from gctheory.conditioning._common import (
    _MC_BLOCK_ENTRIES,
    C_CHEN_DONGARRA,
    _check_NK,
    _int,
    _kappa,
    _most_subsets,
)
from gctheory.conditioning.numbers import condition_numbers
from gctheory.conditioning.skappa import s_kappa_bound
from gctheory.conditioning.worst_case import _combinations_array
from gctheory.montecarlo import Estimate, estimate_mean, estimate_probability

__all__ = [
    "condition_tail_mc",
    "subset_failure_mc",
    "empirical_s_kappa_mc",
    "s_kappa_shortfall_mc",
]

# ---------------------------------------------------------------------------
# Monte Carlo twin of the tail bound


def _cond_exceeds(u: int, v: int, kappa: float, rng: np.random.Generator, size: int) -> np.ndarray:
    """Engine event: cond(M) > kappa for ``size`` fresh u x v standard Gaussian matrices."""
    block = max(1, _MC_BLOCK_ENTRIES // (u * v))
    out = np.empty(size, dtype=bool)
    for start in range(0, size, block):
        n = min(block, size - start)
        out[start : start + n] = condition_numbers(rng.standard_normal((n, u, v))) > kappa
    return out


def condition_tail_mc(
    u: int,
    v: int,
    kappa: float,
    trials: int,
    *,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
) -> Estimate:
    """Monte Carlo estimate of ``P(cond(M) > kappa)`` for a u x v standard Gaussian M.

    The twin of :func:`gaussian_condition_bound` (Kadhe et al. 2019, Lemma 1).
    Matrices are drawn and conditioned in batches (:func:`condition_numbers`)
    inside :func:`gctheory.montecarlo.estimate_probability`, so the result is
    seeded, has a Wilson interval at ``level``, and is bit-identical serially
    or on any executor.

    Parameters
    ----------
    u, v : int
        Shape of the Gaussian matrix.
    kappa : float
        Condition-number threshold.
    trials : int
        Number of matrices drawn.
    rng : None, int or numpy.random.Generator
        Seed.
    executor : int or concurrent.futures.Executor, optional
        Parallel chunks; the result does not depend on it.
    level : float
        Confidence level of the Wilson interval.
    chunk_size : int, optional
        Matrices per chunk.

    Returns
    -------
    Estimate
        ``P(cond(M) > kappa)`` with its interval.

    Examples
    --------
    >>> from gctheory.conditioning import condition_tail_mc, gaussian_condition_bound
    >>> est = condition_tail_mc(4, 6, 20.0, 2000, rng=0)
    >>> print(est)
    0.009 [0.004481, 0.01599]
    >>> est.high <= gaussian_condition_bound(4, 6, 20.0)  # Lemma 1 holds here
    True
    """
    u = _int("u", u, 1)
    v = _int("v", v, 1)
    # one matrix at least, its copy and the SVD's workspace
    check_memory(24 * u * v, "u", f"a {u} x {v} matrix and its SVD")
    kappa = _kappa(kappa)
    trials = _int("trials", trials, 1)
    event = partial(_cond_exceeds, u, v, kappa)
    return estimate_probability(
        event, trials, rng=rng, executor=executor, level=level, chunk_size=chunk_size
    )


def _check_generator_memory(N: int, K: int) -> None:
    """One sampled K x N generator and its subsets' matrices, at least."""
    check_memory(32 * N * K, "N", f"a {K} x {N} Gaussian generator and its submatrices")


def _subset_max_exceeds(
    N: int, K: int, t: int, kappa: float, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Engine event: max over all t-column subsets of cond(G_T) > kappa, G a K x N Gaussian."""
    subsets = _combinations_array(N, t)
    per_gen = len(subsets) * K * t
    block = max(1, _MC_BLOCK_ENTRIES // per_gen)
    out = np.empty(size, dtype=bool)
    for start in range(0, size, block):
        n = min(block, size - start)
        Gt = rng.standard_normal((n, N, K))  # transposed generators: rows are columns of G
        sub = np.swapaxes(Gt[:, subsets], -1, -2)  # (n, n_subsets, K, t)
        out[start : start + n] = (condition_numbers(sub) > kappa).any(axis=1)
    return out


def subset_failure_mc(
    N: int,
    K: int,
    t: int,
    kappa: float,
    trials: int,
    *,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    max_subsets: int = 20_000,
) -> Estimate:
    """Monte Carlo ``P(max_{|T| = t} cond(G_T) > kappa)`` for a K x N standard Gaussian G.

    The twin of :func:`straggler_union_bound` (Kadhe et al. 2019, eq. (11)):
    Theorem 2 says this is ``<= f(t) <= eps`` at ``t = t*``. Every one of the
    ``binom(N, t)`` subsets of every sampled generator is evaluated (batched),
    so ``binom(N, t) <= max_subsets`` is required.

    Parameters
    ----------
    N, K : int
        The ``[N, K]`` code: ``K x N`` generator, ``2 <= K <= N``.
    t : int
        Survivors, ``K <= t <= N``.
    kappa : float
        Condition-number threshold.
    trials : int
        Number of generators drawn.
    rng : None, int or numpy.random.Generator
        Seed.
    executor : int or concurrent.futures.Executor, optional
        Parallel chunks; the result does not depend on it.
    level : float
        Confidence level of the Wilson interval.
    max_subsets : int
        Refuse when ``binom(N, t)`` exceeds it.

    Returns
    -------
    Estimate
        ``P(max_{|T| = t} cond(G_T) > kappa)``.

    Examples
    --------
    >>> from gctheory.conditioning import subset_failure_mc
    >>> print(subset_failure_mc(6, 3, 5, 50.0, 200, rng=0))
    0 [0, 0.02614]
    """
    N, K = _check_NK(N, K)
    t = _int("t", t)
    if not K <= t <= N:
        raise ValueError(f"t must lie in [K, N] = [{K}, {N}], got t={t}")
    _most_subsets(N, range(t, t + 1), max_subsets, " per sample")
    _check_generator_memory(N, K)
    event = partial(_subset_max_exceeds, N, K, t, _kappa(kappa))
    return estimate_probability(
        event, _int("trials", trials, 1), rng=rng, executor=executor, level=level
    )


def _empirical_s_kappa_sampler(
    N: int, K: int, kappa: float, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Engine sampler: empirical s_kappa (all subsets, -1 if cond(G) > kappa) of Gaussian G's."""
    Gt = rng.standard_normal((size, N, K))
    value = np.full(size, -1.0)
    alive = np.ones(size, dtype=bool)
    for s in range(0, N - K + 1):
        idx = np.flatnonzero(alive)
        if idx.size == 0:
            break
        subsets = _combinations_array(N, N - s)
        block = max(1, _MC_BLOCK_ENTRIES // (len(subsets) * K * (N - s)))
        ok = np.empty(idx.size, dtype=bool)
        for start in range(0, idx.size, block):
            g = Gt[idx[start : start + block]]
            sub = np.swapaxes(g[:, subsets], -1, -2)
            ok[start : start + len(g)] = (condition_numbers(sub) <= kappa).all(axis=1)
        value[idx[ok]] = s
        alive[idx[~ok]] = False
    return value


def empirical_s_kappa_mc(
    N: int,
    K: int,
    kappa: float,
    trials: int,
    *,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    max_subsets: int = 20_000,
) -> Estimate:
    """Monte Carlo mean of the empirical s_kappa of a K x N standard Gaussian generator.

    Each sample is :func:`empirical_s_kappa` of a fresh generator (exact,
    batched over generators and subsets; -1 when even ``cond(G) > kappa``).
    Compare with Theorem 2's guarantee :func:`s_kappa_bound` to see how
    conservative it is. Requires ``binom(N, t) <= max_subsets`` for every t.

    Parameters
    ----------
    N, K : int
        The ``[N, K]`` code: ``K x N`` generator, ``2 <= K <= N``.
    kappa : float
        Condition-number threshold.
    trials : int
        Number of generators drawn.
    rng : None, int or numpy.random.Generator
        Seed.
    executor : int or concurrent.futures.Executor, optional
        Parallel chunks; the result does not depend on it.
    level : float
        Confidence level of the Wilson interval.
    max_subsets : int
        Refuse when some ``binom(N, t)`` exceeds it.

    Returns
    -------
    Estimate
        The mean empirical ``s_kappa`` with its CLT interval.

    Examples
    --------
    >>> from gctheory.conditioning import empirical_s_kappa_mc
    >>> print(empirical_s_kappa_mc(6, 3, 50.0, 100, rng=0))
    2.28 [2.135, 2.425]
    """
    N, K = _check_NK(N, K)
    _most_subsets(N, range(K, N + 1), max_subsets, " per generator")
    _check_generator_memory(N, K)
    sampler = partial(_empirical_s_kappa_sampler, N, K, _kappa(kappa))
    return estimate_mean(
        sampler, _int("trials", trials, 1), rng=rng, executor=executor, level=level
    )


def _shortfall_event(
    N: int, K: int, kappa: float, target: int, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Engine event: the empirical s_kappa of a fresh Gaussian generator is below ``target``."""
    return _empirical_s_kappa_sampler(N, K, kappa, rng, size) < target


def s_kappa_shortfall_mc(
    N: int,
    K: int,
    kappa: float,
    eps: float,
    trials: int,
    *,
    target: int | None = None,
    C: float = C_CHEN_DONGARRA,
    prefactor: str = "eq7",
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    max_subsets: int = 20_000,
) -> Estimate:
    """Monte Carlo ``P(empirical s_kappa < Theorem 2's s_kappa)`` for K x N Gaussian generators.

    Theorem 2 (Kadhe et al. 2019) promises this is at most ``eps`` (with the
    empirical s_kappa read as "every s' <= s tolerated", the event also covers
    ``t > t*``, so the union bound gives ``sum_{t >= t*} f(t)``, about ``f(t*)``
    when f decreases fast). ``target`` replaces the bound (e.g. for a negative control).

    Parameters
    ----------
    N, K : int
        The ``[N, K]`` code: ``K x N`` generator, ``2 <= K <= N``.
    kappa : float
        Condition-number threshold.
    eps : float
        Failure probability of Theorem 2.
    trials : int
        Number of generators drawn.
    target : int, optional
        Threshold to test instead of Theorem 2's (negative controls).
    C, prefactor
        See :func:`gctheory.conditioning.straggler_union_bound`.
    rng : None, int or numpy.random.Generator
        Seed.
    executor : int or concurrent.futures.Executor, optional
        Parallel chunks; the result does not depend on it.
    level : float
        Confidence level of the Wilson interval.
    max_subsets : int
        Refuse when some ``binom(N, t)`` exceeds it.

    Returns
    -------
    Estimate
        ``P(empirical s_kappa < target)``.

    Examples
    --------
    >>> from gctheory.conditioning import s_kappa_shortfall_mc
    >>> print(s_kappa_shortfall_mc(8, 4, 200.0, 0.5, 100, target=2, rng=0))
    0 [0, 0.0516]
    """
    N, K = _check_NK(N, K)
    kappa = _kappa(kappa)
    _most_subsets(N, range(K, N + 1), max_subsets, " per generator")
    _check_generator_memory(N, K)
    bound = s_kappa_bound(N, K, kappa, eps, C, prefactor).s_kappa
    target = bound if target is None else _int("target", target)
    event = partial(_shortfall_event, N, K, kappa, target)
    trials = _int("trials", trials, 1)
    return estimate_probability(event, trials, rng=rng, executor=executor, level=level)
