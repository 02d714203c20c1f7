"""Column subsets of a generator and their condition numbers, in memory-bounded batches.

Every search of :mod:`gctheory.conditioning.worst_case` evaluates subsets through
``_worker_conditions`` (a worker is ``block`` consecutive columns, Ramamoorthy and Tang
2022) and enumerates them with ``_combinations_array``.
"""

from __future__ import annotations

import numpy as np

from gctheory.conditioning._common import _MC_BLOCK_ENTRIES
from gctheory.conditioning.numbers import condition_numbers

__all__: list[str] = []


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
    12 s for 2000 subsets at N = 2000, t = 1999."""
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


def _chunk(G: np.ndarray, t: int, block: int) -> int:
    """Subsets per batch of condition numbers: about 2^22 matrix entries (so a batch takes
    milliseconds and the deadline is looked at between batches)."""
    return max(1, 2**22 // max(1, G.shape[0] * t * block))


def _expand(workers: np.ndarray, block: int) -> np.ndarray:
    """Column subsets of worker subsets (each worker = ``block`` consecutive columns)."""
    if block == 1:
        return workers
    cols = workers[..., :, None] * block + np.arange(block)
    return cols.reshape(workers.shape[:-1] + (-1,))


def _worker_conditions(G: np.ndarray, workers: np.ndarray, block: int) -> np.ndarray:
    return _subset_conditions(G, _expand(workers, block))
