"""Adaptive stopping: end a run when its answer is good enough, still bit-reproducibly.

A run with ``stop=Stop(...)`` draws chunks in index order (chunk ``i`` always
from the ``i``-th child seed) and, after merging each chunk in that order,
checks its rules in a fixed order:

1. ``rel_half_width``: the interval's half-width divided by the estimate is
   ``<= r`` (never met while the estimate is 0, or on fewer than 2 events);
2. ``events``: at least ``e`` outcomes fell in the event (probabilities and
   importance sampling: the count of successes / hits);
3. ``trials``: the trial budget (the ``trials`` argument, t_max) is spent.

The first rule met ends the run at that chunk, so the result depends only on
``(seed, trials, chunk_size, stop)``: the same serially, on a process pool,
on Dask, or resumed from a checkpoint (chunks an executor computed beyond the
stopping chunk are discarded). This follows the ``max_errors`` / ``max_shots``
stopping of the ``sinter`` sampler of the quantum error-correction community.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from gctheory._validate import check_int, check_real
from gctheory.montecarlo.estimates import DEFAULT_INTERVAL, Estimate, min_rel_half_width

__all__ = ["Stop"]


@dataclass(frozen=True)
class Stop:
    """Rules that end a Monte Carlo run early, checked at chunk boundaries in a fixed order.

    Parameters
    ----------
    rel_half_width : float, optional
        Stop once ``half_width / value <= rel_half_width`` (> 0).
    events : int, optional
        Stop once this many outcomes fell in the event (>= 1; probabilities
        and importance sampling only).

    Notes
    -----
    The trial budget is the ``trials`` argument of the estimator (t_max); it
    always applies. A run that spends it before a requested target says so:
    ``Estimate.target_met`` is False and a
    :class:`~gctheory.montecarlo.PrecisionNotReachedWarning` is issued.

    Examples
    --------
    >>> from gctheory.montecarlo import Stop
    >>> from gctheory.montecarlo import estimate_probability
    >>> est = estimate_probability(lambda rng, size: rng.random(size) < 0.2, 10**5, rng=0,
    ...                            stop=Stop(events=50))
    >>> est.stopped_by, est.target_met, est.trials < 10**5
    ('events', True, True)
    """

    rel_half_width: float | None = None
    events: int | None = None

    def __post_init__(self) -> None:
        if self.rel_half_width is not None:
            r = check_real(self.rel_half_width, "stop rule rel_half_width", low=0.0, low_open=True)
            object.__setattr__(self, "rel_half_width", r)
        if self.events is not None:
            e = check_int(self.events, "stop rule events", low=1)
            object.__setattr__(self, "events", e)
        if self.rel_half_width is None and self.events is None:
            raise ValueError(
                "stop needs at least one rule: rel_half_width=r (> 0) or events=e (>= 1); "
                "without stop= the run uses its whole trial budget"
            )

    def describe(self) -> str:
        parts = []
        if self.rel_half_width is not None:
            parts.append(f"relative half-width <= {self.rel_half_width:g}")
        if self.events is not None:
            parts.append(f"events >= {self.events}")
        return " or ".join(parts)


def as_stop(stop: Any) -> Stop | None:
    """``stop`` as a :class:`Stop` (a mapping of its fields is accepted), or None."""
    if stop is None or isinstance(stop, Stop):
        return stop
    if isinstance(stop, Mapping):
        unknown = set(stop) - {"rel_half_width", "events"}
        if unknown:
            raise ValueError(
                f"stop has unknown rules {sorted(unknown)}; valid rules: rel_half_width, events "
                "(the trial budget is the trials argument)"
            )
        return Stop(**stop)
    raise ValueError(
        "stop must be None, a Stop(rel_half_width=..., events=...) or a mapping of those, "
        f"got {type(stop).__name__}"
    )


def check_reachable(
    stop: Stop | None,
    trials: int,
    *,
    kind: str,
    level: float,
    interval: str | None = None,
) -> None:
    """Refuse a rule that can never trigger within the budget of ``trials`` outcomes."""
    if stop is None:
        return
    if stop.events is not None:
        if kind == "mean":
            raise ValueError(
                "stop rule events counts outcomes in an event: it applies to "
                "estimate_probability and importance_sampling, not to a mean"
            )
        if stop.events > trials:
            raise ValueError(
                f"stop rule events={stop.events} can never trigger: the budget is "
                f"trials={trials} outcomes"
            )
    if stop.rel_half_width is not None and kind == "probability":
        best = min_rel_half_width(trials, level, interval or DEFAULT_INTERVAL)
        if best > stop.rel_half_width:
            raise ValueError(
                f"stop rule rel_half_width={stop.rel_half_width:g} can never trigger: with "
                f"trials={trials} the smallest relative half-width any count gives at level "
                f"{level:g} is {best:.4g}"
            )


def rule_met(stop: Stop, est: Estimate, events: int | None) -> str | None:
    """The first rule of ``stop`` that ``est`` meets, in the fixed order, or None."""
    if stop.rel_half_width is not None and est.value != 0 and (events is None or events >= 2):
        if math.isfinite(est.half_width) and est.half_width <= stop.rel_half_width * abs(est.value):
            return "rel_half_width"
    if stop.events is not None and events is not None and events >= stop.events:
        return "events"
    return None


# ---------------------------------------------------------------------------
# the estimate of a run stopped by its count of events (inverse binomial sampling)


def _log_binom_pmf(s: np.ndarray, n: int, p: float) -> np.ndarray:
    out = special.gammaln(n + 1) - special.gammaln(s + 1) - special.gammaln(n - s + 1)
    return out + special.xlogy(s, p) + special.xlog1py(n - s, -p)


def _below(e: int, last: int, m: int, kstar: int, p: float) -> float:
    """``P_p(S_m < e, S_(m+last) <= kstar)`` for Bernoulli(p) partial sums ``S``."""
    s = np.arange(0, min(e - 1, m) + 1, dtype=float)
    k = kstar - s
    rest = special.bdtr(np.clip(k, 0, max(last - 1, 0)), last, p)  # P(Bin(last) <= k)
    rest = np.where(k < 0, 0.0, np.where(k >= last, 1.0, rest))
    return float(np.sum(np.exp(_log_binom_pmf(s, m, p)) * rest)) if m else float(rest[0])


def _root(f, target: float) -> float:
    """The p in (0, 1) where the decreasing f(p) crosses target (bisection in log p)."""
    lo, hi = -745.0, 0.0  # log p
    if f(math.exp(hi)) >= target:
        return 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(math.exp(mid)) >= target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13:
            break
    return math.exp(0.5 * (lo + hi))


def _log_hypergeom_cdf(k: int, n: int, good: int, draws: int) -> float:
    """log P(X <= k), X hypergeometric: ``draws`` of ``n`` items of which ``good`` are good."""
    s = np.arange(max(0, draws - (n - good)), min(k, good, draws) + 1, dtype=float)
    if s.size == 0:
        return -math.inf
    g = special.gammaln
    terms = (
        g(good + 1) - g(s + 1) - g(good - s + 1)
        + g(n - good + 1) - g(draws - s + 1) - g(n - good - draws + s + 1)
        - (g(n + 1) - g(draws + 1) - g(n - draws + 1))
    )  # fmt: skip
    top = float(np.max(terms))
    return top + math.log(float(np.sum(np.exp(terms - top))))


def events_estimate(count: int, n: int, last: int, events: int, level: float) -> tuple:
    """Unbiased value and exact interval of a run stopped by ``Stop(events=e)``.

    The run stops at the first chunk boundary where the count reaches ``e``
    (or at its budget). Its last chunk has ``last`` outcomes, so before it,
    ``m = n - last`` outcomes held fewer than ``e`` events -- which, the counts
    being non-decreasing, is the whole stopping constraint. The value is the
    Rao-Blackwell estimate ``P(first outcome is an event | n, count,
    S_m < e) = (count/n) H(e-2; n-1, count-1, m-1) / H(e-1; n, count, m)``
    (``H`` hypergeometric CDFs), exactly unbiased; with one outcome per chunk
    it is the classical ``(e - 1)/(n - 1)`` of inverse binomial sampling
    (Haldane 1945), and with one chunk the plain ``count/n``. The interval
    is exact (coverage >= level) in the stagewise ordering of group sequential
    designs (Jennison and Turnbull 2000, ch. 8): with
    ``F(p; k) = P_p(S_m < e, S_n <= k)``, the limits solve
    ``F(low; count - 1) = 1 - alpha/2`` and ``F(high; count) = alpha/2``;
    with one chunk they are Clopper-Pearson's.
    """
    alpha = 1.0 - level
    m = n - last
    low = (
        0.0 if count == 0 else _root(lambda p: _below(events, last, m, count - 1, p), 1 - alpha / 2)
    )
    high = _root(lambda p: _below(events, last, m, count, p), alpha / 2)
    if m == 0 or count < events:
        value = count / n
    elif events < 2:
        value = 0.0  # no event may precede the last chunk's: P(first is one | ...) = 0
    else:
        log_ratio = _log_hypergeom_cdf(events - 2, n - 1, count - 1, m - 1) - _log_hypergeom_cdf(
            events - 1, n, count, m
        )
        value = count / n * math.exp(log_ratio)
    return value, min(low, value), max(high, value)
