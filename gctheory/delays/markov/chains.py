"""Straggler chains: two-state Markov (Gilbert 1960, Elliott 1963) and Fritchman (1967).

:class:`GilbertElliott`: good -> bad with ``p``, bad -> good with ``r``, straggling with
probability ``h_good`` / ``h_bad`` in each state; stationary straggler rate
``p / (p + r)``, lag-one persistence ``1 - r`` for the observed chain, and the ``h`` of
Xu et al. 2021 (Section V-B) ``(1 - b) / (1 - x)``. :class:`Fritchman`: ``K`` good states
and one bad (the partitioned chain with a single error state). Both sample
``(rounds, workers)`` indicators of independent chains started stationary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_int, check_memory

__all__ = ["Fritchman", "GilbertElliott"]


def _prob(v: Any, name: str, *, open_low: bool = False, open_high: bool = False) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a probability in [0, 1], got {v!r}") from None
    if not (0.0 <= x <= 1.0) or math.isnan(x):
        raise ValueError(f"{name} must be a probability in [0, 1], got {v!r}")
    if (open_low and x == 0.0) or (open_high and x == 1.0):
        raise ValueError(
            f"{name} = {x:g} makes the chain not ergodic (a state is never left or never "
            "reached); a straggler model needs 0 < p and 0 < r"
        )
    return x


@dataclass(frozen=True)
class GilbertElliott:
    """Two-state Markov straggler chain (module docstring).

    ``p = P(good -> bad)``, ``r = P(bad -> good)``, ``h_good``/``h_bad`` the
    probabilities of straggling in each state. ``0 < p, r`` (otherwise a state is
    absorbing or never reached: not ergodic) and ``p + r < 2`` (``p = r = 1`` is
    periodic).
    """

    p: float
    r: float
    h_good: float = 0.0
    h_bad: float = 1.0

    def __post_init__(self) -> None:
        p = _prob(self.p, "p", open_low=True)
        r = _prob(self.r, "r", open_low=True)
        if p == 1.0 and r == 1.0:
            raise ValueError("p = r = 1 makes the chain periodic (it alternates), not ergodic")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "r", r)
        object.__setattr__(self, "h_good", _prob(self.h_good, "h_good"))
        object.__setattr__(self, "h_bad", _prob(self.h_bad, "h_bad"))

    @property
    def transition(self) -> np.ndarray:
        return np.array([[1 - self.p, self.p], [self.r, 1 - self.r]])

    @property
    def emission(self) -> np.ndarray:
        return np.array([self.h_good, self.h_bad])

    @property
    def stationary(self) -> np.ndarray:
        s = self.p + self.r
        return np.array([self.r / s, self.p / s])

    @property
    def straggler_rate(self) -> float:
        return float(self.stationary @ self.emission)

    @property
    def persistence(self) -> float:
        """``P(straggler next round | straggler now)`` in stationarity."""
        return _lag1(self.transition, self.emission, self.stationary)

    @property
    def h(self) -> float:
        """Xu et al.'s ``h = (1 - b) / (1 - x)``, ``x`` the persistence: 1 without memory."""
        x = self.persistence
        return (1 - self.straggler_rate) / (1 - x) if x < 1 else math.inf

    def sample(self, rounds: int, workers: int, rng: Any = None) -> np.ndarray:
        """(rounds, workers) 0/1 straggler indicators, chains started stationary."""
        return _sample_chain(self.transition, self.emission, self.stationary, rounds, workers, rng)


