"""Plain (crude) Monte Carlo: the probability of an event and the mean of a sampler."""

from __future__ import annotations

import concurrent.futures as cf
import os
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from gctheory.montecarlo import engine
from gctheory.montecarlo.estimates import (
    DEFAULT_INTERVAL,
    Estimate,
    binomial_estimate,
    check_interval,
    check_level,
)
from gctheory.montecarlo.run import check_max_seconds, drive
from gctheory.montecarlo.sequential import design, sequential_interval
from gctheory.montecarlo.stopping import (
    Stop,
    as_stop,
    check_reachable,
    events_estimate,
    rule_met,
)
from gctheory.montecarlo.summaries import Moments, mean_estimate

__all__ = ["estimate_mean", "estimate_probability", "mean_of_samples"]

#: Up to this many events, a run stopped by ``Stop(events=...)`` gets the exact unbiased
#: estimate and interval of inverse sampling (their cost grows with the count).
EXACT_EVENTS_MAX = 100_000

# The chunk kernels run in worker processes: they are module-level so they pickle.


def _count_chunk(event: Callable, seed: np.random.SeedSequence, size: int) -> int:
    out = np.asarray(event(np.random.default_rng(seed), size))
    if out.shape != (size,):
        raise ValueError(
            f"event(rng, size) must return an array of shape ({size},), got shape {out.shape}"
        )
    if out.dtype != np.bool_:
        raise ValueError(f"event(rng, size) must return a boolean array, got dtype {out.dtype}")
    return int(np.count_nonzero(out))


def _moment_chunk(sampler: Callable, seed: np.random.SeedSequence, size: int) -> Moments:
    out = np.asarray(sampler(np.random.default_rng(seed), size))
    if out.shape != (size,):
        raise ValueError(
            f"sampler(rng, size) must return an array of shape ({size},), got shape {out.shape}"
        )
    if not np.issubdtype(out.dtype, np.floating) and not np.issubdtype(out.dtype, np.integer):
        raise ValueError(f"sampler(rng, size) must return a real array, got dtype {out.dtype}")
    out = out.astype(np.float64, copy=False)
    if not np.all(np.isfinite(out)):
        raise ValueError("sampler(rng, size) returned non-finite values (inf or nan)")
    return Moments.of(out)


