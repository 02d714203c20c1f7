"""Stragglers that carry over: iteration time when a late worker is not preempted.

The runtime model of :mod:`gctheory.runtime.schemes` starts every iteration
afresh: when the master has the results it needs, the stragglers drop their
work and start the next iteration with everyone else. That is what
gctheory's master does by default (``preempt=True`` in
:func:`gctheory.cluster.run`). The masters of the papers' public scripts
(Tandon et al. 2017 [1]_, an mpi4py master over MPI) cannot cancel a
computation already running: a late worker finishes its old task, then starts
on the newest parameters it has received. Its lateness carries into the next
iteration, so the master waits longer than the order statistic says.

The model here is that queue, one per worker. Iteration ``t`` starts at the
broadcast time ``b_t`` (``b_0 = 0``). Worker ``i`` is busy until ``f_i``
(``f_i = 0`` at the start). It starts task ``t`` at ``a_i = max(b_t, f_i)``
and finishes at ``a_i + T_i``, where ``T_i = load X_i + tau comm`` is the
scheme's fresh task time (as in :func:`~gctheory.runtime.scheme_expected_time`).
The iteration ends at ``b_{t+1}``: the moment the fastest ``wait`` task-``t``
results of every group are in (the grouped order statistic of
:func:`~gctheory.runtime.scheme_layout`). A worker with ``a_i >= b_{t+1}`` never
starts task ``t``: a newer task has arrived by then, and it supersedes the
one not yet started. It keeps ``f_i``. Every other worker sets
``f_i = a_i + T_i``, even when it finishes after ``b_{t+1}``.

With ``preempt=True`` every worker is free at ``b_{t+1}``, the iterations are
independent, and the mean equals :func:`~gctheory.runtime.scheme_expected_time`.
A scheme that waits for every worker of every group (``wait == group_size``,
the uncoded scheme) has nobody late, so the two models agree exactly. Both
facts are tests of this module. No closed form is known for the carried-over
queue with ``wait < group_size``. :func:`carryover_time_mc` estimates the mean
iteration time of a run of ``iterations`` iterations by Monte Carlo through
:func:`gctheory.montecarlo.estimate_mean`: one draw is one whole run, so the
draws are independent and the interval is Hall's.

References
----------
.. [1] R. Tandon, Q. Lei, A. G. Dimakis, N. Karampatziakis, "Gradient coding:
   avoiding stragglers in distributed learning", ICML 2017 (Section 7: the
   master waits for the fastest ``n - s`` workers; their implementation is
   mpi4py on EC2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import check_int
from gctheory.montecarlo import Estimate, estimate_mean
from gctheory.order_stats._common import _check_dist
from gctheory.order_stats.sampling import _check_mc_args
from gctheory.runtime._common import _nonneg
from gctheory.runtime.schemes import (
    SchemeLayout,
    _scaled,
    scheme_expected_time,
    scheme_layout,
)

__all__ = ["CarryOver", "carryover_run_times", "carryover_time_mc", "carryover_slowdown"]

#: Workers times iterations times runs drawn in one block (about 64 MB of floats).
_MAX_BLOCK = 8_000_000


def _end_of_iteration(finish: np.ndarray, lay: SchemeLayout) -> np.ndarray:
    """``b_{t+1}`` of each run: the slowest group's ``wait``-th fastest finish."""
    runs = finish.shape[0]
    grouped = finish.reshape(runs, lay.groups, lay.group_size)
    kth = np.partition(grouped, lay.wait - 1, axis=2)[:, :, lay.wait - 1]
    return kth.max(axis=1)


