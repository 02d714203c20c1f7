"""Batch raptor codes of Wang, Liu, Shroff 2019 and their peeling decoder (approximate codes).

Definition 5 of [1]: partitions in batches of size ``b``, each worker sums
``deg ~ P`` distinct random batches (:class:`BatchRaptorCode`); decoded by
the peeling decoder of Algorithm 1 (:func:`peeling_decode`, value level).
:func:`theorem6_degree_distribution` is ``P_w`` of Theorem 6 (eq. (17)),
with its exact mean (:func:`theorem6_mean_degree`) and the batch size of the
theorem (:func:`theorem6_batch_size`). Notation of
:mod:`gctheory.codes.approximate`, which re-exports every name here.

References
----------
.. [1] H. Wang, S. Liu, N. B. Shroff, "Fundamental limits of approximate
   gradient coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
"""

from __future__ import annotations

import functools
import math
from collections import deque
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_choice, check_memory
from gctheory.codes._approximate import _ApproximateCode
from gctheory.codes._survivors import Survivors
from gctheory.codes.base import (
    DecodingCost,
    check_positive_int,
    effective_condition_number,
    validate_survivors,
)
from gctheory.codes.tandon import _check_ns

__all__ = [
    "theorem6_degree_distribution",
    "theorem6_batch_size",
    "theorem6_mean_degree",
    "peeling_decode",
    "BatchRaptorCode",
]


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

    Examples
    --------
    >>> from gctheory.codes import theorem6_degree_distribution
    >>> degrees, pmf = theorem6_degree_distribution(0.2)
    >>> degrees.tolist(), [round(p, 4) for p in pmf.tolist()]
    ([1, 2, 3, 4, 5, 6], [0.8571, 0.0714, 0.0238, 0.0119, 0.0071, 0.0286])
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

    Parameters
    ----------
    eps : float or fractions.Fraction
        The target, ``1e-4 <= eps < 1/4``.

    Returns
    -------
    fractions.Fraction
        The exact mean degree.

    Examples
    --------
    >>> from gctheory.codes import theorem6_mean_degree
    >>> m = theorem6_mean_degree(0.2)
    >>> m, round(float(m), 6)
    (Fraction(557, 420), 1.32619)
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

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Stragglers, ``0 < s < n``.

    Returns
    -------
    int
        The batch size ``b``.

    Examples
    --------
    >>> from gctheory.codes import theorem6_batch_size
    >>> theorem6_batch_size(1000, 100)
    2
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

    Examples
    --------
    >>> from gctheory.codes import peeling_decode
    >>> import numpy as np
    >>> adjacency = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]], dtype=bool)
    >>> x, resolved, order = peeling_decode(adjacency, np.array([[2.0], [5.0], [7.0]]))
    >>> x.ravel().tolist(), resolved.tolist(), order
    ([2.0, 3.0, 4.0], [True, True, True], [(0, 0), (1, 1), (2, 2)])
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

    Examples
    --------
    >>> from gctheory.codes import BatchRaptorCode
    >>> import numpy as np
    >>> code = BatchRaptorCode([[0, 1], [2, 3]], np.array([[1, 0], [0, 1], [1, 1]]))
    >>> code.n, code.k
    (3, 4)
    >>> g = np.ones((4, 2))
    >>> code.decode([1, 2], code.encode(g)[[1, 2]]).tolist()  # peel batch 1, then batch 0
    [4.0, 4.0]
    >>> code = BatchRaptorCode.random(20, 2, [1, 2, 3], [0.3, 0.4, 0.3], rng=0)
    >>> code.n, code.k
    (20, 20)
    """

    name = "batch raptor code (Wang et al. 2019)"
    #: ``(degrees, pmf)`` a :meth:`random` code was drawn from; None when built from H
    degree_pmf: tuple[np.ndarray, np.ndarray] | None = None

    def __init__(self, batches: Sequence[Sequence[int]], H: Any, *, decoder: str = "peeling"):
        check_choice(decoder, "decoder", ("peeling", "lstsq"))
        batches = _check_batches(batches)
        if not (isinstance(H, np.ndarray) and H.dtype == np.bool_ and H.ndim == 2):
            # a boolean matrix (what random() builds) is 0/1 and finite as it is: reading it as
            # floats took 8 bytes an entry (400 MB and seconds at n = 10**4)
            H = check_array(H, "H", ndim=2)
            if not np.all((H == 0) | (H == 1)):
                raise ValueError("H must be a 0/1 worker-batch adjacency matrix")
        if H.shape[1] != len(batches) or H.shape[0] < 1:
            raise ValueError(
                f"H must be an n x K matrix with K = len(batches) = {len(batches)}, got {H.shape}"
            )
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
        # the largest number of partitions a worker holds, sum_b H[i, b] |batch b|, from the
        # n x K matrix H (the n x k matrices A and support are made when first asked for)
        rows, cols = np.nonzero(self.H)
        sizes = np.array([bt.size for bt in self.batches], dtype=np.int64)
        self.load = int(np.bincount(rows, weights=sizes[cols], minlength=self.n).max())

    @functools.cached_property
    def A(self) -> np.ndarray:  # type: ignore[override]
        """The ``n x k`` coding matrix ``H B`` (int8), made on first use.

        Partition j lies in exactly one batch, so ``A[:, j] = H[:, batch of j]`` (the int8
        product had no BLAS: O(n K k), 22 s at n = 2000; the gather is O(n k)). The
        peeling decoder's Monte Carlo never needs it (at n = 10**4 it is 100 MB).
        """
        batch_of = np.empty(self.k, dtype=np.intp)
        for b, bt in enumerate(self.batches):
            batch_of[bt] = b
        return self.H[:, batch_of].astype(np.int8)

    @functools.cached_property
    def support(self) -> np.ndarray:  # type: ignore[override]
        """``A != 0``: the partitions each worker holds (made on first use)."""
        return self.A.astype(bool)

    @classmethod
    def random(
        cls,
        n: int,
        b: int,
        degrees: Sequence[int] | np.ndarray,
        pmf: Sequence[float] | np.ndarray,
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
        degs = check_array(degrees, "degrees", ndim=1)
        probs = check_array(pmf, "pmf", ndim=1)
        if degs.shape != probs.shape:
            raise ValueError("degrees and pmf must be 1-D arrays of the same non-zero length")
        if np.any(degs != np.round(degs)):
            raise ValueError("degrees must be integers")
        degs = degs.astype(np.int64)
        if np.any(probs < 0) or not math.isclose(probs.sum(), 1.0, rel_tol=1e-12):
            raise ValueError(f"pmf must be non-negative and sum to 1, got sum {probs.sum()!r}")
        K = k // b
        if np.any(degs < 1) or np.any(degs[probs > 0] > K):
            raise ValueError(
                f"every degree with positive mass must lie in [1, K] with K = floor(k/b) = {K} "
                f"batches, got degrees up to {int(degs[probs > 0].max())}"
            )
        rng = as_generator(rng)
        rem = k - K * b  # < b leftover partitions, spread as evenly as possible
        sizes = np.full(K, b + rem // K, dtype=np.int64)
        if rem % K:
            sizes[rng.choice(K, size=rem % K, replace=False)] += 1
        ends = np.cumsum(sizes)
        batches = [list(range(e - z, e)) for e, z in zip(ends, sizes)]
        H = np.zeros((n, K), dtype=bool)
        deg = rng.choice(degs, size=n, p=probs)
        for i in range(n):
            H[i, rng.choice(K, size=int(deg[i]), replace=False)] = True
        code = cls(batches, H, decoder=decoder)
        code.degree_pmf = (degs, probs)
        return code

    @classmethod
    def theorem6(
        cls,
        n: int,
        s: int,
        eps: float | Fraction,
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

    def recovered_batches(self, survivors: Survivors) -> np.ndarray:
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

    def _decoder_errors(self, survivors: np.ndarray) -> np.ndarray | None:
        """:meth:`decoder_error` of every row of ``survivors`` (a trials x |T| array of
        valid survivor sets, as the Monte Carlo estimators draw them) at once, for the
        peeling decoder; None for ``lstsq`` (one solve per set).

        Peeling on the survivors' rows of ``H`` with every batch erased (Algorithm 1) is
        peeling on ``[H | I_n]`` with every batch and the stragglers' extra column erased:
        a straggler's row always sees its own erased column besides its unknown batches,
        so it never resolves a batch, and a survivor's row sees only its unknown batches.
        The batches left erased are the same (the largest stopping set inside the erasures,
        whatever the order), so the errors equal :meth:`decoder_error`'s (tested), from
        :func:`gctheory.ldpc.peel_batch`'s bit-parallel decoder (64 sets a word) instead
        of a Python loop per set (70 ms a set at n = 10**4).
        """
        if self.decoder != "peeling":
            return None
        from scipy import sparse

        from gctheory.ldpc import peel_batch

        n, K = self.H.shape
        graph = self.__dict__.get("_peel_graph")
        if graph is None:
            graph = sparse.hstack(
                [sparse.csr_matrix(self.H, dtype=np.int8), sparse.identity(n, dtype=np.int8)]
            ).tocsc()
            self.__dict__["_peel_graph"] = graph
        T = np.asarray(survivors, dtype=np.intp)
        erased = np.ones((T.shape[0], K + n), dtype=bool)
        erased[np.arange(T.shape[0])[:, None], K + T] = False
        # numba (when installed) for many sets: loading its cached kernel costs about 0.4 s
        # CPU, more than numpy's decoder takes for a few hundred sets (same results)
        backend = "auto" if T.shape[0] > 512 else "numpy"
        left = peel_batch(graph, erased, backend=backend)[:, :K]
        sizes = np.array([bt.size for bt in self.batches], dtype=np.int64)
        return (left.astype(np.int64) @ sizes).astype(float)

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

    def decoder_error(self, survivors: Survivors) -> float:
        """Partitions in batches peeling leaves unrecovered (or eq. (5) for ``lstsq``)."""
        if self.decoder == "lstsq":
            return super().decoder_error(survivors)
        rec = self.recovered_batches(survivors)
        return float(sum(self.batches[b].size for b in np.flatnonzero(~rec)))
