"""Expected iteration time of the gradient-coding schemes under a load-scaled delay model.

Tandon et al., Ye-Abbe and Kadhe et al. 2019 [1]_: uncoded, ignore-``s``-stragglers,
cyclic-MDS, fractional repetition, Ye-Abbe and CommFR-GC, when a worker's
computation time scales with its load and its communication time with ``1/m``
(the model of [1]_ Section V); each scheme's layout (:func:`scheme_layout`), its
exact expected time and variance, a Monte Carlo twin, and the straggler
tolerance ``s`` that minimises the time.

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019
   (kadhe2019).
"""

from __future__ import annotations

import copy
import functools
import math
import warnings
from dataclasses import dataclass
from typing import Any

from scipy import stats

from gctheory._names import RUNTIME_SCHEMES
from gctheory._validate import check_choice
from gctheory.montecarlo import Estimate
from gctheory.montecarlo.summaries import shift_estimate
from gctheory.order_stats._common import InfiniteMomentWarning, OrderStatMoments, _check_dist
from gctheory.order_stats.grouped import grouped_completion_moments
from gctheory.order_stats.heterogeneous import is_worker_sequence
from gctheory.order_stats.sampling import _check_mc_args, grouped_completion_mc
from gctheory.runtime._common import _check_scan, _int, _nonneg

__all__ = [
    "SchemeLayout",
    "SCHEMES",
    "scheme_layout",
    "scheme_expected_time",
    "scheme_time_moments",
    "scheme_time_mc",
    "optimal_straggler_tolerance",
]


SCHEMES = RUNTIME_SCHEMES  # ("uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc")


