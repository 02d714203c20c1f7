"""Uncoded schemes: wait for all, ignore stragglers (K-SGD), asynchronous SGD, LGC-SGD.

References: Xu et al. 2021 (Full-SGD, K-SGD, LGC-SGD, Algorithm 1); Wang, Liu,
Shroff 2019, Section 5 (asynchronous SGD after Reddi et al. 2015).
"""

from __future__ import annotations

import math

import numpy as np

from gctheory._validate import check_array
from gctheory.training.schemes.base import Iteration, Scheme, Step, _kth

__all__ = ["WaitAll", "IgnoreStragglers", "AsynchronousSGD", "LGC", "lgc_compensation"]


class WaitAll(Scheme):
    """Uncoded GD: wait for all n workers (Full-SGD of Xu et al. 2021, eq. (3))."""

    name = "gd"
    exact = True

    def __init__(self, n: int) -> None:
        super().__init__(n, n, np.eye(n, dtype=bool))

    def step(self, it: Iteration) -> Step:
        T = self.finish_times(it.X)
        return Step(it.G.sum(axis=0), float(T.max()), 2 * self.n, self.n)


class IgnoreStragglers(Scheme):
    """K-SGD / forget-s: average the fastest K of n uncoded workers (Xu et al. 2021, Alg. 1).

    Estimate ``(n/K) sum_{i in S_t} g_i`` (in sum-type partials; the worker
    average ``(1/K) sum g^(i)`` of the paper with ``g^(i) = n g_i``).
    """

    name = "ignore"

    def __init__(self, n: int, K: int) -> None:
        super().__init__(n, n, np.eye(n, dtype=bool))
        self.K = K

    def step(self, it: Iteration) -> Step:
        T = self.finish_times(it.X)
        S, wait = _kth(T, self.K)
        return Step(it.G[S].sum(axis=0) * (self.n / self.K), wait, self.n + self.K, self.n)


class AsynchronousSGD(Scheme):
    """AsySG: the server updates after every ``K`` results, whatever models they came from.

    Asynchronous SGD as compared in Wang, Liu, Shroff 2019, Section 5 (after Reddi
    et al. 2015): the server does not wait for the stragglers and "updates the
    parameter every fixed number of iterations". Each worker computes the
    gradient of its own partition at the model it last received and returns it
    when done, ``T_i = l_i X_i + comm`` after it started (``X_i`` drawn when it
    starts); the server updates as soon as ``K`` results have arrived since its
    last update, with ``(n/K) sum`` of those gradients (possibly stale: computed
    at older models), and sends the new model to the ``K`` workers that
    delivered, which start again. The others keep computing on their old models.
    With ``K = n`` every worker delivers every time and this is wait-for-all GD.
    """

    name = "asysg"

    def __init__(self, n: int, K: int) -> None:
        super().__init__(n, n, np.eye(n, dtype=bool))
        self.K = K
        self._reset()

    def _reset(self) -> None:
        self.busy_until: np.ndarray | None = None  # when each worker's current result arrives
        self.pending: np.ndarray | None = None  # the gradient it is computing (at its model)
        self.restart = np.zeros(0, dtype=np.int64)  # workers that delivered last update
        self.now = 0.0

    def prepare(self, smooth: np.ndarray, alpha: float, comm_time: float) -> None:
        super().prepare(smooth, alpha, comm_time)
        self._reset()

    def step(self, it: Iteration) -> Step:
        T = self.finish_times(it.X)
        if self.busy_until is None:  # every worker starts at the initial model
            self.busy_until = T.copy()
            self.pending = it.G.copy()
        else:
            assert self.pending is not None
            idle = self.restart
            self.busy_until[idle] = self.now + T[idle]
            self.pending[idle] = it.G[idle]
        assert self.pending is not None
        order = np.argsort(self.busy_until, kind="stable")
        S = order[: self.K]
        t_next = float(self.busy_until[order[self.K - 1]])
        wait, self.now, self.restart = t_next - self.now, t_next, S
        grad = self.pending[S].sum(axis=0) * (self.n / self.K)
        return Step(grad, wait, 2 * self.K, float(self.K))


