"""The ignore-stragglers gradient code and its decoder."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_choice, check_int
from gctheory.codes._empty import EmptyDecodeMixin
from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import _ApproximateCode
from gctheory.codes.base import DecodingCost, check_positive_int, validate_survivors
from gctheory.codes.isgc._disjoint import (
    _check_hybrid,
    frc_expected_recovered,
    hybrid_max_disjoint,
    hybrid_support,
)
from gctheory.codes.tandon import _one_per_group, group_residual

__all__ = ["ISGCResult", "ISGCCode", "ISGCDecoder"]


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
