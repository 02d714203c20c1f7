"""Iteration time with communication: a link model between the master and its workers.

A worker of a gradient-coding scheme receives the parameters (``d`` numbers down),
computes on its share of the data, and sends one message up: ``d`` numbers for
cyclic-MDS, ``ceil(d / m)`` for an ``m``-fold communication-efficient code (Ye and
Abbe [1]_, whose load is then ``(s + m) / n``, eq. (1) of [2]_), ``ceil(d / K)`` for
CommFR-GC built on an ``[N, K, delta]`` code (Theorem 1 of [2]_). The master decodes
once the messages it waits for (:func:`gctheory.runtime.scheme_layout`) have arrived.

Two links (:class:`Link`, bandwidths in **bytes per second**, latency in seconds):

* per worker (``shared=False``): every worker has its own link; the transfer time
  ``latency + bytes / bandwidth`` is the same constant for every worker, a shift of the
  compute time, so the iteration time is the order statistic of the compute times plus
  that shift: exact (:mod:`gctheory.order_stats`) for every law.
* shared (``shared=True``): the master's network card is the bottleneck every message
  crosses, one at a time. The master sends the ``n`` copies of the parameters back to
  back (copy ``q`` leaves at ``q * down_bytes / down``, round-robin over the layout's
  groups), and messages queue at its card in arrival order: the ``k``-th to arrive
  finishes at ``max_{j <= k} (a_(j) + (k - j + 1) up_bytes / up)``. A deterministic
  function of the order statistics, computed by Monte Carlo (with its interval) for a
  random law and exactly for a constant compute time.

References
----------
.. [1] M. Ye, E. Abbe, "Communication-computation efficient gradient coding", ICML 2018.
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient gradient
   coding for straggler mitigation in distributed learning", 2019.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_int, check_real
from gctheory.montecarlo import estimate_mean
from gctheory.montecarlo.engine import seed_sequence
from gctheory.montecarlo.estimates import check_level
from gctheory.order_stats._common import _check_dist
from gctheory.order_stats.grouped import grouped_completion_moments
from gctheory.order_stats.sampling import _check_mc_memory
from gctheory.runtime._common import _int
from gctheory.runtime.schemes import SchemeLayout, _scaled, scheme_layout

__all__ = [
    "BYTES_PER_MBIT",
    "Link",
    "LinkTime",
    "message_numbers",
    "link_iteration_time",
]

#: bytes per second in one megabit per second
BYTES_PER_MBIT = 125_000.0

_METHODS = ("auto", "exact", "monte-carlo")


@dataclass(frozen=True)
class Link:
    """The network between the master and its workers.

    Parameters
    ----------
    up : float
        Bandwidth from a worker to the master, bytes per second (``> 0``; ``inf``: free).
        With ``shared=True``, the master's network card's receive rate.
    down : float, optional
        Bandwidth from the master to a worker, bytes per second; default ``up``
        (``inf``: the parameters cost nothing to send).
    latency : float
        One-way latency in seconds (``>= 0``), paid once down and once up.
    shared : bool
        The master's card is the bottleneck all ``n`` messages cross, one at a time.

    Examples
    --------
    >>> from gctheory.runtime import BYTES_PER_MBIT, Link
    >>> Link(up=100 * BYTES_PER_MBIT, latency=0.005)
    Link(up=12500000.0, down=None, latency=0.005, shared=False)
    """

    up: float
    down: float | None = None
    latency: float = 0.0
    shared: bool = False

    def __post_init__(self) -> None:
        check_real(self.up, "up", low=0.0, low_open=True, finite=False)
        if self.down is not None:
            check_real(self.down, "down", low=0.0, low_open=True, finite=False)
        check_real(self.latency, "latency", low=0.0)
        if not isinstance(self.shared, (bool, np.bool_)):
            raise ValueError(f"shared must be True or False, got {self.shared!r}")

    @property
    def down_rate(self) -> float:
        """The downlink bandwidth in bytes per second (``up`` when not given)."""
        return float(self.up if self.down is None else self.down)


@dataclass(frozen=True)
class LinkTime:
    """Predicted mean iteration time with communication, and its parts.

    ``low``/``high`` bound the mean (equal to it when ``method == "exact"``); ``up_s``
    and ``down_s`` are one message's and one parameter copy's time on the wire
    (``bytes / bandwidth``, latency not included); ``trials`` is None when exact.
    """

    mean: float
    low: float
    high: float
    method: str
    up_bytes: int
    down_bytes: int
    up_s: float
    down_s: float
    latency: float
    decode_s: float
    trials: int | None = None

    def contains(self, x: float) -> bool:
        """Whether ``x`` lies in ``[low, high]``."""
        return self.low <= x <= self.high


def message_numbers(
    scheme: str, d: int, n: int, s: int = 0, m: int = 1, *, code: Any = None
) -> int:
    """Numbers in one worker's message: ``ceil(d / m)`` for Ye-Abbe (section I of Kadhe
    et al. 2019, after Ye and Abbe 2018), ``ceil(d / K)`` for CommFR-GC (Theorem 1 of Kadhe
    et al. 2019), ``d`` otherwise.

    Parameters
    ----------
    scheme : str
        A scheme of :func:`gctheory.runtime.scheme_layout`.
    d : int
        Gradient length (numbers).
    n, s, m : int
        Workers, stragglers, communication saving.
    code : tuple of int, optional
        ``(N, K, delta)`` for ``commfr-gc``.

    Returns
    -------
    int
        The message length.

    Examples
    --------
    >>> from gctheory.runtime import message_numbers
    >>> message_numbers("ye-abbe", 1001, 12, s=2, m=2), message_numbers("cyclic-mds", 1001, 12)
    (501, 1001)
    """
    d = check_int(d, "d", low=1)
    lay = scheme_layout(scheme, n, s, m, code=code)
    return _numbers(lay, d)


def _numbers(lay: SchemeLayout, d: int) -> int:
    saving = round(1.0 / lay.comm)  # m or K, an integer
    return -(-d // saving)


def _compute_law(dist: Any) -> tuple[Any, float | None]:
    """(the frozen law, None) or (None, the constant time) of ``dist``."""
    const = getattr(dist, "c", None) if getattr(dist, "dist", None) is None else None
    if isinstance(dist, numbers.Real) and not isinstance(dist, bool):
        const = dist
    if const is not None:
        return None, check_real(const, "dist (a constant compute time)", low=0.0)
    _check_dist(dist)
    return dist, None


def _shared_finish(arrive: np.ndarray, up_s: float, position: np.ndarray | int) -> np.ndarray:
    """Time the message at ``position`` (0-based, in arrival order) leaves the master's
    card, when messages arriving at ``arrive`` (sorted along the last axis) queue there
    and each takes ``up_s``: ``max_{j <= k} (a_j - j up_s) + (k + 1) up_s``."""
    k = np.arange(arrive.shape[-1])
    start = np.maximum.accumulate(arrive - k * up_s, axis=-1)
    finish = start + (k + 1) * up_s
    idx = np.broadcast_to(np.asarray(position), arrive.shape[:-1])[..., None]
    return np.take_along_axis(finish, idx, axis=-1)[..., 0]


def _sample_times(
    X: np.ndarray, lay: SchemeLayout, link: Link, up_s: float, down_s: float
) -> np.ndarray:
    """Iteration times (before decoding) of ``X`` (trials x n compute times of the whole
    dataset, one column per send slot): the order statistic of compute + transfer."""
    lat, n = link.latency, X.shape[-1]
    work = lay.load * X
    if not link.shared:
        done = work + (2 * lat + down_s + up_s)
        # the decoding moment: every group has its `wait` fastest (slots q % groups)
        g = done.reshape(*done.shape[:-1], n // lay.groups, lay.groups)
        kth = np.partition(g, lay.wait - 1, axis=-2)[..., lay.wait - 1, :]
        return kth.max(axis=-1)
    arrive = 2 * lat + (np.arange(1, n + 1) * down_s) + work
    g = arrive.reshape(*arrive.shape[:-1], n // lay.groups, lay.groups)
    last_needed = np.partition(g, lay.wait - 1, axis=-2)[..., lay.wait - 1, :].max(axis=-1)
    ordered = np.sort(arrive, axis=-1)
    position = (ordered <= last_needed[..., None]).sum(axis=-1) - 1
    return _shared_finish(ordered, up_s, position)


def _constant_shared(c: float, lay: SchemeLayout, link: Link, up_s: float, down_s: float):
    n = lay.groups * lay.group_size
    arrive = 2 * link.latency + np.arange(1, n + 1) * down_s + lay.load * c
    # round-robin sends: the first groups * wait arrivals hold `wait` of every group (ties
    # at down_s = 0 are served in that same order)
    return float(_shared_finish(arrive, up_s, lay.groups * lay.wait - 1))


def link_iteration_time(
    scheme: str,
    dist: Any,
    n: int,
    s: int = 0,
    m: int = 1,
    *,
    link: Link,
    d: int,
    bytes_per_number: int = 8,
    decode_s: float = 0.0,
    code: tuple[int, int, int] | None = None,
    method: str = "auto",
    trials: int = 20_000,
    rng: Any = None,
    level: float = 0.99,
) -> LinkTime:
    """Expected iteration time of a scheme over a :class:`Link`: the order statistic of
    (compute + transfer) per worker, plus the master's decoding time.

    A worker holding a share ``load`` of the data computes for ``load * X``,
    ``X ~ dist`` i.i.d. (as :func:`gctheory.runtime.scheme_expected_time`), after
    receiving ``d`` numbers and before sending its message (:func:`message_numbers`:
    ``d / m`` numbers at load ``(s + m) / n`` for Ye-Abbe (Ye and Abbe 2018), eq. (1) and
    Section I of Kadhe et al. 2019; ``d / K`` at load ``N / n`` for CommFR-GC, Theorem 1 of
    Kadhe et al. 2019). A per-worker link shifts every worker's time by
    ``2 latency + down_bytes / down + up_bytes / up``: exact for every law. A shared link
    queues the messages at the master's card (module docstring): exact for a constant
    compute time, else Monte Carlo
    (:func:`gctheory.montecarlo.estimate_mean`) with its interval at ``level``.

    Parameters
    ----------
    scheme : str
        ``uncoded``, ``ignore-s``, ``cyclic-mds``, ``frc``, ``ye-abbe`` or ``commfr-gc``.
    dist : frozen scipy.stats law, real or constant(c)
        Time for one worker to process the whole dataset (a real: constant).
    n, s, m : int
        Workers, stragglers tolerated, communication saving.
    link : Link
        The network (bytes per second, seconds).
    d : int
        Gradient length in numbers (the parameters sent down have the same length).
    bytes_per_number : int
        Bytes per number on the wire (8: float64).
    decode_s : float
        The master's receive-and-decode time per iteration, seconds.
    code : tuple of int, optional
        ``(N, K, delta)`` for ``commfr-gc``.
    method : {"auto", "exact", "monte-carlo"}
        ``auto``: exact where the model allows it; ``monte-carlo`` samples even then
        (the check of the exact route); ``exact`` refuses a shared link with a random law.
    trials, rng, level
        Monte Carlo draws, seed, confidence level.

    Returns
    -------
    LinkTime
        Mean, interval, method and the parts.

    Examples
    --------
    >>> from scipy import stats
    >>> from gctheory.runtime import BYTES_PER_MBIT, Link, link_iteration_time
    >>> X = stats.expon(loc=1.0, scale=0.5)
    >>> net = Link(up=100 * BYTES_PER_MBIT, latency=0.001)
    >>> t1 = link_iteration_time("cyclic-mds", X, 12, 2, link=net, d=10**6)
    >>> t2 = link_iteration_time("ye-abbe", X, 12, 2, 2, link=net, d=10**6)
    >>> round(t1.mean, 4), round(t2.mean, 4), t1.method
    (1.7324, 1.5625, 'exact')
    """
    if not isinstance(link, Link):
        raise ValueError(f"link must be a gctheory.runtime.Link, got {link!r}")
    method = check_choice(method, "method", _METHODS)
    law, const = _compute_law(dist)
    lay = scheme_layout(scheme, _int("n", n), s, m, code=code)
    d = check_int(d, "d", low=1)
    width = check_int(bytes_per_number, "bytes_per_number", low=1)
    decode_s = check_real(decode_s, "decode_s", low=0.0)
    trials, level = check_int(trials, "trials", low=2), check_level(level)
    seed = seed_sequence(rng)
    if method == "exact" and link.shared and law is not None:
        raise ValueError(
            "method='exact' needs a per-worker link or a constant compute time: a shared "
            "link with a random law is computed by Monte Carlo (method='auto')"
        )
    up_bytes, down_bytes = _numbers(lay, d) * width, d * width
    up_s, down_s = up_bytes / link.up, down_bytes / link.down_rate
    parts = (up_bytes, down_bytes, up_s, down_s, link.latency, decode_s)
    if law is None:  # constant compute: deterministic
        if link.shared:
            t = _constant_shared(const, lay, link, up_s, down_s) + decode_s  # type: ignore[arg-type]
        else:
            t = lay.load * const + 2 * link.latency + down_s + up_s + decode_s  # type: ignore[operator]
        return LinkTime(t, t, t, "exact", *parts)
    if method != "monte-carlo" and not link.shared:
        mom = grouped_completion_moments(
            _scaled(law, lay.load), lay.groups, lay.group_size, lay.wait
        )
        t = mom.mean + 2 * link.latency + down_s + up_s + decode_s
        return LinkTime(t, t, t, "exact", *parts)
    _check_mc_memory(lay.groups * lay.group_size, "n")
    est = estimate_mean(
        lambda g, size: _sample_times(
            law.rvs(size=(size, lay.groups * lay.group_size), random_state=g),
            lay,
            link,
            up_s,
            down_s,
        ),
        trials,
        rng=seed,
        level=level,
        progress=False,
    )
    c = decode_s
    return LinkTime(
        est.value + c, est.low + c, est.high + c, "monte-carlo", *parts, trials=est.trials
    )
