"""The batch raptor code's parameters (Theorem 6 of Wang et al. [1]): batch size ``b``
(natural logarithm: not base-free), the degree distribution of eq. (17) in exact
fractions, the average and largest load, and the conditions (53) and (54) its
guarantee needs.

.. [1] S. Wang, J. Liu, N. Shroff, "Fundamental limits of approximate gradient
   coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np

from gctheory.load_bounds._common import (
    _DPS,
    _ceil,
    _check_eps,
    _check_ns,
    _int,
)

__all__ = ["BRCParameters", "brc_parameters", "brc_condition_54_margin"]


@dataclass(frozen=True)
class BRCParameters:
    """Parameters of Theorem 6 of Wang et al. 2019 (batch raptor code).

    Attributes
    ----------
    b : int
        Batch size ``ceil(1/ln(1/delta)) + 1`` (the theorem's code name writes
        ``ceil(1/ln(1/delta))`` without the ``+1``; the definition and the
        proof's eq. (53) use ``b`` with it).
    D : int
        ``floor(1/eps)``.
    u : Fraction
        ``2 eps (1 - 2 eps) / (1 - 4 eps)^2``.
    degree_distribution : tuple of Fraction
        ``(p_1, ..., p_{D+1})`` of eq. (17); sums to 1 exactly.
    average_degree : Fraction
        ``sum_k k p_k = (u + H_{D-1} + (D+1)/D) / (u + 1)`` (batches per worker).
    average_load : Fraction
        ``b * average_degree`` (data partitions per worker, on average).
    max_load : int
        ``b * (D + 1)``.
    condition_53 : bool
        Whether ``n (1 - 2 eps) / (b (1 - 4 eps)) < n - s`` (eq. (53)) holds.

    Examples
    --------
    >>> from gctheory.load_bounds import BRCParameters, brc_parameters
    >>> p = brc_parameters(1000, 100, 0.1)
    >>> p.b, p.D, p.u, p.max_load, p.condition_53
    (2, 10, Fraction(4, 9), 22, True)
    """

    b: int
    D: int
    u: Fraction
    degree_distribution: tuple[Fraction, ...] = field(repr=False)
    average_degree: Fraction
    average_load: Fraction
    max_load: int
    condition_53: bool

    def __repr__(self) -> str:
        return (
            f"BRCParameters(b={self.b}, D={self.D}, u={float(self.u):.6g}, "
            f"average_degree={float(self.average_degree):.6g}, "
            f"average_load={float(self.average_load):.6g}, max_load={self.max_load}, "
            f"condition_53={self.condition_53})"
        )


_MAX_D = 10**4  # exact Fractions with denominators lcm(1..D): ~0.1 s at D = 1e4


def brc_parameters(n: int, s: int, eps: float | Fraction) -> BRCParameters:
    """Batch size, degree distribution and average load of Theorem 6 of Wang et al. 2019.

    Regime: ``0 < eps < 1/4`` (so ``u`` is defined and positive) and
    ``1 <= s < n``; the guarantee ``P(err > c) < e^{-c0 n}`` is asymptotic and
    needs eq. (53) (checked, ``condition_53``) and eq. (54)
    (:func:`brc_condition_54_margin`). Natural logarithm in ``b``.

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    eps : float or fractions.Fraction
        Target error, in (0, 1/4).

    Returns
    -------
    BRCParameters
        Batch size, degree distribution and loads.

    Examples
    --------
    >>> from gctheory.load_bounds import brc_parameters
    >>> p = brc_parameters(1000, 100, 0.1)
    >>> round(float(p.average_load), 4)
    6.0555
    """
    n, s = _check_ns(n, s)
    e = _check_eps(eps)
    if not 0 < e < Fraction(1, 4):
        raise ValueError(f"eps must lie in (0, 1/4) for Theorem 6 (u > 0), got eps={eps}")
    if s == 0:
        raise ValueError("s must be at least 1 for Theorem 6 (b = ceil(1/ln(n/s)) + 1)")
    if 1 / e > _MAX_D + 1:
        raise ValueError(
            f"eps must be >= 1/{_MAX_D + 1} here, got {float(e):.3g}: the degree distribution "
            f"of eq. (17) has D + 1 = floor(1/eps) + 1 exact terms"
        )
    with mpmath.workdps(_DPS):
        b = _ceil(1 / mpmath.log(mpmath.mpf(n) / s)) + 1
    D = math.floor(1 / e)
    u = 2 * e * (1 - 2 * e) / (1 - 4 * e) ** 2
    p = [u / (u + 1)]
    p += [1 / (k * (k - 1) * (u + 1)) for k in range(2, D + 1)]
    p.append(1 / (D * (u + 1)))
    avg = sum((k * pk for k, pk in enumerate(p, start=1)), Fraction(0))
    cond = n * (1 - 2 * e) / (b * (1 - 4 * e)) < n - s
    return BRCParameters(b, D, u, tuple(p), avg, b * avg, b * (D + 1), bool(cond))


def brc_condition_54_margin(eps: float, points: int = 2001) -> float:
    """Smallest ``(1 - x) - exp(-(1-2eps)/(1-4eps) * Omega'(x))`` on ``[0, 1 - eps]``.

    Eq. (54) of Wang et al. 2019 requires it to be positive (the peeling
    decoder then recovers a ``1 - eps`` fraction of batches). ``Omega'`` is the
    derivative of the generating function of eq. (17), evaluated as a finite
    sum; the minimum is over ``points`` equally spaced ``x`` (x = 0 excluded,
    where both sides equal 1 only if u = 0). Float arithmetic.

    Parameters
    ----------
    eps : float
        Target error, in (0, 1/4).
    points : int
        Grid points.

    Returns
    -------
    float
        The margin; eq. (54) holds iff it is positive.

    Examples
    --------
    >>> from gctheory.load_bounds import brc_condition_54_margin
    >>> round(brc_condition_54_margin(0.1), 4)
    0.032
    """
    e = _check_eps(eps)
    if not 0 < e < Fraction(1, 4):
        raise ValueError(f"eps must lie in (0, 1/4) for Theorem 6, got eps={eps}")
    points = _int("points", points)
    if not 2 <= points <= 10**7:
        raise ValueError(f"points must lie in [2, 10**7], got {points}")
    params = brc_parameters(10, 1, e)  # b is irrelevant here; p depends on eps only
    p = np.array([float(x) for x in params.degree_distribution])
    x = np.linspace(0.0, 1.0 - float(e), points)[1:]
    k = np.arange(1, len(p) + 1)
    omega_prime = (p * k * x[:, None] ** (k - 1)).sum(axis=1)
    beta = float((1 - 2 * e) / (1 - 4 * e))
    return float(np.min((1 - x) - np.exp(-beta * omega_prime)))
