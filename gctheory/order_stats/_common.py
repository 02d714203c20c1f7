"""Shared pieces of :mod:`gctheory.order_stats`: result types, warnings, argument checks.

The result types (:class:`OrderStatMoments`, :class:`Approximation`) and the
warnings are public through :mod:`gctheory.order_stats`; the checks (``k`` of
``n``, a frozen continuous ``scipy.stats`` law and its family) are private and
shared by every submodule and by :mod:`gctheory.runtime`. Nothing here imports
another submodule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from gctheory._validate import check_int, check_law_parameters, check_real

__all__ = [
    "InfiniteMomentWarning",
    "UnreliableMonteCarloWarning",
    "OrderStatMoments",
    "Approximation",
    "MAX_WORKERS",
]


class InfiniteMomentWarning(UserWarning):
    """The requested mean (or variance) is infinite; the value returned is ``inf``.

    Examples
    --------
    >>> from gctheory.order_stats import InfiniteMomentWarning
    >>> import warnings
    >>> from scipy import stats
    >>> from gctheory.order_stats import expected_order_statistic
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     m = expected_order_statistic(stats.pareto(0.5), 1, 1)  # Pareto, shape 1/2
    >>> m, caught[0].category.__name__
    (inf, 'InfiniteMomentWarning')
    """


class UnreliableMonteCarloWarning(UserWarning):
    """The sampled quantity has infinite variance: the CLT interval means nothing.

    Examples
    --------
    >>> from gctheory.order_stats import UnreliableMonteCarloWarning
    >>> import warnings
    >>> from scipy import stats
    >>> from gctheory.order_stats import order_statistic_mc
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     est = order_statistic_mc(stats.pareto(1.5), 1, 1, 100, rng=0)  # infinite variance
    >>> caught[0].category.__name__
    'UnreliableMonteCarloWarning'
    """


@dataclass(frozen=True)
class OrderStatMoments:
    """Mean and variance of an order statistic (or grouped completion time).

    Attributes
    ----------
    mean, variance : float
        ``inf`` where the moment does not exist.
    method : str
        ``"closed-exponential"``, ``"closed-pareto"`` or ``"quad"``.
    reason : str or None
        Why ``mean`` or ``variance`` is infinite (None when both are finite).

    Examples
    --------
    >>> from gctheory.order_stats import OrderStatMoments
    >>> from scipy import stats
    >>> from gctheory.order_stats import order_statistic_moments
    >>> m = order_statistic_moments(stats.expon(scale=1.0), 2, 3)
    >>> round(m.mean, 6), round(m.variance, 6), m.method
    (0.833333, 0.361111, 'closed-exponential')
    >>> round(m.std, 6)
    0.600925
    """

    mean: float
    variance: float
    method: str
    reason: str | None = None

    @property
    def std(self) -> float:
        """Standard deviation (``inf`` if the variance is infinite)."""
        return math.sqrt(self.variance)


@dataclass(frozen=True)
class Approximation:
    """An asymptotic approximation held against the exact value.

    Parameters
    ----------
    approx : float
        The approximation's value.
    exact : float
        The exact value it is held against.

    Examples
    --------
    >>> from gctheory.order_stats import Approximation
    >>> a = Approximation(approx=1.1, exact=1.0)
    >>> round(a.abs_error, 6), round(a.rel_error, 6)
    (0.1, 0.1)
    """

    approx: float
    exact: float

    @property
    def abs_error(self) -> float:
        """``approx - exact``."""
        return self.approx - self.exact

    @property
    def rel_error(self) -> float:
        """``(approx - exact) / exact``."""
        return (self.approx - self.exact) / self.exact


# beyond this many workers the mpmath reference digits (about 3 log10 n) make a call slow,
# and no cluster has them
MAX_WORKERS = 10**24


def _check_kn(k: Any, n: Any, kname: str = "k", nname: str = "n") -> tuple[int, int]:
    n = check_int(n, nname, low=1, high=MAX_WORKERS)
    k = check_int(k, kname, low=1, high=n)
    return k, n


def _check_not_unfrozen_or_dict(dist: Any, name: str = "dist") -> None:
    """Refuse by name the two near misses: a dict of laws, a law's unfrozen generator."""
    if isinstance(dist, Mapping):
        raise ValueError(
            f"{name}: a dict is neither a law nor a sequence of laws; pass one frozen law, "
            "a list of frozen laws (one per worker) or a list of (law, count) pairs, such as "
            "list(d.items()) for a dict mapping laws to counts"
        )
    if isinstance(dist, (stats.rv_continuous, stats.rv_discrete)):
        kind = "discrete" if isinstance(dist, stats.rv_discrete) else "continuous"
        law = getattr(dist, "name", type(dist).__name__)
        raise ValueError(
            f"{name}: got the unfrozen {kind} distribution scipy.stats.{law}; freeze it with "
            f"its parameters, e.g. stats.{law}(...)"
            + (" (and a discrete law has no density here)" if kind == "discrete" else "")
        )


def _check_dist(dist: Any) -> None:
    _check_not_unfrozen_or_dict(dist)
    inner = getattr(dist, "dist", None)
    if isinstance(inner, stats.rv_discrete):
        raise ValueError(
            f"dist must be a continuous distribution with a density, got the discrete "
            f"{inner.name!r}"
        )
    if not isinstance(inner, stats.rv_continuous):
        raise ValueError(
            f"dist must be a frozen scipy.stats continuous distribution "
            f"(e.g. stats.expon(scale=2)), got {dist!r}"
        )
    _, loc, scale = _params(dist)
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"dist scale must be positive and finite, got {scale!r}")
    if not np.isfinite(loc):
        raise ValueError(f"dist loc must be finite, got {loc!r}")
    # NaN shapes were named 'Pareto shape xi', not dist; the domain has its own messages
    check_law_parameters(dist, domain=False)


def _params(dist: Any) -> tuple[tuple[float, ...], float, float]:
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    return tuple(float(s) for s in shapes), float(loc), float(scale)


def _family(dist: Any) -> tuple[str, dict[str, float]]:
    """Name a family with a closed form: ``("exponential", {delta, mu})``,
    ``("pareto", {loc, t0, xi})`` or ``("other", {})``."""
    name = dist.dist.name
    shapes, loc, scale = _params(dist)
    if name == "expon":
        return "exponential", {"delta": loc, "mu": scale}
    if name == "pareto":
        xi = shapes[0]
        if not xi > 0:
            raise ValueError(f"Pareto shape xi must be > 0, got {xi!r}")
        return "pareto", {"loc": loc, "t0": scale, "xi": xi}
    return "other", {}


def _check_alpha(alpha: float) -> float:
    return check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)


def _check_pos(name: str, v: float) -> float:
    return check_real(v, name, low=0.0, low_open=True)


def _check_shift(name: str, v: float) -> float:
    return check_real(v, f"{name} (the minimum time, a shift)", low=0.0)


def _exp_checked(log_value: float, name: str, detail: str) -> float:
    """``exp(log_value)``, refused (naming ``name``) where it exceeds the float range."""
    if log_value > 709.78:
        raise ValueError(
            f"{name}: the result exp({log_value:.6g}) exceeds the float64 range ({detail})"
        )
    return math.exp(log_value)
