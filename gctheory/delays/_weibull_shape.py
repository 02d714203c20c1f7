"""The confidence interval of the Weibull shape of :func:`gctheory.delays.fit_law`.

The law is ``loc + scale * W`` with ``W ~ Weibull(shape)``, all three fitted by
maximum likelihood (:mod:`gctheory.delays._mle`). Two cases:

- **free shift** (the estimate of ``loc`` inside ``[0, min x)``): the maximum-likelihood
  estimate ``k_hat`` of the shape is equivariant, so its law depends on the true shape
  ``k`` and on ``n`` only, not on ``loc`` or ``scale`` (an affine map of the data maps the
  fit the same way). It is not a pivot (``k_hat / k`` has other quantiles at every
  ``k``: at ``n = 100`` its 97.5% point is 1.20 at ``k = 1.5`` and 1.35 at ``k = 2.5``),
  so the interval is Neyman's construction with ``k_hat`` as the statistic: the ``k``
  whose central ``level`` range of ``k_hat`` contains the observed one. The
  quantiles ``q(k)`` are computed by seeded Monte Carlo at the shapes ``k_j = 2^(j/4)``
  (:data:`GRID`), from one set of Exp(1) draws per ``n`` (common random numbers, so
  ``q`` is increasing in ``k``), and interpolated linearly in ``log k`` between them.
- **shift at its bound 0** (the two-parameter fit): ``k_hat / k`` is a pivot (the logs
  of the data are a location-scale family; Thoman, Bain & Antle 1969, Technometrics
  11(3), 445-460), and the interval is ``[k_hat / q_hi, k_hat / q_lo]`` with the pivot's
  quantiles ``q`` computed by seeded Monte Carlo at ``k = 1`` (exact when the true
  shift is 0).

A replicate whose fit would be refused (the likelihood rising as the shift approaches
the sample minimum, which :func:`fit_law` reports as not converged) counts as
``k_hat = 0``: below every observed estimate, so the construction stays monotone. The
Monte Carlo fits leave the shift free below the sample minimum (the data's fit keeps it
``>= 0``; where that binds, the second case applies). An end beyond the grid is
given conservatively (0 or infinity, or the grid's end where that is valid).

Coverage (``gctheory.calibration``, n = 100 times of ``0.5 + 2 Weibull(1.5)``, 95%):
952/1000 (18 misses with the truth above, 30 below); the profile-likelihood interval
covered 929/1000 and the Wald interval 273/300. With a true shift of 0 (the estimate at
its bound in about a quarter of the samples): 388/400 and 967/1000, conservative.

The quantiles are computed once, offline, by ``python -m
gctheory.delays._tables.make_weibull_shape`` (the same Monte Carlo, seeded, at the sample
sizes 10 to 400 of its ``N_GRID`` and the tail probabilities of its ``PROBS``) and stored
as package data (``_tables/weibull_shape.npz``, with the script's seed, replicate count
and version); the run time interpolates them linearly in ``1/sqrt(n)`` and in the normal
score of the probability (:func:`load_table`, :func:`table_quantile`). Monte Carlo error:
``R`` draws per cell give each tail probability a standard error ``sqrt(a (1 - a) / R)``
(0.005 at ``a = 0.025`` with the table's ``R = 1000``). A level whose tails lie beyond
the table's probabilities (above 0.998) runs the Monte Carlo at run time: 4000 fits per
grid shape, 6 s at ``n = 100`` on a loaded machine, cached per ``n``. Above
:data:`MAX_N` times the Monte Carlo is not run and the profile-likelihood
interval is given instead (``{k : 2 (ll_hat - lp(k)) <= chi2_1(level)}``; it covered
376/400 at ``n = 400``, 18 misses above and 6 below).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
from scipy import optimize, special, stats

from gctheory.montecarlo.engine import child_seed, seed_sequence

__all__: list[str] = []

#: Monte Carlo replicates per shape.
REPLICATES = 4000
#: The Monte Carlo shapes: ``k_j = 2^(j/4)`` for ``j`` in ``GRID`` (0.5 to 32).
GRID = range(-4, 21)
#: Above this many times the profile-likelihood interval is used (see the module docstring).
MAX_N = 400
_SEED = 0x57E1B  # the Monte Carlo's fixed seed (one stream per n, chunk and grid shape)
_CHUNK = 500
# log(gap / mean excess) from 10^3 down to 10^-10, 41 steps (the point fit: 10^0 to 10^-10)
_LOG_GAPS = np.linspace(3.0, -10.0, 41) * math.log(10)


# --- many fits at once ---------------------------------------------------------------


def _shape_rows(ly: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Solve the Weibull shape equation ``mean_w(log y) - 1/k = mean(log y)`` (weights
    ``y^k``) for every row of ``ly = log y``, by Newton from ``k`` (it is increasing in k)."""
    lm = ly.mean(axis=1)
    top = ly.max(axis=1)
    z = ly - top[:, None]
    for _ in range(80):
        e = np.exp(k[:, None] * z)
        s0 = e.sum(axis=1)
        ez = e * z  # e * z * z is (e * z) * z: the same floats, one product fewer
        m1 = ez.sum(axis=1) / s0
        m2 = (ez * z).sum(axis=1) / s0
        h = m1 + top - 1 / k - lm
        step = h / (m2 - m1 * m1 + 1 / k**2)
        new = np.where(k - step <= 0, k / 2, k - step)
        done = bool(np.all(np.abs(new - k) <= 1e-12 * k))
        k = new
        if done:
            break
    return k


