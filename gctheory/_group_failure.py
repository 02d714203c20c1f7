"""The core of ``gctheory.load_bounds.group_failure``: P(some group of workers fully
straggles) for ``{group size: number of groups}``, exact or at the saddle point.

Private. The codes' own closed forms (:func:`gctheory.codes.dfrc_failure_probability`)
and the load bounds share this one implementation (the d-FRC's
inclusion-exclusion in big integers took over 60 s at n = 10**6 where this answers in
milliseconds). It lives on the bottom floor (numpy only), so the load bounds do not
import the codes package (0.9 s of ``gctheory load``); the old path
``gctheory.codes._group_failure`` still works.
:mod:`gctheory.load_bounds.group_failure` documents the method and re-exports it.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

# exact laws that sum s big-integer binomials C(n - m, s - m) (frc_error_pmf,
# zero_column_count_pmf) refuse beyond this s
_PMF_MAX_S = 10**5


@functools.lru_cache(maxsize=4)
def _tail_binomials(n: int, s: int) -> tuple[int, ...]:
    """(C(n - m, s - m) for m = 0..s) by the exact recurrence C(N-1,S-1) = C(N,S) S / N.

    Cached (a few entries): a scan over the load at fixed ``(n, s)`` (the d-FRC rows of
    ``tradeoff``) asks for the same s + 1 big integers at every load; a tuple, so no
    caller can change the cached values.
    """
    out = [math.comb(n, s)]
    for m in range(s):
        out.append(out[-1] * (s - m) // (n - m))
    return tuple(out)


def _poly_prod_one_minus(sizes: Sequence[int] | Counter, degree: int) -> list[int]:
    """Coefficients of prod_g (1 - z^{a_g}), truncated at ``degree`` (exact integers);
    ``sizes`` a list of group sizes or a Counter ``{size: number of groups}``."""
    poly = [0] * (degree + 1)
    poly[0] = 1
    counts = sizes if isinstance(sizes, Counter) else Counter(sizes)
    for a, x in counts.items():
        # (1 - z^a)^x = sum_j (-1)^j C(x, j) z^{a j}; C(x, j) by the exact recurrence
        # C(x, j + 1) = C(x, j) (x - j) / (j + 1) (math.comb afresh for each j cost 1 s of
        # ``gctheory load --n 1000000 --s 1000``)
        factor, binom = {}, 1
        for j in range(0, min(x, degree // a) + 1):
            factor[a * j] = -binom if j % 2 else binom
            binom = binom * (x - j) // (j + 1)
        new = [0] * (degree + 1)
        for i, c in enumerate(poly):
            if c:
                for m, f in factor.items():
                    if i + m > degree:
                        break
                    new[i + m] += c * f
        poly = new
    return poly


# Exact integer inclusion-exclusion costs about s * (terms per factor) big-integer
# operations; beyond this many it takes seconds to hours, and the float path answers.
_EXACT_BUDGET = 4 * 10**6


_EXACT_MAX_S = 3000  # beyond, even the s big-integer binomials C(n-m, s-m) take seconds


def _exact_cost(s: int, counts: Counter) -> int:
    if s > _EXACT_MAX_S:
        return _EXACT_BUDGET + 1
    return s * sum(min(x, s // a) + 1 for a, x in counts.items())


def _clog1p(w: np.ndarray) -> np.ndarray:
    """Complex ``log(1 + w)`` accurate for small ``|w|`` (numpy's complex ``log1p`` is not:
    it returns 0 for ``-1e-20``)."""
    a, b = w.real, w.imag
    return 0.5 * np.log1p(a * (2 + a) + b * b) + 1j * np.arctan2(b, 1 + a)


def _cexpm1(w: np.ndarray) -> np.ndarray:
    """Complex ``exp(w) - 1`` accurate for small ``|w|``."""
    a, b = w.real, w.imag
    return np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2 + 1j * np.exp(a) * np.sin(b)


def _saddle_coefficient(n: int, s: int, g: Any) -> float:
    """``[z^s] (1+z)^n g(z) / C(n, s)`` for a polynomial ``g`` with non-negative
    coefficients, in floating point.

    On the circle ``|z| = r = s/(n-s)`` (the saddle point of ``(1+z)^n / z^s``) the
    weights ``C(n, j) r^j / (1+r)^n`` are the Binomial(n, s/n) law, peaked at ``j = s``,
    so the Cauchy integral, a mean over ``N`` equally spaced points, gives the
    coefficient with a relative error of about ``1e-13 sqrt(n)``: every coefficient is
    non-negative and the one wanted carries a share ``~1/sqrt(n)`` of the total. ``N``
    covers the whole degree ``n`` (no aliasing) while ``n + 1 <= 64 sigma + 256``
    (``sigma`` the law's standard deviation); beyond, the aliased terms lie 32
    standard deviations out, below ``e^-500`` of the one wanted. The
    cost is ``O(min(n, sqrt(n)))``: ``n = 10**9`` takes milliseconds. The integrand at
    ``conj(z)`` is the conjugate of that at ``z`` (real coefficients), so the mean over
    the whole circle is the real part of the mean over its upper half, the points
    :func:`_saddle_circle` returns.
    """
    z, log_w = _saddle_circle(n, s)
    with np.errstate(divide="ignore", under="ignore"):  # log 0 = -inf: a zero term
        return _saddle_finish(n, s, float(np.real(np.mean(np.exp(log_w + g(z))))))


_MAX_CIRCLE = 1 << 22


def _saddle_size(n: int, s: int) -> int:
    """The number of points on the whole circle of :func:`_saddle_coefficient`."""
    p = s / n
    sigma = math.sqrt(n * p * (1 - p))
    size = 1 << max(6, math.ceil(math.log2(min(n + 1, 64 * sigma + 256))))
    if size > _MAX_CIRCLE:
        raise ValueError(
            f"n: at n = {n}, s = {s} the float path needs {size} points on its circle "
            f"({48 * size / 2**30:.3g} GiB), more than {_MAX_CIRCLE}; n s (n - s) / n must be "
            f"below about {(_MAX_CIRCLE / 64) ** 2:.3g}"
        )
    return size


@functools.lru_cache(maxsize=4)
def _saddle_circle(n: int, s: int) -> tuple[np.ndarray, np.ndarray]:
    """The points ``z`` of the upper half of :func:`_saddle_coefficient`'s circle
    (``0 < theta < pi``; the lower half holds their conjugates) and the log of the
    weight ``(1+z)^n z^-s r^s / (1+r)^n`` at each.

    Cached (a few entries, read-only arrays): a scan over the load at fixed ``(n, s)``
    (``gctheory load``, ``frc_min_load``) evaluates dozens of integrands on one circle.
    """
    size = _saddle_size(n, s)
    r = s / (n - s)
    theta = 2 * np.pi * (np.arange(size // 2) + 0.5) / size  # never z = -1 or real
    z = r * np.exp(1j * theta)
    log_w = n * _clog1p((z - r) / (1 + r)) - 1j * s * theta
    z.flags.writeable = False
    log_w.flags.writeable = False
    return z, log_w


@functools.lru_cache(maxsize=4)
def _saddle_log_t(n: int, s: int) -> np.ndarray:
    """``log(z / (1 + z))`` on :func:`_saddle_circle`'s points (cached, read-only)."""
    z, _ = _saddle_circle(n, s)
    out = np.log(z) - _clog1p(z)
    out.flags.writeable = False
    return out


def _saddle_finish(n: int, s: int, mean: float) -> float:
    return math.exp(math.log(mean) - _log_binom_pmf_at_mean(n, s)) if mean > 0 else 0.0


def _stirlerr(k: int) -> float:
    """``log k! - ((k + 1/2) log k - k + log(2 pi)/2)``, accurate to a few ulps."""
    if k >= 10:
        return _stirling_series(float(k))
    return math.lgamma(k + 1) - (k + 0.5) * math.log(k) + k - 0.5 * math.log(2 * math.pi)


def _stirling_series(x: float) -> float:
    coef = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
    inv2, acc = 1.0 / (x * x), 0.0
    for c in reversed(coef):
        acc = acc * inv2 + c
    return acc / x


def _log_binom_pmf_at_mean(n: int, s: int) -> float:
    """``log P(Binomial(n, s/n) = s)`` without cancellation (Loader's saddle-point form,
    exact at the mean: ``-log(2 pi s (n-s)/n)/2 + e(n) - e(s) - e(n-s)``, ``e`` the
    Stirling error); scipy's ``binom.logpmf`` is off by about 1e-11 here."""
    return (
        -0.5 * math.log(2 * math.pi * s * (n - s) / n)
        + _stirlerr(n)
        - _stirlerr(s)
        - _stirlerr(n - s)
    )


def _group_failure_float(n: int, s: int, counts: Counter) -> float:
    """P(some group fully straggles) for ``counts = {size: number of groups}``:
    ``[z^s] (1+z)^n (1 - prod_a (1 - u_a)^{x_a}) / C(n, s)``, ``u_a = (z/(1+z))^a`` (the
    generating function of the straggler sets that fill a group has non-negative
    coefficients; ``1 - prod`` is evaluated as ``-expm1(sum x_a log1p(-u_a))``, so
    nothing cancels when the probability is tiny)."""
    if s == n:
        return 1.0

    log_t = _saddle_log_t(n, s)

    def g(z: np.ndarray) -> np.ndarray:  # log of 1 - prod_a (1 - t^a)^{x_a}, t = z/(1+z)
        acc = np.zeros_like(z)
        for a, x in counts.items():
            la = a * log_t  # log t^a
            small = la.real < math.log(0.5)
            term = np.empty_like(z)
            term[small] = _clog1p(-np.exp(la[small]))
            # |t^a| >= 1/2: log(1 - t^a) = log(-t^a) + log1p(-t^-a)
            big = ~small
            term[big] = la[big] + 1j * np.pi + _clog1p(-np.exp(-la[big]))
            acc += x * term
        # log(1 - e^acc): -expm1 where acc is small, acc + log(expm1(-acc)) where it is large
        out = np.empty_like(z)
        lo = acc.real < 0.5
        out[lo] = np.log(-_cexpm1(acc[lo]))
        out[~lo] = acc[~lo] + np.log(_cexpm1(-acc[~lo]))
        return out

    return min(1.0, _saddle_coefficient(n, s, g))


def _group_failure(n: int, s: int, counts: Counter) -> Fraction | float:
    """:func:`group_failure_probability` for ``counts = {group size: number of groups}``."""
    counts = Counter({a: x for a, x in counts.items() if a <= s and x})  # larger never fail
    if s == 0 or not counts:
        return Fraction(0)
    if _exact_cost(s, counts) > _EXACT_BUDGET:
        return _group_failure_float(n, s, counts)
    poly = _poly_prod_one_minus(counts, s)
    tails = _tail_binomials(n, s)
    num = -sum(poly[m] * tails[m] for m in range(1, s + 1) if poly[m])
    return Fraction(num, tails[0])
