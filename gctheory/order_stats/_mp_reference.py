"""High-precision ``E[X_(k:n)]`` for the normal, lognormal, gamma and Weibull laws, in mpmath.

The reference behind :func:`gctheory.order_stats.order_statistic_reference` for these
families: ``mp.quad`` of ``x f(x) F(x)^(k-1) S(x)^(n-k) / B(k, n-k+1)`` over ``x``
(David and Nagaraja, *Order Statistics*, 3rd ed. 2003, eq. (2.2.2)), the density of
``X_(k:n)`` taken in log space, with ``F`` and ``S`` each computed directly (no
``1 - F``). It integrates over ``x``, not over the quantile ``u = F(x)`` as the
float path (:mod:`gctheory.order_stats.quantile_quadrature`) does, so the two
routes share nothing but the law. Float quantiles of ``X_(k:n)`` only place the
breakpoints of the integration and its range, between the ``1e-45`` lower and upper
quantiles of ``X_(k:n)`` (the mass left out is below ``1e-45``).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
from scipy import special, stats

__all__: list[str] = []

# Beta(k, m) tail probabilities whose quantiles (mapped through F^-1) split the range
# (the outermost, 1e-45 on each side, bound the range: what lies beyond is below 1e-45
# of the probability, far under the 30 digits a reference is asked for)
_SPLIT_P = (1e-45, 1e-30, 1e-20, 1e-12, 1e-6, 1e-3, 0.05, 0.25, 0.5)

FAMILIES = {
    # family: (shape name or None, scipy law for the breakpoints)
    "normal": (None, stats.norm),
    "lognormal": ("s", stats.lognorm),
    "gamma": ("a", stats.gamma),
    "weibull": ("c", stats.weibull_min),
}


def _log_parts(family: str, shape):
    """``x -> (log f, log F, log S)`` of the standard law (loc 0, scale 1), mpmath."""
    if family == "normal":
        half_log_2pi = mp.log(2 * mp.pi) / 2
        return lambda x: (-x * x / 2 - half_log_2pi, mp.log(mp.ncdf(x)), mp.log(mp.ncdf(-x)))
    if family == "lognormal":
        s = shape
        c = mp.log(s) + mp.log(2 * mp.pi) / 2

        def lognormal(x):
            z = mp.log(x) / s
            return (-z * z / 2 - c - mp.log(x), mp.log(mp.ncdf(z)), mp.log(mp.ncdf(-z)))

        return lognormal
    if family == "gamma":
        a = shape
        lg = mp.loggamma(a)

        def gamma(x):
            return (
                (a - 1) * mp.log(x) - x - lg,
                mp.log(mp.gammainc(a, 0, x, regularized=True)),
                mp.log(mp.gammainc(a, x, mp.inf, regularized=True)),
            )

        return gamma
    c = shape  # weibull: S = exp(-x^c)

    def weibull(x):
        xc = x**c
        return (mp.log(c) + (c - 1) * mp.log(x) - xc, mp.log(-mp.expm1(-xc)), -xc)

    return weibull


def _log_quantiles(family: str, shape: float | None, p: np.ndarray, upper: bool) -> np.ndarray:
    """Float breakpoints: the standard law's quantile at lower (or, ``upper``, upper)
    tail probabilities ``p``, as ``x`` for the normal and as ``log x`` for the positive
    laws (so a quantile below the float range, e.g. the minimum of 10^6 gamma(0.05)
    draws near 1e-102 and its tail far below, still places a breakpoint)."""
    z = special.ndtri(p)
    if family == "normal":
        return -z if upper else z
    if family == "lognormal":
        assert shape is not None
        return shape * (-z if upper else z)
    if family == "weibull":
        assert shape is not None
        h = -np.log(p) if upper else -np.log1p(-p)  # cumulative hazard x^c
        return np.log(h) / shape
    assert shape is not None  # gamma
    x = special.gammainccinv(shape, p) if upper else special.gammaincinv(shape, p)
    with np.errstate(divide="ignore"):
        small = (np.log(p) + special.gammaln(shape + 1.0)) / shape  # F ~ x^a / Gamma(a+1)
        return np.where(x > 1e-300, np.log(np.maximum(x, 1e-300)), small)


def mp_order_stat_mean(
    family: str, k: int, n: int, shape: float | None, loc: float, scale: float, dps: int
) -> mp.mpf:
    """``E[X_(k:n)]`` at ``dps`` digits (arguments already checked by the caller). The
    positive laws are integrated over ``y = log x`` (``dx = x dy``), where the density
    of ``X_(k:n)`` is smooth and bell-shaped however many decades ``x`` spans."""
    m = n - k + 1
    # breakpoints: the law's quantiles at Beta(k, m) lower and upper tail probabilities
    with np.errstate(all="ignore"):
        lo_u = special.betaincinv(k, m, np.array(_SPLIT_P))
        hi_q = special.betaincinv(m, k, np.array(_SPLIT_P))  # 1 - U ~ Beta(m, k)
        ys = np.concatenate(
            [_log_quantiles(family, shape, lo_u, False), _log_quantiles(family, shape, hi_q, True)]
        )
    pts = sorted({float(v) for v in ys if np.isfinite(v)})
    positive = family != "normal"
    with mp.workdps(dps + 10):
        parts = _log_parts(family, None if shape is None else mp.mpf(shape))
        log_b = mp.log(mp.beta(k, m))

        # mp.quad's tolerance is absolute (10^-dps): scale x by its median's size so
        # the integral is of order 1 (the minimum of 10^6 gamma(0.05) draws is 1e-102)
        y_mid = mp.mpf(pts[len(pts) // 2]) if positive else mp.mpf(0)

        def integrand(y):
            x = mp.exp(y) if positive else y
            lf, lF, lS = parts(x)
            log_dens = lf + (k - 1) * lF + (m - 1) * lS - log_b
            if positive:  # x dx = x^2 dy
                return mp.exp(2 * y - y_mid + log_dens)
            return x * mp.exp(log_dens)

        mean_z = mp.quad(integrand, [mp.mpf(p) for p in pts]) * mp.exp(y_mid)
        return +(mp.mpf(loc) + mp.mpf(scale) * mean_z)
