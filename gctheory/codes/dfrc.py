"""The d-fractional repetition code (d-FRC) of Wang, Liu, Shroff 2019, an approximate code.

Definition 4 of [1] (and Remark 1 when ``d`` does not divide ``n``) with the
group-sum decoder: sum the transmissions of survivors holding disjoint data
that together cover everything (a longest-path/interval-scheduling search over
the contiguous blocks; it reduces to "one survivor per block" when ``d | n``).
Exact failure probability and expected error under ``s`` uniform stragglers
(:func:`dfrc_failure_probability`, :func:`dfrc_expected_error`) and the load
of Theorem 4 (:func:`dfrc_theorem4_load`). Notation of
:mod:`gctheory.codes.approximate`, which re-exports every name here.

References
----------
.. [1] H. Wang, S. Liu, N. B. Shroff, "Fundamental limits of approximate
   gradient coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._group_failure import _group_failure
from gctheory._validate import as_generator, check_choice, check_memory
from gctheory.codes._approximate import _ApproximateCode
from gctheory.codes._survivors import Survivors
from gctheory.codes.base import DecodingCost, check_positive_int, validate_survivors
from gctheory.codes.tandon import _check_ns, _one_per_group, group_residual

__all__ = [
    "dfrc_group_sizes",
    "dfrc_failure_probability",
    "dfrc_expected_error",
    "dfrc_theorem4_load",
    "DFractionalRepetitionCode",
]


def dfrc_group_sizes(n: int, d: int, *, rng: Any = None) -> np.ndarray:
    """Sizes of the ``d`` replica groups of the d-FRC (Definition 4, Remark 1 of Wang et al.).

    ``n / d`` each when ``d | n``; otherwise ``floor(n / d)`` each and
    ``n mod d`` groups, chosen uniformly at random with ``rng``, one larger.
    Requires ``1 <= d <= n``.

    Parameters
    ----------
    n : int
        Workers.
    d : int
        Replica groups (the load), ``1 <= d <= n``.
    rng : None, int or numpy.random.Generator
        Chooses the larger groups when ``d`` does not divide ``n``.

    Returns
    -------
    numpy.ndarray of int, shape (d,)
        The group sizes, summing to ``n``.

    Examples
    --------
    >>> from gctheory.codes import dfrc_group_sizes
    >>> dfrc_group_sizes(12, 3).tolist(), sorted(dfrc_group_sizes(10, 3, rng=0).tolist())
    ([4, 4, 4], [3, 3, 4])
    """
    n = check_positive_int("n", n)
    d = check_positive_int("d", d)
    if d > n:
        raise ValueError(f"d must be <= n (d groups of at least one worker), got d={d}, n={n}")
    if n >= 2**62:
        raise ValueError(f"n must be below 2**62 (int64 group sizes), got {n}")
    check_memory(8 * d, "d", f"{d} group sizes")
    rng = as_generator(rng)
    sizes = np.full(d, n // d, dtype=np.int64)
    extra = n % d
    if extra:
        sizes[rng.choice(d, size=extra, replace=False)] += 1
    return sizes


def _intervals(n: int, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Partition intervals ``[lo, hi)`` of every worker: group g splits ``0..n-1`` into
    ``sizes[g]`` contiguous near-equal blocks (the first ``n mod size`` one larger)."""
    lo, hi = [], []
    for size in sizes:
        q, r = divmod(n, int(size))
        lens = np.full(int(size), q)
        lens[:r] += 1
        ends = np.cumsum(lens)
        lo.extend((ends - lens).tolist())
        hi.extend(ends.tolist())
    return np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64)


def _group_sum_select(
    lo: np.ndarray, hi: np.ndarray, alive: np.ndarray, k: int
) -> tuple[np.ndarray, int]:
    """Disjoint surviving intervals covering the most partitions (weighted interval DP).

    Returns the chosen worker indices and the number of partitions left
    uncovered. ``best[b]`` = most partitions of ``0..b-1`` covered by
    disjoint surviving intervals inside ``[0, b)``.
    """
    ends: list[list[int]] = [[] for _ in range(k + 1)]
    for j in np.flatnonzero(alive):
        ends[int(hi[j])].append(int(j))
    best = np.zeros(k + 1, dtype=np.int64)
    choice = np.full(k + 1, -1, dtype=np.int64)  # -1: partition b-1 left uncovered
    for b in range(1, k + 1):
        best[b] = best[b - 1]
        for i in ends[b]:
            v = best[lo[i]] + (b - lo[i])
            if v > best[b]:
                best[b], choice[b] = v, i
    chosen = []
    b = k
    while b > 0:
        i = int(choice[b])
        if i < 0:
            b -= 1
        else:
            chosen.append(i)
            b = int(lo[i])
    return np.asarray(chosen[::-1], dtype=np.int64), int(k - best[k])


