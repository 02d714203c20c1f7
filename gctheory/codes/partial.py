"""Partial stragglers: a slow worker's finished partitions still count.

A *partial straggler* has done part of its work by the deadline. Two ways to
use that work are modelled here, under one timing model.

**Timing model.** Worker ``i`` needs ``X_i`` seconds per unit of data (the
whole dataset is one unit); the ``X_i`` are independent with one distribution
(a frozen ``scipy.stats`` distribution of non-negative values, ``dist``) for
the exact results, or drawn by any ``sampler(rng, size) -> (size, n)`` for
Monte Carlo (correlated or trace-driven times). A worker processes its pieces
in a fixed order, every piece being ``1/k`` of the data, so its ``a``-th piece
is finished at ``a X_i / k`` and by a deadline ``tau`` it has finished
``m_i = min(L_i, floor(tau k / X_i))`` pieces, ``P(m_i >= a) = F(tau k / a)``.

**Count finished partitions** (:class:`PartialPlacement`). For a repetition
placement (fractional repetition, cyclic repetition, a BIBD's incidence)
each worker sends every partition gradient as it finishes it; the master
sums each finished partition once. Partition ``j`` is finished when some
holder ``i`` has it at position ``a < m_i`` of its order. Orders:
cyclic repetition ``i, i + 1, ..., i + s`` (mod n); fractional repetition
staggered inside a group (the worker at position ``r`` of its group starts
at the group's ``r``-th partition; ``order="same"`` makes them all start at
the first); other supports: ascending, rotated by the worker's index.

- The expected fraction recovered by ``tau`` is exact for *every* placement
  under independent workers: by linearity,
  ``E = (1/k) sum_j [1 - prod_{(i, a) holds j} (1 - F(tau k / (a + 1)))]``.
  With staggered orders fractional and cyclic repetition give the *same*
  value (every partition is held at positions 0..s by distinct workers);
  the distributions differ.
- The probability of recovering everything by ``tau`` is exact for cyclic
  repetition by a transfer matrix around the cycle (the state is how many
  partitions ahead the workers so far already cover, at most ``s``; the carry
  into worker 0 is summed over and must equal the carry out of worker
  ``n - 1``, which cannot depend on it as ``s < n``), and for staggered
  fractional repetition as the product over groups of the same chain on a
  group (``n = s + 1``). Otherwise Monte Carlo (:func:`estimate_partial`).
- The expected time of exact recovery, ``E R = int_0^inf P(R > t) dt``, is
  integrated numerically from the exact ``P(R <= t)`` for those placements, with
  the pieces counted (``rule="partial"``) or only whole workers counted
  (``rule="whole"``: a worker's partitions count once it finished all of
  them) or the classic gradient-code threshold (``rule="n-s"``: the
  ``(n - s)``-th fastest whole worker, what a cyclic-MDS code needs).

**Tandon et al.'s partial schemes** (:class:`PartialCyclicScheme`,
:class:`PartialReplicationScheme`; Tandon, Lei, Dimakis, Karampatziakis,
ICML 2017, Sec. 5, as implemented in the authors' public code
``rashisht1/gradient_coding``, ``src/partial_coded.py`` and
``src/partial_replication.py``, read for the scheme, not copied). Each worker
handles ``p`` pieces (``p >= s + 1``) of ``k = (p - s) n``. The first
``u = p - s - 1`` are its own, uncoded; the last ``s + 1`` are partitions of
a block of ``n`` coded like a gradient code (cyclic-MDS coefficients on a
cyclic placement, or fractional repetition). A worker sends two messages: the
sum of its uncoded pieces when they are done, then its coded combination.
The master needs every first message and either ``n - s`` second messages
(cyclic) or one per group (replication). A worker that is at most
``p / (p - s - 1)`` times slower than the others still delivers its first
message by the time they finish everything, so up to ``s`` such partial
stragglers cost nothing. Fraction recovered by ``tau``: the uncoded sums
received plus the coded block when it decodes (cyclic: all or nothing;
replication: per group).

Bad input (``tau < 0``, ``p < s + 1``, a distribution with negative values,
progress outside ``[0, L_i]``) raises ``ValueError`` naming the parameter
and the rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_int, check_law_parameters, check_real

__all__ = [
    "PartialRecovery",
    "PartialPlacement",
    "PartialCyclicScheme",
    "PartialReplicationScheme",
    "PARTIAL_RULES",
    "estimate_partial",
    "scipy_sampler",
]

#: rules for the time of exact recovery (see the module text)
PARTIAL_RULES = ("partial", "whole", "n-s")


# ----------------------------------------------------------------------------- helpers
def _check_tau(tau: Any) -> float:
    return check_real(tau, "tau (the deadline)", low=0.0)


def _check_dist(dist: Any) -> Any:
    if not (hasattr(dist, "cdf") and hasattr(dist, "rvs")):
        raise ValueError(
            "dist must be a frozen scipy.stats distribution of the time per unit of data "
            f"(with cdf and rvs), got {type(dist).__name__}"
        )
    check_law_parameters(dist)  # a NaN parameter sampled NaN times (issue 30's fuzzer)
    lo = dist.support()[0] if hasattr(dist, "support") else 0.0
    if lo < 0:
        raise ValueError(f"dist must give non-negative times (its support starts at {lo:g} < 0)")
    return dist


def _cdf_at(dist: Any, tau: float, k: int, a: np.ndarray) -> np.ndarray:
    """``F(tau k / a)`` for piece counts ``a >= 1`` (P(a pieces done by tau))."""
    a = np.asarray(a, dtype=float)
    if tau == 0:
        return np.asarray(dist.cdf(0.0) * np.ones_like(a))
    return np.asarray(dist.cdf(tau * k / a), dtype=float)


def _check_progress(m: Any, lengths: np.ndarray) -> np.ndarray:
    M = np.asarray(m)
    if M.ndim not in (1, 2) or M.shape[-1] != lengths.size:
        raise ValueError(
            f"progress must have shape (n,) or (trials, n) with n = {lengths.size}, got {M.shape}"
        )
    if not np.issubdtype(M.dtype, np.integer):
        if not np.all(np.isfinite(M)) or np.any(M != np.round(M)):
            raise ValueError("progress must hold whole numbers of finished pieces")
        M = M.astype(np.int64)
    if np.any(M < 0) or np.any(M > lengths):
        raise ValueError("progress must satisfy 0 <= m_i <= L_i (the pieces worker i holds)")
    return M


def _expected_time(cdf_all: Callable[[float], float], scale: float) -> float:
    """``int_0^inf (1 - P(R <= t)) dt`` by adaptive quadrature (``scale``: a typical time)."""
    from scipy import integrate

    hi = scale
    while 1 - cdf_all(hi) > 1e-13 and hi < scale * 2**40:
        hi *= 2
    val, _ = integrate.quad(lambda t: 1 - cdf_all(t), 0, hi, limit=400, epsabs=1e-11 * scale,
                            epsrel=1e-10)  # fmt: skip
    return float(val)


def scipy_sampler(dist: Any, n: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    """A ``sampler(rng, size) -> (size, n)`` of independent times per unit of data from ``dist``."""
    _check_dist(dist)
    n = check_int(n, "n", low=1)

    def sample(rng: np.random.Generator, size: int) -> np.ndarray:
        return np.asarray(dist.rvs(size=(size, n), random_state=rng), dtype=float)

    return sample


def _cyclic_cover_probability(q: np.ndarray) -> float:
    """P(intervals ``[i, i + m_i)`` cover Z_n) for independent ``m_i`` with pmf rows ``q`` (n, c+1).

    Transfer matrix: the carry (partitions ahead already covered) is at most
    ``c - 1``; the carry into worker 0 is the carry out of worker n - 1.
    """
    n, cp1 = q.shape
    c = cp1 - 1
    if c >= n + 1:
        raise ValueError("internal: pieces per worker exceed n")
    total = 0.0
    for c0 in range(max(c, 1)):
        v = np.zeros(max(c, 1))
        v[c0] = 1.0
        for i in range(n):
            w = np.zeros_like(v)
            for carry in np.flatnonzero(v):
                for m in range(cp1):
                    pr = q[i, m]
                    if pr == 0.0:
                        continue
                    reach = max(int(carry), m)
                    if reach == 0:
                        continue  # partition i uncovered
                    w[reach - 1] += v[carry] * pr
            v = w
        total += v[c0]
    return float(total)


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PartialRecovery:
    """What a partial-work decode recovered: ``gradient`` is the sum over ``partitions``."""

    gradient: np.ndarray = field(repr=False)
    partitions: tuple[int, ...]
    k: int
    exact: bool

    @property
    def fraction(self) -> float:
        return len(self.partitions) / self.k


# ----------------------------------------------------------------------------- placements
class PartialPlacement:
    """A repetition placement with processing orders, decoded by counting finished partitions.

    ``orders[i]`` lists the partitions worker ``i`` processes, in order (each
    partition at most once per worker). Build with :meth:`cyclic`,
    :meth:`frc`, :meth:`from_support` or :meth:`from_code`.
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
        for i, o in enumerate(self.orders):
            if o.size and (o.min() < 0 or o.max() >= self.k):
                raise ValueError(f"orders[{i}] must hold partitions in [0, k) with k = {self.k}")
            if np.unique(o).size != o.size:
                raise ValueError(f"orders[{i}] repeats a partition (a worker holds each once)")
        self.lengths = np.array([o.size for o in self.orders], dtype=np.int64)
        w = np.concatenate([np.full(o.size, i) for i, o in enumerate(self.orders)])
        a = np.concatenate([np.arange(o.size) for o in self.orders])
        j = np.concatenate(self.orders)
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
        return cls([[(i + a) % n for a in range(s + 1)] for i in range(n)], n, kind="cyclic",
                   s=s, name=f"cyclic repetition (n={n}, s={s})")  # fmt: skip

    @classmethod
    def frc(cls, n: int, s: int, order: str = "staggered") -> PartialPlacement:
        """Fractional repetition, k = n: groups of s + 1 workers share s + 1 partitions.

        ``order="staggered"``: the worker at position r of its group starts at
        the group's r-th partition (cyclically); ``"same"``: all start at the first.
        """
        n = check_int(n, "n", low=1)
        s = check_int(s, "s", low=0, high=n - 1)
        check_choice(order, "order", ("staggered", "same"))
        if n % (s + 1):
            raise ValueError(f"s + 1 must divide n for fractional repetition, got n={n}, s={s}")
        c = s + 1
        orders = []
        for i in range(n):
            g, r = divmod(i, c)
            shift = r if order == "staggered" else 0
            orders.append([g * c + (shift + a) % c for a in range(c)])
        kind = "frc" if order == "staggered" else "frc-same"
        return cls(orders, n, kind=kind, s=s, name=f"fractional repetition ({order}, n={n}, s={s})")

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
        for i, Li in enumerate(self.lengths):
            if rule == "whole":
                f = float(_cdf_at(dist, tau, self.k, np.array([Li]))[0])
                q[i, Li], q[i, 0] = f, 1 - f
                continue
            ge = np.r_[1.0, _cdf_at(dist, tau, self.k, np.arange(1, Li + 1)), 0.0]
            q[i, : Li + 1] = ge[: Li + 1] - ge[1 : Li + 2]
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


