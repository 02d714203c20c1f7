"""The incumbent of the worst-case search: random subsets improved by a swap local search.

Every value it reports is the condition number of a subset actually evaluated: a lower
bound on the worst case (Kadhe et al. 2019, eq. (10) is the quantity bounded above).
"""

from __future__ import annotations

import math

import numpy as np

from gctheory.conditioning.worst_case.budget import _Budget
from gctheory.conditioning.worst_case.subsets import _chunk, _worker_conditions

__all__: list[str] = []


def _local_search(
    G: np.ndarray, start: np.ndarray, max_rounds: int, block: int, budget: _Budget
) -> tuple[float, np.ndarray, int]:
    """Greedy swap ascent: replace one worker in T by one outside while cond increases.

    The swaps of a round are evaluated in batches (positions of T in order, so the
    best swap is the first of the largest, as over the whole round); when ``budget``
    runs out the search stops with what it has (a condition number actually attained:
    a valid lower bound). At N = 2000 one round was 10^6 subsets and the search ran
    143 s under a 2 s time limit checked only between rounds. The budget holds at least
    one evaluation on entry.
    """
    N = G.shape[1] // block
    T = np.sort(start)
    best = float(_worker_conditions(G, T[None, :], block)[0])
    budget.spend(1)
    evaluated = 1
    per = max(1, _chunk(G, len(T), block))
    for _ in range(max_rounds):
        outside = np.setdiff1d(np.arange(N), T)
        if outside.size == 0 or not np.isfinite(best):
            break
        top_v, top_T, stopped = _swap_round(G, T, outside, block, per, budget)
        evaluated += stopped[1]
        if not top_v > best:
            break
        assert top_T is not None, "top_v > best: some candidate set it"
        best, T = top_v, np.sort(top_T)
        if stopped[0]:
            break
    return best, T, evaluated


def _swap_round(
    G: np.ndarray, T: np.ndarray, outside: np.ndarray, block: int, per: int, budget: _Budget
) -> tuple[float, np.ndarray | None, tuple[bool, int]]:
    """One round of swaps of :func:`_local_search`: ``(best value, its subset,
    (stopped by the budget, subsets evaluated))``."""
    rows = max(1, per // len(outside))  # positions of T per batch
    top_v, top_T = -math.inf, None
    evaluated = 0
    for p0 in range(0, len(T), rows):
        pos = np.repeat(np.arange(p0, min(p0 + rows, len(T))), len(outside))
        n = budget.allow(len(pos))
        if n == 0:
            return top_v, top_T, (True, evaluated)
        cand = np.repeat(T[None, :], n, axis=0)
        cand[np.arange(n), pos[:n]] = np.tile(outside, len(pos) // len(outside))[:n]
        vals = _worker_conditions(G, cand, block)
        budget.spend(n)
        evaluated += n
        j = int(np.argmax(vals))
        if vals[j] > top_v:
            top_v, top_T = float(vals[j]), cand[j]
        if n < len(pos) or budget.over():
            return top_v, top_T, (True, evaluated)
    return top_v, top_T, (False, evaluated)


def _heuristic(
    G: np.ndarray,
    t: int,
    block: int,
    samples: int,
    starts: int,
    max_rounds: int,
    rng,
    budget: _Budget,
) -> tuple[list[tuple[float, tuple[int, ...]]], int]:
    """Random subsets, the worst few improved by swap local search (a lower bound).

    Evaluated in batches; when ``budget`` runs out the subsets drawn so far (at least
    one) and the searches begun are what it reports. The budget holds at least one
    evaluation on entry."""
    Nw = G.shape[1] // block
    subsets = np.sort(rng.random((samples, Nw)).argsort(axis=1)[:, :t], axis=1)
    per = _chunk(G, t, block)
    parts = []
    a = 0
    while a < samples:
        n = budget.allow(min(per, samples - a))
        if n == 0:
            break
        parts.append(_worker_conditions(G, subsets[a : a + n], block))
        budget.spend(n)
        a += n
        if budget.over():
            break
    vals = np.concatenate(parts)
    subsets = subsets[: len(vals)]
    evaluated = len(vals)
    order = np.argsort(-vals, kind="stable")[: max(1, starts)]
    found = []
    for i in order:
        if budget.over():
            break
        val, T, ev = _local_search(G, subsets[i], max_rounds, block, budget)
        evaluated += ev
        found.append((val, tuple(int(c) for c in T)))
    if not found:  # the budget ran out in the sampling: its worst subset is the incumbent
        found.append((float(vals[order[0]]), tuple(int(c) for c in subsets[order[0]])))
    return sorted(set(found), key=lambda p: -p[0]), evaluated
