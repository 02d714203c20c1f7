"""What a scheme sees and returns in one iteration, and the base class of every scheme.

:class:`Iteration` is one iteration's inputs (partial gradients, per-unit-load
times, the model); :class:`Step` what the server did (estimate, wait, the
communication and computation loads of Zhang & Simeone 2020, eqs. (7)-(8)).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Step", "Iteration", "Scheme"]


@dataclass
class Step:
    """What the server did in one iteration."""

    grad: np.ndarray
    wait: float
    comm: float
    comp: float
    decode_ops: int = 0


@dataclass
class Iteration:
    """Inputs of one iteration, as a scheme sees them.

    ``G`` (k, d): partial gradients of the k data partitions at the current
    model, summing to the full gradient. ``X`` (n,): the workers' per-unit-load
    times this iteration (from the delay model). ``w``: the model. ``t``: the
    iteration index. ``block_grad(j, r, s)``: sum of the first r of s blocks of
    partition j's gradient (Xu et al. 2021, Algorithm 1, line 8).
    """

    G: np.ndarray
    X: np.ndarray
    w: np.ndarray
    t: int
    block_grad: Callable[[int, int, int], np.ndarray]


class Scheme:
    """Base class: ``n`` workers, ``k`` data partitions, placement ``support`` (n, k)."""

    name = "scheme"
    exact = False

    def __init__(self, n: int, k: int, support: np.ndarray, msg_frac: float = 1.0) -> None:
        self.n, self.k = n, k
        self.support = np.asarray(support, bool)
        # relative load: fraction of the data held, times n (1 for one n-th of it)
        self.loads = self.support.sum(axis=1) * (n / k)
        self.msg_frac = np.full(n, float(msg_frac))
        self.smooth, self.alpha, self.comm_time = np.ones(k), 1.0, 0.0

    def prepare(self, smooth: np.ndarray, alpha: float, comm_time: float) -> None:
        """Called once per run with partition smoothness constants and the step size."""
        self.smooth, self.alpha, self.comm_time = smooth, alpha, comm_time

    def finish_times(self, X: np.ndarray) -> np.ndarray:
        """``T_i = l_i X_i + comm_time f_i`` (see :class:`DelayModel`)."""
        return self.loads * X + self.comm_time * self.msg_frac

    def step(self, it: Iteration) -> Step:  # pragma: no cover - abstract
        raise NotImplementedError


def _kth(T: np.ndarray, K: int) -> tuple[np.ndarray, float]:
    """The K fastest workers (ties broken by index) and the K-th order statistic."""
    order = np.argsort(T, kind="stable")
    S = order[:K]
    return S, float(T[order[K - 1]])