# ----------------------------------------------------------------------------- Tandon's schemes
class _TwoMessageScheme:
    """Common part of Tandon et al.'s partial schemes (two messages per worker)."""

    kind = "two-message"

    def __init__(self, n: int, s: int, p: int) -> None:
        self.n = check_int(n, "n", low=1)
        self.s = check_int(s, "s", low=0, high=self.n - 1)
        self.p = check_int(p, "p (pieces per worker)", low=self.s + 1)
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
    """

    name = "partial cyclic (Tandon et al. Sec. 5)"

    def __init__(self, n: int, s: int, p: int, *, rng: Any = 0) -> None:
        super().__init__(n, s, p)
        from gctheory.codes.tandon import CyclicMDSCode

        self.code = CyclicMDSCode(self.n, self.s, rng=rng)

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


# ----------------------------------------------------------------------------- Monte Carlo
def _fraction_chunk(scheme: Any, tau: float, sampler: Callable, rng: Any, size: int) -> np.ndarray:
    X = np.asarray(sampler(rng, size), dtype=float)
    return scheme.recovered(scheme.progress(X, tau)) / scheme.k


def _exact_chunk(scheme: Any, tau: float, sampler: Callable, rng: Any, size: int) -> np.ndarray:
    X = np.asarray(sampler(rng, size), dtype=float)
    return scheme.recovered(scheme.progress(X, tau)) == scheme.k


def _time_chunk(scheme: Any, rule: str, sampler: Callable, rng: Any, size: int) -> np.ndarray:
    X = np.asarray(sampler(rng, size), dtype=float)
    return np.asarray(scheme.recovery_time(X, rule), dtype=float)


def estimate_partial(
    scheme: PartialPlacement | _TwoMessageScheme,
    sampler: Callable[[np.random.Generator, int], np.ndarray],
    *,
    what: str = "fraction",
    tau: float | None = None,
    rule: str = "partial",
    trials: int = 20_000,
    rng: Any = 0,
    level: float = 0.99,
) -> Any:
    """Monte Carlo (:mod:`gctheory.montecarlo`) of a partial-work quantity, with an interval.

    ``what``: ``"fraction"`` (mean fraction recovered by ``tau``), ``"exact"``
    (P(exact recovery by ``tau``)) or ``"time"`` (mean time of exact recovery
    under ``rule``). ``sampler(rng, size)`` returns (size, n) times per unit
    of data (see :func:`scipy_sampler`; any correlated or trace-driven
    sampler works). Returns a :class:`gctheory.montecarlo.Estimate`.
    """
    from functools import partial

    from gctheory.montecarlo import estimate_mean, estimate_probability

    check_choice(what, "what", ("fraction", "exact", "time"))
    # a string scheme or a list sampler raised TypeError inside the engine (issue 30 fuzzer)
    if not isinstance(scheme, (PartialPlacement, _TwoMessageScheme)):
        raise ValueError(
            f"scheme must be a PartialPlacement or a two-message scheme, got "
            f"{type(scheme).__name__}"
        )
    if not callable(sampler):
        raise ValueError(
            f"sampler must be callable (rng, size) -> times, got {type(sampler).__name__}"
        )
    if what == "time":
        return estimate_mean(partial(_time_chunk, scheme, rule, sampler), trials, rng=rng,
                             level=level)  # fmt: skip
    if tau is None:
        raise ValueError(f"tau (the deadline) is required for what={what!r}")
    deadline = _check_tau(tau)
    if what == "fraction":
        return estimate_mean(partial(_fraction_chunk, scheme, deadline, sampler), trials, rng=rng,
                             level=level)  # fmt: skip
    return estimate_probability(partial(_exact_chunk, scheme, deadline, sampler), trials,
                                rng=rng, level=level)  # fmt: skip
