"""The growth exponent of the decoding error with the number of workers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gctheory._validate import check_array

__all__ = ["GrowthFit", "growth_exponent"]


@dataclass(frozen=True)
class GrowthFit:
    """``kappa(n) ~ c n^p``: least-squares slope of log kappa on log n, with its interval.

    Parameters
    ----------
    exponent : float
        Fitted slope ``p``.
    low, high : float
        Its t-interval.
    level : float
        Confidence level.
    points : int
        Points fitted.

    Examples
    --------
    >>> from gctheory.codes import GrowthFit, growth_exponent
    >>> fit = growth_exponent([10, 20, 40, 80], [1.0, 4.1, 15.9, 64.5])
    >>> round(fit.exponent, 3), bool(fit.contains(2.0))
    (1.999, True)
    """

    exponent: float
    low: float
    high: float
    level: float
    points: int

    def contains(self, p: float) -> bool:
        return self.low <= p <= self.high


def growth_exponent(ns: Sequence[float], values: Sequence[float], level: float = 0.95) -> GrowthFit:
    """Fitted polynomial growth exponent of ``values`` in ``ns``, with a t-interval at ``level``.

    Ordinary least squares of ``log(values)`` on ``log(ns)``; the interval is
    ``slope +- t_{(1+level)/2, k-2} se`` (Student t with k - 2 degrees of
    freedom, k points). Needs at least 3 positive finite points.

    Parameters
    ----------
    ns : sequence of float
        Sizes.
    values : sequence of float
        Positive values at those sizes (at least 3 points).
    level : float
        Confidence level of the t-interval.

    Returns
    -------
    GrowthFit
        The slope of ``log(values)`` on ``log(ns)`` with its interval.

    Examples
    --------
    >>> from gctheory.codes import growth_exponent
    >>> fit = growth_exponent([10, 20, 40, 80], [1.0, 4.1, 15.9, 64.5])
    >>> round(fit.exponent, 3), round(float(fit.low), 3), round(float(fit.high), 3)
    (1.999, 1.953, 2.044)
    """
    from scipy import stats

    from gctheory._validate import check_probability

    level = check_probability(level, "level", open_low=True, open_high=True)
    xs = check_array(ns, "ns", ndim=1, finite=False, min_size=0)
    ys = check_array(values, "values", ndim=1, finite=False, min_size=0)
    if xs.shape != ys.shape or len(xs) < 3:
        raise ValueError(
            f"ns and values must be two sequences of >= 3 numbers of one length, got "
            f"{len(xs)} and {len(ys)}"
        )
    if not (np.all(np.isfinite(xs) & (xs > 0)) and np.all(np.isfinite(ys) & (ys > 0))):
        raise ValueError("ns and values must be positive and finite")
    x, y = np.log(xs), np.log(ys)
    if np.all(x == x[0]):
        raise ValueError("ns must hold at least two different sizes to fit an exponent")
    res = stats.linregress(x, y)
    half = stats.t.ppf((1 + level) / 2, len(x) - 2) * res.stderr
    return GrowthFit(float(res.slope), res.slope - half, res.slope + half, level, len(x))
