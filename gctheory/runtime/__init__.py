"""Expected iteration time of gradient-coding schemes, and the parameters that minimise it.

Every scheme trades more work per worker for waiting on fewer workers. This
module puts numbers on that trade for a user's own ``n`` and delay model,
exactly (through :mod:`gctheory.order_stats`) where the papers used asymptotics:

* Halbawi et al. 2017 [1]_, Section 5: ``T_f`` of eq. (17) with Pareto delays
  and decoding cost ``c_m (f-1) f`` (Reed-Solomon, Alg. 3) or ``c_m f^3``
  (generic linear solve); the approximation (20); the offline optimum
  ``alpha*`` of eq. (22) with its validity condition; the exact integer
  optimum of ``f``; the range of ``c_m`` that makes a given ``f`` optimal.
* Tandon / Ye-Abbe / Kadhe et al. 2019 [2]_: expected iteration time of
  uncoded, ignore-``s``-stragglers, cyclic-MDS, fractional repetition,
  Ye-Abbe and CommFR-GC when a worker's computation time scales with its load
  and its communication time with ``1/m``.
* Zhang et al. 2020 [3]_, Section V: time per iteration, communication load
  and computation load of GD, GC, LAG, G-GD, G-LAG and LAGC, and the
  redundancy / number of groups minimising time per iteration.
* Xu et al. 2021 [4]_, Section IV-C: ``B(K)`` of eq. (18), the feasible
  interval (23), the optimality condition (25) solved for ``p = K/N``, and the
  exact integer optimum of ``K``.

References
----------
.. [1] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving
   distributed gradient descent using Reed-Solomon codes", 2017.
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019.
.. [3] J. Zhang and O. Simeone, "LAGC: Lazily aggregated gradient coding
   for straggler-tolerant and communication-efficient distributed learning", 2020.
.. [4] J. Xu, S.-L. Huang, L. Song, T. Lan, "Live gradient compensation for evading stragglers in
   distributed learning", 2021.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from gctheory._names import RUNTIME_SCHEMES
from gctheory._names import ZHANG_SCHEMES as _ZHANG_SCHEMES
from gctheory._validate import check_choice, check_int, check_real
from gctheory.montecarlo import Estimate
from gctheory.order_stats import (
    MAX_WORKERS,
    InfiniteMomentWarning,
    OrderStatMoments,
    _check_alpha,
    _check_dist,
    _check_kn,
    _check_mc_args,
    _check_pos,
    _check_shift,
    _lgamma_diff,
    _pareto_raw_moment,
    grouped_completion_mc,
    grouped_completion_moments,
    order_statistic_moments,
)

__all__ = [
    "halbawi_f",
    "halbawi_alpha_star",
    "halbawi_expected_time",
    "halbawi_approx_time",
    "halbawi_optimal_f",
    "halbawi_cm_range",
    "OptimumF",
    "SchemeLayout",
    "SCHEMES",
    "scheme_layout",
    "scheme_expected_time",
    "scheme_time_moments",
    "scheme_time_mc",
    "optimal_straggler_tolerance",
    "ZHANG_SCHEMES",
    "ZhangMetrics",
    "zhang_worker_dist",
    "zhang_metrics",
    "zhang_best_redundancy",
    "zhang_best_groups",
    "xu_expected_time",
    "xu_time_saving",
    "xu_feasible_interval",
    "xu_feasible_k_exact",
    "xu_optimal_p",
    "xu_bound_B",
    "xu_optimal_K",
]


def _int(name: str, v: Any, lo: int = 1) -> int:
    # sizes (workers, groups, redundancy, K...) share the order statistics' ceiling
    return check_int(v, name, low=lo, high=MAX_WORKERS)


def _nonneg(name: str, v: float) -> float:
    return check_real(v, name, low=0.0)


# Scans that evaluate an exact expected time at every candidate cost about 1 ms per
# candidate with a closed form and 0.1-0.3 s with numerical integration: refuse
# before starting a scan that would take minutes.
_SCAN_CLOSED, _SCAN_QUAD = 10**4, 200


def _check_scan(name: str, size: int, dist: Any = None, what: str = "") -> None:
    closed = dist is None or dist.dist.name in ("expon", "pareto")
    limit = _SCAN_CLOSED if closed else _SCAN_QUAD
    if size > limit:
        kind = "a closed form" if closed else "a numerical integration"
        raise ValueError(
            f"{name} must be <= {limit} here, got {size}: {what} evaluates {kind} for every "
            f"candidate ({size} of them), which would take minutes; refused before starting"
        )


# Vectorised scans hold a few float64 arrays of the scan's length.
_MAX_VECTOR = 10**7


# ===========================================================================
# Halbawi et al. 2017, Section 5


def halbawi_f(alpha: float, n: int) -> int:
    """Machines to wait for, eq. (18) of Halbawi et al. 2017: ``ceil((1-alpha) n) + 1``.

    ``alpha = w/k`` (fraction of the data per machine) must lie in ``[1/n, 1]``
    (a machine holds at least one of ``k = n`` parts).
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

    Raises
    ------
    ValueError
        Non-positive input, or outside the validity condition
        ``t0 / (c_g N xi) < 1`` (then ``alpha* >= 1``: the minimiser of (21)
        on ``(0, 1]`` is the boundary ``alpha = 1``, not eq. (22)).
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
    ``t0 alpha^(-1/xi) + c_g N alpha + c_m (1-alpha)^2 n^2`` (eq. (21) when ``c_m = 0``)."""
    alpha = _check_alpha(alpha)
    t0, xi = _check_pos("t0", t0), _check_pos("xi", xi)
    n_cg, c_m = _nonneg("n_cg", n_cg), _nonneg("c_m", c_m)
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


# ===========================================================================
# Tandon / Ye-Abbe / Kadhe et al. 2019: expected iteration time per scheme

SCHEMES = RUNTIME_SCHEMES  # ("uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc")


@dataclass(frozen=True)
class SchemeLayout:
    """How a scheme loads workers and when the master can decode.

    ``load`` is a worker's share of the dataset; decoding happens once the
    fastest ``wait`` workers of every one of ``groups`` groups of
    ``group_size`` workers returned; ``comm`` is a worker's message length
    relative to a full gradient (``1/m``); ``exact`` is False for ignore-s
    (the gradient is only approximate).
    """

    scheme: str
    load: float
    groups: int
    group_size: int
    wait: int
    comm: float
    exact: bool = True


def scheme_layout(
    scheme: str, n: int, s: int = 0, m: int = 1, *, code: tuple[int, int, int] | None = None
) -> SchemeLayout:
    """Load, decoding rule and message size of a scheme with ``n`` workers,
    straggler tolerance ``s`` and communication saving ``m``.

    * ``uncoded``: load ``1/n``, wait for all ``n``.
    * ``ignore-s``: load ``1/n``, wait for ``n - s`` (approximate gradient).
    * ``cyclic-mds`` (Tandon et al.): load ``(s+1)/n``, any ``n - s``.
    * ``frc`` (Tandon et al., ``(s+1) | n``): load ``(s+1)/n``; ``n/(s+1)``
      groups of ``s+1`` identical workers; one per group suffices.
    * ``ye-abbe``: load ``(s+m)/n``, any ``n - s``, messages ``1/m`` long.
    * ``commfr-gc`` (Kadhe et al. 2019, Theorem 1) with ``code = (N, K, delta)``,
      ``N | n``: load ``N/n``, ``n/N`` groups of ``N``, each decodable from
      any ``N - delta + 1`` of its workers, messages ``1/K`` long.
    """
    n = _int("n", n)
    s = _int("s", s, 0)
    m = _int("m", m)
    if s >= n:
        raise ValueError(f"s must be < n = {n}, got {s}")
    if scheme == "uncoded":
        return SchemeLayout(scheme, 1 / n, 1, n, n, 1.0)
    if scheme == "ignore-s":
        return SchemeLayout(scheme, 1 / n, 1, n, n - s, 1.0, exact=False)
    if scheme == "cyclic-mds":
        return SchemeLayout(scheme, (s + 1) / n, 1, n, n - s, 1.0)
    if scheme == "frc":
        if n % (s + 1):
            raise ValueError(f"frc needs (s + 1) | n, got s + 1 = {s + 1}, n = {n}")
        return SchemeLayout(scheme, (s + 1) / n, n // (s + 1), s + 1, 1, 1.0)
    if scheme == "ye-abbe":
        if s + m > n:
            raise ValueError(f"ye-abbe needs s + m <= n, got s + m = {s + m}, n = {n}")
        return SchemeLayout(scheme, (s + m) / n, 1, n, n - s, 1 / m)
    if scheme == "commfr-gc":
        if code is None:
            raise ValueError("commfr-gc needs code=(N, K, delta) of the underlying linear code")
        N, K, delta = (_int(nm, v) for nm, v in zip(("N", "K", "delta"), code, strict=True))
        if n % N:
            raise ValueError(f"commfr-gc needs N | n, got N = {N}, n = {n}")
        if K > N or delta > N - K + 1:
            raise ValueError(
                f"an [N, K, delta] code needs K <= N and delta <= N - K + 1 (Singleton), got {code}"
            )
        return SchemeLayout(scheme, N / n, n // N, N, N - delta + 1, 1 / K)
    raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")


def _scaled(dist: Any, load: float) -> Any:
    """The time of a worker holding ``load`` of the data: ``load * X``.

    Memoised on the family and the numbers: freezing a scipy distribution builds a
    new generic instance and its docstring (about 0.7 ms), and a sweep asks for the
    same scaled law hundreds of times. Frozen laws are only read here (every draw
    passes its own ``random_state``), so sharing one is safe.
    """
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    try:
        return _scaled_frozen(dist.dist, tuple(shapes), loc * load, scale * load)
    except TypeError:  # unhashable parameters (arrays): freeze afresh
        return dist.dist(*shapes, loc=loc * load, scale=scale * load)


@functools.lru_cache(maxsize=512)
def _scaled_frozen(gen: Any, shapes: tuple, loc: float, scale: float) -> Any:
    return gen(*shapes, loc=loc, scale=scale)


def scheme_expected_time(
    scheme: str,
    dist: Any,
    n: int,
    s: int = 0,
    m: int = 1,
    *,
    tau: float = 0.0,
    code: tuple[int, int, int] | None = None,
) -> float:
    """Expected iteration time of a scheme, ``E[load X]`` at the decoding
    moment plus communication ``tau * comm``.

    Model: a worker holding a fraction ``load`` of the data returns after
    ``load * X`` with ``X ~ dist`` i.i.d. (the time to process the whole
    dataset: a shifted exponential ``stats.expon(loc=Delta, scale=mu)`` scales
    shift and mean with the load, a Pareto its scale), then spends
    ``tau / m`` communicating a message ``1/m`` of a gradient (``tau`` = time
    to send a full gradient). The iteration ends at the order statistic of
    :func:`scheme_layout` (a grouped one for ``frc``/``commfr-gc``). This is
    the model in which Kadhe et al. 2019 Section V compare the schemes; its
    numbers are EC2 measurements, not this model.
    """
    mom = scheme_time_moments(scheme, dist, n, s, m, tau=tau, code=code)
    if math.isinf(mom.mean):
        warnings.warn(mom.reason, InfiniteMomentWarning, stacklevel=2)
    return mom.mean


def scheme_time_moments(
    scheme: str,
    dist: Any,
    n: int,
    s: int = 0,
    m: int = 1,
    *,
    tau: float = 0.0,
    code: tuple[int, int, int] | None = None,
) -> OrderStatMoments:
    """Mean and variance of the iteration time of :func:`scheme_expected_time`
    (the variance tells whether a Monte Carlo interval is meaningful)."""
    _check_dist(dist)
    lay = scheme_layout(scheme, n, s, m, code=code)
    tau = _nonneg("tau", tau)
    mom = grouped_completion_moments(_scaled(dist, lay.load), lay.groups, lay.group_size, lay.wait)
    return OrderStatMoments(mom.mean + tau * lay.comm, mom.variance, mom.method, mom.reason)


def scheme_time_mc(
    scheme: str,
    dist: Any,
    n: int,
    s: int = 0,
    m: int = 1,
    trials: int = 10_000,
    *,
    tau: float = 0.0,
    code: tuple[int, int, int] | None = None,
    rng: Any = None,
    level: float = 0.99,
) -> Estimate:
    """Monte Carlo twin of :func:`scheme_expected_time` (same model, sampled)."""
    _check_dist(dist)
    _check_mc_args(trials, level, None)
    lay = scheme_layout(scheme, n, s, m, code=code)
    tau = _nonneg("tau", tau)
    est = grouped_completion_mc(
        _scaled(dist, lay.load), lay.groups, lay.group_size, lay.wait, trials, rng=rng, level=level
    )
    c = tau * lay.comm
    return Estimate(
        est.value + c, est.low + c, est.high + c, est.trials, est.level, None, est.std, est.method
    )


def optimal_straggler_tolerance(
    scheme: str, dist: Any, n: int, m: int = 1, *, tau: float = 0.0
) -> tuple[int, dict[int, float]]:
    """The ``s`` minimising :func:`scheme_expected_time` over all valid ``s``
    (for ``frc`` only ``(s+1) | n``; for ``ye-abbe`` ``s <= n - m``), and the time for
    each ``s``.

    Every ``s = 0..n-1`` is evaluated exactly (the objective is not unimodal in
    general), so ``n`` is limited to ``10**4`` for exponential and Pareto delays
    (closed forms) and to 200 for other distributions (numerical integration);
    larger ``n`` is refused before any work.
    """
    check_choice(scheme, "scheme", [x for x in SCHEMES if x != "commfr-gc"])
    _check_dist(dist)
    n = _int("n", n)
    m = _int("m", m)
    if scheme == "ye-abbe" and m > n:
        raise ValueError(f"m must be <= n = {n} for ye-abbe (s + m <= n with s >= 0), got {m}")
    tau = _nonneg("tau", tau)
    _check_scan("n", n, dist, "optimal_straggler_tolerance")
    times: dict[int, float] = {}
    for s in range(n):
        if scheme == "frc" and n % (s + 1):
            continue
        if scheme == "ye-abbe" and s + m > n:
            continue
        times[s] = scheme_time_moments(scheme, dist, n, s, m, tau=tau).mean  # inf: no warning
    best = min(times, key=lambda k: times[k])
    return best, times


# ===========================================================================
# Zhang et al. 2020, Section V

ZHANG_SCHEMES = _ZHANG_SCHEMES  # ("GD", "GC", "LAG", "G-GD", "G-LAG", "LAGC")


@dataclass(frozen=True)
class ZhangMetrics:
    """Per-iteration metrics of a scheme (Zhang et al. 2020, Section V).

    ``time``: expected time per iteration; ``communication``: workers that
    download plus workers that upload, per iteration; ``computation``: partial
    gradients computed per iteration. ``iterations`` is the iteration count
    used for the complexities ``time_complexity = iterations * time`` etc.
    """

    scheme: str
    time: float
    communication: float
    computation: float
    iterations: float

    @property
    def time_complexity(self) -> float:
        return self.iterations * self.time

    @property
    def communication_complexity(self) -> float:
        return self.iterations * self.communication

    @property
    def computation_complexity(self) -> float:
        return self.iterations * self.computation


def zhang_worker_dist(model: str, r: int, *, theta: float = 1.0, shape: float = 2.0) -> Any:
    """Computing time of a worker with storage redundancy ``r`` (Zhang et al. 2020, Sec. II).

    Its mean is proportional to ``r``: ``exponential`` has mean ``r * theta``;
    ``pareto`` has scale ``r * theta`` and shape ``shape`` (CDF ``1 - (r
    theta/t)^shape``). The paper's constants are lost from our copy; this is
    the proportional-to-load reading of its Section II.
    """
    r = _int("r", r)
    theta = _check_pos("theta", theta)
    if not math.isfinite(r * theta):
        raise ValueError(f"theta: the scale r * theta = {r} * {theta:g} overflows float64")
    if model == "exponential":
        return stats.expon(scale=r * theta)
    if model == "pareto":
        return stats.pareto(_check_pos("shape", shape), scale=r * theta)
    raise ValueError(f"model must be 'exponential' or 'pareto', got {model!r}")


def _selected(rho: float, count: int) -> int:
    rho = check_real(rho, "rho (the selection fraction)", low=0.0, high=1.0, low_open=True)
    return max(1, round(rho * count))


def zhang_metrics(
    scheme: str,
    n: int,
    r: int = 1,
    *,
    model: str = "exponential",
    theta: float = 1.0,
    shape: float = 2.0,
    rho: float = 1.0,
    groups: int | None = None,
    iterations: float = 1.0,
    lag_iterations: float | None = None,
) -> ZhangMetrics:
    """Time per iteration, communication and computation of a scheme of Zhang et al. 2020.

    Parameters
    ----------
    scheme : {"GD", "GC", "LAG", "G-GD", "G-LAG", "LAGC"}
    n : int
        Workers.
    r : int
        Storage redundancy (``r = 1`` for GD and LAG).
    model, theta, shape
        Worker time, see :func:`zhang_worker_dist` (mean proportional to ``r``).
    rho : float
        Fraction of workers (LAG) or groups (G-LAG, LAGC) selected per
        iteration by the lazy rule, in (0, 1]; the paper bounds it through
        its eq. (26)/(30); here it is a parameter (or measured by a simulation).
    groups : int
        Number of groups ``G`` for LAGC (``G | n``, ``r <= n/G``). G-GD/G-LAG use
        ``G = n/r`` groups of ``r`` workers each storing the group's data.
    iterations, lag_iterations : float
        Iteration complexity of GD/GC/G-GD and of LAG/G-LAG/LAGC (default: equal,
        "the same scaling", eqs. (19)-(20)).

    Notes
    -----
    Times: GD ``E[X_(n:n)]``; GC ``E[X_(n-r+1:n)]`` (any ``n-r+1`` of ``n``);
    LAG ``E[X_(M:M)]``, ``M = round(rho n)``; G-GD ``E[max_g min_{i in g}
    X_i]`` (eq. (28)); G-LAG the same over ``round(rho G)`` groups; LAGC the
    maximum over ``round(rho G)`` groups of the ``(n/G - r + 1)``-th of
    ``n/G``. Communication = downloads + uploads; computation = ``r`` partial
    gradients per active worker.
    """
    n = _int("n", n)
    r = _int("r", r)
    if r > n:
        raise ValueError(f"r must be <= n = {n}, got {r}")
    lag_it = iterations if lag_iterations is None else lag_iterations
    d1 = zhang_worker_dist(model, 1, theta=theta, shape=shape)
    dr = zhang_worker_dist(model, r, theta=theta, shape=shape)

    def grouped(dist, g, size, wait):
        return grouped_completion_moments(dist, g, size, wait).mean

    if scheme == "GD":
        return ZhangMetrics(scheme, grouped(d1, 1, n, n), 2 * n, n, iterations)
    if scheme == "GC":
        f = n - r + 1
        return ZhangMetrics(scheme, grouped(dr, 1, n, f), n + f, n * r, iterations)
    if scheme == "LAG":
        M = _selected(rho, n)
        return ZhangMetrics(scheme, grouped(d1, 1, M, M), 2 * M, M, lag_it)
    if scheme in ("G-GD", "G-LAG"):
        if n % r:
            raise ValueError(f"{scheme} needs r | n (groups of r workers), got r = {r}, n = {n}")
        G = n // r
        S = G if scheme == "G-GD" else _selected(rho, G)
        it = iterations if scheme == "G-GD" else lag_it
        return ZhangMetrics(scheme, grouped(dr, S, r, 1), S * r + S, S * r * r, it)
    if scheme == "LAGC":
        if groups is None:
            raise ValueError("LAGC needs groups=G (a divisor of n)")
        G = _int("groups", groups)
        if n % G:
            raise ValueError(f"groups must divide n = {n}, got {G}")
        size = n // G
        if r > size:
            raise ValueError(f"LAGC needs r <= n/G = {size}, got r = {r}")
        S = _selected(rho, G)
        f = size - r + 1
        return ZhangMetrics(scheme, grouped(dr, S, size, f), S * size + S * f, S * size * r, lag_it)
    raise ValueError(f"scheme must be one of {ZHANG_SCHEMES}, got {scheme!r}")


def zhang_best_redundancy(
    scheme: str,
    n: int,
    *,
    model: str = "exponential",
    theta: float = 1.0,
    shape: float = 2.0,
    rho: float = 1.0,
) -> tuple[int, dict[int, float]]:
    """The redundancy ``r`` (for G-GD/G-LAG: group size, ``r | n``) minimising
    time per iteration of ``scheme`` (GC, G-GD or G-LAG), with all times."""
    n = _int("n", n)
    check_choice(scheme, "scheme", ("GC", "G-GD", "G-LAG"))
    zhang_worker_dist(model, 1, theta=theta, shape=shape)  # validates model, theta, shape
    _selected(rho, n)
    if scheme == "GC":
        _check_scan("n", n, None, "zhang_best_redundancy('GC')")
    candidates = [r for r in range(1, n + 1) if scheme == "GC" or n % r == 0]
    times = {}
    for r in candidates:
        t = zhang_metrics(scheme, n, r, model=model, theta=theta, shape=shape, rho=rho).time
        if math.isfinite(t):
            times[r] = t
    if not times:
        raise ValueError(
            f"shape: every redundancy r gives an infinite expected time for {scheme} with "
            f"n = {n}, {model} shape = {shape:g} (the Pareto mean needs shape > 1)"
        )
    return min(times, key=lambda k: times[k]), times


def _divisors(n: int) -> list[int]:
    """Divisors of ``n`` in increasing order, in ``O(sqrt(n))``."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


