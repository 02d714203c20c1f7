"""The event ``cond(M) > x`` on one Gaussian matrix and its importance sampler."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from gctheory._threads import blas_single_thread
from gctheory._validate import check_choice, check_int, check_real
from gctheory.conditioning import condition_numbers
from gctheory.montecarlo import Estimate, importance_sampling
from gctheory.tails.gaussian._conditional import (
    MAX_CONDITION_X,
    _haar_stiefel,
    _inverse_probability_sum,
    _redraw_row,
)

__all__ = ["MAX_ENTRIES", "ConditionExceeds", "GaussianConditionTail", "condition_tail_is"]


# ---------------------------------------------------------------------------
# events on Gaussian matrices


MAX_ENTRIES = 10**8  # entries of one sample (a matrix, an erasure pattern) a proposal draws


def _gib(nbytes: int) -> str:
    if nbytes >= 2**100:
        return f"about 2^{nbytes.bit_length() - 1} bytes"
    return f"{nbytes / 2**30:.3g} GiB"


def _check_shape(u: Any, v: Any) -> tuple[int, int]:
    u = check_int(u, "u", low=2)
    v = check_int(v, "v", low=2)
    if u * v > MAX_ENTRIES:
        raise ValueError(
            f"u x v = {u} x {v} entries per sample exceeds {MAX_ENTRIES:,} "
            f"({_gib(8 * u * v)} of float64 for one matrix)"
        )
    return u, v


def _wide(M: np.ndarray) -> np.ndarray:
    return M if M.shape[-2] <= M.shape[-1] else np.swapaxes(M, -1, -2)


@dataclass(frozen=True)
class ConditionExceeds:
    """Event ``cond(M) > x`` for a stack of matrices ``M`` (shape ``(size, u, v)``).

    Parameters
    ----------
    x : float
        The threshold.

    Examples
    --------
    >>> from gctheory.tails import ConditionExceeds
    >>> import numpy as np
    >>> event = ConditionExceeds(10.0)
    >>> event(np.stack([np.eye(2), np.diag([1.0, 100.0])])).tolist()
    [False, True]
    """

    x: float

    def __call__(self, M: np.ndarray) -> np.ndarray:
        return condition_numbers(np.asarray(M)) > self.x


@dataclass(frozen=True)
class GaussianConditionTail:
    """Proposal for ``P(cond(M) > x)``, M a ``u x v`` matrix of i.i.d. standard normals.

    Parameters
    ----------
    u, v : int
        Matrix shape, both >= 2 (the domain of Lemma 1 of Kadhe et al. 2019).
    x : float
        The threshold, > 1.
    method : {"conditional", "tilt"}
        ``"conditional"`` (default): a mixture over the ``p = min(u, v)`` rows
        (of the wide orientation): a uniformly chosen row is put last and its
        Bartlett diagonal entry drawn from its law given ``cond > x``, the rest
        from its law. The weight is ``1 / mean_j [1 / P(cond > x | rest_j)]``,
        exact; the mixture over rows keeps it bounded when the near-dependency
        involves rows other than the redrawn one. The proposal lives on the
        event: use it only for events inside ``cond > x`` (its weights average
        to ``P(cond > x)``, not 1). ``"tilt"``: every Bartlett diagonal entry
        from a chi law with fewer degrees of freedom (full support, any event,
        weights average to 1; heavier-tailed weights).
    dof : float, optional
        For ``"tilt"``: degrees of freedom left to the last diagonal entry, in
        ``(0, d]`` (default ``min(d, 1 / log x)``).

    Notes
    -----
    Samples are ``u x v`` matrices, shape ``(size, u, v)``.

    Examples
    --------
    >>> from gctheory.tails import GaussianConditionTail
    >>> import numpy as np
    >>> prop = GaussianConditionTail(3, 5, 1e3)
    >>> M, logw = prop.sample(np.random.default_rng(0), 4)
    >>> M.shape, logw.shape
    ((4, 3, 5), (4,))
    """

    u: int
    v: int
    x: float
    method: str = "conditional"
    dof: float | None = None

    def __post_init__(self) -> None:
        u, v = _check_shape(self.u, self.v)
        object.__setattr__(self, "u", u)
        object.__setattr__(self, "v", v)
        object.__setattr__(
            self, "x", check_real(self.x, "x", low=1.0, high=MAX_CONDITION_X, low_open=True)
        )
        check_choice(self.method, "method", ["conditional", "tilt"])
        d = abs(v - u) + 1
        if self.dof is not None:
            dof = check_real(self.dof, "dof", low=0.0, high=float(d), low_open=True)
            object.__setattr__(self, "dof", dof)

    @property
    def full_support(self) -> bool:
        return self.method == "tilt"

    def sample(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        p, q = min(self.u, self.v), max(self.u, self.v)
        if self.method == "conditional":
            M = rng.standard_normal((size, p, q))
            M = _redraw_row(rng, M, rng.integers(0, p, size), self.x)
            with np.errstate(divide="ignore"):
                logw = math.log(p) - np.log(_inverse_probability_sum(M, self.x))
        else:
            d = q - p + 1
            dof = self.dof if self.dof is not None else min(d, 1.0 / math.log(self.x))
            theta = np.maximum(0.0, (d - dof) - (p - 1 - np.arange(p)))  # theta_p = d - dof
            k = q - np.arange(p)
            kk = k - theta
            L = np.zeros((size, p, p))
            y = np.sqrt(2.0 * rng.standard_gamma(kk / 2.0, size=(size, p)))
            L[:, np.arange(p), np.arange(p)] = y
            rows, cols = np.tril_indices(p, -1)
            L[:, rows, cols] = rng.standard_normal((size, rows.size))
            const = float(
                np.sum(
                    -theta / 2 * math.log(2.0) + special.gammaln(kk / 2) - special.gammaln(k / 2)
                )
            )
            with np.errstate(divide="ignore"):
                logw = np.sum(np.where(theta > 0, theta * np.log(y), 0.0), axis=1) + const
            M = L @ np.swapaxes(_haar_stiefel(rng, size, q, p), -1, -2)
        return (M if self.u <= self.v else np.swapaxes(M, -1, -2)), logw


def condition_tail_is(
    u: int,
    v: int,
    x: float,
    trials: int,
    *,
    method: str = "conditional",
    rng: Any = None,
    **engine: Any,
) -> Estimate:
    """``P(cond(M) > x)`` for a ``u x v`` standard Gaussian ``M``, by importance sampling.

    The rare-event twin of :func:`gctheory.conditioning.gaussian_condition_bound`
    (Lemma 1 of Kadhe et al. 2019) and of
    :func:`gctheory.conditioning.condition_tail_mc`: reaches ``1e-12`` with
    thousands of samples. ``engine`` keywords go to
    :func:`gctheory.montecarlo.importance_sampling` (``level``, ``chunk_size``,
    ``executor``, ``progress``, ``checkpoint``, ``stop``).

    Parameters
    ----------
    u, v : int
        Matrix shape.
    x : float
        Threshold.
    trials : int
        Importance samples.
    method : str
        The proposal (see :class:`GaussianConditionTail`).
    rng : None, int or numpy.random.Generator
        Seed.
    **engine
        ``level``, ``chunk_size``, ``executor``, ``progress``, ``checkpoint``, ``stop`` of
        :func:`gctheory.montecarlo.importance_sampling`.

    Returns
    -------
    Estimate
        ``P(cond(M) > x)`` with its interval.

    Examples
    --------
    >>> from gctheory.tails import condition_tail_2xn, condition_tail_is
    >>> est = condition_tail_is(2, 10, 1e3, 2000, rng=0)
    >>> est.contains(condition_tail_2xn(10, 1e3)), f"{est.value:.3g}"
    (True, '4.52e-25')
    """
    proposal = GaussianConditionTail(u, v, x, method=method)
    with blas_single_thread():  # stacks of small matrices: extra threads only contend
        return importance_sampling(
            ConditionExceeds(proposal.x), proposal, trials, rng=rng, **engine
        )
