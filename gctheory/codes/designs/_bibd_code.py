"""The BIBD gradient code (Kadhe et al.) and its decoding error."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from gctheory._validate import check_choice, check_int
from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import _ApproximateCode
from gctheory.codes.base import validate_survivors
from gctheory.codes.designs._constructions import BlockDesign

__all__ = ["bibd_error", "BIBDGradientCode"]


# --------------------------------------------------------------- BIBD code
def bibd_error(v: int, b: int, r: int, lam: int, stragglers: int) -> Fraction:
    """Optimal decoding error of :class:`BIBDGradientCode`: ``b - r^2 w / (r - lam + lam w)``.

    ``w = v - stragglers`` survivors; exact rational; ``b`` when every
    worker straggles. Derived from ``A_S A_S^T = (r - lam) I + lam J`` and
    ``A_S 1 = r 1`` (see the module docstring). Integers with ``v >= 2``,
    ``b >= 1`` and ``0 <= lam < r`` (an incomplete design) that satisfy the BIBD
    identities ``b k = v r`` and ``lam (v - 1) = r (k - 1)`` for a block size
    ``2 <= k < v``; other parameters are refused.

    Parameters
    ----------
    v, b, r, lam : int
        Design parameters.
    stragglers : int
        Workers that straggle, ``0 <= stragglers <= v``.

    Returns
    -------
    fractions.Fraction
        The optimal decoding error ``||A_S^T u - 1||^2``.

    Examples
    --------
    >>> from gctheory.codes import bibd_error
    >>> bibd_error(7, 7, 3, 1, 2)
    Fraction(4, 7)
    """
    v = check_int(v, "v", low=2)
    b = check_int(b, "b", low=1)
    r = check_int(r, "r", low=1)
    lam = check_int(lam, "lam", low=0)
    if lam >= r:
        raise ValueError(f"lam must be < r (an incomplete design), got lam={lam}, r={r}")
    # the closed form holds for a (v, b, r, k, lam) design only; other numbers give
    # nonsense (bibd_error(7, 7, 3, 0, 2) was -8)
    if (v * r) % b:
        raise ValueError(
            f"v, b, r, lam = {v}, {b}, {r}, {lam} are no BIBD: the block size k = v r / b "
            f"must be an integer (b k = v r)"
        )
    k = v * r // b
    if lam * (v - 1) != r * (k - 1) or not 2 <= k < v:
        raise ValueError(
            f"v, b, r, lam = {v}, {b}, {r}, {lam} are no BIBD: lam (v - 1) = {lam * (v - 1)} "
            f"must equal r (k - 1) = {r * (k - 1)} with the block size k = v r / b = {k} in "
            f"[2, v)"
        )
    w = v - check_int(stragglers, "stragglers", low=0, high=v)
    if w == 0:
        return Fraction(b)
    return b - Fraction(r * r * w, r - lam + lam * w)


class BIBDGradientCode(_ApproximateCode):
    """BIBD gradient code (Kadhe, Koyluoglu, Ramchandran, ISIT 2019) with optimal decoding.

    n = v workers (points), k = b partitions (blocks); worker i sends the sum
    of the r partitions through point i. Decoding uses the closed-form
    optimal coefficients ``u = r / (r - lambda + lambda w)`` on the w
    survivors (``decoder="closed-form"``) or least squares (``"lstsq"``).

    Parameters
    ----------
    design : BlockDesign
        Points are workers, blocks are partitions.
    decoder : {"closed-form", "lstsq"}
        The optimal coefficients in closed form, or least squares.

    Examples
    --------
    >>> from gctheory.codes import BIBDGradientCode, load, projective_plane
    >>> code = BIBDGradientCode(projective_plane(2))
    >>> code.n, code.k, code.load
    (7, 7, 3)
    >>> code.error(2), float(code.decoder_error([0, 1, 2, 3, 4]))
    (Fraction(4, 7), 0.5714285714285714)
    """

    name = "BIBD code (Kadhe et al. ISIT 2019)"

    def __init__(self, design: BlockDesign, *, decoder: str = "closed-form") -> None:
        if not isinstance(design, BlockDesign):
            raise ValueError(f"design must be a BlockDesign (see bibd()), got {type(design)}")
        check_choice(decoder, "decoder", ("closed-form", "lstsq"))
        self.design = design
        self.A = design.incidence.astype(np.int8)
        self.n, self.k = self.A.shape
        self.support = self.A.astype(bool)
        self.load = design.r
        self.decoder = decoder

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        if self.decoder == "lstsq":
            return super()._solve(T)
        D = self.design
        c = D.r / (D.r - D.lam + D.lam * T.size)
        kappa = 1 + D.lam * T.size / (D.r - D.lam)  # eigenvalues of the Gram matrix
        return np.full((T.size, 1), c), math.sqrt(kappa)

    def error(self, stragglers: int) -> Fraction:
        """:func:`bibd_error` for this design."""
        D = self.design
        return bibd_error(D.v, D.b, D.r, D.lam, stragglers)

    def decoder_error(self, survivors: Survivors) -> float:
        T = validate_survivors(survivors, self.n, 1)
        if self.decoder == "lstsq":
            return super().decoder_error(T)
        return float(self.error(self.n - T.size))
