"""How many partitions an ignore-stragglers decoder recovers: the largest sets of
disjoint surviving workers for cyclic, fractional-repetition and hybrid placements."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import check_array, check_int, check_memory
from gctheory.codes._survivors import Survivors
from gctheory.codes.base import validate_survivors

__all__ = [
    "frc_expected_recovered",
    "cyclic_max_disjoint",
    "hybrid_support",
    "hybrid_max_disjoint",
    "max_disjoint_exhaustive",
]


#: Largest ``n c (c2 + 1)`` the pure-Python hybrid programme accepts per decode (~seconds).
_HYBRID_WORK_LIMIT = 50_000_000


#: most walk steps :func:`cyclic_max_disjoint` takes (a few seconds of Python)
_MAX_WALK = 10**7


def cyclic_max_disjoint(n: int, window: int, survivors: Sequence[int]) -> list[int]:
    """A largest set of survivors whose windows ``{i, ..., i + window - 1} mod n`` are disjoint.

    Exact: for every survivor taken as the first arc, walk clockwise taking
    the next survivor starting after the previous arc and not wrapping into
    the first (on a line, equal-length arcs taken greedily by earliest start
    are a largest disjoint set); keep the best. O(|survivors| n / window).
    An independent check of :func:`hybrid_max_disjoint` with ``c1 = 0, g = 1``.
    ``1 <= window <= n``; survivors are worker indices in ``[0, n)`` (repeats ignored).

    Parameters
    ----------
    n : int
        Workers.
    window : int
        Partitions per worker, ``1 <= window <= n``.
    survivors : sequence of int
        Surviving workers.

    Returns
    -------
    list of int
        Survivors with pairwise disjoint windows, as many as possible.

    Examples
    --------
    >>> from gctheory.codes import cyclic_max_disjoint
    >>> cyclic_max_disjoint(6, 2, [0, 1, 3, 4])
    [0, 3]
    """
    n = check_int(n, "n", low=1, high=2**62)
    window = check_int(window, "window", low=1, high=n)
    arr = check_array(survivors, "survivors", ndim=1, min_size=0)
    if arr.size and (np.any(arr != np.round(arr)) or arr.min() < 0 or arr.max() >= n):
        raise ValueError(f"survivors must be worker indices in [0, n) with n={n}")
    alive = np.unique(arr.astype(np.int64))
    work = alive.size * min(alive.size, n // window + 1)
    if work > _MAX_WALK:
        raise ValueError(
            f"survivors: {alive.size:,} survivors with n/window = {n // window:,} arcs per walk "
            f"need about {work:.3g} steps, more than the {_MAX_WALK:.0e} done here"
        )
    if alive.size == 0:
        return []
    if window * 2 > n:
        return [int(alive[0])]
    pos = np.concatenate([alive, alive + n])  # the cycle unrolled twice
    nxt = np.searchsorted(pos, pos + window).tolist()  # first start after an arc
    posl = pos.tolist()
    best: list[int] = []
    for j in range(alive.size):
        limit = posl[j] + n - window  # the last start that does not overlap the first arc
        chosen = [j]
        i = nxt[j]
        while i < len(posl) and posl[i] <= limit:
            chosen.append(i)
            i = nxt[i]
        if len(chosen) > len(best):
            best = chosen
    return [posl[i] % n for i in best]


def frc_expected_recovered(n: int, s: int, stragglers: int, k: int | None = None) -> Fraction:
    """Exact expected number of partitions IS-GC recovers from fractional repetition.

    ``n / (s+1)`` groups of ``s + 1`` workers, ``k`` partitions (default n)
    split evenly; ``stragglers`` uniformly random: a group is lost iff all its
    workers straggle, probability ``C(n - s - 1, e - s - 1) / C(n, e)``.

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Design tolerance (groups of ``s + 1``).
    stragglers : int
        Uniformly random stragglers.
    k : int, optional
        Partitions (default ``n``).

    Returns
    -------
    fractions.Fraction
        The expected number of recovered partitions.

    Examples
    --------
    >>> from gctheory.codes import frc_expected_recovered
    >>> frc_expected_recovered(6, 1, 2)
    Fraction(28, 5)
    """
    n = check_int(n, "n", low=1)
    s = check_int(s, "s", low=0, high=n - 1)
    if n % (s + 1):
        raise ValueError(f"s + 1 must divide n for fractional repetition, got n={n}, s={s}")
    e = check_int(stragglers, "stragglers", low=0, high=n)
    k = n if k is None else check_int(k, "k", low=1)
    groups = n // (s + 1)
    if k % groups:
        raise ValueError(f"the number of groups {groups} must divide k, got k={k}")
    # C(n - s - 1, e - s - 1) / C(n, e) = e^(s+1) / n^(s+1) (falling factorials): s + 1
    # factors instead of two binomials of n bits (18.5 s at n = 10**6, e = n / 2)
    lost = Fraction(math.perm(e, s + 1), math.perm(n, s + 1)) if e > s else Fraction(0)
    return k * (1 - lost)


# ------------------------------------------------------------ hybrid placement
def _check_hybrid(n: Any, c: Any, c1: Any, groups: Any) -> tuple[int, int, int, int]:
    n = check_int(n, "n", low=1)
    c = check_int(c, "c", low=1, high=n)
    c1 = check_int(c1, "c1", low=0, high=c)
    groups = check_int(groups, "groups", low=1, high=n)
    if n % groups:
        raise ValueError(
            f"groups must divide n (groups of n / groups workers), got n={n}, groups={groups}"
        )
    n0 = n // groups
    if c > n0:
        raise ValueError(
            f"c = s + 1 must be <= n / groups = {n0} (a worker's in-group and cyclic "
            f"partitions would overlap), got c={c}"
        )
    return n, c, c1, groups


def hybrid_support(n: int, c: int, c1: int, groups: int) -> np.ndarray:
    """The hybrid-repetition placement (n x n bool, ``c`` partitions per worker).

    Worker r (position ``i = r mod n0`` in its group, ``n0 = n / groups``,
    ``base = r - i``) holds ``base + ((i - c1 + j) mod n0)`` for ``j < c1``
    and ``(r + j) mod n`` for ``j < c - c1`` (the IS-GC authors' ``IS_GC_HR``
    placement). Requires ``groups | n`` and ``c <= n / groups``.

    Parameters
    ----------
    n : int
        Workers (= partitions).
    c : int
        Partitions per worker.
    c1 : int
        Of which fractional (within the group).
    groups : int
        Groups, dividing ``n``.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        The placement.

    Examples
    --------
    >>> from gctheory.codes import hybrid_support
    >>> hybrid_support(4, 2, 0, 1).astype(int)  # c1 = 0, one group: cyclic repetition
    array([[1, 1, 0, 0],
           [0, 1, 1, 0],
           [0, 0, 1, 1],
           [1, 0, 0, 1]])
    """
    n, c, c1, groups = _check_hybrid(n, c, c1, groups)
    check_memory(n * n, "n", f"the {n} x {n} placement")
    n0 = n // groups
    r = np.arange(n)
    i = r % n0
    base = r - i
    S = np.zeros((n, n), dtype=bool)
    for j in range(c1):
        S[r, base + (i - c1 + j) % n0] = True
    for j in range(c - c1):
        S[r, (r + j) % n] = True
    return S


def _greedy_line(starts: list[int], ends: list[int], lo: int, hi: int) -> list[int]:
    """Indices of a largest set of disjoint intervals inside ``[lo, hi]`` (ends ascending)."""
    out, ptr = [], lo
    for j, (a, b) in enumerate(zip(starts, ends)):
        if a >= ptr and b <= hi:
            out.append(j)
            ptr = b + 1
    return out


def _group_options(
    positions: list[int], n0: int, c1: int, c2: int, tmax: int
) -> list[list[tuple[int, int, list[int]]]]:
    """For each incoming covered prefix ``t_in`` of one group: the options
    ``(t_out, count, chosen positions)`` (see :func:`hybrid_max_disjoint`)."""
    lin_pos, lin_a, lin_b, last = [], [], [], []
    for i in positions:
        if i < c1:  # in-group arc wraps past the group's end: covers n0 - 1
            last.append((i, i - c1 + n0, i + c2 - 1, 0))  # (pos, a, b wrap end, t_out)
        elif i + c2 - 1 >= n0 - 1:  # reaches the group's last partition
            last.append((i, i - c1, -1, max(0, i + c2 - n0)))
        else:
            lin_pos.append(i)
            lin_a.append(i - c1)
            lin_b.append(i + c2 - 1)
    memo: dict[tuple[int, int], list[int]] = {}

    def greedy(lo: int, hi: int) -> list[int]:
        key = (lo, hi)
        if key not in memo:
            memo[key] = [lin_pos[j] for j in _greedy_line(lin_a, lin_b, lo, hi)]
        return memo[key]

    out = []
    for t_in in range(tmax + 1):
        free = greedy(t_in, n0 - 2)
        opts = [(0, len(free), free)]
        for i, a, b, t_out in last:
            if a < t_in or (b >= 0 and t_in > 0):
                continue  # overlaps the prefix covered from the previous group
            inner = greedy(max(t_in, b + 1), a - 1)
            opts.append((t_out, 1 + len(inner), [i, *inner]))
        out.append(opts)
    return out


def hybrid_max_disjoint(n: int, c: int, c1: int, groups: int, survivors: Survivors) -> list[int]:
    """A largest set of survivors with pairwise disjoint hybrid-repetition supports (exact).

    The dynamic programme of the module docstring; returns the chosen workers
    (sorted). ``c1 = 0, groups = 1`` is cyclic repetition and ``c1 = c,
    groups = n / c`` fractional repetition. Refused (``ValueError``) when its
    pure-Python work ``n c (c - c1 + 1)`` exceeds 5e7.

    Parameters
    ----------
    n : int
        Workers.
    c : int
        Partitions per worker.
    c1 : int
        Fractional part of the placement.
    groups : int
        Groups.
    survivors : sequence of int or bool mask
        Surviving workers.

    Returns
    -------
    list of int
        A largest set of survivors with disjoint supports, sorted.

    Examples
    --------
    >>> from gctheory.codes import hybrid_max_disjoint
    >>> hybrid_max_disjoint(6, 2, 0, 1, [0, 1, 3, 4])
    [0, 3]
    """
    n, c, c1, groups = _check_hybrid(n, c, c1, groups)
    T = np.unique(np.asarray(survivors, dtype=np.int64))
    if T.size and (T[0] < 0 or T[-1] >= n):
        raise ValueError(f"survivors must be worker indices in [0, n) with n={n}")
    c2 = c - c1
    work = n * c * (c2 + 1)
    if work > _HYBRID_WORK_LIMIT:
        raise ValueError(
            f"the exact hybrid decoder needs about n c (c2 + 1) = {work:.3g} steps, above "
            f"{_HYBRID_WORK_LIMIT:.0e} (about a few seconds); use fewer workers or smaller c"
        )
    if T.size == 0:
        return []
    n0 = n // groups
    tmax = max(c2 - 1, 0)  # largest prefix of the next group a crossing worker covers
    per_group: list[list[int]] = [[] for _ in range(groups)]
    for r in T.tolist():
        per_group[r // n0].append(r % n0)
    # options[g][t_in] = list of (t_out, count, chosen positions) of group g
    options = [_group_options(sorted(pg), n0, c1, c2, tmax) for pg in per_group]
    best_total, best_choice = -1, None
    for t0 in range(tmax + 1):
        # state: prefix covered in the next group -> (count, back-pointers)
        states: dict[int, tuple[int, list[list[int]]]] = {t0: (0, [])}
        for g in range(groups):
            new: dict[int, tuple[int, list[list[int]]]] = {}
            for t_in, (cnt, picks) in states.items():
                for t_out, k, chosen in options[g][t_in]:
                    if t_out not in new or cnt + k > new[t_out][0]:
                        new[t_out] = (cnt + k, [*picks, chosen])
            states = new
        for t_end, (cnt, picks) in states.items():
            if t_end <= t0 and cnt > best_total:
                best_total, best_choice = cnt, picks
    assert best_choice is not None  # t_out = 0 is always reachable (choose nothing)
    return sorted(g * n0 + i for g, chosen in enumerate(best_choice) for i in chosen)


def max_disjoint_exhaustive(support: Any, survivors: Sequence[int]) -> int:
    """Largest number of survivors with pairwise disjoint rows of ``support`` (any 0/1
    placement), by exhaustive search from the largest subsets down.

    The reference the structured decoders are checked against; exponential in
    ``len(survivors)``, refused above 20 survivors.

    Parameters
    ----------
    support : array_like, shape (n, k)
        Any 0/1 placement.
    survivors : sequence of int
        At most 20 surviving workers.

    Returns
    -------
    int
        The largest number of survivors with disjoint rows.

    Examples
    --------
    >>> from gctheory.codes import hybrid_support, max_disjoint_exhaustive
    >>> max_disjoint_exhaustive(hybrid_support(6, 2, 0, 1), [0, 1, 3, 4])
    2
    """
    S = check_array(support, "support", ndim=2)
    if not np.all((S == 0) | (S == 1)):
        raise ValueError("support must be a 0/1 (worker x partition) placement matrix")
    S = S.astype(bool)
    T = validate_survivors(survivors, S.shape[0], 0).tolist()
    if len(T) > 20:
        raise ValueError(f"exhaustive search is limited to 20 survivors, got {len(T)}")
    for r in range(len(T), 0, -1):
        for comb in itertools.combinations(T, r):
            if S[list(comb)].sum(axis=0).max() <= 1:
                return r
    return 0
