"""Importance sampling with exact likelihood ratios.

To estimate a small ``p = P(X in A)`` under a law ``P``, draw ``X_1..X_n`` from
a proposal ``Q`` that reaches ``A`` often and average ``y_i = w(X_i) 1{X_i in
A}`` with the likelihood ratio ``w = dP/dQ``: ``E_Q[y] = p`` exactly, whatever
``Q`` is (as long as ``Q > 0`` where ``P 1_A > 0``). The estimate's interval is
the CLT interval of the weighted terms; its :class:`Diagnostics` give the
effective sample size of the hits, the largest weight's share of the sum and
the mean of all the weights (1 in expectation for an exactly normalised
proposal, so a proposal whose normalising constant is wrong is caught); an
:class:`UnreliableEstimateWarning` is issued when the estimate rests on few
effective samples, when no sample hit the event, or when the weights do not
average to 1.

A proposal is an object with ``sample(rng, size) -> (x, log_w)`` (or a
callable with that signature): ``x`` the samples (any array or tuple of arrays
whose first axis is the sample index) and ``log_w`` the exact
``log dP/dQ`` at each sample, ``-inf`` allowed (weight 0), ``nan`` and
``+inf`` refused. A proposal that lives on the event only (``Q`` is ``P``
restricted and reweighted there, so its weights average to ``P(A)`` rather
than 1) says so with an attribute ``full_support = False``; the check that the
weights average to 1 is then skipped. The domain-specific proposals (Gaussian condition-number
tails, tilted erasures for peeling) are in :mod:`gctheory.tails`;
:class:`ShiftedGaussian` is the textbook mean shift for standard normal inputs.

References
----------
.. [1] A. B. Owen, "Monte Carlo theory, methods and examples", 2013, ch. 9
   (importance sampling, effective sample size, defensive mixtures).
.. [2] L. Kish, "Survey sampling", 1965 (effective sample size).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gctheory.montecarlo import engine
from gctheory.montecarlo.estimates import Estimate, check_level
from gctheory.montecarlo.run import drive
from gctheory.montecarlo.stopping import Stop, as_stop, check_reachable
from gctheory.montecarlo.summaries import Weighted, weighted_estimate

__all__ = ["Proposal", "ShiftedGaussian", "importance_sampling"]


@runtime_checkable
class Proposal(Protocol):
    """A sampling law ``Q`` with exact log likelihood ratios ``log dP/dQ``.

    Examples
    --------
    >>> from gctheory.montecarlo import Proposal
    >>> from gctheory.montecarlo import ShiftedGaussian
    >>> isinstance(ShiftedGaussian(shift=(1.0,)), Proposal)
    True
    """

    def sample(self, rng: np.random.Generator, size: int) -> tuple[Any, np.ndarray]:
        """``size`` draws from ``Q`` and their ``log dP/dQ`` (shape ``(size,)``)."""
        ...


@dataclass(frozen=True)
class ShiftedGaussian:
    """Standard normal inputs ``P = N(0, I_d)`` drawn from ``Q = N(shift, I_d)``.

    ``log dP/dQ (x) = -shift . x + |shift|^2 / 2``. Samples have shape
    ``(size, d)``. The optimal shift for ``P(a . X > t)`` is ``t a / |a|^2``
    (the dominating point).

    Parameters
    ----------
    shift : tuple of float
        Mean of the proposal ``Q``; its length is the dimension ``d``.

    Examples
    --------
    >>> from gctheory.montecarlo import ShiftedGaussian
    >>> import numpy as np
    >>> x, logw = ShiftedGaussian(shift=(3.0,)).sample(np.random.default_rng(0), 4)
    >>> x.shape, logw.shape
    ((4, 1), (4,))
    """

    shift: tuple[float, ...]

    def __post_init__(self) -> None:
        try:
            vals = np.atleast_1d(np.asarray(self.shift, dtype=float))
        except (TypeError, ValueError):
            raise ValueError(
                f"shift must be a non-empty vector of finite reals, got {self.shift!r}"
            ) from None
        if vals.ndim != 1 or vals.size == 0 or not np.all(np.isfinite(vals)):
            raise ValueError(
                f"shift must be a non-empty vector of finite reals, got {self.shift!r}"
            )
        object.__setattr__(self, "shift", tuple(float(v) for v in vals))

    def sample(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        mu = np.asarray(self.shift)
        x = rng.standard_normal((size, mu.size)) + mu
        return x, -(x @ mu) + 0.5 * float(mu @ mu)


def _draw(proposal: Any, rng: np.random.Generator, size: int) -> tuple[Any, np.ndarray]:
    return proposal.sample(rng, size) if hasattr(proposal, "sample") else proposal(rng, size)


def _weighted_chunk(
    event: Callable, proposal: Any, seed: np.random.SeedSequence, size: int
) -> Weighted:
    rng = np.random.default_rng(seed)
    drawn = _draw(proposal, rng, size)
    if not (isinstance(drawn, tuple) and len(drawn) == 2):
        raise ValueError("proposal must return a pair (samples, log_weights)")
    x, logw = drawn
    logw = np.asarray(logw, dtype=np.float64)
    if logw.shape != (size,):
        raise ValueError(f"proposal log_weights must have shape ({size},), got shape {logw.shape}")
    if np.any(np.isnan(logw)) or np.any(logw == np.inf):
        bad = int(np.count_nonzero(np.isnan(logw) | (logw == np.inf)))
        raise ValueError(
            f"proposal returned {bad} non-finite log-weights (nan or +inf) of {size}: the "
            "likelihood ratios must be finite (-inf, a weight of 0, is allowed)"
        )
    with np.errstate(over="ignore"):
        w = np.exp(logw)
    if not np.all(np.isfinite(w)):
        raise ValueError(
            f"proposal weights overflow float64 (largest log-weight {float(np.max(logw)):.4g} > "
            "709.78): the likelihood ratios must be finite"
        )
    hits = np.asarray(event(x))
    if hits.shape != (size,):
        raise ValueError(
            f"event(samples) must return an array of shape ({size},), got shape {hits.shape}"
        )
    if hits.dtype != np.bool_:
        raise ValueError(f"event(samples) must return a boolean array, got dtype {hits.dtype}")
    return Weighted.of(hits, w)


def importance_sampling(
    event: Callable[[Any], np.ndarray],
    proposal: Proposal | Callable[[np.random.Generator, int], tuple[Any, np.ndarray]],
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: int | cf.Executor | None = None,
    progress: bool | None = None,
    checkpoint: str | os.PathLike | None = None,
    stop: Stop | dict | None = None,
) -> Estimate:
    """Estimate ``P(X in A)`` by importance sampling with exact likelihood ratios.

    Parameters
    ----------
    event : callable
        ``event(samples)`` returns a boolean array of shape ``(size,)``: which
        of the proposal's samples lie in ``A``.
    proposal : Proposal or callable
        ``proposal.sample(rng, size)`` (or ``proposal(rng, size)``) returns
        ``(samples, log_w)`` with ``log_w = log dP/dQ`` exact at each sample.
    trials : int
        Number of samples, > 0; with ``stop``, the budget (t_max).
    rng, level, chunk_size, executor, progress, checkpoint, stop
        As in :func:`gctheory.montecarlo.estimate_probability`; ``stop`` takes
        ``rel_half_width`` (of the weighted estimate's interval) and
        ``events`` (samples that hit ``A``).

    Returns
    -------
    Estimate
        ``value`` the weighted mean, ``[low, high]`` its CLT interval (not
        clipped: with very few hits ``low`` may be negative, and a warning says
        the estimate is unreliable), ``successes`` the number of hits, ``std``
        the standard deviation of the weighted terms, ``method="importance"``,
        and ``diagnostics`` (effective sample size, largest weight's share,
        weight mean and its interval).

    Raises
    ------
    ValueError
        Before any work for bad arguments; during the run, naming the proposal,
        if it returns weights that are not finite (nan, +inf, or overflowing).

    Examples
    --------
    >>> from gctheory.montecarlo import ShiftedGaussian, importance_sampling
    >>> proposal = ShiftedGaussian(shift=(4.0,))  # the dominating point of {x > 4}
    >>> est = importance_sampling(lambda x: x[:, 0] > 4.0, proposal, 4000, rng=0)
    >>> est.contains(3.167e-5), f"{est.value:.2e}"  # exact: P(N(0,1) > 4) = 3.167e-5
    (True, '3.13e-05')
    """
    engine.check_callable(event, "event", "event(samples)")
    if not (hasattr(proposal, "sample") and callable(proposal.sample)) and not callable(proposal):
        raise ValueError(
            "proposal must have a method sample(rng, size) -> (samples, log_weights), or be "
            f"callable as proposal(rng, size), got {type(proposal).__name__}"
        )
    level = check_level(level)
    trials = engine.check_trials(trials)
    stop = as_stop(stop)
    check_reachable(stop, trials, kind="weighted", level=level)

    full_support = bool(getattr(proposal, "full_support", True))

    def finish(s: Weighted, n: int, warn: bool) -> Estimate:
        return weighted_estimate(s, level, warn=warn, full_support=full_support)

    return drive(
        kind="weighted",
        task=partial(_weighted_chunk, event, proposal),
        funcs=[("event", event), ("proposal", proposal)],
        trials=trials,
        rng=rng,
        chunk_size=chunk_size,
        executor=executor,
        progress=progress,
        checkpoint=checkpoint,
        stop=stop,
        finish=finish,
        events=lambda s: s.hits,
    )
