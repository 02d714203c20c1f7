"""Batched decoding: many survivor sets of one code in one call (``decode_many``).

A mixin of :class:`gctheory.codes.base.GradientCode` (private module, one
concept: the batch path and its residual bound; the single decode lives in
``base``). It uses the code's null-space data (``_nullspace_data``), its
single ``decode`` for sets the batch does not clear, and ``_batch_eligible``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gctheory.codes._survivors import (
    _EPS,
    _FALLBACK_RESIDUAL,
    _survivor_array_mask,
    check_positive_int,
)


class BatchDecoding:
    """``decode_many`` and the stacked null-space decoder behind it."""

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
        sets, seen = _survivor_array_mask(survivor_sets, self.n, self.min_survivors if check else 1)
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
        if isinstance(sets, np.ndarray) and self._batch_eligible():
            SS, Yb, rb, res = self._nullspace_batch_factors(sets, seen)
            ok = res <= min(rtol, _FALLBACK_RESIDUAL)
            if ok.any():
                m = self.m
                if Yfull is not None:
                    ch = self._batch_apply(SS, Yb, rb, Yfull).reshape(N, m * r)
                else:
                    X = self._batch_coefficients(SS, Yb)
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
        """Stacked null-space decoding of equal-size survivor sets, as coefficients.

        Returns X (n, N, m) (column block i: set i's coefficients, exactly zero
        on its stragglers) and the N residual bounds of
        :meth:`_nullspace_batch_factors`.
        """
        SS, Y, _, res = self._nullspace_batch_factors(sets, alive)
        return self._batch_coefficients(SS, Y), res

    def _nullspace_batch_factors(
        self, sets: np.ndarray, alive: np.ndarray
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
        so it is at most ``||(E X0 - C) - (E Z) Y_i|| + ||E||_2 ||r_i||``, plus
        ``(nul + 2) eps ||E||_2 (||X0|| + ||Z|| ||Y_i||)`` for the rounding of
        forming ``X_i`` (Frobenius norms; ``||E||_2`` from the SVD of E made
        once). A bound, never below the residual up to its own rounding: a
        set it does not clear is decoded again singly (direct residual).
        """
        Z, X0, E, C, W = self._nullspace_data()
        N, t = sets.shape
        n, m = X0.shape
        nul = Z.shape[1]
        e = n - t
        extra = self._nullspace_extra()
        R0, EZ, normE = extra["R0"], extra["EZ"], extra["normE"]
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
        WS = W[SS]  # (N, e, nul + m): [Z[S_i] | X0[S_i]]
        ZS, XS = WS[:, :, :nul], WS[:, :, nul:]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            try:
                if e == nul == 1:
                    Y = XS / ZS
                elif e == nul:
                    Y = np.linalg.solve(ZS, XS)
                else:
                    Y = np.linalg.pinv(ZS) @ XS
            except np.linalg.LinAlgError:
                inf = np.full(N, np.inf)
                return SS, np.zeros((N, nul, m)), np.zeros((N, e, m)), inf
            r = XS - ZS @ Y  # (N, e, m)
            # (E X0 - C) - (E Z) Y_i for every set: one (k m x nul) @ (nul x N m) product
            D = (EZ @ Y.transpose(1, 0, 2).reshape(nul, N * m)).reshape(-1, N, m)
            np.subtract(R0[:, None, :], D, out=D)
            D2 = D.transpose(0, 2, 1).reshape(-1, N)
            main = np.sqrt(np.einsum("ij,ij->j", D2, D2.conj()).real)
            rn = np.sqrt(np.einsum("iem,iem->i", r, r.conj()).real)
            yn = np.sqrt(np.einsum("ium,ium->i", Y, Y.conj()).real)
            gamma = (nul + 2) * _EPS
            bound = main + normE * (rn + gamma * (extra["normX0"] + extra["normZ"] * yn))
            res = bound / size
        res[~np.isfinite(res)] = np.inf
        return SS, Y, r, res

    def _nullspace_extra(self) -> dict[str, Any]:
        """``E X0 - C``, ``E Z``, ``||E||_2``, ``||X0||_F``, ``||Z||_F`` for the batch bound."""
        extra = self.__dict__.get("_nullspace_extra_cache")
        if extra is None:
            Z, X0, E, C, _ = self._nullspace_data()
            extra = {
                "R0": E @ X0 - C,
                "EZ": E @ Z,
                "normE": float(np.linalg.norm(E, 2)),
                "normX0": float(np.linalg.norm(X0)),
                "normZ": float(np.linalg.norm(Z)),
            }
            self.__dict__["_nullspace_extra_cache"] = extra
        return extra

    def _batch_coefficients(self, SS: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """X (n, N, m): ``X0 - Z Y_i`` with set i's stragglers ``SS[i]`` set to exactly 0."""
        Z, X0 = self._nullspace_data()[:2]
        n, m = X0.shape
        N, e = SS.shape
        nul = Z.shape[1]
        X = np.empty((n, N, m), dtype=np.result_type(Z, X0, Y))
        np.matmul(Z, Y.transpose(1, 0, 2).reshape(nul, N * m), out=X.reshape(n, N * m))
        np.subtract(X0[:, None, :], X, out=X)
        if e:
            X.reshape(n * N, m)[(SS * N + np.arange(N)[:, None]).ravel()] = 0
        return X

    def _batch_apply(
        self, SS: np.ndarray, Y: np.ndarray, r: np.ndarray, Yfull: np.ndarray
    ) -> np.ndarray:
        """Every set's decoded chunks (N, m, r) from all transmissions ``Yfull`` (n, r).

        ``sum_{j in T_i} X_i[j] y_j = X0^T Y - Y_i^T (Z^T Y) - r_i^T Y[S_i]``
        (``X_i[S_i] = r_i`` before the straggler rows are dropped): two small
        products shared by all sets and one per set, no (n, N) array.
        """
        Z, X0 = self._nullspace_data()[:2]
        N, e = SS.shape
        nul, m = Z.shape[1], X0.shape[1]
        base = X0.T @ Yfull  # (m, r)
        ZtY = Z.T @ Yfull  # (nul, r)
        ch = (Y.transpose(0, 2, 1).reshape(N * m, nul) @ ZtY).reshape(N, m, -1)
        np.subtract(base[None], ch, out=ch)
        if e:
            ch -= np.swapaxes(r, 1, 2) @ Yfull[SS]
        return ch
