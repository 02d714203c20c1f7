"""Exact coverage of the binomial intervals, summed over every count.

The coverage of an interval method at ``(n, p, level)`` is the probability that
the interval computed from ``K ~ Binomial(n, p)`` contains ``p``:
``sum_k pmf(k; n, p) 1{low(k) <= p <= high(k)}``. It is a finite sum, so it is
computed, not simulated: :func:`exact_coverage` sums it over the counts whose
probability is not negligible (from the ``tail / 2`` quantile to the
``1 - tail / 2`` quantile of the binomial law) and states the mass it left out,
so the true coverage lies in ``[coverage, coverage + neglected]``.

Clopper-Pearson [1] covers at least the stated level for every ``n`` and ``p``
by construction (each one-sided limit is a test inversion at ``alpha / 2``);
Wilson's and Jeffreys' coverage oscillates around the level and dips below it at
small expected counts ``n p`` [2]. :func:`coverage_table` gives every method's
coverage on a grid and its minimum.

References
----------
.. [1] C. J. Clopper and E. S. Pearson, Biometrika 26 (1934).
.. [2] L. D. Brown, T. T. Cai and A. DasGupta, "Interval estimation for a
   binomial proportion", Statistical Science 16 (2001), Figures 1-5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from gctheory._validate import check_int, check_probability, check_real
from gctheory.montecarlo.estimates import (
    BETA_CF_MIN,
    INTERVALS,
    check_interval,
    check_level,
    interval_limits,
)

__all__ = [
    "GRID_LEVELS",
    "GRID_N",
    "GRID_P",
    "ExactCoverage",
    "coverage_curves",
    "coverage_table",
    "exact_coverage",
]

#: The grid of the published table (docs/coverage.md): levels, trial counts, probabilities.
GRID_LEVELS = (0.9, 0.95, 0.99)
GRID_N = (10, 30, 100, 300, 500, 1000, 2000, 3000, 10**4, 3 * 10**4, 10**5, 3 * 10**5, 10**6)
GRID_P = tuple(float(f"{m}e{e}") for e in range(-6, 0) for m in (1, 1.5, 2, 3, 5, 7)) + (
    0.15,
    0.2,
    0.3,
    0.4,
    0.5,
)
#: Default bound on the binomial mass left out of a coverage sum.
TAIL = 1e-12


@dataclass(frozen=True)
class ExactCoverage:
    """The exact coverage of one interval method at one ``(n, p, level)``.

    ``coverage`` is the sum over the counts kept; the counts left out carry
    ``neglected`` probability in all, so the true coverage lies in
    ``[coverage, coverage + neglected]``.
    """

    method: str
    n: int
    p: float
    level: float
    coverage: float
    neglected: float

    def __float__(self) -> float:
        return self.coverage

    def __str__(self) -> str:
        return (
            f"{self.method} n={self.n} p={self.p:g}: {100 * self.coverage:.4f}% at a stated "
            f"{100 * self.level:g}% (neglected mass <= {self.neglected:.1e})"
        )


def _support(n: int, p: float, tail: float) -> tuple[int, int, float]:
    """Counts ``[a, b]`` holding all but at most ``tail`` of Binomial(n, p), and the rest."""
    law = stats.binom  # not frozen: freezing formats a docstring, a fifth of a grid's time
    a = int(law.ppf(tail / 2, n, p)) if tail > 0 else 0
    b = int(law.isf(tail / 2, n, p)) if tail > 0 else n
    a, b = max(0, a), min(n, max(b, a))
    neglected = (float(law.cdf(a - 1, n, p)) if a > 0 else 0.0) + float(law.sf(b, n, p))
    return a, b, neglected


def exact_coverage(
    method: str, n: int, p: float, level: float, *, tail: float = TAIL
) -> ExactCoverage:
    """The exact coverage of the binomial interval ``method`` at ``n`` trials and ``p``.

    Parameters
    ----------
    method : {"clopper-pearson", "wilson", "jeffreys"}
        The interval, as :func:`gctheory.montecarlo.binomial_estimate` takes it.
    n : int
        Trials, 1 <= n < 10**6 * 2 (the beta quantiles are scipy's there).
    p : float
        The true probability, in (0, 1).
    level : float
        Stated two-sided level, in (0, 1).
    tail : float, keyword-only
        Bound on the binomial mass left out of the sum (the counts below the
        ``tail / 2`` and above the ``1 - tail / 2`` quantiles), in [0, 1e-3];
        0 sums over every count.

    Returns
    -------
    ExactCoverage
        ``sum_k pmf(k) 1{low(k) <= p <= high(k)}`` over the counts kept, and the
        mass left out (at most ``tail``).

    Examples
    --------
    >>> from gctheory.montecarlo.coverage import exact_coverage
    >>> round(exact_coverage("wilson", 500, 1e-3, 0.95).coverage, 3)
    0.91
    >>> exact_coverage("clopper-pearson", 500, 1e-3, 0.95).coverage >= 0.95
    True
    """
    method = check_interval(method)
    n = check_int(n, "n", low=1, high=2 * BETA_CF_MIN - 1)
    p = check_probability(p, "p", open_low=True, open_high=True)
    level = check_level(level)
    tail = check_real(tail, "tail", low=0.0, high=1e-3)
    a, b, neglected = _support(n, p, tail)
    k = np.arange(a, b + 1)
    low, high = interval_limits(method, k, n, level)
    pmf = stats.binom.pmf(k, n, p)
    covered = float(np.sum(pmf[(low <= p) & (p <= high)]))
    return ExactCoverage(method, n, p, level, covered, neglected)


@dataclass(frozen=True)
class CoverageTable:
    """Exact coverages on a grid: ``rows`` of :class:`ExactCoverage`, and per method and
    level the minimum over the grid."""

    rows: tuple[ExactCoverage, ...]

    def minimum(self, method: str, level: float | None = None) -> ExactCoverage:
        """The row of smallest coverage for ``method`` (at ``level``, or at any level as
        the largest shortfall ``level - coverage``)."""
        rows = [r for r in self.rows if r.method == method and (level is None or r.level == level)]
        if not rows:
            raise ValueError(f"method {method!r} at level {level!r} is not in the table")
        return min(rows, key=lambda r: r.coverage - r.level)

    @property
    def max_neglected(self) -> float:
        """The largest mass any row left out of its sum."""
        return max(r.neglected for r in self.rows)


def coverage_table(
    methods: Sequence[str] = tuple(INTERVALS),
    levels: Sequence[float] = GRID_LEVELS,
    ns: Sequence[int] = GRID_N,
    ps: Sequence[float] = GRID_P,
    *,
    tail: float = TAIL,
) -> CoverageTable:
    """:func:`exact_coverage` of every method at every ``(level, n, p)`` of the grid."""
    rows = [
        exact_coverage(m, n, p, lv, tail=tail)
        for m in methods
        for lv in levels
        for n in ns
        for p in ps
    ]
    return CoverageTable(tuple(rows))


def coverage_curves(
    methods: Sequence[str] = tuple(INTERVALS),
    ns: Sequence[int] = (100, 1000, 10**4),
    level: float = 0.95,
    points: int = 120,
    *,
    tail: float = TAIL,
) -> dict[str, list]:
    """Exact coverage against ``p`` on a fine geometric grid (``points`` values from
    ``1 / (10 n)`` to 0.5, per ``n``): the columns ``method, n, p, coverage, neglected``
    of the ``binomial_coverage`` figure."""
    points = check_int(points, "points", low=2, high=10**4)
    out: dict[str, list] = {k: [] for k in ("method", "n", "level", "p", "coverage", "neglected")}
    for m in methods:
        for n in ns:
            for p in np.geomspace(0.1 / n, 0.5, points):
                c = exact_coverage(m, n, float(p), level, tail=tail)
                for k, v in zip(out, (m, n, level, c.p, c.coverage, c.neglected)):
                    out[k].append(v)
    return out