def zhang_best_groups(
    n: int,
    r: int,
    *,
    model: str = "exponential",
    theta: float = 1.0,
    shape: float = 2.0,
    rho: float = 1.0,
) -> tuple[int, dict[int, float]]:
    """The number of groups ``G`` (``G | n``, ``r <= n/G``) minimising LAGC's time
    per iteration (Zhang et al. 2020, Section IV), with the time for every valid ``G``."""
    n, r = check_int(n, "n", low=1, high=10**10), _int("r", r)  # divisors in O(sqrt(n))
    if r > n:
        raise ValueError(f"r must be <= n = {n}, got {r}")
    zhang_worker_dist(model, 1, theta=theta, shape=shape)  # validates model, theta, shape
    _selected(rho, n)
    times = {}
    for G in _divisors(n):
        if r > n // G:
            continue
        t = zhang_metrics(
            "LAGC", n, r, model=model, theta=theta, shape=shape, rho=rho, groups=G
        ).time
        if math.isfinite(t):
            times[G] = t
    if not times:
        raise ValueError(f"no valid number of groups for n = {n}, r = {r}")
    return min(times, key=lambda k: times[k]), times


# ===========================================================================
# Xu et al. 2021, Section IV-C


def xu_expected_time(K: int, N: int, *, delta: float, mu: float) -> float:
    """Exact expected time of an iteration that waits for the fastest ``K`` of ``N``
    workers with ``X ~ Delta + Exp(mean mu)``: ``Delta + mu (H_N - H_{N-K})``
    (the exact form behind Xu et al. 2021 eqs. (21)-(22))."""
    _check_pos("mu", mu)
    _check_shift("delta", delta)
    return order_statistic_moments(stats.expon(loc=delta, scale=mu), K, N).mean


