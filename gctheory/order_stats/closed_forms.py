"""Closed-form moments of order statistics: exponential, shifted exponential, Pareto.

* exponential and shifted exponential: Renyi's representation, harmonic sums
  ``H_n - H_{n-k}`` ([2]_ eq. (21), [3]_ eq. (21)), kept at full double precision
  for every ``n`` (:func:`harmonic_difference`);
* Pareto: Vannman's gamma ratio ([1]_ Appendix 8.4, [2]_ eq. (22)), with
  log-gamma differences that keep full precision at large ``n``; where they would
  cancel (``k << n``), the ratio written out as a ``k``-term product of one-signed
  factors (``k <= 2000``), and mpmath beyond.

References
----------
.. [1] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving
   distributed gradient descent using Reed-Solomon codes", 2017 (halbawi2017).
.. [2] J. Zhang and O. Simeone, "LAGC: Lazily aggregated gradient coding
   for straggler-tolerant and communication-efficient distributed learning",
   2020 (zhang2020).
.. [3] J. Xu, S.-L. Huang, L. Song, T. Lan, "Live gradient compensation for evading
   stragglers in distributed learning", 2021 (xu2021).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from gctheory._validate import check_int
from gctheory.order_stats._common import OrderStatMoments, _exp_checked

__all__ = [
    "harmonic_difference",
]


def harmonic_difference(n: int, k: int, power: int = 1) -> float:
    """``sum_{j=n-k+1}^{n} j**(-power)``, i.e. ``H_n - H_{n-k}`` for ``power=1``.

    ``math.fsum`` of the terms for ``k <= 10**5`` terms all below ``2**53``;
    otherwise the polygamma difference ``(-1)^p (psi^(p-1)(n+1) - psi^(p-1)(n-k+1))
    / (p-1)!`` in mpmath, with enough digits for the cancellation between the two
    (about ``log10(n)`` digits are lost when ``k << n``), so the result keeps full
    double precision for every ``n``.

    Parameters
    ----------
    n : int
        Upper end of the sum, ``>= 1``.
    k : int
        Number of terms, ``0 <= k <= n``.
    power : int
        The exponent ``p >= 1``.

    Returns
    -------
    float
        ``sum_{j=n-k+1}^{n} j^(-p)`` to double precision.

    Examples
    --------
    >>> from gctheory.order_stats import harmonic_difference
    >>> harmonic_difference(3, 3)  # H_3 = 11/6
    1.8333333333333333
    >>> round(harmonic_difference(10**9, 10), 15)
    1e-08
    >>> round(harmonic_difference(3, 3, power=2), 6)
    1.361111
    """
    n = check_int(n, "n", low=0)
    k = check_int(k, "k", low=0, high=n)
    power = check_int(power, "power", low=1, high=1000)
    if k == 0:
        return 0.0
    if power <= 2 and k > _HARMONIC_SUM_MAX and n - k + 1 >= _HARMONIC_SERIES_MIN and n < 2**53:
        return _polygamma_difference(n, k, power)
    if k <= 100_000 and n < 2**53:
        return math.fsum(math.pow(float(j), -power) for j in range(n - k + 1, n + 1))
    m = n - k + 1
    # digits lost: the polygamma values are ~ m^(1-p) (or log n), the difference ~ k m^(-p)
    lost = max(0, math.ceil(math.log10(n + 1) - math.log10(k))) + 2 * math.ceil(math.log10(n + 1))
    with mp.workdps(30 + lost):
        if power == 1:
            v = mp.psi(0, n + 1) - mp.psi(0, m)
        else:
            v = (mp.psi(power - 1, m) - mp.psi(power - 1, n + 1)) * (-1) ** power
            v = v / mp.factorial(power - 1)
        return float(v)


#: up to this many terms the sum itself (math.fsum, correctly rounded terms); above it the
#: O(1) asymptotic difference of :func:`_polygamma_difference`
_HARMONIC_SUM_MAX = 64
#: smallest m = n - k + 1 for the asymptotic series (its truncation error is below 1e-17
#: there)
_HARMONIC_SERIES_MIN = 16

# Bernoulli numbers B_2 .. B_16
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def _polygamma_difference(n: int, k: int, power: int) -> float:
    """``sum_{j=m}^{n} j^(-power)``, ``m = n - k + 1 >= 16``, in O(1) (``power`` 1 or 2).

    ``psi(n + 1) - psi(m)`` (``power = 1``) or ``psi'(m) - psi'(n + 1)`` (``power = 2``)
    from the asymptotic series ``psi(x) = log x - 1/(2x) - sum B_2j / (2j x^2j)`` and
    ``psi'(x) = 1/x + 1/(2x^2) + sum B_2j / x^(2j+1)``, differenced term by term so
    nothing cancels: the leading difference is ``log1p(k/m)`` (or ``k/(m (n+1))``), the
    next ones are formed from ``k`` directly, and the series terms are below ``1e-17`` of
    the result. Relative error a few ulps (checked against mpmath in the tests), where
    the digamma values themselves would lose ``log10(n/k)`` digits to cancellation.
    """
    m, N = float(n - k + 1), float(n + 1)
    kk = float(k)
    if power == 1:
        out = math.log1p(kk / m) + kk / (2.0 * m * N)
        for j, b in enumerate(_BERNOULLI, start=1):
            out += b / (2 * j) * (m ** (-2 * j) - N ** (-2 * j))
        return out
    out = kk / (m * N) + kk * (m + N) / (2.0 * m * m * N * N)
    for j, b in enumerate(_BERNOULLI, start=1):
        out += b * (m ** (-2 * j - 1) - N ** (-2 * j - 1))
    return out


def _exponential_moments(delta: float, mu: float, k: int, n: int) -> OrderStatMoments:
    # Renyi: X_(k:n) = delta + mu * sum_{j=n-k+1}^{n} E_j / j, E_j i.i.d. Exp(1).
    mean = delta + mu * harmonic_difference(n, k, 1)
    var = mu * mu * harmonic_difference(n, k, 2)
    return OrderStatMoments(mean, var, "closed-exponential")


# Stirling series of log Gamma: B_{2j} / (2j (2j - 1)), j = 1..8 (enough for x >= 10)
_STIRLING = (
    1 / 12,
    -1 / 360,
    1 / 1260,
    -1 / 1680,
    1 / 1188,
    -691 / 360360,
    1 / 156,
    -3617 / 122400,
)


def _stirling_tail(x: float) -> float:
    """``log Gamma(x) - ((x - 1/2) log x - x + log(2 pi)/2)`` for ``x >= 10``."""
    inv2 = 1.0 / (x * x)
    acc = 0.0
    for c in reversed(_STIRLING):
        acc = acc * inv2 + c
    return acc / x


def _lgamma_diff(x: float, c: float) -> float:
    """``log Gamma(x + c) - log Gamma(x)`` for ``x > 0``, ``c >= 0``, to a few ulps of
    ``c * log(x + c)`` -- not of ``log Gamma(x)``, which is what subtracting two
    ``gammaln`` loses at large ``x`` (``gammaln(1e8) ~ 1.7e9``, so 2e-7 absolute).

    Stirling's series differenced term by term, ``(x - 1/2) log1p(c/x) + c log(x + c)
    - c + S(x + c) - S(x)``, after moving ``x`` to ``>= 10`` by the recurrence
    ``Gamma(x + 1) = x Gamma(x)``.
    """
    shift = 0.0
    while x < 10.0:
        shift -= math.log1p(c / x)
        x += 1.0
    return (
        (x - 0.5) * math.log1p(c / x)
        + c * math.log(x + c)
        - c
        + _stirling_tail(x + c)
        - _stirling_tail(x)
        + shift
    )


def _pareto_log_moment(n: int, m: int, c: float) -> tuple[float, float]:
    """``log E[Y_(k:n)^r]`` for Pareto(scale 1, shape xi), ``c = r/xi < m = n - k + 1``:
    ``log [Gamma(n+1) Gamma(m-c) / (Gamma(m) Gamma(n+1-c))]``, and a bound on its
    absolute rounding error."""
    a = _lgamma_diff(n + 1 - c, c)
    b = _lgamma_diff(m - c, c)
    return a - b, 4 * 2.0**-52 * (abs(a) + abs(b) + c + 1)


def _pareto_moments_mp(xi: float, k: int, n: int) -> tuple[float, float]:
    """``(E[Y], Var[Y] / E[Y]^2)`` of the Pareto(1, xi) order statistic in mpmath, with
    digits enough for ``log Gamma(n+1) ~ n log n`` and for the variance's cancellation
    (``Var / E^2 ~ 1/(n xi)^2`` for ``k = 1``)."""
    m = n - k + 1
    digits = math.ceil(math.log10(n + 1))
    with mp.workdps(30 + 3 * digits + max(0, math.ceil(math.log10(1 + 1 / xi)))):
        c = 1 / mp.mpf(xi)
        lg_n, lg_m = mp.loggamma(n + 1), mp.loggamma(m)
        l1 = lg_n + mp.loggamma(m - c) - lg_m - mp.loggamma(n + 1 - c)
        e1 = _exp_checked(float(l1), "dist", f"Pareto order statistic {k} of {n}, xi = {xi:g}")
        if m <= 2 * c:
            return e1, math.inf
        l2 = lg_n + mp.loggamma(m - 2 * c) - lg_m - mp.loggamma(n + 1 - 2 * c)
        return e1, float(mp.expm1(l2 - 2 * l1))


# relative error allowed on the float path before falling back to mpmath
_MEAN_TOL, _VAR_TOL = 1e-13, 1e-12


#: largest k for the product form of :func:`_pareto_by_products` (O(k) work; mpmath costs
#: about as much as 2000 terms)
_PARETO_PRODUCT_MAX_K = 2000


def _pareto_by_products(xi: float, k: int, n: int) -> tuple[float, float]:
    """``(E[Y], Var[Y] / E[Y]^2)`` of the Pareto(1, xi) order statistic from the k-term
    products ``E[Y] = prod_{j=m}^{n} j/(j - c)`` (``c = 1/xi``, ``m = n - k + 1``) and
    ``E[Y^2]/E[Y]^2 = prod_{j=m}^{n} (j - c)^2 / (j (j - 2c)) = prod (1 + c^2/(j (j - 2c)))``,
    the gamma ratios written out (``Gamma(x + 1) = x Gamma(x)``). Every log term has
    one sign, so the sums lose nothing: ``log E[Y]`` and ``log(E[Y^2]/E[Y]^2)`` to a
    relative error of at most ``8 * 2^-52`` (each term within 3 ulps, ``math.fsum``
    exact), where the gamma-function form cancels when ``k << n``. Requires ``m > 2c``
    for the variance (else it is returned infinite) and ``m > c``.
    """
    m = n - k + 1
    c = 1.0 / xi
    j = np.arange(m, n + 1, dtype=float)
    l1 = -math.fsum(np.log1p(-c / j))
    e1 = _exp_checked(l1, "dist", f"Pareto order statistic {k} of {n}, xi = {xi:g}")
    if m <= 2 * c:
        return e1, math.inf
    dl = math.fsum(np.log1p(c * c / (j * (j - 2 * c))))
    return e1, math.expm1(dl)


def _pareto_raw_moment(xi: float, k: int, n: int, r: int) -> float:
    """``E[Y_(k:n)^r]`` for Pareto(scale 1, shape xi); inf if ``n-k+1 <= r/xi``."""
    m = n - k + 1
    if m * xi <= r:
        return math.inf
    logv, err = _pareto_log_moment(n, m, r / xi)
    if (err > _MEAN_TOL or n >= 2**50) and k <= _PARETO_PRODUCT_MAX_K:
        e1, rel = _pareto_by_products(xi, k, n)
        return e1 if r == 1 else e1 * e1 * (1 + rel)
    if err > _MEAN_TOL or n >= 2**50:
        e1, rel = _pareto_moments_mp(xi, k, n)
        return e1 if r == 1 else e1 * e1 * (1 + rel)
    return _exp_checked(logv, "dist", f"Pareto order statistic {k} of {n}, xi = {xi:g}")


def _pareto_moments(loc: float, t0: float, xi: float, k: int, n: int) -> OrderStatMoments:
    """Vannman's closed form, evaluated so that the mean keeps full double precision
    at every ``n`` (the support bound ``mean > loc + t0`` holds) and the variance
    is computed as ``E^2 expm1(log E[Y^2] - 2 log E[Y])``, not as the cancelling
    ``E[Y^2] - E[Y]^2``."""
    m = n - k + 1
    if m * xi <= 1:
        reason = (
            f"Pareto mean of the {k}-th of {n} is infinite: n - k + 1 = {m} <= 1/xi = {1 / xi:.6g}"
        )
        return OrderStatMoments(math.inf, math.inf, "closed-pareto", reason)
    c = 1 / xi
    l1, err1 = _pareto_log_moment(n, m, c) if n < 2**50 else (0.0, math.inf)
    rel = math.inf
    if m * xi > 2 and err1 <= _MEAN_TOL:
        l2, err2 = _pareto_log_moment(n, m, 2 * c)
        dl = l2 - 2 * l1
        if dl > 0 and (err2 + 2 * err1) <= _VAR_TOL * dl:
            rel = math.expm1(dl)
        else:
            rel = math.nan  # cancellation: go to mpmath
    if (err1 > _MEAN_TOL or math.isnan(rel)) and k <= _PARETO_PRODUCT_MAX_K:
        # the float gamma form cancels (k << n) or lost too much: the product form keeps
        # every digit in O(k), far cheaper than mpmath for the k where this happens
        e1, rel = _pareto_by_products(xi, k, n)
    elif err1 > _MEAN_TOL or math.isnan(rel):
        e1, rel = _pareto_moments_mp(xi, k, n)
    else:
        e1 = _exp_checked(l1, "dist", f"Pareto order statistic {k} of {n}, xi = {xi:g}")
    mean = loc + t0 * e1
    if math.isinf(rel):
        reason = f"Pareto variance of the {k}-th of {n} is infinite: n - k + 1 = {m} <= 2/xi"
        return OrderStatMoments(mean, math.inf, "closed-pareto", reason)
    try:
        var = (t0 * e1) ** 2 * rel
    except OverflowError:  # a representable mean (1.77e301) raised it
        reason = (
            f"Pareto variance of the {k}-th of {n} is finite but beyond the float range "
            f"(mean {mean:.3g})"
        )
        return OrderStatMoments(mean, math.inf, "closed-pareto", reason)
    return OrderStatMoments(mean, var, "closed-pareto")
