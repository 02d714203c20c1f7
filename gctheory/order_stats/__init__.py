"""Expected order statistics of i.i.d. worker times, exact and approximate.

A gradient-coding master that waits for the fastest ``k`` of ``n`` workers
waits for the ``k``-th order statistic ``X_(k:n)`` of the workers' times. This
module computes its mean and variance

* in closed form for the exponential and shifted exponential (harmonic sums,
  [3]_ eq. (21), [4]_ eq. (21)) and the Pareto distribution (Vannman's formula,
  [1]_ Appendix 8.4, [3]_ eq. (22)), with log-gamma so ``n`` in the thousands
  is fine;
* for any frozen continuous ``scipy.stats`` distribution by numerical
  integration of the survival function of ``X_(k:n)``,
  ``P(X_(k:n) > t) = I_{S(t)}(n-k+1, k)`` (regularised incomplete beta);
* in mpmath at high precision (:func:`order_statistic_reference`) for reference
  values, by closed form or by an independent quadrature;
* by Monte Carlo through :mod:`gctheory.montecarlo` (:func:`order_statistic_mc`).

It also gives the papers' large-``n`` approximations with their error against
the exact value (Proposition 1 of [1]_; eqs. (21)-(22) of [4]_) and the
expected completion time of "wait for the fastest ``t_g`` workers in each of
``G`` groups" ([3]_ eq. (28), fractional-repetition and CommFR-GC [2]_ decoding).

Infinite means (a Pareto ``k``-th order statistic with ``n - k + 1 <= 1/xi``)
are reported as ``inf`` with a reason, never as a number.

References
----------
.. [1] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving
   distributed gradient descent using Reed-Solomon codes", 2017 (halbawi2017).
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019
   (kadhe2019).
.. [3] J. Zhang and O. Simeone, "LAGC: Lazily aggregated gradient coding
   for straggler-tolerant and communication-efficient distributed learning",
   2020 (zhang2020).
.. [4] J. Xu, S.-L. Huang, L. Song, T. Lan, "Live gradient compensation for evading stragglers in
   distributed learning", 2021 (xu2021).
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass
from typing import Any

import mpmath as mp
import numpy as np
from scipy import integrate, special, stats

from gctheory._validate import check_choice, check_int, check_real
from gctheory.montecarlo import Estimate, estimate_mean

__all__ = [
    "InfiniteMomentWarning",
    "UnreliableMonteCarloWarning",
    "OrderStatMoments",
    "Approximation",
    "order_statistic_moments",
    "expected_order_statistic",
    "order_statistic_variance",
    "order_statistic_reference",
    "order_statistic_mc",
    "grouped_completion_moments",
    "expected_grouped_completion",
    "grouped_completion_mc",
    "pareto_limit",
    "exponential_log_approx",
    "halbawi_proposition1_error",
    "xu_log_approx_error",
    "harmonic_difference",
]


class InfiniteMomentWarning(UserWarning):
    """The requested mean (or variance) is infinite; the value returned is ``inf``."""


class UnreliableMonteCarloWarning(UserWarning):
    """The sampled quantity has infinite variance: the CLT interval means nothing."""


@dataclass(frozen=True)
class OrderStatMoments:
    """Mean and variance of an order statistic (or grouped completion time).

    Attributes
    ----------
    mean, variance : float
        ``inf`` where the moment does not exist.
    method : str
        ``"closed-exponential"``, ``"closed-pareto"`` or ``"quad"``.
    reason : str or None
        Why ``mean`` or ``variance`` is infinite (None when both are finite).
    """

    mean: float
    variance: float
    method: str
    reason: str | None = None

    @property
    def std(self) -> float:
        """Standard deviation (``inf`` if the variance is infinite)."""
        return math.sqrt(self.variance)


@dataclass(frozen=True)
class Approximation:
    """An asymptotic approximation held against the exact value."""

    approx: float
    exact: float

    @property
    def abs_error(self) -> float:
        """``approx - exact``."""
        return self.approx - self.exact

    @property
    def rel_error(self) -> float:
        """``(approx - exact) / exact``."""
        return (self.approx - self.exact) / self.exact


# ---------------------------------------------------------------------------
# validation and family detection


# beyond this many workers the mpmath reference digits (about 3 log10 n) make a call slow,
# and no cluster has them
MAX_WORKERS = 10**24


def _check_kn(k: Any, n: Any, kname: str = "k", nname: str = "n") -> tuple[int, int]:
    n = check_int(n, nname, low=1, high=MAX_WORKERS)
    k = check_int(k, kname, low=1, high=n)
    return k, n


def _check_dist(dist: Any) -> None:
    inner = getattr(dist, "dist", None)
    if isinstance(inner, stats.rv_discrete):
        raise ValueError(
            f"dist must be a continuous distribution with a density, got the discrete "
            f"{inner.name!r}"
        )
    if not isinstance(inner, stats.rv_continuous):
        raise ValueError(
            f"dist must be a frozen scipy.stats continuous distribution "
            f"(e.g. stats.expon(scale=2)), got {dist!r}"
        )
    _, loc, scale = _params(dist)
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"dist scale must be positive and finite, got {scale!r}")
    if not np.isfinite(loc):
        raise ValueError(f"dist loc must be finite, got {loc!r}")


def _params(dist: Any) -> tuple[tuple[float, ...], float, float]:
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    return tuple(float(s) for s in shapes), float(loc), float(scale)


def _family(dist: Any) -> tuple[str, dict[str, float]]:
    """Name a family with a closed form: ``("exponential", {delta, mu})``,
    ``("pareto", {loc, t0, xi})`` or ``("other", {})``."""
    name = dist.dist.name
    shapes, loc, scale = _params(dist)
    if name == "expon":
        return "exponential", {"delta": loc, "mu": scale}
    if name == "pareto":
        xi = shapes[0]
        if not xi > 0:
            raise ValueError(f"Pareto shape xi must be > 0, got {xi!r}")
        return "pareto", {"loc": loc, "t0": scale, "xi": xi}
    return "other", {}


# ---------------------------------------------------------------------------
# closed forms


def harmonic_difference(n: int, k: int, power: int = 1) -> float:
    """``sum_{j=n-k+1}^{n} j**(-power)``, i.e. ``H_n - H_{n-k}`` for ``power=1``.

    ``math.fsum`` of the terms for ``k <= 10**5`` terms all below ``2**53``;
    otherwise the polygamma difference ``(-1)^p (psi^(p-1)(n+1) - psi^(p-1)(n-k+1))
    / (p-1)!`` in mpmath, with enough digits for the cancellation between the two
    (about ``log10(n)`` digits are lost when ``k << n``), so the result keeps full
    double precision for every ``n``.
    """
    n = check_int(n, "n", low=0)
    k = check_int(k, "k", low=0, high=n)
    power = check_int(power, "power", low=1, high=1000)
    if k == 0:
        return 0.0
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


def _pareto_raw_moment(xi: float, k: int, n: int, r: int) -> float:
    """``E[Y_(k:n)^r]`` for Pareto(scale 1, shape xi); inf if ``n-k+1 <= r/xi``."""
    m = n - k + 1
    if m * xi <= r:
        return math.inf
    logv, err = _pareto_log_moment(n, m, r / xi)
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
    if err1 > _MEAN_TOL or math.isnan(rel):
        e1, rel = _pareto_moments_mp(xi, k, n)
    else:
        e1 = _exp_checked(l1, "dist", f"Pareto order statistic {k} of {n}, xi = {xi:g}")
    mean = loc + t0 * e1
    if math.isinf(rel):
        reason = f"Pareto variance of the {k}-th of {n} is infinite: n - k + 1 = {m} <= 2/xi"
        return OrderStatMoments(mean, math.inf, "closed-pareto", reason)
    return OrderStatMoments(mean, (t0 * e1) ** 2 * rel, "closed-pareto")


# ---------------------------------------------------------------------------
# numerical integration of a survival function


_TAIL_POWER = 10.0


def _quad_segment(g, a: float, b: float) -> float:
    """``int_a^b g`` with algebraic-tail-friendly maps for infinite ends:
    ``t = a u^(-q)`` on ``[a, inf)`` (``a > 0``), so a tail ``t^(-c)`` becomes
    ``u^(q(c-1)-1)``, bounded for ``c >= 1 + 1/q``; mirrored on ``(-inf, b]``."""
    q = _TAIL_POWER
    if math.isinf(b) and math.isinf(a):
        return _quad_segment(g, a, 0.0) + _quad_segment(g, 0.0, b)
    if math.isinf(b):
        if a <= 0:
            return integrate.quad(g, a, 1.0, limit=200)[0] + _quad_segment(g, 1.0, b)

        def mapped(u: float) -> float:
            if u <= 0.0 or -q * math.log(u) > 600.0:  # t beyond 1e260: nothing left
                return 0.0
            t = a * u**-q
            return g(t) * q * t / u

        return integrate.quad(mapped, 0.0, 1.0, limit=200)[0]
    if math.isinf(a):
        return _quad_segment(lambda t: g(-t), -b, math.inf)
    return integrate.quad(g, a, b, limit=200)[0]


_TAIL_TOL = 0.02


def _tail_exponent(g, t: float) -> float:
    """Local decay exponent ``c`` of ``g(t) ~ t^-c`` between ``t`` and ``10 t``
    (``inf`` if ``g`` has underflowed: a light tail). Used to refuse infinite
    moments: ``c <= 1`` means an infinite mean, ``c <= 2`` an infinite variance
    (tolerance ``_TAIL_TOL``; an exponent within 0.02 of the limit is treated as
    infinite)."""
    g1, g2 = g(t), g(10 * t)
    if g1 <= 0.0 or g2 <= 0.0:
        return math.inf
    return math.log10(g1 / g2)


def _quad_moments(sf, cdf, center: float, lo: float, hi: float, breaks) -> OrderStatMoments:
    """Mean and variance of a variable with survival ``sf`` and CDF ``cdf`` on
    ``[lo, hi]`` (possibly infinite), around ``center``:
    ``E[X] = c + int_c^hi sf - int_lo^c cdf``,
    ``E[(X-c)^2] = int_c^hi 2(t-c) sf + int_lo^c 2(c-t) cdf``."""
    right = sorted(b for b in breaks if center < b < hi)
    left = sorted((b for b in breaks if lo < b < center), reverse=True)
    pts_r = [center, *right, hi]
    pts_l = [center, *left, lo]
    m1 = m2 = 0.0
    div1: list[str] = []
    div2: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", integrate.IntegrationWarning)
        for pts, g, sign in ((pts_r, sf, 1.0), (pts_l, cdf, -1.0)):
            for a, b in zip(pts[:-1], pts[1:], strict=True):
                a_, b_ = (a, b) if a < b else (b, a)
                try:
                    m1 += sign * _quad_segment(g, a_, b_)
                except integrate.IntegrationWarning as w:
                    div1.append(f"[{a_:.4g}, {b_:.4g}]: {w}")
                try:
                    m2 += _quad_segment(lambda t, g=g: 2 * abs(t - center) * g(t), a_, b_)
                except integrate.IntegrationWarning as w:
                    div2.append(f"[{a_:.4g}, {b_:.4g}]: {w}")
    for side, g, end, ref in ((1.0, sf, hi, pts_r[-2]), (-1.0, cdf, lo, pts_l[-2])):
        if math.isinf(end):
            c = _tail_exponent(lambda t, g=g, side=side: g(side * t), max(abs(ref), 1.0) * 10)
            if c <= 1.0 + _TAIL_TOL:
                div1.append(f"tail decays like |t|^-{c:.4g}, not faster than 1/|t|")
            elif c <= 2.0 + _TAIL_TOL:
                div2.append(f"tail decays like |t|^-{c:.4g}, not faster than 1/|t|^2")
    if div1:
        reason = (
            "numerical integral of the survival function did not converge (heavy tail: "
            "the mean may be infinite) on " + "; ".join(div1)
        )
        return OrderStatMoments(math.inf, math.inf, "quad", reason)
    mean = center + m1
    if div2:
        reason = (
            "numerical integral for the second moment did not converge (heavy tail: "
            "the variance may be infinite) on " + "; ".join(div2)
        )
        return OrderStatMoments(mean, math.inf, "quad", reason)
    return OrderStatMoments(mean, max(m2 - m1 * m1, 0.0), "quad")


def _quad_order_stat(dist: Any, k: int, n: int) -> OrderStatMoments:
    m = n - k + 1

    def sf(t: float) -> float:
        return float(special.betainc(m, k, dist.sf(t)))

    def cdf(t: float) -> float:
        return float(special.betainc(k, m, dist.cdf(t)))

    lo, hi = (float(x) for x in dist.support())
    qs = [1e-9, 1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95, 1 - 1e-3, 1 - 1e-6, 1 - 1e-9]
    # quantiles of X_(k:n): F^{-1}(Beta(k, n-k+1) quantile)
    breaks = [float(dist.ppf(special.betaincinv(k, m, q))) for q in qs]
    breaks = [b for b in breaks if np.isfinite(b)]
    center = breaks[len(breaks) // 2] if breaks else float(dist.median())
    return _check_support(_quad_moments(sf, cdf, center, lo, hi, breaks), dist, lo, hi)


def _check_support(r: OrderStatMoments, dist: Any, lo: float, hi: float) -> OrderStatMoments:
    """Refuse a quadrature result outside the support ``[lo, hi]`` of ``dist`` (or a
    negative variance): a mean of a variable on ``[lo, hi]`` lies in it, so such a
    result is a numerical failure, never an answer."""
    ok_mean = math.isinf(r.mean) or lo <= r.mean <= hi
    if not (ok_mean and r.variance >= 0):
        raise ValueError(
            f"dist: numerical integration of the order statistic of {dist.dist.name!r} gave "
            f"mean {r.mean!r}, variance {r.variance!r}, outside the support [{lo}, {hi}]; "
            "this distribution is beyond what the quadrature resolves"
        )
    return r


# ---------------------------------------------------------------------------
# public: single order statistic


def order_statistic_moments(dist: Any, k: int, n: int, *, method: str = "auto") -> OrderStatMoments:
    """Mean and variance of the ``k``-th smallest of ``n`` i.i.d. draws of ``dist``.

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution
        The time of one worker, e.g. ``stats.expon(loc=delta, scale=mu)``
        (shifted exponential, mean ``delta + mu``) or
        ``stats.pareto(xi, scale=t0)`` (CDF ``1 - (t0/t)^xi``, ``t >= t0``,
        Halbawi et al. 2017, eq. (16)).
    k, n : int
        ``1 <= k <= n``; ``k = n`` is the maximum.
    method : {"auto", "closed", "quad"}
        ``"auto"`` uses the closed form where there is one (exponential:
        ``delta + mu (H_n - H_{n-k})``, variance ``mu^2 sum 1/j^2`` (Renyi);
        Pareto: ``t0 Gamma(n+1) Gamma(n-k+1-1/xi) / (Gamma(n-k+1)
        Gamma(n+1-1/xi))``, Halbawi et al. 2017 Appendix 8.4 / Zhang et al.
        2020 eq. (22)) and numerical integration of
        ``P(X_(k:n) > t) = I_{S(t)}(n-k+1, k)`` otherwise; ``"quad"`` forces
        the integration (for cross-checks); ``"closed"`` refuses families
        without a closed form.

    Returns
    -------
    OrderStatMoments
        ``mean`` and ``variance`` (``inf`` with a ``reason`` where infinite:
        Pareto with ``n - k + 1 <= 1/xi`` for the mean, ``<= 2/xi`` for the
        variance).

    Raises
    ------
    ValueError
        ``k`` outside ``1..n``; ``dist`` not a frozen continuous distribution
        (discrete ones have no density); non-positive scale; Pareto ``xi <= 0``.
    """
    k, n = _check_kn(k, n)
    _check_dist(dist)
    if method not in ("auto", "closed", "quad"):
        raise ValueError(f"method must be 'auto', 'closed' or 'quad', got {method!r}")
    fam, p = _family(dist)
    if method == "closed" and fam == "other":
        raise ValueError(
            f"method='closed': no closed form for the {dist.dist.name!r} distribution; "
            "use 'auto' or 'quad'"
        )
    if method != "quad":
        if fam == "exponential":
            return _exponential_moments(p["delta"], p["mu"], k, n)
        if fam == "pareto":
            return _pareto_moments(p["loc"], p["t0"], p["xi"], k, n)
    if fam == "pareto" and (n - k + 1) * p["xi"] <= 1:
        return _pareto_moments(p["loc"], p["t0"], p["xi"], k, n)
    return _quad_order_stat(dist, k, n)


def expected_order_statistic(dist: Any, k: int, n: int, *, method: str = "auto") -> float:
    """Expected ``k``-th smallest of ``n`` i.i.d. draws of ``dist``, ``E[X_(k:n)]``.

    The time a master waits for the fastest ``k`` of ``n`` workers. See
    :func:`order_statistic_moments` for the parameters, the closed forms and
    the errors. Returns ``math.inf`` (with an :class:`InfiniteMomentWarning`
    giving the reason) where the mean does not exist.

    Examples
    --------
    >>> from scipy import stats
    >>> round(expected_order_statistic(stats.expon(scale=1.0), 3, 3), 6)  # H_3
    1.833333
    """
    r = order_statistic_moments(dist, k, n, method=method)
    if math.isinf(r.mean):
        warnings.warn(r.reason, InfiniteMomentWarning, stacklevel=2)
    return r.mean


def order_statistic_variance(dist: Any, k: int, n: int, *, method: str = "auto") -> float:
    """``Var[X_(k:n)]``; ``math.inf`` with an :class:`InfiniteMomentWarning` if infinite."""
    r = order_statistic_moments(dist, k, n, method=method)
    if math.isinf(r.variance):
        warnings.warn(r.reason, InfiniteMomentWarning, stacklevel=2)
    return r.variance


def order_statistic_reference(
    family: str,
    k: int,
    n: int,
    *,
    dps: int = 40,
    method: str = "closed",
    **params: float,
) -> mp.mpf:
    """High-precision ``E[X_(k:n)]`` in mpmath, for reference values.

    Parameters
    ----------
    family : {"exponential", "pareto"}
        ``exponential`` takes ``mu`` (mean of the exponential part) and
        optional ``delta`` (shift); ``pareto`` takes ``t0`` (scale) and ``xi``
        (shape), CDF ``1 - (t0/t)^xi``.
    k, n : int
        ``1 <= k <= n``.
    dps : int
        Decimal digits, set only inside ``mp.workdps``.
    method : {"closed", "quad"}
        ``closed``: exact harmonic sum / gamma ratio at ``dps`` digits;
        ``quad``: ``mp.quad`` of the survival function
        ``P(X_(k:n) > t) = I_{S(t)}(n-k+1, k)`` -- an independent route.

    Returns
    -------
    mpmath.mpf
        ``mp.inf`` for an infinite Pareto mean.
    """
    k, n = _check_kn(k, n)
    check_choice(method, "method", ("closed", "quad"))
    check_choice(family, "family", ("exponential", "pareto"))
    dps = check_int(dps, "dps", low=5, high=10_000)
    need = {"exponential": ("mu",), "pareto": ("t0", "xi")}[family]
    allowed = {"exponential": ("mu", "delta"), "pareto": ("t0", "xi")}[family]
    unknown = sorted(set(params) - set(allowed))
    missing = sorted(set(need) - set(params))
    if unknown or missing:
        raise ValueError(
            f"params of the {family} family are {list(allowed)}: missing {missing}, "
            f"unknown {unknown}"
        )
    for key, v in params.items():
        check_real(v, key)
    m = n - k + 1
    with mp.workdps(dps):
        if family == "exponential":
            mu = mp.mpf(params["mu"])
            delta = mp.mpf(params.get("delta", 0))
            if mu <= 0:
                raise ValueError(f"mu must be positive, got {params['mu']!r}")
            if method == "closed":
                return +(delta + mu * mp.fsum(mp.mpf(1) / j for j in range(m, n + 1)))

            def sf(t):
                return mp.betainc(m, k, 0, mp.exp(-t / mu), regularized=True)

            return +(delta + mp.quad(sf, [0, mu, 10 * mu, mp.inf]))
        if family == "pareto":
            t0, xi = mp.mpf(params["t0"]), mp.mpf(params["xi"])
            if t0 <= 0:
                raise ValueError(f"t0 must be positive, got {params['t0']!r}")
            if xi <= 0:
                raise ValueError(f"xi must be > 0, got {params['xi']!r}")
            if m * xi <= 1:
                return mp.inf
            if method == "closed":
                return +(
                    t0
                    * mp.exp(
                        mp.loggamma(n + 1)
                        + mp.loggamma(m - 1 / xi)
                        - mp.loggamma(m)
                        - mp.loggamma(n + 1 - 1 / xi)
                    )
                )

            # substitute (t0/t)^xi = u^a: int_t0^inf I_{S(t)}(m, k) dt
            #   = (a t0/xi) int_0^1 I_{u^a}(m, k) u^(-a/xi - 1) du, and with
            #   a = 1/(m - 1/xi) the integrand stays bounded as u -> 0.
            a = max(mp.mpf(1), 1 / (m - 1 / xi))

            def integrand(u):
                return mp.betainc(m, k, 0, u**a, regularized=True) * u ** (-a / xi - 1)

            return +(t0 + a * t0 / xi * mp.quad(integrand, [0, 1]))
        raise ValueError(f"family must be 'exponential' or 'pareto', got {family!r}")


# ---------------------------------------------------------------------------
# grouped completion: max over G groups of the t_g-th fastest of r


#: most groups :func:`grouped_completion_moments` integrates numerically (measured: the
#: mean of gamma(2) groups of 16 at wait 16 is right at 1e8 groups, inf at 1e10)
MAX_QUAD_GROUPS = 10**8


def _scalar_cdf_sf(dist: Any, fam: str, p: dict[str, float]):
    """The CDF and survival function of ``dist`` at one point, as Python floats.

    For the exponential and Pareto families, closed forms as accurate as scipy's
    (``-expm1(-z)`` and ``exp(-z)``, or ``y^-xi``), without its per-call overhead (about
    100 us, which made the quadratures of :func:`grouped_completion_moments` cost
    thousands of them); other families call ``dist.cdf`` / ``dist.sf``.
    """
    if fam == "exponential":
        d, mu = p["delta"], p["mu"]

        def z(t: float) -> float:
            return (t - d) / mu if t > d else 0.0

    elif fam == "pareto":
        lo, t0, xi = p["loc"], p["t0"], p["xi"]

        def z(t: float) -> float:
            y = (t - lo) / t0
            return xi * math.log(y) if y > 1.0 else 0.0

        def pareto_sf(t: float) -> float:  # y^-xi, as scipy (exp(-z) loses digits far out)
            y = (t - lo) / t0
            return y**-xi if y > 1.0 else (1.0 if t == t else math.nan)

        return (lambda t: -math.expm1(-z(t)) if t == t else math.nan), pareto_sf
    else:
        return (lambda t: float(dist.cdf(t))), (lambda t: float(dist.sf(t)))

    def cdf(t: float) -> float:
        return -math.expm1(-z(t)) if t == t else math.nan

    def sf(t: float) -> float:
        return math.exp(-z(t)) if t == t else math.nan

    return cdf, sf


def _check_grouped(groups: Any, group_size: Any, wait: Any) -> tuple[int, int, int]:
    wait_, r = _check_kn(wait, group_size, "wait", "group_size")
    return check_int(groups, "groups", low=1), r, wait_


def grouped_completion_moments(
    dist: Any, groups: int, group_size: int, wait: int = 1, *, method: str = "auto"
) -> OrderStatMoments:
    """Mean and variance of the time to hear from the fastest ``wait`` workers
    in each of ``groups`` groups of ``group_size`` i.i.d. workers.

    ``T = max_{g} X^{(g)}_(wait:group_size)``, with CDF
    ``P(T <= t) = I_{F(t)}(wait, r-wait+1)^G`` (Zhang et al. 2020, eq. (28) for
    ``wait = 1``; fractional repetition codes [Tandon et al.] decode at this
    time with ``wait = 1``; CommFR-GC (Kadhe et al. 2019, Theorem 1) with an
    ``[N, K, delta]`` code has ``group_size = N``, ``wait = N - delta + 1``).

    Closed forms for ``wait = 1``: exponential ``delta + (mu/r) H_G``; Pareto:
    the minimum of ``r`` Pareto(t0, xi) is Pareto(t0, r xi), so the maximum of
    ``G`` of them is an order statistic with closed form. Otherwise the
    survival function is integrated numerically. Pareto mean is infinite iff
    ``xi (r - wait + 1) <= 1``.
    """
    groups, r, wait = _check_grouped(groups, group_size, wait)
    _check_dist(dist)
    if method not in ("auto", "quad"):
        raise ValueError(f"method must be 'auto' or 'quad', got {method!r}")
    if groups == 1:
        return order_statistic_moments(dist, wait, r, method=method)
    fam, p = _family(dist)
    m = r - wait + 1
    if fam == "pareto" and p["xi"] * m <= 1:
        reason = (
            f"Pareto grouped completion has infinite mean: xi * (group_size - wait + 1) = "
            f"{p['xi'] * m:.6g} <= 1"
        )
        return OrderStatMoments(math.inf, math.inf, "closed-pareto", reason)
    if method == "auto" and wait == 1:
        if fam == "exponential":
            return _exponential_moments(p["delta"], p["mu"] / r, groups, groups)
        if fam == "pareto":
            return _pareto_moments(p["loc"], p["t0"], p["xi"] * r, groups, groups)
    if groups > MAX_QUAD_GROUPS:
        # the law of the maximum of G groups concentrates as G grows: past 1e8 the
        # quadrature misses it (gamma(2), G = 1e10, wait = 16 gave a spurious inf)
        raise ValueError(
            f"groups must be <= {MAX_QUAD_GROUPS:.0e} for the numerical integral (closed "
            f"forms: wait = 1 with an exponential or Pareto law), got groups={groups}"
        )

    F, S = _scalar_cdf_sf(dist, fam, p)

    def cdf(t: float) -> float:
        return float(special.betainc(wait, m, F(t)) ** groups)

    def sf(t: float) -> float:
        return float(-math.expm1(groups * math.log1p(-special.betainc(m, wait, S(t)))))

    lo, hi = (float(x) for x in dist.support())
    qs = [1e-9, 1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95, 1 - 1e-3, 1 - 1e-6, 1 - 1e-9]
    # quantile of T at level q: the group statistic at level q**(1/G)
    breaks = [float(dist.ppf(special.betaincinv(wait, m, q ** (1.0 / groups)))) for q in qs]
    breaks = [b for b in breaks if np.isfinite(b)]
    center = breaks[len(breaks) // 2] if breaks else float(dist.median())
    return _check_support(_quad_moments(sf, cdf, center, lo, hi, breaks), dist, lo, hi)


def expected_grouped_completion(
    dist: Any, groups: int, group_size: int, wait: int = 1, *, method: str = "auto"
) -> float:
    """Expected time until the fastest ``wait`` workers of every one of
    ``groups`` groups (``group_size`` workers each) have returned.

    See :func:`grouped_completion_moments` (Zhang et al. 2020, eq. (28)).
    ``math.inf`` with an :class:`InfiniteMomentWarning` if the mean is infinite.
    """
    r = grouped_completion_moments(dist, groups, group_size, wait, method=method)
    if math.isinf(r.mean):
        warnings.warn(r.reason, InfiniteMomentWarning, stacklevel=2)
    return r.mean


# ---------------------------------------------------------------------------
# Monte Carlo twins


def _sample_grouped(dist: Any, groups: int, group_size: int, wait: int, rng, size: int):
    x = dist.rvs(size=(size, groups, group_size), random_state=rng)
    part = np.partition(x, wait - 1, axis=2)[:, :, wait - 1]
    return part.max(axis=1)


# a Monte Carlo trial holds every worker's time (8 bytes each) at once, and numpy's
# partition makes a copy: refuse trials wider than this many workers before drawing
_MC_MAX_WORKERS = 10**7


def _check_mc_args(trials: Any, level: Any, chunk_size: Any) -> None:
    """The engine's arguments, checked here too, so an error names this call's parameter."""
    check_int(trials, "trials", low=1)
    check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    if chunk_size is not None:
        check_int(chunk_size, "chunk_size", low=1)


def _check_mc_memory(workers: int, name: str = "n") -> None:
    if workers > _MC_MAX_WORKERS:
        raise ValueError(
            f"{name}: one Monte Carlo trial draws all {workers} worker times at once "
            f"({16 * workers / 2**30:.3g} GiB with numpy's partition copy); at most "
            f"{_MC_MAX_WORKERS} workers per trial: use the exact value instead"
        )


def _mc(dist, groups, r, wait, trials, rng, level, chunk_size, executor, moments):
    if math.isinf(moments.mean):
        warnings.warn(
            f"Monte Carlo mean of a variable with infinite mean is meaningless ({moments.reason})",
            UnreliableMonteCarloWarning,
            stacklevel=3,
        )
    elif math.isinf(moments.variance):
        warnings.warn(
            "the variance is infinite, so the Monte Carlo mean converges slowly and its CLT "
            f"interval is unreliable ({moments.reason})",
            UnreliableMonteCarloWarning,
            stacklevel=3,
        )
    if chunk_size is None:
        chunk_size = max(1, min(1 << 16, (1 << 22) // (groups * r)))
    sampler = functools.partial(_sample_grouped, dist, groups, r, wait)
    return estimate_mean(
        sampler, trials, rng=rng, level=level, chunk_size=chunk_size, executor=executor
    )


def order_statistic_mc(
    dist: Any,
    k: int,
    n: int,
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: Any = None,
) -> Estimate:
    """Monte Carlo estimate of ``E[X_(k:n)]`` (the twin of
    :func:`expected_order_statistic`), through :func:`gctheory.montecarlo.estimate_mean`.

    Draws ``trials`` samples of ``n`` i.i.d. times and takes the ``k``-th
    smallest. Where the variance of ``X_(k:n)`` is infinite (Pareto with
    ``n - k + 1 <= 2/xi``) an :class:`UnreliableMonteCarloWarning` says that
    the CLT interval is meaningless; do not assert on it there.
    """
    k, n = _check_kn(k, n)
    _check_dist(dist)
    _check_mc_args(trials, level, chunk_size)
    _check_mc_memory(n)
    moments = _safe_moments(dist, k, n)
    return _mc(dist, 1, n, k, trials, rng, level, chunk_size, executor, moments)


def grouped_completion_mc(
    dist: Any,
    groups: int,
    group_size: int,
    wait: int,
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: Any = None,
) -> Estimate:
    """Monte Carlo twin of :func:`expected_grouped_completion`."""
    groups, r, wait = _check_grouped(groups, group_size, wait)
    _check_dist(dist)
    _check_mc_args(trials, level, chunk_size)
    _check_mc_memory(groups * r, "groups * group_size")
    moments = grouped_completion_moments(dist, groups, r, wait)
    return _mc(dist, groups, r, wait, trials, rng, level, chunk_size, executor, moments)


def _safe_moments(dist: Any, k: int, n: int) -> OrderStatMoments:
    return order_statistic_moments(dist, k, n)


# ---------------------------------------------------------------------------
# the papers' asymptotic approximations


def _check_alpha(alpha: float) -> float:
    return check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)


def _check_pos(name: str, v: float) -> float:
    return check_real(v, name, low=0.0, low_open=True)


def _check_shift(name: str, v: float) -> float:
    return check_real(v, f"{name} (the minimum time, a shift)", low=0.0)


def pareto_limit(t0: float, xi: float, alpha: float) -> float:
    """Halbawi et al. 2017, Proposition 1 (eq. (19)): the large-``n`` limit of the
    Pareto order statistic, ``lim_n E[T_((1-alpha)n : n)] = t0 alpha^(-1/xi)``.

    ``alpha`` in (0, 1] is the fraction of the dataset per machine (so the
    master waits for a fraction ``1 - alpha`` of the machines).
    """
    t0, xi, alpha = _check_pos("t0", t0), _check_pos("xi", xi), _check_alpha(alpha)
    _exp_checked(math.log(t0) - math.log(alpha) / xi, "alpha", f"xi = {xi:g}")  # range
    return t0 * alpha ** (-1.0 / xi)


def _exp_checked(log_value: float, name: str, detail: str) -> float:
    """``exp(log_value)``, refused (naming ``name``) where it exceeds the float range."""
    if log_value > 709.78:
        raise ValueError(
            f"{name}: the result exp({log_value:.6g}) exceeds the float64 range ({detail})"
        )
    return math.exp(log_value)


def halbawi_proposition1_error(
    t0: float, xi: float, alpha: float, n: int, f: int | None = None
) -> Approximation:
    """Proposition 1 of Halbawi et al. 2017 against the exact ``E[T_(f:n)]``.

    ``f`` defaults to eq. (18), ``f = ceil((1 - alpha) n) + 1`` (capped at ``n``);
    pass ``f = round((1 - alpha) n)`` to compare with the Proposition's own indexing.
    """
    approx = pareto_limit(t0, xi, alpha)
    n = check_int(n, "n", low=1)
    if f is None:
        f = min(n, math.ceil((1 - alpha) * n - 1e-12) + 1)
    f, n = _check_kn(f, n, "f", "n")
    exact = order_statistic_moments(stats.pareto(xi, scale=t0), f, n)
    return Approximation(approx, exact.mean)


def exponential_log_approx(delta: float, mu: float, k: int, n: int) -> float:
    """Xu et al. 2021, eqs. (21)-(22): ``Delta + mu log(N/(N-K))`` for ``K < N``,
    ``Delta + mu log N`` for ``K = N`` (``mu`` the mean of the exponential part)."""
    k, n = _check_kn(k, n, "K", "N")
    mu = _check_pos("mu", mu)
    delta = _check_shift("delta", delta)
    if k < n:
        return float(delta) + mu * math.log(n / (n - k))
    return float(delta) + mu * math.log(n)


def xu_log_approx_error(delta: float, mu: float, k: int, n: int) -> Approximation:
    """Eqs. (21)-(22) of Xu et al. 2021 against the exact ``Delta + mu (H_N - H_{N-K})``."""
    approx = exponential_log_approx(delta, mu, k, n)
    exact = _exponential_moments(float(delta), float(mu), k, n).mean
    return Approximation(approx, exact)
