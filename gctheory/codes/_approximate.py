"""What the approximate codes share: the error of eq. (5), their result type, their base class.

Private to :mod:`gctheory.codes`; ``recovery_error`` and ``ApproxDecodeResult``
are public through :mod:`gctheory.codes.approximate`, which gives the notation
(``A``, ``A_S``, ``err``) and the references.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gctheory._validate import check_array
from gctheory.codes._survivors import Survivors
from gctheory.codes.base import DecodeResult, GradientCode, validate_survivors

__all__ = ["ApproxDecodeResult", "recovery_error"]


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

    Examples
    --------
    >>> from gctheory.codes import recovery_error
    >>> import numpy as np
    >>> round(recovery_error(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])), 6)
    0.333333
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

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import ApproxDecodeResult, DFractionalRepetitionCode
    >>> code = DFractionalRepetitionCode(6, 2)
    >>> r = code.decode_detail([0, 1, 2], code.encode(np.ones((6, 1)))[[0, 1, 2]])
    >>> r.err, r.unrecovered, r.gradient.tolist()
    (0.0, (), [6.0])
    """

    err: float = 0.0
    unrecovered: tuple[int, ...] = ()


class _ApproximateCode(GradientCode):
    """Shared decode/report logic of the approximate codes (``s = None``, ``m = 1``)."""

    s = None
    m = 1
    #: n x k: row i is worker i's weights on the k partitions (0/1 for most codes); set by each code
    A: np.ndarray

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

    def decoder_error(self, survivors: Survivors) -> float:
        """The error ``||A_S^T u - 1||^2`` this code's decoder makes on ``survivors``.

        Here (least-squares decoding) it is ``err(A_S)`` of eq. (5); the
        structured decoders override it with their own count.
        """
        T = validate_survivors(survivors, self.n, 1)
        return recovery_error(self.A[T].astype(float))  # the least-squares decoder's error

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
    ) -> ApproxDecodeResult:
        """Best estimate of the gradient sum and the error made (never raises for decodability).

        See :meth:`GradientCode.decode_detail`; ``exact`` is True when the
        estimate is the full sum (relative residual <= ``rtol``).
        """
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
        T = np.asarray(res.survivors, dtype=np.int64)
        e = self.A[T].T.astype(float) @ res.coefficients[:, 0].real - 1.0
        return ApproxDecodeResult(
            gradient=res.gradient,
            coefficients=res.coefficients,
            condition_number=res.condition_number,
            residual=res.residual,
            survivors=res.survivors,
            exact=res.exact,
            noise_bound=res.noise_bound,
            err=float(e @ e),
            unrecovered=tuple(int(j) for j in np.flatnonzero(np.abs(e) > 1e-8)),
        )
