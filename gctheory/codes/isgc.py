"""Ignore-stragglers gradient coding (IS-GC): the largest partial gradient sum the survivors give.

When more than s workers straggle, an exact gradient code cannot return the
full sum; with binary placements (every worker sends the plain sum of its
partitions) the server can still return the sum over the union of the
partitions of survivors with pairwise *disjoint* partition sets, ignoring the
rest ("On arbitrary ignorance of stragglers with gradient coding", IS-GC [1]).

The paper's text is not in the stored sources; the three placements follow
the authors' public code (github.com/IS-GC/IS-GC, ``ray_gc.py``, the only
commit d54d386 of 2022-08-01: classes ``IS_GC_FR``, ``IS_GC_CR``,
``IS_GC_HR``), with n workers, n partitions and ``c = s + 1`` partitions per
worker:

- fractional repetition (FR, Tandon et al. Sec. 3.1): groups of ``c``
  workers hold the same ``c`` partitions;
- cyclic repetition (CR): worker i holds partitions ``i, ..., i + c - 1``
  (mod n);
- hybrid repetition (HR): the n workers form ``g`` groups of ``n0 = n / g``
  (worker r is position ``i = r mod n0`` of its group, ``base = r - i``);
  worker r holds ``c1`` partitions cyclically inside its own group,
  ``base + ((i - c1 + j) mod n0)`` for ``j < c1``, and ``c2 = c - c1``
  partitions cyclically across all of them, ``r, ..., r + c2 - 1`` (mod n).
  ``c1 = c, g = n / c`` is FR and ``c1 = 0, g = 1`` is CR (same supports).

Decoding (:meth:`ISGCCode.select`) is exact: the largest set of survivors
with pairwise disjoint supports, so ``c`` times its size partitions are
recovered. FR: one survivor per group with one (vectorised). CR and HR: a
dynamic programme over the groups (:func:`hybrid_max_disjoint`); a worker's
in-group support is an arc of its group's cycle, at most one chosen worker
covers the group's last partition, and the only coupling between groups is
the prefix of the next group covered by a worker whose cyclic part crosses
into it (0..c2-1 partitions): the state. For each group and incoming prefix
the best count is one choice of the worker covering the last partition (or
none) plus a greedy earliest-end choice of the remaining intervals on a line
(optimal for equal-length intervals); around the cycle the outgoing prefix
of the last group must fit the one assumed for the first. O(n c c2) work.
(The public decoder scans greedily from the workers of one randomly chosen
group; the maximum here is checked against exhaustive search.)

:class:`ISGCCode` is a :class:`GradientCode` (approximate: ``s = None`` in
the code contract, the design tolerance is ``design_s``): ``decode`` returns
the largest recoverable partial sum, its error ``||A_T^T u - 1||^2`` is the
number of partitions not recovered. An ignore-stragglers decode never
refuses for lack of survivors: with no survivor nothing is recoverable, and
``decode`` returns the zero vector, ``decode_detail`` a
:class:`~gctheory.codes._empty.PartialDecodeResult` flagged ``empty=True``
(``err = k``), and :meth:`ISGCCode.ignore_decode` an :class:`ISGCResult`
flagged ``empty`` -- a flag, not an exception ("an
ignore-stragglers decode with nothing recoverable returns an empty result
with a clear flag"). Exact codes keep refusing too few survivors.
:class:`ISGCDecoder` is the earlier name of the same decoder with the
:class:`ISGCResult` type.

References
----------
.. [1] X. Su, B. Sukhnandan, J. Li, "On arbitrary ignorance of stragglers
   with gradient coding", IEEE ISIT 2023. Authors and venue are not
   confirmed against a stored copy: the stored sources hold neither its text
   nor its metadata (only the authors' code, github.com/IS-GC/IS-GC, whose
   README names no paper), so section and equation numbers could not be
   checked and none are cited; the placements follow the code, the decoder's
   optimality is proved here (module text above) and tested against
   exhaustive search.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_choice, check_int, check_memory
from gctheory.codes._empty import EmptyDecodeMixin, PartialDecodeResult
from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import _ApproximateCode
from gctheory.codes.base import DecodingCost, check_positive_int, validate_survivors
from gctheory.codes.tandon import _one_per_group, group_residual

__all__ = [
    "ISGCResult",
    "PartialDecodeResult",
    "ISGCCode",
    "ISGCDecoder",
    "frc_expected_recovered",
    "cyclic_max_disjoint",
    "hybrid_support",
    "hybrid_max_disjoint",
    "max_disjoint_exhaustive",
]

#: Largest ``n c (c2 + 1)`` the pure-Python hybrid programme accepts per decode (~seconds).
_HYBRID_WORK_LIMIT = 50_000_000


@dataclass(frozen=True)
class ISGCResult:
    """What an ignore-stragglers decode recovered.

    ``gradient``: the partial sum over ``partitions`` (zeros when empty);
    ``workers``: the survivors whose messages were added; ``empty``: True
    when nothing could be recovered (no survivor).

    Parameters
    ----------
    gradient : numpy.ndarray
        The partial sum over ``partitions``.
    partitions : tuple of int
        Partitions recovered.
    workers : tuple of int
        Survivors whose messages were added.
    empty : bool
        True when nothing was recovered.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import ISGCCode, ISGCResult
    >>> code = ISGCCode(6, 1)  # fractional repetition, 2 partitions per worker
    >>> r = code.ignore_decode([0, 3], code.encode(np.ones((6, 2)))[[0, 3]])
    >>> r.partitions, r.workers, r.gradient.tolist(), r.recovered
    ((0, 1, 2, 3), (0, 3), [4.0, 4.0], 4)
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


