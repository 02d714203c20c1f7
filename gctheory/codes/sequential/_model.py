"""The bursty straggler model (:class:`BurstyStragglerModel`) of Krishnan, Ebrahimi &
Khisti 2023 (Section 2): at most ``lambda`` stragglers per window of ``W`` rounds,
each one's rounds within a burst of ``B``.

Private to :mod:`gctheory.codes.sequential` (import the names from there).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory.codes.sequential._params import check_sgc_params

__all__ = ["BurstyStragglerModel"]


# ----------------------------------------------------------------------------- model
@dataclass(frozen=True)
class BurstyStragglerModel:
    """The (B, W, lambda)-bursty straggler model of Krishnan et al. (ICLR 2023), ``n`` workers.

    Parameters
    ----------
    n : int
        Workers.
    B : int
        Burst length of the straggler model.
    W : int
        Window length.
    lam : int
        Stragglers allowed per round inside a burst.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes.sequential import BurstyStragglerModel
    >>> model = BurstyStragglerModel(n=3, B=1, W=3, lam=2)
    >>> model.admissible(np.array([[1, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=bool))
    True
    >>> model.admissible(np.array([[1, 0, 0], [1, 0, 0], [0, 0, 0]], dtype=bool))
    False
    >>> len(list(model.patterns(2)))
    19
    """

    n: int
    B: int
    W: int
    lam: int

    def __post_init__(self) -> None:
        check_sgc_params(self.n, self.B, self.W, self.lam, "model")

    def round_violation(self, history: np.ndarray, row: np.ndarray) -> str | None:
        """Why appending straggler set ``row`` (n,) after ``history`` (r, n) leaves the model.

        Only windows ending at the new round are checked (earlier ones were
        checked when their last round was added). ``None`` when it stays inside.
        """
        r = len(history)
        lo = max(0, r - self.W + 1)
        row = np.asarray(row, dtype=bool)
        win = np.asarray(history[lo:r], dtype=bool).reshape(-1, self.n)
        distinct = win.any(axis=0) | row
        if distinct.sum() > self.lam:
            return (
                f"{int(distinct.sum())} distinct stragglers in rounds {lo}..{r} "
                f"(a window of W = {self.W}) > lambda = {self.lam}"
            )
        old = win[: max(0, r - self.B + 1 - lo)].any(axis=0) & row
        if old.any():
            i = int(np.flatnonzero(old)[0])
            first = lo + int(np.flatnonzero(win[:, i])[0])
            return (
                f"worker {i} straggles in rounds {first} and {r}: {r - first + 1} > B = {self.B} "
                f"consecutive rounds within a window of W = {self.W}"
            )
        return None

    def violation(self, pattern: Any) -> str | None:
        """The first reason the pattern (rounds, n) of booleans (True = straggler) is outside."""
        P = np.asarray(pattern, dtype=bool)
        if P.ndim != 2 or P.shape[1] != self.n:
            raise ValueError(f"pattern must have shape (rounds, n={self.n}), got {P.shape}")
        for r in range(len(P)):
            why = self.round_violation(P[:r], P[r])
            if why:
                return why
        return None

    def admissible(self, pattern: Any) -> bool:
        """Whether the pattern lies in the (B, W, lambda) model."""
        return self.violation(pattern) is None

    def patterns(self, rounds: int) -> Iterator[np.ndarray]:
        """Every admissible pattern over ``rounds`` rounds (depth-first; small sizes only)."""
        rows = [np.array([(m >> i) & 1 for i in range(self.n)], bool) for m in range(2**self.n)]
        hist = np.zeros((rounds, self.n), bool)

        def rec(r: int) -> Iterator[np.ndarray]:
            if r == rounds:
                yield hist.copy()
                return
            for row in rows:
                if self.round_violation(hist[:r], row) is None:
                    hist[r] = row
                    yield from rec(r + 1)
            hist[r] = False

        yield from rec(0)
