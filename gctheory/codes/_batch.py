"""Batched decoding: many survivor sets of one code in one call (``decode_many``).

A mixin of :class:`gctheory.codes.base.GradientCode` (private module, one
concept: the batch path and its residual bound; the single decode lives in
``base``). It uses the code's null-space data (``_nullspace_data``), its
single ``decode`` for sets the batch does not clear, and ``_batch_eligible``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from gctheory.codes._precision import (
    act,
    check_flag,
    check_noise_options,
    input_precision,
    received_scale,
)
from gctheory.codes._stacked_solve import frobenius_norms, gather_solve, resolve_backend
from gctheory.codes._survivors import (
    _EPS,
    _FALLBACK_RESIDUAL,
    Survivors,
    _survivor_array_mask,
    check_positive_int,
)

if TYPE_CHECKING:
    from gctheory.codes.base import DecodeResult


class BatchDecoding:
    """``decode_many`` and the stacked null-space decoder behind it.

    Expects the attributes and hooks of :class:`~gctheory.codes.base.GradientCode`
    declared below (``_batch_eligible`` and ``_nullspace_data`` come from
    :class:`~gctheory.codes._decoding.GenericDecoding`).
    """

    n: int
    k: int
    m: int

    if TYPE_CHECKING:  # provided by GenericDecoding, GradientCode and the families

        @property
        def encoding_matrix(self) -> np.ndarray: ...

        @property
        def min_survivors(self) -> int: ...

        def _batch_eligible(self) -> bool: ...

        def _nullspace_data(self) -> tuple[np.ndarray, ...] | None: ...

        def decode(
            self,
            survivors: Survivors,
            received: np.ndarray,
            d: int | None = None,
            *,
            rtol: float = 1e-6,
            check: bool = True,
            noise: float | None = None,
            on_noise: str = "warn",
        ) -> np.ndarray: ...

        def decode_detail(
            self,
            survivors: Survivors,
            received: np.ndarray,
            d: int | None = None,
            *,
            rtol: float = 1e-6,
            check: bool = True,
            condition: bool = True,
            noise: float | None = None,
            on_noise: str = "warn",
        ) -> DecodeResult: ...

    def _batch_nullspace(self) -> tuple[np.ndarray, ...]:
        """``_nullspace_data`` where it must exist: the batch runs only for eligible codes."""
        ns = self._nullspace_data()
        assert ns is not None, "_batch_eligible (or a null-space solution) implies C in range(E)"
        return ns

    def decode_many(
        self,
        survivor_sets: Any,
        received: Any,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        backend: str = "auto",
        noise: float | None = None,
        on_noise: str = "warn",
        return_bounds: bool = False,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Decode many survivor sets of this code in one call; returns (len(sets), d).

        Parameters
        ----------
        survivor_sets : (N, t) int array, or a sequence of N index sequences
            Each row/sequence one survivor set (rules of :meth:`decode`).
        received : array (n, r), (N, t, r), or a sequence of N arrays (t_i, r)
            Either every worker's transmissions (row i from worker i; each set
            takes its rows), or each set's own received rows in its order. A
            set never reads its stragglers' rows: they may hold anything (NaN
            for "nothing arrived").
        d, rtol, check
            As in :meth:`decode`; with ``check`` an undecodable set of an exact
            code raises ``ValueError`` naming it.
        backend : {"auto", "numba", "numpy"}
            Solver of the stacked straggler systems: ``"numba"`` (the ``fast``
            extra) gathers and solves them in one compiled pass, about 2x
            numpy's stacked LAPACK calls at s = 25 (``benchmarks/bench_decoding.py``;
            above 40 x 40, one compiled loop of LAPACK solves, about 1.2x at
            s = 100, ``benchmarks/bench_big.py``); ``"auto"`` takes it when
            installed. Same numbers up to rounding.
        noise, on_noise
            As in :meth:`decode`: each set's forward-error bound (the precision of
            its received rows amplified by its decoding coefficients, see
            :class:`~gctheory.codes.base.DecodeResult`) is compared with ``rtol``;
            one :class:`DecodingPrecisionWarning` (``"raise"``: ``ValueError``)
            says how many sets exceed it and the largest bound. A survivor's
            non-finite row is refused.
        return_bounds : bool
            Also return the (N,) bounds: ``(gradients, bounds)``.

        Notes
        -----
        Exact codes with the generic decoder solve all sets of one size at once
        (stacked |S| x dim null(E) solves, see :meth:`_generic_coefficients`);
        other families loop over their own decoder (with the cache). Same
        numbers as calling :meth:`decode` per set, up to rounding.
        """
        resolve_backend(backend, 0)  # the backend is checked before any work (any size)
        noise = check_noise_options(noise, on_noise)
        check = check_flag(check, "check")
        if not isinstance(return_bounds, (bool, np.bool_)):
            raise ValueError(f"return_bounds must be True or False, got {return_bounds!r}")
        sets, seen = _survivor_array_mask(survivor_sets, self.n, self.min_survivors if check else 1)
        N = len(sets)
        Yfull, per_set, r = self._received_rows(received, sets, N)
        if d is not None:
            d = check_positive_int("d", d)
            if -(-d // self.m) != r:
                raise ValueError(
                    f"d={d} needs r = ceil(d/m) = {-(-d // self.m)} received entries, got {r}"
                )
        width = self.m * r if d is None else d
        sample = Yfull if Yfull is not None else (per_set[0] if per_set else np.zeros(1))
        out = np.empty((N, width), dtype=np.result_type(self.encoding_matrix, sample, float))
        bounds = np.zeros(N)
        done = np.zeros(N, dtype=bool)
        detail = on_noise != "ignore" or return_bounds
        if isinstance(sets, np.ndarray) and seen is not None and self._batch_eligible():
            done = self._decode_stacked(
                sets, seen, (Yfull, per_set, r), width, rtol, backend, noise, detail, out, bounds
            )
        for i in np.flatnonzero(~done):
            T = sets[i]
            Y = Yfull[T] if Yfull is not None else per_set[i]
            if detail:
                result = self.decode_detail(
                    T,
                    Y,
                    d,
                    rtol=rtol,
                    check=check,
                    condition=False,
                    noise=noise,
                    on_noise="ignore",
                )
                out[i], bounds[i] = result.gradient, result.noise_bound
            else:
                out[i] = self.decode(T, Y, d, rtol=rtol, check=check, on_noise="ignore")
        if on_noise != "ignore":
            self._report_noise(bounds, rtol, on_noise, N)
        return (out, bounds) if return_bounds else out

    def _received_rows(
        self, received: Any, sets: np.ndarray | list[np.ndarray], N: int
    ) -> tuple[np.ndarray | None, list[np.ndarray], int]:
        """Check ``received``; return (all workers' rows or None, per-set rows, r)."""
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
        return Yfull, per_set, r

    def _decode_stacked(
        self,
        sets: np.ndarray,
        seen: np.ndarray,
        rows: tuple[np.ndarray | None, list[np.ndarray], int],
        width: int,
        rtol: float,
        backend: str,
        noise: float | None,
        detail: bool,
        out: np.ndarray,
        bounds: np.ndarray,
    ) -> np.ndarray:
        """Decode the sets the stacked null-space solve clears into ``out``; return them."""
        Yfull, per_set, r = rows
        N = len(sets)
        SS, Yb, rb, res = self._nullspace_batch_factors(sets, seen, backend)
        thr = min(rtol, _FALLBACK_RESIDUAL)
        X = self._batch_coefficients(SS, Yb)  # (n, N, m), exactly 0 on the stragglers
        self._direct_residuals(SS, Yb, res, ~(res <= thr), X)
        ok = res <= thr
        if ok.any():
            m = self.m
            Yc = Yfull
            if Yfull is not None:
                # only survivors' rows may reach a set's sum: a straggler's row can hold
                # anything (NaN for "nothing arrived", garbage); 0 * finite is exactly 0
                finite = np.isfinite(Yfull).all(axis=1)
                if not finite.all():
                    Yc = np.where(finite[:, None], Yfull, 0)
                    ok &= ~(seen & ~finite).any(axis=1)  # a non-finite survivor: decode
                ch = (X.reshape(self.n, N * m).T @ Yc).reshape(N, m * r)
            else:
                XT = X.transpose(1, 0, 2)
                A = np.take_along_axis(XT, sets[:, :, None], axis=1)
                ch = (np.swapaxes(A, 1, 2) @ np.stack(per_set)).reshape(N, -1)
            out[ok] = ch[ok, :width]
            if detail:
                b = self._stacked_noise_bounds(X, ch, seen, rows, Yc, noise)
                bounds[ok] = b[ok]
        return ok

    def _stacked_noise_bounds(
        self,
        X: np.ndarray,
        ch: np.ndarray,
        seen: np.ndarray,
        rows: tuple[np.ndarray | None, list[np.ndarray], int],
        Yc: np.ndarray | None,
        noise: float | None,
    ) -> np.ndarray:
        """Each stacked set's forward-error bound (``noise_bound``), vectorised."""
        Yfull, per_set, r = rows
        N = ch.shape[0]
        amp = np.abs(X).sum(axis=0).max(axis=1)  # (N,): max_u ||A_i[:, u]||_1
        if Yfull is not None:
            assert Yc is not None  # Yfull with its non-finite rows zeroed
            rowmax = np.abs(Yc).max(axis=1) if r else np.zeros(self.n)
            ymax = np.where(seen, rowmax, 0).max(axis=1)
            eps = input_precision(Yfull.dtype, noise)
        else:
            ymax = np.array([received_scale(y) for y in per_set])
            eps = input_precision(np.result_type(*per_set), noise)
        gmax = np.abs(ch).max(axis=1) if ch.shape[1] else np.zeros(N)
        # noise_bound per set, vectorised: 0 when nothing is amplified, inf
        # when the output is exactly 0 but the inputs are not
        top = eps * amp * ymax
        with np.errstate(divide="ignore", invalid="ignore"):
            b = np.where(top == 0, 0.0, top / gmax)
        return b

    def _report_noise(self, bounds: np.ndarray, rtol: float, on_noise: str, N: int) -> None:
        """One warning (or error) for the sets whose bound exceeds ``rtol``, naming the worst."""
        over = np.flatnonzero(bounds > rtol)
        if over.size:
            worst = int(over[np.argmax(bounds[over])])
            act(
                float(bounds[worst]),
                rtol,
                on_noise,
                f"decode_many: {over.size} of {N} survivor sets (the worst, set {worst}, shown)",
                self,
                int(over.size),
                stacklevel=4,  # act, _report_noise, decode_many: the caller's line
            )

    def _nullspace_batch(
        self, sets: np.ndarray, alive: np.ndarray, backend: str = "auto"
    ) -> tuple[np.ndarray, np.ndarray]:
        """Stacked null-space decoding of equal-size survivor sets, as coefficients.

        Returns X (n, N, m) (column block i: set i's coefficients, exactly zero
        on its stragglers) and the N residual bounds of
        :meth:`_nullspace_batch_factors`.
        """
        SS, Y, _, res = self._nullspace_batch_factors(sets, alive, backend)
        return self._batch_coefficients(SS, Y), res

    def _nullspace_batch_factors(
        self, sets: np.ndarray, alive: np.ndarray, backend: str = "auto"
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The straggler systems of N equal-size survivor sets, solved together.

        Set i's coefficients are ``X_i = X0 - Z Y_i`` restricted to its
        survivors, where ``Y_i`` solves ``Z[S_i] Y_i = X0[S_i]`` (one batched
        solve for all sets). Returns the stragglers ``SS`` (N, e), ``Y``
        (N, nul, m), the solves' residuals ``r_i = X0[S_i] - Z[S_i] Y_i``
        (N, e, m) and, per set, an upper bound on the relative residual of the
        decoding equations ``||E_T X_i[T] - C||_F / ||C||_F`` (inf where a
        system is singular), without forming any ``E X_i``:
        ``E_T X_i[T] - C = (E X0 - C) - (E Z) Y_i - E[:, S_i] r_i`` exactly,
        so it is at most ``||E X0 - C|| + ||E Z||_2 ||Y_i|| + ||E||_2 ||r_i||``, plus
        ``(nul + 2) eps ||E||_2 (||X0|| + ||Z|| ||Y_i||)`` for the rounding of
        forming ``X_i`` (Frobenius norms; the 2-norms of E and E Z from SVDs made
        once). A bound, never below the residual up to its own rounding: a
        set it does not clear gets its direct residual (:meth:`_direct_residuals`).
        """
        Z, X0, E, C, W = self._batch_nullspace()
        N, t = sets.shape
        n, m = X0.shape
        nul = Z.shape[1]
        e = n - t
        extra = self._nullspace_extra()
        R0, normE = extra["R0"], extra["normE"]
        size = math.sqrt(self.k * self.m)
        if e and not nul:
            inf = np.full(N, np.inf)
            return np.zeros((N, e), np.int64), np.zeros((N, 0, m)), np.zeros((N, e, m)), inf
        if not e:
            r0 = float(np.sqrt(np.vdot(R0, R0).real))
            res = np.full(N, r0 / size)
            return np.zeros((N, 0), np.int64), np.zeros((N, nul, m)), np.zeros((N, 0, m)), res
        flat = np.flatnonzero(~alive)  # i n + j for straggler j of set i, row by row
        SS = (flat % n).reshape(N, e)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if e == nul > 1:  # square systems Z[S_i] Y_i = X0[S_i]: one stacked solve
                Y, r, norms, solved = gather_solve(W, SS, e, backend=backend)
            else:
                WS = W[SS]  # (N, e, nul + m): [Z[S_i] | X0[S_i]]
                ZS, XS = WS[:, :, :nul], WS[:, :, nul:]
                try:
                    Y = XS / ZS if e == nul else np.linalg.pinv(ZS) @ XS
                    solved = True
                except np.linalg.LinAlgError:
                    solved = False
                if solved:
                    r = XS - ZS @ Y  # (N, e, m)
                    norms = frobenius_norms(r, Y)
            if not solved:
                inf = np.full(N, np.inf)
                return SS, np.zeros((N, nul, m)), np.zeros((N, e, m)), inf
            rn, yn = norms[:, 0], norms[:, 1]
            gamma = (nul + 2) * _EPS
            # ||(E X0 - C) - (E Z) Y_i|| <= ||E X0 - C|| + ||E Z||_2 ||Y_i||: both are of
            # rounding size (Z spans null(E)); forming the difference per set cost a
            # (k m x nul) @ (nul x N m) product and tightened the bound by about 3% only
            main = extra["normR0"] + extra["normEZ"] * yn
            bound = main + normE * (rn + gamma * (extra["normX0"] + extra["normZ"] * yn))
            res = bound / size
        res[~np.isfinite(res)] = np.inf
        return SS, Y, r, res

    def _direct_residuals(
        self,
        SS: np.ndarray,
        Y: np.ndarray,
        res: np.ndarray,
        pending: np.ndarray,
        X: np.ndarray | None = None,
    ) -> None:
        """Replace the bound in ``res`` by the residual itself for the ``pending`` sets.

        The bound of :meth:`_nullspace_batch_factors` is loose for sets whose
        straggler system is ill-conditioned (large ``||Y_i||``); their relative
        residual ``||E X_i - C||_F / ||C||_F`` is computed as :meth:`decode`
        does (one product for all of them), so only the sets that decode
        itself would send to least squares leave the batch. ``X`` (n, N, m): the
        coefficients of all N sets if already formed (else those needed are).
        """
        idx = np.flatnonzero(pending)
        if not idx.size:
            return
        idx = idx[np.all(np.isfinite(Y[idx]), axis=(1, 2))]
        if not idx.size:
            return
        _, _, E, C, _ = self._batch_nullspace()
        X = self._batch_coefficients(SS[idx], Y[idx]) if X is None else X[:, idx]
        n, L, m = X.shape
        R = (E @ X.reshape(n, L * m)).reshape(-1, L, m)
        R -= C[:, None, :]
        sq = np.einsum("ilm,ilm->l", R, R.conj()).real
        res[idx] = np.sqrt(sq / (self.k * self.m))

    def _nullspace_extra(self) -> dict[str, Any]:
        """``E X0 - C`` and the norms of the batch bound: ``||E X0 - C||_F``, ``||E Z||_2``,
        ``||E||_2``, ``||X0||_F``, ``||Z||_F``."""
        extra = self.__dict__.get("_nullspace_extra_cache")
        if extra is None:
            Z, X0, E, C, _ = self._batch_nullspace()
            R0 = E @ X0 - C
            normE = self.__dict__.get("_nullspace_norm")  # sigma_1 of the SVD made for Z
            extra = {
                "R0": R0,
                "normR0": float(np.linalg.norm(R0)),
                "normEZ": float(np.linalg.norm(E @ Z, 2)) if Z.size else 0.0,
                # a second SVD of E (a third of decode_many's first call at n = 1000) only
                # where the null-space data came from elsewhere
                "normE": float(np.linalg.norm(E, 2)) if normE is None else normE,
                "normX0": float(np.linalg.norm(X0)),
                "normZ": float(np.linalg.norm(Z)),
            }
            self.__dict__["_nullspace_extra_cache"] = extra
        return extra

    def _batch_coefficients(self, SS: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """X (n, N, m): ``X0 - Z Y_i`` with set i's stragglers ``SS[i]`` set to exactly 0."""
        Z, X0 = self._batch_nullspace()[:2]
        n, m = X0.shape
        N, e = SS.shape
        nul = Z.shape[1]
        X = np.empty((n, N, m), dtype=np.result_type(Z, X0, Y))
        np.matmul(Z, Y.transpose(1, 0, 2).reshape(nul, N * m), out=X.reshape(n, N * m))
        np.subtract(X0[:, None, :], X, out=X)
        if e:
            X.reshape(n * N, m)[(SS * N + np.arange(N)[:, None]).ravel()] = 0
        return X
