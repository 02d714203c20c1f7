"""The delay laws fitted by :mod:`gctheory.delays.fitting`, and their maximum-likelihood fitters.

The law table (:data:`LAWS`, :data:`LAW_PARAMETERS`), the fit result
(:class:`LawFit`), the sample check, and one fitter per law: closed forms for
``shifted_exp`` and ``pareto``, the likelihood profiled over the shift for
``weibull``, ``gamma`` and ``lognormal`` (Wald intervals from the observed
information; the Weibull shape's is Neyman's construction by Monte Carlo, in
:mod:`gctheory.delays._weibull_shape`), EM over a
grid of tail thresholds for the ``mixture``
(:data:`_FITTERS`, law -> ``fitter(x, level) -> (params, ci, dist, note)``; ``level=None``
gives the point fit with NaN intervals, for the goodness-of-fit bootstrap's refits).
The method and its references are described in :mod:`gctheory.delays.fitting`,
which re-exports every public name; import them from there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, special, stats

from gctheory._names import DELAY_LAWS
from gctheory._validate import check_array
from gctheory.delays._weibull_shape import shape_interval
from gctheory.delays._weibull_shape import weibull_loglik as _weibull_loglik  # noqa: F401
from gctheory.delays._weibull_shape import weibull_profile as _weibull_profile  # noqa: F401
from gctheory.delays.mixture import body_tail

__all__ = ["LAWS", "LAW_PARAMETERS", "FitConvergenceError", "LawFit"]

LAWS = DELAY_LAWS  # shifted_exp, pareto, weibull, gamma, lognormal, mixture
#: The parameters of each fitted law, in the order :class:`LawFit` reports them.
LAW_PARAMETERS = {
    "shifted_exp": ("shift", "mean"),
    "pareto": ("scale", "shape"),
    "weibull": ("shape", "loc", "scale"),
    "gamma": ("shape", "loc", "scale"),
    "lognormal": ("sigma", "loc", "scale"),
    "mixture": ("w", "sigma", "loc", "scale", "xi", "t0"),
}


class FitConvergenceError(ValueError):
    """A maximum-likelihood fit did not converge (the message says why).

    Examples
    --------
    >>> from gctheory.delays import FitConvergenceError
    >>> issubclass(FitConvergenceError, ValueError)
    True
    """


@dataclass(frozen=True, eq=False)
class LawFit:
    """One law fitted to one sample.

    Attributes
    ----------
    law : str
    n : int
        Sample size.
    params : dict
        Maximum-likelihood estimates, by the names of :data:`LAW_PARAMETERS`.
    ci : dict
        ``(low, high)`` at ``level`` per parameter (NaN where not available).
    dist : frozen scipy.stats distribution or None
        The fitted law (None if the fit did not converge).
    loglik, aic : float
    converged : bool
    message : str
        Why it did not converge, or notes (boundary estimates).
    ks, ad : float
        Kolmogorov-Smirnov and Anderson-Darling statistics of the sample.
    ks_p, ad_p : float or None
        Parametric-bootstrap p-values (None until :func:`goodness_of_fit`).
    bootstrap, failed_refits : int
        Bootstrap replicates used, and how many of their refits failed.
    seconds : float
        Time spent fitting (and bootstrapping).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import LawFit, fit_law
    >>> x = 0.1 + np.random.default_rng(0).exponential(0.05, 200)
    >>> fit = fit_law(x, "shifted_exp")
    >>> fit
    LawFit('shifted_exp', shift=0.1001, mean=0.0564, AIC=-746.15)
    >>> fit.contains("mean", 0.05), fit.n
    (True, 200)
    """

    law: str
    n: int
    params: dict[str, float]
    ci: dict[str, tuple[float, float]]
    level: float
    dist: Any
    loglik: float
    aic: float
    converged: bool = True
    message: str = ""
    ks: float = math.nan
    ad: float = math.nan
    ks_p: float | None = None
    ad_p: float | None = None
    bootstrap: int = 0
    failed_refits: int = 0
    seconds: float = field(default=0.0, repr=False)

    def __repr__(self) -> str:
        if not self.converged:
            return f"LawFit({self.law!r}, did not converge: {self.message})"
        ps = ", ".join(f"{k}={v:.4g}" for k, v in self.params.items())
        p = "" if self.ks_p is None else f", KS p={self.ks_p:.3g}, AD p={self.ad_p:.3g}"
        return f"LawFit({self.law!r}, {ps}, AIC={self.aic:.6g}{p})"

    def contains(self, name: str, value: float) -> bool:
        """Whether the confidence interval of parameter ``name`` contains ``value``."""
        lo, hi = self.ci[name]
        return bool(lo <= value <= hi)

    def row(self) -> dict[str, Any]:
        """A flat dict for tables."""
        out: dict[str, Any] = {"law": self.law, "n": self.n, "converged": self.converged}
        out.update({"loglik": self.loglik, "aic": self.aic, "ks": self.ks, "ks_p": self.ks_p})
        out.update({"ad": self.ad, "ad_p": self.ad_p, "bootstrap": self.bootstrap})
        out["params"] = (
            ", ".join(
                f"{k}={v:.5g} [{self.ci[k][0]:.4g}, {self.ci[k][1]:.4g}]"
                for k, v in self.params.items()
            )
            if self.converged
            else f"did not converge: {self.message}"
        )
        out["message"] = self.message
        return out


# ---------------------------------------------------------------------------
# the laws


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


# ------------------------------------------------------------- mixture


def _mix_terms(x, lx, w, sig, loc, scale, xi, t0):
    lb, lt, _, _ = _mix_terms_z(x, lx, w, sig, loc, scale, xi, t0)
    return lb, lt


def _mix_terms_z(x, lx, w, sig, loc, scale, xi, t0):
    """:func:`_mix_terms` and the body's ``y = x - loc`` and ``z = (log y - log scale) / sig``
    (the log taken once: the gradient reuses both, the same floats)."""
    y = x - loc
    ok = y > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ly = np.log(np.where(ok, y, 1.0))
        z = (ly - math.log(scale)) / sig
        lb = np.where(ok, -0.5 * z**2 - ly - math.log(sig), -np.inf)
    lb = lb - 0.5 * math.log(2 * math.pi) + math.log1p(-w)
    lt = np.where(x >= t0, math.log(xi) + xi * math.log(t0) - (xi + 1) * lx, -np.inf)
    lt = lt + math.log(w)
    return lb, lt, y, z


def _mix_ll(theta, x, lx, t0):
    w, sig, loc, scale, xi = theta
    if not (0 < w < 1 and sig > 0 and scale > 0 and xi > 0 and 0 <= loc < x.min()):
        return -math.inf
    lb, lt = _mix_terms(x, lx, w, sig, loc, scale, xi, t0)
    return float(np.sum(np.logaddexp(lb, lt)))


def _mix_nll_grad(theta, x, lx, t0):
    """Negative log-likelihood of the mixture per sample, and its gradient."""
    w, sig, loc, scale, xi = theta
    n = x.size
    if not (0 < w < 1 and sig > 0 and scale > 0 and xi > 0 and 0 <= loc < x.min()):
        return math.inf, np.zeros(5)
    lb, lt, y, z = _mix_terms_z(x, lx, w, sig, loc, scale, xi, t0)  # y > 0: loc < min x
    tot = np.logaddexp(lb, lt)
    r = np.exp(lt - tot)
    q = 1 - r
    g = np.array(
        [
            float(np.sum(r / w - q / (1 - w))),
            float(np.sum(q * (z**2 - 1))) / sig,
            float(np.sum(q * (z / sig + 1) / y)),
            float(np.sum(q * z)) / (sig * scale),
            float(np.sum(r * (1 / xi + math.log(t0) - lx))),
        ]
    )
    return -float(np.sum(tot)) / n, -g / n


def _mixture_at(x, lx, t0, loc, start=None, polish=True):
    """EM (body shift fixed at loc) then L-BFGS-B over (w, sigma, loc, scale, xi) for one t0.

    With ``start`` (the solution at a nearby t0) the EM warm-up is skipped.
    """
    n = x.size
    if start is not None:
        return _polish(x, lx, t0, np.asarray(start, float))
    above = x >= t0
    k = int(above.sum())
    w = max(min(0.5 * k / n, 0.5), 1.0 / n)
    xi = k / max(float(np.sum(np.log(x[above] / t0))), 1e-12)
    ly = np.log(x - loc)
    mu, sig = float(ly[~above].mean()) if (~above).any() else float(ly.mean()), float(ly.std())
    sig = max(sig, 1e-3)
    prev = -math.inf
    for _ in range(30):
        lb, lt = _mix_terms(x, lx, w, sig, loc, math.exp(mu), xi, t0)
        tot = np.logaddexp(lb, lt)
        ll = float(np.sum(tot))
        r = np.exp(lt - tot)
        w = float(np.clip(r.mean(), 1e-9, 1 - 1e-9))
        sr = float(np.sum(r[above] * np.log(x[above] / t0)))
        xi = float(np.clip(r.sum() / sr, 1e-3, 1e3)) if sr > 0 else 1e3
        q = 1 - r
        mu = float(np.sum(q * ly) / q.sum())
        sig = max(float(np.sqrt(np.sum(q * (ly - mu) ** 2) / q.sum())), 1e-6)
        if ll - prev < 1e-6 * max(1.0, abs(ll)):
            break
        prev = ll
    theta = np.array([w, sig, loc, math.exp(mu), xi])
    return _polish(x, lx, t0, theta) if polish else (_mix_ll(theta, x, lx, t0), theta)


def _polish(x, lx, t0, theta0):
    n = x.size
    xmin = float(x.min())
    theta0 = theta0.copy()
    theta0[2] = min(theta0[2], xmin * (1 - 1e-9))
    bounds = [(1e-9, 1 - 1e-9), (1e-6, 50.0), (0.0, xmin * (1 - 1e-9)), (1e-12, None), (1e-3, 1e3)]
    res = optimize.minimize(
        _mix_nll_grad,
        theta0,
        args=(x, lx, t0),
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": 500, "ftol": 1e-11, "gtol": 1e-7},
    )
    theta = res.x if -res.fun * n >= _mix_ll(theta0, x, lx, t0) else theta0
    return _mix_ll(theta, x, lx, t0), theta


_MIX_GRID = 24  # tail thresholds screened: upper sample quantiles, 1 - p from 0.5 to 5/n


def _fit_mixture(x: np.ndarray, level: float | None) -> tuple[dict, dict, Any, str]:
    xs = np.sort(x)
    n = xs.size
    lx = np.log(np.maximum(x, 1e-300))
    if not xs[0] > 0:
        raise FitConvergenceError(f"the mixture needs times > 0; the sample minimum is {xs[0]:g}")
    try:
        _, loc0, _, _ = _profile_loc(x, _inner_lognormal)
    except FitConvergenceError:
        loc0 = 0.0
    tails = np.geomspace(0.5, 5.0 / n, _MIX_GRID) if n > 10 else np.array([0.5])
    cands = sorted({float(xs[min(n - 5, int((1 - q) * n))]) for q in tails})
    cands = [t for t in cands if t > xs[0]]
    if not cands or n < 10:
        raise FitConvergenceError(f"a tail component needs >= 5 times above a threshold; n={n}")
    tried: dict[float, tuple[float, np.ndarray]] = {}

    def run(ts: list[float], start: np.ndarray | None = None) -> None:
        for t0 in ts:
            if t0 not in tried:
                tried[t0] = _mixture_at(x, lx, t0, loc0, start)

    def best_t() -> float | None:
        ok = [t for t, (ll, _) in tried.items() if math.isfinite(ll)]
        return max(ok, key=lambda t: tried[t][0]) if ok else None

    def narrow(t_start: float) -> None:
        """Narrow the bracket of grid neighbours around t_start, 6 sample points a pass."""
        j = cands.index(t_start)
        i0 = int(np.searchsorted(xs, cands[j - 1])) if j > 0 else 1
        i1 = int(np.searchsorted(xs, cands[j + 1])) if j + 1 < len(cands) else n - 5
        best = t_start
        for _ in range(40):
            idx = np.unique(np.linspace(i0, min(i1, n - 5), 6).round().astype(int))
            pts = [float(xs[i]) for i in idx if xs[i] > xs[0]]
            run(pts, start=tried[best][1])
            ok = [t for t in [best, *pts] if math.isfinite(tried[t][0])]
            if not ok:
                return
            best = max(ok, key=lambda t: tried[t][0])
            if i1 - i0 <= 6:
                return
            step = (i1 - i0) / 5
            k = int(np.searchsorted(xs, best))
            i0, i1 = max(1, int(k - step)), min(n - 5, int(math.ceil(k + step)))

    # The likelihood rises with t0 between sample points, so its maximum is at one, and
    # the profile peaks sharply at the smallest point of the tail: screen the grid by a
    # short EM, then narrow the brackets of the three best down to single points.
    screen = {t: _mixture_at(x, lx, t, loc0, polish=False)[0] for t in cands}
    top = sorted(screen, key=lambda t: -screen[t] if math.isfinite(screen[t]) else math.inf)[:3]
    run(top)
    for t in top:
        if math.isfinite(tried[t][0]):
            narrow(t)
    tb = best_t()
    best = None if tb is None else (tried[tb][0], tried[tb][1], tb)
    if best is None:
        raise FitConvergenceError("the mixture likelihood is not finite for any tail threshold")
    ll, (w, sig, loc, scale, xi), t0 = best
    note = ""
    if w < 1e-6 or w > 1 - 1e-6:
        note = f"the tail weight {w:.3g} is at its bound: the mixture reduces to one component"
    params = {"w": w, "sigma": sig, "loc": loc, "scale": scale, "xi": xi, "t0": t0}

    def dist_of(t):
        return body_tail(t[0], t[1], t[2], t[3], t[4], t0)

    if level is None:
        return params, _no_intervals("mixture"), body_tail(w, sig, loc, scale, xi, t0), note
    room = np.array([min(w, 1 - w), sig, min(loc, float(x.min()) - loc), scale, xi])
    ci5 = _wald(dist_of, np.array([w, sig, loc, scale, xi]), x, level, room)
    ci = {k: (float(ci5[i, 0]), float(ci5[i, 1])) for i, k in enumerate(params) if k != "t0"}
    ci["t0"] = (math.nan, math.nan)
    return params, ci, body_tail(w, sig, loc, scale, xi, t0), note


_FITTERS = {
    "shifted_exp": _fit_shifted_exp,
    "pareto": _fit_pareto,
    "weibull": lambda x, lv: _fit_shape_loc_scale("weibull", x, lv),
    "gamma": lambda x, lv: _fit_shape_loc_scale("gamma", x, lv),
    "lognormal": lambda x, lv: _fit_shape_loc_scale("lognormal", x, lv),
    "mixture": _fit_mixture,
}


def _check_sample(data: Any, name: str = "data") -> np.ndarray:
    x = check_array(data, name, finite=False, min_size=0).ravel()
    if x.size < 10:
        raise ValueError(f"{name}: fitting needs at least 10 times, got {x.size}")
    bad = ~np.isfinite(x) | (x < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}: times must be finite and >= 0: element {i} is {float(x[i])!r}")
    return x
