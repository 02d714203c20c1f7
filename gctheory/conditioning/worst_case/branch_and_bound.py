"""Depth-first branch and bound over the deleted (straggling) workers, with certified
interlacing bounds at every node (the package docstring derives them; Horn and Johnson,
Thm. 4.3.28 and Cor. 7.3.6).
"""

from __future__ import annotations

import math

import numpy as np

from gctheory.conditioning.worst_case.budget import _Budget
from gctheory.conditioning.worst_case.certificate import _EPS
from gctheory.conditioning.worst_case.subsets import (
    _combinations_array,
    _expand,
    _worker_conditions,
)

__all__: list[str] = []

#: node-bound trust limit: K eps cond(G_S)^2 below this
_NODE_TRUST = 1e-4


class _Search:
    """Depth-first branch and bound over deleted workers (see the module docstring)."""

    def __init__(self, G: np.ndarray, t: int, block: int, budget: _Budget, incumbent: float):
        self.G, self.block, self.budget = G, block, budget
        self.Nw = G.shape[1] // block
        self.s = self.Nw - t
        self.K = G.shape[0]
        self.best = incumbent
        self.best_T: np.ndarray | None = None
        self.evaluated = self.pruned = self.nodes = 0
        self.open_bound = -math.inf  # max bound over nodes left unexplored when stopped
        self.stopped = False

    def _node(self, deleted: tuple[int, ...], i: int):
        """cond(G_S)^2, the slack factor and M = L^-1 G_C at node (deleted, i), or None when
        float64 cannot certify a bound there (``K eps cond(G_S)^2 >= _NODE_TRUST``)."""
        G, b, K = self.G, self.block, self.K
        keep = np.ones(self.Nw, dtype=bool)
        keep[list(deleted)] = False
        Gs = G[:, _expand(np.flatnonzero(keep), b)]
        W = Gs @ Gs.conj().T
        w = np.linalg.eigvalsh(W)
        if not w[0] > 0:
            return None
        cond2 = w[-1] / w[0]
        if K * _EPS * cond2 >= _NODE_TRUST:
            return None
        try:
            L = np.linalg.cholesky(W)
        except np.linalg.LinAlgError:
            return None
        cand = np.arange(i, self.Nw)
        M = np.linalg.solve(L, G[:, _expand(cand, b)])  # L triangular; LAPACK gesv is faster here
        return cond2, 1 + 1e-9 + 10 * K * _EPS * cond2, M

    def bound(self, deleted: tuple[int, ...], i: int) -> float:
        """Certified upper bound on cond over the completions of node (deleted, i)."""
        r = self.s - len(deleted)
        node = self._node(deleted, i)
        if node is None:
            return math.inf
        cond2, slack, M = node
        if r == 0:
            return math.sqrt(cond2) * slack
        b = self.block
        h = np.sum(np.abs(M) ** 2, axis=0).reshape(-1, b).sum(axis=1)
        top = float(np.sum(np.sort(h)[::-1][:r]))
        lam = float(np.linalg.eigvalsh(M @ M.conj().T)[-1])
        mu = min(top, lam) * (1 + 1e-9)
        if not mu < 1.0:
            return math.inf
        return math.sqrt(cond2 / (1 - mu)) * slack

    def last_levels(self, deleted: tuple[int, ...], i: int) -> bool:
        """A node with r <= 2 deletions left: bound every completion by its exact
        lambda_max(P_RR) (r = 1: the leverage; r = 2: the 2 x 2 closed form) and evaluate
        only those that can beat the incumbent. False (nothing evaluated) when they do not
        fit the evaluation budget."""
        r = self.s - len(deleted)
        cand = np.arange(i, self.Nw)
        sub = _combinations_array(len(cand), r)
        node = self._node(deleted, i) if r else None
        if node is not None:
            cond2, slack, M = node
            b = self.block
            Mb = M.reshape(M.shape[0], len(cand), b)
            if r == 1:
                lam = np.sum(np.abs(Mb) ** 2, axis=(0, 2))[sub[:, 0]]
            elif b == 1:
                P = M.conj().T @ M
                h = np.real(np.diag(P))
                h1, h2 = h[sub[:, 0]], h[sub[:, 1]]
                off = np.abs(P[sub[:, 0], sub[:, 1]]) ** 2
                lam = (h1 + h2) / 2 + np.sqrt(((h1 - h2) / 2) ** 2 + off)
            else:  # blocks: lambda_max of the (2b x 2b) P_RR by a batched eigvalsh
                R = np.concatenate([Mb[:, sub[:, 0], :], Mb[:, sub[:, 1], :]], axis=2)
                R = np.moveaxis(R, 1, 0)  # (n, K, 2b)
                lam = np.linalg.eigvalsh(np.conj(np.swapaxes(R, 1, 2)) @ R)[:, -1]
            lam = lam * (1 + 1e-9)
            with np.errstate(divide="ignore", invalid="ignore"):
                ub = np.where(lam < 1, np.sqrt(cond2 / (1 - lam)) * slack, np.inf)
            keep = ub > self.best
            pruned = int(np.count_nonzero(~keep))
            sub = sub[keep]
        else:
            pruned = 0
        if len(sub) and self.budget.allow(len(sub)) < len(sub):
            return False
        self.pruned += pruned
        if len(sub):
            self.leaves(deleted, cand[sub])
        return True

    def leaves(self, deleted: tuple[int, ...], extra: np.ndarray) -> None:
        """Evaluate the completions ``deleted + extra[k]`` exactly, in one batch."""
        dels = np.empty((len(extra), self.s), dtype=np.intp)
        dels[:, : len(deleted)] = deleted
        dels[:, len(deleted) :] = extra
        keep = np.ones((len(extra), self.Nw), dtype=bool)
        np.put_along_axis(keep, dels, False, axis=1)
        T = np.nonzero(keep)[1].reshape(len(extra), self.Nw - self.s)
        vals = _worker_conditions(self.G, T, self.block)
        self.evaluated += len(T)
        self.budget.spend(len(T))
        j = int(np.argmax(vals))
        if vals[j] > self.best or self.best_T is None and vals[j] >= self.best:
            self.best, self.best_T = float(vals[j]), T[j]

    def stop(self, parent_bound: float, stack: list[tuple[tuple[int, ...], int, float]]) -> None:
        """Out of budget: the node popped and every node on the stack stay unexplored."""
        self.stopped = True
        self.open_bound = max([parent_bound] + [pb for _, _, pb in stack], default=-math.inf)

    def run(self) -> None:
        """The depth-first search; a node costs one evaluation of the budget, a leaf one."""
        stack: list[tuple[tuple[int, ...], int, float]] = [((), 0, math.inf)]
        while stack:
            deleted, i, parent_bound = stack.pop()
            if self.budget.over():
                return self.stop(parent_bound, stack)
            r = self.s - len(deleted)
            n_comp = math.comb(self.Nw - i, r)
            if n_comp == 0:
                continue
            self.nodes += 1
            self.budget.spend(1)
            if r <= 2:
                if not self.last_levels(deleted, i):
                    return self.stop(parent_bound, stack)
                continue
            ub = min(self.bound(deleted, i), parent_bound)
            if ub <= self.best:
                self.pruned += n_comp
                continue
            # children: delete worker c next (c = i .. Nw - r); pushed so that c = i pops first
            for c in range(self.Nw - r, i - 1, -1):
                stack.append((deleted + (c,), c + 1, ub))
