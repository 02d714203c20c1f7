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

_EPS = float(np.finfo(float).eps)
#: above this relative residual the null-space decoder's coefficients are recomputed by
#: least squares (which is then kept if better); below it both are accurate to
#: about cond * eps, the null-space ones within a small factor of least squares.
_FALLBACK_RESIDUAL = 1e-8


# ----------------------------------------------------------------- validation
def check_positive_int(name: str, value: Any, *, minimum: int = 1) -> int:
    """Return ``value`` as int, or raise ValueError naming ``name`` and the rule."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be the parameter's name (a str), got {name!r}")
    if isinstance(minimum, bool) or not isinstance(minimum, (int, np.integer)):
        raise ValueError(f"minimum must be an integer, got {minimum!r}")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {_short(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def validate_survivors(survivors: Any, n: int, minimum: int = 1) -> np.ndarray:
    """Check a set of surviving worker indices; return them as an int array (order kept).

    Rules: a 1-D sequence of integers, each in ``[0, n)``, no duplicates, at
    least ``minimum`` of them. Each broken rule raises ``ValueError`` naming it.
    O(n) (a boolean mask, no sort), since it runs on every decode.
    """
    if type(n) is not int or type(minimum) is not int:  # the decoders pass their own ints
        n = check_positive_int("n", n)
        minimum = check_positive_int("minimum", minimum, minimum=0)
    return _survivors_mask(survivors, n, minimum)[0]


def _survivors_mask(survivors: Any, n: int, minimum: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`validate_survivors` and the boolean mask of the survivors (length n)."""
    if n > 2**27:
        check_memory(n, "n", f"the survivor mask of n = {n} workers")
    if isinstance(survivors, (str, bytes, dict)) or survivors is None:
        raise ValueError(f"survivors must be a 1-D sequence of worker indices, got {survivors!r}")
    try:
        arr = np.asarray(survivors)
    except (ValueError, TypeError):
        raise ValueError(
            f"survivors must be a 1-D sequence of worker indices, got {_short(survivors)}"
        ) from None
    if arr.ndim != 1:
        raise ValueError(
            f"survivors must be a 1-D sequence of worker indices, got shape {arr.shape}"
        )
    if arr.dtype != np.int64:
        if arr.dtype.kind not in "iu" and arr.size:
            if not (
                arr.dtype.kind == "f"
                and bool(np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))
            ):
                raise ValueError(
                    f"survivors must be integer worker indices, got {_short(arr.tolist())}"
                )
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) >= n:
            raise ValueError(
                f"survivors must be worker indices in [0, n) with n={n}, got {int(arr.max())}"
            )
        if arr.dtype.kind == "f" and arr.size and float(np.abs(arr).max()) >= 2.0**62:
            raise ValueError(f"survivors must be worker indices in [0, n) with n={n}")
        arr = arr.astype(np.int64)
    if arr.size < minimum:
        raise ValueError(
            f"too few survivors: this code needs at least {minimum} of the n={n} workers, "
            f"got {arr.size}"
        )
    if (arr.view(np.uint64) >= n).any():  # negatives wrap to huge values
        bad = arr[(arr < 0) | (arr >= n)]
        raise ValueError(
            f"survivors must be worker indices in [0, n) with n={n}, got {bad.tolist()}"
        )
    seen = np.zeros(n, dtype=bool)
    seen[arr] = True
    if np.count_nonzero(seen) != arr.size:
        vals, counts = np.unique(arr, return_counts=True)
        raise ValueError(f"survivors must be distinct, duplicated: {vals[counts > 1].tolist()}")
    return arr, seen


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


