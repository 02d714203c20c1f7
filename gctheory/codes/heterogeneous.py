"""Gradient codes for heterogeneous workers: loads proportional to measured speed.

A cluster whose workers differ wastes the fast ones when every worker gets the same
``(s + 1) k / n`` partitions. The **measure-then-split** allocation
(:func:`measured_split`; the baseline of the public
``OrDG/Distributed_Coded_Computing_in_Heterogeneous_Systems`` idea, "measure each
worker, then split the tasks", and of the heterogeneity-aware scheme announced in the
abstract of Wang, Guo, Tang, Li & Li, ICDCS 2019) gives worker ``i``

    d_i  proportional to  1 / (mean_i + risk * sd_i),     sum_i d_i = (s + 1) k,  d_i <= k,

rounded by largest remainders, so that a worker's expected finishing time
``d_i mean_i`` is (nearly) the same for everyone (``risk > 0`` also penalises erratic
workers). :func:`stripe_support` places the partitions: the sequence
``0, 1, ..., k-1, 0, 1, ...`` (``s + 1`` passes) is cut into consecutive chunks of
lengths ``d_i``; a chunk of at most ``k`` consecutive entries never repeats a
partition, so each partition lands on ``s + 1`` distinct workers.

:class:`HeterogeneousGradientCode` then encodes on that support and tolerates any
``s`` stragglers exactly: with a random ``H`` (``s x n``, Gaussian), column ``b_j`` of
``B`` is the null vector of ``H`` restricted to the ``s + 1`` holders of partition
``j``, scaled to ``1^T b_j = 1``. For survivors ``F`` (``|F| = n - s``) the decoding
vector ``a = 1 - H^T c`` with ``H_{F^c}^T c = 1_{F^c}`` is supported on ``F`` and
``a^T B = 1^T B - c^T H B = 1^T`` (the argument of Tandon et al. 2017, Algorithm 2,
for any support with ``s + 1`` holders per partition; it needs every ``s x s`` minor
of ``H`` invertible, true with probability one). :meth:`verify` checks it
exhaustively.

What is **not** here: the exact constructions and optimal allocations of Wang et al.
(ICDCS 2019) and Jahani-Nezhad & Maddah-Ali (IEEE JSAIT 2021, "Optimal
communication-computation trade-off in heterogeneous gradient coding"): only their
abstracts were retrievable (``docs/hetero.md``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_int, check_real
from gctheory.codes.tandon import MatrixGradientCode

__all__ = [
    "measured_split",
    "stripe_support",
    "HeterogeneousGradientCode",
]


def measured_split(means: Any, k: int, s: int, *, sds: Any = None, risk: float = 0.0) -> np.ndarray:
    """Partitions per worker, proportional to measured speed (module docstring).

    ``means[i]`` is worker ``i``'s measured time per partition (or any quantity
    proportional to it), ``sds`` the standard deviations; ``k`` partitions, each on
    ``s + 1`` workers. Returns integer loads ``d`` with ``sum d = (s + 1) k`` and
    ``1 <= d_i <= k``.

    Parameters
    ----------
    means : array_like, shape (n,)
        Measured time per partition of each worker.
    k : int
        Partitions.
    s : int
        Stragglers tolerated (each partition on ``s + 1`` workers).
    sds : array_like, optional
        Standard deviations of the measured times.
    risk : float
        Weight of the standard deviations against the means (0: means only).

    Returns
    -------
    numpy.ndarray of int, shape (n,)
        Loads with ``sum = (s + 1) k`` and ``1 <= d_i <= k``.

    Examples
    --------
    >>> from gctheory.codes import measured_split
    >>> measured_split([1.0, 1.0, 2.0, 2.0], k=6, s=1).tolist()  # faster workers take more
    [4, 4, 2, 2]
    """
    mu = check_array(means, "means", ndim=1)
    n = mu.size
    if np.any(mu <= 0) or not np.all(np.isfinite(mu)):
        raise ValueError("means must be positive and finite (a worker's time per partition)")
    k = check_int(k, "k", low=1)
    s = check_int(s, "s", low=0, high=n - 1)
    risk = check_real(risk, "risk", low=0.0)
    if sds is not None:
        sd = check_array(sds, "sds", ndim=1)
        if sd.size != n:
            raise ValueError(f"sds must have one entry per worker ({n}), got {sd.size}")
        if np.any(sd < 0):
            raise ValueError("sds must be >= 0")
    else:
        sd = np.zeros(n)
    total = (s + 1) * k
    if total < n:
        raise ValueError(
            f"k: (s + 1) k = {total} partition copies for n = {n} workers; every worker needs "
            f"at least one, so k must be >= {math.ceil(n / (s + 1))}"
        )
    speed = 1.0 / (mu + risk * sd)
    # water-fill with the cap d_i <= k and floor d_i >= 1
    share = np.full(n, np.nan)
    capped = np.zeros(n, dtype=bool)
    for _ in range(n + 1):
        free = ~capped
        rest = total - k * capped.sum()
        share[free] = rest * speed[free] / speed[free].sum()
        share[capped] = k
        over = free & (share > k)
        if not over.any():
            break
        capped |= over
    share = np.maximum(share, 1.0)
    d = np.floor(share).astype(int)
    d = np.clip(d, 1, k)
    # largest remainders, within the caps, until the copies add up
    rem = share - d
    while d.sum() < total:
        cand = np.flatnonzero(d < k)
        i = cand[np.argmax(rem[cand])]
        d[i] += 1
        rem[i] = -np.inf
    while d.sum() > total:
        cand = np.flatnonzero(d > 1)
        i = cand[np.argmin(rem[cand])]
        d[i] -= 1
        rem[i] = np.inf
    return d


def stripe_support(loads: Any, k: int) -> np.ndarray:
    """The n x k 0/1 support: consecutive chunks of the repeated sequence 0..k-1.

    Parameters
    ----------
    loads : sequence of int
        Partitions per worker.
    k : int
        Partitions.

    Returns
    -------
    numpy.ndarray of bool, shape (n, k)
        The support.

    Examples
    --------
    >>> from gctheory.codes import stripe_support
    >>> stripe_support([2, 2, 1, 1], 3).astype(int)
    array([[1, 1, 0],
           [1, 0, 1],
           [0, 1, 0],
           [0, 0, 1]])
    """
    d = np.asarray(loads)
    k = check_int(k, "k", low=1)
    if d.ndim != 1 or np.any(d < 1) or np.any(d > k) or np.any(d != np.round(d)):
        raise ValueError(f"loads must be integers in [1, k={k}] (one per worker), got {loads!r}")
    d = d.astype(int)
    if d.sum() % k:
        raise ValueError(
            f"loads must add up to a multiple of k = {k} (s + 1 copies), got {d.sum()}"
        )
    S = np.zeros((d.size, k), dtype=bool)
    pos = 0
    for i, di in enumerate(d):
        S[i, (pos + np.arange(di)) % k] = True
        pos += di
    return S


class HeterogeneousGradientCode(MatrixGradientCode):
    """Exact gradient code on a heterogeneous support (module docstring).

    Parameters
    ----------
    loads : sequence of int
        Partitions per worker (e.g. :func:`measured_split`), ``sum = (s + 1) k``.
    k : int
        Number of data partitions.
    s : int
        Stragglers tolerated.
    rng : seed or Generator
        Randomness of ``H``.

    Examples
    --------
    >>> from gctheory.codes import HeterogeneousGradientCode
    >>> import numpy as np
    >>> code = HeterogeneousGradientCode([4, 4, 2, 2], k=6, s=1, rng=0)
    >>> code.n, code.k, code.s
    (4, 6, 1)
    >>> g = np.ones((6, 2))
    >>> code.decode([0, 1, 3], code.encode(g)[[0, 1, 3]]).round(6).tolist()
    [6.0, 6.0]
    """

    def __init__(self, loads: Any, k: int, s: int, *, rng: Any = None) -> None:
        support = stripe_support(loads, k)
        n = support.shape[0]
        s = check_int(s, "s", low=0, high=n - 1)
        holders = support.sum(axis=0)
        if np.any(holders != s + 1):
            raise ValueError(
                f"loads: every partition must be on s + 1 = {s + 1} workers; the loads give "
                f"{sorted(set(holders.tolist()))} (they must add up to (s + 1) k = {(s + 1) * k})"
            )
        g = as_generator(rng)
        H = g.standard_normal((s, n))
        B = np.zeros((n, k))
        for j in range(k):
            W = np.flatnonzero(support[:, j])
            if s == 0:
                b = np.ones(1)
            else:
                _, _, vt = np.linalg.svd(H[:, W])
                b = vt[-1]
            tot = b.sum()
            if abs(tot) < 1e-12:
                raise ValueError("rng: a degenerate random draw (1^T b_j = 0); try another seed")
            B[W, j] = b / tot
        super().__init__(B, s, name=f"heterogeneous gradient code (n={n}, k={k}, s={s})")
        self.loads = np.asarray(loads, dtype=int)
        self.H = H

    def expected_time(self, laws: Any) -> float:
        """Expected time until the fastest ``n - s`` workers have returned, worker ``i``
        taking ``loads[i] X_i`` with ``X_i ~ laws[i]`` (time per partition): the
        non-identical order statistic of :mod:`gctheory.order_stats`."""
        from gctheory.order_stats import expected_order_statistic

        laws = list(laws)
        if len(laws) != self.n:
            raise ValueError(f"laws: one law per worker (n = {self.n}), got {len(laws)}")
        scaled = [_scale(d, float(li)) for d, li in zip(laws, self.loads, strict=True)]
        return expected_order_statistic(scaled, self.n - self.s)


def _scale(dist: Any, c: float) -> Any:
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    return dist.dist(*shapes, loc=loc * c, scale=scale * c)
