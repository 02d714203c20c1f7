"""Shared helpers of the training paper checks.

``sklearn_missing`` says whether the digits data is available;
``estimate_over_runs`` estimates the mean of any per-run quantity over seeded
simulated runs through :func:`gctheory.montecarlo.estimate_mean` (one run per
chunk, the seeds of :func:`gctheory.training.repeat_runs` and
:func:`gctheory.training.estimate_run_metric` for the same ``rng`` and
``trials``, so runs are shared with those through the simulator's memo).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from paper_checks._framework.registry import Outcome

SKLEARN_CAUSE = (
    "the simulation trains on scikit-learn's bundled digits data; install it with "
    'pip install "gctheory[data]"'
)


def sklearn_missing() -> Outcome | None:
    """``not checkable`` if scikit-learn cannot be imported, else None."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        return Outcome("not checkable", None, cause=SKLEARN_CAUSE)
    return None


def _run_sampler(
    kwargs: dict[str, Any], metric: Callable[[Any], float], rng: np.random.Generator, size: int
) -> np.ndarray:
    from gctheory.training import _memo_run

    out = np.empty(size)
    rngs = [rng] if size == 1 else rng.spawn(size)
    for i, g in enumerate(rngs):
        out[i] = float(metric(_memo_run(kwargs, g)))
    return out


def estimate_over_runs(
    metric: Callable[[Any], float],
    trials: int,
    *,
    rng: Any,
    level: float = 0.95,
    **kwargs: Any,
) -> Any:
    """Mean of ``metric(run)`` over ``trials`` seeded runs of ``simulate(**kwargs)``.

    Returns a :class:`gctheory.montecarlo.Estimate` with a two-sided CLT
    interval at ``level`` (for a one-sided bound at level ``q`` use
    ``level = 2 q - 1`` and one of its limits). ``metric`` should be a
    module-level function (or a ``functools.partial`` of one).
    """
    from gctheory import montecarlo

    sampler = functools.partial(_run_sampler, dict(kwargs), metric)
    return montecarlo.estimate_mean(sampler, trials, rng=rng, level=level, chunk_size=1)


def runs(trials: int, *, rng: Any, **kwargs: Any) -> list[Any]:
    """The seeded runs behind :func:`estimate_over_runs` (same seeds, memoised)."""
    from gctheory.training import repeat_runs

    return repeat_runs(trials, rng=rng, **kwargs)


def zhang_run_args(quick: bool) -> dict[str, Any]:
    """The seeded runs of Zhang & Simeone 2020's comparison, per scheme.

    Returns ``{"trials", "rng", "target", "target_text", "schemes": {label: simulate
    kwargs}}``. Full mode: the runs of ``study_zhang2020`` (target F* + eps, so they are
    shared with zhang2020:abstract-glag-best-time-and-comm through the memo). Quick mode
    avoids computing F* (an L-BFGS solve to 1e-10, ~20 s): the target is the loss full
    GD reaches after 150 iterations. The delays are the study's exponential ones: the
    iterates and the lazy selection do not depend on the delays (they only set the
    clock), so these runs serve the analysis of any delay model.
    """
    from gctheory.training import reference_loss, simulate
    from gctheory.training.studies import ZHANG2020

    cfg = ZHANG2020(quick)
    if quick:
        target = float(simulate("gd", n=cfg["common"]["n"], iterations=150, rng=0).loss[-1])
        text = f"the loss of full GD after 150 iterations ({target:.4f})"
    else:
        target = reference_loss("softmax") + cfg["eps"]
        text = f"F* + {cfg['eps']} ({target:.4f})"
    schemes = {
        lab: dict(delay=cfg["delays"]["exponential"], target_loss=target, **cfg["common"], **kw)
        for lab, kw in cfg["schemes"].items()
    }
    return {"trials": cfg["trials"], "rng": cfg["rng"], "target": target, "target_text": text,
            "schemes": schemes}  # fmt: skip


def _paired_sampler(
    a: dict[str, Any],
    b: dict[str, Any],
    metric: Callable[[Any], float],
    rng: np.random.Generator,
    size: int,
) -> np.ndarray:
    from gctheory.training import _memo_run

    out = np.empty(size)
    rngs = [rng] if size == 1 else rng.spawn(size)
    for i, g in enumerate(rngs):
        state = g.bit_generator.state
        va = float(metric(_memo_run(a, g)))
        g.bit_generator.state = state  # the same seed for both runs: common random numbers
        out[i] = va - float(metric(_memo_run(b, g)))
    return out


def estimate_paired_difference(
    metric: Callable[[Any], float],
    trials: int,
    a: dict[str, Any],
    b: dict[str, Any],
    *,
    rng: Any,
    level: float = 0.95,
) -> Any:
    """Mean of ``metric(run_a) - metric(run_b)`` over seeded pairs of runs with the same
    seed (common random numbers), like ``estimate_paired_metric`` of
    :mod:`gctheory.training.studies` but for any per-run quantity."""
    from gctheory import montecarlo

    sampler = functools.partial(_paired_sampler, dict(a), dict(b), metric)
    return montecarlo.estimate_mean(sampler, trials, rng=rng, level=level, chunk_size=1)


def final_accuracy(run: Any) -> float:
    """Training accuracy of the last iterate."""
    return float(run.accuracy[-1])


def final_loss(run: Any) -> float:
    """Training loss of the last iterate."""
    return float(run.loss[-1])