def xu_time_saving(K: int, N: int, *, delta: float, mu: float) -> float:
    """Fractional per-iteration time saving of waiting for ``K`` instead of all
    ``N`` workers: ``1 - E[X_(K:N)] / E[X_(N:N)]`` (Xu et al. 2021, Sec. V-B)."""
    return 1 - xu_expected_time(K, N, delta=delta, mu=mu) / xu_expected_time(
        N, N, delta=delta, mu=mu
    )


def _check_xu_sl(N: int, s: float, lam: float) -> tuple[int, float, float]:
    N = _int("N", N, 2)
    s = check_real(s, "s (eq. (20): 1 < s <= m)", low=1.0, low_open=True)
    lam = check_real(
        lam, "lam (lambda, eq. (19))", low=0.0, high=1.0, low_open=True, high_open=True
    )
    return N, s, lam


def xu_feasible_interval(N: int, s: float, lam: float) -> tuple[float, float]:
    """Feasible range of ``p = K/N``, eq. (23) of Xu et al. 2021:
    ``max{0.5, 1 - exp(-log(N)/s)} <= K/N <= 1 - exp(-(1 + lambda))``.

    It follows from constraints (19)-(20) with the approximations (21)-(22)
    when ``Delta = 0`` and ``tau = 0`` (the paper: "communication latency and
    shift are not known in advance"). See :func:`xu_feasible_k_exact` for the
    exact integer set. The interval may be empty (low > high) for large ``N``.
    """
    N, s, lam = _check_xu_sl(N, s, lam)
    return max(0.5, 1 - math.exp(-math.log(N) / s)), 1 - math.exp(-(1 + lam))