@dataclass(frozen=True)
class SchemeLayout:
    """How a scheme loads workers and when the master can decode.

    ``load`` is a worker's share of the dataset; decoding happens once the
    fastest ``wait`` workers of every one of ``groups`` groups of
    ``group_size`` workers returned; ``comm`` is a worker's message length
    relative to a full gradient (``1/m``); ``exact`` is False for ignore-s
    (the gradient is only approximate).

    Parameters
    ----------
    scheme : str
        The scheme.
    load : float
        A worker's share of the dataset.
    groups : int
        Groups of workers.
    group_size : int
        Workers per group.
    wait : int
        Workers needed from every group.
    comm : float
        Message length relative to a gradient.
    exact : bool
        False when the gradient is only approximate.

    Examples
    --------
    >>> from gctheory.runtime import SchemeLayout, scheme_layout
    >>> scheme_layout("frc", 12, s=2)
    SchemeLayout(scheme='frc', load=0.25, groups=4, group_size=3, wait=1, comm=1.0, exact=True)
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

    Parameters
    ----------
    scheme : {"uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc"}
        The scheme (see :func:`scheme_layout`).
    n : int
        Workers.
    s : int
        Stragglers tolerated.
    m : int
        Communication saving.
    code : tuple of int, optional
        ``(N, K, delta)`` of the code behind ``commfr-gc``.

    Returns
    -------
    SchemeLayout
        Load, groups, decoding rule and message size.

    Examples
    --------
    >>> from gctheory.runtime import scheme_layout
    >>> L = scheme_layout("cyclic-mds", 12, s=2)
    >>> L.load, L.groups, L.wait
    (0.25, 1, 10)
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
    # ``gen(*shapes, loc=loc, scale=scale)`` without building a new generic instance
    # and its docstring per (loc, scale) (about 1-4 ms each, n of them in a scan over
    # s): a copy of the law frozen once with the shapes, given the same args and kwds
    # that freezing stores (loc and scale do not change the support's shape part).
    frozen = copy.copy(_frozen_shapes(gen, shapes))
    frozen.args, frozen.kwds = shapes, {"loc": loc, "scale": scale}
    return frozen


@functools.lru_cache(maxsize=64)
def _frozen_shapes(gen: Any, shapes: tuple) -> Any:
    return gen(*shapes)


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

    Parameters
    ----------
    scheme : {"uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc"}
        The scheme (see :func:`scheme_layout`).
    dist : frozen scipy.stats distribution, or a sequence of them
        Time for one worker to process the whole dataset.
    n : int
        Workers.
    s : int
        Stragglers tolerated.
    m : int
        Communication saving.
    tau : float
        Time to communicate a full gradient.
    code : tuple of int, optional
        ``(N, K, delta)`` for ``commfr-gc``.

    Returns
    -------
    float
        Expected iteration time.

    Examples
    --------
    >>> from gctheory.runtime import scheme_expected_time
    >>> from scipy import stats
    >>> X = stats.expon(loc=1.0, scale=1.0)
    >>> for scheme in ("uncoded", "cyclic-mds", "frc"):
    ...     print(scheme, round(scheme_expected_time(scheme, X, 12, s=2), 4))
    uncoded 0.3419
    cyclic-mds 0.6508
    frc 0.4236
    """
    mom = scheme_time_moments(scheme, dist, n, s, m, tau=tau, code=code)
    if not math.isfinite(mom.mean):  # reason is set whenever a moment is infinite or undefined
        warnings.warn(mom.reason or "the mean is infinite", InfiniteMomentWarning, stacklevel=2)
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
    (the variance tells whether a Monte Carlo interval is meaningful). ``dist`` may be a
    sequence of ``n`` per-worker laws (:mod:`gctheory.runtime.hetero`).

    Parameters
    ----------
    scheme : {"uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc"}
        The scheme (see :func:`scheme_layout`).
    dist : frozen scipy.stats distribution, or a sequence of them
        Time for one worker to process the whole dataset.
    n : int
        Workers.
    s : int
        Stragglers tolerated.
    m : int
        Communication saving.
    tau : float
        Time to communicate a full gradient.
    code : tuple of int, optional
        ``(N, K, delta)`` for ``commfr-gc``.

    Returns
    -------
    OrderStatMoments
        Mean and variance of the iteration time.

    Examples
    --------
    >>> from gctheory.runtime import scheme_time_moments
    >>> from scipy import stats
    >>> m = scheme_time_moments("cyclic-mds", stats.expon(scale=1.0), 12, s=2)
    >>> round(m.mean, 4), round(m.variance, 4)
    (0.4008, 0.0197)
    """
    if is_worker_sequence(dist):  # workers with their own laws
        from gctheory.runtime.hetero import hetero_scheme_time_moments

        return hetero_scheme_time_moments(scheme_layout(scheme, n, s, m, code=code), dist, tau=tau)
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
    """Monte Carlo twin of :func:`scheme_expected_time` (same model, sampled).

    Parameters
    ----------
    scheme : {"uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc"}
        The scheme (see :func:`scheme_layout`).
    dist : frozen scipy.stats distribution, or a sequence of them
        Time for one worker to process the whole dataset.
    n : int
        Workers.
    s : int
        Stragglers tolerated.
    m : int
        Communication saving.
    trials : int
        Monte Carlo trials.
    tau : float
        Time to communicate a full gradient.
    code : tuple of int, optional
        ``(N, K, delta)`` for ``commfr-gc``.
    rng : None, int or numpy.random.Generator
        Seed.
    level : float
        Confidence level.

    Returns
    -------
    Estimate
        Mean iteration time with its interval.

    Examples
    --------
    >>> from gctheory.runtime import scheme_expected_time, scheme_time_mc
    >>> from scipy import stats
    >>> X = stats.expon(scale=1.0)
    >>> est = scheme_time_mc("cyclic-mds", X, 12, s=2, trials=2000, rng=0)
    >>> est.contains(scheme_expected_time("cyclic-mds", X, 12, s=2))
    True
    """
    if is_worker_sequence(dist):  # workers with their own laws
        from gctheory.runtime.hetero import hetero_scheme_time_mc

        _check_mc_args(trials, level, None)
        lay = scheme_layout(scheme, n, s, m, code=code)
        return hetero_scheme_time_mc(lay, dist, trials, tau=tau, rng=rng, level=level)
    _check_dist(dist)
    _check_mc_args(trials, level, None)
    lay = scheme_layout(scheme, n, s, m, code=code)
    tau = _nonneg("tau", tau)
    est = grouped_completion_mc(
        _scaled(dist, lay.load), lay.groups, lay.group_size, lay.wait, trials, rng=rng, level=level
    )
    c = tau * lay.comm
    return shift_estimate(est, c)


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

    Parameters
    ----------
    scheme : {"uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc"}
        The scheme (see :func:`scheme_layout`).
    dist : frozen scipy.stats distribution, or a sequence of them
        Time for one worker to process the whole dataset.
    n : int
        Workers.
    m : int
        Communication saving.
    tau : float
        Time to communicate a full gradient.

    Returns
    -------
    tuple
        ``(s*, {s: time})``.

    Examples
    --------
    >>> from gctheory.runtime import optimal_straggler_tolerance
    >>> from scipy import stats
    >>> s, times = optimal_straggler_tolerance("cyclic-mds", stats.pareto(1.5), 12)
    >>> s, round(times[s], 4), round(times[0], 4)  # Pareto delays: tolerate one straggler
    (1, 0.7874, 1.1811)
    """
    check_choice(scheme, "scheme", [x for x in SCHEMES if x != "commfr-gc"])
    hetero = is_worker_sequence(dist)  # one law per worker, quadrature per s
    if not hetero:
        _check_dist(dist)
    n = _int("n", n)
    m = _int("m", m)
    if scheme == "ye-abbe" and m > n:
        raise ValueError(f"m must be <= n = {n} for ye-abbe (s + m <= n with s >= 0), got {m}")
    tau = _nonneg("tau", tau)
    if hetero:
        _check_scan("n", n, stats.gamma(2.0), "optimal_straggler_tolerance")  # quadrature limit
    else:
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


