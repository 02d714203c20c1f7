"""Time per job of GC, SR-SGC, M-SGC, no coding and no-wait under stragglers with memory.

The rounds are drawn from a :class:`gctheory.delays.markov.MemoryDelay` (a Gilbert or
Fritchman chain per worker, or the (B, W, lambda) constraint through
:class:`gctheory.delays.markov_times.BurstyChain`) instead of a measured trace, and each
run goes through :func:`gctheory.sgc.runtime.run_scheme` with its waiting rule. The
estimate is the mean over independent runs of (a run's total time) / ``jobs``, with the
interval of :func:`gctheory.montecarlo.estimate_mean` (runs are independent; the rounds
inside one are not, and the scheme carries work across them).

``span="jobs"`` averages the first ``jobs`` rounds only (the quantity
:func:`gctheory.sgc.memory_exact.sequential_time_exact` gives exactly for SR-SGC, whose
rounds after the last job may be skipped). The exact twin, by enumerating the Markov chain
of the workers' chain states and the (B, W, lambda) window, is
:mod:`gctheory.sgc.memory_exact`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_choice, check_int
from gctheory.delays.markov import MemoryDelay
from gctheory.sgc.runtime import run_scheme, scheme_delay

__all__ = ["sequential_time_mc"]


def sequential_time_mc(
    delay: MemoryDelay,
    scheme: str,
    params: tuple[int, ...],
    n: int,
    *,
    jobs: int,
    mu: float = 1.0,
    runs: int = 100,
    base_load: float = 0.0,
    base_comp: float = 0.0,
    rules: str = "paper",
    span: str = "run",
    rng: Any = None,
    level: float = 0.99,
) -> Any:
    """Expected time per job of ``scheme`` with ``params`` on ``n`` workers whose rounds
    come from ``delay`` (times at ``base_load``; see :func:`run_scheme`): an
    :class:`Estimate` over ``runs`` independent runs of ``jobs + T`` rounds. ``span``:
    ``"run"`` (a run's runtime / ``jobs``) or ``"jobs"`` (its first ``jobs`` rounds'
    durations / ``jobs``)."""
    from gctheory.montecarlo import estimate_mean

    if not isinstance(delay, MemoryDelay):
        raise ValueError(f"delay must be a MemoryDelay, got {type(delay).__name__}")
    n = check_int(n, "n", low=1)
    jobs = check_int(jobs, "jobs", low=1)
    runs = check_int(runs, "runs", low=2)
    span = check_choice(span, "span", ("run", "jobs"))
    params = tuple(int(p) for p in params)
    rounds = jobs + scheme_delay(scheme, params)

    def sampler(gen: np.random.Generator, size: int) -> np.ndarray:
        out = np.empty(size)
        for i in range(size):
            D = delay.draw_rounds(rounds, n, gen).T
            run = run_scheme(D, scheme, params, jobs=jobs, mu=mu, base_load=base_load,
                             base_comp=base_comp, rules=rules)  # fmt: skip
            total = run.runtime if span == "run" else float(run.durations[:jobs].sum())
            out[i] = total / jobs
        return out

    return estimate_mean(sampler, runs, rng=as_generator(rng), level=level)
