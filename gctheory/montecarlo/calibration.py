"""Coverage studies: how often an estimator's interval contains a known truth.

A stated level is a claim about many runs: over independent seeds, a fraction
``level`` of the intervals should contain the truth. :func:`coverage_study`
runs an estimator over seeds, counts the intervals that contain ``truth`` and
gives that fraction with its own exact (Clopper-Pearson) interval, so a
shortfall can be told from sampling error: coverage is *below* the stated
level when the upper limit of its interval is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gctheory._validate import check_real
from gctheory.montecarlo.estimates import Estimate, binomial_estimate, check_level

__all__ = ["Coverage", "coverage_study"]


@dataclass(frozen=True)
class Coverage:
    """The outcome of a coverage study.

    Attributes
    ----------
    covered, runs : int
        Intervals that contained the truth, of ``runs`` seeds.
    level : float
        The level the estimator stated.
    fraction, low, high : float
        ``covered / runs`` and its Clopper-Pearson interval at ``confidence``.
    confidence : float
        Confidence of ``[low, high]``.
    """

    covered: int
    runs: int
    level: float
    fraction: float
    low: float
    high: float
    confidence: float

    @property
    def below_level(self) -> bool:
        """True when the coverage is below the stated level beyond its sampling error."""
        return self.high < self.level

    def __str__(self) -> str:
        return (
            f"{self.covered}/{self.runs} = {self.fraction:.4g} [{self.low:.4g}, {self.high:.4g}] "
            f"at a stated {100 * self.level:g}%"
        )


def coverage_study(
    estimator: Callable[[int], Estimate],
    truth: float,
    seeds: Iterable[int],
    level: float,
    *,
    confidence: float = 0.99,
    quiet: bool = True,
) -> Coverage:
    """Run ``estimator(seed)`` for every seed and count the intervals containing ``truth``.

    ``estimator`` returns an :class:`Estimate` stated at ``level``; ``quiet``
    silences the warnings the runs issue (a study of intervals with few runs
    expects them).
    """
    truth = check_real(truth, "truth")
    level = check_level(level)
    confidence = check_level(confidence)
    covered = runs = 0
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        for seed in seeds:
            est = estimator(seed)
            if not isinstance(est, Estimate):
                raise ValueError(
                    f"estimator(seed) must return an Estimate, got {type(est).__name__}"
                )
            if abs(est.level - level) > 1e-12:
                raise ValueError(f"estimator states level {est.level:g}, the study {level:g}")
            covered += est.contains(truth)
            runs += 1
    if runs == 0:
        raise ValueError("seeds must hold at least one seed")
    ci = binomial_estimate(covered, runs, level=confidence, interval="clopper-pearson")
    return Coverage(covered, runs, level, ci.value, ci.low, ci.high, confidence)