def carryover_run_times(
    lay: SchemeLayout,
    dist: Any,
    iterations: int,
    runs: int,
    rng: np.random.Generator,
    *,
    tau: float = 0.0,
    preempt: bool = False,
) -> np.ndarray:
    """Iteration durations of ``runs`` independent runs, shape ``(runs, iterations)``.

    The queue of the module docstring, vectorised over runs: per iteration one
    draw of the ``n`` workers' fresh task times ``load X + tau comm`` (all
    workers draw, also those that skip the task, so a seed gives the same
    draws with and without preemption: the two models are coupled).

    Parameters
    ----------
    lay : SchemeLayout
        The scheme's layout (:func:`~gctheory.runtime.scheme_layout`).
    dist : frozen scipy.stats distribution
        Time for one worker to process the whole dataset.
    iterations : int
        Iterations per run, ``>= 1``.
    runs : int
        Independent runs, ``>= 1``.
    rng : numpy.random.Generator
        Source of the draws.
    tau : float
        Time to communicate a full gradient.
    preempt : bool
        True: stragglers drop their task at ``b_{t+1}`` (every iteration afresh).

    Returns
    -------
    numpy.ndarray
        ``b_{t+1} - b_t`` per run and iteration.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from gctheory.runtime import scheme_layout
    >>> from gctheory.runtime.carryover import carryover_run_times
    >>> lay = scheme_layout("cyclic-mds", 6, s=2)
    >>> d = carryover_run_times(lay, stats.expon(), 4, 3, np.random.default_rng(0))
    >>> d.shape, bool((d > 0).all())
    ((3, 4), True)
    """
    n = lay.groups * lay.group_size
    law = _scaled(dist, lay.load)
    shift = tau * lay.comm
    b = np.zeros(runs)
    free = np.zeros((runs, n))
    out = np.empty((runs, iterations))
    for t in range(iterations):
        task = np.asarray(law.rvs(size=(runs, n), random_state=rng), dtype=float) + shift
        start = np.maximum(b[:, None], free)
        finish = start + task
        b_next = _end_of_iteration(finish, lay)
        if preempt:
            free = np.broadcast_to(b_next[:, None], (runs, n)).copy()
        else:
            started = start < b_next[:, None]
            free = np.where(started, finish, free)
        out[:, t] = b_next - b
        b = b_next
    return out


def _check_run(iterations: Any, n: int) -> int:
    iterations = check_int(iterations, "iterations", low=1)
    if n * iterations > _MAX_BLOCK:
        raise ValueError(
            f"n * iterations must be at most {_MAX_BLOCK:,} (one run's draws held at "
            f"once), got n={n}, iterations={iterations}; use fewer iterations: the "
            "mean settles within a few hundred"
        )
    return iterations


def carryover_time_mc(
    scheme: str,
    dist: Any,
    n: int,
    s: int = 0,
    m: int = 1,
    *,
    iterations: int = 100,
    trials: int = 2000,
    tau: float = 0.0,
    code: tuple[int, int, int] | None = None,
    preempt: bool = False,
    rng: Any = None,
    level: float = 0.99,
) -> Estimate:
    """Mean iteration time of a run of ``iterations`` iterations when stragglers
    carry over (no preemption), by Monte Carlo with Hall's interval.

    One Monte Carlo draw is one run's mean iteration time ``b_T / T`` (the
    module docstring's queue), so the ``trials`` draws are independent. The
    run starts with every worker idle, as a real run does: the estimate is
    the mean a run of that length measures, start-up included.

    Parameters
    ----------
    scheme : {"uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc"}
        The scheme (see :func:`~gctheory.runtime.scheme_layout`).
    dist : frozen scipy.stats distribution
        Time for one worker to process the whole dataset.
    n : int
        Workers.
    s : int
        Stragglers tolerated.
    m : int
        Communication saving.
    iterations : int
        Iterations per run.
    trials : int
        Runs simulated.
    tau : float
        Time to communicate a full gradient.
    code : tuple of int, optional
        ``(N, K, delta)`` for ``commfr-gc``.
    preempt : bool
        True gives the fresh-start model (the twin of
        :func:`~gctheory.runtime.scheme_expected_time`).
    rng : None, int or numpy.random.Generator
        Seed.
    level : float
        Confidence level.

    Returns
    -------
    Estimate
        Mean iteration time with its interval.

    Raises
    ------
    ValueError
        Bad scheme parameters, ``trials < 2``, ``iterations < 1``, or more than
        8,000,000 worker-iterations in one run.

    Examples
    --------
    >>> from scipy import stats
    >>> from gctheory.runtime import carryover_time_mc, scheme_expected_time
    >>> X = stats.expon(loc=1.0, scale=0.5)
    >>> late = carryover_time_mc("cyclic-mds", X, 8, s=2, iterations=50, trials=400, rng=1)
    >>> late.low > scheme_expected_time("cyclic-mds", X, 8, s=2)
    True
    """
    _check_dist(dist)
    _check_mc_args(trials, level, None)
    lay = scheme_layout(scheme, n, s, m, code=code)
    iterations = _check_run(iterations, lay.groups * lay.group_size)
    tau = _nonneg("tau", tau)
    preempt = bool(preempt)

    def sampler(gen: np.random.Generator, size: int) -> np.ndarray:
        durations = carryover_run_times(lay, dist, iterations, size, gen, tau=tau, preempt=preempt)
        return durations.mean(axis=1)

    return estimate_mean(sampler, trials, rng=rng, level=level)