# ---------------------------------------------------------------- interface
class GradientCode:
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
        cached = self.__dict__.get("_nullspace_cache", False)
        if cached is not False:
            return cached
        E = np.asarray(self.encoding_matrix)
        C = target_matrix(self.k, self.m)
        U, sv, Vh = np.linalg.svd(E, full_matrices=E.shape[0] < E.shape[1])
        r = int(np.count_nonzero(sv > max(E.shape) * _EPS * sv[0])) if sv.size and sv[0] else 0
        out: tuple[np.ndarray, np.ndarray] | None = None
        if r:
            X0 = Vh[:r].conj().T @ ((U[:, :r].conj().T @ C) / sv[:r, None])
            if np.linalg.norm(E @ X0 - C) <= 1e-8 * np.linalg.norm(C):
                out = (np.ascontiguousarray(Vh[r:].conj().T), X0)
        self.__dict__["_nullspace_cache"] = out
        return out

    def _nullspace_coefficients(
        self, T: np.ndarray, alive: np.ndarray | None = None
    ) -> np.ndarray | None:
        ns = self._nullspace()
        if ns is None:
            return None
        Z, X0 = ns
        if T.size == self.n:
            return X0[T]
        if alive is None:
            alive = np.zeros(self.n, dtype=bool)
            alive[T] = True
        S = np.flatnonzero(~alive)
        if Z.shape[1] == 0:
            return None
        ZS, X0S = Z[S], X0[S]  # solve Z[S] Y = X0[S]; X = X0 - Z Y vanishes on S
        if S.size == 1 == Z.shape[1]:
            if ZS[0, 0] == 0:
                return None
            Y = X0S / ZS[0, 0]
        elif S.size == Z.shape[1]:
            # LAPACK gesv directly: numpy's solve costs ~15 us of overhead on tiny systems
            gesv = self.__dict__.get("_gesv")
            if gesv is None:
                (gesv,) = get_lapack_funcs(("gesv",), (Z, X0))
                self.__dict__["_gesv"] = gesv
            _, _, Y, info = gesv(ZS, X0S)
            if info != 0:
                return None
        else:
            Y = np.linalg.lstsq(ZS, X0S, rcond=None)[0]
        return (X0 - Z @ Y)[T]

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
        for key in ("_decode_cache", "_nullspace_cache", "_target", "_gesv"):
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
        first); the coefficients are returned read-only. When the generic
        null-space decoder leaves a residual above ``_FALLBACK_RESIDUAL``
        (1e-8) on an exact code, least squares on ``E[:, T]`` is tried too
        and the smaller residual kept.
        """
        cache = self.__dict__.get("_decode_cache") if self.decode_cache_size > 0 else None
        key = T.tobytes()
        if cache is not None and key in cache:
            return cache[key]
        generic = type(self)._solve is GradientCode._solve
        if solved is not None:
            A = solved
        elif generic and type(self)._coefficients is GradientCode._coefficients:
            A = self._generic_coefficients(T, alive)
        else:
            A = self._coefficients(T)
        res = self._residual(T, A)
        if self.s is not None and res > _FALLBACK_RESIDUAL and generic:
            A2 = self._lstsq_coefficients(T)
            res2 = self._residual(T, A2)
            if res2 < res:
                A, res = A2, res2
        if self.decode_cache_size > 0:
            A = np.asarray(A)
            A.setflags(write=False)
            if cache is None:
                cache = self.__dict__["_decode_cache"] = {}
            if len(cache) >= self.decode_cache_size:
                del cache[next(iter(cache))]
            cache[key] = (A, res)
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

    def decode_many(
        self,
        survivor_sets: Any,
        received: Any,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
    ) -> np.ndarray:
        """Decode many survivor sets of this code in one call; returns (len(sets), d).

        Parameters
        ----------
        survivor_sets : (N, t) int array, or a sequence of N index sequences
            Each row/sequence one survivor set (rules of :meth:`decode`).
        received : array (n, r), (N, t, r), or a sequence of N arrays (t_i, r)
            Either every worker's transmissions (row i from worker i; each set
            takes its rows), or each set's own received rows in its order.
        d, rtol, check
            As in :meth:`decode`; with ``check`` an undecodable set of an exact
            code raises ``ValueError`` naming it.

        Notes
        -----
        Exact codes with the generic decoder solve all sets of one size at once
        (stacked |S| x dim null(E) solves, see :meth:`_generic_coefficients`);
        other families loop over their own decoder (with the cache). Same
        numbers as calling :meth:`decode` per set, up to rounding.
        """
        sets = _survivor_array(survivor_sets, self.n, self.min_survivors if check else 1)
        N = len(sets)
        Yfull: np.ndarray | None = None
        per_set: list[np.ndarray] = []
        if isinstance(received, np.ndarray) and received.ndim == 2:
            if received.shape[0] != self.n:
                raise ValueError(
                    f"received as a 2-D array must hold all n={self.n} workers' transmissions "
                    f"(n, r), got {received.shape}"
                )
            Yfull = received
            r = received.shape[1]
        else:
            per_set = [np.asarray(y) for y in received]
            if len(per_set) != N:
                raise ValueError(
                    f"received must give one array per survivor set ({N}), got {len(per_set)}"
                )
            for T, y in zip(sets, per_set):
                if y.ndim != 2 or y.shape[0] != len(T):
                    raise ValueError(
                        f"each received array must have shape (len(survivors), r), got {y.shape}"
                    )
            r = per_set[0].shape[1] if N else 1
            if any(y.shape[1] != r for y in per_set):
                raise ValueError("every received array must have the same number r of columns")
        if d is not None:
            d = check_positive_int("d", d)
            if -(-d // self.m) != r:
                raise ValueError(
                    f"d={d} needs r = ceil(d/m) = {-(-d // self.m)} received entries, got {r}"
                )
        width = self.m * r if d is None else d
        sample = Yfull if Yfull is not None else (per_set[0] if per_set else np.zeros(1))
        out = np.empty((N, width), dtype=np.result_type(self.encoding_matrix, sample, float))
        done = np.zeros(N, dtype=bool)
        if (
            isinstance(sets, np.ndarray)
            and self.s is not None
            and type(self)._solve is GradientCode._solve
            and self._nullspace() is not None
        ):
            alive = np.zeros((N, self.n), dtype=bool)
            alive[np.arange(N)[:, None], sets] = True
            X, res = self._nullspace_batch(sets, alive)
            ok = res <= min(rtol, _FALLBACK_RESIDUAL)
            if ok.any():
                m = self.m
                if Yfull is not None:
                    # (N m, n) @ (n, r): one GEMM for every set
                    ch = X.reshape(self.n, N * m).T @ Yfull
                    ch = ch.reshape(N, m * r)
                else:
                    XT = X.transpose(1, 0, 2)
                    A = np.take_along_axis(XT, sets[:, :, None], axis=1)
                    ch = (np.swapaxes(A, 1, 2) @ np.stack(per_set)).reshape(N, -1)
                out[ok] = ch[ok, :width]
                done = ok
        for i in np.flatnonzero(~done):
            T = sets[i]
            Y = Yfull[T] if Yfull is not None else per_set[i]
            out[i] = self.decode(T, Y, d, rtol=rtol, check=check)
        return out

    def _nullspace_batch(
        self, sets: np.ndarray, alive: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Stacked null-space decoding of equal-size survivor sets.

        Returns X (n, N, m) (column block i: set i's coefficients, zero on its
        stragglers) and the N relative residuals of the decoding equations,
        each computed from ``E X_i - C`` as in :meth:`_residual`. All sets
        share one GEMM for ``Z Y`` and one for ``E X``.
        """
        Z, X0 = self._nullspace()
        N, t = sets.shape
        n, m = X0.shape
        nul = Z.shape[1]
        e = n - t
        X = np.repeat(X0[:, None, :], N, axis=1)  # (n, N, m)
        if e and nul:
            S = np.nonzero(~alive)[1].reshape(N, e)
            try:
                Y = np.linalg.solve(Z[S], X0[S]) if e == nul else np.linalg.pinv(Z[S]) @ X0[S]
            except np.linalg.LinAlgError:
                return X, np.full(N, np.inf)
            X -= (Z @ Y.transpose(1, 0, 2).reshape(nul, N * m)).reshape(n, N, m)
        elif e:
            return X, np.full(N, np.inf)
        X *= alive.T[:, :, None]
        E = self.encoding_matrix
        R = (E @ X.reshape(n, N * m)).reshape(E.shape[0], N, m)
        R -= target_matrix(self.k, self.m)[:, None, :]
        res = np.sqrt(np.einsum("inm,inm->n", R, R.conj()).real / (self.k * self.m))
        return X, res

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


