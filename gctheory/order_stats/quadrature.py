"""Moments of a variable from its survival function and CDF, by numerical integration.

The generic route for any frozen continuous ``scipy.stats`` law without a
closed form: ``E[X] = c + int_c^hi S - int_lo^c F`` (and the second moment
alike), with maps for algebraic tails and a refusal (``inf`` with a reason)
where a heavy tail makes the mean or variance infinite. For the ``k``-th of
``n`` the survival function is ``P(X_(k:n) > t) = I_{S(t)}(n-k+1, k)``
(regularised incomplete beta); :mod:`gctheory.order_stats.grouped` integrates
the maximum over groups the same way (Zhang and Simeone 2020, eq. (28)).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy import integrate, special

from gctheory._frozen_law import unpack_frozen
from gctheory.order_stats._common import OrderStatMoments
from gctheory.order_stats.quantile_quadrature import quantile_moments

__all__ = []


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
_SLIVER = 1e-12  # relative length of a segment too short to integrate


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


def _quad_moments(
    sf, cdf, center: float, lo: float, hi: float, breaks, variance: bool = True
) -> OrderStatMoments:
    """Mean and variance of a variable with survival ``sf`` and CDF ``cdf`` on
    ``[lo, hi]`` (possibly infinite), around ``center``:
    ``E[X] = c + int_c^hi sf - int_lo^c cdf``,
    ``E[(X-c)^2] = int_c^hi 2(t-c) sf + int_lo^c 2(c-t) cdf``; without ``variance``
    the second integrals are skipped and the variance is NaN."""
    right = sorted(b for b in breaks if center < b < hi)
    left = sorted((b for b in breaks if lo < b < center), reverse=True)
    pts_r = [center, *right, hi]
    pts_l = [center, *left, lo]
    m1 = m2 = 0.0
    div1: list[str] = []
    div2: list[str] = []
    sides: set[float] = set()  # +1: the right tail's integral diverged, -1: the left one's
    with warnings.catch_warnings():
        warnings.simplefilter("error", integrate.IntegrationWarning)
        for pts, g, sign in ((pts_r, sf, 1.0), (pts_l, cdf, -1.0)):
            for a, b in zip(pts[:-1], pts[1:], strict=True):
                a_, b_ = (a, b) if a < b else (b, a)
                if math.isfinite(b_ - a_) and b_ - a_ <= _SLIVER * max(abs(a_), abs(b_)):
                    # a break within 1e-12 of the end: quad called [4.99999999999997, 5]
                    # "extremely bad" and the maximum of 10^5 uniforms got an infinite
                    # mean; the sliver holds at most its length times
                    # max g, far below quad's own absolute tolerance (1.5e-8)
                    continue
                try:
                    m1 += sign * _quad_segment(g, a_, b_)
                except integrate.IntegrationWarning as w:
                    div1.append(f"[{a_:.4g}, {b_:.4g}]: {w}")
                    sides.add(sign)
                if not variance:
                    continue
                try:
                    m2 += _quad_segment(lambda t, g=g: 2 * abs(t - center) * g(t), a_, b_)
                except integrate.IntegrationWarning as w:
                    div2.append(f"[{a_:.4g}, {b_:.4g}]: {w}")
    for side, g, end, ref in ((1.0, sf, hi, pts_r[-2]), (-1.0, cdf, lo, pts_l[-2])):
        if math.isinf(end):
            c = _tail_exponent(lambda t, g=g, side=side: g(side * t), max(abs(ref), 1.0) * 10)
            if c <= 1.0 + _TAIL_TOL:
                where = "right" if side > 0 else "left"
                div1.append(f"the {where} tail decays like |t|^-{c:.4g}, not faster than 1/|t|")
                sides.add(side)
            elif c <= 2.0 + _TAIL_TOL and variance:
                div2.append(f"tail decays like |t|^-{c:.4g}, not faster than 1/|t|^2")
    if div1:
        # a left tail that diverges drags the mean to -inf (the minimum of Cauchy laws);
        # both tails: +inf - inf, no mean at all
        mean = math.nan if len(sides) == 2 else -math.inf if sides == {-1.0} else math.inf
        what = "undefined (both tails diverge)" if math.isnan(mean) else f"{mean}"
        reason = (
            f"numerical integral of the {'CDF' if sides == {-1.0} else 'survival function'} "
            f"did not converge (heavy tail: the mean may be {what}) on " + "; ".join(div1)
        )
        return OrderStatMoments(mean, math.inf, "quad", reason)
    mean = center + m1
    if not variance:
        return OrderStatMoments(mean, math.nan, "quad")
    if div2:
        reason = (
            "numerical integral for the second moment did not converge (heavy tail: "
            "the variance may be infinite) on " + "; ".join(div2)
        )
        return OrderStatMoments(mean, math.inf, "quad", reason)
    return OrderStatMoments(mean, max(m2 - m1 * m1, 0.0), "quad")


def _quad_order_stat(dist: Any, k: int, n: int, variance: bool = True) -> OrderStatMoments:
    """``E[X_(k:n)]`` (and ``Var``, if ``variance``; NaN otherwise) by integration: the
    Beta-weighted quantile integral for the normal, lognormal, gamma and Weibull laws
    (:mod:`gctheory.order_stats.quantile_quadrature`, one array of quantiles), and where
    that does not apply or its error estimate fails, adaptive ``quad`` of the survival
    function and the CDF of ``X_(k:n)`` (:func:`_sf_quad_order_stat`)."""
    fast = quantile_moments(dist, k, n, variance=variance)
    if fast is not None:
        lo, hi = (float(x) for x in dist.support())
        return _check_support(fast, dist, lo, hi, variance)
    return _sf_quad_order_stat(dist, k, n, variance)


def _point_calls(dist: Any) -> tuple[Any, Any]:
    """``sf`` and ``cdf`` of ``dist`` at one point. For a plain frozen scipy law with
    scalar parameters: its kernels at ``(t - loc) / scale`` inside the open support, the
    value scipy's frozen call returns there, without the call's argument handling (most
    of its ~50 us, and the quadrature calls one point at a time); scipy's call elsewhere
    and for any other law."""
    from scipy.stats import rv_continuous
    from scipy.stats._distn_infrastructure import rv_continuous_frozen

    gen: Any = getattr(dist, "dist", None)
    plain = type(dist) is rv_continuous_frozen and isinstance(gen, rv_continuous)
    if not plain or type(gen).sf is not rv_continuous.sf or type(gen).cdf is not rv_continuous.cdf:
        return dist.sf, dist.cdf
    p = unpack_frozen(dist)
    if p is None:
        return dist.sf, dist.cdf
    shapes, loc, scale, a, b = p.shapes, p.loc, p.scale, p.a, p.b

    def make(kernel: Any, generic: Any) -> Any:
        def call(t: float) -> Any:
            z = np.asarray((t - loc) / scale, dtype=float)
            return kernel(z, *shapes)[()] if a < z < b else generic(t)

        return call

    return make(gen._sf, dist.sf), make(gen._cdf, dist.cdf)


def _sf_quad_order_stat(dist: Any, k: int, n: int, variance: bool = True) -> OrderStatMoments:
    """Adaptive ``quad`` of ``P(X_(k:n) > t) = I_{S(t)}(n-k+1, k)`` and of the CDF, with
    scalar calls of the frozen law (about 100 us each, a few hundred per value)."""
    m = n - k + 1
    law_sf, law_cdf = _point_calls(dist)

    def sf(t: float) -> float:
        return float(special.betainc(m, k, law_sf(t)))

    def cdf(t: float) -> float:
        return float(special.betainc(k, m, law_cdf(t)))

    lo, hi = (float(x) for x in dist.support())
    qs = [1e-9, 1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95, 1 - 1e-3, 1 - 1e-6, 1 - 1e-9]
    # quantiles of X_(k:n): F^{-1}(Beta(k, n-k+1) quantile)
    breaks = [float(dist.ppf(special.betaincinv(k, m, q))) for q in qs]
    breaks = [b for b in breaks if np.isfinite(b)]
    center = breaks[len(breaks) // 2] if breaks else float(dist.median())
    r = _quad_moments(sf, cdf, center, lo, hi, breaks, variance)
    return _check_support(r, dist, lo, hi, variance)


def _check_support(
    r: OrderStatMoments, dist: Any, lo: float, hi: float, variance: bool = True
) -> OrderStatMoments:
    """Refuse a quadrature result outside the support ``[lo, hi]`` of ``dist`` (or a
    negative variance): a mean of a variable on ``[lo, hi]`` lies in it, so such a
    result is a numerical failure, never an answer (a NaN variance only where none was
    asked for). On a bounded support no moment is
    infinite: a divergent integral there is a numerical failure too, not an infinite
    mean."""
    if math.isfinite(lo) and math.isfinite(hi) and not math.isfinite(r.mean):
        raise ValueError(
            f"dist: numerical integration of the order statistic of {dist.dist.name!r} on "
            f"its bounded support [{lo:g}, {hi:g}] failed ({r.reason}); its mean is finite"
        )
    ok_mean = not math.isfinite(r.mean) or lo <= r.mean <= hi
    ok_var = r.variance >= 0 or (not variance and math.isnan(r.variance))
    if not (ok_mean and ok_var):
        raise ValueError(
            f"dist: numerical integration of the order statistic of {dist.dist.name!r} gave "
            f"mean {r.mean!r}, variance {r.variance!r}, outside the support [{lo}, {hi}]; "
            "this distribution is beyond what the quadrature resolves"
        )
    return r


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
        law_sf, law_cdf = _point_calls(dist)
        return (lambda t: float(law_cdf(t))), (lambda t: float(law_sf(t)))

    def cdf(t: float) -> float:
        return -math.expm1(-z(t)) if t == t else math.nan

    def sf(t: float) -> float:
        return math.exp(-z(t)) if t == t else math.nan

    return cdf, sf