def lgc_compensation(worker_grads: np.ndarray, fastest: np.ndarray) -> np.ndarray:
    """LGC compensation (Xu et al. 2021, Algorithm 1, line 20).

    ``e = (1/N) sum_{i not in S} g^(i) - ((N-K)/N) g'``.

    Parameters
    ----------
    worker_grads : array (N, d)
        The workers' gradients ``g^(i)`` (for stragglers, the delayed and
        possibly partial ones of eq. (6)).
    fastest : array of int
        The K fastest workers ``S``; ``g' = (1/K) sum_{i in S} g^(i)``.

    Returns
    -------
    numpy.ndarray, shape (d,)
        The compensation ``e``.

    Notes
    -----
    With complete straggler gradients this equals the bias of eq. (7),
    ``(1/N) sum_i g^(i) - (1/K) sum_{i in S} g^(i)``.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.training import lgc_compensation
    >>> g = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 2.0]])
    >>> lgc_compensation(g, np.array([0, 1])).round(4).tolist()
    [0.5, 0.5]
    """
    g = check_array(worker_grads, "worker_grads", ndim=2)
    N = g.shape[0]
    f = check_array(fastest, "fastest", ndim=1, min_size=0)
    if np.any(f != np.round(f)) or (f.size and (f.min() < 0 or f.max() >= N)):
        raise ValueError(f"fastest must hold worker indices in [0, N) with N={N}")
    if f.size != np.unique(f).size:
        raise ValueError("fastest must hold distinct workers")
    return _lgc_compensation(g, f.astype(np.int64))


def _lgc_compensation(g: np.ndarray, fastest: np.ndarray) -> np.ndarray:
    """:func:`lgc_compensation` on checked arguments (the training loop's own)."""
    N = g.shape[0]
    mask = np.zeros(N, bool)
    mask[fastest] = True
    K = int(mask.sum())
    if K == 0 or K > N:
        raise ValueError(f"fastest must hold between 1 and N={N} distinct workers, got {K}")
    g_prime = g[mask].mean(axis=0)
    return g[~mask].sum(axis=0) / N - (N - K) / N * g_prime


class LGC(Scheme):
    """LGC-SGD (Xu et al. 2021, Algorithm 1): fastest K now, stragglers' delayed gradients next.

    Parameters: ``K`` threshold; ``blocks`` = s of Algorithm 1; ``partial_work``:
    stragglers process blocks only until the update arrives (at the K-th
    finishing time), r = floor(s T_(K) / T_i) of s blocks, else (the paper's
    default simulation, Section V-B) they complete all s; ``linear_scaling``:
    eq. (6) (scale by r/s) versus the plain average over the r blocks.
    ``warmup``: iterations run as Full-SGD first (the paper uses 2 epochs).
    """

    name = "lgc"

    def __init__(
        self, n: int, K: int, blocks: int = 4, partial_work: bool = False,
        linear_scaling: bool = True, warmup: int = 0,
    ) -> None:  # fmt: skip
        super().__init__(n, n, np.eye(n, dtype=bool))
        self.K, self.blocks, self.partial = K, blocks, partial_work
        self.scaling, self.warmup = linear_scaling, warmup
        self.pending: tuple[np.ndarray, np.ndarray] | None = None

    def step(self, it: Iteration) -> Step:
        n, K = self.n, self.K
        T = self.finish_times(it.X)
        if it.t < self.warmup or K == n:
            self.pending = None
            return Step(it.G.sum(axis=0), float(T.max()), 2 * n, n)
        S, wait = _kth(T, K)
        u = n * it.G  # worker-average gradients g^(i) of Xu et al. eq. (2)
        g_prime = u[S].mean(axis=0)
        est = g_prime.copy()
        if self.pending is not None:
            est += _lgc_compensation(*self.pending)
        comp = float(K)
        delayed = u.copy()
        strag = np.setdiff1d(np.arange(n), S)
        for i in strag:
            if not self.partial:
                comp += 1
                continue
            r = min(self.blocks, int(math.floor(self.blocks * wait / T[i]))) if T[i] > 0 else 0
            comp += r / self.blocks
            part = n * it.block_grad(i, r, self.blocks)
            delayed[i] = part if self.scaling or r == 0 else part * (self.blocks / r)
        self.pending = (delayed, S)
        return Step(est, wait, 2 * n, comp)