def estimate_probability(
    event: Callable[[np.random.Generator, int], np.ndarray],
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: int | cf.Executor | None = None,
    progress: bool | None = None,
    checkpoint: str | os.PathLike | None = None,
    interval: str = DEFAULT_INTERVAL,
    stop: Stop | dict | None = None,
    max_seconds: float | None = None,
) -> Estimate:
    """Estimate ``P(event)`` from at most ``trials`` independent outcomes.

    Parameters
    ----------
    event : callable
        ``event(rng, size)`` returns a boolean array of shape ``(size,)``: the
        outcomes of ``size`` independent trials drawn with ``rng``. Must be
        picklable (module-level function or ``functools.partial`` of one) when
        an executor is used.
    trials : int
        Number of outcomes, > 0; with ``stop``, the budget (t_max).
    rng : None, int, SeedSequence or Generator, keyword-only
        Seed. With the same seed, trials, chunk_size (and stop) the result is
        bit-identical on any executor.
    level : float
        Two-sided confidence level in (0, 1).
    chunk_size : int, optional
        Outcomes per chunk (default ``min(trials, 65536)``). Part of the result's
        identity: a different chunk size draws different numbers.
    executor : None, int or concurrent.futures.Executor
        None runs serially; an int runs on a local process pool of that many
        workers (which exit if this process dies); any Executor (a Dask
        client's ``get_executor()``) is used as is.
    progress : bool or None
        Progress bar on stderr; None shows it only on a terminal.
    checkpoint : path, optional
        File where finished chunks are appended; a rerun with the same
        parameters resumes from it, one with different parameters (or an
        edited event function) is refused, and an edited or corrupted file is
        refused with the line and field named. Its folder must exist.
    interval : {"clopper-pearson", "wilson", "jeffreys"}
        Binomial interval. The default, Clopper-Pearson, covers at least
        ``level`` for every trial count and probability; Wilson and Jeffreys
        are shorter but cover less than stated at small expected counts (Wilson:
        91.0% at a stated 95% for p = 0.001 and 500 trials; the exact table is in
        :func:`gctheory.montecarlo.coverage.coverage_table`).
    stop : Stop or dict, optional
        End the run early at the first chunk boundary where the interval's
        relative half-width is ``<= rel_half_width`` or ``events`` successes
        were seen (see :class:`Stop`). ``Estimate.stopped_by`` names the rule.
        With ``events`` alone (up to :data:`EXACT_EVENTS_MAX`), stopping at a
        count biases ``count / n`` upwards (1.25 p on average for 5 events,
        one outcome per chunk): the value is then the exactly unbiased
        estimate of inverse sampling, ``(e - 1)/(n - 1)`` with one outcome per
        chunk, and the interval the exact one for the stopping rule
        (``method="sequential"``; see
        :func:`gctheory.montecarlo.stopping.events_estimate`). With
        ``rel_half_width`` (alone or with ``events``), the value is
        ``count / n`` and the interval the exact one for that rule
        (``method="sequential"``, :mod:`gctheory.montecarlo.sequential`): the
        plain interval covered 86.1% at a stated 90% (exactly, over every way
        the run can end: p = 0.05, r = 0.6, chunks of 10), the sequential one
        91.4%.
    max_seconds : float, optional
        End the run at the first chunk boundary after this many seconds (as
        :func:`gctheory.sweeps.collect` does): the result has
        ``stopped_by="max_seconds"``, ``target_met=False``, and a
        :class:`~gctheory.montecarlo.PrecisionNotReachedWarning` says so. Such a
        run's length depends on the machine's speed, so it is not reproducible
        from its seed alone. A stop rule that no count within ``trials`` can
        meet is refused at once; one that depends on the unknown probability
        (``rel_half_width``) is bounded by ``trials`` and ``max_seconds``.

    Returns
    -------
    Estimate
        Proportion with its interval; ``successes`` holds the exact count.

    Examples
    --------
    >>> from gctheory.montecarlo import estimate_probability
    >>> est = estimate_probability(lambda rng, size: rng.random(size) < 0.3, 1000, rng=0)
    >>> est.contains(0.3), est.method, est.trials
    (True, 'clopper-pearson', 1000)
    """
    engine.check_callable(event, "event", "event(rng, size)")
    level = check_level(level)
    interval = check_interval(interval)
    trials = engine.check_trials(trials)
    stop = as_stop(stop)
    check_reachable(stop, trials, kind="probability", level=level, interval=interval)
    max_seconds = check_max_seconds(max_seconds)

    def finish(count: int, n: int, warn: bool) -> Estimate:
        return binomial_estimate(count, n, level=level, interval=interval)

    est = drive(
        kind="probability",
        task=partial(_count_chunk, event),
        funcs=[("event", event)],
        trials=trials,
        rng=rng,
        chunk_size=chunk_size,
        executor=executor,
        progress=progress,
        checkpoint=checkpoint,
        stop=stop,
        finish=finish,
        events=lambda count: count,
        max_seconds=max_seconds,
    )
    if stop is None:
        return est
    count = est.successes
    assert count is not None, "finish made a binomial estimate, which holds its count"
    size = engine.check_chunk_size(chunk_size, trials)
    if stop.rel_half_width is not None:
        return _rel_stopped(est, count, stop, size, level, interval)
    events = stop.events
    assert events is not None, "a Stop holds at least one rule"
    if events > EXACT_EVENTS_MAX:
        return est  # relative bias <= 1/events, far inside the interval
    last = est.trials - (est.trials - 1) // size * size
    value, low, high = events_estimate(count, est.trials, last, events, level)
    return replace(est, value=value, low=low, high=high, method="sequential")


def _rel_stopped(
    est: Estimate, count: int, stop: Stop, size: int, level: float, interval: str
) -> Estimate:
    """The exact interval of a run under ``Stop(rel_half_width=...)`` (and ``events``)."""

    def met(k: int, n: int) -> bool:
        plain = binomial_estimate(k, n, level=level, interval=interval)
        return rule_met(stop, plain, k) is not None

    plan = design(met, size, est.trials)
    if plan is None:
        return est  # boundaries > SEQUENTIAL_MAX_BOUNDARY: the effect is negligible
    low, high = sequential_interval(count, est.trials, *plan, level, (est.low, est.high))
    return replace(est, low=min(low, est.value), high=max(high, est.value), method="sequential")


