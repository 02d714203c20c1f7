"""Loads for exact recovery under *every* set of ``s`` stragglers (worst case).

Tandon et al.'s ``d >= s + 1``; Ye-Abbe ``l / k >= (s + m) / n``, eq. (1) of [2];
Halbawi et al. ``s <= floor(w n / k) - 1``, eq. (2) of [3]. Exact, not asymptotic.

.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019
   (eq. (1), the bound of Ye and Abbe, ICML 2018).
.. [3] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving distributed
   gradient descent using Reed-Solomon codes", 2017 (eq. (2), after Tandon
   et al., ICML 2017).
"""

from __future__ import annotations

import math
from fractions import Fraction

from gctheory.load_bounds._common import (
    LoadBound,
    _check_ns,
    _int,
)

__all__ = ["worst_case_load", "halbawi_max_stragglers", "halbawi_load"]


def worst_case_load(n: int, s: int, m: int = 1, k: int | None = None) -> LoadBound:
    """Minimum load for exact recovery under *every* set of ``s`` stragglers.

    ``l / k >= (s + m) / n`` (Ye and Abbe, eq. (1) of Kadhe et al. 2019), with
    ``k`` data partitions (default ``n``) and communication saving ``m``
    (default 1); with ``m = 1``, ``k = n`` this is Tandon et al.'s ``d >= s + 1``.

    Parameters
    ----------
    n, s : int
        Workers (``n >= 2``) and stragglers (``0 <= s < n``).
    m : int
        Communication saving, ``1 <= m <= n - s``.
    k : int, optional
        Number of data partitions (``k >= 1``); default ``n``.

    Returns
    -------
    LoadBound
        ``value = k (s + m) / n``, ``load = ceil(value)``. Exact (not asymptotic),
        valid for every ``n, s``; achieved by cyclic-MDS / FRC codes (Tandon)
        and by Ye-Abbe / CommFR-GC codes when the divisibility conditions hold.

    Examples
    --------
    >>> from gctheory.load_bounds import worst_case_load
    >>> b = worst_case_load(10, 2)  # Tandon et al.: d >= s + 1
    >>> b.load, b.source
    (3, 'Tandon et al. 2017, d >= s + 1')
    >>> worst_case_load(12, 2, m=2).load  # (s + m) k / n
    4
    """
    n, s = _check_ns(n, s)
    m = _int("m", m)
    if m < 1:
        raise ValueError(f"m must be at least 1, got m={m}")
    if s + m > n:
        raise ValueError(f"s + m must not exceed n (the server needs m results), got {s}+{m}>{n}")
    k = n if k is None else _int("k", k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got k={k}")
    v = Fraction(k * (s + m), n)
    src = "Tandon et al. 2017, d >= s + 1" if (m == 1 and k == n) else "Ye-Abbe, Kadhe eq. (1)"
    return LoadBound(
        float(v),
        max(1, math.ceil(v)),
        "lower",
        src,
        "every n >= 2, 0 <= s < n, 1 <= m <= n - s (worst case over straggler sets)",
    )


def halbawi_max_stragglers(n: int, k: int, w: int) -> int:
    """Largest tolerable ``s = floor(w n / k) - 1`` (Halbawi et al. 2017, eq. (2)).

    ``n`` workers, ``k`` partitions, ``w`` partitions per worker (``1 <= w <= k``).

    Parameters
    ----------
    n : int
        Workers.
    k : int
        Partitions.
    w : int
        Partitions per worker, ``1 <= w <= k``.

    Returns
    -------
    int
        ``floor(w n / k) - 1``.

    Examples
    --------
    >>> from gctheory.load_bounds import halbawi_max_stragglers
    >>> halbawi_max_stragglers(10, 20, 5)
    1
    """
    n = _int("n", n)
    if n < 2:
        raise ValueError(f"n must be at least 2 (n >= 2), got n={n}")
    k = _int("k", k)
    w = _int("w", w)
    if k < 1:
        raise ValueError(f"k must be at least 1, got k={k}")
    if not 1 <= w <= k:
        raise ValueError(f"w must satisfy 1 <= w <= k, got w={w}, k={k}")
    return (w * n) // k - 1


def halbawi_load(n: int, s: int, k: int | None = None) -> LoadBound:
    """Smallest ``w`` with ``s <= floor(w n / k) - 1`` (Halbawi et al. 2017, eq. (2)).

    The integer load is found by searching ``w`` directly in eq. (2) (not by
    the closed form), so its agreement with :func:`worst_case_load` (``m = 1``)
    is a check. ``value = k (s + 1) / n`` is the real threshold. Exact, valid
    for every ``n >= 2``, ``0 <= s < n``, ``k >= 1`` (default ``k = n``).

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    k : int, optional
        Partitions (default ``n``).

    Returns
    -------
    LoadBound
        The smallest ``w`` (``load``) and the real threshold (``value``).

    Examples
    --------
    >>> from gctheory.load_bounds import halbawi_load
    >>> b = halbawi_load(10, 1, k=20)
    >>> b.load, b.value
    (4, 4.0)
    """
    n, s = _check_ns(n, s)
    k = n if k is None else _int("k", k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got k={k}")
    # eq. (2) searched directly, by bisection (floor(w n / k) - 1 grows with w); w = k works
    lo, hi = 1, k
    while lo < hi:
        mid = (lo + hi) // 2
        if (mid * n) // k - 1 >= s:
            hi = mid
        else:
            lo = mid + 1
    w = lo
    return LoadBound(
        float(Fraction(k * (s + 1), n)),
        w,
        "lower",
        "Halbawi et al. 2017, eq. (2)",
        "every n >= 2, 0 <= s < n, k >= 1 (worst case); achieved by the RS code of [3]",
    )
