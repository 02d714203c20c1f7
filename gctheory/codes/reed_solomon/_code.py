"""The Reed-Solomon gradient code (Halbawi et al.) as a :class:`GradientCode`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory._validate import check_flag
from gctheory.codes._survivors import Survivors
from gctheory.codes.base import (
    DecodeResult,
    DecodingCost,
    GradientCode,
    check_positive_int,
    validate_survivors,
)
from gctheory.codes.reed_solomon._decoding import (
    RSDecodeResult,
    rs_decoding_vector,
    rs_inverse_table,
)
from gctheory.codes.reed_solomon._encoding import _encode_from_mask, _roots, rs_polynomials
from gctheory.codes.reed_solomon._masks import _check_nkw, _check_rs_memory, mask_matrix

__all__ = ["ReedSolomonCode"]


class ReedSolomonCode(GradientCode):
    """Reed-Solomon gradient code of Halbawi et al. 2017 (Algorithms 2-4).

    ``n`` workers, ``k`` partitions, ``w`` partitions per worker (``load``),
    no communication saving (``m = 1``), tolerance
    ``s = floor(w n / k) - 1`` (eq. (2), attained). Column ``j`` of the complex
    encoding matrix ``B`` (``n x k``; :attr:`encoding_matrix` is ``B^T``) is a
    codeword of ``RS[n, f]``, ``f = n - s``, supported on column ``j`` of
    :func:`mask_matrix`. Decoding takes the first ``f`` survivors in the order
    given (the first to respond) and combines them with the Algorithm 3 vector.

    Parameters
    ----------
    n, k, w : int
        ``1 <= w <= k``, ``n w >= k``.

    Notes
    -----
    ``decode``/``decode_detail`` take a keyword ``real`` (default True): for
    a real problem the decoded complex vector is real up to rounding; its real
    part is returned and the imaginary residue is reported
    (:class:`RSDecodeResult`). Accuracy is limited by the size of ``B``'s
    entries, which grows like ``exp(c n)``: with ``s/n = 0.2`` the relative
    error is ~1e-11 at n = 40, ~1e-8 at n = 60 and ~1e-2 at n = 100 (see
    ``docs/codes_rs_approx.md``).

    Examples
    --------
    >>> from gctheory.codes import ReedSolomonCode
    >>> import numpy as np
    >>> code = ReedSolomonCode(n=6, k=6, w=3)
    >>> code, code.s
    (ReedSolomonCode(n=6, k=6, load=3, m=1, s=2), 2)
    >>> g = np.arange(12.0).reshape(6, 2)
    >>> survivors = [0, 1, 2, 5]
    >>> code.decode(survivors, code.encode(g)[survivors]).round(6).tolist()
    [30.0, 36.0]
    >>> g.sum(axis=0).tolist()
    [30.0, 36.0]
    """

    s: int  # an exact code: s = floor(w n / k) - 1

    name = "Reed-Solomon (Halbawi et al. 2017)"

    def __init__(self, n: int, k: int, w: int) -> None:
        n, k, w = _check_nkw(n, k, w)
        _check_rs_memory(n, k)
        self.n, self.k, self.w = n, k, w
        self.m = 1
        self.s = n * w // k - 1
        self.f = n - self.s
        self.support = mask_matrix(n, k, w)
        self.load = int(self.support.sum(axis=1).max())
        self._B = _encode_from_mask(self.support)
        self._table = rs_inverse_table(n)

    @property
    def encoding_matrix(self) -> np.ndarray:
        """``B^T`` (``k x n``), ``B`` from Algorithm 2 of Halbawi et al."""
        return self._B.T

    @property
    def B(self) -> np.ndarray:
        """The ``n x k`` encoding matrix ``B`` of Algorithm 2 (``c = B g``, eq. (3))."""
        return self._B

    @property
    def polynomials(self) -> np.ndarray:
        """Coefficients ``T`` (``f x k``) of ``t_j(x)`` with ``B = G T`` (eq. (11))."""
        return rs_polynomials(self.support)

    def _used(self, T: np.ndarray) -> np.ndarray:
        return T[: self.f]

    def _vandermonde(self, F: np.ndarray) -> np.ndarray:
        return _roots(self.n)[np.outer(F, np.arange(self.f)) % self.n]

    def decoding_matrix(self, survivors: Sequence[int]) -> np.ndarray:
        """``G_F`` (``f x f``), the Vandermonde matrix Algorithm 3 inverts (eq. (12)).

        Built from the first ``f`` of ``survivors``; at least ``f`` are needed.
        """
        T = validate_survivors(survivors, self.n, self.f)
        return self._vandermonde(self._used(T))

    def decoding_vector(self, survivors: Sequence[int]) -> np.ndarray:
        """Algorithm 3's ``a`` for the first ``f`` of ``survivors`` (same order)."""
        T = validate_survivors(survivors, self.n, self.f)
        return rs_decoding_vector(self._used(T), self.n, table=self._table)

    def skeel_condition(self, survivors: Sequence[int]) -> float:
        """``max_j sum_l |a_l| |B[i_l, j]|`` for the first ``f`` survivors (see RSDecodeResult)."""
        T = validate_survivors(survivors, self.n, self.f)
        F = self._used(T)
        a = rs_decoding_vector(F, self.n, table=self._table)
        return float(np.max(np.abs(a) @ np.abs(self._B[F])))

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        F = self._used(T)
        A = np.zeros((T.size, 1), dtype=complex)
        a = rs_decoding_vector(F, self.n, table=self._table)
        A[: F.size, 0] = a
        return A, float(np.max(np.abs(a) @ np.abs(self._B[F])))

    def decode_detail(
        self,
        survivors: Survivors,
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        real: bool = True,
        condition: bool = True,
        noise: float | None = None,
        on_noise: str = "warn",
    ) -> RSDecodeResult:
        """Decode with Algorithm 3; see :meth:`GradientCode.decode_detail`.

        ``real=True`` (default) returns the real part and reports the
        imaginary residue; ``real=False`` returns the complex vector.
        """
        real = check_flag(real, "real")
        res = super().decode_detail(
            survivors,
            received,
            d,
            rtol=rtol,
            check=check,
            condition=condition,
            noise=noise,
            on_noise=on_noise,
        )
        g = res.gradient
        out = _fields(res)
        if not real:
            return RSDecodeResult(**out, imag_residue=0.0)
        out["gradient"] = g.real.copy()
        resid = float(np.max(np.abs(g.imag))) if g.size else 0.0
        return RSDecodeResult(**out, imag_residue=resid)

    def decode(
        self,
        survivors: Survivors,
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        real: bool = True,
        noise: float | None = None,
        on_noise: str = "warn",
    ) -> np.ndarray:
        """The gradient sum (real part for ``real=True``); see :meth:`decode_detail`.

        Takes the keywords of :meth:`GradientCode.decode` (``rtol``, ``check``,
        ``noise``, ``on_noise``), so ``decode_many`` works as for every code.
        """
        return self.decode_detail(
            survivors,
            received,
            d,
            rtol=rtol,
            check=check,
            real=real,
            condition=False,
            noise=noise,
            on_noise=on_noise,
        ).gradient

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Algorithm 3: ``f (f - 1)`` look-up multiplications, then ``f d`` to combine.

        Section 5 of Halbawi et al. counts the decoding time as
        ``c_m (f - 1) f`` (eq. (20)); combining the ``f`` received vectors
        costs ``f d`` more. Only the first ``f`` survivors are used.
        """
        d = check_positive_int("d", d)
        f = self.f
        return DecodingCost(setup=f * (f - 1), apply=f * d, method="Alg. 3 (Halbawi et al.)")


def _fields(res: DecodeResult) -> dict[str, Any]:
    return {
        "gradient": res.gradient,
        "coefficients": res.coefficients,
        "condition_number": res.condition_number,
        "residual": res.residual,
        "survivors": res.survivors,
        "exact": res.exact,
        "noise_bound": res.noise_bound,
    }