def estimate_mean(
    sampler: Callable[[np.random.Generator, int], np.ndarray],
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: int | cf.Executor | None = None,
    progress: bool | None = None,
    checkpoint: str | os.PathLike | None = None,
    stop: Stop | dict | None = None,
    max_seconds: float | None = None,
) -> Estimate:
    """Estimate ``E[X]`` from at most ``trials`` independent draws, with Hall's interval.

    ``sampler(rng, size)`` returns a real array of shape ``(size,)`` of finite
    values. The interval is Hall's skewness-corrected t interval
    (:func:`gctheory.montecarlo.summaries.hall_interval`, ``method="hall"``):
    the plain ``mean +- z sd / sqrt(trials)`` covers about 90.5% at a stated 95%
    for exponential draws at 30 trials, Hall's 94.8%, as a bootstrap-t does
    and better than scipy's BCa (the study,
    :func:`gctheory.coverage_study.compare_mean_intervals`, is in docs/coverage.md). Mean,
    standard deviation, skewness and kurtosis are computed stably (per-chunk
    central sums, merged by Chan's and Pebay's formulas: samples around 1e8
    with unit spread keep their spread). An
    :class:`~gctheory.montecarlo.UnreliableEstimateWarning` says when the
    sample cannot support ``level``: fewer than 20 draws; an excess kurtosis
    of at least ``sqrt(n)`` (the interval's error is of order kurtosis / n); or
    a heavy tail, from the one-sided 99% lower confidence limit of Hill's tail
    index (from 200 draws over the largest 5%, at or below 1: the mean may be
    infinite; from 2,000 draws over the 100 largest, at or below 2: the
    variance may be), and below 200 draws from an exact test of the largest
    half's spacings against an exponential tail (at 1%,
    :func:`~gctheory.montecarlo.tail_checks.spacings_tail_test`). The estimate's
    ``diagnostics`` give the index, its lower limit and the largest draw's
    share of the squared deviations.
    Other parameters as in :func:`estimate_probability` (``stop`` takes
    ``rel_half_width`` only). Requires ``trials >= 2``.

    Parameters
    ----------
    sampler : callable
        ``sampler(rng, size)`` returns ``size`` finite real draws; picklable when
        ``executor`` is given.
    trials : int
        The trial budget, ``>= 1``.
    rng : None, int, SeedSequence or Generator
        Seed; the result depends only on it and ``chunk_size``.
    level : float
        Confidence level of the interval.
    chunk_size : int, optional
        Draws per chunk (default: the engine's choice).
    executor : int or concurrent.futures.Executor, optional
        Worker processes (an int) or an executor for the chunks.
    progress : bool, optional
        Show a progress line (default: only on a terminal).
    checkpoint : path-like, optional
        File where finished chunks are saved, so an interrupted run resumes.
    stop : Stop or dict, optional
        Early-stopping rule (``rel_half_width``).
    max_seconds : float, optional
        End the run at the first chunk boundary past this many seconds (the bound on a
        run whose budget is beyond reach: no rule on a mean can be judged unreachable
        before the draws).

    Returns
    -------
    Estimate
        The sample mean with Hall's interval and :class:`Diagnostics`.

    Examples
    --------
    >>> from gctheory.montecarlo import estimate_mean
    >>> est = estimate_mean(lambda rng, size: rng.exponential(2.0, size), 4000, rng=0)
    >>> est.contains(2.0), round(est.value, 2), est.method
    (True, 2.0, 'hall')
    """
    engine.check_callable(sampler, "sampler", "sampler(rng, size)")
    level = check_level(level)
    trials = engine.check_trials(trials)
    if trials < 2:
        raise ValueError(f"trials must be >= 2 for a mean's interval, got {trials}")
    stop = as_stop(stop)
    check_reachable(stop, trials, kind="mean", level=level)
    max_seconds = check_max_seconds(max_seconds)

    def finish(m: Moments, n: int, warn: bool) -> Estimate:
        return mean_estimate(m, level, warn=warn)

    return drive(
        kind="mean",
        task=partial(_moment_chunk, sampler),
        funcs=[("sampler", sampler)],
        trials=trials,
        rng=rng,
        chunk_size=chunk_size,
        executor=executor,
        progress=progress,
        checkpoint=checkpoint,
        stop=stop,
        finish=finish,
        events=lambda m: None,
        max_seconds=max_seconds,
    )


def mean_of_samples(x: Any, *, level: float = 0.99, warn: bool = True) -> Estimate:
    """The mean of measured values ``x`` (a 1-d array of >= 2 finite reals) with the
    interval and warnings of :func:`estimate_mean` (Hall's interval; too few draws, a
    large kurtosis or a heavy tail warn). For means of measurements (a real run's
    iteration times) rather than of a sampler.

    Parameters
    ----------
    x : array_like
        At least 2 finite measured values.
    level : float
        Confidence level of the interval.
    warn : bool
        Warn (:class:`~gctheory.montecarlo.UnreliableEstimateWarning`) when the sample
        cannot support ``level``.

    Returns
    -------
    Estimate
        The sample mean with Hall's interval (``method="hall"``).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.montecarlo import mean_of_samples
    >>> x = np.random.default_rng(0).exponential(1.0, 400)
    >>> est = mean_of_samples(x, level=0.95)
    >>> est.method, est.value < est.high, est.low < est.value
    ('hall', True, True)
    """
    level = check_level(level)
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"x must be a 1-d array of at least 2 values, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("x must hold finite values (no inf or nan)")
    return mean_estimate(Moments.of(arr), level, warn=warn)
