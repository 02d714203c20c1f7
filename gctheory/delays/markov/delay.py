"""Delays with memory: worker times driven by a straggler chain.

:class:`MemoryDelay` draws a worker's time from ``fast`` in the good state and from
``slow`` when straggling; :func:`memory_scheme_times` gives "wait for the fastest ``w``
of ``n``" by Monte Carlo over independent stationary runs; :class:`MarkovSampler` is the
same as a per-round sampler for :func:`gctheory.delays.parse_delay` and the simulators
(each draw is one round; the chains advance). A round's marginal under a stationary
chain is the i.i.d. mixture: memory changes the variance of a run's total and every
scheme that carries work across rounds, not a one-round scheme's mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_int
from gctheory.delays.markov.fits import MarkovFit
from gctheory.montecarlo import mean_of_samples

__all__ = ["BURSTY_BLOCK", "MarkovSampler", "MemoryDelay", "memory_scheme_times"]

#: rounds of the (B, W, lambda) sampler drawn at a time by :class:`MarkovSampler`
BURSTY_BLOCK = 512


@dataclass(frozen=True)
class MemoryDelay:
    """Worker times driven by a straggler chain: ``fast`` when on time, ``slow`` when
    straggling. ``fast``/``slow`` are frozen laws (anything with ``rvs``) or 1-D arrays
    of measured times resampled with replacement (the trace's own split)."""

    chain: Any
    fast: Any
    slow: Any
    label: str = ""

    def _draw(self, law: Any, size: int, g: np.random.Generator) -> np.ndarray:
        if isinstance(law, np.ndarray):
            return law[g.integers(0, law.size, size)]
        return np.asarray(law.rvs(size=size, random_state=g), dtype=float)

    def draw_rounds(self, rounds: int, workers: int, rng: Any = None) -> np.ndarray:
        """(rounds, workers) times of ``workers`` independent stationary chains."""
        g = as_generator(rng)
        S = self.chain.sample(rounds, workers, g).astype(bool)
        T = np.empty(S.shape)
        T[S] = self._draw(self.slow, int(S.sum()), g)
        T[~S] = self._draw(self.fast, int((~S).sum()), g)
        return T

    @classmethod
    def from_matrix(cls, M: Any, fit: MarkovFit, threshold: float) -> MemoryDelay:
        M = check_array(M, "M", ndim=2)
        return cls(fit.model, np.sort(M[M <= threshold]), np.sort(M[M > threshold]), fit.rule)


def memory_scheme_times(
    delay: MemoryDelay,
    n: int,
    waits: Any,
    *,
    rounds: int = 50,
    trials: int = 200,
    level: float = 0.95,
    rng: Any = None,
) -> dict[str, np.ndarray]:
    """Expected time of one round for "wait for the fastest ``wait`` of ``n``", for each
    ``wait``, under ``delay``: ``trials`` independent stationary runs of ``rounds``
    rounds, the per-run average time of a round, and Hall's skewness-corrected interval
    over runs (runs are independent, the rounds inside one are not), with the warnings
    of :func:`gctheory.montecarlo.mean_of_samples`. Returns ``mean``, ``low``,
    ``high``, ``std_total`` (standard deviation of the total time of a run) arrays."""
    n = check_int(n, "n", low=1)
    waits = np.atleast_1d(np.asarray(waits, dtype=int))
    if waits.min() < 1 or waits.max() > n:
        raise ValueError(f"waits must lie in [1, n={n}], got {waits.min()}..{waits.max()}")
    rounds = check_int(rounds, "rounds", low=1)
    trials = check_int(trials, "trials", low=2)
    g = as_generator(rng)
    per_run = np.empty((trials, waits.size))
    tot = np.empty((trials, waits.size))
    for i in range(trials):
        T = np.sort(delay.draw_rounds(rounds, n, g), axis=1)[:, waits - 1]
        per_run[i] = T.mean(axis=0)
        tot[i] = T.sum(axis=0)
    est = [mean_of_samples(per_run[:, j], level=level) for j in range(waits.size)]
    return {
        "mean": np.array([e.value for e in est]),
        "low": np.array([e.low for e in est]),
        "high": np.array([e.high for e in est]),
        "std_total": tot.std(axis=0, ddof=1),
    }


class MarkovSampler:
    """A :class:`MemoryDelay` as a per-round sampler for :func:`gctheory.delays.parse_delay`
    and the training simulator: each ``rvs(size=n)`` call is one round and advances each
    worker's straggler chain by one step (chains start stationary at the first call, or
    when ``n`` changes). ``DelayModel(MarkovSampler(...))`` then gives stragglers with
    memory; keep the model's ``persist = 1`` (the chain carries the memory).

    The (B, W, lambda) constraint (:class:`gctheory.delays.markov_times.BurstyChain`, no
    transition matrix) is served from blocks of :data:`BURSTY_BLOCK` rounds drawn by its
    own sampler (after its burn-in); the constraint holds inside a block, not across the
    seam between two blocks.

    The sampler carries state (the chains): a fresh one per run (``parse_delay`` of a
    spec string makes one) gives a run reproducible from its seed; a checkpointed run
    restarts its chains stationary when resumed."""

    def __init__(self, delay: MemoryDelay) -> None:
        if not isinstance(delay, MemoryDelay):
            raise ValueError(f"delay must be a MemoryDelay, got {type(delay).__name__}")
        self.delay = delay
        self._state: np.ndarray | None = None
        self._block: np.ndarray | None = None
        self._row = 0

    def __repr__(self) -> str:
        return f"MarkovSampler({self.delay.chain!r})"

    def support(self) -> tuple[float, float]:
        lo = []
        for law in (self.delay.fast, self.delay.slow):
            lo.append(
                float(np.min(law)) if isinstance(law, np.ndarray) else float(law.support()[0])
            )
        return min(lo), math.inf

    def rvs(self, size: Any = None, random_state: Any = None) -> np.ndarray:
        n = check_int(size, "size", low=1)
        g = as_generator(random_state)
        ch = self.delay.chain
        if not hasattr(ch, "transition"):  # the (B, W, lambda) sampler: blocks of rounds
            if self._block is None or self._block.shape[1] != n or self._row >= len(self._block):
                self._block = np.asarray(ch.sample(BURSTY_BLOCK, n, g), bool)
                self._row = 0
            slow = self._block[self._row]
            self._row += 1
        else:
            P, e, pi = ch.transition, ch.emission, ch.stationary
            if self._state is None or self._state.size != n:
                self._state = np.minimum(np.searchsorted(np.cumsum(pi), g.random(n)), len(pi) - 1)
            else:
                cum = np.cumsum(P, axis=1)
                u = g.random(n)
                self._state = np.minimum((u[:, None] > cum[self._state]).sum(axis=1), len(pi) - 1)
            slow = g.random(n) < e[self._state]
        out = np.empty(n)
        out[slow] = self.delay._draw(self.delay.slow, int(slow.sum()), g)
        out[~slow] = self.delay._draw(self.delay.fast, int((~slow).sum()), g)
        return out
