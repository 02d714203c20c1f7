"""The communication axis of the atlas: which code is fastest as the bandwidth changes.

Cyclic-MDS (``m = 1``, load ``(s + 1)/n``, messages of ``d`` numbers) against an
``m``-fold communication-efficient code: Ye-Abbe [1]_ (load ``(s + m)/n``, messages of
``d / m`` numbers, eq. (1) of [2]_ with equality) or CommFR-GC [2]_ on an MDS
``[s + m, m, s + 1]`` code (load ``(s + m)/n`` too, ``(s + m) | n``). The m-fold code
computes more and sends less, so it wins below a crossover bandwidth and loses above
it. Times come from :func:`gctheory.runtime.link_iteration_time`; the crossover is the
root of the predicted time difference (Brent's method on the log bandwidth), with an
interval when the times are Monte Carlo estimates (the bandwidths where the difference's
interval holds zero, draws shared between codes and bandwidths).

References
----------
.. [1] M. Ye, E. Abbe, "Communication-computation efficient gradient coding", ICML 2018.
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient gradient
   coding for straggler mitigation in distributed learning", 2019.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize

from gctheory._validate import check_choice, check_int, check_real
from gctheory.montecarlo import estimate_mean
from gctheory.montecarlo.engine import seed_sequence
from gctheory.montecarlo.estimates import check_level
from gctheory.order_stats._common import MAX_WORKERS
from gctheory.runtime.link import Link, _compute_law, _sample_times, link_iteration_time
from gctheory.runtime.schemes import scheme_layout

__all__ = [
    "COMM_FAMILIES",
    "CommunicationAtlas",
    "Crossover",
    "communication_atlas",
    "communication_crossover",
]

COMM_FAMILIES = ("ye-abbe", "commfr-gc")


@dataclass(frozen=True)
class Crossover:
    """The bandwidth (bytes per second) below which the m-fold code is faster.

    ``bandwidth`` is None when the predicted times do not cross inside ``bracket``;
    ``winner_below``/``winner_above`` then say who wins there (``"m-fold"`` or
    ``"cyclic-mds"``). ``low``/``high`` bound the crossover (equal to it when exact).
    """

    m: int
    bandwidth: float | None
    low: float | None
    high: float | None
    method: str
    bracket: tuple[float, float]
    winner_below: str
    winner_above: str


@dataclass(frozen=True)
class CommunicationAtlas:
    """Predicted iteration time per code and bandwidth, the best code and the crossovers.

    ``times[m]``, ``low[m]``, ``high[m]`` are lists over ``bandwidths`` (bytes per
    second); ``m = 1`` is cyclic-MDS; ``best`` the ``m`` with the smallest mean per
    bandwidth; ``crossovers[m]`` the crossover of code ``m`` against ``m = 1``.
    """

    bandwidths: tuple[float, ...]
    ms: tuple[int, ...]
    times: dict[int, list[float]]
    low: dict[int, list[float]]
    high: dict[int, list[float]]
    best: tuple[int, ...]
    crossovers: dict[int, Crossover]
    parameters: dict[str, Any]


def _code(family: str, n: int, s: int, m: int) -> tuple[str, int, tuple[int, int, int] | None]:
    if m == 1:
        return "cyclic-mds", 1, None
    if family == "ye-abbe":
        return "ye-abbe", m, None
    return "commfr-gc", 1, (s + m, m, s + 1)


def _check(
    family: str, n: Any, s: Any, ms: Any, d: Any, link: Any, dist: Any
) -> tuple[int, int, tuple[int, ...], int]:
    check_choice(family, "family", COMM_FAMILIES)
    if not isinstance(link, Link):
        raise ValueError(f"link must be a gctheory.runtime.Link, got {link!r}")
    _compute_law(dist)
    n, d = check_int(n, "n", low=2, high=MAX_WORKERS), check_int(d, "d", low=1)
    s = check_int(s, "s", low=0, high=n - 1)
    try:
        given = tuple(ms)
    except TypeError:
        raise ValueError(f"ms must be a sequence of integers >= 1, got {ms!r}") from None
    ms = tuple(sorted({check_int(m, "m", low=1, high=n - s) for m in given}))
    if family == "commfr-gc":
        bad = [m for m in ms if m > 1 and n % (s + m)]
        if bad:
            raise ValueError(
                f"m = {bad} need (s + m) | n for commfr-gc (groups of s + m workers), "
                f"got n = {n}, s = {s}; choose m with (s + m) dividing n or family='ye-abbe'"
            )
    return n, s, ms, d


def _common(bytes_per_number: Any, trials: Any, rng: Any, level: Any) -> dict[str, Any]:
    """The checked shared arguments; ``seed`` an int drawn once from ``rng``, so every
    Monte Carlo evaluation (every bandwidth, both codes) uses the same draws."""
    width = check_int(bytes_per_number, "bytes_per_number", low=1)
    trials, level = check_int(trials, "trials", low=2), check_level(level)
    seed = int(seed_sequence(rng).generate_state(1)[0])
    return {"width": width, "trials": trials, "seed": seed, "level": level}


def _at(link: Link, bandwidth: float) -> Link:
    return dataclasses.replace(link, up=float(bandwidth))


def _exact_diff(args: dict, m: int, bandwidth: float) -> float:
    t = [
        link_iteration_time(
            sch,
            args["dist"],
            args["n"],
            args["s"],
            mm,
            code=code,
            link=_at(args["link"], bandwidth),
            d=args["d"],
            bytes_per_number=args["width"],
            decode_s=0.0,
        ).mean
        for sch, mm, code in (
            _code(args["family"], args["n"], args["s"], m),
            _code(args["family"], args["n"], args["s"], 1),
        )
    ]
    return t[0] - t[1]


def _mc_diff(args: dict, m: int, bandwidth: float) -> Any:
    """Estimate of T_m - T_1 at ``bandwidth``, both codes on the same draws."""
    n, s, link = args["n"], args["s"], _at(args["link"], bandwidth)
    lays, shifts = [], []
    for sch, mm, code in (_code(args["family"], n, s, m), _code(args["family"], n, s, 1)):
        t = link_iteration_time(
            sch, 1.0, n, s, mm, code=code, link=link, d=args["d"], bytes_per_number=args["width"]
        )
        lays.append(scheme_layout(sch, n, s, mm, code=code))
        shifts.append((t.up_s, t.down_s))
    law = args["dist"]

    def sampler(g: np.random.Generator, size: int) -> np.ndarray:
        X = law.rvs(size=(size, n), random_state=g)
        a = _sample_times(X, lays[0], link, *shifts[0])
        return a - _sample_times(X, lays[1], link, *shifts[1])

    return estimate_mean(
        sampler, args["trials"], rng=args["seed"], level=args["level"], progress=False
    )


def _bracket(bracket: Any) -> tuple[float, float]:
    try:
        lo, hi = bracket
    except (TypeError, ValueError):
        raise ValueError(f"bracket must be a pair (lo, hi) of rates, got {bracket!r}") from None
    lo = check_real(lo, "bracket", low=0.0, low_open=True)
    hi = check_real(hi, "bracket", low=0.0, low_open=True)
    if not lo < hi:
        raise ValueError(f"bracket must be (lo, hi) with lo < hi, got {bracket!r}")
    return lo, hi


def _root(f: Any, lo: float, hi: float) -> float | None:
    a, b = f(lo), f(hi)
    if a == 0:
        return lo
    if not (a < 0 < b or b < 0 < a):
        return None
    x = optimize.brentq(lambda u: f(math.exp(u)), math.log(lo), math.log(hi), xtol=1e-12)
    return math.exp(x)


def communication_crossover(
    dist: Any,
    n: int,
    s: int,
    m: int,
    *,
    link: Link,
    d: int,
    bracket: tuple[float, float],
    family: str = "ye-abbe",
    bytes_per_number: int = 8,
    trials: int = 4_000,
    rng: Any = 0,
    level: float = 0.99,
    method: str = "auto",
) -> Crossover:
    """The uplink bandwidth where the m-fold code and cyclic-MDS take the same
    predicted time (:func:`gctheory.runtime.link_iteration_time`): the root of
    ``T_m(B) - T_1(B)`` in ``bracket`` (bytes per second), ``link`` with ``up = B``.

    Exact where the times are (per-worker link, or a constant compute time); with a
    shared link and a random law, the difference is a Monte Carlo estimate on draws
    shared between the codes and the bandwidths, and ``low``/``high`` are the bandwidths
    where its interval's ends cross zero.

    Parameters
    ----------
    dist : frozen scipy.stats law or real
        Time for one worker to process the whole dataset.
    n, s, m : int
        Workers, stragglers, communication saving (``m >= 2``).
    link : Link
        The network; its ``up`` is replaced by each bandwidth tried.
    d : int
        Gradient length (numbers).
    bracket : (float, float)
        Bandwidths searched, ``0 < lo < hi``.
    family : {"ye-abbe", "commfr-gc"}
        The m-fold code.
    bytes_per_number, trials, rng, level
        As in :func:`gctheory.runtime.link_iteration_time`.
    method : {"auto", "monte-carlo"}
        ``monte-carlo`` estimates even where the exact route exists (its check).

    Returns
    -------
    Crossover
        The crossover bandwidth and who wins on each side.

    Examples
    --------
    >>> from gctheory.runtime import Link
    >>> from gctheory.tradeoff.communication import communication_crossover
    >>> c = communication_crossover(1.0, 12, 2, 2, link=Link(up=1.0, down=float("inf")),
    ...                             d=1000, bracket=(1e3, 1e7))
    >>> round(c.bandwidth), c.winner_below  # 8 * 1000 bytes * n / (m * 1 s)
    (48000, 'm-fold')
    """
    n, s, ms, d = _check(family, n, s, (m,), d, link, dist)
    (m,) = ms
    if m < 2:
        raise ValueError(f"m must be >= 2 (m = 1 is cyclic-MDS itself), got {m}")
    lo, hi = _bracket(bracket)
    check_choice(method, "method", ("auto", "monte-carlo"))
    law, _ = _compute_law(dist)
    args = {"dist": dist, "n": n, "s": s, "d": d, "link": link, "family": family}
    args.update(_common(bytes_per_number, trials, rng, level))
    if law is None or (not link.shared and method == "auto"):
        f = lambda b: _exact_diff(args, m, b)  # noqa: E731
        x = _root(f, lo, hi)
        win = ("m-fold" if f(lo) < 0 else "cyclic-mds", "m-fold" if f(hi) < 0 else "cyclic-mds")
        return Crossover(m, x, x, x, "exact", (lo, hi), *win)
    cache: dict[float, Any] = {}

    def est(b: float) -> Any:
        if b not in cache:
            cache[b] = _mc_diff(args, m, b)
        return cache[b]

    x = _root(lambda b: est(b).value, lo, hi)
    a = _root(lambda b: est(b).high, lo, hi)  # the interval's upper end crosses first
    z = _root(lambda b: est(b).low, lo, hi)
    below, above = ("m-fold" if est(b).value < 0 else "cyclic-mds" for b in (lo, hi))
    return Crossover(m, x, a, z, "monte-carlo", (lo, hi), below, above)


def _grid(bandwidths: Any) -> np.ndarray:
    try:
        grid = np.asarray(bandwidths, dtype=float)
    except (TypeError, ValueError):
        grid = np.empty(0)
    ok = grid.ndim == 1 and grid.size >= 2 and bool(np.all(np.isfinite(grid)))
    if not (ok and np.all(grid > 0) and np.all(np.diff(grid) > 0)):
        raise ValueError(
            f"bandwidths must be >= 2 increasing finite positive rates, got {bandwidths!r}"
        )
    return grid


def communication_atlas(
    dist: Any,
    n: int,
    s: int,
    *,
    d: int,
    link: Link,
    bandwidths: Any,
    ms: Any = (1, 2, 4),
    family: str = "ye-abbe",
    bytes_per_number: int = 8,
    trials: int = 4_000,
    rng: Any = 0,
    level: float = 0.99,
) -> CommunicationAtlas:
    """Predicted iteration time of cyclic-MDS and the m-fold codes over a grid of uplink
    bandwidths, the best code at each, and each code's crossover against cyclic-MDS.

    Parameters
    ----------
    dist : frozen scipy.stats law or real
        Time for one worker to process the whole dataset.
    n, s : int
        Workers and stragglers tolerated.
    d : int
        Gradient length (numbers).
    link : Link
        The network; its ``up`` is replaced by each bandwidth (``down=None`` follows it).
    bandwidths : sequence of float
        Uplink bandwidths, bytes per second (at least 2, increasing).
    ms : sequence of int
        Communication savings compared (1 = cyclic-MDS, always included).
    family : {"ye-abbe", "commfr-gc"}
        The m-fold codes.
    bytes_per_number, trials, rng, level
        As in :func:`gctheory.runtime.link_iteration_time`.

    Returns
    -------
    CommunicationAtlas
        Times, best code per bandwidth and crossovers.

    Examples
    --------
    >>> from scipy import stats
    >>> from gctheory.runtime import BYTES_PER_MBIT, Link
    >>> from gctheory.tradeoff.communication import communication_atlas
    >>> B = [b * BYTES_PER_MBIT for b in (10, 100, 1000, 10000)]
    >>> a = communication_atlas(stats.expon(loc=1, scale=0.5), 12, 2, d=10**5,
    ...                         link=Link(up=1.0), bandwidths=B)
    >>> a.best, round(a.crossovers[2].bandwidth / BYTES_PER_MBIT, 2)  # Mbit/s
    ((2, 1, 1, 1), 21.31)
    """
    try:
        wanted = (*ms, 1)
    except TypeError:
        raise ValueError(f"ms must be a sequence of integers >= 1, got {ms!r}") from None
    n, s, ms, d = _check(family, n, s, wanted, d, link, dist)
    grid = _grid(bandwidths)
    common = _common(bytes_per_number, trials, rng, level)
    kw = {"d": d, "bytes_per_number": common["width"], "trials": common["trials"],
          "rng": common["seed"], "level": common["level"]}  # fmt: skip
    times: dict[int, list[float]] = {m: [] for m in ms}
    low: dict[int, list[float]] = {m: [] for m in ms}
    high: dict[int, list[float]] = {m: [] for m in ms}
    for b in grid:
        for m in ms:
            sch, mm, code = _code(family, n, s, m)
            t = link_iteration_time(sch, dist, n, s, mm, code=code, link=_at(link, b), **kw)
            times[m].append(t.mean)
            low[m].append(t.low)
            high[m].append(t.high)
    best = tuple(min(ms, key=lambda m: times[m][i]) for i in range(grid.size))
    bracket = (float(grid[0]), float(grid[-1]))
    cross = {
        m: communication_crossover(dist, n, s, m, link=link, family=family, bracket=bracket, **kw)
        for m in ms
        if m > 1
    }
    params = {"n": n, "s": s, "d": d, "family": family, "latency": link.latency,
              "shared": link.shared, "down": link.down,
              "bytes_per_number": common["width"]}  # fmt: skip
    return CommunicationAtlas(tuple(grid.tolist()), ms, times, low, high, best, cross, params)
