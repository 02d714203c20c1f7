"""The timing model of partial stragglers: checks, ``F(tau k / a)``, the exact cover
probability of cyclic repetition, and the expected time by quadrature.

Private to :mod:`gctheory.codes.partial` (which describes the model and re-exports
every name).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gctheory._validate import check_int, check_law_parameters, check_real

__all__ = ["PARTIAL_RULES", "scipy_sampler"]


#: rules for the time of exact recovery (see the module text)
PARTIAL_RULES = ("partial", "whole", "n-s")


# ----------------------------------------------------------------------------- helpers
def _check_tau(tau: Any) -> float:
    return check_real(tau, "tau (the deadline)", low=0.0)


def _check_dist(dist: Any) -> Any:
    if not (hasattr(dist, "cdf") and hasattr(dist, "rvs")):
        raise ValueError(
            "dist must be a frozen scipy.stats distribution of the time per unit of data "
            f"(with cdf and rvs), got {type(dist).__name__}"
        )
    check_law_parameters(dist)  # a NaN parameter sampled NaN times
    lo = dist.support()[0] if hasattr(dist, "support") else 0.0
    if lo < 0:
        raise ValueError(f"dist must give non-negative times (its support starts at {lo:g} < 0)")
    return dist


def _cdf_at(dist: Any, tau: float, k: int, a: np.ndarray) -> np.ndarray:
    """``F(tau k / a)`` for piece counts ``a >= 1`` (P(a pieces done by tau))."""
    a = np.asarray(a, dtype=float)
    if tau == 0:
        return np.asarray(dist.cdf(0.0) * np.ones_like(a))
    return np.asarray(dist.cdf(tau * k / a), dtype=float)


def _check_progress(m: Any, lengths: np.ndarray) -> np.ndarray:
    M = np.asarray(m)
    if M.ndim not in (1, 2) or M.shape[-1] != lengths.size:
        raise ValueError(
            f"progress must have shape (n,) or (trials, n) with n = {lengths.size}, got {M.shape}"
        )
    if not np.issubdtype(M.dtype, np.integer):
        if not np.all(np.isfinite(M)) or np.any(M != np.round(M)):
            raise ValueError("progress must hold whole numbers of finished pieces")
        M = M.astype(np.int64)
    if np.any(M < 0) or np.any(M > lengths):
        raise ValueError("progress must satisfy 0 <= m_i <= L_i (the pieces worker i holds)")
    return M


def _expected_time(cdf_all: Callable[[float], float], scale: float) -> float:
    """``int_0^inf (1 - P(R <= t)) dt`` by adaptive quadrature (``scale``: a typical time)."""
    from scipy import integrate

    hi = scale
    while 1 - cdf_all(hi) > 1e-13 and hi < scale * 2**40:
        hi *= 2
    val, _ = integrate.quad(lambda t: 1 - cdf_all(t), 0, hi, limit=400, epsabs=1e-11 * scale,
                            epsrel=1e-10)  # fmt: skip
    return float(val)


def scipy_sampler(dist: Any, n: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    """A ``sampler(rng, size) -> (size, n)`` of independent times per unit of data from ``dist``.

    Parameters
    ----------
    dist : frozen scipy.stats distribution
        Time per unit of data of one worker.
    n : int
        Workers.

    Returns
    -------
    callable
        ``sampler(rng, size)`` returning a ``(size, n)`` array.

    Examples
    --------
    >>> from gctheory.codes import scipy_sampler
    >>> import numpy as np
    >>> from scipy import stats
    >>> sampler = scipy_sampler(stats.expon(), 4)
    >>> sampler(np.random.default_rng(0), 3).shape
    (3, 4)
    """
    _check_dist(dist)
    n = check_int(n, "n", low=1)

    def sample(rng: np.random.Generator, size: int) -> np.ndarray:
        return np.asarray(dist.rvs(size=(size, n), random_state=rng), dtype=float)

    return sample


def _cyclic_cover_probability(q: np.ndarray) -> float:
    """P(intervals ``[i, i + m_i)`` cover Z_n) for independent ``m_i`` with pmf rows ``q`` (n, c+1).

    Transfer matrix: the carry (partitions ahead already covered) is at most
    ``c - 1``; the carry into worker 0 is the carry out of worker n - 1.
    """
    n, cp1 = q.shape
    c = cp1 - 1
    if c >= n + 1:
        raise ValueError("internal: pieces per worker exceed n")
    total = 0.0
    for c0 in range(max(c, 1)):
        v = np.zeros(max(c, 1))
        v[c0] = 1.0
        for i in range(n):
            w = np.zeros_like(v)
            for carry in np.flatnonzero(v):
                for m in range(cp1):
                    pr = q[i, m]
                    if pr == 0.0:
                        continue
                    reach = max(int(carry), m)
                    if reach == 0:
                        continue  # partition i uncovered
                    w[reach - 1] += v[carry] * pr
            v = w
        total += v[c0]
    return float(total)
