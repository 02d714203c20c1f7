"""Monte Carlo results: the :class:`Estimate`, its diagnostics, and the intervals behind it.

Probabilities get the exact Clopper-Pearson interval [2] (default: its
coverage is at least the stated level for every trial count and every
probability, by construction), or by name the shorter Wilson score interval
[1] or Jeffreys interval [3], whose coverage dips below the stated level at
small expected counts (:mod:`gctheory.montecarlo.coverage` sums it exactly:
Wilson covers 91.0% at a stated 95% for p = 0.001 and 500 trials). All three
handle zero and all-success counts (the limit is exactly 0 or 1 there).
Means get Hall's skewness-corrected interval
(:mod:`gctheory.montecarlo.summaries`); importance-sampling and splitting
estimates the normal (CLT) interval ``value +- z * sd / sqrt(n)``, which is
only as good as the CLT is for the samples: the :class:`Diagnostics`
attached to the estimate (effective sample size, the largest contribution's
share, a tail-index estimate) say when it is not, and a
:class:`UnreliableEstimateWarning` is issued then.

References
----------
.. [1] E. B. Wilson, "Probable inference, the law of succession, and
   statistical inference", JASA 22 (1927).
.. [2] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
   limits illustrated in the case of the binomial", Biometrika 26 (1934).
.. [3] L. D. Brown, T. T. Cai and A. DasGupta, "Interval estimation for a
   binomial proportion", Statistical Science 16 (2001).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from gctheory._validate import check_choice

__all__ = [
    "Diagnostics",
    "Estimate",
    "PrecisionNotReachedWarning",
    "UnreliableEstimateWarning",
    "binomial_estimate",
]


class UnreliableEstimateWarning(UserWarning):
    """The interval of an estimate cannot be trusted (few effective samples, heavy tails,
    mis-normalised likelihood ratios).

    Examples
    --------
    >>> from gctheory.montecarlo import UnreliableEstimateWarning
    >>> issubclass(UnreliableEstimateWarning, UserWarning)
    True
    """


class PrecisionNotReachedWarning(UserWarning):
    """An adaptive run used its whole trial budget before its precision or event target.

    Examples
    --------
    >>> from gctheory.montecarlo import PrecisionNotReachedWarning
    >>> import warnings
    >>> from gctheory.montecarlo import estimate_probability, Stop
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     est = estimate_probability(lambda rng, size: rng.random(size) < 0.01, 500, rng=0,
    ...                                stop=Stop(events=100))
    >>> caught[0].category.__name__, est.target_met
    ('PrecisionNotReachedWarning', False)
    """


@dataclass(frozen=True)
class Diagnostics:
    """What the samples behind an estimate say about its reliability.

    Every field is None where it does not apply.

    Attributes
    ----------
    ess : float
        Effective sample size (Kish) of the contributions to the estimate:
        ``(sum y)^2 / sum y^2`` over the samples (for importance sampling,
        ``y = w * 1{event}``). A few effective samples mean the interval rests
        on a few draws.
    max_share : float
        The largest single contribution's share: of the sum ``sum y`` for
        importance sampling, of the sum of squared deviations for a mean.
    tail_index : float
        Hill's estimate of the tail index of ``|x|`` (means: from the largest
        5%, at least 20, of at least 200 samples, from the 100 largest of at
        least 2,000):
        below 2 the variance is infinite, below 1 the mean itself.
    tail_index_low : float
        Its one-sided 99% lower confidence limit (``k a / alpha`` is Gamma(k)
        for a Pareto tail); the heavy-tail warnings read this limit: at or
        below 1 the mean may be infinite, at or below 2 (from 2,000 samples)
        the interval is unreliable.
    weight_mean : float
        Importance sampling: the mean of every likelihood ratio drawn, which is
        1 in expectation for an exactly normalised proposal.
    weight_mean_interval : (float, float)
        Its CLT interval at ``z = 4``.
    weight_ess : float
        Importance sampling: effective sample size of all the weights (Kish).
    messages : tuple of str
        The warnings issued for this estimate.
    moments : Moments or None
        Means: the merged sample summary behind the estimate
        (:class:`gctheory.montecarlo.summaries.Moments`: count, mean, sums of squared,
        cubed and fourth-power deviations, extremes, largest magnitudes), from which
        estimates of several runs combine exactly (the sweeps' stats files store it).

    Examples
    --------
    >>> from gctheory.montecarlo import Diagnostics
    >>> from gctheory.montecarlo import estimate_mean
    >>> est = estimate_mean(lambda rng, size: rng.standard_normal(size), 2000, rng=0)
    >>> d = est.diagnostics
    >>> d
    Diagnostics(max_share=0.0102, tail_index=5.436, tail_index_low=4.246)
    >>> d.tail_index_low > 2  # a finite variance: the CLT interval holds
    True
    """

    ess: float | None = None
    max_share: float | None = None
    tail_index: float | None = None
    tail_index_low: float | None = None
    weight_mean: float | None = None
    weight_mean_interval: tuple[float, float] | None = None
    weight_ess: float | None = None
    messages: tuple[str, ...] = ()
    moments: Any = None

    def __repr__(self) -> str:
        parts = []
        for name in (
            "ess",
            "max_share",
            "tail_index",
            "tail_index_low",
            "weight_mean",
            "weight_ess",
        ):
            v = getattr(self, name)
            if v is not None:
                parts.append(f"{name}={v:.4g}")
        if self.weight_mean_interval is not None:
            lo, hi = self.weight_mean_interval
            parts.append(f"weight_mean_interval=[{lo:.4g}, {hi:.4g}]")
        if self.messages:
            parts.append(f"messages={list(self.messages)!r}")
        return f"Diagnostics({', '.join(parts)})"


STOP_REASONS = ("trials", "rel_half_width", "events")


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate with a two-sided confidence interval.

    Attributes
    ----------
    value : float
        Point estimate (a proportion, a sample mean, a weighted mean).
    low, high : float
        Two-sided confidence limits at ``level``.
    trials : int
        Number of independent outcomes behind the estimate.
    level : float
        Confidence level of ``[low, high]``, in (0, 1).
    successes : int or None
        For probabilities, the number of successes (exact); for importance
        sampling, the number of samples that fell in the event; None for means.
    std : float or None
        Sample standard deviation of the terms averaged (means, importance
        sampling); None for binomial proportions.
    method : str
        ``"clopper-pearson"``, ``"wilson"``, ``"jeffreys"``, ``"hall"`` (a mean),
        ``"clt"``, ``"importance"``, ``"splitting"`` or ``"sequential"``: a
        probability run ended by a stop rule, whose interval is the exact one
        for that rule (the stagewise ordering of group sequential designs: a
        run stopped when its count is high for its length has a plain
        interval that covers less than stated)
        -- :func:`gctheory.montecarlo.stopping.events_estimate` for
        ``Stop(events=e)`` (with its unbiased value), and
        :mod:`gctheory.montecarlo.sequential` for ``rel_half_width`` (alone or
        with ``events``; the value stays ``count / n``).
    stopped_by : str
        The rule that ended the run: ``"trials"`` (the trial budget, always the
        case without ``stop=``), ``"rel_half_width"``, ``"events"`` or
        ``"max_seconds"`` (the time bound; ``target_met`` is then False).
    target_met : bool or None
        With ``stop=``, whether the precision or event target was reached
        (False: the budget ran out first, and a
        :class:`PrecisionNotReachedWarning` was issued); None without ``stop=``.
    diagnostics : Diagnostics or None
        Reliability diagnostics (means, importance sampling, splitting).

    Examples
    --------
    >>> from gctheory.montecarlo import Estimate
    >>> est = Estimate(value=0.25, low=0.2, high=0.3, trials=400, level=0.99)
    >>> est
    Estimate(0.25 in [0.2, 0.3] at 99% (clopper-pearson), trials=400)
    >>> est.contains(0.22), round(est.half_width, 3), round(est.rel_half_width, 3)
    (True, 0.05, 0.2)
    """

    value: float
    low: float
    high: float
    trials: int
    level: float
    successes: int | None = None
    std: float | None = None
    method: str = "clopper-pearson"
    stopped_by: str = "trials"
    target_met: bool | None = None
    diagnostics: Diagnostics | None = None

    def contains(self, x: float) -> bool:
        """True if ``x`` lies in the closed interval ``[low, high]``."""
        return bool(self.low <= x <= self.high)

    @property
    def half_width(self) -> float:
        """Half the interval's width, a quick measure of precision."""
        return (self.high - self.low) / 2.0

    @property
    def rel_half_width(self) -> float:
        """Half-width relative to the value (inf when the value is 0)."""
        return self.half_width / abs(self.value) if self.value != 0 else math.inf

    def __repr__(self) -> str:
        count = f", successes={self.successes}" if self.successes is not None else ""
        stop = ""
        if self.target_met is not None:
            stop = f", stopped_by={self.stopped_by!r}"
            if not self.target_met:
                stop += " (budget spent before the target)"
        diag = f", {self.diagnostics!r}" if self.diagnostics is not None else ""
        return (
            f"Estimate({self.value:.6g} in [{self.low:.6g}, {self.high:.6g}] "
            f"at {100 * self.level:g}% ({self.method}), trials={self.trials}{count}{stop}{diag})"
        )

    def __str__(self) -> str:
        return f"{self.value:.4g} [{self.low:.4g}, {self.high:.4g}]"

    # -- notebooks: an HTML view and a pandas row (pandas imported only when asked for)
    def _fields(self) -> dict[str, Any]:
        names = ("value", "low", "high", "trials", "level", "successes", "std", "method",
                 "stopped_by", "target_met")  # fmt: skip
        return {k: getattr(self, k) for k in names}

    def _repr_html_(self) -> str:
        """The estimate as an HTML table (Jupyter shows it in place of the repr)."""
        import html

        cells = [("value", f"{self.value:.6g}"),
                 ("interval", f"[{self.low:.6g}, {self.high:.6g}]"),
                 ("level", f"{100 * self.level:g}% ({self.method})"),
                 ("trials", str(self.trials))]  # fmt: skip
        if self.successes is not None:
            cells.append(("successes", str(self.successes)))
        if self.std is not None:
            cells.append(("std", f"{self.std:.6g}"))
        if self.target_met is not None:
            cells.append(("stopped by", f"{self.stopped_by} (target met: {self.target_met})"))
        if self.diagnostics is not None:
            cells.append(("diagnostics", repr(self.diagnostics)))
        body = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in cells
        )
        return f'<table class="gctheory-estimate"><caption>Estimate</caption>{body}</table>'

    def to_pandas(self) -> Any:
        """A one-row ``pandas.DataFrame`` of the fields (pandas is not a dependency)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "Estimate.to_pandas needs pandas, which gctheory does not install: "
                "pip install pandas"
            ) from None
        return pd.DataFrame([self._fields()])


# ---------------------------------------------------------------------------
# intervals


def check_level(level: Any) -> float:
    """``level`` as a float in the open interval (0, 1)."""
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, numbers.Real):
        raise ValueError(f"level must lie in the open interval (0, 1), got {level!r}")
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in the open interval (0, 1), got {level!r}")
    return level


def z_value(level: float) -> float:
    """Two-sided normal quantile ``z`` with ``P(|Z| <= z) = level``."""
    return float(special.ndtri(0.5 + level / 2.0))


def _wilson_interval(successes: int, trials: int, level: float) -> tuple[float, float]:
    """Wilson score interval [1] for a binomial proportion."""
    z = z_value(level)
    n = float(trials)
    p = successes / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == trials else min(1.0, center + half)
    return low, high


#: From this many successes and failures on, beta quantiles come from a Cornish-Fisher
#: expansion (scipy's betaincinv loses accuracy when both parameters are large: 0.35 sd
#: off at 1e14 of 1e15, nan at 1e16 of 1e17).
BETA_CF_MIN = 10**6


def beta_quantile(a: float, b: float, q: float) -> float:
    """The ``q``-quantile of Beta(``a``, ``b``), accurate at any size of ``a`` and ``b``.

    Below :data:`BETA_CF_MIN` for ``min(a, b)``, scipy's ``betaincinv``
    (accurate there, also when the other parameter is 1e17). From it on, the
    Cornish-Fisher expansion to the order of the excess kurtosis,
    ``mu + sd (z + g1 (z^2 - 1)/6 + g2 (z^3 - 3z)/24 - g1^2 (2z^3 - 5z)/36)``,
    whose remainder is ``O(min(a, b)^(-3/2))`` standard deviations: against an
    mpmath quadrature of the beta density it is within 1e-7 sd at every size
    checked (1e6 to 1e17; tests/test_montecarlo_issue30.py).
    """
    if min(a, b) < BETA_CF_MIN:
        return float(special.betaincinv(a, b, q))
    z = float(special.ndtri(q))
    n = a + b
    mu = a / n
    sd = math.sqrt((a / n) * (b / n) / (n + 1))
    g1 = 2 * (b - a) * math.sqrt(n + 1) / ((n + 2) * math.sqrt(a * b))
    g2 = 6 * ((a - b) ** 2 * (n + 1) - a * b * (n + 2)) / (a * b * (n + 2) * (n + 3))
    w = z + (z * z - 1) * g1 / 6 + (z**3 - 3 * z) * g2 / 24 - (2 * z**3 - 5 * z) * g1 * g1 / 36
    return min(1.0, max(0.0, mu + sd * w))


def _clopper_pearson_interval(successes: int, trials: int, level: float) -> tuple[float, float]:
    """Exact Clopper-Pearson interval [2] from beta quantiles (:func:`beta_quantile`)."""
    alpha = 1.0 - level
    low = 0.0 if successes == 0 else beta_quantile(successes, trials - successes + 1, alpha / 2)
    high = (
        1.0
        if successes == trials
        else beta_quantile(successes + 1, trials - successes, 1 - alpha / 2)
    )
    return low, high


def _jeffreys_interval(successes: int, trials: int, level: float) -> tuple[float, float]:
    """Jeffreys interval (section 4.1.2 of [3]): Beta(k + 1/2, n - k + 1/2) quantiles, with
    the limit exactly 0 at no success and 1 at all successes."""
    alpha = 1.0 - level
    k, f = successes + 0.5, trials - successes + 0.5
    low = 0.0 if successes == 0 else beta_quantile(k, f, alpha / 2)
    high = 1.0 if successes == trials else beta_quantile(k, f, 1 - alpha / 2)
    return low, high


INTERVALS = {
    "clopper-pearson": _clopper_pearson_interval,
    "jeffreys": _jeffreys_interval,
    "wilson": _wilson_interval,
}
#: The interval of every probability unless one is named: its exact coverage is at least
#: the stated level for every trial count and probability (Wilson's and Jeffreys' dip below).
DEFAULT_INTERVAL = "clopper-pearson"


def interval_limits(
    interval: str, successes: np.ndarray, trials: int, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """The limits of ``interval`` for an array of counts out of ``trials`` (vectorised).

    Equal to the scalar kernels of :data:`INTERVALS` (to rounding: the same formulas, one
    array at a time); used by the exact coverage sums of
    :mod:`gctheory.montecarlo.coverage`. ``trials`` below :data:`BETA_CF_MIN` for the beta
    intervals (scipy's ``betaincinv`` is accurate there).
    """
    k = np.asarray(successes, dtype=np.float64)
    n = float(trials)
    alpha = 1.0 - level
    if interval == "wilson":
        z = z_value(level)
        p = k / n
        denom = 1.0 + z * z / n
        center = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low, high = np.maximum(0.0, center - half), np.minimum(1.0, center + half)
    else:
        a_lo, b_lo, a_hi, b_hi = (
            (k, n - k + 1, k + 1, n - k) if interval == "clopper-pearson"
            else (k + 0.5, n - k + 0.5, k + 0.5, n - k + 0.5)
        )  # fmt: skip
        with np.errstate(all="ignore"):
            low = special.betaincinv(a_lo, b_lo, alpha / 2)
            high = special.betaincinv(a_hi, b_hi, 1 - alpha / 2)
    low = np.where(k == 0, 0.0, low)
    high = np.where(k == n, 1.0, high)
    return low, high


def check_interval(interval: Any) -> str:
    return check_choice(interval, "interval", sorted(INTERVALS))


def _is_whole(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, numbers.Integral):
        return True
    return isinstance(x, numbers.Real) and math.isfinite(float(x)) and float(x) == int(float(x))


def binomial_estimate(
    successes: int, trials: int, *, level: float = 0.99, interval: str = DEFAULT_INTERVAL
) -> Estimate:
    """An :class:`Estimate` from an exact count of successes.

    ``interval`` is ``"clopper-pearson"`` (default: exact coverage at least ``level``
    for every ``trials`` and probability), ``"wilson"`` or ``"jeffreys"`` (shorter; their
    coverage dips below ``level`` at small expected counts, see
    :func:`gctheory.montecarlo.coverage.exact_coverage`).

    Parameters
    ----------
    successes : int
        Number of successes, ``0 <= successes <= trials``.
    trials : int
        Number of independent trials, ``>= 1``.
    level : float
        Confidence level in (0, 1).
    interval : {"clopper-pearson", "wilson", "jeffreys"}
        The exact Clopper-Pearson interval (default) or a shorter one.

    Returns
    -------
    Estimate
        ``successes / trials`` with the two-sided interval.

    Examples
    --------
    >>> from gctheory.montecarlo import binomial_estimate
    >>> binomial_estimate(30, 100, interval="wilson")
    Estimate(0.3 in [0.197461, 0.427428] at 99% (wilson), trials=100, successes=30)
    >>> print(binomial_estimate(0, 100, level=0.95, interval="clopper-pearson"))
    0 [0, 0.03622]
    """
    level = check_level(level)
    interval = check_interval(interval)
    if not _is_whole(trials) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    trials = int(trials)
    if not _is_whole(successes) or not 0 <= successes <= trials:
        raise ValueError(
            f"successes must be an integer in [0, trials] = [0, {trials}], got {successes!r}"
        )
    successes = int(successes)
    low, high = INTERVALS[interval](successes, trials, level)
    return Estimate(
        value=successes / trials,
        low=low,
        high=high,
        trials=trials,
        level=level,
        successes=successes,
        method=interval,
    )


def min_rel_half_width(trials: int, level: float, interval: str) -> float:
    """The smallest relative half-width any count out of ``trials`` can give."""
    # the relative half-width decreases with the count: all successes is the best case
    est = binomial_estimate(trials, trials, level=level, interval=interval)
    return est.half_width / est.value
