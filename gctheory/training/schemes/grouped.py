"""Grouped and lazily aggregated schemes of Zhang & Simeone 2020 (GD, GC, LAG, G-GD, LAGC)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gctheory._validate import check_array, check_real
from gctheory.training.schemes.base import Iteration, Scheme, Step, _kth

__all__ = ["Grouped", "lag_select"]


def lag_select(
    L: np.ndarray,
    stale: np.ndarray,
    w: np.ndarray,
    history: Sequence[float] | np.ndarray,
    alpha: float,
    xi: float,
) -> np.ndarray:
    """LAG-PS selection (Chen et al. 2018; Zhang & Simeone 2020, eqs. (13), (17)).

    Unit m is asked for a fresh gradient iff
    ``L_m^2 |theta_hat_m - theta^k|^2 >=``
    ``xi / (alpha^2 M^2) sum_{d=1}^D |theta^{k+1-d} - theta^{k-d}|^2``
    (``history`` holds the last D squared model changes; ``stale`` (M, dim)
    the models at which each unit last sent).

    Parameters
    ----------
    L : numpy.ndarray, shape (M,)
        Smoothness constants of the units.
    stale : numpy.ndarray, shape (M, dim)
        Models at which each unit last sent.
    w : numpy.ndarray, shape (dim,)
        The current model.
    history : sequence of float
        The last D squared model changes.
    alpha : float
        Step size.
    xi : float
        The LAG trigger constant.

    Returns
    -------
    numpy.ndarray of bool, shape (M,)
        Which units send a fresh gradient.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.training import lag_select
    >>> stale = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> lag_select(np.ones(2), stale, np.zeros(2), [0.01], alpha=0.1, xi=0.5).tolist()
    [False, True]
    """
    L = check_array(L, "L", ndim=1)
    M = L.size
    w = check_array(w, "w", ndim=1)
    stale = check_array(stale, "stale", ndim=2)
    if stale.shape != (M, w.size):
        raise ValueError(
            f"stale must have shape (len(L), len(w)) = ({M}, {w.size}), got {stale.shape}"
        )
    history = check_array(history, "history", ndim=1, min_size=0)
    alpha = check_real(alpha, "alpha", low=0.0, low_open=True)
    xi = check_real(xi, "xi", low=0.0)
    return _lag_select(L, stale, w, history, alpha, xi)


def _lag_select(
    L: np.ndarray, stale: np.ndarray, w: np.ndarray, history: Any, alpha: float, xi: float
) -> np.ndarray:
    """:func:`lag_select` on checked arguments (the training loop's own)."""
    M = len(L)
    rhs = xi / (alpha**2 * M**2) * float(np.sum(history))
    lhs = L**2 * np.sum((stale - w) ** 2, axis=1)
    return lhs >= rhs


class Grouped(Scheme):
    """GD / GC / LAG / G-GD / G-LAG / LAGC of Zhang & Simeone 2020 (Algorithms 1-2, eq. (18)).

    ``n`` workers in ``groups`` groups of ``n_g = n / groups``; the data is cut
    into n base partitions, group g owning those of its n_g worker slots.
    Storage redundancy ``r``: if ``r == n_g`` every worker of a group stores the
    whole group partition and the server needs its fastest worker (G-GD,
    G-LAG, LAG when n_g = 1); if ``r < n_g`` the group runs the cyclic-MDS
    gradient code ``code_factory(n_g, r - 1)`` and needs its fastest
    ``n_g - r + 1`` (LAGC; GC when groups = 1). ``select``: LAG rule (17) with
    constants ``xi`` and memory ``D``; else every group every iteration. A
    group's smoothness constant is the sum of its partitions' constants
    ``|X_j|_2^2 h / N + l2 / k`` (an upper bound; h the model's Hessian bound).
    Iterations where no group is selected take no time (the paper's clock
    counts computation only, Section II-A).
    """

    def __init__(
        self, n: int, groups: int, r: int, select: bool, name: str,
        xi: float = 0.1, D: int = 10, code_factory: Callable[[int, int], Any] | None = None,
    ) -> None:  # fmt: skip
        ng = n // groups
        self.ng, self.groups, self.r, self.select = ng, groups, r, select
        self.xi, self.D = xi, D
        if r < ng:
            if code_factory is None:
                raise ValueError("r < n/groups needs a gradient code inside each group")
            self.code = code_factory(ng, r - 1)  # one code, used by every group
        sup = np.zeros((n, n), bool)
        for g in range(groups):
            slots = np.arange(g * ng, (g + 1) * ng)
            sup[np.ix_(slots, slots)] = True if r == ng else self.code.support
        super().__init__(n, n, sup)
        self.name = name
        self.exact = not select
        self.need = 1 if r == ng else ng - r + 1

    def prepare(self, smooth: np.ndarray, alpha: float, comm_time: float) -> None:
        super().prepare(smooth, alpha, comm_time)
        self.Lg = np.asarray(smooth, float).reshape(self.groups, self.ng).sum(axis=1)
        self.stale_w: np.ndarray | None = None
        self.stale_g: np.ndarray | None = None
        self.history: list[float] = []
        self.prev_w: np.ndarray | None = None
        self.selected_count = np.zeros(self.groups, dtype=np.int64)

    def step(self, it: Iteration) -> Step:
        G, w = it.G, it.w
        d = G.shape[1]
        ng, groups = self.ng, self.groups
        if self.prev_w is not None:
            self.history.append(float(np.sum((w - self.prev_w) ** 2)))
            self.history = self.history[-self.D :]
        self.prev_w = w.copy()
        if self.stale_w is None or self.stale_g is None:  # the first step (set together)
            self.stale_w = np.repeat(w[None], groups, axis=0)
            self.stale_g = np.zeros((groups, d))
            sel = np.ones(groups, bool)
        elif self.select:
            sel = _lag_select(self.Lg, self.stale_w, w, self.history, self.alpha, self.xi)
        else:
            sel = np.ones(groups, bool)
        T = self.finish_times(it.X)
        wait, comm, comp, ops = 0.0, 0, 0.0, 0
        self.selected_count += sel
        for g in np.flatnonzero(sel):
            slots = slice(g * ng, (g + 1) * ng)
            Tg = T[slots]
            if self.r == ng:
                gw = float(Tg.min())
                self.stale_g[g] = G[slots].sum(axis=0)
            else:
                S, gw = _kth(Tg, self.need)
                Y = self.code.encode(G[slots])
                self.stale_g[g] = self.code.decode(S, Y[S], d, on_noise="ignore").real
                ops += int(self.code.decoding_cost(S, d).total)
            self.stale_w[g] = w
            wait = max(wait, gw)
            comm += ng + self.need
            comp += ng * self.r
        return Step(self.stale_g.sum(axis=0), wait, comm, comp, ops)
