"""Per-chunk summaries of Monte Carlo outcomes, merged in chunk order.

A run is cut into chunks; each chunk reduces its outcomes to a small summary
and the summaries are merged in chunk order, so the result depends only on the
chunks' seeds and sizes, never on which process ran which chunk or when.

- probabilities: the exact count of successes (an ``int``);
- means: :class:`Moments`, the count, mean and sums of squared, cubed and
  fourth-power deviations of the chunk (two-pass within the chunk, merged by
  the formulas of Chan, Golub and LeVeque [1] and Pebay [3]: numerically
  stable where ``E[X^2] - E[X]^2`` cancels), the extremes and the largest
  magnitudes (for a tail-index estimate);
- importance sampling: :class:`Weighted`, the moments of the weighted terms
  ``y = w 1{event}`` and of the weights ``w`` themselves.

Each summary converts to and from JSON for checkpoints; :func:`decode`
validates every field (types, ranges, consistency with the chunk's size) and
raises :class:`FieldError` naming the field.

References
----------
.. [1] T. F. Chan, G. H. Golub, R. J. LeVeque, "Algorithms for computing the
   sample variance: analysis and recommendations", The American Statistician
   37 (1983).
.. [2] B. M. Hill, "A simple general approach to inference about the tail of a
   distribution", Annals of Statistics 3 (1975).
.. [3] P. Pebay, "Formulas for robust, one-pass parallel computation of
   covariances and arbitrary-order statistical moments", Sandia report
   SAND2008-6212 (2008), eqs. (2.1)-(2.3).
.. [4] P. Hall, "On the removal of skewness by transformation", Journal of the
   Royal Statistical Society B 54 (1992), section 2; the bias-corrected
   skewness as in X.-H. Zhou and P. Dinh, "Nonparametric confidence intervals
   for the one- and two-sample problems", Biostatistics 6 (2005).
"""

from __future__ import annotations

import base64
import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import special

from gctheory.montecarlo.estimates import (
    Diagnostics,
    Estimate,
    UnreliableEstimateWarning,
    z_value,
)
from gctheory.montecarlo.tail_checks import (
    TOP_K,
    hill_order,
    hill_tail_index,
    spacings_messages,
    tail_index_lower,
    tail_messages,
)

#: Below this many draws a mean's interval is flagged: its coverage falls short on
#: skewed laws (Hall's interval on exponential draws at a stated 95%: about 94% with 10
#: draws, 93% with 5, against 94.8% with 30 in docs/coverage.md).
MIN_MEAN_TRIALS = 20
#: A mean's interval is flagged when the sample's excess kurtosis is at least this many
#: times ``sqrt(n)``: the interval's coverage error is of order kurtosis / n, so the rule
#: keeps it below ``n^(-1/2)``; a law with an infinite fourth moment (Pareto 2.5) is
#: flagged at every size, one with a finite kurtosis ``k`` up to about ``k^2`` draws.
KURTOSIS_PER_ROOT_N = 1.0
#: Below this many effective samples an importance-sampling estimate is flagged.
MIN_ESS = 30.0
#: z of the check that the likelihood ratios average to 1.
WEIGHT_CHECK_Z = 4.0
#: The weight-mean check is trusted from this many effective weights on.
WEIGHT_CHECK_MIN_ESS = 100.0


