"""Maximum-likelihood fitters of the laws with at most three parameters: closed forms for
``shifted_exp`` and ``pareto``, the likelihood profiled over the shift for ``weibull``,
``gamma`` and ``lognormal``, with Wald intervals from the observed information (the
Weibull shape's by Neyman's construction, :mod:`gctheory.delays._weibull_shape`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import optimize, special, stats

from gctheory.delays._mle.laws import LAW_PARAMETERS, FitConvergenceError
from gctheory.delays._weibull_shape import shape_interval

__all__: list[str] = []


def _z(level: float) -> float:
    return float(special.ndtri(0.5 + level / 2))


def _no_intervals(law: str) -> dict[str, tuple[float, float]]:
    return {k: (math.nan, math.nan) for k in LAW_PARAMETERS[law]}


def _fit_shifted_exp(x: np.ndarray, level: float | None) -> tuple[dict, dict, Any, str]:
    n, lo = x.size, float(x.min())
    mean = float(x.mean()) - lo
    if not mean > 0:
        raise FitConvergenceError("all times are equal: no exponential part to fit")
    if level is None:
        dist = stats.expon(loc=lo, scale=mean)
        return {"shift": lo, "mean": mean}, _no_intervals("shifted_exp"), dist, ""
    a = 1 - level
    # 2 n mean_hat / mean ~ chi2(2n - 2) (the excesses over the minimum)
    c_lo, c_hi = stats.chi2.ppf([1 - a / 2, a / 2], 2 * n - 2)
    ci_mean = (2 * n * mean / c_lo, 2 * n * mean / c_hi)
    # n (min - shift) / mean ~ Exp(1)
    ci_shift = (lo + mean * math.log(a / 2) / n, lo + mean * math.log(1 - a / 2) / n)
    return (
        {"shift": lo, "mean": mean},
        {"shift": ci_shift, "mean": ci_mean},
        stats.expon(loc=lo, scale=mean),
        "",
    )


def _fit_pareto(x: np.ndarray, level: float | None) -> tuple[dict, dict, Any, str]:
    n, lo = x.size, float(x.min())
    if not lo > 0:
        raise FitConvergenceError(f"a Pareto law needs times > 0; the sample minimum is {lo:g}")
    s = float(np.sum(np.log(x / lo)))
    if not s > 0:
        raise FitConvergenceError("all times are equal: the Pareto shape is unbounded")
    xi = n / s
    if level is None:
        return {"scale": lo, "shape": xi}, _no_intervals("pareto"), stats.pareto(xi, scale=lo), ""
    a = 1 - level
    # 2 n xi / xi_hat ~ chi2(2n - 2); (scale/min)^(n xi) ~ U(0, 1)
    c_lo, c_hi = stats.chi2.ppf([a / 2, 1 - a / 2], 2 * n - 2)
    ci_xi = (xi * c_lo / (2 * n), xi * c_hi / (2 * n))
    ci_scale = (lo * (a / 2) ** (1 / (n * xi)), lo * (1 - a / 2) ** (1 / (n * xi)))
    return (
        {"scale": lo, "shape": xi},
        {"scale": ci_scale, "shape": ci_xi},
        stats.pareto(xi, scale=lo),
        "",
    )


def _inner_lognormal(y: np.ndarray) -> tuple[float, tuple[float, float]]:
    ly = np.log(y)
    mu = float(ly.mean())
    sig = float(np.sqrt(np.mean((ly - mu) ** 2)))
    if not sig > 0:
        return -math.inf, (math.nan, math.nan)
    n = y.size
    ll = -float(ly.sum()) - n * math.log(sig) - 0.5 * n * math.log(2 * math.pi) - 0.5 * n
    return ll, (sig, math.exp(mu))


def _inner_gamma(y: np.ndarray) -> tuple[float, tuple[float, float]]:
    ly = np.log(y)
    m = float(y.mean())
    s = math.log(m) - float(ly.mean())
    if not s > 0:
        return -math.inf, (math.nan, math.nan)
    a = (3 - s + math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s)  # Minka's start
    for _ in range(50):  # Newton on log a - digamma(a) = s
        f = math.log(a) - special.digamma(a) - s
        step = f / (1 / a - special.polygamma(1, a))
        a_new = a - step
        if a_new <= 0:
            a_new = a / 2
        if abs(a_new - a) <= 1e-12 * a:
            a = a_new
            break
        a = a_new
    theta = m / a
    n = y.size
    ll = (
        (a - 1) * float(ly.sum()) - n * m / theta - n * a * math.log(theta) - n * special.gammaln(a)
    )
    return float(ll), (a, theta)


def _inner_weibull(y: np.ndarray) -> tuple[float, tuple[float, float]]:
    ly = np.log(y)
    z = ly - ly.max()
    zm = float(z.mean())

    def f(k: float) -> float:
        e = np.exp(k * z)
        return float(np.sum(e * z) / np.sum(e)) - 1 / k - zm

    lo, hi = 1e-3, 1e3
    if f(lo) > 0 or f(hi) < 0:
        return -math.inf, (math.nan, math.nan)
    k = optimize.brentq(f, lo, hi, xtol=1e-12, rtol=1e-12)
    lam = math.exp(ly.max()) * float(np.mean(np.exp(k * z))) ** (1 / k)
    n = y.size
    ll = n * math.log(k) - n * k * math.log(lam) + (k - 1) * float(ly.sum())
    ll -= float(np.sum(np.exp(k * (ly - math.log(lam)))))
    return ll, (k, lam)


_INNER = {"lognormal": _inner_lognormal, "gamma": _inner_gamma, "weibull": _inner_weibull}


def _frozen3(law: str, shape: float, loc: float, scale: float) -> Any:
    if law == "lognormal":
        return stats.lognorm(shape, loc=loc, scale=scale)
    if law == "gamma":
        return stats.gamma(shape, loc=loc, scale=scale)
    return stats.weibull_min(shape, loc=loc, scale=scale)


def _profile_loc(x: np.ndarray, inner: Any) -> tuple[float, float, tuple[float, float], bool]:
    """Maximise the profile likelihood over loc in [0, min x): (ll, loc, params, at_zero)."""
    lo = float(x.min())
    if not lo > 0:
        raise FitConvergenceError(
            f"the sample minimum is {lo:g}: a shifted law needs every time > its shift >= 0"
        )
    # gaps g = min - loc on a log grid from min (loc = 0) down to 1e-10 min
    lg = np.linspace(0.0, -10.0 * math.log(10), 41) + math.log(lo)

    def prof(log_gap: float) -> float:
        g = math.exp(log_gap)
        return inner(x - (lo - g))[0]

    vals = np.array([prof(t) for t in lg])
    if not np.any(np.isfinite(vals)):
        raise FitConvergenceError("the likelihood is not finite for any shift in [0, min)")
    k = int(np.nanargmax(np.where(np.isfinite(vals), vals, -np.inf)))
    if k == len(lg) - 1:
        raise FitConvergenceError(
            "the likelihood keeps increasing as the shift approaches the sample minimum "
            f"(gap {math.exp(lg[-1]):.3g} s): no maximum with a free shift"
        )
    if k == 0:
        # the constrained maximum is at loc = 0 if the profile falls as loc grows from 0
        res = optimize.minimize_scalar(
            lambda t: -prof(t), bounds=(lg[1], lg[0]), method="bounded", options={"xatol": 1e-10}
        )
        if res.fun < -vals[0] - 1e-9 * abs(vals[0]):
            best_t = float(res.x)
        else:
            ll, pars = inner(x)
            return ll, 0.0, pars, True
    else:
        res = optimize.minimize_scalar(
            lambda t: -prof(t),
            bounds=(lg[k + 1], lg[k - 1]),
            method="bounded",
            options={"xatol": 1e-10},
        )
        best_t = float(res.x) if res.fun <= -vals[k] else float(lg[k])
    loc = lo - math.exp(best_t)
    ll, pars = inner(x - loc)
    return ll, loc, pars, False


def _nll(dist_of: Any, theta: np.ndarray, x: np.ndarray) -> float:
    try:
        d = dist_of(theta)
        v = -float(np.sum(d.logpdf(x)))
    except (ValueError, FloatingPointError):
        return math.inf
    return v if math.isfinite(v) else math.inf


def _wald(
    dist_of: Any,
    theta: np.ndarray,
    x: np.ndarray,
    level: float,
    room: np.ndarray | None = None,
    nll: Any = None,
) -> np.ndarray:
    """Wald intervals from a central-difference Hessian of the negative log-likelihood.

    ``room[i]`` is the distance from ``theta[i]`` to the nearest bound of its
    domain (steps stay inside it); a parameter with no room (on its bound) is
    held fixed and gets no interval. ``nll(dist)``, if given, replaces the negative
    log-likelihood of ``x`` (the censored fits pass theirs).
    """
    k = theta.size
    room = np.full(k, np.inf) if room is None else np.asarray(room, float)
    free = np.flatnonzero(room > 0)
    out = np.full((k, 2), np.nan)
    if free.size == 0:
        return out
    h = np.minimum(1e-4 * np.maximum(np.abs(theta), 1e-3), room / 4)

    def f(delta: np.ndarray) -> float:
        t = theta.copy()
        t[free] += delta
        if nll is None:
            return _nll(dist_of, t, x)
        try:
            return float(nll(dist_of(t)))
        except (ValueError, FloatingPointError):
            return math.inf

    kf = free.size
    E = np.diag(h[free])
    H = np.empty((kf, kf))
    f0 = f(np.zeros(kf))
    for i in range(kf):
        for j in range(i, kf):
            if i == j:
                val = (f(E[i]) - 2 * f0 + f(-E[i])) / h[free[i]] ** 2
            else:
                val = (f(E[i] + E[j]) - f(E[i] - E[j]) - f(-E[i] + E[j]) + f(-E[i] - E[j])) / (
                    4 * h[free[i]] * h[free[j]]
                )
            H[i, j] = H[j, i] = val
    if not np.all(np.isfinite(H)):
        return out
    try:
        cov = np.linalg.inv(H)
    except np.linalg.LinAlgError:
        return out
    var = np.diag(cov)
    if np.any(var <= 0):
        return out
    se = np.sqrt(var)
    z = _z(level)
    out[free, 0], out[free, 1] = theta[free] - z * se, theta[free] + z * se
    return out


def _fit_shape_loc_scale(
    law: str, x: np.ndarray, level: float | None
) -> tuple[dict, dict, Any, str]:
    """The fit of a law with a shift (``level=None``: the point fit only, NaN intervals,
    as the goodness-of-fit bootstrap's refits need)."""
    ll, loc, (shape, scale), at_zero = _profile_loc(x, _INNER[law])
    if not (math.isfinite(ll) and shape > 0 and scale > 0):
        raise FitConvergenceError(f"{law}: no finite maximum of the likelihood")
    names = LAW_PARAMETERS[law]
    params = {names[0]: shape, "loc": loc, "scale": scale}
    note = "shift at its bound 0 (no interval)" if at_zero else ""
    if level is None:
        return params, _no_intervals(law), _frozen3(law, shape, loc, scale), note
    theta = np.array([shape, loc, scale])
    room = np.array([shape, 0.0 if at_zero else min(loc, float(x.min()) - loc), scale])
    ci3 = _wald(lambda t: _frozen3(law, *t), theta, x, level, room)
    ci = {n: tuple(ci3[i]) for i, n in enumerate(names)}
    if law == "weibull":
        ci["shape"] = shape_interval(x, shape, at_zero, level)
    ci = {k: (float(a), float(b)) for k, (a, b) in ci.items()}
    return params, ci, _frozen3(law, shape, loc, scale), note
