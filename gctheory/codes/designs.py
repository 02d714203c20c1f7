"""Block designs and the gradient codes built on them (BIBD codes, stochastic gradient coding).

A (v, k, lambda) balanced incomplete block design (BIBD) is a family of b
blocks (k-subsets of v points) in which every point lies in r blocks and every
pair of points in lambda blocks; ``b k = v r`` and ``lambda (v - 1) = r (k - 1)``.
Its incidence matrix N (v x b) has ``N N^T = (r - lambda) I + lambda J``.

- :func:`bibd` returns a design for (v, k, lambda) when one of the
  constructions here applies: projective planes PG(2, q) (q prime; q = 2 is
  the Fano plane), affine planes AG(2, q), complete designs (all k-subsets),
  and lambda-fold repetitions of these. Parameters that violate the necessary
  conditions (divisibility, Fisher's inequality b >= v, Bruck-Ryser-Chowla
  for symmetric designs with v even) are refused with the reason; admissible
  parameters without a construction here are refused as such.
- :class:`BIBDGradientCode` -- Kadhe, Koyluoglu, Ramchandran (ISIT 2019) [1]:
  workers are the v points, data partitions the b blocks (worker i holds the
  r blocks through point i). Any w surviving workers have Gram matrix
  ``(r - lambda) I + lambda J``, so the optimal (least-squares) decoder is the
  uniform ``u = r / (r - lambda + lambda w)`` and its error
  ``err = b - r^2 w / (r - lambda + lambda w)`` depends only on the number
  of stragglers (:func:`bibd_error`): an adversary gains nothing over random
  stragglers. (The stored copies of [1] give the abstract only; the
  orientation and this closed form are derived here. For symmetric designs,
  v = b, both orientations coincide.)
- :class:`StochasticGradientCode` -- Bitar, Wootters, El Rouayheb [2]: every
  partition is replicated on d workers, worker i sends the plain sum of its
  partitions, workers straggle independently with probability p, and the
  server outputs ``g_hat = sum_{i alive} y_i / (d (1 - p))``, an unbiased
  estimate of the full gradient. :func:`sgc_variance` is its exact mean
  squared error ``p / (d^2 (1 - p)) sum_{j,l} c_jl <g_j, g_l>`` (c_jl: workers
  holding both j and l), which for a pair-wise balanced placement (c_jl =
  lambda for j != l, e.g. a BIBD with partitions as points) is
  ``p / (d^2 (1 - p)) ((d - lambda) sum ||g_j||^2 + lambda ||sum g_j||^2)``.
  (Derived here; the paper's printed expression could not be retrieved.)

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
from gctheory.codes.approximate import _ApproximateCode
from gctheory.codes.base import DecodingCost, check_positive_int, validate_survivors

__all__ = [
    "BlockDesign",
    "projective_plane",
    "affine_plane",
    "complete_design",
    "bibd",
    "bibd_error",
    "BIBDGradientCode",
    "StochasticGradientCode",
    "sgc_variance",
]


@dataclass(frozen=True)
class BlockDesign:
    """A BIBD: ``incidence`` (v x b, 0/1), and v, b, r, k, lambda (checked on creation)."""

    incidence: np.ndarray
    name: str = "design"

    def __post_init__(self) -> None:
        N = np.asarray(self.incidence)
        if N.ndim != 2 or N.size == 0 or not np.all((N == 0) | (N == 1)):
            raise ValueError("incidence must be a non-empty 0/1 points x blocks matrix")
        r, k = N.sum(axis=1), N.sum(axis=0)
        gram = N.astype(np.int64) @ N.T.astype(np.int64)
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


def _is_prime(q: int) -> bool:
    return q >= 2 and all(q % p for p in range(2, math.isqrt(q) + 1))


def projective_plane(q: int) -> BlockDesign:
    """PG(2, q) for prime q: v = b = q^2 + q + 1, k = r = q + 1, lambda = 1 (q = 2: Fano).

    Points and lines are the 1-dimensional subspaces of ``F_q^3`` (vectors
    normalised so the first non-zero entry is 1); point x lies on line y iff
    ``x . y = 0 (mod q)``. Prime powers that are not prime need GF(q)
    arithmetic and are refused.
    """
    q = check_int(q, "q", low=2)
    if not _is_prime(q):
        raise ValueError(
            f"q must be prime for this construction of PG(2, q) (prime powers need GF(q) "
            f"arithmetic, not implemented), got q={q}"
        )
    pts = [
        v
        for v in itertools.product(range(q), repeat=3)
        if any(v) and v[next(i for i, x in enumerate(v) if x)] == 1
    ]
    P = np.array(pts, dtype=np.int64)
    N = ((P @ P.T) % q == 0).astype(np.int8)
    return BlockDesign(N, name=f"PG(2,{q})" if q != 2 else "Fano plane PG(2,2)")


def affine_plane(q: int) -> BlockDesign:
    """AG(2, q) for prime q: v = q^2 points, b = q^2 + q lines, k = q, r = q + 1, lambda = 1."""
    q = check_int(q, "q", low=2)
    if not _is_prime(q):
        raise ValueError(f"q must be prime for this construction of AG(2, q), got q={q}")
    x, y = np.divmod(np.arange(q * q), q)
    blocks = [(y - (a * x + c)) % q == 0 for a in range(q) for c in range(q)]
    blocks += [x == c for c in range(q)]
    return BlockDesign(np.array(blocks, dtype=np.int8).T, name=f"AG(2,{q})")


def complete_design(v: int, k: int) -> BlockDesign:
    """All k-subsets of v points: lambda = C(v-2, k-2), b = C(v, k) (refused above 5000 blocks)."""
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


def bibd(v: int, k: int, lam: int = 1) -> BlockDesign:
    """A (v, k, lambda) BIBD from the constructions of this module, or ``ValueError`` why not.

    Necessary conditions checked first (Colbourn-Dinitz, Part II): ``r =
    lambda (v-1)/(k-1)`` and ``b = v r / k`` integers, Fisher ``b >= v``,
    and for symmetric designs with even v, ``k - lambda`` a perfect square
    (Bruck-Ryser-Chowla). Then: PG(2, q), AG(2, q) (q prime), the complete
    design, or a lambda/lambda0-fold repetition of one of these.
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
    if b == v and v % 2 == 0 and math.isqrt(k - lam) ** 2 != k - lam:
        raise ValueError(
            f"no symmetric ({v},{k},{lam}) design exists: v is even and k - lambda = "
            f"{k - lam} is not a square (Bruck-Ryser-Chowla)"
        )
    candidates = []
    q = k - 1
    if v == q * q + q + 1 and _is_prime(q):
        candidates.append(projective_plane(q))
    if v == k * k and _is_prime(k):
        candidates.append(affine_plane(k))
    if math.comb(v - 2, k - 2) <= lam and lam % math.comb(v - 2, k - 2) == 0:
        if math.comb(v, k) <= 5000:
            candidates.append(complete_design(v, k))
    for base in candidates:
        if lam % base.lam == 0:
            reps = lam // base.lam
            N = np.tile(base.incidence, (1, reps))
            name = base.name if reps == 1 else f"{reps} x {base.name}"
            return BlockDesign(N, name=name)
    raise ValueError(
        f"the ({v},{k},{lam}) parameters pass the necessary conditions checked here "
        f"(divisibility: r={r}, b={b}; Fisher; Bruck-Ryser-Chowla for even v only) but no "
        "construction here builds them (a design may or may not exist); available: PG(2,q) "
        "and AG(2,q) for prime q, complete designs, and their repetitions"
    )


