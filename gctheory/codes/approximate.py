"""Approximate gradient codes: d-FRC, batch raptor codes, Bernoulli gradient codes.

Wang, Liu, Shroff, "Fundamental limits of approximate gradient coding" (2019)
[1] and Charles, Papailiopoulos, Ellenberg, "Approximate gradient coding via
sparse random graphs" (2017) [2]. ``n`` workers and, unless said otherwise,
``k = n`` data partitions; ``A`` (``n x k``) is the coding matrix of [1]
(worker ``i`` sends ``sum_j A[i, j] g_j``, m = 1) and ``A_S`` its rows for
the survivors ``S``. An approximate code (``s is None``) never refuses to
decode: it returns its best estimate ``u^T A_S g`` and reports the error it
made in the sense of eq. (5) of [1],
``err = ||A_S^T u - 1_k||^2`` for the coefficients ``u`` its decoder used
(the minimum over ``u`` for the least-squares decoder).

- :class:`DFractionalRepetitionCode` -- Definition 4 of [1] (and Remark 1 when
  ``d`` does not divide ``n``) with the group-sum decoder: sum the
  transmissions of survivors holding disjoint data that together cover
  everything (a longest-path/interval-scheduling search over the contiguous
  blocks; it reduces to "one survivor per block" when ``d | n``). Exact
  failure probability and expected error under ``s`` uniform stragglers
  (:func:`dfrc_failure_probability`, :func:`dfrc_expected_error`).
- :class:`BatchRaptorCode` -- Definition 5 of [1]: partitions in batches of
  size ``b``, each worker sums ``deg ~ P`` distinct random batches; decoded by
  the peeling decoder of Algorithm 1 (:func:`peeling_decode`, value level).
  :func:`theorem6_degree_distribution` is ``P_w`` of Theorem 6 (eq. (17)).
- :class:`BernoulliGradientCode` -- [2]: every worker holds every partition
  independently with probability ``p``; optimal (least-squares) decoding,
  eqs. (4)-(5) of [1].
- :func:`recovery_error` -- eq. (5) of [1] for any ``A_S``.
- :func:`estimate_decoding_failure`, :func:`estimate_mean_error` -- Monte Carlo
  (through :mod:`gctheory.montecarlo`) of ``P(err > threshold)`` and
  ``E[err]`` over uniformly random straggler sets of size ``s``.

References
----------
.. [1] H. Wang, S. Liu, N. B. Shroff, "Fundamental limits of approximate
   gradient coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
.. [2] Z. Charles, D. Papailiopoulos, J. Ellenberg, "Approximate gradient
   coding via sparse random graphs", arXiv:1711.06771 (2017).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_choice, check_memory
from gctheory.codes.base import (
    DecodeResult,
    DecodingCost,
    GradientCode,
    check_positive_int,
    effective_condition_number,
    validate_survivors,
)
from gctheory.codes.tandon import _check_ns, _one_per_group, group_residual
from gctheory.montecarlo import Estimate, estimate_mean, estimate_probability

__all__ = [
    "ApproxDecodeResult",
    "recovery_error",
    "dfrc_group_sizes",
    "dfrc_failure_probability",
    "dfrc_expected_error",
    "dfrc_theorem4_load",
    "DFractionalRepetitionCode",
    "theorem6_degree_distribution",
    "theorem6_batch_size",
    "theorem6_mean_degree",
    "peeling_decode",
    "BatchRaptorCode",
    "BernoulliGradientCode",
    "estimate_decoding_failure",
    "estimate_mean_error",
]


# ------------------------------------------------------------------ helpers
def recovery_error(A_S: np.ndarray) -> float:
    """``err(A_S) = min_u ||A_S^T u - 1||^2``, eq. (5) of Wang et al. 2019.

    Parameters
    ----------
    A_S : array (r, k)
        The survivors' rows of the coding matrix (``r >= 0``).

    Returns
    -------
    float
        The squared distance from the all-one vector to the row space of
        ``A_S`` (``k`` when ``r = 0``); computed by least squares, accurate to
        about ``k * cond(A_S) * eps``.
    """
    A_S = check_array(A_S, "A_S", ndim=2, complex_ok=True, min_size=0)
    k = A_S.shape[1]
    one = np.ones(k)
    if A_S.shape[0] == 0 or not np.any(A_S):
        return float(k)
    u, *_ = np.linalg.lstsq(A_S.T, one, rcond=None)
    e = A_S.T @ u - one
    return float(np.real(np.vdot(e, e)))


@dataclass(frozen=True)
class ApproxDecodeResult(DecodeResult):
    """A :class:`~gctheory.codes.base.DecodeResult` plus the error the decoder made.

    Attributes
    ----------
    err : float
        ``||A_S^T u - 1||^2`` for the coefficients ``u`` used (eq. (5) of Wang
        et al. 2019 evaluated at the decoder's ``u``; equal to ``err(A_S)``
        for the least-squares decoder). For 0/1 decoders (group sum,
        peeling) it is the number of partitions missing from the estimate.
    unrecovered : tuple of int
        Partitions whose coefficient in the estimate is off by more than
        ``1e-8`` (the missing ones for group-sum and peeling decoders).
    """

    err: float = 0.0
    unrecovered: tuple[int, ...] = ()


class _ApproximateCode(GradientCode):
    """Shared decode/report logic of the approximate codes (``s = None``, ``m = 1``)."""

    s = None
    m = 1

    @property
    def encoding_matrix(self) -> np.ndarray:
        return self._float_rows().T

    def _float_rows(self) -> np.ndarray:
        """``A`` as floats, made once (the codes store A as int8)."""
        F = self.__dict__.get("_Af")
        if F is None or F.shape != self.A.shape:
            F = self.__dict__["_Af"] = self.A.astype(float)
        return F

    def _residual(self, T: np.ndarray, A: np.ndarray) -> float:
        """``||u^T A_S - 1|| / sqrt(k)`` from the rows the decoder used (m = 1)."""
        u = A[:, 0]
        used = np.flatnonzero(u)
        R = self._float_rows().take(T.take(used), axis=0).T.dot(u.take(used))
        R -= 1.0
        return math.sqrt(R.dot(R) / self.k)

    def decoder_error(self, survivors: Sequence[int]) -> float:
        """The error ``||A_S^T u - 1||^2`` this code's decoder makes on ``survivors``.

        Here (least-squares decoding) it is ``err(A_S)`` of eq. (5); the
        structured decoders override it with their own count.
        """
        T = validate_survivors(survivors, self.n, 1)
        return recovery_error(self.A[T].astype(float))  # the least-squares decoder's error

    def decode_detail(
        self,
        survivors: Sequence[int],
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        condition: bool = True,
    ) -> ApproxDecodeResult:
        """Best estimate of the gradient sum and the error made (never raises for decodability).

        See :meth:`GradientCode.decode_detail`; ``exact`` is True when the
        estimate is the full sum (relative residual <= ``rtol``).
        """
        res = super().decode_detail(
            survivors, received, d, rtol=rtol, check=check, condition=condition
        )
        T = np.asarray(res.survivors, dtype=np.int64)
        e = self.A[T].T.astype(float) @ res.coefficients[:, 0].real - 1.0
        return ApproxDecodeResult(
            gradient=res.gradient,
            coefficients=res.coefficients,
            condition_number=res.condition_number,
            residual=res.residual,
            survivors=res.survivors,
            exact=res.exact,
            err=float(e @ e),
            unrecovered=tuple(int(j) for j in np.flatnonzero(np.abs(e) > 1e-8)),
        )


# ------------------------------------------------------------------- d-FRC
def dfrc_group_sizes(n: int, d: int, *, rng: Any = None) -> np.ndarray:
    """Sizes of the ``d`` replica groups of the d-FRC (Definition 4, Remark 1 of Wang et al.).

    ``n / d`` each when ``d | n``; otherwise ``floor(n / d)`` each and
    ``n mod d`` groups, chosen uniformly at random with ``rng``, one larger.
    Requires ``1 <= d <= n``.
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
    for i in np.flatnonzero(alive):
        ends[int(hi[i])].append(int(i))
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


