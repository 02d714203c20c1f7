"""A downstream user's script, as mypy sees it (type-checked by tests/test_typing.py).

Not collected by pytest (no ``test_`` prefix) and never run there: it only has to
type-check. ``reveal_type`` sits under ``TYPE_CHECKING``, so the file also runs on
Python 3.10, whose ``typing`` has no ``reveal_type``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import gctheory
import gctheory.tradeoff
from gctheory.codes import CommFRCode, DecodeResult, FractionalRepetitionCode
from gctheory.montecarlo import Estimate

if TYPE_CHECKING:  # a builtin for mypy, and in typing only from Python 3.11
    from typing_extensions import reveal_type


def failure_rate(trials: int) -> Estimate:
    """P(a fair coin shows heads), estimated as a user would write it."""

    def heads(rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.random(size) < 0.5

    return gctheory.estimate_probability(heads, trials, rng=1)


def condition(result: DecodeResult) -> float:
    return result.condition_number


def main() -> None:
    G = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 2.0]])
    code = CommFRCode(8, 4, G)
    tolerance: int = code.s + 1  # an exact code's s is an int, not Optional
    survivors = list(range(code.n - code.s))
    partials = np.ones((code.k, 3))
    result = code.decode_detail(survivors, code.encode(partials)[survivors])
    kappa = condition(result)
    frc = FractionalRepetitionCode(4, 1)

    est = failure_rate(1000)
    low: float = est.low
    value: float = est.value
    table = gctheory.tradeoff.tradeoff(4, schemes=["cyclic-mds"], quick=True, rng=0)
    print(tolerance, kappa, frc.load, low, value, len(table.rows))

    if TYPE_CHECKING:
        reveal_type(code)
        reveal_type(code.s)
        reveal_type(result)
        reveal_type(gctheory.estimate_probability)
        reveal_type(est)
        reveal_type(est.value)
        reveal_type(est.low)
        reveal_type(table)


if __name__ == "__main__":
    main()
