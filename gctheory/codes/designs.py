"""Block designs and the gradient codes built on them (BIBD codes, stochastic gradient coding).

A (v, k, lambda) balanced incomplete block design (BIBD) is a family of b
blocks (k-subsets of v points) in which every point lies in r blocks and every
pair of points in lambda blocks; ``b k = v r`` and ``lambda (v - 1) = r (k - 1)``.
Its incidence matrix N (v x b) has ``N N^T = (r - lambda) I + lambda J``.

- :func:`bibd` returns a design for (v, k, lambda) when one of the
  constructions here applies: projective planes PG(2, q) and affine planes
  AG(2, q) over GF(q) for every prime power q (q = 2: the Fano plane;
  GF(p^e) arithmetic is built here from a primitive polynomial found by
  search), Steiner triple systems STS(v) for every v = 1 or 3 mod 6 (Bose and
  Skolem constructions), symmetric difference-set designs (Paley (q, (q-1)/2,
  (q-3)/4) for prime powers q = 3 mod 4; Singer PG(m, q) points versus
  hyperplanes, e.g. (15, 7, 3)), complete designs (all k-subsets), and
  lambda-fold repetitions of these. Parameters that violate the necessary
  conditions (divisibility, Fisher's inequality b >= v, Bruck-Ryser-Chowla
  for symmetric designs, v even or odd, :func:`bruck_ryser_chowla`) are
  refused with the reason; admissible parameters without a construction here
  are refused as such; designs with more than ``MAX_INCIDENCE`` (5e6)
  incidence entries are refused before any work. Every design is verified
  on creation by exact pair counting (:class:`BlockDesign`).
- :class:`BIBDGradientCode` -- Kadhe, Koyluoglu, Ramchandran (ISIT 2019) [1]:
  workers are the v points, data partitions the b blocks (worker i holds the
  r blocks through point i). Any w surviving workers have Gram matrix
  ``(r - lambda) I + lambda J``, so the optimal (least-squares) decoder is the
  uniform ``u = r / (r - lambda + lambda w)`` and its error
  ``err = b - r^2 w / (r - lambda + lambda w)`` depends only on the number
  of stragglers (:func:`bibd_error`): an adversary gains nothing over random
  stragglers. The stored copies of [1] give the abstract only (arXiv
  1904.13373: "the approximation error for these codes depends only on the
  number of stragglers", symmetric BIBDs maximise the lower bound on the
  adversarial threshold); its section and equation numbers could not be
  checked here, so the orientation and this closed form are derived here,
  not transcribed. For symmetric designs, v = b, both orientations coincide.
- :class:`StochasticGradientCode` -- Bitar, Wootters, El Rouayheb [2]: every
  partition is replicated on d workers, worker i sends the plain sum of its
  partitions, workers straggle independently with probability p, and the
  server outputs ``g_hat = sum_{i alive} y_i / (d (1 - p))``, an unbiased
  estimate of the full gradient (with no survivor, the estimate is 0: the
  same formula over an empty set; decoding never refuses, see
  :class:`gctheory.codes._empty.PartialDecodeResult`). :func:`sgc_variance`
  is its exact mean squared error
  ``p / (d^2 (1 - p)) sum_{j,l} c_jl <g_j, g_l>`` (c_jl: workers holding
  both j and l), which for a pair-wise balanced placement (c_jl = lambda for
  j != l, e.g. a BIBD with partitions as points) is
  ``p / (d^2 (1 - p)) ((d - lambda) sum ||g_j||^2 + lambda ||sum g_j||^2)``.
  The stored sources hold only the abstract of [2] (no section or equation
  numbers could be checked); the estimator and its variance are derived here
  from first principles (independent Bernoulli survivals, E[1{alive}] = 1 - p,
  Var = p (1 - p)) and checked by Monte Carlo in the tests.

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Gradient coding based on
   block designs for mitigating adversarial stragglers", ISIT 2019
   (arXiv:1904.13373).
.. [2] R. Bitar, M. Wootters, S. El Rouayheb, "Stochastic gradient coding for
   straggler mitigation in distributed learning", IEEE J. Sel. Areas Inf.
   Theory 1(1), 2020.
.. [3] C. J. Colbourn, J. H. Dinitz, Handbook of Combinatorial Designs, 2nd
   ed., 2006 (existence conditions).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_choice, check_int, check_probability
from gctheory.codes import _design_families as _fam
from gctheory.codes._empty import EmptyDecodeMixin
from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import _ApproximateCode
from gctheory.codes.base import DecodingCost, check_positive_int, validate_survivors

__all__ = [
    "BlockDesign",
    "projective_plane",
    "affine_plane",
    "complete_design",
    "steiner_triple_system",
    "paley_design",
    "singer_design",
    "bruck_ryser_chowla",
    "bibd",
    "bibd_error",
    "BIBDGradientCode",
    "StochasticGradientCode",
    "sgc_variance",
]


@dataclass(frozen=True)
class BlockDesign:
    """A BIBD: ``incidence`` (v x b, 0/1), and v, b, r, k, lambda (checked on creation).

    Parameters
    ----------
    incidence : array_like, shape (v, b)
        0/1 point-block incidence matrix; checked to be a BIBD on creation.
    name : str
        Display name.

    Examples
    --------
    >>> from gctheory.codes import BlockDesign, projective_plane
    >>> fano = projective_plane(2)
    >>> fano.v, fano.b, fano.r, fano.k, fano.lam, fano.symmetric
    (7, 7, 3, 3, 1, True)
    """

    incidence: np.ndarray
    name: str = "design"

    def __post_init__(self) -> None:
        N = np.asarray(self.incidence)
        if N.ndim != 2 or N.size == 0 or not np.all((N == 0) | (N == 1)):
            raise ValueError("incidence must be a non-empty 0/1 points x blocks matrix")
        r, k = N.sum(axis=1), N.sum(axis=0)
        Nf = N.astype(np.float64)  # pair counts are exact in float64 (< 2^53); BLAS speed
        gram = (Nf @ Nf.T).astype(np.int64)
        off = gram[~np.eye(N.shape[0], dtype=bool)]
        if np.any(r != r[0]) or np.any(k != k[0]) or (off.size and np.any(off != off[0])):
            raise ValueError(
                "not a BIBD: every point must lie in r blocks, every block have k points, "
                "and every pair of points lie in lambda blocks"
            )

    @property
    def v(self) -> int:
        return int(self.incidence.shape[0])

    @property
    def b(self) -> int:
        return int(self.incidence.shape[1])

    @property
    def r(self) -> int:
        return int(self.incidence[0].sum())

    @property
    def k(self) -> int:
        return int(self.incidence[:, 0].sum())

    @property
    def lam(self) -> int:
        N = self.incidence.astype(np.int64)
        return int(N[0] @ N[1]) if self.v > 1 else 0

    @property
    def symmetric(self) -> bool:
        return self.v == self.b

    def __repr__(self) -> str:
        return (
            f"BlockDesign({self.name}: v={self.v}, b={self.b}, r={self.r}, k={self.k}, "
            f"lambda={self.lam})"
        )


#: most incidence entries (v b) a construction here builds; the exact pair count costs
#: about v^2 b flops on top
MAX_INCIDENCE = 5_000_000


def _check_size(v: int, b: int, what: str) -> None:
    if v * b > MAX_INCIDENCE:
        raise ValueError(
            f"{what} has v={v} points and b={b} blocks: v b = {v * b:,} incidence entries, more "
            f"than the {MAX_INCIDENCE:,} built (and verified pair by pair) here"
        )


def _prime_power(q: int, name: str = "q") -> int:
    if _fam.prime_power(q) is None:
        raise ValueError(f"{name} must be a prime power (p^e, p prime), got {name}={q}")
    return q


def _blocks_design(v: int, blocks: Sequence[Sequence[int]], name: str) -> BlockDesign:
    N = np.zeros((v, len(blocks)), dtype=np.int8)
    for j, blk in enumerate(blocks):
        N[list(blk), j] = 1
    return BlockDesign(N, name=name)


def projective_plane(q: int) -> BlockDesign:
    """PG(2, q) for a prime power q: v = b = q^2 + q + 1, k = r = q + 1, lambda = 1.

    Points and lines are the 1-dimensional subspaces of ``GF(q)^3`` (vectors
    normalised so the first non-zero entry is 1); point x lies on line y iff
    ``x . y = 0`` in GF(q) (GF(p^e) arithmetic of
    :class:`gctheory.codes._design_families.GaloisField`). q = 2 is the Fano
    plane, q = 4 the (21, 5, 1) design. Verified on creation; refused when
    ``v^2 > MAX_INCIDENCE`` (q <= 46).

    Parameters
    ----------
    q : int
        A prime power.

    Returns
    -------
    BlockDesign
        The ``(q^2 + q + 1, q + 1, 1)`` design.

    Examples
    --------
    >>> from gctheory.codes import projective_plane
    >>> d = projective_plane(3)
    >>> d.v, d.k, d.lam
    (13, 4, 1)
    """
    q = check_int(q, "q", low=2)
    v = q * q + q + 1
    _check_size(v, v, f"PG(2,{q})")
    _prime_power(q)
    N = _fam.projective_plane_incidence(q)
    return BlockDesign(N, name=f"PG(2,{q})" if q != 2 else "Fano plane PG(2,2)")


def affine_plane(q: int) -> BlockDesign:
    """AG(2, q) for a prime power q: v = q^2, b = q^2 + q lines, k = q, r = q + 1, lambda = 1.

    Lines ``y = a x + c`` and ``x = c`` over GF(q); q = 4 is the (16, 4, 1)
    design. Verified on creation.

    Parameters
    ----------
    q : int
        A prime power.

    Returns
    -------
    BlockDesign
        The ``(q^2, q, 1)`` design.

    Examples
    --------
    >>> from gctheory.codes import affine_plane
    >>> d = affine_plane(3)
    >>> d.v, d.b, d.k, d.r, d.lam
    (9, 12, 3, 4, 1)
    """
    q = check_int(q, "q", low=2)
    _check_size(q * q, q * q + q, f"AG(2,{q})")
    _prime_power(q)
    return BlockDesign(_fam.affine_plane_incidence(q), name=f"AG(2,{q})")


def steiner_triple_system(v: int) -> BlockDesign:
    """A Steiner triple system STS(v) = (v, 3, 1) design, for every v = 1 or 3 mod 6, v >= 7.

    Bose's construction for v = 3 mod 6 (idempotent commutative quasigroup
    of order v/3) and Skolem's for v = 1 mod 6 (half-idempotent quasigroup of
    order (v-1)/3); Lindner and Rodger, *Design Theory*, Sections 1.2-1.3.
    b = v (v - 1) / 6 blocks; verified on creation.

    Parameters
    ----------
    v : int
        Number of points, ``v = 1 or 3 (mod 6)``, ``v >= 7``.

    Returns
    -------
    BlockDesign
        A ``(v, 3, 1)`` design.

    Examples
    --------
    >>> from gctheory.codes import steiner_triple_system
    >>> d = steiner_triple_system(9)
    >>> d.v, d.b, d.r
    (9, 12, 4)
    """
    v = check_int(v, "v", low=7)
    if v % 6 not in (1, 3):
        raise ValueError(f"v must be 1 or 3 mod 6 for a Steiner triple system, got v={v}")
    _check_size(v, v * (v - 1) // 6, f"STS({v})")
    return _blocks_design(v, _fam.steiner_triples(v), f"STS({v})")


def paley_design(q: int) -> BlockDesign:
    """The Paley difference-set design: a symmetric (q, (q-1)/2, (q-3)/4) design.

    Blocks ``D + g`` (g in GF(q)) of the nonzero squares D of GF(q), a prime
    power q = 3 mod 4, q >= 7 (Colbourn-Dinitz, *Handbook*, VI.18). q = 11
    gives (11, 5, 2). Verified on creation.

    Parameters
    ----------
    q : int
        A prime power, ``q = 3 (mod 4)``, ``q >= 7``.

    Returns
    -------
    BlockDesign
        The symmetric ``(q, (q-1)/2, (q-3)/4)`` design.

    Examples
    --------
    >>> from gctheory.codes import paley_design
    >>> d = paley_design(11)
    >>> d.v, d.k, d.lam
    (11, 5, 2)
    """
    q = check_int(q, "q", low=7)
    _check_size(q, q, f"Paley({q})")
    _prime_power(q)
    if q % 4 != 3:
        raise ValueError(f"q must be 3 mod 4 for a Paley difference set, got q={q}")
    F, D = _fam.paley_difference_set(q)
    return BlockDesign(_fam.develop(D, q, F.add), name=f"Paley({q})")


def singer_design(q: int, m: int) -> BlockDesign:
    """PG(m, q) points versus hyperplanes from a Singer difference set (cyclic, symmetric).

    v = (q^(m+1) - 1)/(q - 1), k = (q^m - 1)/(q - 1), lambda = (q^(m-1) -
    1)/(q - 1), for a prime power q and m >= 2; e.g. (15, 7, 3) = PG(3, 2).
    The difference set is ``{i : Tr(alpha^i) = 0}`` in Z_v (module
    ``_design_families``; Colbourn-Dinitz, *Handbook*, VI.18). Verified on
    creation; needs q^(m+1) <= 65536.

    Parameters
    ----------
    q : int
        A prime power.
    m : int
        Projective dimension, ``>= 2``.

    Returns
    -------
    BlockDesign
        The symmetric design of points and hyperplanes of ``PG(m, q)``.

    Examples
    --------
    >>> from gctheory.codes import singer_design
    >>> d = singer_design(2, 3)
    >>> d.v, d.k, d.lam
    (15, 7, 3)
    """
    q = check_int(q, "q", low=2, high=_fam.MAX_FIELD_ORDER)
    m = check_int(m, "m", low=2, high=_fam.MAX_FIELD_ORDER.bit_length())
    _prime_power(q)
    if q ** (m + 1) > _fam.MAX_FIELD_ORDER:
        raise ValueError(
            f"the Singer design needs GF(q^(m+1)) with q^(m+1) <= {_fam.MAX_FIELD_ORDER}, got "
            f"q={q}, m={m}"
        )
    v = (q ** (m + 1) - 1) // (q - 1)
    _check_size(v, v, f"Singer PG({m},{q})")
    D = _fam.singer_difference_set(q, m)
    return BlockDesign(_fam.develop(D, v), name=f"PG({m},{q}) points/hyperplanes (Singer)")


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


# ---------------------------------------------------------------------- SGC
def sgc_variance(partials: Any, placement: Any, p: float) -> float:
    """Exact ``E ||g_hat - sum_j g_j||^2`` of stochastic gradient coding (Bitar et al. 2020).

    ``placement`` (workers x partitions, 0/1) with every column summing to the
    same d; workers straggle independently with probability p;
    ``g_hat = sum_{i alive} y_i / (d (1 - p))``. Equal to
    ``p / (d^2 (1 - p)) sum_{j,l} c_jl <g_j, g_l>``, ``c = P^T P``.

    Derivation (here, not transcribed: the stored copies of Bitar, Wootters,
    El Rouayheb, IEEE JSAIT 2020, are abstract-only, so no equation number
    can be cited): ``g_hat - g = sum_i (X_i / (1 - p) - 1) y_i / d`` with
    independent ``X_i ~ Bernoulli(1 - p)``, so the cross terms vanish and
    ``E = sum_i p / (1 - p) ||y_i||^2 / d^2``, ``y_i = sum_{j in i} g_j``.
    Checked against :func:`gctheory.montecarlo.estimate_mean` in the tests.

    Parameters
    ----------
    partials : array_like, shape (k, d)
        The partial gradients.
    placement : array_like, shape (n, k)
        0/1 placement, every column summing to the same d.
    p : float
        Straggling probability, in [0, 1).

    Returns
    -------
    float
        ``E ||g_hat - g||^2``.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import cyclic_support, sgc_variance
    >>> g = np.ones((4, 2))
    >>> round(sgc_variance(g, cyclic_support(4, 2), 0.2), 6)
    2.0
    """
    G = check_array(partials, "partials", ndim=2, min_size=0)
    P = _check_placement(placement)
    p = check_probability(p, "p")
    if p == 1:
        raise ValueError("p must be < 1 (the estimator divides by 1 - p)")
    d = int(P.sum(axis=0)[0])
    if G.ndim != 2 or G.shape[0] != P.shape[1]:
        raise ValueError(f"partials must be (k, dim) with k = {P.shape[1]}, got {G.shape}")
    C = P.T.astype(float) @ P.astype(float)
    return float(p / (d * d * (1 - p)) * np.sum(C * (G @ G.T)))


def _check_placement(placement: Any) -> np.ndarray:
    P = check_array(placement, "placement", ndim=2, min_size=0)
    if P.ndim != 2 or P.size == 0 or not np.all((P == 0) | (P == 1)):
        raise ValueError("placement must be a non-empty 0/1 workers x partitions matrix")
    col = P.sum(axis=0)
    if np.any(col != col[0]) or col[0] == 0:
        raise ValueError(
            "every partition must be replicated on the same number d >= 1 of workers, got "
            f"{int(col.min())} to {int(col.max())}"
        )
    return P.astype(np.int8)


class StochasticGradientCode(EmptyDecodeMixin, _ApproximateCode):
    """Stochastic gradient coding (Bitar, Wootters, El Rouayheb 2020).

    Parameters
    ----------
    placement : (n, k) 0/1, every partition on d workers
        Use :meth:`pairwise_balanced` (a BIBD with the partitions as points)
        or :meth:`cyclic` (partition j on workers j..j+d-1).
    p : float
        Straggling probability the estimator is scaled for, ``0 <= p < 1``.

    Notes
    -----
    ``decode`` returns ``sum_{i in survivors} y_i / (d (1 - p))`` (the
    unbiased estimator of Bitar, Wootters, El Rouayheb 2020; see the module
    docstring for what is derived here). It never refuses for decodability:
    with no survivor the estimator is the empty sum, 0, and ``decode``
    returns the zero vector while ``decode_detail`` returns a
    :class:`~gctheory.codes._empty.PartialDecodeResult` flagged
    ``empty=True`` (``err = k``). Bad indices or shapes are still
    ``ValueError``.

    Examples
    --------
    >>> from gctheory.codes import StochasticGradientCode
    >>> import numpy as np
    >>> code = StochasticGradientCode.cyclic(6, 2, p=0.2)
    >>> g = np.ones((6, 2))
    >>> round(code.variance(g), 6)
    3.0
    >>> float(code.sample_error(g, np.random.default_rng(0), 2000).mean()) < 2 * code.variance(g)
    True
    """

    name = "stochastic gradient coding (Bitar et al. 2020)"

    def __init__(self, placement: Any, p: float) -> None:
        self.A = _check_placement(placement)
        self.p = check_probability(p, "p")
        if self.p == 1:
            raise ValueError("p must be < 1 (the estimator divides by 1 - p)")
        self.n, self.k = self.A.shape
        self.d = int(self.A.sum(axis=0)[0])
        self.support = self.A.astype(bool)
        self.load = int(self.A.sum(axis=1).max())

    @classmethod
    def pairwise_balanced(cls, design: BlockDesign, p: float) -> StochasticGradientCode:
        """Partitions = the v points, workers = the b blocks: every pair of partitions
        shares exactly lambda workers, every partition is on d = r workers (the
        pair-wise balanced placement of Bitar, Wootters, El Rouayheb 2020).

        ``design`` must be a :class:`BlockDesign` (from :func:`bibd` or a
        constructor here); for a raw 0/1 placement call the class itself.
        """
        if not isinstance(design, BlockDesign):
            raise ValueError(
                f"design must be a BlockDesign (see bibd(), projective_plane(), ...), got "
                f"{type(design).__name__}; for a raw 0/1 workers x partitions placement use "
                "StochasticGradientCode(placement, p)"
            )
        return cls(design.incidence.T, p)

    @classmethod
    def cyclic(cls, n: int, d: int, p: float) -> StochasticGradientCode:
        """k = n partitions, partition j on workers j, ..., j + d - 1 (mod n)."""
        n = check_positive_int("n", n)
        d = check_int(d, "d", low=1, high=n)
        P = np.zeros((n, n), dtype=np.int8)
        for j in range(n):
            P[(j + np.arange(d)) % n, j] = 1
        return cls(P, p)

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        return np.full((T.size, 1), 1.0 / (self.d * (1 - self.p))), 1.0

    def decoder_error(self, survivors: Survivors) -> float:
        """``||A_T^T u - 1||^2`` of this code's own decoder ``u = 1 / (d (1 - p))`` (``k`` with
        no survivor); the inherited method gave the least-squares optimum instead, which this
        estimator does not use."""
        T = validate_survivors(survivors, self.n, 0)
        e = self._float_rows()[T].sum(axis=0) / (self.d * (1 - self.p)) - 1.0
        return float(e @ e)

    def variance(self, partials: Any) -> float:
        """:func:`sgc_variance` of this placement for the given partial gradients."""
        return sgc_variance(partials, self.A, self.p)

    def sample_error(self, partials: Any, rng: Any, size: int) -> np.ndarray:
        """``||g_hat - g||^2`` for ``size`` independent straggler draws (Monte Carlo sampler)."""
        G = np.asarray(partials, dtype=float)
        gen = as_generator(rng)
        alive = gen.random((size, self.n)) >= self.p
        coef = (alive.astype(float) @ self.A.astype(float)) / (self.d * (1 - self.p)) - 1.0
        err = coef @ G
        return np.einsum("ij,ij->i", err, err)

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        t = self.n if survivors is None else len(survivors)
        return DecodingCost(setup=0, apply=t * check_positive_int("d", d), method="scaled sum")
