"""The maximum-likelihood fit of the body-tail ``mixture`` (a shifted lognormal body and a
Pareto tail above a threshold): EM over a grid of tail thresholds, polished by L-BFGS-B."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import optimize

from gctheory.delays._mle.laws import FitConvergenceError
from gctheory.delays._mle.profile import (
    _inner_lognormal,
    _no_intervals,
    _profile_loc,
    _wald,
)
from gctheory.delays.mixture import body_tail

__all__: list[str] = []


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
