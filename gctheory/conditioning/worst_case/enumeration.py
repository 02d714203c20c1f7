"""Enumeration of every t-subset with a batched Gram-matrix bound deciding which subsets
need an exact condition number: ``cond(G_T)^2 <= tr(W) tr(W^-1)``, ``W = G_T G_T^H``
(Kadhe et al. 2019, eq. (10) is the quantity; the bound is ``lambda_max <= tr W`` and
``1 / lambda_min <= tr W^-1``).
"""

from __future__ import annotations

import math

import numpy as np

from gctheory.conditioning.worst_case.budget import _Budget
from gctheory.conditioning.worst_case.subsets import _chunk, _subset_conditions

__all__: list[str] = []

#: the batched Gram bound pays off only over many subsets (its loops run over K^2)
_GRAM_PRUNE_MIN = 4096


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
    G: np.ndarray, subsets: np.ndarray, top: int, budget: _Budget
) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Exact ``top`` largest condition numbers over ``subsets`` by branch and bound.

    Real G: a cheap upper bound for every subset (:func:`_gram_bound_sq`), then exact
    condition numbers in decreasing order of the bound until the bound falls below the
    ``top``-th largest exact value found (with a 1e-6 relative margin for rounding).
    Complex G, or fewer than ``_GRAM_PRUNE_MIN`` subsets: every subset exactly. Returns
    (values, subset row indices), largest first, the number evaluated exactly and a
    bound on the subsets left unevaluated when ``budget`` ran out (``-inf`` when none
    were: the enumeration is complete; ``inf`` when nothing bounds them). The budget
    holds at least one evaluation on entry.
    """
    if np.iscomplexobj(G) or G.shape[0] < 2 or len(subsets) < _GRAM_PRUNE_MIN:
        return _every_subset(G, subsets, top, budget)
    ub = _gram_bound_sq(G, subsets)
    order = np.argsort(-ub, kind="stable")
    found_v: list[np.ndarray] = []
    found_i: list[np.ndarray] = []
    kth = -np.inf
    start, left = 0, -math.inf
    while start < len(order):
        if found_v and ub[order[start]] * (1 + 1e-6) < kth:
            break
        n = budget.allow(min(256, len(order) - start)) if not (found_v and budget.over()) else 0
        if n == 0:  # every subset from ``start`` on is bounded by the largest bound left
            left = math.sqrt(ub[order[start]]) * (1 + 1e-6)
            break
        cand = order[start : start + n]
        found_v.append(_subset_conditions(G, subsets[cand]) ** 2)
        found_i.append(cand)
        budget.spend(n)
        start += n
        allv = np.concatenate(found_v)
        if len(allv) >= top:
            kth = np.partition(allv, len(allv) - top)[len(allv) - top]
    vals = np.sqrt(np.concatenate(found_v))
    idx = np.concatenate(found_i)
    o = np.argsort(-vals, kind="stable")[:top]
    return vals[o], idx[o], len(vals), left


def _every_subset(
    G: np.ndarray, subsets: np.ndarray, top: int, budget: _Budget
) -> tuple[np.ndarray, np.ndarray, int, float]:
    """:func:`_exhaustive_max` without the Gram bound: every subset exactly, in batches."""
    per = _chunk(G, subsets.shape[1], 1)
    parts = []
    left = -math.inf
    a = 0
    while a < len(subsets):
        n = budget.allow(min(per, len(subsets) - a))
        if n == 0:
            left = math.inf
            break
        parts.append(_subset_conditions(G, subsets[a : a + n]))
        budget.spend(n)
        a += n
        if a < len(subsets) and budget.over():
            left = math.inf
            break
    vals = np.concatenate(parts)
    order = np.argsort(-vals, kind="stable")[:top]
    return vals[order], order, len(vals), left
