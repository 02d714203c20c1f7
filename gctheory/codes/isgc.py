"""Ignore-stragglers decoding (IS-GC): the largest partial gradient sum the survivors give.

When more than s workers straggle, an exact gradient code cannot return the
full sum; with binary placements (every worker sends the plain sum of its
partitions) the server can still return the sum over the union of the
partitions of survivors with pairwise *disjoint* partition sets, ignoring the
rest ("On arbitrary ignorance of stragglers with gradient coding", IS-GC; the
stored sources give neither its full reference nor its text, so the decoders
here implement this description and nothing more):

- fractional repetition (Tandon et al. Sec. 3.1): groups of s + 1 workers
  hold the same block; every group with a survivor is recovered, which is the
  most any decoder can recover. :func:`frc_expected_recovered` is the exact
  expectation ``k (1 - C(n - s - 1, e) / C(n, e))`` for e uniformly random
  stragglers (``k (1 - p^(s+1))`` for independent stragglers).
- cyclic repetition (worker i holds partitions i..i+s mod n, sends their
  sum): the largest set of survivors with pairwise disjoint windows, a
  maximum set of disjoint arcs on a cycle (exact: greedy from every choice of
  the first arc), recovering ``(s + 1)`` partitions per chosen worker.

A decode with nothing recoverable (every worker straggles) returns an empty
:class:`ISGCResult` with ``empty=True`` instead of raising. The hybrid
placement of the IS-GC paper is not built: its construction could not be
retrieved.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import check_array, check_choice, check_int, check_memory
from gctheory.codes.base import validate_survivors

__all__ = [
    "ISGCResult",
    "ISGCDecoder",
    "frc_expected_recovered",
    "cyclic_max_disjoint",
]


@dataclass(frozen=True)
class ISGCResult:
    """What an ignore-stragglers decode recovered.

    ``gradient``: the partial sum over ``partitions`` (zeros when empty);
    ``workers``: the survivors whose messages were added; ``empty``: True
    when nothing could be recovered (no survivor).
    """

    gradient: np.ndarray = field(repr=False)
    partitions: tuple[int, ...]
    workers: tuple[int, ...]
    empty: bool

    @property
    def recovered(self) -> int:
        return len(self.partitions)


#: most walk steps :func:`cyclic_max_disjoint` takes (a few seconds of Python)
_MAX_WALK = 10**7


def cyclic_max_disjoint(n: int, window: int, survivors: Sequence[int]) -> list[int]:
    """A largest set of survivors whose windows ``{i, ..., i + window - 1} mod n`` are disjoint.

    Exact: for every survivor taken as the first arc, walk clockwise taking
    the next survivor starting after the previous arc and not wrapping into
    the first (on a line, equal-length arcs taken greedily by earliest start
    are a largest disjoint set); keep the best. O(|survivors| n / window).
    ``1 <= window <= n``; survivors are worker indices in ``[0, n)`` (repeats ignored).
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
    lost = Fraction(math.comb(n - s - 1, e - s - 1), math.comb(n, e)) if e > s else Fraction(0)
    return k * (1 - lost)


class ISGCDecoder:
    """Ignore-stragglers decoder for a binary placement ("frc" or "cyclic").

    Parameters
    ----------
    n, s : int
        Workers and the placement's design tolerance (group / window size s + 1).
    placement : {"frc", "cyclic"}
        Fractional repetition (``(s + 1) | n``, k = n) or cyclic repetition (k = n).

    ``encode(partials)`` gives every worker's plain sum; ``decode(survivors,
    received)`` returns an :class:`ISGCResult`.
    """

    def __init__(self, n: int, s: int, placement: str = "frc") -> None:
        self.n = check_int(n, "n", low=1)
        self.s = check_int(s, "s", low=0, high=self.n - 1)
        self.placement = check_choice(placement, "placement", ("frc", "cyclic"))
        if self.placement == "frc" and self.n % (self.s + 1):
            raise ValueError(
                f"s + 1 must divide n for fractional repetition, got n={self.n}, s={self.s} "
                "(use placement='cyclic')"
            )
        self.k = self.n
        w = self.s + 1
        check_memory(self.n * self.n, "n", f"the {self.n} x {self.n} placement")
        S = np.zeros((self.n, self.n), dtype=bool)
        for i in range(self.n):
            if self.placement == "frc":
                S[i, (i // w) * w : (i // w + 1) * w] = True
            else:
                S[i, (i + np.arange(w)) % self.n] = True
        self.support = S

    def encode(self, partials: Any) -> np.ndarray:
        P = np.asarray(partials, dtype=float)
        if P.ndim != 2 or P.shape[0] != self.k:
            raise ValueError(f"partials must have shape (k, d) = ({self.k}, d), got {P.shape}")
        return self.support.astype(float) @ P

    def select(self, survivors: Sequence[int]) -> list[int]:
        """Survivors whose messages are summed: disjoint partition sets, most partitions."""
        T = validate_survivors(survivors, self.n, 0)
        if self.placement == "frc":
            w = self.s + 1
            _, first = np.unique(T // w, return_index=True)
            return sorted(int(t) for t in T[first])
        return sorted(cyclic_max_disjoint(self.n, self.s + 1, T))

    def decode(self, survivors: Sequence[int], received: Any) -> ISGCResult:
        T = validate_survivors(survivors, self.n, 0)
        Y = np.asarray(received, dtype=float)
        if Y.ndim != 2 or Y.shape[0] != T.size:
            raise ValueError(
                f"received must have shape (len(survivors), d) = ({T.size}, d), got {Y.shape}"
            )
        chosen = self.select(T)
        if not chosen:
            return ISGCResult(np.zeros(Y.shape[1]), (), (), True)
        pos = {int(t): i for i, t in enumerate(T)}
        g = Y[[pos[c] for c in chosen]].sum(axis=0)
        parts = np.flatnonzero(self.support[chosen].any(axis=0))
        return ISGCResult(g, tuple(int(j) for j in parts), tuple(chosen), False)

    def recovered_count(self, survivors: Sequence[int]) -> int:
        """Partitions recovered from ``survivors`` (structure only)."""
        return len(self.select(survivors)) * (self.s + 1)

    def sample_recovered(self, stragglers: int, rng: np.random.Generator, size: int) -> np.ndarray:
        """Recovered counts for ``size`` uniformly random straggler sets (Monte Carlo sampler)."""
        e = check_int(stragglers, "stragglers", low=0, high=self.n)
        out = np.empty(size)
        for t in range(size):
            out[t] = self.recovered_count(rng.permutation(self.n)[: self.n - e])
        return out
