"""The budget of a worst-case search: seconds of wall time, evaluations, or both.

A time limit makes the result depend on the machine and its load; an evaluation budget
(condition numbers of subsets computed plus branch-and-bound nodes bounded, each about one
``K x K`` factorisation) makes it a function of the inputs only: the same call stops at
the same point on any machine. Kadhe et al. 2019, eq. (10) is the quantity searched.
"""

from __future__ import annotations

import math
import time

__all__: list[str] = []


class _Budget:
    """What a search may still spend: a wall-clock ``deadline`` and ``left`` evaluations.

    Shared by the steps of one search (the heuristic, then the branch and bound; the
    steps of :func:`empirical_s_kappa`), so each gets what the ones before it left.
    ``allow(n)`` is how many of ``n`` evaluations may run now; ``spend(n)`` records them.
    """

    def __init__(self, seconds: float = math.inf, evaluations: float = math.inf) -> None:
        self.deadline = time.perf_counter() + seconds if math.isfinite(seconds) else math.inf
        self.left = evaluations
        self.out_of_time = False

    def over(self) -> bool:
        """Whether the budget is spent (every evaluation, or the time)."""
        if self.left <= 0:
            return True
        if math.isfinite(self.deadline) and time.perf_counter() > self.deadline:
            self.out_of_time = True
            return True
        return False

    def allow(self, n: int) -> int:
        """How many of ``n`` evaluations fit what is left (0 when none does)."""
        return int(min(n, self.left)) if self.left > 0 else 0

    def spend(self, n: int) -> None:
        self.left -= n

    def seconds_left(self) -> float:
        return self.deadline - time.perf_counter()