@dataclass(frozen=True)
class Fritchman:
    """Fritchman's partitioned chain: ``K`` good states and one bad (straggling) state.

    ``stay_good[i]`` = P(good_i -> good_i) (else -> bad); ``stay_bad`` = P(bad -> bad);
    ``entry[i]`` = P(bad -> good_i | leaving bad), summing to 1. Straggler-free runs
    are the mixture ``sum_i w_i Geom(1 - stay_good[i])`` (module docstring).
    """

    stay_good: tuple[float, ...]
    entry: tuple[float, ...]
    stay_bad: float

    def __post_init__(self) -> None:
        sg = tuple(
            _prob(v, f"stay_good[{i}]", open_high=True) for i, v in enumerate(self.stay_good)
        )
        en = tuple(_prob(v, f"entry[{i}]") for i, v in enumerate(self.entry))
        if not sg or len(sg) != len(en):
            raise ValueError(
                f"stay_good and entry must have the same length K >= 1, got {len(sg)} and {len(en)}"
            )
        if abs(sum(en) - 1) > 1e-9:
            raise ValueError(
                f"entry must sum to 1 (where the chain goes on leaving bad), got {sum(en)}"
            )
        sb = _prob(self.stay_bad, "stay_bad", open_high=True)
        object.__setattr__(self, "stay_good", sg)
        object.__setattr__(self, "entry", en)
        object.__setattr__(self, "stay_bad", sb)

    @property
    def K(self) -> int:
        return len(self.stay_good)

    @property
    def transition(self) -> np.ndarray:
        K = self.K
        P = np.zeros((K + 1, K + 1))
        for i, a in enumerate(self.stay_good):
            P[i, i] = a
            P[i, K] = 1 - a
        P[K, :K] = (1 - self.stay_bad) * np.array(self.entry)
        P[K, K] = self.stay_bad
        return P

    @property
    def emission(self) -> np.ndarray:
        return np.r_[np.zeros(self.K), 1.0]

    @property
    def stationary(self) -> np.ndarray:
        return _stationary(self.transition)

    @property
    def straggler_rate(self) -> float:
        return float(self.stationary[-1])

    @property
    def persistence(self) -> float:
        return self.stay_bad

    @property
    def h(self) -> float:
        return (1 - self.straggler_rate) / (1 - self.stay_bad)

    def sample(self, rounds: int, workers: int, rng: Any = None) -> np.ndarray:
        return _sample_chain(self.transition, self.emission, self.stationary, rounds, workers, rng)


def _stationary(P: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eig(P.T)
    i = int(np.argmin(np.abs(w - 1)))
    pi = np.real(v[:, i])
    pi = pi / pi.sum()
    if np.any(pi < -1e-12) or abs(w[i] - 1) > 1e-9:
        raise ValueError("the chain has no unique stationary law (not ergodic)")
    return np.clip(pi, 0, 1)


def _lag1(P: np.ndarray, e: np.ndarray, pi: np.ndarray) -> float:
    b = float(pi @ e)
    both = float((pi * e) @ P @ e)
    return both / b if b > 0 else math.nan


#: most rounds a sampler draws: each round is one step of a Python loop (about 10 us),
#: so 10^7 rounds is minutes of work; more is refused at once
MAX_SAMPLE_ROUNDS = 10**7


def _check_sample_size(rounds: Any, workers: Any, per_cell: int = 2) -> tuple[int, int]:
    """``rounds`` and ``workers`` checked, and refused at once (by name) where the pattern
    needs more rounds than :data:`MAX_SAMPLE_ROUNDS` or more memory than is available."""
    rounds = check_int(rounds, "rounds", low=1)
    workers = check_int(workers, "workers", low=1)
    if rounds > MAX_SAMPLE_ROUNDS:
        raise ValueError(
            f"rounds: at most {MAX_SAMPLE_ROUNDS} rounds a call (the sampler steps through "
            f"them one by one); got {rounds}: draw in batches"
        )
    check_memory(rounds * workers * per_cell, "rounds", f"the {rounds} x {workers} pattern")
    return rounds, workers


def _sample_chain(P, e, pi, rounds, workers, rng) -> np.ndarray:
    rounds, workers = _check_sample_size(rounds, workers, 1 + 8 * len(pi))
    g = as_generator(rng)
    cum = np.cumsum(P, axis=1)
    state = np.minimum(np.searchsorted(np.cumsum(pi), g.random(workers)), len(pi) - 1)
    out = np.empty((rounds, workers), dtype=np.int8)
    for t in range(rounds):
        if t:
            u = g.random(workers)
            state = np.minimum((u[:, None] > cum[state]).sum(axis=1), len(pi) - 1)
        out[t] = g.random(workers) < e[state]
    return out
