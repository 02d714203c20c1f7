"""Monte Carlo of the partial-work quantities (:func:`estimate_partial`), through
:mod:`gctheory.montecarlo`.

Private to :mod:`gctheory.codes.partial` (import the names from there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gctheory._validate import check_choice
from gctheory.codes.partial._placement import PartialPlacement
from gctheory.codes.partial._timing import _check_tau
from gctheory.codes.partial._two_message import _TwoMessageScheme

__all__ = ["estimate_partial"]


# ----------------------------------------------------------------------------- Monte Carlo
def _fraction_chunk(scheme: Any, tau: float, sampler: Callable, rng: Any, size: int) -> np.ndarray:
    X = np.asarray(sampler(rng, size), dtype=float)
    return scheme.recovered(scheme.progress(X, tau)) / scheme.k


def _exact_chunk(scheme: Any, tau: float, sampler: Callable, rng: Any, size: int) -> np.ndarray:
    X = np.asarray(sampler(rng, size), dtype=float)
    return scheme.recovered(scheme.progress(X, tau)) == scheme.k


def _time_chunk(scheme: Any, rule: str, sampler: Callable, rng: Any, size: int) -> np.ndarray:
    X = np.asarray(sampler(rng, size), dtype=float)
    return np.asarray(scheme.recovery_time(X, rule), dtype=float)


def estimate_partial(
    scheme: PartialPlacement | _TwoMessageScheme,
    sampler: Callable[[np.random.Generator, int], np.ndarray],
    *,
    what: str = "fraction",
    tau: float | None = None,
    rule: str = "partial",
    trials: int = 20_000,
    rng: Any = 0,
    level: float = 0.99,
) -> Any:
    """Monte Carlo (:mod:`gctheory.montecarlo`) of a partial-work quantity, with an interval.

    ``what``: ``"fraction"`` (mean fraction recovered by ``tau``), ``"exact"``
    (P(exact recovery by ``tau``)) or ``"time"`` (mean time of exact recovery
    under ``rule``). ``sampler(rng, size)`` returns (size, n) times per unit
    of data (see :func:`scipy_sampler`; any correlated or trace-driven
    sampler works). Returns a :class:`gctheory.montecarlo.Estimate`.

    Parameters
    ----------
    scheme : PartialPlacement or a two-message scheme
        The placement or scheme.
    sampler : callable
        ``sampler(rng, size)`` returns ``(size, n)`` times per unit of data.
    what : {"fraction", "exact", "time"}
        The quantity estimated.
    tau : float, optional
        The deadline (for ``"fraction"`` and ``"exact"``).
    rule : str
        The recovery rule (for ``"time"``).
    trials : int
        Monte Carlo trials.
    rng : None, int or numpy.random.Generator
        Seed.
    level : float
        Confidence level.

    Returns
    -------
    Estimate
        The estimate with its interval.

    Examples
    --------
    >>> from gctheory.codes import estimate_partial
    >>> from scipy import stats
    >>> from gctheory.codes.partial import PartialPlacement, scipy_sampler
    >>> place = PartialPlacement.cyclic(4, 1)
    >>> est = estimate_partial(place, scipy_sampler(stats.expon(), 4), what="fraction", tau=1.0,
    ...                        trials=2000, rng=0)
    >>> est.contains(place.expected_fraction(1.0, stats.expon()))
    True
    """
    from functools import partial

    from gctheory.montecarlo import estimate_mean, estimate_probability

    check_choice(what, "what", ("fraction", "exact", "time"))
    # a string scheme or a list sampler raised TypeError inside the engine
    if not isinstance(scheme, (PartialPlacement, _TwoMessageScheme)):
        raise ValueError(
            f"scheme must be a PartialPlacement or a two-message scheme, got "
            f"{type(scheme).__name__}"
        )
    if not callable(sampler):
        raise ValueError(
            f"sampler must be callable (rng, size) -> times, got {type(sampler).__name__}"
        )
    if what == "time":
        return estimate_mean(partial(_time_chunk, scheme, rule, sampler), trials, rng=rng,
                             level=level)  # fmt: skip
    if tau is None:
        raise ValueError(f"tau (the deadline) is required for what={what!r}")
    deadline = _check_tau(tau)
    if what == "fraction":
        return estimate_mean(partial(_fraction_chunk, scheme, deadline, sampler), trials, rng=rng,
                             level=level)  # fmt: skip
    return estimate_probability(partial(_exact_chunk, scheme, deadline, sampler), trials,
                                rng=rng, level=level)  # fmt: skip
