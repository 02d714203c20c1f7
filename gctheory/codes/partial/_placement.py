"""Repetition placements decoded by counting finished partitions (:class:`PartialPlacement`)
and the result of such a decode (:class:`PartialRecovery`).

Private to :mod:`gctheory.codes.partial` (the model, the exact results and their
references are described there; import the names from there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_int, check_memory
from gctheory.codes.partial._timing import (
    PARTIAL_RULES,
    _cdf_at,
    _check_dist,
    _check_progress,
    _check_tau,
    _cyclic_cover_probability,
    _expected_time,
)

__all__ = ["PartialRecovery", "PartialPlacement"]


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PartialRecovery:
    """What a partial-work decode recovered: ``gradient`` is the sum over ``partitions``.

    Parameters
    ----------
    gradient : numpy.ndarray
        Sum of the recovered partitions' gradients.
    partitions : tuple of int
        The partitions recovered.
    k : int
        Partitions in all.
    exact : bool
        Whether every partition was recovered.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes.partial import PartialPlacement
    >>> place = PartialPlacement.cyclic(4, 1)
    >>> progress = place.progress(np.array([1.0, 1.0, 9.0, 9.0]), tau=1.0)
    >>> r = place.decode(progress, np.ones((4, 2)))
    >>> r.partitions, r.exact, r.fraction, r.gradient.tolist()
    ((0, 1, 2), False, 0.75, [3.0, 3.0])
    """

    gradient: np.ndarray = field(repr=False)
    partitions: tuple[int, ...]
    k: int
    exact: bool

    @property
    def fraction(self) -> float:
        return len(self.partitions) / self.k


# ----------------------------------------------------------------------------- placements
def _check_orders_memory(n: int, s: int) -> None:
    """Refuse at once the orders of ``n`` workers holding ``s + 1`` partitions each that do
    not fit in memory (n = 10**18 would build lists until it ran out). About 550 bytes an
    entry at the peak (the Python lists, then the int64 arrays; tracemalloc, n = 10**5)."""
    check_memory(600 * n * (s + 1), "n", f"the orders of {n} workers, {s + 1} partitions each")


def _check_orders(w: np.ndarray, j: np.ndarray, k: int, n: int) -> None:
    """Every entry ``j`` (of worker ``w``) in ``[0, k)`` and no worker holding a partition
    twice, in whole-array steps; the error names the first worker that breaks either."""
    bad = (j < 0) | (j >= k)
    first_range = int(w[bad.argmax()]) if bad.any() else n
    order = np.lexsort((j, w))
    ws, js = w[order], j[order]
    rep = (ws[1:] == ws[:-1]) & (js[1:] == js[:-1])
    first_rep = int(ws[1:][rep.argmax()]) if rep.any() else n
    if first_range < n and first_range <= first_rep:
        raise ValueError(f"orders[{first_range}] must hold partitions in [0, k) with k = {k}")
    if first_rep < n:
        raise ValueError(f"orders[{first_rep}] repeats a partition (a worker holds each once)")


class PartialPlacement:
    """A repetition placement with processing orders, decoded by counting finished partitions.

    ``orders[i]`` lists the partitions worker ``i`` processes, in order (each
    partition at most once per worker). Build with :meth:`cyclic`,
    :meth:`frc`, :meth:`from_support` or :meth:`from_code`.

    Parameters
    ----------
    orders : sequence of sequences of int
        ``orders[i]``: the partitions worker ``i`` processes, in order.
    k : int
        Partitions.
    kind : str
        ``"cyclic"``, ``"frc"`` or ``"general"`` (set by the builders).
    s : int, optional
        Stragglers the placement tolerates, ``0 <= s < n``.
    name : str
        Display name.

    Examples
    --------
    >>> from scipy import stats
    >>> from gctheory.codes.partial import PartialPlacement
    >>> place = PartialPlacement.cyclic(4, 1)
    >>> round(place.expected_fraction(1.0, stats.expon()), 6)
    0.997521
    >>> round(place.expected_time(stats.expon()), 4)
    0.3232
    """

    def __init__(self, orders: Sequence[Sequence[int] | np.ndarray], k: int, *,
                 kind: str = "general", s: int | None = None,
                 name: str = "placement") -> None:  # fmt: skip
        self.k = check_int(k, "k", low=1)
        if isinstance(orders, (str, bytes, dict)) or not hasattr(orders, "__iter__"):
            raise ValueError(f"orders must be a sequence of partition lists, got {orders!r:.60}")
        try:
            self.orders = [np.asarray(o, dtype=np.int64).ravel() for o in orders]
        except (TypeError, ValueError, OverflowError):
            raise ValueError("orders must hold lists of integer partition indices") from None
        self.n = len(self.orders)
        if self.n < 1:
            raise ValueError("orders must list at least one worker")
        if s is not None:
            s = check_int(s, "s", low=0, high=self.n - 1)
        entries = int(sum(o.size for o in self.orders))
        if self.k > entries:  # before the (k,) arrays: k = 10**18 is refused here, at once
            raise ValueError(
                f"k must be at most the {entries} entries of orders (every partition must be "
                f"held by some worker), got k = {self.k}"
            )
        self.lengths = np.array([o.size for o in self.orders], dtype=np.int64)
        w = np.repeat(np.arange(self.n), self.lengths)
        a = np.arange(entries) - np.repeat(np.cumsum(self.lengths) - self.lengths, self.lengths)
        j = np.concatenate(self.orders) if entries else np.zeros(0, np.int64)
        _check_orders(w, j, self.k, self.n)
        held = np.zeros(self.k, bool)
        held[j] = True
        if not held.all():
            raise ValueError(
                f"every partition must be held by some worker; partition "
                f"{int(np.flatnonzero(~held)[0])} is not"
            )
        srt = np.argsort(j, kind="stable")
        self._w, self._a, self._j = w[srt], a[srt], j[srt]
        self._starts = np.flatnonzero(np.r_[True, self._j[1:] != self._j[:-1]])
        self.kind = kind
        self.s = s
        self.name = name
        self.load = int(self.lengths.max())

    def __repr__(self) -> str:
        return f"PartialPlacement({self.name}, n={self.n}, k={self.k}, load={self.load})"

    # -- constructors
    @classmethod
    def cyclic(cls, n: int, s: int) -> PartialPlacement:
        """Cyclic repetition: worker i processes ``i, i + 1, ..., i + s`` (mod n); k = n."""
        n = check_int(n, "n", low=1)
        s = check_int(s, "s", low=0, high=n - 1)
        _check_orders_memory(n, s)
        orders = np.add.outer(np.arange(n), np.arange(s + 1)) % n  # row i: i, ..., i + s
        return cls(list(orders), n, kind="cyclic", s=s, name=f"cyclic repetition (n={n}, s={s})")

    @classmethod
    def frc(cls, n: int, s: int, order: str = "staggered") -> PartialPlacement:
        """Fractional repetition, k = n: groups of s + 1 workers share s + 1 partitions.

        ``order="staggered"``: the worker at position r of its group starts at
        the group's r-th partition (cyclically); ``"same"``: all start at the first.
        """
        n = check_int(n, "n", low=1)
        s = check_int(s, "s", low=0, high=n - 1)
        check_choice(order, "order", ("staggered", "same"))
        _check_orders_memory(n, s)
        if n % (s + 1):
            raise ValueError(f"s + 1 must divide n for fractional repetition, got n={n}, s={s}")
        c = s + 1
        g, r = np.divmod(np.arange(n), c)  # worker i: group g, position r
        shift = r if order == "staggered" else np.zeros(n, np.int64)
        orders = (g * c)[:, None] + (shift[:, None] + np.arange(c)) % c
        kind = "frc" if order == "staggered" else "frc-same"
        name = f"fractional repetition ({order}, n={n}, s={s})"
        return cls(list(orders), n, kind=kind, s=s, name=name)

    @classmethod
    def from_support(cls, support: Any, *, name: str = "placement",
                     s: int | None = None) -> PartialPlacement:  # fmt: skip
        """Any (n, k) 0/1 support; worker i's partitions ascending, rotated by i mod their count."""
        S = np.asarray(support)
        if S.ndim != 2 or S.shape[0] < 1 or S.shape[1] < 1:
            raise ValueError(f"support must be an (n, k) 0/1 matrix, got shape {S.shape}")
        S = S != 0
        orders = []
        for i in range(S.shape[0]):
            own = np.flatnonzero(S[i])
            orders.append(np.roll(own, -(i % own.size)) if own.size else own)
        return cls(orders, S.shape[1], s=s, name=name)

    @classmethod
    def from_code(cls, code: Any) -> PartialPlacement:
        """The placement of a :class:`FractionalRepetitionCode` (staggered), a
        :class:`CyclicMDSCode` (cyclic order) or a :class:`BIBDGradientCode` (incidence)."""
        from gctheory.codes.designs import BIBDGradientCode
        from gctheory.codes.tandon import CyclicMDSCode, FractionalRepetitionCode

        if isinstance(code, FractionalRepetitionCode) and code.k == code.n:
            return cls.frc(code.n, code.s)
        if isinstance(code, CyclicMDSCode):
            return cls.cyclic(code.n, code.s)
        if isinstance(code, BIBDGradientCode):
            return cls.from_support(code.support, name=f"BIBD {code.design!r}")
        raise ValueError(
            "code must be a FractionalRepetitionCode with k = n, a CyclicMDSCode or a "
            f"BIBDGradientCode, got {type(code).__name__}"
        )

    # -- decoding
    def progress(self, X: Any, tau: float) -> np.ndarray:
        """Pieces finished by ``tau`` for times per unit of data ``X`` ((n,) or (trials, n))."""
        tau = _check_tau(tau)
        X = np.asarray(X, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.floor(np.where(X > 0, tau * self.k / X, np.inf) + 1e-12)
        return np.minimum(m, self.lengths).astype(np.int64)

    def finished(self, progress: Any) -> np.ndarray:
        """Which partitions (k,) or (trials, k) some worker has finished."""
        M = _check_progress(progress, self.lengths)
        done = (M[..., self._w] > self._a).astype(np.int8)
        return np.maximum.reduceat(done, self._starts, axis=-1).astype(bool)

    def recovered(self, progress: Any) -> np.ndarray:
        """Partitions recovered (the count-finished-partitions decoder), per trial."""
        return self.finished(progress).sum(axis=-1)

    def decode(self, progress: Any, partials: Any) -> PartialRecovery:
        """The sum of the finished partitions' gradients, from the pieces the workers sent.

        Each worker sends ``partials[j]`` for each of its first ``m_i``
        partitions; the master keeps one copy of each partition.
        """
        M = _check_progress(progress, self.lengths)
        if M.ndim != 1:
            raise ValueError("decode takes one progress vector (n,)")
        P = np.asarray(partials, dtype=float)
        if P.ndim != 2 or P.shape[0] != self.k:
            raise ValueError(f"partials must have shape (k, d) = ({self.k}, d), got {P.shape}")
        got: dict[int, np.ndarray] = {}
        for i, o in enumerate(self.orders):
            for j in o[: M[i]]:
                got.setdefault(int(j), P[j])  # the messages worker i sent
        parts = tuple(sorted(got))
        g = np.sum([got[j] for j in parts], axis=0) if parts else np.zeros(P.shape[1])
        return PartialRecovery(g, parts, self.k, len(parts) == self.k)

    def recovery_time(self, X: Any, rule: str = "partial") -> np.ndarray:
        """Time of exact recovery for times per unit of data ``X`` ((n,) or (trials, n))."""
        check_choice(rule, "rule", PARTIAL_RULES)
        X = np.asarray(X, dtype=float)
        if rule == "n-s":
            if self.s is None:
                raise ValueError("rule 'n-s' needs a placement with a design tolerance s")
            full = X * self.lengths / self.k
            return np.sort(full, axis=-1)[..., self.n - self.s - 1]
        pos = self._a + 1 if rule == "partial" else self.lengths[self._w]
        t = X[..., self._w] * pos / self.k
        return np.minimum.reduceat(t, self._starts, axis=-1).max(axis=-1)

    # -- exact values (independent workers)
    def _pmf(self, tau: float, dist: Any, rule: str) -> np.ndarray:
        """(n, L + 1) pmf of the pieces finished by tau (rule 'whole': 0 or all)."""
        L = self.load
        q = np.zeros((self.n, L + 1))
        rows: dict[int, np.ndarray] = {}  # workers holding as many pieces share their row
        for i, Li in enumerate(self.lengths):
            if int(Li) in rows:
                q[i] = rows[int(Li)]
            elif rule == "whole":
                f = float(_cdf_at(dist, tau, self.k, np.array([Li]))[0])
                q[i, Li], q[i, 0] = f, 1 - f
            else:
                ge = np.r_[1.0, _cdf_at(dist, tau, self.k, np.arange(1, Li + 1)), 0.0]
                q[i, : Li + 1] = ge[: Li + 1] - ge[1 : Li + 2]
            rows[int(Li)] = q[i]
        return np.clip(q, 0.0, 1.0)

    def partition_probabilities(self, tau: float, dist: Any) -> np.ndarray:
        """P(partition j finished by tau), exact for independent workers (k,)."""
        tau = _check_tau(tau)
        _check_dist(dist)
        miss = 1 - _cdf_at(dist, tau, self.k, self._a + 1)
        logm = np.log(np.clip(miss, 1e-300, None))
        prod = np.exp(np.add.reduceat(logm, self._starts))
        prod[np.add.reduceat(miss == 0, self._starts) > 0] = 0.0
        return 1 - prod

    def expected_fraction(self, tau: float, dist: Any) -> float:
        """Exact expected fraction of the gradient recovered by ``tau`` (any placement)."""
        return float(self.partition_probabilities(tau, dist).mean())

    def exact_probability(self, tau: float, dist: Any, rule: str = "partial") -> float:
        """P(every partition recovered by ``tau``): cyclic and staggered FRC only (exact)."""
        tau = _check_tau(tau)
        _check_dist(dist)
        check_choice(rule, "rule", PARTIAL_RULES)
        if rule == "n-s":
            from scipy.stats import binom

            if self.s is None:
                raise ValueError("rule 'n-s' needs a placement with a design tolerance s")
            f = float(_cdf_at(dist, tau, self.k, np.array([self.load]))[0])
            return float(binom.sf(self.n - self.s - 1, self.n, f))
        if self.kind == "cyclic":
            return _cyclic_cover_probability(self._pmf(tau, dist, rule))
        if self.kind == "frc":
            if self.s is None:  # a user's PartialPlacement(..., kind="frc") without s
                raise ValueError("exact_probability of an 'frc' placement needs its s")
            c = self.s + 1
            q = self._pmf(tau, dist, rule)[:c]
            return _cyclic_cover_probability(q) ** (self.n // c)
        raise ValueError(
            f"exact_probability is exact for cyclic and staggered fractional repetition only "
            f"(this is {self.name}); use estimate_partial(..., what='exact') for Monte Carlo"
        )

    def expected_time(self, dist: Any, rule: str = "partial") -> float:
        """Exact E[time of exact recovery] (numerical integration; cyclic, staggered FRC)."""
        _check_dist(dist)
        scale = float(dist.mean()) * self.load / self.k
        return _expected_time(lambda t: self.exact_probability(t, dist, rule), scale)
