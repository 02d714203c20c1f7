"""The shared decoding machinery of :class:`gctheory.codes.base.GradientCode`.

A mixin (private module, one concept: finding decoding coefficients and
checking them; the interface and the public ``decode``/``decode_detail`` live
in ``base``, batched decoding in the ``_batch`` mixin this one extends):

- the generic solvers: the null-space decoder (one SVD of ``E`` per code,
  then an ``|S| x dim null(E)`` system per straggler set ``S``) and least
  squares on ``E[:, T]`` as fallback and for approximate codes; the first
  ``decode_direct_sets`` (2) survivor sets of a code are solved directly (a QR least
  squares on ``E[:, T]``, cheaper than one ``numpy.linalg.lstsq``), and the SVD is
  made only when a further set follows (the first ``decode`` cost 1.5-2.3
  lstsq calls);
- the residual check ``||E_T A - C||_F / ||C||_F`` of the decoding equations;
- the per-code cache of coefficients by survivor set (``decode_cache_size``,
  ``clear_decode_cache``).

Families override ``_solve`` (and may override ``_coefficients``,
``_coefficients_residual``, ``_residual``) with their structured decoders.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy.linalg import get_lapack_funcs

from gctheory.codes._batch import BatchDecoding
from gctheory.codes._linalg import effective_condition_number, target_matrix
from gctheory.codes._survivors import _EPS, _FALLBACK_RESIDUAL


def _relative_residual(EX: np.ndarray, C: np.ndarray, size: int) -> float:
    """``||EX - C||_F / sqrt(size)`` (``size = k m = ||C||_F^2``)."""
    R = EX - C
    return math.sqrt(np.vdot(R, R).real / size)


_FLAGS: dict[type, tuple[bool, bool]] = {}


def _generic_flags(cls: type[GenericDecoding]) -> tuple[bool, bool]:
    """Whether ``cls`` keeps the generic ``_solve`` and ``_coefficients`` (cached per class)."""
    flags = _FLAGS.get(cls)
    if flags is None:
        flags = _FLAGS[cls] = (
            cls._solve is GenericDecoding._solve,
            cls._coefficients is GenericDecoding._coefficients,
        )
    return flags


class GenericDecoding(BatchDecoding):
    """Generic solvers, the residual check and the coefficient cache of every gradient code.

    Expects the attributes of :class:`~gctheory.codes.base.GradientCode`
    (``n, k, m, s``, ``encoding_matrix``, ``decode_cache_size``).
    """

    n: int
    k: int
    m: int
    s: int | None
    decode_cache_size: int
    decode_direct_sets: int

    if TYPE_CHECKING:  # provided by GradientCode and the families

        @property
        def encoding_matrix(self) -> np.ndarray: ...

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

    def _direct_coefficients(self, T: np.ndarray) -> np.ndarray:
        """The minimum-norm least-squares solution of ``E_T A = C`` by LAPACK ``gelsy``
        (QR with column pivoting; rank cut at numpy's ``rcond``, ``eps max(k m, |T|)``):
        about a third of ``numpy.linalg.lstsq``'s SVD at n = 1000. The decoder of a code's
        first ``decode_direct_sets`` survivor sets, before its null-space factorisation."""
        from scipy.linalg import lstsq

        E_T = self.encoding_matrix[:, T]
        cond = _EPS * max(E_T.shape)
        C = target_matrix(self.k, self.m)
        return lstsq(E_T, C, cond=cond, lapack_driver="gelsy", check_finite=False)[0]

    def _factorised(self) -> bool:
        """Whether the null-space decoder runs: its factorisation exists, or this code has
        solved ``decode_direct_sets`` sets directly and another one follows (it is made
        now)."""
        if "_nullspace_cache" in self.__dict__:
            return True
        solved = self.__dict__.get("_direct_solves", 0)
        if solved >= self.decode_direct_sets:
            return True
        self.__dict__["_direct_solves"] = solved + 1
        return False

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
        self.__dict__["_nullspace_norm"] = float(sv[0]) if sv.size else 0.0  # ||E||_2
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
        if type(self)._solve is not GenericDecoding._solve:
            return self._solve(T)[0]
        return self._generic_coefficients(T)

    def _condition(self, T: np.ndarray) -> float:
        """Condition number of the system the decoder solves (only computed when asked)."""
        if type(self)._solve is not GenericDecoding._solve:
            return self._solve(T)[1]
        return self._generic_condition(T)

    def clear_decode_cache(self) -> None:
        """Forget the cached decoding coefficients (call after modifying the code in place)."""
        self.__dict__.pop("_decode_cache", None)
        for key in (
            "_decode_cache",
            "_nullspace_cache",
            "_nullspace_extra_cache",
            "_nullspace_norm",
            "_direct_solves",
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
        if type(self)._solve is not GenericDecoding._solve and not (
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
        direct = False
        if generic_solve and generic_coef:
            X = None
            if self.s is not None:
                if self._factorised():
                    X = self._nullspace_full(T, alive)
                else:  # one of the code's first sets: what this set needs, no SVD of E
                    direct = True
            if direct:
                A = self._direct_coefficients(T)
                res = self._residual(T, A)
            elif X is not None:
                _, _, E, C, _ = self._batch_nullspace()
                A = X[T]
                res = _relative_residual(E @ X, C, self.k * self.m)
            else:
                A = self._lstsq_coefficients(T)
                res = self._residual(T, A)
        else:
            A = self._coefficients(T)
            res = self._residual(T, A)
        if self.s is not None and res > _FALLBACK_RESIDUAL and generic_solve:
            A2 = self._nullspace_coefficients(T, alive) if direct else None
            if A2 is None:
                A2 = self._lstsq_coefficients(T)
            res2 = self._residual(T, A2)
            if res2 < res:
                A, res = A2, res2
        return A, res

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