@dataclass(frozen=True)
class CarryOver:
    """Mean iteration time with and without preemption, and their ratio.

    Attributes
    ----------
    carried : Estimate
        Stragglers finish their old task (:func:`carryover_time_mc`).
    fresh : float
        Every iteration afresh, exact (:func:`~gctheory.runtime.scheme_expected_time`).
    slowdown : float
        ``carried.value / fresh``.
    slowdown_low, slowdown_high : float
        The interval of ``carried`` divided by ``fresh`` (``fresh`` is exact).

    Examples
    --------
    >>> from scipy import stats
    >>> from gctheory.runtime import carryover_slowdown
    >>> c = carryover_slowdown("cyclic-mds", stats.expon(), 6, s=2, iterations=30,
    ...                        trials=300, rng=0)
    >>> c.slowdown_low > 1.0
    True
    """

    carried: Estimate
    fresh: float
    slowdown: float
    slowdown_low: float
    slowdown_high: float


def carryover_slowdown(
    scheme: str,
    dist: Any,
    n: int,
    s: int = 0,
    m: int = 1,
    *,
    iterations: int = 100,
    trials: int = 2000,
    tau: float = 0.0,
    code: tuple[int, int, int] | None = None,
    rng: Any = None,
    level: float = 0.99,
) -> CarryOver:
    """How much slower a master that cannot preempt its stragglers is.

    The ratio of :func:`carryover_time_mc` to the exact fresh-start time of
    :func:`~gctheory.runtime.scheme_expected_time`, with the Monte Carlo interval
    carried through (the denominator is exact). Parameters as in
    :func:`carryover_time_mc`.

    Parameters
    ----------
    scheme : str
        The scheme.
    dist : frozen scipy.stats distribution
        Time for one worker to process the whole dataset.
    n : int
        Workers.
    s : int
        Stragglers tolerated.
    m : int
        Communication saving.
    iterations : int
        Iterations per run.
    trials : int
        Runs simulated.
    tau : float
        Time to communicate a full gradient.
    code : tuple of int, optional
        ``(N, K, delta)`` for ``commfr-gc``.
    rng : None, int or numpy.random.Generator
        Seed.
    level : float
        Confidence level.

    Returns
    -------
    CarryOver
        Both times and the slowdown with its interval.

    Examples
    --------
    >>> from scipy import stats
    >>> from gctheory.runtime import carryover_slowdown
    >>> c = carryover_slowdown("uncoded", stats.expon(), 4, iterations=20, trials=200, rng=0)
    >>> c.slowdown_low <= 1.0 <= c.slowdown_high  # nobody is late when all are awaited
    True
    """
    carried = carryover_time_mc(
        scheme, dist, n, s, m, iterations=iterations, trials=trials, tau=tau, code=code,
        rng=rng, level=level,
    )  # fmt: skip
    fresh = scheme_expected_time(scheme, dist, n, s, m, tau=tau, code=code)
    return CarryOver(
        carried, fresh, carried.value / fresh, carried.low / fresh, carried.high / fresh
    )
