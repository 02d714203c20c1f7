"""Tandon et al.'s partial schemes: two messages per worker, the uncoded pieces first,
then a coded block (:class:`PartialCyclicScheme`, :class:`PartialReplicationScheme`).

Private to :mod:`gctheory.codes.partial` (described there; import the names from
there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_int, check_memory
from gctheory.codes.partial._placement import PartialRecovery
from gctheory.codes.partial._timing import (
    _cdf_at,
    _check_dist,
    _check_progress,
    _check_tau,
    _expected_time,
)

__all__ = ["PartialCyclicScheme", "PartialReplicationScheme"]


# ----------------------------------------------------------------------------- Tandon's schemes
class _TwoMessageScheme:
    """Common part of Tandon et al.'s partial schemes (two messages per worker)."""

    kind = "two-message"

    def __init__(self, n: int, s: int, p: int) -> None:
        self.n = check_int(n, "n", low=1)
        self.s = check_int(s, "s", low=0, high=self.n - 1)
        self.p = check_int(p, "p (pieces per worker)", low=self.s + 1)
        check_memory(*self._memory(self.n))  # before any array: n = 10**18 is refused at once
        self.u = self.p - self.s - 1  # uncoded pieces per worker
        self.k = (self.p - self.s) * self.n
        self.lengths = np.full(self.n, self.p, dtype=np.int64)
        self.load = self.p

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n}, s={self.s}, p={self.p})"

    @property
    def slowdown_tolerated(self) -> float:
        """How many times slower a worker may be and still send its uncoded sum in time: p/u."""
        return math.inf if self.u == 0 else self.p / self.u

    @staticmethod
    def _memory(n: int) -> tuple[int, str, str]:
        """(bytes, parameter, what needs them) for :func:`check_memory`: the piece counts."""
        return 8 * n, "n", f"an array of the piece counts of {n} workers"

    def uncoded(self, i: int) -> np.ndarray:
        """Worker i's own uncoded partitions (first message)."""
        return i * self.u + np.arange(self.u)

    def coded(self, i: int) -> np.ndarray:
        raise NotImplementedError

    # -- the coded block, one implementation per scheme
    def _encode_block(self, block: np.ndarray) -> np.ndarray:
        """Second messages (n, d) for the coded block's partition gradients."""
        raise NotImplementedError

    def _decode_block(self, idx: list[int], S2: np.ndarray) -> tuple[np.ndarray, list[int]]:
        """(sum, block partitions recovered) from the second messages of workers ``idx``."""
        raise NotImplementedError

    def _coded_recovered(self, s2: np.ndarray) -> np.ndarray:
        """Block partitions recovered per trial, given who delivered a second message."""
        raise NotImplementedError

    def _coded_time(self, full: np.ndarray) -> np.ndarray:
        """Time the block is decodable, given each worker's time to finish all p pieces."""
        raise NotImplementedError

    def _coded_expected(self, q2: float) -> float:
        """Expected block partitions recovered when each second message arrives w.p. q2."""
        raise NotImplementedError

    def _exact(self, q1: float, q2: float) -> float:
        """P(exact recovery) given the first and second messages' arrival probabilities."""
        raise NotImplementedError

    def order(self, i: int) -> np.ndarray:
        """Worker i's pieces in processing order: uncoded first, then coded."""
        return np.concatenate([self.uncoded(i), self.coded(i)])

    def encode(self, partials: Any) -> tuple[np.ndarray, np.ndarray]:
        """(first, second) messages (n, d) each, for partition gradients (k, d)."""
        P = np.asarray(partials, dtype=float)
        if P.ndim != 2 or P.shape[0] != self.k:
            raise ValueError(f"partials must have shape (k, d) = ({self.k}, d), got {P.shape}")
        first = np.array([P[self.uncoded(i)].sum(axis=0) for i in range(self.n)])
        block = P[self.n * self.u :]
        return first, self._encode_block(block)

    def progress(self, X: Any, tau: float) -> np.ndarray:
        tau = _check_tau(tau)
        X = np.asarray(X, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.floor(np.where(X > 0, tau * self.k / X, np.inf) + 1e-12)
        return np.minimum(m, self.p).astype(np.int64)

    def messages(self, progress: Any) -> tuple[np.ndarray, np.ndarray]:
        """(first delivered, second delivered) booleans for pieces finished ``progress``."""
        M = _check_progress(progress, self.lengths)
        return M >= self.u, M >= self.p

    def decode(self, first_from: Sequence[int], second_from: Sequence[int], first: Any,
               second: Any) -> PartialRecovery:  # fmt: skip
        """Sum of what the received messages give: the uncoded sums plus the decodable coded part.

        ``first`` and ``second`` are (n, d) arrays of which only the rows of
        ``first_from`` and ``second_from`` are read.
        """
        F = np.asarray(first, dtype=float)
        S2 = np.asarray(second)
        f_idx = sorted({int(i) for i in first_from})
        s_idx = sorted({int(i) for i in second_from})
        for name, idx in (("first_from", f_idx), ("second_from", s_idx)):
            if idx and (idx[0] < 0 or idx[-1] >= self.n):
                raise ValueError(f"{name} must hold worker indices in [0, n) with n = {self.n}")
        d = F.shape[1]
        g = F[f_idx].sum(axis=0) if f_idx else np.zeros(d)
        parts = [int(j) for i in f_idx for j in self.uncoded(i)]
        cg, cparts = self._decode_block(s_idx, S2)
        if cparts:
            g = g + cg
            parts += [self.n * self.u + j for j in cparts]
        parts_t = tuple(sorted(parts))
        return PartialRecovery(np.real_if_close(g), parts_t, self.k, len(parts_t) == self.k)

    def recovered(self, progress: Any) -> np.ndarray:
        """Partitions recovered from the messages delivered, per trial."""
        f, s2 = self.messages(progress)
        return self.u * f.sum(axis=-1) + self._coded_recovered(s2)

    def recovery_time(self, X: Any, rule: str = "partial") -> np.ndarray:
        """Time of exact recovery: every first message and the coded block decodable.

        ``rule="partial"``: the scheme as designed; ``"whole"``: no uncoded
        part counted separately (a worker counts once it finished all p pieces).
        """
        check_choice(rule, "rule", ("partial", "whole"))
        X = np.asarray(X, dtype=float)
        full = X * self.p / self.k
        coded_t = self._coded_time(full)
        if rule == "whole":
            return np.maximum(full.max(axis=-1) if self.u else 0.0, coded_t)
        first_t = X * self.u / self.k
        return np.maximum(first_t.max(axis=-1), coded_t)

    def expected_fraction(self, tau: float, dist: Any) -> float:
        """Exact expected fraction recovered by ``tau`` (independent workers)."""
        tau = _check_tau(tau)
        _check_dist(dist)
        q1 = 1.0 if self.u == 0 else float(_cdf_at(dist, tau, self.k, np.array([self.u]))[0])
        q2 = float(_cdf_at(dist, tau, self.k, np.array([self.p]))[0])
        return (self.n * self.u * q1 + self._coded_expected(q2)) / self.k

    def exact_probability(self, tau: float, dist: Any, rule: str = "partial") -> float:
        """P(exact recovery by ``tau``), exact (independent workers)."""
        tau = _check_tau(tau)
        _check_dist(dist)
        check_choice(rule, "rule", ("partial", "whole"))
        q1 = 1.0 if self.u == 0 else float(_cdf_at(dist, tau, self.k, np.array([self.u]))[0])
        q2 = float(_cdf_at(dist, tau, self.k, np.array([self.p]))[0])
        if rule == "whole" and self.u:
            return q2**self.n
        return self._exact(q1, q2)

    def expected_time(self, dist: Any, rule: str = "partial") -> float:
        """E[time of exact recovery] (numerical integration of the exact distribution)."""
        _check_dist(dist)
        scale = float(dist.mean()) * self.p / self.k
        return _expected_time(lambda t: self.exact_probability(t, dist, rule), scale)


class PartialCyclicScheme(_TwoMessageScheme):
    """Tandon et al.'s partial coded scheme: uncoded pieces, then a cyclic-MDS coded block.

    ``n`` workers, ``s`` full stragglers, ``p >= s + 1`` pieces per worker
    (``p = s + 1`` is the plain cyclic-MDS gradient code). The coded block's
    partitions ``n u + ((i + a) mod n)``, ``a <= s``, carry the coefficients of
    :class:`gctheory.codes.CyclicMDSCode` ``(n, s)`` (``rng`` seeds its random
    construction).

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Full stragglers tolerated.
    p : int
        Pieces per worker, ``p >= s + 1``.
    rng : None, int or numpy.random.Generator
        Seed of the cyclic-MDS code's random construction.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes.partial import PartialCyclicScheme
    >>> scheme = PartialCyclicScheme(4, 1, 3)
    >>> t = scheme.recovery_time(np.array([1.0, 1.0, 1.0, 50.0]))
    >>> round(float(t), 4)
    6.25
    """

    name = "partial cyclic (Tandon et al. Sec. 5)"

    def __init__(self, n: int, s: int, p: int, *, rng: Any = 0) -> None:
        super().__init__(n, s, p)
        from gctheory.codes.tandon import CyclicMDSCode

        self.code = CyclicMDSCode(self.n, self.s, rng=rng)

    @staticmethod
    def _memory(n: int) -> tuple[int, str, str]:
        # the figure CyclicMDSCode checks, here before the scheme allocates anything
        return 33 * n * n, "n", f"the {n} x {n} coding matrix of the cyclic-MDS block"

    def coded(self, i: int) -> np.ndarray:
        return self.n * self.u + (i + np.arange(self.s + 1)) % self.n

    def _encode_block(self, block: np.ndarray) -> np.ndarray:
        return self.code.encode(block)

    def _decode_block(self, idx: list[int], S2: np.ndarray) -> tuple[np.ndarray, list[int]]:
        if len(idx) < self.n - self.s:
            return np.zeros(S2.shape[1]), []
        return self.code.decode(idx, S2[idx]), list(range(self.n))

    def _coded_recovered(self, s2: np.ndarray) -> np.ndarray:
        return self.n * (s2.sum(axis=-1) >= self.n - self.s)

    def _coded_time(self, full: np.ndarray) -> np.ndarray:
        return np.sort(full, axis=-1)[..., self.n - self.s - 1]

    def _coded_expected(self, q2: float) -> float:
        from scipy.stats import binom

        return self.n * float(binom.sf(self.n - self.s - 1, self.n, q2))

    def _exact(self, q1: float, q2: float) -> float:
        # every worker's first message (q1), at least n - s of them also the second (q2)
        return sum(math.comb(self.n, j) * q2**j * (q1 - q2) ** (self.n - j)
                   for j in range(self.n - self.s, self.n + 1))  # fmt: skip


class PartialReplicationScheme(_TwoMessageScheme):
    """Tandon et al.'s partial replication: uncoded pieces, then a fractional-repetition block.

    ``s + 1`` must divide ``n``; group ``g`` (workers ``g (s+1) .. g (s+1) + s``)
    shares the coded block's partitions ``n u + g (s+1) + b``, ``b <= s``; the
    second message is their sum and one per group suffices.

    Parameters
    ----------
    n : int
        Workers; ``s + 1`` divides it.
    s : int
        Full stragglers tolerated.
    p : int
        Pieces per worker, ``p >= s + 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes.partial import PartialReplicationScheme
    >>> scheme = PartialReplicationScheme(4, 1, 3)
    >>> round(float(scheme.recovery_time(np.array([1.0, 1.0, 1.0, 50.0]))), 4)
    6.25
    """

    name = "partial replication (Tandon et al. Sec. 5)"

    def __init__(self, n: int, s: int, p: int) -> None:
        super().__init__(n, s, p)
        if self.n % (self.s + 1):
            raise ValueError(
                f"s + 1 must divide n for partial replication, got n={self.n}, s={self.s}"
            )
        self.groups = self.n // (self.s + 1)

    def coded(self, i: int) -> np.ndarray:
        g = i // (self.s + 1)
        return self.n * self.u + g * (self.s + 1) + np.arange(self.s + 1)

    def _encode_block(self, block: np.ndarray) -> np.ndarray:
        c = self.s + 1
        return np.array([block[(i // c) * c : (i // c + 1) * c].sum(axis=0) for i in range(self.n)])

    def _decode_block(self, idx: list[int], S2: np.ndarray) -> tuple[np.ndarray, list[int]]:
        c = self.s + 1
        pick: dict[int, int] = {}
        for i in idx:
            pick.setdefault(i // c, i)
        g = np.zeros(S2.shape[1])
        parts: list[int] = []
        for grp, i in sorted(pick.items()):
            g = g + S2[i]
            parts += list(range(grp * c, grp * c + c))
        return g, parts

    def _coded_recovered(self, s2: np.ndarray) -> np.ndarray:
        c = self.s + 1
        per = s2.reshape(*s2.shape[:-1], self.groups, c).any(axis=-1)
        return c * per.sum(axis=-1)

    def _coded_time(self, full: np.ndarray) -> np.ndarray:
        c = self.s + 1
        return full.reshape(*full.shape[:-1], self.groups, c).min(axis=-1).max(axis=-1)

    def _coded_expected(self, q2: float) -> float:
        return self.n * (1 - (1 - q2) ** (self.s + 1))

    def _exact(self, q1: float, q2: float) -> float:
        # per group: every first message, at least one second
        c = self.s + 1
        return (q1**c - (q1 - q2) ** c) ** self.groups
