"""Ye and Abbe's lower bound on communication for a straggler tolerance."""

from __future__ import annotations

from fractions import Fraction

from gctheory.codes._survivors import (
    check_positive_int,
)

__all__ = ["ye_abbe_lower_bound"]


def ye_abbe_lower_bound(n: int, k: int, s: int, m: int) -> Fraction:
    """Smallest fractional load ``l / k`` admitting (m, s): ``(s + m) / n`` (Kadhe et al. eq. (1)).

    A triple (l, m, s) is achievable by a linear code iff ``l / k >= (s + m) / n``
    (Ye and Abbe 2018, restated as eq. (1) of Kadhe et al. 2019); returned as an
    exact :class:`fractions.Fraction`.

    Parameters
    ----------
    n : int
        Workers.
    k : int
        Partitions.
    s : int
        Stragglers tolerated.
    m : int
        Communication reduction.

    Returns
    -------
    fractions.Fraction
        The smallest achievable ``l / k``.

    Examples
    --------
    >>> from gctheory.codes import ye_abbe_lower_bound
    >>> ye_abbe_lower_bound(n=10, k=10, s=2, m=3)
    Fraction(1, 2)
    """
    n = check_positive_int("n", n)
    check_positive_int("k", k)
    m = check_positive_int("m", m)
    s = check_positive_int("s", s, minimum=0)
    if s >= n:
        raise ValueError(f"s must be < n (some worker must survive), got s={s}, n={n}")
    return Fraction(s + m, n)
