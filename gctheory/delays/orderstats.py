"""Expected (grouped) order statistics of an empirical distribution and of a fitted law.

The time an iteration waits is ``T = max_g X^{(g)}_(w:r)``: the ``w``-th
fastest of each of ``G`` groups of ``r`` i.i.d. workers (``G = 1`` for an
order statistic ``X_(w:r)``); its CDF is ``P(T <= t) = I_{F(t)}(w, r-w+1)^G``
(Zhang et al. 2020, eq. (28); :func:`gctheory.order_stats.grouped_completion_moments`).

* **Empirical**: ``F`` the empirical CDF of ``m`` measured times
  ``x_(1) <= ... <= x_(m)`` (atoms of mass ``1/m``). Then exactly
  ``E[T] = sum_i x_(i) [H(i/m) - H((i-1)/m)]`` with ``H(u) = I_u(w, r-w+1)^G``
  (:func:`empirical_weights`): the order statistics of ``G r`` draws with
  replacement from the sample, no Monte Carlo; floats only in ``I_u``.
* **A fitted law**: ``E[T] = int_0^1 Q(u) dH(u)`` with ``Q`` the law's
  quantile function, integrated by Gauss-Legendre panels in ``v = logit(u)``
  (``Q`` from ``isf`` above ``u = 1/2``, so the upper tail keeps its digits),
  with the tail beyond the grid added for power-law tails. It agrees with
  :func:`gctheory.order_stats.grouped_completion_moments` (adaptive quadrature)
  and is many times faster when one law is evaluated for every ``s`` of a
  scheme, because ``Q`` is computed once on the grid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import special

from gctheory._validate import check_array, check_int, check_law_parameters

__all__ = [
    "empirical_weights",
    "empirical_grouped_mean",
    "empirical_order_statistic",
    "law_grouped_means",
    "law_order_statistic",
    "tail_index",
]

Layout = tuple[int, int, int]  # (groups, group_size, wait)

_MAX_CELLS = 2 * 10**8  # weights computed at once (atoms x layouts); beyond: refuse


def _check_layout(groups: Any, size: Any, wait: Any) -> Layout:
    groups = check_int(groups, "groups", low=1)
    size = check_int(size, "group_size", low=1)
    wait = check_int(wait, "wait", low=1, high=size)
    return groups, size, wait


def _check_layouts(layouts: Any) -> list[Layout]:
    rule = "layouts must be a sequence of (groups, group_size, wait) triples of integers"
    if isinstance(layouts, (str, bytes, dict)) or not hasattr(layouts, "__iter__"):
        raise ValueError(f"{rule}, got {layouts!r}")
    out = []
    for lay in layouts:
        if isinstance(lay, (str, bytes, dict)) or not hasattr(lay, "__len__") or len(lay) != 3:
            raise ValueError(f"{rule}, got the entry {lay!r}")
        out.append(_check_layout(*lay))
    return out


def _check_law(dist: Any) -> Any:
    if not all(callable(getattr(dist, f, None)) for f in ("ppf", "isf", "cdf")):
        raise ValueError(f"dist must be a frozen scipy.stats distribution, got {dist!r}")
    return check_law_parameters(dist)  # NaN parameters gave nan / inf


def _H(u: np.ndarray, groups: int, size: int, wait: int) -> np.ndarray:
    h = special.betainc(wait, size - wait + 1, u)
    return h**groups if groups > 1 else h


def empirical_weights(m: int, layouts: Sequence[Layout]) -> np.ndarray:
    """Weights ``H(i/m) - H((i-1)/m)`` of the sorted atoms, one column per layout, shape (m, L).

    Parameters
    ----------
    m : int
        Number of atoms.
    layouts : sequence of (G, r, w)
        Group layouts.

    Returns
    -------
    numpy.ndarray, shape (m, L)
        The weights of the sorted atoms.

    Examples
    --------
    >>> from gctheory.delays import empirical_weights
    >>> empirical_weights(2, [(1, 2, 2)]).round(4).tolist()  # max of 2 draws of 2 atoms
    [[0.25], [0.75]]
    """
    m = check_int(m, "m (sample size)", low=1)
    lays = _check_layouts(layouts)
    if m * len(lays) > _MAX_CELLS:
        raise ValueError(
            f"{m} atoms x {len(lays)} layouts = {m * len(lays):.3g} weights exceeds the "
            f"{_MAX_CELLS:.0e} computed at once; use fewer layouts or a subsample"
        )
    u = np.arange(m + 1) / m
    W = np.empty((m, len(lays)))
    for j, (g, r, w) in enumerate(lays):
        W[:, j] = np.diff(_H(u, g, r, w))
    return W


def empirical_grouped_mean(values: Any, groups: int, group_size: int, wait: int = 1) -> float:
    """Exact ``E[max_g X^{(g)}_(wait:group_size)]`` for ``groups * group_size`` i.i.d. draws
    from the empirical distribution of ``values`` (module docstring).

    Parameters
    ----------
    values : array_like
        The atoms (measured times).
    groups : int
        Groups.
    group_size : int
        Workers per group.
    wait : int
        Workers needed per group.

    Returns
    -------
    float
        The expected completion time.

    Examples
    --------
    >>> from gctheory.delays import empirical_grouped_mean
    >>> empirical_grouped_mean([1.0, 2.0], groups=1, group_size=2, wait=2)  # E[max] = 1.75
    1.75
    """
    x = np.sort(check_array(values, "values").ravel())
    W = empirical_weights(x.size, [(groups, group_size, wait)])
    return float(x @ W[:, 0])


def empirical_order_statistic(values: Any, k: int, n: int) -> float:
    """Exact ``E[X_(k:n)]`` of ``n`` i.i.d. draws from the empirical distribution of ``values``.

    Parameters
    ----------
    values : array_like
        The atoms.
    k : int
        Order, ``1 <= k <= n``.
    n : int
        Draws.

    Returns
    -------
    float
        ``E[X_(k:n)]``.

    Examples
    --------
    >>> from gctheory.delays import empirical_order_statistic
    >>> empirical_order_statistic([1.0, 2.0], 1, 2)  # E[min] = 1.25
    1.25
    """
    n = check_int(n, "n", low=1)
    k = check_int(k, "k", low=1, high=n)
    return empirical_grouped_mean(values, 1, n, k)


# ---------------------------------------------------------------------------
# fitted laws

_GL_X, _GL_W = np.polynomial.legendre.leggauss(6)


def tail_index(dist: Any) -> float:
    """Index ``xi`` of a power-law upper tail ``P(X > t) ~ c t^-xi`` (``inf`` if lighter).

    Known for scipy's Pareto and for :func:`gctheory.delays.body_tail`; other
    laws fitted here (exponential, Weibull, gamma, lognormal) have every moment.

    Parameters
    ----------
    dist : frozen scipy.stats distribution
        The law.

    Returns
    -------
    float
        The tail index ``xi`` (``inf`` for lighter tails).

    Examples
    --------
    >>> from gctheory.delays import tail_index
    >>> from scipy import stats
    >>> tail_index(stats.pareto(1.5)), tail_index(stats.expon())
    (1.5, inf)
    """
    _check_law(dist)
    name = getattr(getattr(dist, "dist", None), "name", "")
    shapes: tuple[Any, ...] = dist.dist._parse_args(*dist.args, **dist.kwds)[0] if name else ()
    if name == "pareto":
        return float(shapes[0])
    if name == "body_tail":
        return float(shapes[3])
    return math.inf


def _quantiles(dist: Any, v: np.ndarray) -> np.ndarray:
    lo = v <= 0
    q = np.empty_like(v)
    q[lo] = dist.ppf(special.expit(v[lo]))
    q[~lo] = dist.isf(special.expit(-v[~lo]))
    return q


def _log_density_v(
    v: np.ndarray, groups: int, size: int, wait: int, logs: tuple | None = None
) -> np.ndarray:
    """log of dH/dv for H(u) = I_u(w, r-w+1)^G and u = expit(v); ``logs`` is
    ``(log_expit(v), log_expit(-v))`` when the caller has it (one grid, many layouts)."""
    a, b = wait, size - wait + 1
    lu, l1u = logs if logs is not None else (special.log_expit(v), special.log_expit(-v))
    out = a * lu + b * l1u - special.betaln(a, b)
    if groups > 1:
        with np.errstate(divide="ignore"):
            out = out + math.log(groups) + (groups - 1) * np.log(special.betainc(a, b, np.exp(lu)))
    return out


def _kinks(dist: Any) -> list[float]:
    """Points (in v = logit(u)) where the quantile function is not smooth."""
    name = getattr(getattr(dist, "dist", None), "name", "")
    if name == "body_tail":  # the Pareto component starts at t0
        shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
        u = float(dist.cdf(loc + scale * shapes[4]))
        if 0 < u < 1:
            return [float(np.log(u) - np.log1p(-u))]
    return []


def _grid(
    layouts: Sequence[Layout], xi: float, kinks: Sequence[float] = ()
) -> tuple[np.ndarray, np.ndarray, float]:
    """Gauss-Legendre nodes and weights in v covering every layout's density."""
    widths = [math.sqrt(1 / w + 1 / (r - w + 1)) for _, r, w in layouts]
    h = min(0.02, min(widths) / 3)
    b_min = min(r - w + 1 for _, r, w in layouts)
    v_hi = 40.0
    if math.isfinite(xi):
        decay = b_min - 1 / xi  # the integrand falls like exp(-decay v) in v
        v_hi = min(700.0 * min(1.0, xi), max(40.0, 40.0 / decay))
    edges = np.arange(-40.0, v_hi + h, h)
    edges = np.unique(np.concatenate([edges, [k for k in kinks if -40 < k < edges[-1]]]))
    if edges.size > 400_000:
        raise ValueError(
            f"the quadrature grid needs {edges.size} panels (layouts down to width {h:.2g} in "
            "logit(u)): the order statistics are too concentrated; use a smaller n"
        )
    mid, half = (edges[1:] + edges[:-1]) / 2, (edges[1:] - edges[:-1]) / 2
    nodes = (mid[:, None] + half[:, None] * _GL_X[None, :]).ravel()
    weights = (half[:, None] * _GL_W[None, :]).ravel()
    return nodes, weights, float(edges[-1])


