"""Halbawi et al. 2017 [1]_, Section 5: the iteration time ``T_f`` and its optimum.

``T_f`` of eq. (17) with Pareto delays and decoding cost ``c_m (f-1) f``
(Reed-Solomon, Alg. 3) or ``c_m f^3`` (generic linear solve), exactly at
finite ``n`` (through :mod:`gctheory.order_stats`); the approximation (20);
the offline optimum ``alpha*`` of eq. (22) with its validity condition; the
exact integer optimum of ``f``; the range of ``c_m`` that makes a given ``f``
optimal.

References
----------
.. [1] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving
   distributed gradient descent using Reed-Solomon codes", 2017 (halbawi2017).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from gctheory._validate import check_choice, check_int
from gctheory.order_stats._common import _check_alpha, _check_kn, _check_pos
from gctheory.order_stats.closed_forms import _lgamma_diff, _pareto_raw_moment
from gctheory.runtime._common import _MAX_VECTOR, _int, _nonneg

__all__ = [
    "halbawi_f",
    "halbawi_alpha_star",
    "halbawi_expected_time",
    "halbawi_approx_time",
    "halbawi_optimal_f",
    "halbawi_cm_range",
    "OptimumF",
]


def halbawi_f(alpha: float, n: int) -> int:
    """Machines to wait for, eq. (18) of Halbawi et al. 2017: ``ceil((1-alpha) n) + 1``.

    ``alpha = w/k`` (fraction of the data per machine) must lie in ``[1/n, 1]``
    (a machine holds at least one of ``k = n`` parts).

    Parameters
    ----------
    alpha : float
        Fraction of the data per machine, in ``[1/n, 1]``.
    n : int
        Machines.

    Returns
    -------
    int
        ``ceil((1 - alpha) n) + 1`` (capped at ``n``).

    Examples
    --------
    >>> from gctheory.runtime import halbawi_f
    >>> halbawi_f(0.25, 100)
    76
    """
    n = _int("n", n)
    alpha = _check_alpha(alpha)
    if alpha * n < 1 - 1e-12:
        raise ValueError(f"alpha must be >= 1/n = {1 / n:.6g} (at least one part), got {alpha!r}")
    return math.ceil((1 - alpha) * n - 1e-12) + 1


def halbawi_alpha_star(t0: float, xi: float, n_cg: float) -> float:
    """Offline optimum of eq. (21), ``alpha* = (t0 / (c_g N xi))^(xi/(1+xi))``,
    eq. (22) of Halbawi et al. 2017.

    Parameters
    ----------
    t0, xi : float
        Pareto delay scale and shape, eq. (16).
    n_cg : float
        ``N c_g``: time to compute the gradient of the whole dataset on one machine.

    Returns
    -------
    float
        ``alpha*`` in (0, 1).

    Raises
    ------
    ValueError
        Non-positive input, or outside the validity condition
        ``t0 / (c_g N xi) < 1`` (then ``alpha* >= 1``: the minimiser of (21)
        on ``(0, 1]`` is the boundary ``alpha = 1``, not eq. (22)).

    Examples
    --------
    >>> from gctheory.runtime import halbawi_alpha_star
    >>> round(halbawi_alpha_star(1.0, 2.0, 10.0), 6)
    0.135721
    """
    t0, xi, n_cg = _check_pos("t0", t0), _check_pos("xi", xi), _check_pos("n_cg", n_cg)
    ratio = t0 / (n_cg * xi)
    if ratio >= 1:
        raise ValueError(
            f"eq. (22) is valid only if t0 / (N c_g xi) < 1, got {ratio:.6g}: the optimum of "
            "(21) over (0, 1] is then alpha = 1"
        )
    return ratio ** (xi / (1 + xi))


_DECODINGS = ("rs", "generic", "none")


def _t_dec(f: Any, c_m: float, decoding: str) -> Any:
    """Decoding time ``c_m (f-1) f`` (rs), ``c_m f^3`` (generic) or 0; ``f`` may be an array."""
    if decoding == "rs":
        return c_m * (f - 1) * f
    if decoding == "generic":
        return c_m * f**3
    if decoding == "none":
        return 0.0 * f
    raise ValueError(f"decoding must be one of {list(_DECODINGS)}, got {decoding!r}")


def halbawi_expected_time(
    f: int,
    n: int,
    *,
    t0: float,
    xi: float,
    n_cg: float,
    c_m: float = 0.0,
    decoding: str = "rs",
) -> float:
    """Exact ``T_f`` of eq. (17) of Halbawi et al. 2017 at finite ``n``.

    ``T_f = E[T_delay^(f:n)] + c_g N alpha + T_dec(f)`` with Pareto(t0, xi)
    delays, ``alpha = (n - f + 1)/n`` (``w = n - f + 1`` parts of ``k = n``,
    inverting eq. (18)), and ``T_dec = c_m (f-1) f`` for ``decoding="rs"``
    (Algorithm 3, O(f^2)), ``c_m f^3`` for ``"generic"`` (solving an ``f x f``
    system), ``0`` for ``"none"`` (offline decoding, Section 5.1).
    Returns ``inf`` when the Pareto mean is infinite (``n - f + 1 <= 1/xi``).

    Parameters
    ----------
    f : int
        Machines waited for, ``1 <= f <= n``.
    n : int
        Machines.
    t0 : float
        Pareto delay scale, ``> 0``.
    xi : float
        Pareto delay shape, ``> 0``.
    n_cg : float
        ``c_g N``: computation time of the whole dataset.
    c_m : float
        Decoding cost constant.
    decoding : {"rs", "generic", "none"}
        Decoding cost model.

    Returns
    -------
    float
        ``T_f``; ``inf`` where the Pareto mean is infinite.

    Examples
    --------
    >>> from gctheory.runtime import halbawi_expected_time
    >>> round(halbawi_expected_time(80, 100, t0=1.0, xi=2.0, n_cg=10.0), 4)
    4.3249
    """
    f, n = _check_kn(f, n, "f", "n")
    for name, v in (("t0", t0), ("xi", xi)):
        _check_pos(name, v)
    for name, v in (("n_cg", n_cg), ("c_m", c_m)):
        _nonneg(name, v)
    check_choice(decoding, "decoding", _DECODINGS)
    delay = _halbawi_mean(n, float(t0), float(xi), f)  # the mean only (no variance)
    alpha = (n - f + 1) / n
    return delay + n_cg * alpha + _t_dec(f, c_m, decoding)


def halbawi_approx_time(
    alpha: float, *, t0: float, xi: float, n_cg: float, c_m: float = 0.0, n: int | None = None
) -> float:
    """Approximation (20) of Halbawi et al. 2017:
    ``t0 alpha^(-1/xi) + c_g N alpha + c_m (1-alpha)^2 n^2`` (eq. (21) when ``c_m = 0``).

    Parameters
    ----------
    alpha : float
        Fraction of the data per machine.
    t0 : float
        Pareto delay scale, ``> 0``.
    xi : float
        Pareto delay shape, ``> 0``.
    n_cg : float
        ``c_g N``: computation time of the whole dataset.
    c_m : float
        Decoding cost constant.
    n : int, optional
        Machines (needed when ``c_m > 0``).

    Returns
    -------
    float
        The approximate iteration time.

    Examples
    --------
    >>> from gctheory.runtime import halbawi_approx_time
    >>> round(halbawi_approx_time(0.2, t0=1.0, xi=2.0, n_cg=10.0), 4)
    4.2361
    """
    alpha = _check_alpha(alpha)
    t0, xi = _check_pos("t0", t0), _check_pos("xi", xi)
    n_cg, c_m = _nonneg("n_cg", n_cg), _nonneg("c_m", c_m)
    if n is not None:  # checked even when c_m = 0 leaves it unused
        n = _int("n", n)
    dec = 0.0
    if c_m:
        if n is None:
            raise ValueError("n is required when c_m > 0 (decoding term c_m (1-alpha)^2 n^2)")
        dec = c_m * (1 - alpha) ** 2 * float(_int("n", n)) ** 2
    log_delay = math.log(t0) - math.log(alpha) / xi
    if log_delay > 709 or not math.isfinite(dec):
        raise ValueError(
            f"alpha: t0 alpha^(-1/xi) = exp({log_delay:.4g}) (or the decoding term) exceeds "
            f"the float range at alpha = {alpha:g}, xi = {xi:g}"
        )
    return math.exp(log_delay) + n_cg * alpha + dec


@dataclass(frozen=True)
class OptimumF:
    """Integer minimiser of ``T_f`` over ``f = 1..n``.

    Attributes
    ----------
    f : int
        Optimal number of machines to wait for.
    alpha : float
        ``(n - f + 1)/n``, the data fraction per machine.
    time : float
        ``T_f`` at the optimum.
    times : numpy.ndarray or None
        ``T_f`` for ``f = 1..n`` (``inf`` where the Pareto mean is infinite);
        None for ``n > 10**6``.

    Examples
    --------
    >>> from gctheory.runtime import OptimumF, halbawi_optimal_f
    >>> opt = halbawi_optimal_f(100, t0=1.0, xi=2.0, n_cg=10.0)
    >>> opt.f, round(opt.alpha, 2), round(opt.time, 4), opt.times.shape
    (87, 0.14, 4.1504, (100,))
    """

    f: int
    alpha: float
    time: float
    times: np.ndarray | None

    def __repr__(self) -> str:
        return f"OptimumF(f={self.f}, alpha={self.alpha:.6g}, time={self.time:.6g})"


def _pareto_order_means(n: int, xi: float, f: np.ndarray) -> np.ndarray:
    """``E[Y_(f:n)]`` of Pareto(1, xi) for an array of orders ``f`` (``inf`` where
    ``n - f + 1 <= 1/xi``): the log-gamma ratio of :mod:`gctheory.order_stats`,
    vectorised (Stirling's series differenced for ``m - c >= 10``, ``gammaln`` below,
    where the arguments are small and nothing cancels)."""
    c = 1.0 / xi
    m = (n - f + 1).astype(float)
    out = np.full(f.shape, np.inf)
    ok = m > c
    if not ok.any():
        return out
    x = m[ok] - c
    g = np.empty_like(x)
    big = x >= 10.0
    xb = x[big]
    inv = lambda y: sum(  # noqa: E731
        cf * y ** -(2 * j + 1) for j, cf in enumerate(_STIRLING_COEF)
    )
    g[big] = (xb - 0.5) * np.log1p(c / xb) + c * np.log(xb + c) - c + inv(xb + c) - inv(xb)
    g[~big] = special.gammaln(x[~big] + c) - special.gammaln(x[~big])
    out[ok] = np.exp(_lgamma_diff(n + 1 - c, c) - g)
    return out


_STIRLING_COEF = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)


def _halbawi_parts(n: int, t0: float, xi: float, n_cg: float) -> np.ndarray:
    """``E[T_delay^(f:n)] + c_g N alpha`` of eq. (17) for every ``f = 1..n`` (vectorised)."""
    if n > _MAX_VECTOR:
        raise ValueError(
            f"n must be <= {_MAX_VECTOR} for the table of T_f over every f, got {n} "
            f"({8 * 3 * n / 2**30:.3g} GiB of float64 arrays)"
        )
    f = np.arange(1, n + 1)
    return t0 * _pareto_order_means(n, xi, f) + n_cg * (n - f + 1) / n


def _halbawi_mean(n: int, t0: float, xi: float, f: int) -> float:
    return t0 * _pareto_raw_moment(xi, f, n, 1)


def _halbawi_argmin(n: int, t0: float, xi: float, n_cg: float, c_m: float, decoding: str) -> int:
    """The smallest minimiser of ``T_f`` (eq. (17)) over ``f = 1..n``, by bisection.

    ``T_f`` is convex in ``f`` where finite: with ``m = n - f + 1`` and ``c = 1/xi``,
    ``E[Y_(f+1:n)] - E[Y_(f:n)] = E[Y_(f:n)] c / (m - 1 - c)`` (Vannman's ratio
    ``Gamma(m-1-c) Gamma(m) / (Gamma(m-1) Gamma(m-c)) = (m-1)/(m-1-c)``) grows with
    ``f`` (both factors do); the load term is linear and the decoding terms
    ``c_m (f-1) f`` and ``c_m f^3`` are convex. So the forward difference
    ``D(f) = T_{f+1} - T_f`` is non-decreasing and the first ``f`` with ``D(f) >= 0``
    is the smallest minimiser. ``D`` is evaluated from that ratio (no cancellation).
    """
    c = 1.0 / xi
    f_last = n - math.floor(c)  # last f with a finite mean: n - f + 1 > c
    if (n - f_last + 1) <= c:
        f_last -= 1
    if f_last < 1:
        return 1  # every T_f is infinite; f = 1 by convention (argmin of all-inf)

    def diff(f: int) -> float:
        if f >= f_last:
            return math.inf
        step = t0 * _halbawi_mean(n, 1.0, xi, f) * c / (n - f - c)
        dec = float(_t_dec(f + 1, c_m, decoding) - _t_dec(f, c_m, decoding))
        return step - n_cg / n + dec

    lo, hi = 1, f_last  # D(hi) >= 0 (infinite beyond)
    while lo < hi:
        mid = (lo + hi) // 2
        if diff(mid) >= 0:
            hi = mid
        else:
            lo = mid + 1
    return lo


def halbawi_optimal_f(
    n: int,
    *,
    t0: float,
    xi: float,
    n_cg: float,
    c_m: float = 0.0,
    decoding: str = "rs",
) -> OptimumF:
    """Exact integer optimum of ``f`` under eq. (17) of Halbawi et al. 2017 at finite ``n``
    (no large-``n`` approximation). See :func:`halbawi_expected_time` for the model.

    ``T_f`` is convex in ``f`` (see :func:`_halbawi_argmin`), so the optimum is found
    by bisection on its forward difference in ``O(log n)`` exact evaluations:
    ``n = 10**9`` answers in milliseconds. ``times`` (``T_f`` for every ``f``,
    vectorised) is filled for ``n <= 10**6`` and None above (it would take
    ``8 n`` bytes and ``O(n)`` time).

    Parameters
    ----------
    n : int
        Machines.
    t0 : float
        Pareto delay scale, ``> 0``.
    xi : float
        Pareto delay shape, ``> 0``.
    n_cg : float
        ``c_g N``: computation time of the whole dataset.
    c_m : float
        Decoding cost constant.
    decoding : {"rs", "generic", "none"}
        Decoding cost model.

    Returns
    -------
    OptimumF
        The optimal ``f``, its ``alpha`` and time.

    Examples
    --------
    >>> from gctheory.runtime import halbawi_optimal_f
    >>> opt = halbawi_optimal_f(100, t0=1.0, xi=2.0, n_cg=10.0, c_m=1e-3)
    >>> opt.f, round(opt.time, 4)
    (44, 8.927)
    >>> halbawi_optimal_f(10**9, t0=1.0, xi=2.0, n_cg=10.0).times is None  # large n: no table
    True
    """
    n = check_int(n, "n", low=1, high=10**15)
    t0, xi, n_cg = _check_pos("t0", t0), _check_pos("xi", xi), _nonneg("n_cg", n_cg)
    c_m = _nonneg("c_m", c_m)
    check_choice(decoding, "decoding", _DECODINGS)
    f = _halbawi_argmin(n, t0, xi, n_cg, c_m, decoding)
    time = halbawi_expected_time(f, n, t0=t0, xi=xi, n_cg=n_cg, c_m=c_m, decoding=decoding)
    if math.isinf(time) and (n - f + 1) * xi > 1:
        raise ValueError(
            f"t0, n_cg, c_m: T_f exceeds the float64 range for every f here (t0 = {t0:g}, "
            f"n_cg = {n_cg:g}, c_m = {c_m:g})"
        )
    times = None
    if n <= _TIMES_LIMIT:
        fs = np.arange(1, n + 1)
        with np.errstate(over="ignore"):  # an overflowing T_f is inf, as it is
            times = _halbawi_parts(n, t0, xi, n_cg) + _t_dec(fs, c_m, decoding)
    return OptimumF(f, (n - f + 1) / n, float(time), times)


_TIMES_LIMIT = 10**6


def halbawi_cm_range(
    f_target: int,
    n: int,
    *,
    t0: float,
    xi: float,
    n_cg: float,
    decoding: str = "rs",
) -> tuple[float, float] | None:
    """Interval ``[lo, hi]`` of decoding costs ``c_m`` for which ``f_target``
    minimises ``T_f`` of eq. (17) (Halbawi et al. 2017), or None if no ``c_m >= 0`` does.

    ``T_f(c) = A(f) + c D(f)`` with ``D`` increasing in ``f``, so ``f*`` is
    optimal iff ``c >= (A(f*) - A(f)) / (D(f) - D(f*))`` for every ``f > f*``
    and ``c <= (A(f) - A(f*)) / (D(f*) - D(f))`` for every ``f < f*``.

    Parameters
    ----------
    f_target : int
        The ``f`` to make optimal.
    n : int
        Machines.
    t0 : float
        Pareto delay scale, ``> 0``.
    xi : float
        Pareto delay shape, ``> 0``.
    n_cg : float
        ``c_g N``: computation time of the whole dataset.
    decoding : {"rs", "generic", "none"}
        Decoding cost model.

    Returns
    -------
    tuple of float or None
        ``(lo, hi)``, or None.

    Examples
    --------
    >>> from gctheory.runtime import halbawi_cm_range
    >>> lo, hi = halbawi_cm_range(60, 100, t0=1.0, xi=2.0, n_cg=10.0)
    >>> f"{lo:.3g}", f"{hi:.3g}"
    ('0.000667', '0.000684')
    """
    f_target, n = _check_kn(f_target, n, "f_target", "n")
    t0, xi, n_cg = _check_pos("t0", t0), _check_pos("xi", xi), _nonneg("n_cg", n_cg)
    check_choice(decoding, "decoding (c_m has no effect with 'none')", ("rs", "generic"))
    a = _halbawi_parts(n, t0, xi, n_cg)
    d = _t_dec(np.arange(1, n + 1, dtype=float), 1.0, decoding)
    i = f_target - 1
    if not np.isfinite(a[i]):
        return None
    ok = np.isfinite(a)
    ok[i] = False
    above, below = ok & (d > d[i]), ok & (d < d[i])
    if (ok & (d == d[i]) & (a < a[i])).any():
        return None
    lo = max(0.0, float(np.max((a[i] - a[above]) / (d[above] - d[i]), initial=0.0)))
    hi = float(np.min((a[below] - a[i]) / (d[i] - d[below]), initial=math.inf))
    return (lo, hi) if lo <= hi else None
