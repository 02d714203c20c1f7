"""Mean and variance of one order statistic ``X_(k:n)`` of ``n`` i.i.d. worker times.

A gradient-coding master that waits for the fastest ``k`` of ``n`` workers
waits for ``X_(k:n)``. :func:`order_statistic_moments` picks the closed form
where there is one (:mod:`gctheory.order_stats.closed_forms`: exponential,
shifted exponential, Pareto [1]_ eq. (16), Appendix 8.4, [2]_ eq. (22)) and
numerical integration otherwise (:mod:`gctheory.order_stats.quadrature`);
:func:`order_statistic_reference` gives high-precision mpmath values, by
closed form or by an independent quadrature.

Infinite means (a Pareto ``k``-th order statistic with ``n - k + 1 <= 1/xi``)
are reported as ``inf`` with a reason, never as a number.

References
----------
.. [1] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving
   distributed gradient descent using Reed-Solomon codes", 2017 (halbawi2017).
.. [2] J. Zhang and O. Simeone, "LAGC: Lazily aggregated gradient coding
   for straggler-tolerant and communication-efficient distributed learning",
   2020 (zhang2020).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import mpmath as mp

from gctheory._validate import check_choice, check_int, check_real
from gctheory.order_stats._common import (
    InfiniteMomentWarning,
    OrderStatMoments,
    _check_dist,
    _check_kn,
    _check_not_unfrozen_or_dict,
    _family,
)
from gctheory.order_stats._mp_reference import FAMILIES as MP_FAMILIES
from gctheory.order_stats._mp_reference import mp_order_stat_mean
from gctheory.order_stats.closed_forms import _exponential_moments, _pareto_moments
from gctheory.order_stats.heterogeneous import hetero_order_statistic_moments, is_worker_sequence
from gctheory.order_stats.quadrature import _quad_order_stat

__all__ = [
    "order_statistic_moments",
    "expected_order_statistic",
    "order_statistic_variance",
    "order_statistic_reference",
]


#: largest worker count the integration route is validated at (against 30-digit references;
#: at 10^17 and beyond the Beta(k, n - k + 1) weight is narrower than the spacing of doubles
#: around the median's quantile and the variance and mean come out wrong)
QUAD_MAX_N = 10**16
#: a central order statistic (``k`` and ``n - k + 1`` both at least this) is computed by
#: its asymptotic expansion instead: at n = 10^16 and k = n/10 the integration's variance
#: of the normal law was 12% off, the expansion's neglected terms are ~1e-10
CENTRAL_MIN = 10**10


def order_statistic_moments(
    dist: Any, k: int, n: int | None = None, *, method: str = "auto"
) -> OrderStatMoments:
    """Mean and variance of the ``k``-th smallest of ``n`` i.i.d. draws of ``dist``
    (or of ``n`` independent workers with their own laws).

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution, or a sequence of them
        The time of one worker, e.g. ``stats.expon(loc=delta, scale=mu)``
        (shifted exponential, mean ``delta + mu``) or
        ``stats.pareto(xi, scale=t0)`` (CDF ``1 - (t0/t)^xi``, ``t >= t0``,
        Halbawi et al. 2017, eq. (16)). A sequence gives one law per worker (or
        ``(law, count)`` pairs): non-identical workers,
        :func:`gctheory.order_stats.heterogeneous.hetero_order_statistic_moments`
        (``n`` is then the sequence's worker count and may be left out).
    k, n : int
        ``1 <= k <= n``; ``k = n`` is the maximum.
    method : {"auto", "closed", "quad"}
        ``"auto"`` uses the closed form where there is one (exponential:
        ``delta + mu (H_n - H_{n-k})``, variance ``mu^2 sum 1/j^2`` (Renyi);
        Pareto: ``t0 Gamma(n+1) Gamma(n-k+1-1/xi) / (Gamma(n-k+1)
        Gamma(n+1-1/xi))``, Halbawi et al. 2017 Appendix 8.4 / Zhang et al.
        2020 eq. (22)) and numerical integration otherwise: for the normal,
        lognormal, gamma and Weibull laws of ``F^{-1}(u)`` against the
        ``Beta(k, n-k+1)`` density (David and Nagaraja 2003, eq. (2.2.2); one
        array of quantiles, within a few ulps of a 30-digit reference up to
        ``n = 10^5``), for other laws (or where that route's error estimate
        fails) of ``P(X_(k:n) > t) = I_{S(t)}(n-k+1, k)``; ``"quad"`` forces
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
        (discrete ones have no density); non-positive scale; Pareto ``xi <= 0``;
        ``n`` above :data:`QUAD_MAX_N` (``10^16``) for a law without a closed form,
        unless the order statistic is central (``k`` and ``n - k + 1`` both at least
        :data:`CENTRAL_MIN`, ``10^10``: its asymptotic expansion, method
        ``"asymptotic-central"``, used at any ``n`` there).

    Examples
    --------
    >>> from gctheory.order_stats import order_statistic_moments
    >>> from scipy import stats
    >>> m = order_statistic_moments(stats.expon(loc=0.5, scale=1.0), 3, 3)
    >>> round(m.mean, 6), round(m.variance, 6), m.method  # 0.5 + H_3, sum 1/j^2
    (2.333333, 1.361111, 'closed-exponential')
    >>> m = order_statistic_moments(stats.pareto(3.0, scale=1.0), 2, 4)
    >>> round(m.mean, 6), m.method
    (1.227273, 'closed-pareto')
    """
    return _moments(dist, k, n, method, variance=True)


def _moments(dist: Any, k: Any, n: Any, method: str, variance: bool) -> OrderStatMoments:
    """:func:`order_statistic_moments`; without ``variance`` the integration route skips
    the second moment (its variance is then NaN), as :func:`expected_order_statistic`
    needs only the mean."""
    _check_not_unfrozen_or_dict(dist)
    if is_worker_sequence(dist):
        return hetero_order_statistic_moments(dist, k, n, method=method)
    if n is None:
        raise ValueError("n: the number of workers is needed with a single law (i.i.d. workers)")
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
    if method != "quad" and min(k, n - k + 1) >= CENTRAL_MIN:
        r = _central_moments(dist, k, n)
        if r is not None:
            return r
    if n > QUAD_MAX_N:
        raise ValueError(
            f"n: the integration route is validated for n <= {QUAD_MAX_N:.0e} workers (beyond, "
            f"double precision loses the order statistic's spread: the variance of the normal "
            f"median at n = 1e18 came out 83 times pi/(2n)); got n = {n}, k = {k}. Beyond it "
            f"only central order statistics (k and n - k + 1 both >= {CENTRAL_MIN:.0e}, by "
            "their asymptotic expansion) are computed; the exponential and Pareto laws have "
            "closed forms at any n"
        )
    return _quad_order_stat(dist, k, n, variance)


def _central_moments(dist: Any, k: int, n: int) -> OrderStatMoments | None:
    """Mean and variance of a central order statistic by its expansion in ``1/(n + 2)``
    (David and Nagaraja 2003, Section 4.6): with ``p = k/(n+1)``, ``q = 1 - p`` and
    ``Q = F^-1``, ``E = Q(p) + p q Q''(p) / (2(n+2))`` and ``Var = p q Q'(p)^2 / (n+2)``,
    ``Q' = 1/f(Q)``, ``Q'' = -f'(Q)/f(Q)^3`` (``f'`` by a central difference). The
    neglected terms are ``O(1/(n min(p, q)))`` relative, below 1e-9 where
    ``min(k, n-k+1) >= 10^10`` (against the integration: within 4e-8 of the variance
    and 3e-8 standard deviations of the mean at n = 10^8-10^16 for the normal,
    lognormal, gamma and Weibull laws, where the integration is right). None where
    the density at the quantile is not positive and finite (the caller integrates)."""
    exact = Fraction(k, n + 1)
    p, q = float(exact), float(1 - exact)
    # Q at the double nearest p (or q), then moved by the rounding left over (exact:
    # at n = 10^17 the median's p = 1/2 - 5e-18 rounds to 1/2, and the -1.25e-17 with it)
    x = float(dist.ppf(p)) if p <= 0.5 else float(dist.isf(q))
    f = float(dist.pdf(x))
    left = exact - Fraction(p) if p <= 0.5 else (1 - Fraction(q)) - exact
    x += (float(left) if p <= 0.5 else -float(left)) / f if f > 0 else 0.0
    lo, hi = (float(v) for v in dist.ppf([0.25, 0.75]))
    h = 1e-4 * (hi - lo)
    fp = (float(dist.pdf(x + h)) - float(dist.pdf(x - h))) / (2 * h)
    if not (math.isfinite(x) and math.isfinite(f) and f > 0 and math.isfinite(fp) and h > 0):
        return None
    mean = x - p * q * fp / f**3 / (2 * (n + 2))
    var = p * q / (f * f) / (n + 2)
    return OrderStatMoments(mean, var, "asymptotic-central")


def expected_order_statistic(
    dist: Any, k: int, n: int | None = None, *, method: str = "auto"
) -> float:
    """Expected ``k``-th smallest of ``n`` i.i.d. draws of ``dist``, ``E[X_(k:n)]``.

    The time a master waits for the fastest ``k`` of ``n`` workers. See
    :func:`order_statistic_moments` for the parameters, the closed forms and
    the errors. ``dist`` may be a sequence of ``n`` per-worker laws (independent,
    non-identical workers; ``n`` is then its length). Returns ``math.inf`` (with an
    :class:`InfiniteMomentWarning` giving the reason) where the mean does not exist.

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution, or a sequence of them
        One worker's time, or one law per worker (``(law, count)`` pairs allowed).
    k : int
        ``1 <= k <= n``.
    n : int, optional
        Number of workers (needed with a single law).
    method : {"auto", "closed", "quad"}
        As in :func:`order_statistic_moments`.

    Returns
    -------
    float
        ``E[X_(k:n)]``; ``math.inf`` where the mean does not exist.

    Examples
    --------
    >>> from scipy import stats
    >>> round(expected_order_statistic(stats.expon(scale=1.0), 3, 3), 6)  # H_3
    1.833333
    >>> laws = [stats.expon(scale=1.0), stats.expon(scale=2.0)]
    >>> round(expected_order_statistic(laws, 1), 6)  # min: Exp(rate 1 + 1/2)
    0.666667
    """
    r = _moments(dist, k, n, method, variance=False)
    if not math.isfinite(r.mean):  # reason is set whenever a moment is infinite or undefined
        warnings.warn(r.reason or "the mean is infinite", InfiniteMomentWarning, stacklevel=2)
    return r.mean


def order_statistic_variance(
    dist: Any, k: int, n: int | None = None, *, method: str = "auto"
) -> float:
    """``Var[X_(k:n)]``; ``math.inf`` with an :class:`InfiniteMomentWarning` if infinite.
    ``dist`` may be a sequence of per-worker laws, as in :func:`order_statistic_moments`.

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution, or a sequence of them
        One worker's time, or one law per worker.
    k : int
        ``1 <= k <= n``.
    n : int, optional
        Number of workers (needed with a single law).
    method : {"auto", "closed", "quad"}
        As in :func:`order_statistic_moments`.

    Returns
    -------
    float
        ``Var[X_(k:n)]``; ``math.inf`` where it does not exist.

    Examples
    --------
    >>> from gctheory.order_stats import order_statistic_variance
    >>> from scipy import stats
    >>> round(order_statistic_variance(stats.expon(), 3, 3), 6)  # 1 + 1/4 + 1/9
    1.361111
    """
    r = order_statistic_moments(dist, k, n, method=method)
    if math.isinf(r.variance):
        warnings.warn(r.reason or "the variance is infinite", InfiniteMomentWarning, stacklevel=2)
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
    family : {"exponential", "pareto", "normal", "lognormal", "gamma", "weibull"}
        ``exponential`` takes ``mu`` (mean of the exponential part) and
        optional ``delta`` (shift); ``pareto`` takes ``t0`` (scale) and ``xi``
        (shape), CDF ``1 - (t0/t)^xi``. The last four take scipy's names and
        ``quad`` only: ``normal`` optional ``loc``, ``scale`` (``stats.norm``);
        ``lognormal`` ``s`` (``stats.lognorm``), ``gamma`` ``a``, ``weibull`` ``c``
        (``stats.weibull_min``), each with optional ``loc`` and ``scale``.
    k, n : int
        ``1 <= k <= n``.
    dps : int
        Decimal digits, set only inside ``mp.workdps``.
    method : {"closed", "quad"}
        ``closed``: exact harmonic sum / gamma ratio at ``dps`` digits;
        ``quad``: ``mp.quad`` of the survival function
        ``P(X_(k:n) > t) = I_{S(t)}(n-k+1, k)`` -- an independent route; for the
        normal, lognormal, gamma and Weibull laws, ``mp.quad`` over ``x`` of ``x``
        times the density of ``X_(k:n)``, ``f(x) F^(k-1) S^(n-k) / B(k, n-k+1)``
        (David and Nagaraja 2003, eq. (2.2.2)), in log space with ``F`` and ``S``
        each computed directly, ``dps + 10`` working digits (about a second a value).
    **params : float
        The family's parameters (named as above).

    Returns
    -------
    mpmath.mpf
        ``mp.inf`` for an infinite Pareto mean.

    Examples
    --------
    >>> from gctheory.order_stats import order_statistic_reference
    >>> v = order_statistic_reference("exponential", 3, 3, mu=1.0, dps=30)
    >>> print(v)  # H_3 = 11/6
    1.83333333333333
    >>> print(order_statistic_reference("pareto", 1, 2, t0=1.0, xi=2.0, dps=20))
    1.33333333333333
    """
    k, n = _check_kn(k, n)
    check_choice(method, "method", ("closed", "quad"))
    check_choice(family, "family", ("exponential", "pareto", *MP_FAMILIES))
    dps = check_int(dps, "dps", low=5, high=10_000)
    if family in MP_FAMILIES:
        return _mp_quad_reference(family, k, n, dps, method, params)
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


def _mp_quad_reference(
    family: str, k: int, n: int, dps: int, method: str, params: dict[str, Any]
) -> mp.mpf:
    """:func:`order_statistic_reference` for the normal, lognormal, gamma and Weibull laws."""
    if method != "quad":
        raise ValueError(
            f"method={method!r}: the {family} family has no closed form here; use method='quad'"
        )
    shape_name = MP_FAMILIES[family][0]
    allowed = ("loc", "scale") if shape_name is None else (shape_name, "loc", "scale")
    unknown = sorted(set(params) - set(allowed))
    missing = [] if shape_name is None or shape_name in params else [shape_name]
    if unknown or missing:
        raise ValueError(
            f"params of the {family} family are {list(allowed)}: missing {missing}, "
            f"unknown {unknown}"
        )
    loc = check_real(params.get("loc", 0.0), "loc")
    scale = check_real(params.get("scale", 1.0), "scale", low=0.0, low_open=True)
    shape = None
    if shape_name is not None:
        shape = check_real(params[shape_name], shape_name, low=0.0, low_open=True)
    return mp_order_stat_mean(family, k, n, shape, loc, scale, dps)