# ------------------------------------------------------------------ the code
class ISGCCode(EmptyDecodeMixin, _ApproximateCode):
    """Ignore-stragglers gradient code (IS-GC) on an FR, CR or hybrid placement (authors' code).

    Parameters
    ----------
    n, s : int
        Workers (= partitions) and the design tolerance: ``c = s + 1``
        partitions per worker.
    placement : {"frc", "cyclic", "hybrid"}
        Fractional repetition (``(s + 1) | n``), cyclic repetition, or hybrid
        repetition (give ``c1`` and ``groups``; see the module docstring).
    c1, groups : int, keyword-only, hybrid only
        In-group partitions per worker (``0 <= c1 <= c``) and number of
        groups (``groups | n``, ``c <= n / groups``).

    Notes
    -----
    Every worker sends the plain sum of its partitions; ``decode`` returns the
    sum over the largest set of recoverable partitions (coefficient 1 on a
    largest set of survivors with disjoint supports), so
    ``decoder_error(T)`` is the number of partitions *not* recovered and the
    relative residual is ``sqrt(missing / k)`` in closed form.

    Examples
    --------
    >>> from gctheory.codes import ISGCCode
    >>> code = ISGCCode(6, 1, placement="cyclic")
    >>> code.select([0, 1, 3, 4]), code.recovered_count([0, 1, 3, 4])
    ([0, 3], 4)
    >>> code.expected_recovered(2)
    Fraction(24, 5)
    """

    name = "IS-GC (ignore stragglers)"

    def __init__(
        self,
        n: int,
        s: int,
        placement: str = "frc",
        *,
        c1: int | None = None,
        groups: int | None = None,
    ) -> None:
        n = check_int(n, "n", low=1)
        s = check_int(s, "s", low=0, high=n - 1)
        self.placement = check_choice(placement, "placement", ("frc", "cyclic", "hybrid"))
        c = s + 1
        if self.placement != "hybrid" and (c1 is not None or groups is not None):
            raise ValueError(
                f"c1 and groups are options of placement='hybrid' only, not {placement!r}"
            )
        if self.placement == "frc":
            if n % c:
                raise ValueError(
                    f"s + 1 must divide n for fractional repetition, got n={n}, s={s} "
                    "(use placement='cyclic' or 'hybrid')"
                )
            c1, groups = c, n // c
        elif self.placement == "cyclic":
            c1, groups = 0, 1
        elif c1 is None or groups is None:
            raise ValueError("placement='hybrid' needs c1 (in-group partitions) and groups")
        self.n, self.c1, self.groups = n, *_check_hybrid(n, c, c1, groups)[2:]
        self.k = n
        self.design_s = s
        self.c = c
        self.support = hybrid_support(n, c, self.c1, self.groups)
        self.A = self.support.astype(np.int8)
        self.load = c
        if self.placement == "hybrid":
            self.name = f"IS-GC hybrid (c1={self.c1}, groups={self.groups})"
        else:
            self.name = f"IS-GC {self.placement}"

    def __repr__(self) -> str:
        extra = f", c1={self.c1}, groups={self.groups}" if self.placement == "hybrid" else ""
        return f"ISGCCode(n={self.n}, s={self.design_s}, placement={self.placement!r}{extra})"

    # -- decoding
    def select(self, survivors: Survivors) -> list[int]:
        """A largest set of survivors with pairwise disjoint partitions (sorted)."""
        T = validate_survivors(survivors, self.n, 0)
        return self._select(T)

    def _select(self, T: np.ndarray) -> list[int]:
        if self.placement == "frc":
            pick = np.full(self.groups, -1, dtype=np.int64)
            pick[T // self.c] = T
            return sorted(pick[pick >= 0].tolist())
        return hybrid_max_disjoint(self.n, self.c, self.c1, self.groups, T)

    def _coefficients_residual(
        self, T: np.ndarray, alive: np.ndarray | None = None
    ) -> tuple[np.ndarray, float]:
        """Coefficient 1 on the selected survivors; residual ``sqrt(missing / k)`` exactly."""
        if self.placement == "frc":
            A, present = _one_per_group(T, T // self.c, self.groups)
            return A, group_residual(self.groups - present, self.c, self.k)
        chosen = self._select(T)
        pos = np.empty(self.n, dtype=np.int64)
        pos[T] = np.arange(T.size)
        A = np.zeros((T.size, 1))
        A[pos[chosen], 0] = 1.0
        return A, group_residual(self.k - self.c * len(chosen), 1, self.k)

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        return self._coefficients_residual(T)[0], 1.0  # a sum of disjoint rows: no solve

    def recovered_count(self, survivors: Survivors) -> int:
        """Partitions recovered from ``survivors`` (structure only)."""
        return self.c * len(self.select(survivors))

    def decoder_error(self, survivors: Survivors) -> float:
        """Partitions not recovered: ``||A_T^T u - 1||^2`` of the 0/1 decoder (``k`` with no
        survivor)."""
        return float(self.k - self.recovered_count(validate_survivors(survivors, self.n, 0)))

    def ignore_decode(self, survivors: Survivors, received: Any) -> ISGCResult:
        """The largest recoverable partial sum as an :class:`ISGCResult` (empty, not an
        exception, when no worker survives)."""
        T = validate_survivors(survivors, self.n, 0)
        Y = check_array(received, "received", min_size=0)  # no NaN/inf
        if Y.ndim != 2 or Y.shape[0] != T.size:
            raise ValueError(
                f"received must have shape (len(survivors), d) = ({T.size}, d), got {Y.shape}"
            )
        chosen = self._select(T)
        if not chosen:
            return ISGCResult(np.zeros(Y.shape[1]), (), (), True)
        pos = np.empty(self.n, dtype=np.int64)
        pos[T] = np.arange(T.size)
        g = Y[pos[chosen]].sum(axis=0)
        parts = np.flatnonzero(self.support[chosen].any(axis=0))
        return ISGCResult(g, tuple(int(j) for j in parts), tuple(chosen), False)

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """FR: ``n`` look-ups; CR / hybrid: the programme's ``n c (c2 + 1)`` steps; then one
        addition per entry of each chosen survivor (at most ``n / c``)."""
        d = check_positive_int("d", d)
        setup = self.n if self.placement == "frc" else self.n * self.c * (self.c - self.c1 + 1)
        return DecodingCost(
            setup=setup, apply=(self.n // self.c) * d, method="largest disjoint survivor set"
        )

    # -- expectations
    def sample_recovered(self, stragglers: int, rng: Any, size: int) -> np.ndarray:
        """Recovered counts for ``size`` uniformly random sets of ``stragglers`` stragglers
        (a sampler for :func:`gctheory.montecarlo.estimate_mean`)."""
        e = check_int(stragglers, "stragglers", low=0, high=self.n)
        gen = as_generator(rng)
        out = np.empty(size)
        for t in range(size):
            out[t] = self.c * len(self._select(np.sort(gen.permutation(self.n)[: self.n - e])))
        return out

    def expected_recovered(self, stragglers: int, *, max_sets: int = 20_000) -> Fraction:
        """Exact expected partitions recovered with ``stragglers`` uniformly random stragglers.

        FR: the closed form :func:`frc_expected_recovered`. CR / hybrid: the
        mean over every one of the ``C(n, e)`` straggler sets (exact rational)
        when there are at most ``max_sets``; otherwise refused with the count
        (use :meth:`sample_recovered` with Monte Carlo).
        """
        e = check_int(stragglers, "stragglers", low=0, high=self.n)
        if self.placement == "frc":
            return frc_expected_recovered(self.n, self.design_s, e)
        total = math.comb(self.n, e)
        if total > max_sets:
            raise ValueError(
                f"exact expectation needs all C({self.n}, {e}) = {total} straggler sets, more "
                f"than max_sets={max_sets}; estimate it with sample_recovered and "
                "gctheory.montecarlo.estimate_mean"
            )
        acc = 0
        for T in itertools.combinations(range(self.n), self.n - e):
            acc += len(self._select(np.array(T, dtype=np.int64)))
        return Fraction(self.c * acc, total)


class ISGCDecoder:
    """Ignore-stragglers decoder for a binary placement: :class:`ISGCCode` with the
    :class:`ISGCResult` decode (the name used before the hybrid placement was added).

    ``ISGCDecoder(n, s, placement, c1=..., groups=...)``; ``encode(partials)``
    gives every worker's plain sum; ``decode(survivors, received)`` returns an
    :class:`ISGCResult`; ``code`` is the underlying :class:`ISGCCode`.

    Parameters
    ----------
    n : int
        Workers (= partitions).
    s : int
        Design tolerance.
    placement : {"frc", "cyclic", "hybrid"}
        The placement.
    **kw
        ``c1`` and ``groups`` of the hybrid placement.

    Examples
    --------
    >>> from gctheory.codes import ISGCDecoder
    >>> import numpy as np
    >>> dec = ISGCDecoder(6, 1)
    >>> y = dec.encode(np.ones((6, 2)))
    >>> dec.decode([0, 1, 4], y[[0, 1, 4]]).partitions
    (0, 1, 4, 5)
    """

    def __init__(self, n: int, s: int, placement: str = "frc", **kw: Any) -> None:
        self.code = ISGCCode(n, s, placement, **kw)
        self.n, self.s, self.k = self.code.n, self.code.design_s, self.code.k
        self.placement = self.code.placement
        self.support = self.code.support

    def encode(self, partials: Any) -> np.ndarray:
        P = np.asarray(partials, dtype=float)
        if P.ndim != 2 or P.shape[0] != self.k:
            raise ValueError(f"partials must have shape (k, d) = ({self.k}, d), got {P.shape}")
        return self.code.encode(P)

    def select(self, survivors: Survivors) -> list[int]:
        """Survivors whose messages are summed: disjoint partition sets, most partitions."""
        return self.code.select(survivors)

    def decode(self, survivors: Survivors, received: Any) -> ISGCResult:
        return self.code.ignore_decode(survivors, received)

    def recovered_count(self, survivors: Survivors) -> int:
        """Partitions recovered from ``survivors`` (structure only)."""
        return self.code.recovered_count(survivors)

    def sample_recovered(self, stragglers: int, rng: Any, size: int) -> np.ndarray:
        """Recovered counts for ``size`` uniformly random straggler sets (Monte Carlo sampler)."""
        return self.code.sample_recovered(stragglers, rng, size)