# --------------------------------------------------------------- BIBD code
def bibd_error(v: int, b: int, r: int, lam: int, stragglers: int) -> Fraction:
    """Optimal decoding error of :class:`BIBDGradientCode`: ``b - r^2 w / (r - lam + lam w)``.

    ``w = v - stragglers`` survivors; exact rational; ``b`` when every
    worker straggles. Derived from ``A_S A_S^T = (r - lam) I + lam J`` and
    ``A_S 1 = r 1`` (see the module docstring). Integers with ``v >= 2``,
    ``b >= 1`` and ``0 <= lam < r`` (an incomplete design).
    """
    v = check_int(v, "v", low=2)
    b = check_int(b, "b", low=1)
    r = check_int(r, "r", low=1)
    lam = check_int(lam, "lam", low=0)
    if lam >= r:
        raise ValueError(f"lam must be < r (an incomplete design), got lam={lam}, r={r}")
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

    def decoder_error(self, survivors: Sequence[int]) -> float:
        T = validate_survivors(survivors, self.n, 1)
        if self.decoder == "lstsq":
            return super().decoder_error(T)
        return float(self.error(self.n - T.size))


# ---------------------------------------------------------------------- SGC
def sgc_variance(partials: Any, placement: Any, p: float) -> float:
    """Exact ``E ||g_hat - sum_j g_j||^2`` of stochastic gradient coding.

    ``placement`` (workers x partitions, 0/1) with every column summing to the
    same d; workers straggle independently with probability p;
    ``g_hat = sum_{i alive} y_i / (d (1 - p))``. Equal to
    ``p / (d^2 (1 - p)) sum_{j,l} c_jl <g_j, g_l>``, ``c = P^T P``.
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


class StochasticGradientCode(_ApproximateCode):
    """Stochastic gradient coding (Bitar, Wootters, El Rouayheb 2020).

    Parameters
    ----------
    placement : (n, k) 0/1, every partition on d workers
        Use :meth:`pairwise_balanced` (a BIBD with the partitions as points)
        or :meth:`cyclic` (partition j on workers j..j+d-1).
    p : float
        Straggling probability the estimator is scaled for, ``0 <= p < 1``.

    ``decode`` returns ``sum_{i in survivors} y_i / (d (1 - p))`` (the
    unbiased estimator; never refuses).
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
        shares exactly lambda workers, every partition is on d = r workers."""
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