def law_grouped_means(dist: Any, layouts: Sequence[Layout]) -> np.ndarray:
    """``E[max_g X^{(g)}_(w:r)]`` under the frozen law ``dist`` for each layout ``(G, r, w)``.

    ``inf`` where the mean is infinite (a power-law tail of index ``xi`` with
    ``xi (r - w + 1) <= 1``). See the module docstring for the method.

    Parameters
    ----------
    dist : frozen scipy.stats distribution
        The law.
    layouts : sequence of (G, r, w)
        Group layouts.

    Returns
    -------
    numpy.ndarray
        One mean per layout (``inf`` where infinite).

    Examples
    --------
    >>> from gctheory.delays import law_grouped_means
    >>> from scipy import stats
    >>> law_grouped_means(stats.expon(), [(1, 3, 3), (3, 1, 1)]).round(6).tolist()  # H_3 twice
    [1.833333, 1.833333]
    """
    lays = _check_layouts(layouts)
    xi = tail_index(dist)
    finite = [xi * (r - w + 1) > 1 for _, r, w in lays]
    out = np.full(len(lays), math.inf)
    live = [lay for lay, f in zip(lays, finite) if f]
    if not live:
        return out
    v, gw, v_hi = _grid(live, xi, _kinks(dist))
    q = _quantiles(dist, v)
    if not np.all(np.isfinite(q)):
        raise ValueError(f"the quantile function of {dist!r} is not finite on the grid")
    res = []
    logs = (special.log_expit(v), special.log_expit(-v))  # shared by every layout: same floats
    for g, r, w in live:
        dens = np.exp(_log_density_v(v, g, r, w, logs))
        val = float(np.sum(gw * dens * q))
        if math.isfinite(xi):
            # beyond v_hi the integrand ~ C exp(-(b - 1/xi) v): add its geometric tail
            decay = (r - w + 1) - 1 / xi
            end = float(
                np.exp(_log_density_v(np.array([v_hi]), g, r, w))[0]
                * _quantiles(dist, np.array([v_hi]))[0]
            )
            val += end / decay
        res.append(val)
    out[np.flatnonzero(finite)] = res
    return out


def law_order_statistic(dist: Any, k: int, n: int) -> float:
    """``E[X_(k:n)]`` under the frozen law ``dist`` (see :func:`law_grouped_means`).

    Parameters
    ----------
    dist : frozen scipy.stats distribution
        The law.
    k : int
        Order.
    n : int
        Draws.

    Returns
    -------
    float
        ``E[X_(k:n)]``.

    Examples
    --------
    >>> from gctheory.delays import law_order_statistic
    >>> from scipy import stats
    >>> round(law_order_statistic(stats.expon(), 3, 3), 6)
    1.833333
    """
    _check_law(dist)
    n = check_int(n, "n", low=1)
    k = check_int(k, "k", low=1, high=n)
    return float(law_grouped_means(dist, [(1, n, k)])[0])
