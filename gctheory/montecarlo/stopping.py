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

from gctheory._validate import check_int, check_real
from gctheory.montecarlo.estimates import Estimate, min_rel_half_width

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

    The trial budget is the ``trials`` argument of the estimator (t_max); it
    always applies. A run that spends it before a requested target says so:
    ``Estimate.target_met`` is False and a
    :class:`~gctheory.montecarlo.PrecisionNotReachedWarning` is issued.
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
        best = min_rel_half_width(trials, level, interval or "wilson")
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