class FieldError(ValueError):
    """A checkpointed summary has a bad field (the message names it)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"field {field!r}: {message}")
        self.field = field


# ---------------------------------------------------------------------------
# moments (n, mean, M2), merged by Chan et al.


def _merge_moments(
    na: int, ma: float, qa: float, nb: int, mb: float, qb: float
) -> tuple[int, float, float]:
    n = na + nb
    delta = mb - ma
    mean = ma + delta * (nb / n)
    m2 = qa + qb + delta * delta * (na * nb / n)
    return n, mean, m2


def _merge_higher(
    na: int, a: tuple[float, float, float], nb: int, b: tuple[float, float, float], delta: float
) -> tuple[float, float]:
    """Pebay's merge [3] of the sums of cubed and fourth-power deviations (``a``, ``b``:
    each part's ``(m2, m3, m4)``; ``delta``: the difference of the parts' means)."""
    n = na + nb
    (m2a, m3a, m4a), (m2b, m3b, m4b) = a, b
    d_n = delta / n
    m3 = m3a + m3b + delta * d_n * d_n * na * nb * (na - nb) + 3 * d_n * (na * m2b - nb * m2a)
    m4 = (
        m4a + m4b + delta * d_n**3 * na * nb * (na * na - na * nb + nb * nb)
        + 6 * d_n * d_n * (na * na * m2b + nb * nb * m2a) + 4 * d_n * (na * m3b - nb * m3a)
    )  # fmt: skip
    return m3, m4


def _moments_of(x: np.ndarray) -> tuple[float, float]:
    mean = float(np.mean(x))
    dev = x - mean
    return mean, float(np.dot(dev, dev))


@dataclass(frozen=True)
class Moments:
    """Summary of real samples: count, mean, sums of squared, cubed and fourth-power
    deviations, extremes, top |x|."""

    n: int
    mean: float
    m2: float
    lo: float
    hi: float
    top: tuple[float, ...]  # largest |x|, descending, at most TOP_K
    m3: float = 0.0
    m4: float = 0.0

    @classmethod
    def of(cls, x: np.ndarray) -> Moments:
        mean = float(np.mean(x))
        dev = x - mean
        sq = dev * dev
        m2, m3, m4 = float(np.sum(sq)), float(np.dot(sq, dev)), float(np.dot(sq, sq))
        a = np.abs(x)
        k = min(TOP_K, a.size)
        top = -np.sort(-np.partition(a, a.size - k)[a.size - k :]) if k else a[:0]
        lo, hi = float(np.min(x)), float(np.max(x))
        return cls(int(x.size), mean, m2, lo, hi, tuple(top.tolist()), m3, m4)

    def merge(self, other: Moments) -> Moments:
        n, mean, m2 = _merge_moments(self.n, self.mean, self.m2, other.n, other.mean, other.m2)
        m3, m4 = _merge_higher(
            self.n, (self.m2, self.m3, self.m4), other.n, (other.m2, other.m3, other.m4),
            other.mean - self.mean,
        )  # fmt: skip
        top = tuple(sorted(self.top + other.top, reverse=True)[:TOP_K])
        return Moments(n, mean, m2, min(self.lo, other.lo), max(self.hi, other.hi), top, m3, m4)

    def shifted(self, c: float) -> Moments | None:
        """The summary of ``x + c`` (None where the largest ``|x + c|`` do not follow from
        those of ``|x|``: exact when every ``x >= 0`` and ``c >= 0``)."""
        if not (self.lo >= 0 and c >= 0):
            return None
        top = tuple(t + c for t in self.top)
        return Moments(self.n, self.mean + c, self.m2, self.lo + c, self.hi + c, top, self.m3,
                       self.m4)  # fmt: skip


def hall_interval(n: int, mean: float, sd: float, skew: float, level: float) -> tuple[float, float]:
    """Hall's skewness-corrected interval [4] for a mean, with Student-t quantiles.

    With ``theta = (mean - mu) / sd`` and the skewness ``g``, Hall's statistic
    ``sqrt(n) (theta + g / (6 n) + g theta^2 / 3 + g^2 theta^3 / 27)`` is
    monotone in ``theta``, and its law is normal to ``o(n^(-1/2))`` (the skewness
    term of the Student statistic's Edgeworth expansion removed). The limits
    invert it at the ``t_(n-1)`` quantiles ``+-q``:
    ``theta(T) = 3 ((1 + g (T / sqrt(n) - g / (6 n)))^(1/3) - 1) / g``,
    ``[mean - sd theta(q), mean - sd theta(-q)]``. ``g = 0`` gives the t interval.
    """
    q = float(special.stdtrit(n - 1, 0.5 + level / 2.0))  # the t_(n-1) quantile
    root_n = math.sqrt(n)

    def theta(t: float) -> float:
        u = t / root_n - skew / (6.0 * n)
        if abs(skew * u) < 1e-6:  # the series: no cancellation
            gu = skew * u
            return u * (1.0 - gu / 3.0 + 5.0 * gu * gu / 27.0)
        return 3.0 * (float(np.cbrt(1.0 + skew * u)) - 1.0) / skew

    return mean - sd * theta(q), mean - sd * theta(-q)


def _shape(m: Moments) -> tuple[float, float]:
    """The sample's bias-corrected skewness G1 and its excess kurtosis (0, 0 when flat)."""
    n = m.n
    if not m.m2 > 0 or n < 3:
        return 0.0, 0.0
    b2 = m.m2 / n
    g1 = (m.m3 / n) / b2**1.5
    skew = g1 * math.sqrt(n * (n - 1)) / (n - 2)
    return skew, (m.m4 / n) / (b2 * b2) - 3.0


def _mean_messages(m: Moments, kurt: float, level: float, kurtosis: bool = True) -> list[str]:
    """Why the sample cannot support ``level`` (few draws; unless ``kurtosis`` is False, a
    large kurtosis)."""
    out = []
    if m.n < MIN_MEAN_TRIALS:
        out.append(
            f"too few draws: {m.n} < {MIN_MEAN_TRIALS}; a mean's interval from so few draws "
            f"covers less than the stated {100 * level:g}% on skewed laws"
        )
    elif kurtosis and kurt >= KURTOSIS_PER_ROOT_N * math.sqrt(m.n):
        out.append(
            f"too few draws for the sample's tail: its excess kurtosis {kurt:.3g} is >= "
            f"sqrt({m.n}) draws, and the interval's coverage error (of order kurtosis / n) "
            f"may exceed 1 - level = {1 - level:.3g}; use more draws"
        )
    return out


def mean_estimate(m: Moments, level: float, *, method: str = "hall", warn: bool = True) -> Estimate:
    """The estimate of a mean from its merged moments: Hall's skewness-corrected interval
    (:func:`hall_interval`), with the warnings of a sample that cannot support ``level``."""
    n = m.n
    var = m.m2 / (n - 1) if n > 1 else math.inf
    sd = math.sqrt(var)
    skew, kurt = _shape(m)
    low, high = hall_interval(n, m.mean, sd, skew, level) if n > 1 else (-math.inf, math.inf)
    # Hall's statistic is centred at mean + sd g / (6 n): at a tiny level the interval could
    # miss the sample mean itself; keep the estimate inside (only ever wider)
    low, high = min(low, m.mean), max(high, m.mean)
    worst = max((m.hi - m.mean) ** 2, (m.lo - m.mean) ** 2)
    share = worst / m.m2 if m.m2 > 0 else 0.0
    k = hill_order(n)
    alpha = hill_tail_index(m.top, k) if k is not None else None
    messages = tail_messages(alpha, n, k) if k is not None else spacings_messages(m.top, n)
    # a heavy tail already says why; the kurtosis follows from it
    messages += _mean_messages(m, kurt, level, kurtosis=not messages)
    if warn:
        for msg in messages:
            warnings.warn(msg, UnreliableEstimateWarning, stacklevel=5)
    finite = alpha is not None and math.isfinite(alpha) and k is not None
    alpha_low = tail_index_lower(alpha, k=k) if finite else None  # type: ignore[arg-type]
    diag = Diagnostics(
        max_share=share, tail_index=alpha, tail_index_low=alpha_low, messages=tuple(messages),
        moments=m,
    )  # fmt: skip
    return Estimate(
        value=m.mean, low=low, high=high, trials=n, level=level, std=sd, method=method,
        diagnostics=diag,
    )  # fmt: skip


def shift_estimate(est: Estimate, c: float) -> Estimate:
    """The estimate of ``E[X] + c`` from that of ``E[X]`` (interval and diagnostics kept,
    the sample summary shifted: :meth:`Moments.shifted`)."""
    d = est.diagnostics
    if d is not None and isinstance(d.moments, Moments):
        d = replace(d, moments=d.moments.shifted(c))
    return replace(est, value=est.value + c, low=est.low + c, high=est.high + c, diagnostics=d)


# ---------------------------------------------------------------------------
# splitting runs: moments of the runs and of their logarithms


@dataclass(frozen=True)
class RunMoments:
    """Summary of independent run estimates: their :class:`Moments`, how many were 0,
    and the mean and sum of squared deviations of the logarithms of the others."""

    raw: Moments
    zeros: int
    log_mean: float
    log_m2: float

    @classmethod
    def of(cls, x: np.ndarray) -> RunMoments:
        pos = x[x > 0]
        log_mean, log_m2 = _moments_of(np.log(pos)) if pos.size else (0.0, 0.0)
        return cls(Moments.of(x), int(x.size - pos.size), log_mean, log_m2)

    def merge(self, o: RunMoments) -> RunMoments:
        na, nb = self.raw.n - self.zeros, o.raw.n - o.zeros
        if na == 0 or nb == 0:
            log_mean, log_m2 = (o.log_mean, o.log_m2) if na == 0 else (self.log_mean, self.log_m2)
        else:
            _, log_mean, log_m2 = _merge_moments(
                na, self.log_mean, self.log_m2, nb, o.log_mean, o.log_m2
            )
        return RunMoments(self.raw.merge(o.raw), self.zeros + o.zeros, log_mean, log_m2)


# ---------------------------------------------------------------------------
# importance sampling


@dataclass(frozen=True)
class Weighted:
    """Summary of importance-sampling terms ``y = w 1{event}`` and weights ``w``."""

    n: int
    hits: int
    y_mean: float
    y_m2: float
    y_max: float
    w_mean: float
    w_m2: float

    @classmethod
    def of(cls, hits: np.ndarray, w: np.ndarray) -> Weighted:
        y = np.where(hits, w, 0.0)
        y_mean, y_m2 = _moments_of(y)
        w_mean, w_m2 = _moments_of(w)
        return cls(
            int(w.size),
            int(np.count_nonzero(hits)),
            y_mean,
            y_m2,
            float(np.max(y)),
            w_mean,
            w_m2,
        )

    def merge(self, o: Weighted) -> Weighted:
        n, y_mean, y_m2 = _merge_moments(self.n, self.y_mean, self.y_m2, o.n, o.y_mean, o.y_m2)
        _, w_mean, w_m2 = _merge_moments(self.n, self.w_mean, self.w_m2, o.n, o.w_mean, o.w_m2)
        return Weighted(n, self.hits + o.hits, y_mean, y_m2, max(self.y_max, o.y_max), w_mean, w_m2)


def weighted_estimate(
    s: Weighted, level: float, *, warn: bool = True, full_support: bool = True
) -> Estimate:
    """The weighted (importance-sampling) estimate with its CLT interval and diagnostics.

    ``full_support=False`` (a proposal that lives on the event only, whose
    weights average to the probability itself) skips the check that the weights
    average to 1.
    """
    n = s.n
    sd = math.sqrt(s.y_m2 / (n - 1)) if n > 1 else math.inf
    half = z_value(level) * sd / math.sqrt(n)
    total = s.y_mean * n
    sum_sq = s.y_m2 + n * s.y_mean * s.y_mean
    ess = total * total / sum_sq if sum_sq > 0 else 0.0
    share = s.y_max / total if total > 0 else None
    w_sd = math.sqrt(s.w_m2 / (n - 1)) if n > 1 else math.inf
    w_half = WEIGHT_CHECK_Z * w_sd / math.sqrt(n)
    w_sum_sq = s.w_m2 + n * s.w_mean * s.w_mean
    w_ess = (s.w_mean * n) ** 2 / w_sum_sq if w_sum_sq > 0 else 0.0
    messages = []
    low, high = s.y_mean - half, s.y_mean + half
    if s.hits == 0:
        high = math.inf
        messages.append(
            f"no sample of {n} fell in the event: the weighted estimate is 0 and has no upper "
            "limit; use more trials or a proposal that reaches the event"
        )
    elif ess < MIN_ESS:
        messages.append(
            f"the estimate rests on few samples: effective sample size {ess:.3g} "
            f"(< {MIN_ESS:g}) from {s.hits} hits, the largest weight carries "
            f"{100 * (share or 0):.3g}% of the sum; the CLT interval is unreliable"
        )
    if full_support and w_ess >= WEIGHT_CHECK_MIN_ESS and abs(s.w_mean - 1.0) > w_half:
        messages.append(
            f"the likelihood ratios average to {s.w_mean:.6g} (+- {w_half:.3g} at z = "
            f"{WEIGHT_CHECK_Z:g}) over {n} samples, but to 1 for an exactly normalised "
            "proposal: the proposal's weights are mis-normalised"
        )
    if warn:
        for msg in messages:
            warnings.warn(msg, UnreliableEstimateWarning, stacklevel=5)
    diag = Diagnostics(
        ess=ess,
        max_share=share,
        weight_mean=s.w_mean,
        weight_mean_interval=(s.w_mean - w_half, s.w_mean + w_half),
        weight_ess=w_ess,
        messages=tuple(messages),
    )
    return Estimate(
        value=s.y_mean,
        low=low,
        high=high,
        trials=n,
        level=level,
        successes=s.hits,
        std=sd,
        method="importance",
        diagnostics=diag,
    )


# ---------------------------------------------------------------------------
# JSON for checkpoints (floats exact: hex; arrays: base64 of little-endian float64)


def _hex(x: float) -> str:
    return float(x).hex()


def _unhex(obj: dict, field: str, *, low: float | None = None, finite: bool = True) -> float:
    v = obj.get(field)
    if not isinstance(v, str):
        raise FieldError(field, f"must be a hex float string, got {v!r}")
    try:
        x = float.fromhex(v)
    except (ValueError, OverflowError):
        raise FieldError(field, f"is not a hex float: {v!r}") from None
    if math.isnan(x) or (finite and math.isinf(x)):
        raise FieldError(field, f"must be finite, got {x}")
    if low is not None and x < low:
        raise FieldError(field, f"must be >= {low:g}, got {x:g}")
    return x


def _int_field(obj: dict, field: str, low: int, high: int) -> int:
    v = obj.get(field)
    if isinstance(v, bool) or not isinstance(v, int):
        raise FieldError(field, f"must be an integer, got {v!r}")
    if not low <= v <= high:
        raise FieldError(field, f"must lie in [{low}, {high}], got {v}")
    return v


def _keys(obj: Any, keys: set[str], field: str) -> dict:
    if not isinstance(obj, dict):
        raise FieldError(field, f"must be a JSON object, got {type(obj).__name__}")
    if set(obj) != keys:
        raise FieldError(field, f"must have exactly the keys {sorted(keys)}, got {sorted(obj)}")
    return obj


_MOMENT_KEYS = {"n", "mean", "m2", "m3", "m4", "lo", "hi", "top"}
_WEIGHTED_KEYS = {"n", "hits", "y_mean", "y_m2", "y_max", "w_mean", "w_m2"}


def encode(kind: str, s: Any) -> Any:
    """JSON-ready form of a chunk summary of ``kind``."""
    if kind == "probability":
        return int(s)
    if kind == "splitting":
        return {
            "raw": encode("mean", s.raw),
            "zeros": s.zeros,
            "log_mean": _hex(s.log_mean),
            "log_m2": _hex(s.log_m2),
        }
    if kind == "mean":
        top = base64.b64encode(np.asarray(s.top, dtype="<f8").tobytes()).decode("ascii")
        return {
            "n": s.n,
            "mean": _hex(s.mean),
            "m2": _hex(s.m2),
            "m3": _hex(s.m3),
            "m4": _hex(s.m4),
            "lo": _hex(s.lo),
            "hi": _hex(s.hi),
            "top": top,
        }
    return {
        "n": s.n,
        "hits": s.hits,
        "y_mean": _hex(s.y_mean),
        "y_m2": _hex(s.y_m2),
        "y_max": _hex(s.y_max),
        "w_mean": _hex(s.w_mean),
        "w_m2": _hex(s.w_m2),
    }


def _close_le(a: float, b: float) -> bool:
    """a <= b up to rounding of a mean of values (a few ulps)."""
    return a <= b + 1e-12 * max(abs(a), abs(b), 1e-300)


def decode(kind: str, obj: Any, size: int) -> Any:
    """A chunk summary of ``kind`` for a chunk of ``size`` outcomes, every field validated."""
    if kind == "probability":
        if isinstance(obj, bool) or not isinstance(obj, int):
            raise FieldError("r", f"must be an integer count of successes, got {obj!r}")
        if not 0 <= obj <= size:
            raise FieldError("r", f"must lie in [0, {size}] (the chunk's size), got {obj}")
        return obj
    if kind == "splitting":
        o = _keys(obj, {"raw", "zeros", "log_mean", "log_m2"}, "r")
        raw = decode("mean", o["raw"], size)
        zeros = _int_field(o, "zeros", 0, size)
        if raw.lo < 0:
            raise FieldError("lo", f"a run's estimate must be >= 0, got {raw.lo}")
        if (zeros > 0) != (raw.lo == 0):
            raise FieldError("zeros", f"{zeros} runs at 0 disagrees with the smallest run {raw.lo}")
        return RunMoments(raw, zeros, _unhex(o, "log_mean"), _unhex(o, "log_m2", low=0.0))
    if kind == "mean":
        o = _keys(obj, _MOMENT_KEYS, "r")
        n = _int_field(o, "n", size, size)
        mean, m2 = _unhex(o, "mean"), _unhex(o, "m2", low=0.0)
        m3, m4 = _unhex(o, "m3"), _unhex(o, "m4", low=0.0)
        lo, hi = _unhex(o, "lo"), _unhex(o, "hi")
        if not (lo <= hi and _close_le(lo, mean) and _close_le(mean, hi)):
            raise FieldError("mean", f"must satisfy lo <= mean <= hi, got {lo}, {mean}, {hi}")
        if not isinstance(o["top"], str):
            raise FieldError("top", "must be a base64 string")
        try:
            raw = base64.b64decode(o["top"].encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError):
            raise FieldError("top", "is not valid base64") from None
        top = np.frombuffer(raw, dtype="<f8") if len(raw) % 8 == 0 else None
        if top is None or top.size != min(TOP_K, n):
            raise FieldError("top", f"must hold min({TOP_K}, n) = {min(TOP_K, n)} float64 values")
        if not (np.all(np.isfinite(top)) and np.all(top >= 0) and np.all(np.diff(top) <= 0)):
            raise FieldError("top", "must be finite, >= 0 and descending")
        if top.size and not _close_le(top[0], max(abs(lo), abs(hi))):
            raise FieldError("top", "its largest value exceeds max(|lo|, |hi|)")
        return Moments(n, mean, m2, lo, hi, tuple(float(t) for t in top), m3, m4)
    o = _keys(obj, _WEIGHTED_KEYS, "r")
    n = _int_field(o, "n", size, size)
    hits = _int_field(o, "hits", 0, n)
    y_mean, y_m2 = _unhex(o, "y_mean", low=0.0), _unhex(o, "y_m2", low=0.0)
    y_max = _unhex(o, "y_max", low=0.0)
    w_mean, w_m2 = _unhex(o, "w_mean", low=0.0), _unhex(o, "w_m2", low=0.0)
    if hits == 0 and (y_mean != 0 or y_max != 0):
        raise FieldError("hits", "is 0 but the weighted terms are not")
    if not _close_le(y_mean, y_max):
        raise FieldError("y_mean", f"exceeds y_max ({y_mean} > {y_max})")
    return Weighted(n, hits, y_mean, y_m2, y_max, w_mean, w_m2)
