"""Moments of ``X_(k:n)`` by integrating the quantile function against a Beta density.

With ``U = F(X)``, the ``k``-th of ``n`` uniforms is ``Beta(k, m)``, ``m = n-k+1``
(David and Nagaraja, *Order Statistics*, 3rd ed. 2003, eq. (2.2.2)), so

    E[X_(k:n)] = int_0^1 F^{-1}(u) u^(k-1) (1-u)^(m-1) du / B(k, m).

For the normal, lognormal, gamma and Weibull laws the quantile function and its
mirror, the inverse survival function, are vectorised ``scipy.special`` calls, so
the integral costs one or two arrays of quantiles instead of hundreds of scalar
``cdf``/``sf`` calls through a frozen law (about 100 us each).

The integral is split at ``u = 1/2``: the lower half in ``u``, the upper half in
``q = 1 - u`` through the inverse survival function, so no quantile is taken of a
``u`` rounded next to 1 (at ``k = 0.9 n``, ``n = 10^5`` the relevant ``q`` is 0.1
and keeps every digit). Each half is written in ``s = -log u`` (or ``-log q``),
``s >= log 2``, where the density ``e^(-a s) (1 - e^-s)^b`` (``a, b = k, m-1`` or
``m, k-1``) is log-concave with its mode at ``log1p(b/a)``. Its logarithm is taken
relative to a reference ``s_r`` as ``-a t + b log1p(-expm1(-t)/expm1(s_r))``
(``t = s - s_r``), so ``log B(k, m)`` (about ``-7e4`` at ``n = 10^5``) never enters
and nothing cancels; the two halves are weighed against each other at their common
point ``u = 1/2``. The window where the density is within ``e^-48`` of its peak is
found by monotone Newton steps on the concave log-density and mapped by
``t = t_c + sigma sinh(y)`` (``sigma`` the local width at the mode), which keeps the
Gaussian core and stretches an exponential tail (the maximum's, ``a = 1``) to a
double-exponential one. Clenshaw-Curtis rules of 33, 65, 129 and 257 nodes on ``y``
are nested, so each level's difference from the previous one costs nothing extra and
is the error estimate; the weights are normalised by the same rule's integral of the
density (exactly 1), which removes the density's rounding from the mean. The mean is
accepted when two levels agree to ``1e-10`` of ``int |x| dBeta`` (the error of the
finer level is then about the square of that: convergence is geometric) and the
window's tail beyond its end is below ``1e-17`` of it; otherwise the caller falls
back to adaptive quadrature (:mod:`gctheory.order_stats.quadrature`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special, stats

from gctheory.order_stats._common import OrderStatMoments

__all__: list[str] = []

# two nested levels agreeing to this fraction of int |x| dBeta accept the finer one
_AGREE = 1e-10
# the tail beyond a window's far end, relative to int |x| dBeta, must stay below this
_TAIL = 1e-17
# windows: where the Beta density is within e^-W of its peak; a second, wider try
_WINDOWS = (48.0, 120.0, 300.0)
_LN2 = math.log(2.0)
_NMAX = 512
_LEVELS = (32, 64, 128, 256, 512)


def _clenshaw_curtis(n: int) -> np.ndarray:
    """Weights of the ``n + 1``-point Clenshaw-Curtis rule on ``[-1, 1]`` (``n`` even),
    nodes ``cos(pi j / n)``."""
    th = np.pi * np.arange(n + 1) / n
    w = np.empty(n + 1)
    v = np.ones(n - 1)
    for j in range(1, n // 2):
        v -= 2.0 * np.cos(2 * j * th[1:-1]) / (4 * j * j - 1)
    v -= np.cos(n * th[1:-1]) / (n * n - 1)
    w[0] = w[n] = 1.0 / (n * n - 1)
    w[1:-1] = 2.0 * v / n
    return w


@functools.cache
def _rule() -> tuple[np.ndarray, dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Nodes ``cos(pi j / 512)`` (1 down to -1), and per level the indices of its nodes
    among them and its weights; built on first use (not at import)."""
    nodes = np.cos(np.pi * np.arange(_NMAX + 1) / _NMAX)
    idx = {n: np.arange(0, _NMAX + 1, _NMAX // n) for n in _LEVELS}
    return nodes, idx, {n: _clenshaw_curtis(n) for n in _LEVELS}


# the four families' quantiles of the standardised law (loc 0, scale 1) at u = e^-s
# (lower half) and of q = e^-s (upper half), given the shape parameters
Quantile = Callable[[np.ndarray, tuple[float, ...]], np.ndarray]


def _norm_lo(s: np.ndarray, sh: tuple[float, ...]) -> np.ndarray:
    return special.ndtri(np.exp(-s))


def _norm_hi(s: np.ndarray, sh: tuple[float, ...]) -> np.ndarray:
    return -special.ndtri(np.exp(-s))


def _lognorm_lo(s: np.ndarray, sh: tuple[float, ...]) -> np.ndarray:
    return np.exp(sh[0] * special.ndtri(np.exp(-s)))


def _lognorm_hi(s: np.ndarray, sh: tuple[float, ...]) -> np.ndarray:
    return np.exp(-sh[0] * special.ndtri(np.exp(-s)))


def _gamma_lo(s: np.ndarray, sh: tuple[float, ...]) -> np.ndarray:
    return special.gammaincinv(sh[0], np.exp(-s))


def _gamma_hi(s: np.ndarray, sh: tuple[float, ...]) -> np.ndarray:
    return special.gammainccinv(sh[0], np.exp(-s))


def _weibull_lo(s: np.ndarray, sh: tuple[float, ...]) -> np.ndarray:
    return (-np.log1p(-np.exp(-s))) ** (1.0 / sh[0])


def _weibull_hi(s: np.ndarray, sh: tuple[float, ...]) -> np.ndarray:
    return s ** (1.0 / sh[0])  # (-log q)^(1/c) at q = e^-s: exact


_FAMILIES: dict[type, tuple[Quantile, Quantile]] = {
    type(stats.norm): (_norm_lo, _norm_hi),
    type(stats.lognorm): (_lognorm_lo, _lognorm_hi),
    type(stats.gamma): (_gamma_lo, _gamma_hi),
    type(stats.weibull_min): (_weibull_lo, _weibull_hi),
}


def quantile_family(dist: Any) -> tuple[Quantile, Quantile] | None:
    """The (lower, upper) quantile pair of ``dist``'s family, or None if it has none
    here. Only scipy's own classes count (a subclass may redefine ``_ppf``)."""
    return _FAMILIES.get(type(getattr(dist, "dist", None)))


# the log-density of one half, phi(s) = -a s + b log1p(-e^-s), relative to s_r;
# em1 = expm1(s_r)


def _dphi(t: Any, a: float, b: float, em1: float) -> Any:
    """``phi(s_r + t) - phi(s_r) = -a t + b log1p(-expm1(-t) / em1)`` (arrays too)."""
    if b == 0.0:
        return -a * t
    return -a * t + b * np.log1p(-np.expm1(-t) / em1)


def _dphi1(t: float, a: float, b: float, em1: float) -> float:
    """``phi'(s_r + t) = -a + b / expm1(s_r + t)``, ``expm1(s_r + t) = em1 e^t + expm1(t)``."""
    return -a + b / (em1 * math.exp(t) + math.expm1(t)) if b else -a


def _dphi2(t: float, b: float, em1: float) -> float:
    """``phi''(s_r + t) = -b e^s / expm1(s)^2``."""
    if b == 0.0:
        return 0.0
    e = em1 * math.exp(t) + math.expm1(t)
    return -b * (e + 1.0) / (e * e)


def _root(t: float, target: float, a: float, b: float, em1: float) -> float:
    """Newton on the concave ``_dphi(t) = target`` from ``t``, a point beyond the root
    (``_dphi(t) < target``): each step stays beyond it, monotonically closer."""
    for _ in range(100):
        g = float(_dphi(t, a, b, em1)) - target
        if g >= -1e-6:
            break
        d = _dphi1(t, a, b, em1)
        if d == 0.0:
            break
        step = g / d
        t -= step
        if abs(step) <= 1e-13 * max(1.0, abs(t)):
            break
    return t


class _Half:
    """One half of the integral: the window, the map and the nodes evaluated so far."""

    def __init__(self, a: float, b: float, q: Quantile, width: float) -> None:
        self.a, self.b, self.q = a, b, q
        if b > a:  # interior mode s* = log1p(b/a) > log 2
            self.s_r, self.em1 = math.log1p(b / a), b / a
            # the mode's height over u = 1/2 (s = log 2), by the accurate difference
            self.offset = -float(_dphi(_LN2 - self.s_r, a, b, self.em1))
        else:
            self.s_r, self.em1, self.offset = _LN2, 1.0, 0.0
        a_, b_, em1 = a, b, self.em1
        # far end: from a start below -width (phi <= -a t + b log1p(1/em1) there)
        start = (width + b_ * math.log1p(1.0 / em1)) / a_ + 1.0
        self.t_hi = _root(start, -width, a_, b_, em1)
        t_min = _LN2 - self.s_r  # <= 0, the half's end at u = 1/2
        if t_min < 0.0 and float(_dphi(t_min, a_, b_, em1)) < -width:
            self.t_lo = _root(t_min, -width, a_, b_, em1)
        else:
            self.t_lo = t_min
        self.t_c = 0.0 if t_min < 0.0 else self.t_lo
        d1 = _dphi1(self.t_c, a_, b_, em1)
        self.sigma = 1.0 / math.sqrt(abs(_dphi2(self.t_c, b_, em1)) + d1 * d1)
        y0 = math.asinh((self.t_lo - self.t_c) / self.sigma)
        y1 = math.asinh((self.t_hi - self.t_c) / self.sigma)
        self.mid, self.hw = 0.5 * (y1 + y0), 0.5 * (y1 - y0)
        self.x = np.full(_NMAX + 1, np.nan)
        self.d = np.full(_NMAX + 1, np.nan)
        self.t = np.full(_NMAX + 1, np.nan)

    def evaluate(self, idx: np.ndarray, rel: float, shapes: tuple[float, ...]) -> bool:
        """Quantiles and weights (density times the map's Jacobian) at nodes ``idx``
        not yet evaluated; ``rel`` is this half's log-weight against the other's."""
        new = idx[np.isnan(self.x[idx])]
        y = self.mid + self.hw * _rule()[0][new]
        t = self.t_c + self.sigma * np.sinh(y)
        t[new == 0] = self.t_hi  # the ends exactly (sinh(asinh(.)) rounds)
        t[new == _NMAX] = self.t_lo
        self.t[new] = t
        self.d[new] = np.exp(_dphi(t, self.a, self.b, self.em1) + rel) * (
            self.hw * self.sigma * np.cosh(y)
        )
        x = self.q(self.s_r + t, shapes)
        self.x[new] = x
        return bool(np.all(np.isfinite(x)))

    def tail(self, rel: float, step: int) -> float:
        """Bound on ``int |x| dBeta`` beyond the window: at the far end ``t_hi``, and at
        the near end ``t_lo`` where that is not the half's own end (``u = 1/2``), each
        ``|g(end)| / |(log g)'(end)|`` with ``g = |x| e^phi`` (log-concave in the tail:
        ``log |x|`` is concave in ``s`` for these laws), the slope of ``log |x|`` from
        the end's neighbouring node. A quantile growing fast away from the peak (the
        minimum of ``10^6`` gamma(0.05) draws: ``x ~ u^20``) can move the integrand's
        mass to where the density alone is below ``e^-48``; this catches it."""
        out = self._end_tail(0, step, self.t_hi, -1.0, rel)
        if self.t_lo > _LN2 - self.s_r:
            out += self._end_tail(_NMAX, _NMAX - step, self.t_lo, 1.0, rel)
        return out

    def _end_tail(self, i0: int, i1: int, t0: float, sign: float, rel: float) -> float:
        """The tail beyond node ``i0`` (at ``t0``; ``sign`` -1 at the far end, where the
        integrand must fall with ``t``, +1 at the near end, where it must rise)."""
        x0, x1 = abs(self.x[i0]), abs(self.x[i1])
        g0 = x0 * math.exp(float(_dphi(t0, self.a, self.b, self.em1)) + rel)
        if g0 == 0.0:
            return 0.0
        slope = _dphi1(t0, self.a, self.b, self.em1)
        if x1 > 0.0:
            slope += math.log(x0 / x1) / (t0 - self.t[i1])
        return g0 / (sign * slope) if sign * slope > 0.0 else math.inf


def _level(halves: list[_Half], n: int, variance: bool) -> tuple[float, float, float]:
    """``(mean, int |x| dBeta / mass, variance)`` by the ``n``-interval rule (variance
    about that rule's own mean, NaN unless asked); weights normalised by the rule's
    integral of the density."""
    _, idxs, ws = _rule()
    idx, w = idxs[n], ws[n]
    m1 = m0 = ab = 0.0
    for h in halves:
        wd = w * h.d[idx]
        wx = wd * h.x[idx]
        m1 += float(np.sum(wx))
        m0 += float(np.sum(wd))
        ab += float(np.sum(np.abs(wx)))
    if not (m0 > 0.0 and math.isfinite(m1)):
        return math.nan, math.nan, math.nan
    mean = m1 / m0
    var = math.nan
    if variance:
        var = sum(float(np.sum(w * h.d[idx] * (h.x[idx] - mean) ** 2)) for h in halves) / m0
    return mean, ab / m0, var


def _moments(
    fam: tuple[Quantile, Quantile],
    shapes: tuple[float, ...],
    k: int,
    n: int,
    width: float,
    variance: bool,
) -> tuple[float, float] | None:
    m = n - k + 1
    halves = [
        _Half(float(k), float(m - 1), fam[0], width),
        _Half(float(m), float(k - 1), fam[1], width),
    ]
    top = max(h.offset for h in halves)
    # a half below e^-(width+10) of the other carries nothing the other's window misses
    live = [(h, h.offset - top) for h in halves if h.offset - top >= -width - 10.0]
    hs = [h for h, _ in live]
    _, idxs, ws = _rule()
    # the mean: refine until two levels agree (the variance's refinement, below, never
    # changes it, so a value is the same whether or not the variance was asked for)
    prev = cur = (math.nan, math.nan, math.nan)
    for i, level in enumerate(_LEVELS):
        for h, r in live:
            if not h.evaluate(idxs[level], r, shapes):
                return None
        cur = _level(hs, level, variance)
        if not math.isfinite(cur[0]):
            return None
        if i > 0 and abs(cur[0] - prev[0]) <= _AGREE * cur[1]:
            break
        prev = cur
    else:
        return None
    mean, scale_abs, var = cur
    mass = sum(float(np.sum(ws[level] * h.d[idxs[level]])) for h in hs)
    if sum(h.tail(r, _NMAX // level) for h, r in live) > _TAIL * scale_abs * mass:
        return None
    if not variance:
        return mean, math.nan
    var_prev = prev[2]
    for j, level in enumerate(_LEVELS[i:]):
        if j > 0:
            for h, r in live:
                if not h.evaluate(idxs[level], r, shapes):
                    return None
            var = _level(hs, level, True)[2]
        if abs(var - var_prev) <= _AGREE * var:
            return mean, var
        var_prev = var
    return None


def quantile_moments(
    dist: Any, k: int, n: int, *, variance: bool = True
) -> OrderStatMoments | None:
    """``E[X_(k:n)]`` and, if ``variance``, ``Var[X_(k:n)]`` of a normal, lognormal,
    gamma or Weibull ``dist`` by the Beta-weighted quantile integral (module
    docstring); None where the law is another family or the error estimate or the
    window's tail check fails (the caller then integrates adaptively). Without
    ``variance`` the variance is NaN."""
    fam = quantile_family(dist)
    if fam is None:
        return None
    sh, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    shapes = tuple(float(x) for x in sh)
    loc, scale = float(loc), float(scale)
    for width in _WINDOWS:
        r = _moments(fam, shapes, k, n, width, variance)
        if r is not None:
            mean_z, var_z = r
            return OrderStatMoments(loc + scale * mean_z, scale * scale * var_z, "quad")
    return None