#: relative margin of the screen of :func:`_optimum_screened`: far above the rounding
#: error of either evaluation of a mean (about 1e-14 relative), so the exact optimum is
#: always among the candidates the screen keeps
_SCREEN_MARGIN = 1e-9


def _optimum_screened(
    scheme: str, dist: Any, n: int, m: int = 1, *, tau: float = 0.0
) -> int | None:
    """``optimal_straggler_tolerance(scheme, dist, n, m, tau=tau)[0]``, the same ``s``, for
    an exponential or Pareto law and a one-group layout (uncoded, ignore-s, cyclic-MDS,
    Ye-Abbe); None elsewhere (the caller then scans with the public function).

    The time at ``s`` is ``load (delta + mu (H_n - H_{n-k}))`` for the shifted
    exponential, ``load (loc + t0 prod_{j=n-k+1}^{n} j / (j - 1/xi))`` for the Pareto
    (the closed forms of :func:`gctheory.order_stats.order_statistic_moments`, ``k`` the
    layout's wait, ``n - k + 1 = s + 1`` here), plus ``tau`` times the message size.
    Both sums over ``j`` share their terms between the ``s``, so every ``s`` costs O(1):
    one compensated running sum (Neumaier) from ``j = n`` down, its error a few ulps,
    not O(n) ulps. These screened times are within about 1e-14 of the exact ones, so
    every ``s`` whose screened time is within :data:`_SCREEN_MARGIN` of the smallest is
    evaluated exactly (:func:`scheme_time_moments`, the scan's own function) and the
    first smallest of those is returned: the exact optimum, with the scan's tie-break.
    Checked against the scan in tests/test_tradeoff_speed.py.
    """
    if is_worker_sequence(dist) or getattr(dist, "dist", None) is None:
        return None
    name = dist.dist.name
    if name not in ("expon", "pareto"):
        return None
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    c = 1.0 / float(shapes[0]) if name == "pareto" else 0.0
    # running sums over j = s+1..n: Pareto sum -log1p(-c/j) (log of the product), exponential
    # sum 1/j (H_n - H_s), for every s at once
    run = [math.inf] * (n + 1)  # inf where a term is infinite (Pareto j <= 1/xi)
    total, comp = 0.0, 0.0
    for j in range(n, 0, -1):
        if name == "pareto":
            if j <= c:
                break
            t = -math.log1p(-c / j)
        else:
            t = 1.0 / j
        y = total + t
        comp += (total - y) + t if abs(total) >= abs(t) else (t - y) + total
        total = y
        run[j - 1] = total + comp
    times: dict[int, float] = {}
    unsure: list[int] = []  # infinite or out of range here: the scan's own function decides
    for s in range(n):
        if scheme == "frc" and n % (s + 1):
            continue
        if scheme == "ye-abbe" and s + m > n:
            continue
        try:
            lay = scheme_layout(scheme, n, s, m)
        except ValueError:
            return None
        if lay.groups != 1 or lay.group_size != n or lay.wait != n - s:
            return None
        if name == "pareto" and (s + 1) * float(shapes[0]) <= 1:
            times[s] = math.inf  # the closed form's own test: the mean is infinite
            continue
        if not run[s] < 709.0:
            unsure.append(s)
            continue
        order = loc + scale * (math.exp(run[s]) if name == "pareto" else run[s])
        times[s] = lay.load * order + tau * lay.comm
    finite = [t for t in times.values() if math.isfinite(t)]
    if not finite and not unsure:
        return None  # every time infinite: the scan's tie-break over infinities
    best = min(finite, default=math.inf)
    keep = [s for s, t in times.items() if t <= best + _SCREEN_MARGIN * abs(best)]
    keep = sorted(keep + unsure)
    exact = {s: scheme_time_moments(scheme, dist, n, s, m, tau=tau).mean for s in keep}
    return min(exact, key=lambda k: exact[k])