def dfrc_failure_probability(n: int, d: int, s: int) -> Fraction | float:
    """Exact ``P(err(A_S) > 0)`` of the d-FRC with ``d | n`` under ``s`` uniform stragglers.

    Decoding fails iff all ``d`` replicas of some block straggle; by
    inclusion-exclusion over the ``n/d`` blocks,
    ``sum_{j>=1} (-1)^{j+1} C(n/d, j) C(n - j d, s - j d) / C(n, s)``
    (the event analysed in Theorem 4 of Wang et al. 2019). Exact rational while that
    is cheap (n up to about 10**4), else a float with relative error about
    ``1e-13 sqrt(n)``: the computation of
    :func:`gctheory.load_bounds.group_failure_probability` with ``n/d`` groups of
    ``d``, shared (the big-integer sum took over 60 s at n = 10**6).

    Parameters
    ----------
    n : int
        Workers.
    d : int
        Load (replicas per block), dividing ``n``.
    s : int
        Stragglers, ``0 <= s <= n``.

    Returns
    -------
    fractions.Fraction or float
        ``P(err > 0)``, exact where cheap.

    Examples
    --------
    >>> from gctheory.codes import dfrc_failure_probability
    >>> dfrc_failure_probability(6, 2, 2)  # 3 blocks: both replicas of one straggle
    Fraction(1, 5)
    """
    n, s = _check_ns(n, s)
    d = check_positive_int("d", d)
    if n % d:
        raise ValueError(f"d must divide n for the closed form, got n={n}, d={d}")
    return _group_failure(n, s, Counter({d: n // d}))


def dfrc_expected_error(n: int, d: int, s: int) -> Fraction:
    """Exact ``E[err]`` of the d-FRC group-sum decoder, ``d | n``, ``s`` uniform stragglers.

    A block of ``d`` partitions is lost iff its ``d`` replicas all straggle,
    probability ``C(n - d, s - d) / C(n, s)``; ``err`` counts lost partitions,
    so ``E[err] = n C(n - d, s - d) / C(n, s)`` (linearity of expectation).

    Parameters
    ----------
    n : int
        Workers.
    d : int
        Load, dividing ``n``.
    s : int
        Stragglers.

    Returns
    -------
    fractions.Fraction
        ``E[err] = n C(n - d, s - d) / C(n, s)``.

    Examples
    --------
    >>> from gctheory.codes import dfrc_expected_error
    >>> dfrc_expected_error(6, 2, 2)
    Fraction(2, 5)
    """
    n, s = _check_ns(n, s)
    d = check_positive_int("d", d)
    if n % d:
        raise ValueError(f"d must divide n for the closed form, got n={n}, d={d}")
    if s < d:
        return Fraction(0)
    return Fraction(n * math.comb(n - d, s - d), math.comb(n, s))


def dfrc_theorem4_load(n: int, s: int) -> float:
    """``d = max{1, log(n log(1/delta)) / log(1/delta)}``, ``delta = s/n`` (Wang et al. eq. (14)).

    The load Theorem 4 prescribes for ``P(err > 0) = o(1)``, in natural logs.
    The paper does not name the base and the formula is *not* base-free (a log
    sits inside a log): at n = 1000, s = 100 it is 3.36 with ln, 3.0 with log10.
    :func:`gctheory.load_bounds.frc_load` returns the same value with its regime.
    Requires ``0 < s < n``.

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Stragglers, ``0 < s < n``.

    Returns
    -------
    float
        The load ``d`` of eq. (14) (not rounded).

    Examples
    --------
    >>> from gctheory.codes import dfrc_theorem4_load
    >>> round(dfrc_theorem4_load(1000, 100), 4)
    3.3622
    """
    n, s = _check_ns(n, s)
    if s == 0:
        raise ValueError("s must be >= 1: delta = s/n must lie in (0, 1) for eq. (14)")
    L = math.log(n / s)
    return max(1.0, math.log(n * L) / L)


class DFractionalRepetitionCode(_ApproximateCode):
    """d-fractional repetition code, Definition 4 of Wang et al. 2019 (Remark 1 if ``d`` ∤ ``n``).

    Workers are split into ``d`` replica groups (:func:`dfrc_group_sizes`);
    inside a group of ``n_g`` workers the ``k = n`` partitions are cut into
    ``n_g`` contiguous blocks, one per worker, who sends the block sum. With
    ``d | n`` every block has ``d`` partitions and ``d`` replicas (load ``d``,
    any ``d - 1`` stragglers are tolerated: it is Tandon et al.'s fractional
    repetition code with ``s = d - 1``); otherwise the load is
    ``ceil(n / floor(n/d))``.

    Parameters
    ----------
    n, d : int
        Workers and replication, ``1 <= d <= n``.
    rng : optional
        Chooses the enlarged groups of Remark 1 (unused when ``d | n``).
    decoder : {"group", "lstsq"}
        ``"group"``: the group-sum decoder of Section 3.2 (sum disjoint
        survivors covering the most partitions); ``"lstsq"``: the optimal
        decoder of eq. (4).

    Examples
    --------
    >>> from gctheory.codes import DFractionalRepetitionCode
    >>> import numpy as np
    >>> code = DFractionalRepetitionCode(6, 2)  # 2 replica groups, load 2
    >>> code, code.worst_case_tolerance
    (DFractionalRepetitionCode(n=6, k=6, load=2, m=1, s=None), 1)
    >>> g = np.ones((6, 2))
    >>> survivors = [0, 1, 2, 4]  # block 1 is still held by worker 1 of group 0
    >>> code.decode(survivors, code.encode(g)[survivors]).tolist()
    [6.0, 6.0]
    >>> code.decoder_error(survivors)
    0.0
    """

    name = "d-fractional repetition (Wang et al. 2019)"

    def __init__(self, n: int, d: int, *, rng: Any = None, decoder: str = "group") -> None:
        check_choice(decoder, "decoder", ("group", "lstsq"))
        n = check_positive_int("n", n)
        # the n x n coding matrix as int8 and bool, and its float copy for decoding
        check_memory(10 * n * n, "n", f"the {n} x {n} coding matrix")
        self.group_sizes = dfrc_group_sizes(n, d, rng=rng)
        self.n = self.k = int(n)
        self.d = int(d)
        self.decoder = decoder
        self._lo, self._hi = _intervals(self.n, self.group_sizes)
        cols = np.arange(self.n)
        self.A = ((cols >= self._lo[:, None]) & (cols < self._hi[:, None])).astype(np.int8)
        self.support = self.A.astype(bool)
        self.load = int(self.support.sum(axis=1).max())

    @property
    def worst_case_tolerance(self) -> int | None:
        """``d - 1`` when ``d | n`` (every block has ``d`` replicas), else None (not claimed)."""
        return self.d - 1 if self.n % self.d == 0 else None

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        if self.decoder == "lstsq":
            return super()._solve(T)
        return self._group_decode(T)[0], 1.0  # a sum of disjoint rows: no system is solved

    def _group_decode(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        """Group-sum coefficients and their residual in closed form.

        The chosen survivors hold disjoint blocks and get coefficient 1, so
        ``A_T^T u - 1`` is exactly -1 on the uncovered partitions and 0
        elsewhere: residual ``sqrt(uncovered / k)`` (:func:`group_residual`).
        """
        if self.n % self.d == 0:
            # equal groups: worker w holds block w mod (n/d) of d partitions
            blocks = self.n // self.d
            A, present = _one_per_group(T, T % blocks, blocks)
            return A, group_residual(blocks - present, self.d, self.k)
        alive = np.zeros(self.n, dtype=bool)
        alive[T] = True
        chosen, uncovered = _group_sum_select(self._lo, self._hi, alive, self.k)
        pos = np.empty(self.n, dtype=np.int64)
        pos[T] = np.arange(T.size)
        A = np.zeros((T.size, 1))
        A[pos[chosen], 0] = 1.0
        return A, group_residual(uncovered, 1, self.k)

    def _coefficients_residual(
        self, T: np.ndarray, alive: np.ndarray | None = None
    ) -> tuple[np.ndarray, float]:
        if self.decoder == "lstsq":
            return super()._coefficients_residual(T, alive)
        return self._group_decode(T)

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Group-sum decoder: an ``O(k + |T|)`` interval search, then one addition per entry
        of each chosen survivor (at most ``max(group_sizes)`` of them). ``lstsq``: dense."""
        if self.decoder == "lstsq":
            return super().decoding_cost(survivors, d)
        t = self.n if survivors is None else len(survivors)
        r = check_positive_int("d", d)
        chosen = int(self.group_sizes.max())
        return DecodingCost(setup=self.k + t, apply=chosen * r, method="group sum (interval DP)")

    def decoder_error(self, survivors: Survivors) -> float:
        """Number of partitions the group-sum decoder misses (or eq. (5) for ``lstsq``)."""
        if self.decoder == "lstsq":
            return super().decoder_error(survivors)
        T = validate_survivors(survivors, self.n, 1)
        alive = np.zeros(self.n, dtype=bool)
        alive[T] = True
        return float(_group_sum_select(self._lo, self._hi, alive, self.k)[1])
