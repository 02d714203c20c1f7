"""Stochastic gradient codes (Bitar et al.): a random placement and the variance of
its unbiased estimate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_int, check_probability
from gctheory.codes._empty import EmptyDecodeMixin
from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import _ApproximateCode
from gctheory.codes.base import DecodingCost, check_positive_int, validate_survivors
from gctheory.codes.designs._constructions import BlockDesign

__all__ = ["StochasticGradientCode", "sgc_variance"]


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
