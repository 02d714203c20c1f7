"""Heavy-tail checks behind a mean's interval: Hill's tail index and its lower limit,
and the exponential-spacings test at small sizes.

A Monte Carlo mean (:mod:`gctheory.montecarlo.summaries`) keeps the largest
magnitudes of its draws; these functions read them. Hill's estimator [1]_ of
the tail index ``alpha`` from the ``k`` largest is Gamma-distributed under a
Pareto tail (``k alpha / alpha_hat ~ Gamma(k, 1)``), which gives an exact lower
confidence limit; below :data:`TAIL_SMALL_SAMPLES` draws the spacings of the
top order statistics, scaled by rank, are i.i.d. exponential under an
exponential tail, so the ratio of the top fifth's mean to the rest's is
F-distributed exactly (:func:`spacings_tail_test`).

References
----------
.. [1] B. M. Hill, "A simple general approach to inference about the tail of a
   distribution", Annals of Statistics 3 (1975).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

__all__ = [
    "TOP_K",
    "TAIL_MIN_SAMPLES",
    "TAIL_SMALL_SAMPLES",
    "HILL_MIN_EXCESSES",
    "TAIL_CONFIDENCE",
    "hill_tail_index",
    "tail_index_lower",
    "hill_order",
    "tail_messages",
    "spacings_tail_test",
    "spacings_messages",
]

#: Largest magnitudes kept per chunk for Hill's tail-index estimate.
TOP_K = 100
#: From this many samples on, the tail index is estimated from the ``TOP_K - 1`` largest
#: (k / n <= 5%) and the heavy-tail warning reads its lower limit against 2 (the variance
#: may be infinite); the index is estimated from :data:`TAIL_SMALL_SAMPLES` on, from the
#: largest 5% (k = n // 20), and there the warning reads its lower limit against 1.
TAIL_MIN_SAMPLES = 2000
#: From this many samples on, Hill's index from the largest 5% (at least 20 of them: with
#: 10, an exponential sample's lower limit fell to 1 in 3.5% of samples of 200 draws,
#: against the stated 1%). Below it, the exponential-spacings test
#: (:func:`spacings_tail_test`) judges the tail.
TAIL_SMALL_SAMPLES = 200
#: Hill's index at fewer than :data:`TAIL_MIN_SAMPLES` samples uses at least this many
#: excesses.
HILL_MIN_EXCESSES = 20
#: One-sided confidence of the lower limit of the tail index that the heavy-tail
#: warnings read.
TAIL_CONFIDENCE = 0.99


def hill_tail_index(top: tuple[float, ...], k: int = TOP_K - 1) -> float | None:
    """Hill's estimate [2] of the tail index from the ``k + 1`` largest magnitudes ``top``
    (descending; None if undefined)."""
    if len(top) < k + 1 or k < 1:
        return None
    if not top[k] > 0:
        return None
    h = float(np.mean(np.log(np.asarray(top[:k])) - math.log(top[k])))
    return math.inf if h <= 0 else 1.0 / h


def tail_index_lower(
    alpha: float, confidence: float = TAIL_CONFIDENCE, k: int = TOP_K - 1
) -> float:
    """One-sided lower confidence limit of the tail index behind Hill's estimate ``alpha``.

    For a Pareto tail of index ``a`` above the ``(k+1)``-th largest value, the
    ``k`` log-excesses are independent Exp(``a``), so ``k a / alpha`` is
    Gamma(``k``, 1) [2]: ``a >= alpha * G_(1-c) / k`` with confidence ``c``,
    ``G_(1-c)`` the Gamma(``k``) quantile (``k = 99``, ``c = 0.99``: 0.78 alpha).
    """
    return alpha * float(special.gammaincinv(k, 1.0 - confidence)) / k


def hill_order(n: int) -> int | None:
    """How many log-excesses Hill's estimate uses at ``n`` samples (None: too few).

    ``TOP_K - 1`` from :data:`TAIL_MIN_SAMPLES` on; the largest 5% (``n // 20``, at
    least :data:`HILL_MIN_EXCESSES`) from :data:`TAIL_SMALL_SAMPLES` on.
    """
    if n >= TAIL_MIN_SAMPLES:
        return TOP_K - 1
    if n >= TAIL_SMALL_SAMPLES:
        return max(HILL_MIN_EXCESSES, n // 20)
    return None


def tail_messages(alpha: float | None, n: int, k: int = TOP_K - 1) -> list[str]:
    """The heavy-tail warnings for Hill's estimate ``alpha`` from ``k`` excesses of ``n``.

    The rule reads the lower confidence limit of the tail index
    (:func:`tail_index_lower`), not the estimate itself: the tail may be as
    heavy as the limit. At or below 1 the mean may be infinite; at or below 2
    (read only with ``k = TOP_K - 1``, from :data:`TAIL_MIN_SAMPLES` samples: with
    fewer excesses a light tail's lower limit falls below 2 as well) the
    variance may be, and the interval is unreliable. Normal and exponential
    samples stay far above these limits (their Hill index grows with ``n``).
    """
    if alpha is None or not math.isfinite(alpha):
        return []
    low = tail_index_lower(alpha, k=k)
    where = (
        f"Hill's tail-index estimate from the {k + 1} largest |x| of {n} samples is "
        f"{alpha:.3g}, its {100 * TAIL_CONFIDENCE:g}% lower confidence limit {low:.3g}"
    )
    if low <= 1.0:
        return [
            f"heavy tail: {where} <= 1, so the mean may be infinite and the interval is meaningless"
        ]
    if low <= 2.0 and k >= TOP_K - 1:
        return [
            f"heavy tail: {where} <= 2, so the variance may be infinite and the interval "
            "is unreliable (it may exclude the mean)"
        ]
    return []


def spacings_tail_test(top: tuple[float, ...], n: int) -> tuple[float, float, int] | None:
    """Test of an exponential tail against a heavier one, exact at any sample size.

    Of the ``k = n // 2`` largest magnitudes above the ``(k+1)``-th, the normalised
    spacings ``D_i = i (x_(i) - x_(i+1))`` (``x_(1)`` the largest) are independent
    exponentials of one scale when the tail is exponential (Renyi's representation;
    exact for every ``n`` for an exponential law, lighter tails spread them less). A
    heavier tail inflates the top ones: with ``j = max(1, k // 5)``,
    ``F = mean(D_1..D_j) / mean(D_(j+1)..D_k)`` is F(2j, 2(k - j)) under an exponential
    tail, and the test rejects it at the p-value ``P(F' >= F)``.

    Returns ``(F, p, k)``, or None when it cannot be judged: fewer than 4 magnitudes, more
    than ``len(top)`` needed, or ties among them (a discrete law, for which the
    representation does not hold).
    """
    k = n // 2
    if k < 2 or len(top) < k + 1:
        return None
    x = np.asarray(top[: k + 1], dtype=float)
    gaps = x[:-1] - x[1:]
    if not np.all(gaps > 0):
        return None
    d = np.arange(1, k + 1) * gaps
    j = max(1, k // 5)
    f = float(np.mean(d[:j]) / np.mean(d[j:]))
    return f, float(special.fdtrc(2 * j, 2 * (k - j), f)), k


def spacings_messages(top: tuple[float, ...], n: int) -> list[str]:
    """The heavy-tail warning below :data:`TAIL_SMALL_SAMPLES` draws: the largest draws are
    spread more than an exponential tail allows (:func:`spacings_tail_test` at
    ``1 - TAIL_CONFIDENCE``). Hall's interval, which corrects the skewness of light and
    exponential tails, covers less than its level on such samples (lognormal, Pareto)."""
    test = spacings_tail_test(top, n)
    if test is None or test[1] > 1.0 - TAIL_CONFIDENCE:
        return []
    f, p, k = test
    return [
        f"heavy tail: the {k} largest |x| of {n} draws are spread more than an exponential "
        f"tail allows (spacings test F = {f:.3g}, p = {p:.2g} < {1 - TAIL_CONFIDENCE:g}); "
        "with so few draws the interval may cover less than the stated level, and the "
        "variance or even the mean may be infinite: use more draws"
    ]