def _xu_mu_all(N: int, delta: float, mu: float) -> np.ndarray:
    """``mu_K = Delta + mu (H_N - H_{N-K})`` for ``K = 1..N`` (vectorised): a running sum
    of ``1/j`` (relative error below ``K`` ulps) up to ``K = 10**5``, the digamma
    difference above (where the value is at least ``10**5 / N`` and nothing cancels)."""
    if N > _MAX_VECTOR:
        raise ValueError(
            f"N must be <= {_MAX_VECTOR} for a table over every K, got {N} "
            f"({8 * 3 * N / 2**30:.3g} GiB of float64 arrays)"
        )
    K = np.arange(1, N + 1)
    h = np.empty(N)
    small = min(N, 10**5)
    h[:small] = np.cumsum(1.0 / np.arange(N, N - small, -1, dtype=float))
    if N > small:
        Kb = K[small:]
        h[small:] = special.digamma(N + 1.0) - special.digamma(N - Kb + 1.0)
    return delta + mu * h


def xu_feasible_k_exact(
    N: int, s: float, lam: float, *, delta: float = 0.0, mu: float = 1.0, tau: float = 0.0
) -> list[int]:
    """Integers ``K`` satisfying (19) ``mu_K <= (1+lambda) mean`` and (20)
    ``mu_N / s <= mu_K + tau`` of Xu et al. 2021 with exact ``mu_K``, plus ``K >= N/2``."""
    N, s, lam = _check_xu_sl(N, s, lam)
    mu = _check_pos("mu", mu)
    delta = _check_shift("delta", delta)
    tau = _nonneg("tau", tau)
    mk = _xu_mu_all(N, delta, mu)
    K = np.arange(1, N + 1)
    ok = (2 * K >= N) & (mk <= (1 + lam) * (delta + mu)) & (mk[-1] / s <= mk + tau)
    return [int(k) for k in K[ok]]


