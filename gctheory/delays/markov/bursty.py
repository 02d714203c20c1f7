"""The (B, W, lambda)-bursty straggler model of Krishnan, Ebrahimi & Khisti (ICLR 2023).

As their public code checks it (``mamaj/Sequential-Gradient-Coding-2``,
``MultiplexedSGC.follows_straggler_model``): in every window of ``W`` consecutive rounds
at most ``lambda`` distinct workers straggle, and a worker straggling in a round did not
straggle ``B`` to ``W - 1`` rounds before. A constraint, not a law:
:meth:`BurstyModel.conformity` measures how often a trace obeys it, :func:`fit_bursty`
the smallest ``lambda`` per ``B`` covering a target share, and its sampler draws random
bursts that obey it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_int
from gctheory.delays.markov.chains import _check_sample_size, _prob
from gctheory.delays.markov.indicators import _check_states

__all__ = ["BurstyModel", "fit_bursty"]


@dataclass(frozen=True)
class BurstyModel:
    """The (B, W, lambda)-bursty straggler model (module docstring): ``1 <= B < W``,
    ``1 <= lam <= workers``."""

    B: int
    W: int
    lam: int

    def __post_init__(self) -> None:
        W = check_int(self.W, "W", low=2)
        B = check_int(self.B, "B", low=1, high=W - 1)
        lam = check_int(self.lam, "lam", low=1)
        object.__setattr__(self, "W", W)
        object.__setattr__(self, "B", B)
        object.__setattr__(self, "lam", lam)

    def follows(self, S: np.ndarray) -> np.ndarray:
        """Per round: does round ``t``'s pattern follow the model given the rounds
        before it (as the authors' simulator checks it, on the recorded pattern)?"""
        S = _check_states(S).astype(bool)
        R = S.shape[0]
        ok = np.ones(R, dtype=bool)
        for t in range(R):
            past = S[max(0, t + 1 - self.W) : t]
            distinct = (past.any(axis=0) | S[t]).sum()
            old = S[max(0, t + 1 - self.W) : max(0, t + 1 - self.B)]
            ok[t] = distinct <= self.lam and not (old.any(axis=0) & S[t]).any()
        return ok

    def conformity(self, S: Any) -> float:
        """Fraction of rounds whose straggler pattern follows the model."""
        return float(self.follows(S).mean())

    def sample(self, rounds: int, workers: int, rate: float, rng: Any = None) -> np.ndarray:
        """Random straggler patterns that follow the model: each round every eligible
        worker starts a burst with probability ``rate`` (burst length uniform on
        ``1..B``); a start that would break the window or the ``lambda`` rule is dropped."""
        rounds, workers = _check_sample_size(rounds, workers, 2)
        rate = _prob(rate, "rate")
        if self.lam > workers:
            raise ValueError(f"lam = {self.lam} exceeds the number of workers {workers}")
        g = as_generator(rng)
        S = np.zeros((rounds, workers), dtype=bool)
        left = np.zeros(workers, dtype=int)
        for t in range(rounds):
            cont = left > 0
            S[t] = cont
            left[cont] -= 1
            lo = max(0, t + 1 - self.W)
            recent = S[lo:t].any(axis=0) if t > lo else np.zeros(workers, dtype=bool)
            distinct = int((recent | S[t]).sum())
            cand = np.flatnonzero(~recent & ~S[t] & (g.random(workers) < rate))
            g.shuffle(cand)
            for w in cand:
                if distinct >= self.lam:
                    break
                S[t, w] = True
                distinct += 1
                left[w] = int(g.integers(1, self.B + 1)) - 1
        return S.astype(np.int8)


#: most rounds :func:`fit_bursty`'s conformity checks may visit (each one step of a Python
#: loop, a few microseconds)
MAX_FIT_STEPS = 2 * 10**7


def fit_bursty(S: Any, W: int, *, target: float = 0.9) -> list[dict[str, Any]]:
    """For each ``B < W``: the smallest ``lambda`` under which at least ``target`` of
    the rounds follow the model, and that fraction (a constraint model is fitted by
    its coverage, not by likelihood)."""
    S = _check_states(S)
    W = check_int(W, "W", low=2)
    target = _prob(target, "target")
    R, n = S.shape
    if W > max(R, 2):
        raise ValueError(
            f"W: a window of {W} rounds is longer than the trace ({R} rounds); fit W <= {R}"
        )
    steps = (W - 1) * (math.ceil(math.log2(n)) + 2) * R  # rounds the conformity checks visit
    if steps > MAX_FIT_STEPS:
        raise ValueError(
            f"W: fitting every B < W = {W} over {R} rounds of {n} workers checks about {steps:.3g} "
            f"rounds one by one, more than {MAX_FIT_STEPS:.0e} (minutes of work); use a smaller "
            "W or a shorter trace"
        )
    out = []
    for B in range(1, W):
        lo, hi = 1, n
        if BurstyModel(B, W, n).conformity(S) < target:
            out.append(
                {"B": B, "W": W, "lam": None, "conformity": BurstyModel(B, W, n).conformity(S)}
            )
            continue
        while lo < hi:
            mid = (lo + hi) // 2
            if BurstyModel(B, W, mid).conformity(S) >= target:
                hi = mid
            else:
                lo = mid + 1
        out.append({"B": B, "W": W, "lam": lo, "conformity": BurstyModel(B, W, lo).conformity(S)})
    return out