def dfrc_failure_probability(n: int, d: int, s: int) -> Fraction:
    """Exact ``P(err(A_S) > 0)`` of the d-FRC with ``d | n`` under ``s`` uniform stragglers.

    Decoding fails iff all ``d`` replicas of some block straggle; by
    inclusion-exclusion over the ``n/d`` blocks,
    ``sum_{j>=1} (-1)^{j+1} C(n/d, j) C(n - j d, s - j d) / C(n, s)``
    (the event analysed in Theorem 4 of Wang et al. 2019). Exact rational.
    """
    n, s = _check_ns(n, s)
    d = check_positive_int("d", d)
    if n % d:
        raise ValueError(f"d must divide n for the closed form, got n={n}, d={d}")
    blocks = n // d
    total = Fraction(0)
    for j in range(1, min(blocks, s // d) + 1):
        total += (-1) ** (j + 1) * math.comb(blocks, j) * math.comb(n - j * d, s - j * d)
    return total / math.comb(n, s)


def dfrc_expected_error(n: int, d: int, s: int) -> Fraction:
    """Exact ``E[err]`` of the d-FRC group-sum decoder, ``d | n``, ``s`` uniform stragglers.

    A block of ``d`` partitions is lost iff its ``d`` replicas all straggle,
    probability ``C(n - d, s - d) / C(n, s)``; ``err`` counts lost partitions,
    so ``E[err] = n C(n - d, s - d) / C(n, s)`` (linearity of expectation).
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

    def decoder_error(self, survivors: Sequence[int]) -> float:
        """Number of partitions the group-sum decoder misses (or eq. (5) for ``lstsq``)."""
        if self.decoder == "lstsq":
            return super().decoder_error(survivors)
        T = validate_survivors(survivors, self.n, 1)
        alive = np.zeros(self.n, dtype=bool)
        alive[T] = True
        return float(_group_sum_select(self._lo, self._hi, alive, self.k)[1])


# ------------------------------------------------------ batch raptor code
#: smallest eps of Theorem 6 computed here: ``P_w`` has ``D + 1 = floor(1/eps) + 1`` masses
#: and its exact mean needs ``H_{D-1}``, whose denominator has about ``1.44 D`` bits (the
#: exact sum takes 30 ms at ``D = 10**4``, 3 s at ``10**5``, and grows quadratically in D)
THEOREM6_MIN_EPS = Fraction(1, 10**4)


def _exact_eps(eps: Any) -> Fraction:
    """``eps`` as an exact rational: a float by its shortest decimal repr (0.1 -> 1/10)."""
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, (int, float, str, Fraction)):
        if not isinstance(eps, (np.integer, np.floating)):
            raise ValueError(f"eps must be a number in (0, 1/4), got {eps!r}")
    if isinstance(eps, (float, np.floating)):
        if not math.isfinite(eps):
            raise ValueError(f"eps must be a number in (0, 1/4), got {eps!r}")
        eps = repr(float(eps))
    try:
        e = Fraction(eps)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"eps must be a number in (0, 1/4), got {eps!r}") from None
    if not (0 < e < Fraction(1, 4)):
        raise ValueError(f"eps must lie in (0, 1/4) for eq. (17) (u has a pole at 1/4), got {eps}")
    if e < THEOREM6_MIN_EPS:
        raise ValueError(
            f"eps must be >= {float(THEOREM6_MIN_EPS):g} here, got {float(e):.3g}: P_w has "
            f"D + 1 = floor(1/eps) + 1 masses and its exact mean needs the harmonic number "
            f"H_(D-1), out of reach beyond D = {int(1 / THEOREM6_MIN_EPS):,}"
        )
    return e


def _theorem6_u(e: Fraction) -> Fraction:
    return 2 * e * (1 - 2 * e) / (1 - 4 * e) ** 2


def theorem6_degree_distribution(eps: float | Fraction) -> tuple[np.ndarray, np.ndarray]:
    """``P_w`` of Theorem 6 of Wang et al. 2019 (eq. (17)).

    ``p_1 = u/(u+1)``, ``p_k = 1/(k(k-1)(u+1))`` for ``2 <= k <= D``,
    ``p_{D+1} = 1/(D(u+1))``, with ``D = floor(1/eps)`` and
    ``u = 2 eps (1 - 2 eps) / (1 - 4 eps)^2``. The masses sum to 1
    exactly (telescoping); each is computed from exact rationals (``eps`` a
    float is read as its shortest decimal, so ``0.1`` gives ``D = 10``, not the
    ``D = 9`` of its binary value) and rounded once (with ``u = a/b``,
    ``p_k = b / (k (k - 1) (a + b))``, a correctly rounded integer quotient).

    Parameters
    ----------
    eps : float or Fraction
        Target error fraction, ``1e-4 <= eps < 1/4`` (``u`` has a pole at 1/4;
        below ``1e-4`` the ``floor(1/eps) + 1`` masses and the exact mean are
        refused as out of reach).

    Returns
    -------
    degrees, pmf : numpy.ndarray
        Degrees ``1..D+1`` and their probabilities.
    """
    e = _exact_eps(eps)
    D = math.floor(1 / e)
    u = _theorem6_u(e)
    a, b = u.numerator, u.denominator
    ab = a + b
    p = [a / ab]  # Python's int / int is correctly rounded
    p += [b / (j * (j - 1) * ab) for j in range(2, D + 1)]
    p.append(b / (D * ab))
    return np.arange(1, D + 2), np.array(p)


def _harmonic(a: int, b: int) -> tuple[int, int]:
    """``sum_{j=a}^{b-1} 1/j`` as an unreduced ``(numerator, denominator)`` (binary splitting)."""
    if b - a <= 8:
        num, den = 0, 1
        for j in range(a, b):
            num, den = num * j + den, den * j
        return num, den
    mid = (a + b) // 2
    p1, q1 = _harmonic(a, mid)
    p2, q2 = _harmonic(mid, b)
    return p1 * q2 + p2 * q1, q1 * q2


def theorem6_mean_degree(eps: float | Fraction) -> Fraction:
    """Exact mean of ``P_w``: ``(u + H_{D-1} + 1 + 1/D) / (u + 1)`` (from eq. (17)).

    ``sum_{k=2}^{D} k / (k (k-1)) = H_{D-1}`` and ``(D+1)/D = 1 + 1/D``; the
    mean grows like ``log(1/eps)``, the load of eq. (18) times ``log(1/delta)``.
    ``H_{D-1}`` is summed by binary splitting and the result reduced once.
    Domain: ``1e-4 <= eps < 1/4``.
    """
    e = _exact_eps(eps)
    D = math.floor(1 / e)
    u = _theorem6_u(e)
    p, q = _harmonic(1, D) if D > 1 else (0, 1)
    a, b = u.numerator, u.denominator
    # (a/b + p/q + 1 + 1/D) / (a/b + 1) = (a q D + p b D + b q D + b q) / (q D (a + b))
    return Fraction(a * q * D + p * b * D + b * q * D + b * q, q * D * (a + b))


def theorem6_batch_size(n: int, s: int) -> int:
    """``b = ceil(1 / log(1/delta)) + 1``, ``delta = s/n`` (Theorem 6 of Wang et al. 2019).

    Note: the theorem's statement then names the code the
    ``(ceil(1/log(1/delta)), P_w)``-batch raptor code, one less than this
    ``b``; we follow the explicit definition of ``b``. Natural log assumed.
    Requires ``0 < s < n``.
    """
    n, s = _check_ns(n, s)
    if s == 0:
        raise ValueError("s must be >= 1: delta = s/n must lie in (0, 1) for Theorem 6")
    return math.ceil(1 / math.log(n / s)) + 1


def peeling_decode(
    adjacency: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The peeling decoder of Algorithm 1 of Wang et al. 2019, on values.

    Received row ``r`` carries ``values[r] = sum_{b : adjacency[r, b]} x_b``.
    Repeatedly take a ripple (a row with exactly one unresolved batch ``b``),
    set ``x_b`` to its residual value, and subtract ``x_b`` from every other
    row containing ``b``; stop when no ripple is left (the edge-removal
    process on the bipartite graph, Fig. 3 of [1]).

    Parameters
    ----------
    adjacency : bool array (r, K)
        Received rows x batches.
    values : array (r, p)
        The received values (pass the identity to obtain the decoding
        coefficients of each recovered batch in terms of the rows).

    Returns
    -------
    recovered_values : array (K, p)
        ``x_b`` for recovered batches, 0 elsewhere.
    recovered : bool array (K,)
    order : list of (row, batch)
        The ripples used, in order.
    """
    H = np.asarray(adjacency, dtype=bool)
    V = np.array(values, copy=True)
    if H.ndim != 2 or V.ndim != 2 or V.shape[0] != H.shape[0]:
        raise ValueError(
            f"adjacency must be (r, K) and values (r, p) with the same r, got {H.shape}, {V.shape}"
        )
    r, K = H.shape
    if not np.issubdtype(V.dtype, np.inexact):
        V = V.astype(float)
    rows_of = [np.flatnonzero(H[:, b]) for b in range(K)]
    remaining = H.copy()
    deg = remaining.sum(axis=1)
    X = np.zeros((K, V.shape[1]), dtype=V.dtype)
    recovered = np.zeros(K, dtype=bool)
    queue = deque(int(i) for i in np.flatnonzero(deg == 1))
    order: list[tuple[int, int]] = []
    while queue:
        row = queue.popleft()
        if deg[row] != 1:
            continue
        b = int(np.flatnonzero(remaining[row])[0])
        X[b] = V[row]
        recovered[b] = True
        order.append((row, b))
        for other in rows_of[b]:
            if remaining[other, b]:
                remaining[other, b] = False
                deg[other] -= 1
                if other != row:
                    V[other] -= X[b]
                    if deg[other] == 1:
                        queue.append(int(other))
    return X, recovered, order


def _check_batches(batches: Any) -> list[list[int]]:
    """``batches`` as lists of Python ints (the rule of :class:`BatchRaptorCode`)."""
    rule = "batches must be a sequence of non-empty sequences of partition indices (ints)"
    if isinstance(batches, (str, bytes, dict)) or not isinstance(batches, (Sequence, np.ndarray)):
        raise ValueError(f"{rule}, got {type(batches).__name__}")
    out = []
    for bt in batches:
        if isinstance(bt, (str, bytes, dict)) or not isinstance(bt, (Sequence, np.ndarray)):
            raise ValueError(f"{rule}, got an entry {bt!r}")
        row = []
        for j in np.asarray(bt, dtype=object).reshape(-1):
            if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
                raise ValueError(f"{rule}, got {j!r}")
            row.append(int(j))
        out.append(row)
    return out


class BatchRaptorCode(_ApproximateCode):
    """Batch raptor code, Definition 5 of Wang et al. 2019, with peeling (Algorithm 1).

    Partitions ``0..k-1`` are grouped into batches; worker ``i`` sends the sum
    of the batches ``H[i]`` (``H`` the ``n x K`` worker-batch adjacency).
    Build it with :meth:`random` (Definition 5: ``K = floor(k/b)`` batches of
    ``b`` consecutive partitions; when ``b`` does not divide ``k`` the
    ``k - K b`` leftover partitions are spread as evenly as possible, random
    batches taking the extra one, as Remark 1 does for the FRC, so batch sizes
    are ``floor(k/K)`` or ``ceil(k/K)``; each worker draws a degree from
    ``P`` and that many distinct batches uniformly), :meth:`theorem6` (``P_w``
    and ``b`` of Theorem 6) or directly from ``batches`` and ``H`` (e.g.
    Example 1 of [1]).

    Parameters
    ----------
    batches : sequence of sequences of int
        Disjoint partition sets covering ``0..k-1``.
    H : bool array (n, K)
        Worker ``i`` holds batch ``b`` iff ``H[i, b]``.
    decoder : {"peeling", "lstsq"}
        Algorithm 1 of [1], or the optimal decoder of eq. (4).
    """

    name = "batch raptor code (Wang et al. 2019)"

    def __init__(self, batches: Sequence[Sequence[int]], H: Any, *, decoder: str = "peeling"):
        check_choice(decoder, "decoder", ("peeling", "lstsq"))
        batches = _check_batches(batches)
        H = check_array(H, "H", ndim=2)
        if H.shape[1] != len(batches) or H.shape[0] < 1:
            raise ValueError(
                f"H must be an n x K matrix with K = len(batches) = {len(batches)}, got {H.shape}"
            )
        if not np.all((H == 0) | (H == 1)):
            raise ValueError("H must be a 0/1 worker-batch adjacency matrix")
        flat = [j for bt in batches for j in bt]
        k = len(flat)
        if k == 0 or sorted(flat) != list(range(k)) or any(len(bt) == 0 for bt in batches):
            raise ValueError("batches must be non-empty, disjoint and cover partitions 0..k-1")
        self.H = H.astype(bool)
        self.batches = [np.asarray(bt, dtype=np.int64) for bt in batches]
        self.n, self.k = self.H.shape[0], k
        self.decoder = decoder
        Bm = np.zeros((len(batches), k), dtype=np.int8)
        for b, bt in enumerate(self.batches):
            Bm[b, bt] = 1
        self._batch_matrix = Bm
        self.A = (self.H.astype(np.int8) @ Bm).astype(np.int8)
        self.support = self.A.astype(bool)
        self.load = int(self.support.sum(axis=1).max())

    @classmethod
    def random(
        cls,
        n: int,
        b: int,
        degrees: Sequence[int],
        pmf: Sequence[float],
        *,
        k: int | None = None,
        rng: Any = None,
        decoder: str = "peeling",
    ) -> BatchRaptorCode:
        """Definition 5: ``(b, P)``-batch raptor code on ``k`` (default ``n``) partitions."""
        n = check_positive_int("n", n)
        k = n if k is None else check_positive_int("k", k)
        b = check_positive_int("b", b)
        if b > k:
            raise ValueError(f"b must be <= k (at least one batch), got b={b}, k={k}")
        check_memory(10 * n * (k // b) + 10 * n * k, "n", f"the {n} x {k} coding matrix")
        check_choice(decoder, "decoder", ("peeling", "lstsq"))
        degrees = check_array(degrees, "degrees", ndim=1)
        pmf = check_array(pmf, "pmf", ndim=1)
        if degrees.shape != pmf.shape:
            raise ValueError("degrees and pmf must be 1-D arrays of the same non-zero length")
        if np.any(degrees != np.round(degrees)):
            raise ValueError("degrees must be integers")
        degrees = degrees.astype(np.int64)
        if np.any(pmf < 0) or not math.isclose(pmf.sum(), 1.0, rel_tol=1e-12):
            raise ValueError(f"pmf must be non-negative and sum to 1, got sum {pmf.sum()!r}")
        K = k // b
        if np.any(degrees < 1) or np.any(degrees[pmf > 0] > K):
            raise ValueError(
                f"every degree with positive mass must lie in [1, K] with K = floor(k/b) = {K} "
                f"batches, got degrees up to {int(degrees[pmf > 0].max())}"
            )
        rng = as_generator(rng)
        rem = k - K * b  # < b leftover partitions, spread as evenly as possible
        sizes = np.full(K, b + rem // K, dtype=np.int64)
        if rem % K:
            sizes[rng.choice(K, size=rem % K, replace=False)] += 1
        ends = np.cumsum(sizes)
        batches = [list(range(e - z, e)) for e, z in zip(ends, sizes)]
        H = np.zeros((n, K), dtype=bool)
        deg = rng.choice(degrees, size=n, p=pmf)
        for i in range(n):
            H[i, rng.choice(K, size=int(deg[i]), replace=False)] = True
        code = cls(batches, H, decoder=decoder)
        code.degree_pmf = (degrees, pmf)
        return code

    @classmethod
    def theorem6(
        cls,
        n: int,
        s: int,
        eps: float,
        *,
        b: int | None = None,
        rng: Any = None,
        decoder: str = "peeling",
    ) -> BatchRaptorCode:
        """Theorem 6: ``P_w`` (:func:`theorem6_degree_distribution`) and
        ``b = ceil(1/log(n/s)) + 1`` (:func:`theorem6_batch_size`) unless given."""
        b = theorem6_batch_size(n, s) if b is None else b
        degrees, pmf = theorem6_degree_distribution(eps)
        return cls.random(n, b, degrees, pmf, rng=rng, decoder=decoder)

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        if self.decoder == "lstsq":
            return super()._solve(T)
        HT = self.H[T]
        coef, recovered, order = peeling_decode(HT, np.eye(T.size))
        A = coef[recovered].sum(axis=0)[:, None]
        if order:  # the unit triangular system peeling solved by substitution
            rows = [r for r, _ in order]
            cols = [b for _, b in order]
            kappa = effective_condition_number(HT[np.ix_(rows, cols)].astype(float))
        else:
            kappa = 1.0
        return A, kappa

    def recovered_batches(self, survivors: Sequence[int]) -> np.ndarray:
        """Boolean mask of the batches peeling recovers from ``survivors`` (structure only).

        The same edge-removal process as :func:`peeling_decode` without values
        (the recovered set does not depend on the ripple order), on Python
        adjacency lists for speed in Monte Carlo loops.
        """
        T = validate_survivors(survivors, self.n, 1)
        if not hasattr(self, "_row_lists"):
            self._row_lists = [np.flatnonzero(h).tolist() for h in self.H]
        K = self.H.shape[1]
        rows = [self._row_lists[int(t)] for t in T]
        rows_of: list[list[int]] = [[] for _ in range(K)]
        deg = [len(r) for r in rows]
        for i, r in enumerate(rows):
            for b in r:
                rows_of[b].append(i)
        recovered = [False] * K
        stack = [i for i, dg in enumerate(deg) if dg == 1]
        while stack:
            i = stack.pop()
            if deg[i] != 1:
                continue
            b = next(c for c in rows[i] if not recovered[c])
            recovered[b] = True
            for o in rows_of[b]:
                deg[o] -= 1
                if deg[o] == 1:
                    stack.append(o)
        return np.array(recovered, dtype=bool)

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Peeling (Algorithm 1): every edge of the survivors' bipartite graph is removed once,
        each removal subtracting a length-d vector; ``lstsq``: the dense model."""
        if self.decoder == "lstsq":
            return super().decoding_cost(survivors, d)
        r = check_positive_int("d", d)
        if survivors is None:
            edges = int(self.H.sum())
        else:
            edges = int(self.H[validate_survivors(survivors, self.n, 1)].sum())
        return DecodingCost(setup=edges, apply=edges * r, method="peeling (Wang et al. Alg. 1)")

    def decoder_error(self, survivors: Sequence[int]) -> float:
        """Partitions in batches peeling leaves unrecovered (or eq. (5) for ``lstsq``)."""
        if self.decoder == "lstsq":
            return super().decoder_error(survivors)
        rec = self.recovered_batches(survivors)
        return float(sum(self.batches[b].size for b in np.flatnonzero(~rec)))


# ------------------------------------------------------------------- BGC
class BernoulliGradientCode(_ApproximateCode):
    """Bernoulli gradient code of Charles et al. 2017 with optimal decoding.

    Every worker holds every partition independently with probability ``p``
    (``A[i, j] ~ Bernoulli(p)``, expected load ``p k``); decoding takes the
    least-squares ``u`` of eq. (4) of Wang et al. 2019, making the error
    ``err(A_S)`` of eq. (5).

    Parameters
    ----------
    n : int
        Workers.
    p : float
        Placement probability, ``0 < p <= 1``.
    k : int, optional
        Partitions (default ``n``).
    rng : optional
        Seeds the placement.
    """

    name = "Bernoulli gradient code (Charles et al. 2017)"

    def __init__(self, n: int, p: float, *, k: int | None = None, rng: Any = None) -> None:
        self.n = check_positive_int("n", n)
        self.k = self.n if k is None else check_positive_int("k", k)
        if not (
            isinstance(p, (int, float, np.integer, np.floating))
            and not isinstance(p, (bool, np.bool_))
            and 0 < p <= 1
        ):
            raise ValueError(f"p must be a probability in (0, 1], got {p!r}")
        check_memory(18 * self.n * self.k, "n", f"the {self.n} x {self.k} coding matrix")
        self.p = float(p)
        rng = as_generator(rng)
        self.A = (rng.random((self.n, self.k)) < self.p).astype(np.int8)
        self.support = self.A.astype(bool)
        self.load = int(self.support.sum(axis=1).max())

    @property
    def expected_load(self) -> float:
        """``p k``, the mean number of partitions per worker."""
        return self.p * self.k


# ------------------------------------------------------------- Monte Carlo
def _random_survivors(rng: np.random.Generator, size: int, n: int, s: int) -> np.ndarray:
    return np.argsort(rng.random((size, n)), axis=1)[:, : n - s]


def _error_sample(code: _ApproximateCode, s: int, rng: np.random.Generator, size: int):
    out = np.empty(size)
    for t, T in enumerate(_random_survivors(rng, size, code.n, s)):
        out[t] = code.decoder_error(T)
    return out


def _failure_event(
    code: _ApproximateCode, s: int, threshold: float, rng: np.random.Generator, size: int
) -> np.ndarray:
    return _error_sample(code, s, rng, size) > threshold


def _check_code(code: Any, s: Any) -> int:
    if not isinstance(code, _ApproximateCode):
        raise ValueError(f"code must be an approximate code of this module, got {type(code)}")
    return _check_ns(code.n, s)[1]


def estimate_decoding_failure(
    code: _ApproximateCode,
    s: int,
    trials: int,
    *,
    threshold: float = 0.0,
    rng: Any = None,
    level: float = 0.99,
    executor: Any = None,
    chunk_size: int | None = None,
) -> Estimate:
    """Monte Carlo ``P(err > threshold)`` for ``s`` uniformly random stragglers.

    ``err`` is the error of the code's own decoder (:meth:`decoder_error`);
    ``threshold = 0`` gives the decoding failure probability of Definition 3
    (``G_0``), ``threshold = eps n`` the event of ``G_eps`` in Wang et al.
    2019. Runs through :func:`gctheory.montecarlo.estimate_probability`
    (Wilson interval at ``level``).
    """
    s = _check_code(code, s)
    event = partial(_failure_event, code, s, float(threshold))
    return estimate_probability(
        event, trials, rng=rng, level=level, executor=executor, chunk_size=chunk_size
    )


def estimate_mean_error(
    code: _ApproximateCode,
    s: int,
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    executor: Any = None,
    chunk_size: int | None = None,
) -> Estimate:
    """Monte Carlo ``E[err]`` (decoder's error, eq. (5) form) for ``s`` random stragglers.

    Through :func:`gctheory.montecarlo.estimate_mean` (CLT interval; ``err``
    is bounded by ``k``, so the CLT applies).
    """
    s = _check_code(code, s)
    sampler = partial(_error_sample, code, s)
    return estimate_mean(
        sampler, trials, rng=rng, level=level, executor=executor, chunk_size=chunk_size
    )