def xu_optimal_p(c: float) -> float:
    """Root in (0, 1) of the optimality condition (25) of Xu et al. 2021,
    ``(1 - p)/p^2 = c`` with ``c = mu (F(x0) - F*) / (L^2 eta^3 t (beta^2 + sigma^2/N))``:
    ``p = (sqrt(1 + 4c) - 1) / (2c)``."""
    c = _check_pos("c", c)
    return 2 / (1 + math.sqrt(1 + 4 * c))  # = (sqrt(1+4c) - 1)/(2c), without cancellation


def xu_bound_B(
    K: int,
    N: int,
    *,
    mu: float,
    gap: float,
    L: float,
    eta: float,
    t: float,
    beta2: float,
    sigma2: float,
    delta: float = 0.0,
    exact: bool = True,
) -> float:
    """``B(K)`` of eq. (18) of Xu et al. 2021, without its constant:
    ``2 gap mu_K / (eta t) + 2 L^2 eta^2 (N beta^2 + sigma^2) / K``.

    ``gap = F(x0) - F*``; ``mu_K`` is the exact ``Delta + mu (H_N - H_{N-K})``
    (``exact=True``) or eq. (21) ``Delta + mu log(N/(N-K))`` (``K < N``).
    """
    K, N = _check_kn(K, N, "K", "N")
    mu, gap, L, eta, t = (
        _check_pos(nm, v) for nm, v in (("mu", mu), ("gap", gap), ("L", L), ("eta", eta), ("t", t))
    )
    beta2, sigma2 = _nonneg("beta2", beta2), _nonneg("sigma2", sigma2)
    delta = _check_shift("delta", delta)
    if exact:
        mk = xu_expected_time(K, N, delta=delta, mu=mu)
    else:
        if K == N:
            raise ValueError("eq. (21) needs K < N")
        mk = delta + mu * math.log(N / (N - K))
    return 2 * gap * mk / (eta * t) + 2 * L**2 * eta**2 * (N * beta2 + sigma2) / K


