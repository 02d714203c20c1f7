"""The worst condition number over the column subsets of a generator, certified.

``max_condition(G, t)`` bounds ``max_{|T| = t} cond(G_T)`` from both sides and
names the worst subset found: ``lower`` is the condition number of a subset
actually evaluated, ``upper`` a proven bound on every subset, equal when the
search is complete and float64 resolves the value (``rounding``, the relative
uncertainty of one float64 condition number, at most 1e-4; beyond, the
interval is the rounding interval, or unbounded above 1 / (2 delta)). This is
the quantity Theorem 2 of Kadhe et al. 2019 bounds for Gaussian generators
(eq. (10)); :func:`empirical_s_kappa` turns it into the exact straggler
threshold of a given generator.

The search
----------
*Enumeration* (``binom(N, t) <= exhaustive_limit``): every subset, with a
batched Gram-matrix bound ``cond(G_T)^2 <= tr(W) tr(W^-1)`` (``W = G_T G_T^H``)
deciding which subsets need an exact condition number.

*Branch and bound* (beyond the limit): a depth-first search over the deleted
(straggling) workers in increasing order. A node fixes the deleted set D and
the next index i: workers before i not in D are kept, ``r`` more are deleted
from the candidates ``C`` (workers >= i). With ``S`` the columns not in D,
every completion ``T = S \\ R`` (``R`` subset of ``C``, ``|R| = r``) satisfies

    cond(G_T)^2 <= cond(G_S)^2 / (1 - mu),
    mu >= lambda_max(P_RR),  P = G_S^H W_S^-1 G_S  (the projection on G's row space),

because deleting columns only shrinks the singular values (interlacing:
``sigma_max(G_T) <= sigma_max(G_S)``) and ``W_T = W_S^(1/2) (I - U_R U_R^H)
W_S^(1/2)`` with ``U_R^H U_R = P_RR``, so ``lambda_min(W_T) >= lambda_min(W_S)
(1 - lambda_max(P_RR))``. Two certified values of mu are used, the smaller
wins: ``lambda_max(P_CC)`` (Cauchy interlacing: P_RR is a principal submatrix
of P_CC) and the sum of the r largest leverages ``h_c = P_cc`` over C
(``lambda_max <= trace``). A node whose bound cannot beat the incumbent is
pruned with all its completions. At a node with r <= 2 deletions left every
completion gets its own bound from the exact ``lambda_max(P_RR)`` (the
leverage for r = 1, the 2 x 2 closed form for r = 2), computed for all of them
at once, and only those that can beat the incumbent are evaluated. The
incumbent starts from random subsets improved by a swap local search. When
the time runs out, the certified interval is
``[incumbent, max(incumbent, bounds of the unexplored nodes)]``; it is never
reported as exact.

Floating point: a node bound is trusted only while ``cond(G_S)^2`` leaves
float64 enough digits (``K eps cond(G_S)^2 < 1e-4``); it is then inflated by
that relative error. A condition number computed in float64 is accurate to a
relative ``delta = 8 max(K, t) eps`` of ``sigma_max`` on sigma_min (backward
stability of the SVD, and the rounding of G's entries), so the true value of
the worst subset found lies in ``[kappa (1 - delta) / (1 + delta kappa),
kappa (1 + delta) / (1 - delta kappa)]``: the upper bound uses that factor, and
above ``1 / (2 delta)`` nothing is certified from float64 (upper = inf;
``mp_reference``/``mp_dps`` then give the exact value of the subset found).

Blocks: ``block=b`` treats b consecutive columns as one worker (the
rotation and circulant embeddings of Ramamoorthy and Tang 2022): subsets,
stragglers and ``t`` count workers.

References
----------
.. [1] Kadhe, Koyluoglu, Ramchandran 2019, Theorem 2, eq. (10).
.. [2] R. A. Horn, C. R. Johnson, "Matrix analysis", 2nd ed., Thm. 4.3.28
   (Cauchy interlacing) and Cor. 7.3.6 (singular values under column deletion).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_choice, check_real
from gctheory.conditioning._common import (
    _MC_BLOCK_ENTRIES,
    FLOAT64_RELIABLE_LIMIT,
    Float64Warning,
    _int,
    _kappa,
)
from gctheory.conditioning.numbers import condition_number_mp, condition_numbers

__all__ = ["MaxCondition", "max_condition", "EmpiricalSKappa", "empirical_s_kappa"]

_EPS = float(np.finfo(float).eps)
#: a complete search is reported exact (lower = upper = value) when one float64 condition
#: number is accurate to this relative error (``delta kappa``; 1e-4 at FLOAT64_RELIABLE_LIMIT)
_EXACT_ROUNDING = 1e-4
#: the batched Gram bound pays off only over many subsets (its loops run over K^2)
_GRAM_PRUNE_MIN = 4096
#: node-bound trust limit: K eps cond(G_S)^2 below this
_NODE_TRUST = 1e-4
METHODS = ("auto", "exhaustive", "branch-and-bound", "estimate")


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


def _subset_conditions(G: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Condition numbers of G[:, T] for each row T of ``subsets``, in memory-bounded blocks."""
    K = G.shape[0]
    t = subsets.shape[1]
    block = max(1, _MC_BLOCK_ENTRIES // (K * t))
    out = np.empty(len(subsets))
    Gt = G.T  # (N, K): gathering rows is contiguous
    for start in range(0, len(subsets), block):
        idx = subsets[start : start + block]
        sub = np.swapaxes(Gt[idx], -1, -2)  # (b, K, t)
        out[start : start + len(idx)] = condition_numbers(sub)
    return out


def _combinations_array(N: int, t: int) -> np.ndarray:
    """All t-subsets of range(N), one per row (sorted within a row), built without a
    Python loop per subset: level j holds the j-subsets of range(n), extended n = 1..N.

    Rows in colexicographic order. For t > N / 2 the (N - t)-subsets are built and
    complemented (complementing reverses colex order): the levels cost O(N^2 t) copies,
    12 s for 2000 subsets at N = 2000, t = 1999 (issue 30, B6)."""
    if 2 * t > N:
        small = _combinations_array(N, N - t)
        mask = np.ones((len(small), N), bool)
        mask[np.arange(len(small))[:, None], small] = False
        return np.nonzero(mask)[1].reshape(len(small), t)[::-1].astype(np.intp)
    level = [np.zeros((1, 0), np.intp)] + [np.zeros((0, j), np.intp) for j in range(1, t + 1)]
    for n in range(1, N + 1):
        lowest = max(1, t - (N - n))  # smaller subsets can no longer reach size t
        for j in range(min(n, t), lowest - 1, -1):
            prev = level[j - 1]
            grown = np.empty((len(prev), j), np.intp)
            grown[:, :-1] = prev
            grown[:, -1] = n - 1
            level[j] = np.concatenate([level[j], grown])
        for j in range(0, lowest - 1):
            level[j] = np.zeros((0, j), np.intp)  # free what cannot be completed
    return level[t]


def _gram_bound_sq(G: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Upper bound tr(W) tr(W^-1) >= cond(G_T)^2, W = G_T G_T^T, for each subset (real G).

    Since lambda_max <= tr(W) and 1/lambda_min <= tr(W^-1) = ||L^-1||_F^2 (W = L L^T), and
    the bound is at most K^2 cond^2. The Gram matrices of a block of subsets come from one
    BLAS product (column outer products @ subset indicators), laid out (K, K, block) so the
    Cholesky factorisation and the forward substitution are loops over K only, vectorised
    over the block. A non-positive pivot (singular or nearly singular G_T) gives inf.
    """
    K, N = G.shape
    P = (G[:, None, :] * G[None, :, :]).reshape(K * K, N)  # (K*K, N)
    out = np.empty(len(subsets))
    block = 8192
    for start in range(0, len(subsets), block):
        idx = subsets[start : start + block]
        b = len(idx)
        S = np.zeros((N, b))
        S[idx.T, np.arange(b)] = 1.0
        W = (P @ S).reshape(K, K, b)
        L = np.zeros((K, K, b))
        ok = np.ones(b, dtype=bool)
        for j in range(K):  # Cholesky, column j
            col = W[j:, j].copy()
            for k in range(j):
                col -= L[j:, k] * L[j, k]
            piv = col[0]
            ok &= piv > 0
            r = np.sqrt(np.where(piv > 0, piv, 1.0))
            L[j, j] = r
            L[j + 1 :, j] = col[1:] / r
        X = np.zeros((K, K, b))  # L^-1, lower triangular
        inv_diag = 1.0 / np.einsum("iib->ib", L)
        for i in range(K):
            acc = X[i]
            acc[i] = 1.0
            for k in range(i):
                acc[: k + 1] -= L[i, k] * X[k, : k + 1]
            acc *= inv_diag[i]
        bound = np.einsum("iib->b", W) * np.einsum("ijb,ijb->b", X, X)
        bound[~ok | ~np.isfinite(bound)] = np.inf  # never prune what could not be bounded
        out[start : start + b] = bound
    return out


def _exhaustive_max(
    G: np.ndarray, subsets: np.ndarray, top: int, deadline: float = math.inf
) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Exact ``top`` largest condition numbers over ``subsets`` by branch and bound.

    Real G: a cheap upper bound for every subset (:func:`_gram_bound_sq`), then exact
    condition numbers in decreasing order of the bound until the bound falls below the
    ``top``-th largest exact value found (with a 1e-6 relative margin for rounding).
    Complex G, or fewer than ``_GRAM_PRUNE_MIN`` subsets: every subset exactly. Returns
    (values, subset row indices), largest first, the number evaluated exactly and a
    bound on the subsets left unevaluated when ``deadline`` passed (``-inf`` when none
    were: the enumeration is complete; ``inf`` when nothing bounds them).
    """
    if np.iscomplexobj(G) or G.shape[0] < 2 or len(subsets) < _GRAM_PRUNE_MIN:
        per = _chunk(G, subsets.shape[1], 1)
        parts = []
        left = -math.inf
        for a in range(0, len(subsets), per):
            parts.append(_subset_conditions(G, subsets[a : a + per]))
            if a + per < len(subsets) and time.perf_counter() > deadline:
                left = math.inf
                break
        vals = np.concatenate(parts)
        order = np.argsort(-vals, kind="stable")[:top]
        return vals[order], order, len(vals), left
    ub = _gram_bound_sq(G, subsets)
    order = np.argsort(-ub, kind="stable")
    found_v: list[np.ndarray] = []
    found_i: list[np.ndarray] = []
    kth = -np.inf
    batch = 256
    left = -math.inf
    for start in range(0, len(order), batch):
        cand = order[start : start + batch]
        if len(found_v) and ub[cand[0]] * (1 + 1e-6) < kth:
            break
        if len(found_v) and time.perf_counter() > deadline:
            left = math.sqrt(ub[cand[0]]) * (1 + 1e-6)  # bounds every subset not evaluated
            break
        v = _subset_conditions(G, subsets[cand]) ** 2
        found_v.append(v)
        found_i.append(cand)
        allv = np.concatenate(found_v)
        if len(allv) >= top:
            kth = np.partition(allv, len(allv) - top)[len(allv) - top]
    vals = np.sqrt(np.concatenate(found_v))
    idx = np.concatenate(found_i)
    o = np.argsort(-vals, kind="stable")[:top]
    return vals[o], idx[o], len(vals), left


def _chunk(G: np.ndarray, t: int, block: int) -> int:
    """Subsets per batch of condition numbers: about 2^22 matrix entries (so a batch takes
    milliseconds and the deadline is looked at between batches)."""
    return max(1, 2**22 // max(1, G.shape[0] * t * block))


def _local_search(
    G: np.ndarray,
    start: np.ndarray,
    max_rounds: int,
    block: int = 1,
    deadline: float = math.inf,
) -> tuple[float, np.ndarray, int]:
    """Greedy swap ascent: replace one worker in T by one outside while cond increases.

    The swaps of a round are evaluated in batches (positions of T in order, so the
    best swap is the first of the largest, as over the whole round); past ``deadline``
    the search stops with what it has (a condition number actually attained: a valid
    lower bound). At N = 2000 one round was 10^6 subsets and the search ran 143 s
    under time_limit=2 (issue 30, B6).
    """
    N = G.shape[1] // block
    T = np.sort(start)
    best = float(_worker_conditions(G, T[None, :], block)[0])
    evaluated = 1
    per = max(1, _chunk(G, len(T), block))
    for _ in range(max_rounds):
        outside = np.setdiff1d(np.arange(N), T)
        if outside.size == 0 or not np.isfinite(best):
            break
        rows = max(1, per // len(outside))  # positions of T per batch
        top_v, top_T = -math.inf, None
        stopped = False
        for p0 in range(0, len(T), rows):
            pos = np.repeat(np.arange(p0, min(p0 + rows, len(T))), len(outside))
            cand = np.repeat(T[None, :], len(pos), axis=0)
            cand[np.arange(len(cand)), pos] = np.tile(outside, len(pos) // len(outside))
            vals = _worker_conditions(G, cand, block)
            evaluated += len(cand)
            j = int(np.argmax(vals))
            if vals[j] > top_v:
                top_v, top_T = float(vals[j]), cand[j]
            if time.perf_counter() > deadline:
                stopped = True
                break
        if not top_v > best:
            break
        assert top_T is not None, "top_v > best: some candidate set it"
        best, T = top_v, np.sort(top_T)
        if stopped:
            break
    return best, T, evaluated


def _expand(workers: np.ndarray, block: int) -> np.ndarray:
    """Column subsets of worker subsets (each worker = ``block`` consecutive columns)."""
    if block == 1:
        return workers
    cols = workers[..., :, None] * block + np.arange(block)
    return cols.reshape(workers.shape[:-1] + (-1,))


def _worker_conditions(G: np.ndarray, workers: np.ndarray, block: int) -> np.ndarray:
    return _subset_conditions(G, _expand(workers, block))


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


class _Search:
    """Depth-first branch and bound over deleted workers (see the module docstring)."""

    def __init__(self, G: np.ndarray, t: int, block: int, deadline: float, incumbent: float):
        self.G, self.block, self.deadline = G, block, deadline
        self.Nw = G.shape[1] // block
        self.s = self.Nw - t
        self.K = G.shape[0]
        self.best = incumbent
        self.best_T: np.ndarray | None = None
        self.evaluated = self.pruned = self.nodes = 0
        self.open_bound = -math.inf  # max bound over nodes left unexplored at the deadline
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

    def last_levels(self, deleted: tuple[int, ...], i: int) -> None:
        """A node with r <= 2 deletions left: bound every completion by its exact
        lambda_max(P_RR) (r = 1: the leverage; r = 2: the 2 x 2 closed form) and evaluate
        only those that can beat the incumbent."""
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
            self.pruned += int(np.count_nonzero(~keep))
            sub = sub[keep]
        if len(sub):
            self.leaves(deleted, cand[sub])

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
        j = int(np.argmax(vals))
        if vals[j] > self.best or self.best_T is None and vals[j] >= self.best:
            self.best, self.best_T = float(vals[j]), T[j]

    def run(self) -> None:
        stack: list[tuple[tuple[int, ...], int, float]] = [((), 0, math.inf)]
        while stack:
            deleted, i, parent_bound = stack.pop()
            if time.perf_counter() > self.deadline:
                self.stopped = True
                self.open_bound = max(
                    [parent_bound] + [pb for _, _, pb in stack], default=-math.inf
                )
                return
            r = self.s - len(deleted)
            n_comp = math.comb(self.Nw - i, r)
            if n_comp == 0:
                continue
            self.nodes += 1
            if r <= 2:
                self.last_levels(deleted, i)
                continue
            ub = min(self.bound(deleted, i), parent_bound)
            if ub <= self.best:
                self.pruned += n_comp
                continue
            # children: delete worker c next (c = i .. Nw - r); pushed so that c = i pops first
            for c in range(self.Nw - r, i - 1, -1):
                stack.append((deleted + (c,), c + 1, ub))


def _heuristic(
    G: np.ndarray,
    t: int,
    block: int,
    samples: int,
    starts: int,
    max_rounds: int,
    rng,
    deadline: float = math.inf,
) -> tuple[list[tuple[float, tuple[int, ...]]], int]:
    """Random subsets, the worst few improved by swap local search (a lower bound).

    Evaluated in batches; past ``deadline`` the subsets drawn so far (at least one
    batch) and the searches begun are what it reports."""
    Nw = G.shape[1] // block
    subsets = np.sort(rng.random((samples, Nw)).argsort(axis=1)[:, :t], axis=1)
    per = _chunk(G, t, block)
    parts = []
    for a in range(0, samples, per):
        parts.append(_worker_conditions(G, subsets[a : a + per], block))
        if time.perf_counter() > deadline:
            break
    vals = np.concatenate(parts)
    subsets = subsets[: len(vals)]
    evaluated = len(vals)
    order = np.argsort(-vals, kind="stable")[: max(1, starts)]
    found = []
    for i in order:
        val, T, ev = _local_search(G, subsets[i], max_rounds, block, deadline)
        evaluated += ev
        found.append((val, tuple(int(c) for c in T)))
        if time.perf_counter() > deadline:
            break
    return sorted(set(found), key=lambda p: -p[0]), evaluated


def max_condition(
    G: Any,
    t: int,
    *,
    exhaustive_limit: int = 200_000,
    time_limit: float = 10.0,
    method: str = "auto",
    block: int = 1,
    samples: int = 2_000,
    starts: int = 8,
    max_rounds: int = 50,
    top: int = 5,
    mp_dps: int | None = 60,
    mp_reference: Callable[[tuple[int, ...]], Any] | None = None,
    rng: Any = None,
) -> MaxCondition:
    """Certified worst 2-norm condition number over the ``K x t`` column submatrices of ``G``.

    This is the quantity Theorem 2 of Kadhe et al. 2019 bounds (eq. (10)):
    ``max_{|T| = t} cond(G_T) <= kappa`` means the code decodes stably from any
    t survivors. The result carries a certified interval ``[lower, upper]``
    and the worst subset found; see the module docstring for the search and
    its bounds.

    Parameters
    ----------
    G : array (K, N b)
        Real or complex generator, finite entries, ``K <= N b``.
    t : int
        Surviving workers, ``t * block >= K`` and ``t <= N``.
    exhaustive_limit : int
        ``method="auto"`` enumerates when ``binom(N, t)`` is at most this.
    time_limit : float
        Seconds for the branch and bound (and the heuristic before it); when
        they run out the certified interval is returned, ``exact=False``.
    method : {"auto", "exhaustive", "branch-and-bound", "estimate"}
        ``"estimate"`` is the lower bound of random subsets + local search only.
    block : int
        Columns per worker (embeddings of Ramamoorthy and Tang 2022).
    samples, starts, max_rounds : int
        The heuristic that seeds the incumbent (and the whole ``"estimate"``).
    top : int
        How many of the worst subsets to report (exhaustive path).
    mp_dps, mp_reference
        Where the worst value exceeds :data:`FLOAT64_RELIABLE_LIMIT`, its
        subset is recomputed in mpmath (``value_mp``): from G's entries at
        ``mp_dps`` digits, or by ``mp_reference(subset)`` (exact nodes, e.g.
        ``functools.partial(vandermonde_condition_mp, K, N, nodes="chebyshev")``).
        With ``mp_dps=None`` a :class:`Float64Warning` is issued instead.
    rng : seed of the heuristic (keyword-only).

    Raises
    ------
    ValueError
        Non-finite entries, ``K > N``, t outside ``[ceil(K / block), N]``, bad options.
    """
    G = np.asarray(G)
    if G.ndim != 2 or G.shape[0] < 1 or G.shape[1] < 1:
        raise ValueError(f"G must be a K x N matrix, got shape {G.shape}")
    if not (np.issubdtype(G.dtype, np.number) and not np.issubdtype(G.dtype, np.bool_)):
        raise ValueError(f"G must hold real or complex numbers, got dtype {G.dtype}")
    if np.issubdtype(G.dtype, np.integer):
        G = G.astype(float)
    K, Ncols = G.shape
    block = _int("block", block, 1)
    if Ncols % block:
        raise ValueError(f"block must divide the number of columns {Ncols}, got block={block}")
    N = Ncols // block
    if K > Ncols:
        raise ValueError(f"G must have K <= N (rows <= columns), got shape {G.shape}")
    if not np.all(np.isfinite(G)):
        raise ValueError("G must have finite entries (no nan or inf)")
    t = _int("t", t)
    t_min = -(-K // block)
    if not t_min <= t <= N:
        raise ValueError(f"t must lie in [ceil(K / block), N] = [{t_min}, {N}], got t={t}")
    exhaustive_limit = _int("exhaustive_limit", exhaustive_limit, 1)
    time_limit = check_real(time_limit, "time_limit", low=0.0, low_open=True)
    check_choice(method, "method", METHODS)
    samples = _int("samples", samples, 1)
    starts = _int("starts", starts, 1)
    max_rounds = _int("max_rounds", max_rounds, 0)
    top = _int("top", top, 1)
    rng = as_generator(rng)
    n_sub = math.comb(N, t)
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    if method == "auto":
        method = "exhaustive" if n_sub <= exhaustive_limit else "branch-and-bound"
    pruned = nodes = 0
    if method == "exhaustive":
        subsets = _combinations_array(N, t)
        top_vals, top_idx, evaluated, open_bound = _exhaustive_max(
            G, _expand(subsets, block), top, deadline
        )
        tops = tuple(
            (float(v), tuple(int(c) for c in subsets[i])) for v, i in zip(top_vals, top_idx)
        )
        complete = open_bound == -math.inf
        pruned = n_sub - evaluated if complete else 0
        label = "exhaustive" + ("" if complete else " (stopped at the time limit)")
    else:
        found, evaluated = _heuristic(G, t, block, samples, starts, max_rounds, rng, deadline)
        tops = tuple(found[:top])
        complete, label = False, "estimate (random subsets + local search)"
        if method == "branch-and-bound":
            search = _Search(G, t, block, deadline, found[0][0])
            search.best_T = np.array(found[0][1])
            search.run()
            evaluated += search.evaluated
            pruned, nodes = search.pruned, search.nodes
            if search.best > found[0][0]:
                tops = ((search.best, tuple(int(c) for c in search.best_T)),) + tops
                tops = tops[:top]
            complete = not search.stopped
            label = "branch-and-bound" + ("" if complete else " (stopped at the time limit)")
            open_bound = search.open_bound
    best_val, best_T = tops[0][0], tops[0][1]
    delta = _delta(K, t * block)
    lo, hi = _true_range(best_val, delta)
    rounding = delta * best_val if math.isfinite(best_val) else math.inf
    exact = complete and math.isfinite(hi) and rounding <= _EXACT_ROUNDING
    if exact:
        lower = upper = best_val
    else:
        lower, upper = lo, hi if complete else math.inf
        if not complete and method in ("branch-and-bound", "exhaustive"):
            upper = max(hi, open_bound)
    reliable = best_val <= FLOAT64_RELIABLE_LIMIT
    value_mp = None
    if not reliable:
        if mp_dps is None:
            warnings.warn(
                f"worst condition number {best_val:.3g} exceeds {FLOAT64_RELIABLE_LIMIT:g}: "
                "float64 value unreliable (pass mp_dps to recompute)",
                Float64Warning,
                stacklevel=2,
            )
        else:
            ref = mp_reference(best_T) if mp_reference is not None else None
            if ref is None:
                cols = _expand(np.array(best_T), block)
                ref = condition_number_mp(G[:, cols], dps=_int("mp_dps", mp_dps, 16))
            value_mp = float(ref)
            lower = value_mp  # the exact value of one subset: a certified lower bound
    return MaxCondition(
        value=best_val,
        subset=tuple(int(c) for c in best_T),
        exact=exact,
        method=label,
        evaluated=int(evaluated),
        n_subsets=n_sub,
        t=t,
        float64_reliable=reliable,
        value_mp=value_mp,
        top=tops,
        lower=float(lower),
        upper=float(upper),
        pruned=int(pruned),
        nodes=int(nodes),
        complete=complete,
        seconds=time.perf_counter() - t0,
        rounding=float(rounding),
    )


@dataclass(frozen=True)
class EmpiricalSKappa:
    """Empirical straggler threshold of an actual generator under constraint kappa.

    ``value`` is the largest s such that every ``(N - s')``-worker submatrix has
    condition number ``<= kappa`` for all ``s' <= s`` (None if even ``cond(G)``
    exceeds kappa), as far as the certificates of the steps decide it.
    ``exact`` is True when they decide it: every step ``s' <= value`` has a
    certified ``upper <= kappa`` and the next step a certified ``lower > kappa``
    (or ``value = N - K``). Otherwise ``value`` is an upper bound on the true
    threshold (a step whose worst case was not certified may hide a bad
    subset) and ``low`` is the largest s whose steps are all certified ``<= kappa``
    (a lower bound; None when even s = 0 is not certified).
    """

    value: int | None
    exact: bool
    kappa: float
    steps: tuple[MaxCondition, ...]
    low: int | None = None


def empirical_s_kappa(
    G: Any,
    kappa: float,
    *,
    exhaustive_limit: int = 200_000,
    time_limit: float = 10.0,
    samples: int = 20_000,
    max_s: int | None = None,
    block: int = 1,
    rng: Any = None,
    mp_dps: int | None = 60,
    mp_reference: Callable[[tuple[int, ...]], Any] | None = None,
) -> EmpiricalSKappa:
    """Largest number of stragglers s with ``max_{|T| = N - s} cond(G_T) <= kappa``.

    Definition 1 of Kadhe et al. 2019 applied to an actual K x N generator:
    s = 0, 1, ... is increased while :func:`max_condition` over the
    ``(N - s)``-worker submatrices stays ``<= kappa`` (its certified lower
    bound decides "above kappa", its upper bound "at most kappa"). Compare
    with Theorem 2's guarantee :func:`gctheory.conditioning.s_kappa_bound`,
    which holds with probability ``>= 1 - eps``. ``time_limit`` is the budget of
    the whole search (each step gets what the steps before left; it applied to each
    step, and N = 2000 ran > 150 s under time_limit=2, issue 30, B6): when it runs
    out, the steps stop and the result is not ``exact``.
    """
    G = np.asarray(G)
    if G.ndim != 2 or G.shape[0] > G.shape[1]:
        raise ValueError(f"G must be a K x N matrix with K <= N, got shape {G.shape}")
    kappa = _kappa(kappa)
    block = _int("block", block, 1)
    K, N = G.shape[0], G.shape[1] // block
    s_max = N - (-(-K // block))
    top_s = s_max if max_s is None else min(s_max, _int("max_s", max_s, 0))
    rng = as_generator(rng)
    steps: list[MaxCondition] = []
    value: int | None = None
    low: int | None = None
    certified_so_far = True
    decided = False
    time_limit = check_real(time_limit, "time_limit", low=0.0, low_open=True)
    deadline = time.perf_counter() + time_limit
    out_of_time = False
    for s in range(0, top_s + 1):
        left = deadline - time.perf_counter()
        if left <= 0:
            out_of_time = True
            break
        mc = max_condition(
            G,
            N - s,
            exhaustive_limit=exhaustive_limit,
            time_limit=left,
            samples=samples,
            block=block,
            rng=rng,
            mp_dps=mp_dps,
            mp_reference=mp_reference,
        )
        steps.append(mc)
        worst = mc.value_mp if mc.value_mp is not None else mc.value
        if mc.lower > kappa:
            decided = True
            break
        if worst > kappa:  # float64 says above kappa but cannot certify it
            break
        certified_so_far &= mc.upper <= kappa
        if certified_so_far:
            low = s
        value = s
    exact = (
        not out_of_time
        and low == value
        and (decided or value == s_max or (value is not None and value == top_s))
    )
    return EmpiricalSKappa(value=value, exact=exact, kappa=kappa, steps=tuple(steps), low=low)