def _loglik_rows(ly: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The Weibull log-likelihood per row at shape ``k``, the scale at its maximum
    (as :func:`gctheory.delays._mle._weibull_loglik`)."""
    n = ly.shape[1]
    z = k[:, None] * ly
    m = z.max(axis=1)
    lmean = m + np.log(np.mean(np.exp(z - m[:, None]), axis=1))
    return n * np.log(k) - n * lmean + (k - 1) * ly.sum(axis=1) - n


def _fit_rows(x: np.ndarray) -> np.ndarray:
    """The three-parameter maximum-likelihood shape of every row of ``x``, the shift
    free below the row's minimum (the profile over ``log gap`` on a grid, then golden
    section between the best point's neighbours, as the point fit does); 0 where the
    likelihood keeps rising as the gap goes to 0 (the fit that :func:`fit_law` refuses)."""
    rows = x.shape[0]
    y0 = x - x.min(axis=1, keepdims=True)
    s = y0.mean(axis=1)
    idx = np.arange(rows)

    def at(t: np.ndarray, k0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ly = np.log(y0 + (np.exp(t) * s)[:, None])
        k1 = _shape_rows(ly, k0)
        return _loglik_rows(ly, k1), k1

    g = _LOG_GAPS.size
    vals, ks = np.empty((rows, g)), np.empty((rows, g))
    k = np.ones(rows)
    for j, t in enumerate(_LOG_GAPS):
        vals[:, j], ks[:, j] = at(np.full(rows, t), k)
        k = ks[:, j]
    b = np.argmax(vals, axis=1)
    lo, hi = _LOG_GAPS[np.minimum(b + 1, g - 1)], _LOG_GAPS[np.maximum(b - 1, 0)]
    k_b, f_b = ks[idx, b], vals[idx, b]
    r = (math.sqrt(5) - 1) / 2
    c, d = hi - r * (hi - lo), lo + r * (hi - lo)
    fc, kc = at(c, k_b)
    fd, kd = at(d, k_b)
    for _ in range(60):
        left = fc > fd  # the maximum is in [lo, d]
        hi, lo = np.where(left, d, hi), np.where(left, lo, c)
        new = np.where(left, hi - r * (hi - lo), lo + r * (hi - lo))
        f_new, k_new = at(new, np.where(left, kc, kd))
        c, d = np.where(left, new, d), np.where(left, c, new)
        fc, kc, fd, kd = (
            np.where(left, f_new, fd),
            np.where(left, k_new, kd),
            np.where(left, fc, f_new),
            np.where(left, kc, k_new),
        )
        if float(np.max(hi - lo)) < 1e-9:
            break
    f_best, k_best = np.where(fc > fd, fc, fd), np.where(fc > fd, kc, kd)
    k_hat = np.where(f_best >= f_b, k_best, k_b)
    return np.where(b == g - 1, 0.0, k_hat)


# --- the Monte Carlo laws of the estimate -----------------------------------------------


def _draws(n: int, chunk: int, size: int, seed: int = _SEED) -> np.ndarray:
    """Exp(1) draws for chunk ``chunk`` of the Monte Carlo at ``n`` (seeded)."""
    ss = seed_sequence([seed, n])
    return np.random.default_rng(child_seed(ss, 0, chunk)).standard_exponential((size, n))


@functools.lru_cache(maxsize=256)
def shape_law(n: int, j: int, replicates: int = REPLICATES, seed: int = _SEED) -> np.ndarray:
    """The sorted three-parameter estimates of the shape from ``replicates`` samples of
    ``n`` times of Weibull(``2^(j/4)``) (shift 0, scale 1: the law does not depend on
    them). Read-only. ``seed`` other than the table's checks the table independently."""
    k = 2.0 ** (j / 4)
    out = []
    for i, start in enumerate(range(0, replicates, _CHUNK)):
        e = _draws(n, i, min(_CHUNK, replicates - start), seed)
        out.append(_fit_rows(e ** (1 / k)))
    v = np.sort(np.concatenate(out))
    v.flags.writeable = False
    return v


@functools.lru_cache(maxsize=64)
def pivot_law(n: int, replicates: int = REPLICATES, seed: int = _SEED) -> np.ndarray:
    """The sorted two-parameter pivot ``k_hat / k`` (Thoman, Bain & Antle 1969) from
    ``replicates`` samples of ``n`` times, by seeded Monte Carlo at ``k = 1``. Read-only."""
    out = []
    for i, start in enumerate(range(0, replicates, _CHUNK)):
        ly = np.log(_draws(n, i, min(_CHUNK, replicates - start), seed))
        out.append(_shape_rows(ly, np.ones(ly.shape[0])))
    v = np.sort(np.concatenate(out))
    v.flags.writeable = False
    return v


# --- the intervals -------------------------------------------------------------------


# --- the precomputed table (package data) ------------------------------------------------

_TABLE_FILE = Path(__file__).with_name("_tables") / "weibull_shape.npz"
_TABLE_VERSION = 1  # the version of gctheory/delays/_tables/make_weibull_shape.py it reads


@functools.lru_cache(maxsize=1)
def load_table() -> dict[str, np.ndarray]:
    """The quantile table written by ``python -m gctheory.delays._tables.make_weibull_shape``
    (read with ``allow_pickle=False``; a file of another version is refused by name)."""
    with np.load(_TABLE_FILE, allow_pickle=False) as z:
        tab = {k: z[k] for k in z.files}
    if int(tab["version"]) != _TABLE_VERSION or list(tab["j_grid"]) != list(GRID):
        raise ValueError(
            f"{_TABLE_FILE}: version {int(tab['version'])} with shapes {list(tab['j_grid'])}; "
            f"this gctheory reads version {_TABLE_VERSION} on GRID {list(GRID)}: rerun "
            "python -m gctheory.delays._tables.make_weibull_shape"
        )
    return tab


def _table_covers(n: int, p: float) -> bool:
    tab = load_table()
    return bool(tab["n_grid"][0] <= n and tab["probs"][0] <= p <= tab["probs"][-1])


def _interp(values: np.ndarray, n: int, p: float) -> float:
    """``values[n_index, p_index]`` at ``(n, p)``: linear in ``1/sqrt(n)`` between the grid's
    sample sizes (extrapolated beyond the last two) and in the normal score of ``p``."""
    tab = load_table()
    ns, probs = tab["n_grid"].astype(float), tab["probs"]
    zs, z = special.ndtri(probs), float(special.ndtri(p))
    per_n = np.array([np.interp(z, zs, row) for row in values])
    u, us = n**-0.5, ns**-0.5  # decreasing in n
    i = int(np.clip(np.searchsorted(-us, -u), 1, ns.size - 1))
    t = (u - us[i - 1]) / (us[i] - us[i - 1])
    return float(per_n[i - 1] + t * (per_n[i] - per_n[i - 1]))


def table_quantile(n: int, j: int, p: float) -> float:
    """The ``p``-quantile of the free-shift shape estimate at ``n`` times of
    Weibull(``2^(j/4)``), from the precomputed table."""
    tab = load_table()
    return _interp(tab["shape_q"][:, j - GRID[0], :], n, p)


def table_pivot(n: int, p: float) -> float:
    """The ``p``-quantile of the two-parameter pivot ``k_hat / k`` from the table."""
    return _interp(load_table()["pivot_q"], n, p)


def _invert(k_hat: float, n: int, p: float, replicates: int | None, low_end: bool) -> float:
    """The shape ``k`` at which the ``p``-quantile of the estimate equals ``k_hat`` (the
    quantile is increasing in ``k``). Outside :data:`GRID` the conservative bound: the
    low end is at most the grid's top and at least 0, the high end at least the grid's
    bottom and at most infinity (the shapes beyond are neither excluded nor computed)."""

    def q(j: int) -> float:
        if replicates is None:
            return table_quantile(n, j, p)
        return float(np.quantile(shape_law(n, j, replicates), p))

    j = min(max(round(4 * math.log2(k_hat)), GRID[0]), GRID[-1]) if k_hat > 0 else GRID[0]
    qj = q(j)
    step = 1 if qj <= k_hat else -1
    while GRID[0] <= j + step <= GRID[-1]:
        q_next = q(j + step)
        if (q_next > k_hat) == (step == 1):  # bracketed between j and j + step
            lo, hi = sorted((j, j + step))
            q_lo, q_hi = (qj, q_next) if step == 1 else (q_next, qj)
            t = (k_hat - q_lo) / (q_hi - q_lo) if q_hi > q_lo else 0.5
            return 2.0 ** ((lo + t * (hi - lo)) / 4)
        j, qj = j + step, q_next
    if step == 1:  # every grid shape has its quantile at or below k_hat
        return 2.0 ** (GRID[-1] / 4) if low_end else math.inf
    return 0.0 if low_end else 2.0 ** (GRID[0] / 4)


def shape_interval(
    x: np.ndarray, k_hat: float, at_zero: bool, level: float, *, replicates: int | None = None
) -> tuple[float, float]:
    """The ``level`` interval of the Weibull shape (see the module docstring): ``(low,
    high)``; an end beyond the Monte Carlo's shapes (0.5 to 32) is given conservatively
    (0 or infinity, the grid's end where that is the tighter valid bound).

    ``replicates=None`` reads the precomputed table (:func:`load_table`); a level whose
    tails lie beyond the table's probabilities, or an explicit ``replicates``, runs the
    Monte Carlo here (cached per ``n``)."""
    n, a = x.size, (1 - level) / 2
    if replicates is None and not _table_covers(n, a):
        replicates = REPLICATES
    if at_zero:
        if replicates is None:
            return k_hat / table_pivot(n, 1 - a), k_hat / table_pivot(n, a)
        piv = pivot_law(n, replicates)
        return k_hat / float(np.quantile(piv, 1 - a)), k_hat / float(np.quantile(piv, a))
    if n > MAX_N:
        return profile_interval(x, k_hat, level)
    return _invert(k_hat, n, 1 - a, replicates, True), _invert(k_hat, n, a, replicates, False)


# --- the profile likelihood (large n) --------------------------------------------------


def weibull_loglik(x: np.ndarray, k: float, loc: float) -> float:
    """The Weibull log-likelihood at shape ``k`` and shift ``loc``, the scale at its maximum
    (``scale^k = mean((x - loc)^k)``, so the sum of ``((x - loc)/scale)^k`` is ``n``)."""
    ly = np.log(x - loc)
    z = k * ly
    m = float(z.max())
    n = x.size
    lmean = m + math.log(float(np.mean(np.exp(z - m))))
    return n * math.log(k) - n * lmean + (k - 1) * float(ly.sum()) - n


def weibull_profile(x: np.ndarray, k: float) -> float:
    """The profile log-likelihood of the Weibull shape: the maximum over the shift in
    ``[0, min x)`` (the gap ``min x - loc`` on the point fit's grid, down to ``1e-10 min x``,
    so for ``k < 1`` it is the likelihood's local value, not its unbounded supremum)."""
    lo = float(x.min())
    lg = np.linspace(0.0, -10.0 * math.log(10), 41) + math.log(lo)

    def f(t: float) -> float:
        return weibull_loglik(x, k, lo - math.exp(t))

    vals = np.array([f(t) for t in lg])
    j = int(np.argmax(vals))
    res = optimize.minimize_scalar(
        lambda t: -f(t),
        bounds=(lg[min(j + 1, lg.size - 1)], lg[max(j - 1, 0)]),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return max(-float(res.fun), float(vals[j]))


def profile_interval(x: np.ndarray, k_hat: float, level: float) -> tuple[float, float]:
    """The profile-likelihood interval of the Weibull shape: ``{k : 2 (ll_hat - lp(k)) <=
    chi2_1(level)}``, shift and scale profiled out (both ends found by bracketing, then
    Brent). NaN for an end not bracketed within ``[1e-3, 1e3]``. It undercovers at small
    n (929/1000 at 95%, n = 100 times of 0.5 + 2 Weibull(1.5)): used above :data:`MAX_N`."""
    ll_hat = weibull_profile(x, k_hat)
    cut = ll_hat - 0.5 * float(stats.chi2.ppf(level, 1))

    def g(k: float) -> float:
        return weibull_profile(x, k) - cut

    def end(factor: float, bound: float) -> float:
        inner = k_hat
        for _ in range(60):
            outer = inner * factor
            if (factor > 1 and outer > bound) or (factor < 1 and outer < bound):
                outer = bound
            if g(outer) < 0:
                a, b = sorted((inner, outer))
                return float(optimize.brentq(g, a, b, xtol=1e-9 * k_hat, rtol=1e-10))
            if outer == bound:
                return math.nan
            inner = outer
        return math.nan

    return end(0.8, 1e-3), end(1.25, 1e3)