def _survivor_array(sets: Any, n: int, minimum: int) -> np.ndarray | list[np.ndarray]:
    """Survivor sets as an (N, t) int array when all have one size, else a list of arrays."""
    if isinstance(sets, np.ndarray) and sets.ndim == 2:
        arr = sets
        if arr.dtype.kind not in "iu":
            if not (arr.dtype.kind == "f" and np.all(arr == np.round(arr))):
                raise ValueError("survivor_sets must hold integer worker indices")
        arr = arr.astype(np.int64, copy=False)
        if arr.shape[1] < minimum:
            raise ValueError(
                f"too few survivors: this code needs at least {minimum} of the n={n} workers, "
                f"got sets of {arr.shape[1]}"
            )
        if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= n):
            raise ValueError(f"survivor_sets must hold worker indices in [0, n) with n={n}")
        seen = np.zeros((arr.shape[0], n), dtype=bool)
        seen[np.arange(arr.shape[0])[:, None], arr] = True
        dup = np.flatnonzero(seen.sum(axis=1) != arr.shape[1])
        if dup.size:
            raise ValueError(f"survivors must be distinct: set {int(dup[0])} repeats a worker")
        return arr
    out = [validate_survivors(T, n, minimum) for T in sets]
    if out and len({T.size for T in out}) == 1:
        return np.stack(out)
    return out


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
