"""A body-plus-heavy-tail mixture as a scipy.stats distribution.

``(1 - w) LogNormal(sigma, loc=shift, scale=1) + w Pareto(xi, scale=t0)``,
standardised (``loc = 0``, ``scale = 1``); freezing it with ``scale=S``
scales both components, so the functions of :mod:`gctheory.runtime` (which
scale ``loc`` and ``scale`` by a worker's load) and
:mod:`gctheory.order_stats` take it like any other law. The body models the
bulk of measured times, the Pareto component the rare stragglers; its mean
is finite iff ``xi > 1``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special, stats

from gctheory._validate import check_probability, check_real

__all__ = ["body_tail"]


class _BodyTailGen(stats.rv_continuous):
    """Mixture ``(1-w) LogNormal(sigma, loc=shift) + w Pareto(xi, scale=t0)``."""

    def _argcheck(self, w, sigma, shift, xi, t0):
        return (w > 0) & (w < 1) & (sigma > 0) & (shift >= 0) & (xi > 0) & (t0 > 0)

    def _shape_info(self):
        from scipy.stats._distn_infrastructure import _ShapeInfo

        return [
            _ShapeInfo("w", False, (0, 1), (False, False)),
            _ShapeInfo("sigma", False, (0, np.inf), (False, False)),
            _ShapeInfo("shift", False, (0, np.inf), (True, False)),
            _ShapeInfo("xi", False, (0, np.inf), (False, False)),
            _ShapeInfo("t0", False, (0, np.inf), (False, False)),
        ]

    def _get_support(self, w, sigma, shift, xi, t0):
        return np.minimum(shift, t0), np.inf

    @staticmethod
    def _body_z(x, sigma, shift):
        y = np.maximum(np.asarray(x, float) - shift, 1e-300)
        return np.log(y) / sigma, y

    def _pdf(self, x, w, sigma, shift, xi, t0):
        return np.exp(self._logpdf(x, w, sigma, shift, xi, t0))

    def _logpdf(self, x, w, sigma, shift, xi, t0):
        z, y = self._body_z(x, sigma, shift)
        body = np.where(
            x > shift, -0.5 * z**2 - np.log(y * sigma) - 0.5 * np.log(2 * np.pi), -np.inf
        )
        xs = np.maximum(x, 1e-300)
        tail = np.where(x >= t0, np.log(xi) + xi * np.log(t0) - (xi + 1) * np.log(xs), -np.inf)
        return np.logaddexp(np.log1p(-w) + body, np.log(w) + tail)

    def _cdf(self, x, w, sigma, shift, xi, t0):
        z, _ = self._body_z(x, sigma, shift)
        body = np.where(x > shift, special.ndtr(z), 0.0)
        tail = np.where(x >= t0, -np.expm1(xi * (np.log(t0) - np.log(np.maximum(x, t0)))), 0.0)
        return (1 - w) * body + w * tail

    def _sf(self, x, w, sigma, shift, xi, t0):
        z, _ = self._body_z(x, sigma, shift)
        body = np.where(x > shift, special.ndtr(-z), 1.0)
        tail = np.where(x >= t0, np.exp(xi * (np.log(t0) - np.log(np.maximum(x, t0)))), 1.0)
        return (1 - w) * body + w * tail

    def _invert(self, target, fn, args, upper):
        """Vectorised bisection in log(x - low) for fn(x) = target (fn monotone)."""
        w, sigma, shift, xi, t0 = (np.broadcast_to(a, target.shape) for a in args)
        low = np.minimum(shift, t0)
        # bracket: the body's and the tail's own quantiles bound the mixture's
        if upper:  # fn = sf, decreasing
            qb = shift + np.exp(sigma * special.ndtri(np.clip(1 - target / (1 - w), 0, 1)))
            qt = t0 * np.power(np.clip(target / w, 1e-300, None), -1.0 / xi)
        else:
            qb = shift + np.exp(sigma * special.ndtri(np.clip(target / (1 - w), 0, 1)))
            qt = t0 * np.power(np.clip(1 - target / w, 1e-300, None), -1.0 / xi)
        hi = np.where(np.isfinite(qb), np.maximum(qb, qt), qt)
        hi = np.maximum(np.where(np.isfinite(hi), hi, 1e300), low + 1e-300) * 2 + 1
        a = np.log(np.full(target.shape, 1e-300))
        b = np.log(hi - low)
        for _ in range(120):
            mid = (a + b) / 2
            x = low + np.exp(mid)
            val = fn(x, w, sigma, shift, xi, t0)
            go_up = (val > target) if upper else (val < target)
            a = np.where(go_up, mid, a)
            b = np.where(go_up, b, mid)
        return low + np.exp((a + b) / 2)

    def _ppf(self, q, w, sigma, shift, xi, t0):
        q = np.asarray(q, float)
        return self._invert(q, self._cdf, (w, sigma, shift, xi, t0), upper=False)

    def _isf(self, q, w, sigma, shift, xi, t0):
        q = np.asarray(q, float)
        return self._invert(q, self._sf, (w, sigma, shift, xi, t0), upper=True)

    def _rvs(self, w, sigma, shift, xi, t0, size=None, random_state=None):
        rng = random_state
        tail = rng.random(size) < w
        body = shift + np.exp(sigma * rng.standard_normal(size))
        par = t0 * np.power(rng.random(size), -1.0 / xi)
        return np.where(tail, par, body)

    def _munp(self, n, w, sigma, shift, xi, t0):
        # E[(shift + Y)^n], Y lognormal: binomial sum of E[Y^j] = exp(j^2 sigma^2 / 2)
        j = np.arange(n + 1)
        body = np.sum(special.comb(n, j) * shift ** (n - j) * np.exp(j**2 * sigma**2 / 2))
        tail = xi * t0**n / (xi - n) if xi > n else np.inf
        return (1 - w) * body + w * tail


_body_tail_gen = _BodyTailGen(a=0.0, name="body_tail", shapes="w, sigma, shift, xi, t0")


def body_tail(w: float, sigma: float, shift: float, body_scale: float, xi: float, t0: float) -> Any:
    """The frozen mixture with body ``shift + body_scale * LogNormal(0, sigma)`` (a
    lognormal with ``loc=shift`` and ``scale=body_scale``) and, with weight ``w``,
    a Pareto tail ``P(X > t) = (t0 / t)^xi`` for ``t >= t0``.

    Natural parameters in seconds; internally frozen with ``scale=body_scale``.
    Domain: ``0 <= w <= 1``, ``sigma, body_scale, xi, t0 > 0``, ``shift >= 0``.

    Parameters
    ----------
    w : float
        Weight of the Pareto tail, in [0, 1].
    sigma : float
        Lognormal shape of the body.
    shift : float
        Shift of the body (seconds).
    body_scale : float
        Scale of the body (seconds).
    xi : float
        Tail index.
    t0 : float
        Start of the tail (seconds).

    Returns
    -------
    frozen scipy.stats distribution
        The mixture.

    Examples
    --------
    >>> from gctheory.delays import body_tail
    >>> d = body_tail(0.05, 0.5, 0.1, 0.05, 1.5, 1.0)
    >>> round(float(d.cdf(1.0)), 4), round(float(d.sf(10.0)), 6)
    (0.95, 0.001581)
    """
    w = check_probability(w, "w")
    sigma = check_real(sigma, "sigma", low=0.0, low_open=True)
    shift = check_real(shift, "shift", low=0.0)
    S = check_real(body_scale, "body_scale", low=0.0, low_open=True)
    xi = check_real(xi, "xi", low=0.0, low_open=True)
    t0 = check_real(t0, "t0", low=0.0, low_open=True)
    if not (math.isfinite(shift / S) and math.isfinite(t0 / S)):
        raise ValueError(f"body_scale={S:g} is too small for shift={shift:g} and t0={t0:g}")
    return _body_tail_gen(w, sigma, shift / S, xi, t0 / S, scale=S)
