"""Which balanced incomplete block designs exist and one of them built: the
Bruck-Ryser-Chowla condition, complete designs, the search over the constructions."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from gctheory._validate import check_int
from gctheory.codes import _design_families as _fam
from gctheory.codes.designs._constructions import (
    BlockDesign,
    _check_size,
    affine_plane,
    paley_design,
    projective_plane,
    singer_design,
    steiner_triple_system,
)

__all__ = ["complete_design", "bruck_ryser_chowla", "bibd"]


def bruck_ryser_chowla(v: int, k: int, lam: int) -> tuple[bool, str]:
    """Whether symmetric (v, k, lambda) parameters pass the Bruck-Ryser-Chowla test, and why.

    v even: ``k - lambda`` must be a square. v odd: ``z^2 = (k - lambda) x^2
    + (-1)^((v-1)/2) lambda y^2`` must have a nontrivial integer solution,
    decided by Hilbert symbols at the primes dividing ``2 (k - lambda)
    lambda`` (Hasse-Minkowski; Serre, *A Course in Arithmetic*, III.1-2).
    Computed, not tabulated: (43, 7, 1) (a projective plane of order 6)
    fails, (7, 3, 1) passes. Integers with ``1 <= lam < k < v`` and ``k <= 10^6``
    (the primes of ``2 (k - lambda) lambda`` are found by trial division).

    Parameters
    ----------
    v, k, lam : int
        Symmetric design parameters, ``1 <= lam < k < v``.

    Returns
    -------
    tuple of (bool, str)
        Whether the test passes, and the reason.

    Examples
    --------
    >>> from gctheory.codes import bruck_ryser_chowla
    >>> bruck_ryser_chowla(7, 3, 1)[0], bruck_ryser_chowla(43, 7, 1)[0]
    (True, False)
    """
    v = check_int(v, "v", low=3)
    k = check_int(k, "k", low=2, high=min(v - 1, _BRC_MAX_K))
    lam = check_int(lam, "lam", low=1, high=k - 1)
    return _fam.bruck_ryser_chowla(v, k, lam)


#: largest k the odd-v Bruck-Ryser-Chowla test factorises for (trial division, < 1 s)
_BRC_MAX_K = 10**6


def complete_design(v: int, k: int) -> BlockDesign:
    """All k-subsets of v points: lambda = C(v-2, k-2), b = C(v, k) (refused above 5000 blocks).

    Parameters
    ----------
    v : int
        Points.
    k : int
        Block size, ``2 <= k < v``.

    Returns
    -------
    BlockDesign
        Every k-subset as a block.

    Examples
    --------
    >>> from gctheory.codes import complete_design
    >>> d = complete_design(5, 3)
    >>> d.b, d.r, d.lam
    (10, 6, 3)
    """
    v = check_int(v, "v", low=3)
    k = check_int(k, "k", low=2)
    if k >= v:
        raise ValueError(f"k must be < v for an incomplete design, got k={k}, v={v}")
    b = 1
    for i in range(min(k, v - k)):  # C(v, k), stopped as soon as it passes the limit
        b = b * (v - i) // (i + 1)
        if b > 5000:
            raise ValueError(
                f"v={v}, k={k}: the complete design has C(v, k) > 5000 blocks; at most 5000 here"
            )
    N = np.zeros((v, b), dtype=np.int8)
    for j, blk in enumerate(itertools.combinations(range(v), k)):
        N[list(blk), j] = 1
    return BlockDesign(N, name=f"complete ({v},{k})")


def _base_designs(v: int, k: int) -> list[tuple[int, Any]]:
    """``(lambda0, builder)`` of every construction here with these v and k."""
    out: list[tuple[int, Any]] = []
    pp = _fam.prime_power
    if v == (k - 1) ** 2 + k and pp(k - 1):
        out.append((1, lambda: projective_plane(k - 1)))
    if v == k * k and pp(k):
        out.append((1, lambda: affine_plane(k)))
    if k == 3 and v % 6 in (1, 3):
        out.append((1, lambda: steiner_triple_system(v)))
    if v % 4 == 3 and 2 * k + 1 == v and v >= 7 and pp(v):
        out.append(((v - 3) // 4, lambda: paley_design(v)))
    for q in range(2, k):  # Singer: k = (q^m - 1)/(q - 1) for some q, m >= 2
        if not pp(q):
            continue
        m, kk = 2, 1 + q  # hyperplanes of PG(m, q) have (q^m - 1)/(q - 1) points
        while kk < k:
            m, kk = m + 1, kk * q + 1
        if kk == k and m >= 2 and v == k * q + 1 and q ** (m + 1) <= _fam.MAX_FIELD_ORDER:
            out.append(((q ** (m - 1) - 1) // (q - 1), lambda q=q, m=m: singer_design(q, m)))
    if math.comb(v, k) <= 5000:
        out.append((math.comb(v - 2, k - 2), lambda: complete_design(v, k)))
    return out


def bibd(v: int, k: int, lam: int = 1) -> BlockDesign:
    """A (v, k, lambda) BIBD from the constructions of this module, or ``ValueError`` why not.

    Necessary conditions checked first (Colbourn-Dinitz, Part II): ``r =
    lambda (v-1)/(k-1)`` and ``b = v r / k`` integers, Fisher ``b >= v``,
    and for symmetric designs (b = v) Bruck-Ryser-Chowla
    (:func:`bruck_ryser_chowla`, v even and odd). Then, as ``lambda /
    lambda0``-fold repetitions of a base design with ``lambda0 | lambda``:
    PG(2, q) and AG(2, q) (q a prime power), Steiner triple systems (k = 3,
    v = 1 or 3 mod 6), Paley (q, (q-1)/2, (q-3)/4) and Singer PG(m, q)
    point-hyperplane difference-set designs, the complete design. Every
    design is verified by exact pair counting when built; refused at once
    when ``v b > MAX_INCIDENCE`` (5e6).

    Parameters
    ----------
    v : int
        Points (workers of the gradient code).
    k : int
        Block size.
    lam : int
        Every pair of points lies in ``lam`` blocks.

    Returns
    -------
    BlockDesign
        A design with these parameters.

    Raises
    ------
    ValueError
        When no construction here gives one, with the reason.

    Examples
    --------
    >>> from gctheory.codes import bibd
    >>> d = bibd(13, 4)
    >>> d.name, d.b
    ('PG(2,3)', 13)
    >>> bibd(43, 7)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: no symmetric (43,7,1) design exists: v is odd and z^2 = 6...
    """
    v = check_int(v, "v", low=3)
    k = check_int(k, "k", low=2)
    lam = check_int(lam, "lam", low=1)
    if k >= v:
        raise ValueError(f"k must be < v (incomplete blocks), got k={k}, v={v}")
    if (lam * (v - 1)) % (k - 1):
        raise ValueError(
            f"no ({v},{k},{lam}) design exists: r = lambda (v-1)/(k-1) = {lam * (v - 1)}/{k - 1} "
            "is not an integer"
        )
    r = lam * (v - 1) // (k - 1)
    if (v * r) % k:
        raise ValueError(
            f"no ({v},{k},{lam}) design exists: b = v r / k = {v * r}/{k} is not an integer"
        )
    b = v * r // k
    if b < v:
        raise ValueError(f"no ({v},{k},{lam}) design exists: Fisher's inequality b >= v fails")
    if b == v and (v % 2 == 0 or k <= _BRC_MAX_K):  # larger ones: refused by size below
        ok, why = _fam.bruck_ryser_chowla(v, k, lam)
        if not ok:
            raise ValueError(
                f"no symmetric ({v},{k},{lam}) design exists: {why} (Bruck-Ryser-Chowla)"
            )
    _check_size(v, b, f"a ({v},{k},{lam}) design")
    for lam0, build in _base_designs(v, k):
        if lam % lam0 == 0:
            base = build()
            if (base.v, base.k, base.lam) != (v, k, lam0):  # pragma: no cover - a bug here
                raise AssertionError(f"{base!r} built for ({v},{k},{lam0})")
            reps = lam // lam0
            N = np.tile(base.incidence, (1, reps))
            name = base.name if reps == 1 else f"{reps} x {base.name}"
            return BlockDesign(N, name=name)
    raise ValueError(
        f"the ({v},{k},{lam}) parameters pass the necessary conditions checked here "
        f"(divisibility: r={r}, b={b}; Fisher; Bruck-Ryser-Chowla for symmetric designs) but no "
        "construction here builds them (a design may or may not exist); available: PG(2,q) "
        "and AG(2,q) for prime powers q, Steiner triple systems, Paley and Singer "
        "difference-set designs, complete designs, and their repetitions"
    )
