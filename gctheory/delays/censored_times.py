"""A scheme's expected time from a run trace, whose cancelled stragglers are censored.

``gctheory run`` waits for the fastest workers of each iteration and cancels the rest:
a cancelled worker's time is known only to exceed the moment the iteration ended (its
trace row has status ``never``; :mod:`gctheory.delays.censored`). Reading those times as
complete makes every waited-for order statistic look faster than it is. The two
measured estimators of :func:`gctheory.delays.scheme_times` therefore read a run trace
as right-censored data:

``empirical``
    the workers i.i.d. from the **Kaplan-Meier** (product-limit) estimate of the
    per-worker time at that load: its atoms are the completed times, with the
    estimate's jumps as masses, and the grouped order statistic's mean is exact for
    that law (:func:`km_grouped_means`). The estimate stops at the last completed
    time; past it the law is not identified. A layout whose waited-for time lies
    beyond it with probability above :data:`KM_TAIL` gets no value (NaN, named in the
    notes); below it the rest of the mass is put at the last completed time, so the
    estimate can only err low, by at most that probability times the mean excess;
``rounds``
    each round's waited-for time where the round **measured** it: with every censored
    time at its lower bound and again at infinity, the round's order statistic is the
    same, so the true one (in between) is that value (:func:`censored_round_values`). A
    layout with any round where it was not measured gets no value.

The bootstrap over rounds recomputes both on resampled rounds, as for complete traces.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory.delays.censored_sample import OBSERVED, is_run_trace, product_limit
from gctheory.delays.orderstats import _H

__all__ = ["KM_TAIL", "censored_round_values", "censoring_flags", "km_grouped_means"]

#: largest probability that a layout's waited-for time lies beyond the last completed
#: time of the Kaplan-Meier estimate, for its mean to be reported
KM_TAIL = 0.01


def censoring_flags(trace: Any) -> Any:
    """A twin of ``trace`` whose ``time`` is 1.0 where the row is right-censored (a run
    trace's row that did not complete: status not one of ``used``, ``unused``,
    ``late``) and 0.0 elsewhere, so ``.times(load)`` and ``.rounds(load)`` give the flags
    in the order of the times; None when no row is censored (every time complete)."""
    if not is_run_trace(trace):
        return None
    status = np.asarray(trace.columns["status"]).astype(str)
    flags = ~np.isin(status, OBSERVED)
    if not flags.any():
        return None
    return dataclasses.replace(trace, time=flags.astype(float))


def km_grouped_means(
    times: np.ndarray, censored: np.ndarray, layouts: Sequence[tuple[int, int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """``(means, beyond)`` per layout ``(groups, group_size, wait)``: the mean of
    ``max_g X^{(g)}_(wait:group_size)`` for i.i.d. draws from the Kaplan-Meier estimate
    of ``times`` (``censored`` flags the right-censored ones), and the probability
    ``beyond`` that it lies past the last completed time. ``means`` is NaN where
    ``beyond > KM_TAIL`` (module docstring)."""
    t, S = product_limit(np.asarray(times, float), np.asarray(censored, bool))
    u = np.concatenate([[0.0], 1.0 - S])  # the estimate's CDF at and below each atom
    means = np.empty(len(layouts))
    beyond = np.empty(len(layouts))
    for j, (g, r, w) in enumerate(layouts):
        H = _H(u, g, r, w)
        beyond[j] = 1.0 - H[-1]
        means[j] = t @ np.diff(H) + beyond[j] * (t[-1] if t.size else 0.0)
    means[beyond > KM_TAIL] = np.nan
    return means, beyond


def _grouped(M: np.ndarray, lays: Sequence[tuple[int, int, int]]) -> np.ndarray:
    """Per-round grouped order statistics, shape (rounds, layouts)."""
    R = M.shape[0]
    out = np.empty((R, len(lays)))
    sorted_rows = np.sort(M, axis=1)
    for j, (g, r, w) in enumerate(lays):
        if g == 1:
            out[:, j] = sorted_rows[:, w - 1]
        else:
            out[:, j] = np.sort(M.reshape(R, g, r), axis=2)[:, :, w - 1].max(axis=1)
    return out


def censored_round_values(
    M: np.ndarray, C: np.ndarray | None, lays: Sequence[tuple[int, int, int]]
) -> np.ndarray:
    """Each round's grouped order statistic, shape (rounds, layouts); with the censoring
    flags ``C`` (same shape as ``M``), a layout is NaN in every round when some round did
    not measure it (module docstring)."""
    low = _grouped(M, lays)
    if C is None or not C.any():
        return low
    high = _grouped(np.where(C, np.inf, M), lays)
    measured = np.all(low == high, axis=0)
    return np.where(measured, low, np.nan)
