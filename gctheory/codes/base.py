"""The common interface of every gradient code, and the linear-algebra contract behind it.

A (communication-efficient) gradient code for ``n`` workers and ``k`` data
partitions is described by

- a placement: ``support`` (n x k boolean), worker i holds partition j iff
  ``support[i, j]``; ``load`` = partitions per worker (l of Kadhe et al. 2019,
  d of Wang et al. 2019);
- a communication saving ``m``: each partial gradient g_j (length d) is
  zero-padded to length ``m * r``, ``r = ceil(d / m)``, and cut into m
  contiguous chunks ``g_j^(u) = padded[u r : (u + 1) r]`` (u = 0..m-1; this is
  the column arrangement of eq. (4) of Kadhe et al. 2019);
- a linear encoding: worker i transmits the length-r vector
  ``y_i = sum_{j, u} E[j m + u, i] g_j^(u)`` where ``E`` is the
  ``(k m) x n`` :attr:`GradientCode.encoding_matrix` (zero outside the
  placement);
- a decoding: from the survivors T the server finds coefficients
  ``A`` (|T| x m) with ``E[:, T] A = C``, where ``C[j m + u, u'] = [u == u']``
  (every partition's chunk u once, no other chunk), and outputs chunk u of the
  sum as ``sum_{i in T} A[i, u] y_i``. Exact codes find ``A`` for every T with
  ``|T| >= n - s``; approximate codes (``s is None``) take the least-squares
  ``A`` (optimal decoding, Wang et al. 2019, eqs. (4)-(5)) and report the
  error they make.

The module passed 800 lines and is split by concept: survivor validation is
in ``gctheory.codes._survivors`` and batched decoding (``decode_many``) in the
``gctheory.codes._batch`` mixin; every public name stays importable from here.

Every construction in :mod:`gctheory.codes` subclasses :class:`GradientCode`
and fills in ``encoding_matrix``; the base class then provides a generic
``encode``, a generic least-squares ``decode``, ``decoding_matrix`` and a
dense-solve cost model. Families override ``_solve`` / ``decoding_matrix`` /
``decoding_cost`` with their structured decoders (per-group solves for
CommFR-GC, inverting V_T for Ye-Abbe, Alg. 3 for Reed-Solomon, peeling for
LDPC and batch raptor codes).

Contract of the public methods (every subclass keeps it):

``encode(partials)``
    ``partials``: real or complex array (k, d) -> transmissions (n, ceil(d/m)).
``decode(survivors, received, d=None)``
    ``survivors``: distinct worker indices in [0, n), any order;
    ``received``: (len(survivors), r) transmissions in the same order.
    Returns the gradient sum (d,) (length m r when ``d`` is None).
    Exact codes raise ``ValueError`` when fewer than ``n - s`` survivors are
    given or when the survivors cannot decode (the relative residual of the
    decoding equations exceeds ``rtol``); approximate codes never raise for
    that reason and return their best estimate.
``decode_detail(...)``
    Same, returning a :class:`DecodeResult` with the condition number of the
    solved system and the achieved residual (DESIGN.md: numerical trouble is
    reported, not hidden).
``decoding_matrix(survivors)``
    The matrix the decoder solves with or inverts (its condition number
    governs the forward error).
``decoding_cost(survivors=None, d=1)``
    A :class:`DecodingCost` operation count (multiply-adds) of the decoder.

References
----------
.. [1] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding: avoiding
   stragglers in distributed learning", ICML 2017.
.. [2] Ye, Abbe, "Communication-computation efficient gradient coding",
   ICML 2018.
.. [3] Kadhe, Koyluoglu, Ramchandran, "Communication-efficient gradient coding
   for straggler mitigation in distributed learning", 2019, eq. (1), (4).
.. [4] Wang, Liu, Shroff, "Fundamental limits of approximate gradient coding",
   2019, eqs. (4)-(5).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.linalg import get_lapack_funcs

from gctheory._validate import as_generator, check_array, check_memory
from gctheory.codes._batch import BatchDecoding
from gctheory.codes._survivors import (
    _EPS,
    _FALLBACK_RESIDUAL,
    _survivors_mask,
    check_positive_int,
    validate_survivors,
)

__all__ = [
    "DecodeResult",
    "DecodingCost",
    "GradientCode",
    "check_positive_int",
    "validate_survivors",
    "ye_abbe_lower_bound",
    "effective_condition_number",
    "split_chunks",
    "join_chunks",
    "target_matrix",
    "ToleranceCheck",
    "verify_straggler_sets",
]


def ye_abbe_lower_bound(n: int, k: int, s: int, m: int) -> Fraction:
    """Smallest fractional load ``l / k`` admitting (m, s): ``(s + m) / n`` (Kadhe et al. eq. (1)).

    A triple (l, m, s) is achievable by a linear code iff ``l / k >= (s + m) / n``
    (Ye and Abbe 2018, restated as eq. (1) of Kadhe et al. 2019); returned as an
    exact :class:`fractions.Fraction`.
    """
    n = check_positive_int("n", n)
    check_positive_int("k", k)
    m = check_positive_int("m", m)
    s = check_positive_int("s", s, minimum=0)
    if s >= n:
        raise ValueError(f"s must be < n (some worker must survive), got s={s}, n={n}")
    return Fraction(s + m, n)


def effective_condition_number(M: np.ndarray) -> float:
    """sigma_max / sigma_r of ``M`` over its numerically non-zero singular values.

    This is the condition number that governs the minimum-norm least-squares
    solution (rank r, singular values below ``max(shape) eps sigma_max`` are
    treated as zero). ``inf`` for an all-zero matrix. ``M``: a finite real or
    complex 2-D array.
    """
    M = check_array(M, "M", ndim=2, complex_ok=True, min_size=0)
    if M.size == 0:
        return math.inf
    sv = np.linalg.svd(M, compute_uv=False)
    if sv[0] == 0:
        return math.inf
    nz = sv[sv > max(M.shape) * _EPS * sv[0]]
    return float(nz[0] / nz[-1])


# ------------------------------------------------------------- chunk helpers
def split_chunks(partials: np.ndarray, m: int) -> tuple[np.ndarray, int]:
    """Pad (k, d) partials to length m r and return them as (k m, r) rows ``j m + u``, and d."""
    partials = check_array(partials, "partials", ndim=2, complex_ok=True, finite=False)
    m = check_positive_int("m", m)
    k, d = partials.shape
    r = -(-d // m)
    check_memory(k * m * r * partials.itemsize, "m", f"padding {k} partials to m * r = {m * r}")
    padded = np.zeros((k, m * r), dtype=partials.dtype)
    padded[:, :d] = partials
    return padded.reshape(k * m, r), d


def join_chunks(chunks: np.ndarray, d: int | None) -> np.ndarray:
    """Concatenate (m, r) chunks into one vector and drop padding beyond ``d``."""
    flat = check_array(chunks, "chunks", complex_ok=True, finite=False, min_size=0).reshape(-1)
    if d is None:
        return flat
    d = check_positive_int("d", d)
    if d > flat.size:
        raise ValueError(f"d must be at most the {flat.size} entries of chunks, got {d}")
    return flat[:d]


def _join_chunks(chunks: np.ndarray, d: int | None) -> np.ndarray:
    """:func:`join_chunks` for the decoders, whose arguments are already checked."""
    flat = chunks.reshape(-1)
    return flat if d is None else flat[:d]


def target_matrix(k: int, m: int) -> np.ndarray:
    """``C`` (k m x m), ``C[j m + u, u'] = [u == u']``: what ``E_T A`` must equal."""
    k, m = check_positive_int("k", k), check_positive_int("m", m)
    check_memory(8 * k * m * m, "m", f"the (k m) x m = {k * m} x {m} target matrix")
    return np.tile(np.eye(m), (k, 1))


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class DecodingCost:
    """Operation count (multiply-adds) of one decoding.

    ``setup``: finding the decoding coefficients (independent of d; the
    factorisation or peeling schedule); ``apply``: combining the received
    vectors into the gradient sum for gradient length ``d``; ``method`` names
    the decoder counted.
    """

    setup: int
    apply: int
    method: str

    @property
    def total(self) -> int:
        return self.setup + self.apply


@dataclass(frozen=True)
class DecodeResult:
    """What a decoder produced and how trustworthy it is.

    Attributes
    ----------
    gradient : ndarray (d,)
        The decoded gradient sum (complex for complex codes).
    coefficients : ndarray (|T|, m)
        The decoding coefficients ``A`` (see the module docstring).
    condition_number : float
        Effective condition number of the system solved (for block decoders
        the largest over the blocks); the forward error is about
        ``condition_number * eps`` relative to the size of the partials.
    residual : float
        Relative residual ``||E_T A - C||_F / ||C||_F`` of the decoding
        equations: ~eps when exact decoding is possible, the decoding error in
        coefficient space for an approximate code.
    survivors : tuple of int
    exact : bool
        ``residual <= rtol`` (the survivors decode exactly up to rounding).
    """

    gradient: np.ndarray = field(repr=False)
    coefficients: np.ndarray = field(repr=False)
    condition_number: float
    residual: float
    survivors: tuple[int, ...] = field(repr=False)
    exact: bool

    def error_bound(self, scale: float, size: int) -> float:
        """Forward-error tolerance ``10 * size * kappa * eps * scale`` for tests and checks.

        Standard perturbation bound for a linear solve: the backward error of a
        stable solver is a small multiple of ``size * eps`` and is amplified by
        at most the condition number; ``scale`` is the size of the data (e.g.
        ``sum_j max|g_j|``), ``size`` the dimension of the system.
        """
        kappa = self.condition_number if math.isfinite(self.condition_number) else 1 / _EPS
        return 10.0 * size * kappa * _EPS * scale


def _relative_residual(EX: np.ndarray, C: np.ndarray, size: int) -> float:
    """``||EX - C||_F / sqrt(size)`` (``size = k m = ||C||_F^2``)."""
    R = EX - C
    return math.sqrt(np.vdot(R, R).real / size)


_FLAGS: dict[type, tuple[bool, bool]] = {}


def _generic_flags(cls: type) -> tuple[bool, bool]:
    """Whether ``cls`` keeps the generic ``_solve`` and ``_coefficients`` (cached per class)."""
    flags = _FLAGS.get(cls)
    if flags is None:
        flags = _FLAGS[cls] = (
            cls._solve is GradientCode._solve,
            cls._coefficients is GradientCode._coefficients,
        )
    return flags


# ---------------------------------------------------------------- interface
class GradientCode(BatchDecoding):
    """Base class of all gradient codes (see the module docstring for the contract).

    Subclasses set ``n, k, load, m, s`` and ``support`` in ``__init__`` and
    implement the ``encoding_matrix`` property; they may override ``_solve``,
    ``decoding_matrix`` and ``decoding_cost`` with structured decoders.

    Attributes
    ----------
    n : int
        Number of workers.
    k : int
        Number of data partitions.
    load : int
        Partitions per worker (maximum row sum of ``support``).
    m : int
        Communication saving: each worker sends ceil(d/m) numbers.
    s : int or None
        Guaranteed straggler tolerance (any ``n - s`` survivors decode
        exactly); None for approximate codes.
    support : ndarray (n, k) of bool
        Placement.
    name : str
        Human-readable scheme name.
    """

    n: int
    k: int
    load: int
    m: int
    s: int | None
    support: np.ndarray
    name: str = "gradient code"

    # -- to be provided by subclasses
    @property
    def encoding_matrix(self) -> np.ndarray:
        """The (k m) x n matrix ``E``: ``y_i = sum_{j,u} E[j m + u, i] g_j^(u)``."""
        raise NotImplementedError

    # -- derived facts
    @property
    def exact(self) -> bool:
        """True for codes with a guaranteed tolerance ``s`` (exact decoding)."""
        return self.s is not None

    @property
    def min_survivors(self) -> int:
        """Fewest survivors ``decode`` accepts: ``n - s`` (exact) or 1 (approximate)."""
        return self.n - self.s if self.s is not None else 1

    @property
    def is_complex(self) -> bool:
        return bool(np.iscomplexobj(self.encoding_matrix))

    @property
    def is_optimal(self) -> bool:
        """``load / k == (s + m) / n`` exactly: meets eq. (1) of Kadhe et al. with equality."""
        if self.s is None:
            return False
        return Fraction(self.load, self.k) == Fraction(self.s + self.m, self.n)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(n={self.n}, k={self.k}, load={self.load}, m={self.m}, "
            f"s={self.s})"
        )

    # -- encoding
    def encode(self, partials: np.ndarray) -> np.ndarray:
        """Transmissions (n, ceil(d/m)) of all workers for partial gradients (k, d)."""
        P = self._check_partials(partials)
        rows, _ = split_chunks(P, self.m)
        return self.encoding_matrix.T @ rows

    def _check_partials(self, partials: Any) -> np.ndarray:
        P = np.asarray(partials)
        if P.ndim != 2 or P.shape[0] != self.k or P.shape[1] < 1:
            raise ValueError(
                f"partials must have shape (k, d) = ({self.k}, d) with d >= 1, got {P.shape}"
            )
        if not (np.issubdtype(P.dtype, np.number)):
            raise ValueError(f"partials must be numeric, got dtype {P.dtype}")
        return P.astype(np.result_type(P.dtype, float), copy=False)

    # -- decoding
    #: Most survivor sets whose decoding coefficients are kept (see :meth:`clear_decode_cache`).
    decode_cache_size: int = 1024

    def decoding_matrix(self, survivors: Sequence[int]) -> np.ndarray:
        """The matrix solved with when decoding from ``survivors``: here ``E[:, T]``."""
        T = validate_survivors(survivors, self.n, 1)
        return self.encoding_matrix[:, T]

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        """Decoding coefficients A (|T|, m) and the condition number (generic decoder).

        Families with a structured decoder override this; they may also
        override :meth:`_coefficients` (A alone) when their condition number
        costs more than the coefficients.
        """
        return self._generic_coefficients(T), self._generic_condition(T)

    def _generic_condition(self, T: np.ndarray) -> float:
        return effective_condition_number(self.encoding_matrix[:, T])

    def _generic_coefficients(self, T: np.ndarray, alive: np.ndarray | None = None) -> np.ndarray:
        """Exact codes: the null-space decoder; approximate codes: least squares.

        The solutions of ``E X = C`` (X: n x m, one row per worker) are
        ``X0 + Z Y`` with ``X0`` the minimum-norm solution and ``Z`` an
        orthonormal basis of null(E), both from one SVD of ``E`` per code. The
        stragglers S must get zero rows: ``Z[S] Y = -X0[S]``, an |S| x dim
        null(E) system (s x s for cyclic-MDS: O(s^3 + n s) per decode instead
        of an (n - s)-column least-squares solve); ``A = X[T]``. When the
        equations are not solvable this way (C outside the range of E, or
        ``Z[S]`` singular) the caller's residual check falls back to least
        squares on ``E[:, T]``.
        """
        if self.s is not None:
            A = self._nullspace_coefficients(T, alive)
            if A is not None:
                return A
        return self._lstsq_coefficients(T)

    def _lstsq_coefficients(self, T: np.ndarray) -> np.ndarray:
        E_T = self.encoding_matrix[:, T]
        return np.linalg.lstsq(E_T, target_matrix(self.k, self.m), rcond=None)[0]

    def _nullspace(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(Z, X0)`` of :meth:`_generic_coefficients`, made once; None if C not in range(E)."""
        ns = self._nullspace_data()
        return None if ns is None else (ns[0], ns[1])

    def _batch_eligible(self) -> bool:
        """Exact code with the generic solve and a null-space decoder: ``decode_many`` may
        solve its straggler systems in one batch (:mod:`gctheory.codes._batch`)."""
        return (
            self.s is not None and _generic_flags(type(self))[0] and self._nullspace() is not None
        )

    def _nullspace_data(self) -> tuple[np.ndarray, ...] | None:
        """``(Z, X0, E, C, W)``: null-space basis, minimum-norm solution, the contiguous
        encoding and target matrices the residual is computed with, and ``W = [Z | X0]``
        (one gather per decode), made once; None if C is not in the range of E."""
        cached = self.__dict__.get("_nullspace_cache", False)
        if cached is not False:
            return cached
        E = np.ascontiguousarray(self.encoding_matrix)
        C = target_matrix(self.k, self.m)
        U, sv, Vh = np.linalg.svd(E, full_matrices=E.shape[0] < E.shape[1])
        r = int(np.count_nonzero(sv > max(E.shape) * _EPS * sv[0])) if sv.size and sv[0] else 0
        out: tuple[np.ndarray, ...] | None = None
        if r:
            X0 = Vh[:r].conj().T @ ((U[:, :r].conj().T @ C) / sv[:r, None])
            if np.linalg.norm(E @ X0 - C) <= 1e-8 * np.linalg.norm(C):
                Z = np.ascontiguousarray(Vh[r:].conj().T)
                out = (Z, X0, E, C, np.ascontiguousarray(np.hstack([Z, X0])))
        self.__dict__["_nullspace_cache"] = out
        return out

    def _nullspace_full(self, T: np.ndarray, alive: np.ndarray | None) -> np.ndarray | None:
        """The null-space solution X (n x m) of ``E X = C`` vanishing on the stragglers.

        Rows of stragglers are set to exactly 0, so ``X[T]`` are the decoding
        coefficients and ``E X - C`` is the residual of the decoding equations
        ``E_T X[T] - C`` (the zero rows add nothing). None when the stragglers'
        system ``Z[S] Y = X0[S]`` cannot be solved this way.
        """
        ns = self._nullspace_data()
        if ns is None:
            return None
        Z, X0, W = ns[0], ns[1], ns[4]
        if T.size == self.n:
            return X0
        if alive is None:
            alive = np.zeros(self.n, dtype=bool)
            alive[T] = True
        nul = Z.shape[1]
        if nul == 0:
            return None
        dead = ~alive
        WS = W[dead]  # [Z[S] | X0[S]]: solve Z[S] Y = X0[S]; X = X0 - Z Y vanishes on S
        e = WS.shape[0]
        if e == 1 == nul:
            if WS[0, 0] == 0:
                return None
            Y = WS[:, 1:] / WS[0, 0]
        elif e == nul:
            # LAPACK gesv directly: numpy's solve costs ~15 us of overhead on tiny systems
            gesv = self.__dict__.get("_gesv")
            if gesv is None:
                (gesv,) = get_lapack_funcs(("gesv",), (Z, X0))
                self.__dict__["_gesv"] = gesv
            _, _, Y, info = gesv(WS[:, :nul], WS[:, nul:])
            if info != 0:
                return None
        else:
            Y = np.linalg.lstsq(WS[:, :nul], WS[:, nul:], rcond=None)[0]
        X = X0 - Z @ Y
        X[dead] = 0
        return X

    def _nullspace_coefficients(
        self, T: np.ndarray, alive: np.ndarray | None = None
    ) -> np.ndarray | None:
        X = self._nullspace_full(T, alive)
        return None if X is None else X[T]

    def _coefficients(self, T: np.ndarray) -> np.ndarray:
        """Decoding coefficients A (|T|, m) without the condition number."""
        if type(self)._solve is not GradientCode._solve:
            return self._solve(T)[0]
        return self._generic_coefficients(T)

    def _condition(self, T: np.ndarray) -> float:
        """Condition number of the system the decoder solves (only computed when asked)."""
        if type(self)._solve is not GradientCode._solve:
            return self._solve(T)[1]
        return self._generic_condition(T)

    def clear_decode_cache(self) -> None:
        """Forget the cached decoding coefficients (call after modifying the code in place)."""
        self.__dict__.pop("_decode_cache", None)
        for key in (
            "_decode_cache",
            "_nullspace_cache",
            "_nullspace_extra_cache",
            "_target",
            "_gesv",
        ):
            self.__dict__.pop(key, None)

    def _coefficients_and_condition(self, T: np.ndarray) -> tuple[np.ndarray, float, float]:
        """``(A, residual, condition number)``, solving a family's system once.

        A family with its own ``_solve`` gets coefficients and condition
        number from one call when the survivor set is not cached yet.
        """
        cache = self.__dict__.get("_decode_cache")
        if type(self)._solve is not GradientCode._solve and not (
            cache is not None and T.tobytes() in cache
        ):
            A, kappa = self._solve(T)
            A, res = self._cached_coefficients(T, solved=A)
            return A, res, kappa
        A, res = self._cached_coefficients(T)
        return A, res, self._condition(T)

    def _cached_coefficients(
        self, T: np.ndarray, alive: np.ndarray | None = None, solved: np.ndarray | None = None
    ) -> tuple[np.ndarray, float]:
        """``(A, residual)`` for the ordered survivors T, from the cache when seen before.

        Up to :attr:`decode_cache_size` survivor sets are kept (oldest dropped
        first); the coefficients are returned read-only.
        """
        size = self.decode_cache_size
        if solved is not None:  # a family's own solver already gave the coefficients
            fresh = (solved, self._residual(T, solved))
        if size <= 0:
            return fresh if solved is not None else self._coefficients_residual(T, alive)
        key = T.tobytes()
        cache = self.__dict__.get("_decode_cache")
        if cache is None:
            cache = self.__dict__["_decode_cache"] = {}
        else:
            hit = cache.get(key)
            if hit is not None:
                return hit
        A, res = fresh if solved is not None else self._coefficients_residual(T, alive)
        A = np.asarray(A)
        A.setflags(write=False)
        if len(cache) >= size:
            del cache[next(iter(cache))]
        cache[key] = (A, res)
        return A, res

    def _coefficients_residual(
        self, T: np.ndarray, alive: np.ndarray | None = None
    ) -> tuple[np.ndarray, float]:
        """Decoding coefficients A and the relative residual of ``E_T A = C`` (uncached).

        Generic exact codes: the null-space decoder, with the residual computed
        from the full solution (``E X - C``, one product of the size of the
        system). When it leaves a residual above ``_FALLBACK_RESIDUAL`` (1e-8),
        least squares on ``E[:, T]`` is tried too and the smaller residual
        kept. Families with a structured decoder override this with their own
        (e.g. a closed-form residual for group codes).
        """
        generic_solve, generic_coef = _generic_flags(type(self))
        res = math.inf
        if generic_solve and generic_coef:
            X = self._nullspace_full(T, alive) if self.s is not None else None
            if X is not None:
                _, _, E, C, _ = self._nullspace_data()
                A = X[T]
                res = _relative_residual(E @ X, C, self.k * self.m)
            else:
                A = self._lstsq_coefficients(T)
                res = self._residual(T, A)
        else:
            A = self._coefficients(T)
            res = self._residual(T, A)
        if self.s is not None and res > _FALLBACK_RESIDUAL and generic_solve:
            A2 = self._lstsq_coefficients(T)
            res2 = self._residual(T, A2)
            if res2 < res:
                A, res = A2, res2
        return A, res

    def decoding_coefficients(
        self, survivors: Sequence[int], *, check: bool = True
    ) -> tuple[np.ndarray, float, float]:
        """``(A, condition_number, residual)`` for ``survivors`` (no gradient needed).

        With ``check=False`` fewer than :attr:`min_survivors` are accepted
        (to measure how decoding breaks); the residual then tells.
        """
        T = validate_survivors(survivors, self.n, self.min_survivors if check else 1)
        A, res, kappa = self._coefficients_and_condition(T)
        return A, kappa, res

    def _residual(self, T: np.ndarray, A: np.ndarray) -> float:
        """Relative residual ``||E_T A - C||_F / ||C||_F`` (families may compute it blockwise).

        O(k m |T| m): the size of the decoding equations.
        """
        C = self.__dict__.get("_target")
        if C is None:
            C = self.__dict__["_target"] = target_matrix(self.k, self.m)
        used = np.flatnonzero(np.any(A != 0, axis=1))  # group decoders use few survivors
        if used.size < T.size:
            R = self.encoding_matrix[:, T[used]] @ A[used] - C
        else:
            R = self.encoding_matrix[:, T] @ A - C
        return float(np.sqrt(np.vdot(R, R).real / (self.k * self.m)))

    def _check_received(self, T: np.ndarray, received: Any, d: int | None) -> np.ndarray:
        Y = np.asarray(received)
        if Y.ndim != 2 or Y.shape[0] != T.size:
            raise ValueError(
                f"received must have shape (len(survivors), r) = ({T.size}, r), got {Y.shape}"
            )
        if d is not None:
            d = check_positive_int("d", d)
            if -(-d // self.m) != Y.shape[1]:
                raise ValueError(
                    f"d={d} needs r = ceil(d/m) = {-(-d // self.m)} received entries, "
                    f"got {Y.shape[1]}"
                )
        return Y

    def _refuse(self, T: np.ndarray, res: float, rtol: float, kappa: float | None) -> None:
        cond = f" (condition number {kappa:.3g})" if kappa is not None else ""
        raise ValueError(
            f"survivors {sorted(T.tolist())} cannot decode the gradient sum: the decoding "
            f"equations have relative residual {res:.3g} > rtol={rtol:g}{cond}; "
            f"{type(self).__name__} guarantees decoding only from any n - s = "
            f"{self.n - self.s} survivors"
        )

    def decode_detail(
        self,
        survivors: Sequence[int],
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        condition: bool = True,
    ) -> DecodeResult:
        """Decode and report conditioning and residual (see :class:`DecodeResult`).

        Parameters
        ----------
        survivors : sequence of int
            Distinct worker indices in [0, n), any order.
        received : array (len(survivors), r)
            Their transmissions, row i from worker ``survivors[i]``.
        d : int, optional
            Gradient length (drops the padding); default returns m r entries.
        rtol : float
            Largest relative residual of the decoding equations counted as exact.
        check : bool
            For exact codes, raise ``ValueError`` when fewer than
            :attr:`min_survivors` are given or the residual exceeds ``rtol``.
            Set False to measure a broken decoding instead (then only the
            index rules are enforced and ``exact`` in the result tells).
        condition : bool
            Compute the condition number of the solved system (an SVD, the
            dominant cost of a decode); False reports ``nan``.
        """
        T = validate_survivors(survivors, self.n, self.min_survivors if check else 1)
        Y = self._check_received(T, received, d)
        if condition:
            A, res, kappa = self._coefficients_and_condition(T)
        else:
            A, res = self._cached_coefficients(T)
            kappa = math.nan
        ok = res <= rtol
        if check and self.exact and not ok:
            self._refuse(T, res, rtol, kappa if condition else None)
        chunks = A.T @ Y
        return DecodeResult(
            gradient=_join_chunks(chunks, d),
            coefficients=A,
            condition_number=kappa,
            residual=res,
            survivors=tuple(int(t) for t in T),
            exact=bool(ok),
        )

    def decode(
        self,
        survivors: Sequence[int],
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
    ) -> np.ndarray:
        """The gradient sum (d,) from the survivors' transmissions (see the module contract).

        The correctness check stays on: the relative residual of the decoding
        equations (O(size of the system)) must be <= ``rtol`` for an exact
        code, else ``ValueError``. No condition number is computed (ask
        :meth:`decode_detail`). Coefficients of repeated survivor sets come
        from a cache.
        """
        T, alive = _survivors_mask(survivors, self.n, self.min_survivors if check else 1)
        Y = self._check_received(T, received, d)
        A, res = self._cached_coefficients(T, alive)
        if check and self.s is not None and res > rtol:
            self._refuse(T, res, rtol, None)
        return _join_chunks(A.T @ Y, d)

    # -- cost model
    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Multiply-adds of the generic dense least-squares decoder.

        Householder QR of the (k m) x t matrix ``E_T`` costs about
        ``2 (k m) t^2`` and applying ``A`` costs ``t m ceil(d/m)``; t is the
        number of survivors used (``n - s`` by default).
        """
        t = self.min_survivors if survivors is None else len(survivors)
        r = -(-check_positive_int("d", d) // self.m)
        return DecodingCost(
            setup=2 * self.k * self.m * t * t, apply=t * self.m * r, method="dense least squares"
        )


# ------------------------------------------------------------- verification
@dataclass(frozen=True)
class ToleranceCheck:
    """Outcome of :func:`verify_straggler_sets`.

    ``sets``: straggler sets tried; ``failures``: those that did not decode
    within the condition-number tolerance (or raised); ``max_error``: largest
    relative forward error ``||g_hat - g||_inf / sum_j ||g_j||_inf`` seen;
    ``max_condition``: largest condition number of a solved system;
    ``max_error_over_bound``: largest ratio of the error to its
    :meth:`DecodeResult.error_bound` (<= 1 means within tolerance).
    """

    stragglers: int
    sets: int
    failures: tuple[tuple[int, ...], ...]
    max_error: float
    max_condition: float
    max_error_over_bound: float
    exhaustive: bool

    @property
    def ok(self) -> bool:
        return not self.failures


def verify_straggler_sets(
    code: GradientCode,
    stragglers: int | None = None,
    *,
    d: int = 5,
    max_sets: int | None = None,
    rng: Any = None,
) -> ToleranceCheck:
    """Decode from every straggler set of a given size and compare with the true sum.

    Random Gaussian partials (k, d); each set of ``stragglers`` workers
    (default ``code.s``) is removed, the rest decode, and the result must agree
    with ``sum_j g_j`` to within :meth:`DecodeResult.error_bound` with
    ``scale = max_u ||A[:, u]||_1 max|y| + sum_j ||g_j||_inf`` (the size of
    what the decoder adds up) and ``size = k m``, plus ``residual * k m *
    max|g|``, the part of the error fixed by the residual of the decoding
    equations (a code whose matrices came from an ill-conditioned solve is
    exact only up to that residual; ``residual > rtol`` fails anyway). A set that raises
    ``ValueError`` (cannot decode) counts as a failure. With ``max_sets``, a
    random sample of that many sets is tried instead of all
    (``exhaustive=False``). Decoding runs with ``check=False``, so sets with
    more than ``s`` stragglers are decoded as far as the algebra allows and
    counted as failures when not exact.
    """
    if not isinstance(code, GradientCode):
        raise ValueError(f"code must be a GradientCode, got {type(code).__name__}")
    gen = as_generator(rng)
    e = code.s if stragglers is None else check_positive_int("stragglers", stragglers, minimum=0)
    if e is None:
        raise ValueError("stragglers must be given for an approximate code (s is None)")
    if e >= code.n:
        raise ValueError(f"stragglers must be < n={code.n}, got {e}")
    d = check_positive_int("d", d)
    if max_sets is not None:
        max_sets = check_positive_int("max_sets", max_sets)
    P = gen.standard_normal((code.k, d))
    Y = code.encode(P)
    truth = P.sum(axis=0)
    scale0 = float(np.abs(P).max(axis=1).sum())
    total = math.comb(code.n, e)
    if max_sets is None or total <= max_sets:
        sets = itertools.combinations(range(code.n), e)
        exhaustive = True
    else:
        sets = (
            tuple(sorted(gen.choice(code.n, e, replace=False).tolist())) for _ in range(max_sets)
        )
        exhaustive = False
    failures: list[tuple[int, ...]] = []
    count, max_err, max_kappa, max_ratio = 0, 0.0, 0.0, 0.0
    for S in sets:
        count += 1
        alive = np.setdiff1d(np.arange(code.n), S)
        try:
            res = code.decode_detail(alive, Y[alive], d, check=False, condition=True)
        except ValueError:
            failures.append(tuple(S))
            continue
        err = float(np.abs(res.gradient - truth).max())
        scale = float(np.abs(res.coefficients).sum(axis=0).max() * np.abs(Y[alive]).max()) + scale0
        # rounding in the solve (condition number) plus the exactly-known part of the error
        # carried by the residual R = E_T A - C of the decoding equations as built:
        # |R^T P| <= max|P| sqrt(km) ||R||_F and ||R||_F = residual sqrt(km)
        km = code.k * code.m
        bound = res.error_bound(scale, km) + res.residual * km * float(np.abs(P).max())
        max_err = max(max_err, err / scale0)
        max_kappa = max(max_kappa, res.condition_number)
        max_ratio = max(max_ratio, err / bound)
        if not res.exact or err > bound:
            failures.append(tuple(S))
    return ToleranceCheck(
        stragglers=e,
        sets=count,
        failures=tuple(failures),
        max_error=max_err,
        max_condition=max_kappa,
        max_error_over_bound=max_ratio,
        exhaustive=exhaustive,
    )
