"""What a decoder returns: the decoding vector with its cost, and the cost model."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gctheory.codes._survivors import (
    _EPS,
)

__all__ = ["DecodeResult", "DecodingCost"]


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class DecodingCost:
    """Operation count (multiply-adds) of one decoding.

    ``setup``: finding the decoding coefficients (independent of d; the
    factorisation or peeling schedule); ``apply``: combining the received
    vectors into the gradient sum for gradient length ``d``; ``method`` names
    the decoder counted.

    Parameters
    ----------
    setup : int
        Multiply-adds to find the decoding coefficients.
    apply : int
        Multiply-adds to combine the received vectors.
    method : str
        The decoder counted.

    Examples
    --------
    >>> from gctheory.codes import CyclicMDSCode, DecodingCost
    >>> cost = CyclicMDSCode(5, 2, rng=0).decoding_cost([0, 2, 4], d=3)
    >>> cost
    DecodingCost(setup=90, apply=9, method='dense least squares')
    >>> cost.total
    99
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
    noise_bound : float
        Bound on the relative forward error ``max|g_hat - g| / max|g_hat|`` that the
        precision of ``received`` (its dtype's eps, or the ``noise`` given) can cause
        through the decoding coefficients: ``noise * max_u ||A[:, u]||_1 * max|received|
        / max|g_hat|`` (see ``gctheory.codes._precision``). ``decode`` warns
        (:class:`DecodingPrecisionWarning`) or refuses when it exceeds ``rtol``.
        NaN when not computed.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import CyclicMDSCode, DecodeResult
    >>> code = CyclicMDSCode(5, 2, rng=0)
    >>> g = np.arange(15.0).reshape(5, 3)  # 5 partial gradients of length 3
    >>> r = code.decode_detail([0, 2, 4], code.encode(g)[[0, 2, 4]])
    >>> r.gradient.round(6).tolist(), r.exact, r.residual < 1e-12
    ([30.0, 35.0, 40.0], True, True)
    """

    gradient: np.ndarray = field(repr=False)
    coefficients: np.ndarray = field(repr=False)
    condition_number: float
    residual: float
    survivors: tuple[int, ...] = field(repr=False)
    exact: bool
    noise_bound: float = math.nan

    def error_bound(self, scale: float, size: int) -> float:
        """Forward-error tolerance ``10 * size * kappa * eps * scale`` for tests and checks.

        Standard perturbation bound for a linear solve: the backward error of a
        stable solver is a small multiple of ``size * eps`` and is amplified by
        at most the condition number; ``scale`` is the size of the data (e.g.
        ``sum_j max|g_j|``), ``size`` the dimension of the system.
        """
        kappa = self.condition_number if math.isfinite(self.condition_number) else 1 / _EPS
        return 10.0 * size * kappa * _EPS * scale


def _show_list(T: np.ndarray, most: int = 12) -> str:
    """A survivor list for a message, truncated past ``most`` entries."""
    items = sorted(T.tolist())
    if len(items) <= most:
        return str(items)
    head = ", ".join(str(i) for i in items[:most])
    return f"[{head}, ... ({len(items)} in all)]"
