"""Block designs and their classical constructions: projective and affine planes,
Steiner triple systems, Paley and Singer difference sets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gctheory._validate import check_int
from gctheory.codes import _design_families as _fam

__all__ = [
    "BlockDesign",
    "projective_plane",
    "affine_plane",
    "steiner_triple_system",
    "paley_design",
    "singer_design",
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