_XU_B_PARAMS = ("mu", "gap", "L", "eta", "t", "beta2", "sigma2", "delta")


def xu_optimal_K(N: int, **params: float) -> tuple[int, np.ndarray]:
    """Integer ``K`` minimising the exact ``B(K)`` (eq. (18), Xu et al. 2021)
    over ``1..N``, and ``B`` for all ``K`` (vectorised; ``N <= 10**7``).

    ``params`` are the keywords of :func:`xu_bound_B`: ``mu, gap, L, eta, t, beta2,
    sigma2`` (required) and ``delta`` (default 0)."""
    N = _int("N", N)
    unknown = sorted(set(params) - set(_XU_B_PARAMS))
    missing = sorted(set(_XU_B_PARAMS[:-1]) - set(params))
    if unknown or missing:
        raise ValueError(
            f"params must be exactly {list(_XU_B_PARAMS)} (delta optional): "
            f"unknown {unknown}, missing {missing}"
        )
    xu_bound_B(N, N, exact=True, **params)  # validates every parameter
    p = {"delta": 0.0, **params}
    mk = _xu_mu_all(N, float(p["delta"]), float(p["mu"]))
    K = np.arange(1, N + 1)
    b = (
        2 * p["gap"] * mk / (p["eta"] * p["t"])
        + 2 * p["L"] ** 2 * p["eta"] ** 2 * (N * p["beta2"] + p["sigma2"]) / K
    )
    return int(np.argmin(b)) + 1, b
