"""The incumbent of the worst-case search: random subsets improved by a swap local search.

Every value it reports is the condition number of a subset actually evaluated: a lower
bound on the worst case (Kadhe et al. 2019, eq. (10) is the quantity bounded above).
"""

from __future__ import annotations

import math
import time

import numpy as np

from gctheory.conditioning.worst_case.subsets import _chunk, _worker_conditions

__all__: list[str] = []


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
    under time_limit=2.
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
