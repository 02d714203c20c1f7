"""What a trace says about its stragglers: quantiles, rates, persistence, shared slowness.

For every campaign and load of a :class:`Trace`, :func:`summarize` reports

* quantiles of the measured times;
* the straggler rate above a threshold (seconds, or a factor times the median),
  the share of rounds with at least one straggler beside what independent
  workers would give (``1 - (1 - rate)^W``), and the dispersion index of the
  straggler count per round (variance / mean: 1 for independent workers,
  larger when stragglers come together);
* persistence: of the slowest ``top`` fraction of workers in a round, the share
  still among the slowest in the next round, ``p``, against the ``b = top``
  expected by chance. Under the model of Xu et al. 2021, Section V-B (times
  frozen for ``h`` iterations, then redrawn), consecutive rounds share a block
  with probability ``(h-1)/h``, so ``p = b + (1 - b)(h - 1)/h`` and
  ``h = (1 - b) / (1 - p)``: ``h = 1`` is no persistence. A bootstrap over
  round pairs gives the interval. Also: how many stragglers (above the
  threshold) straggle again in the next round, and the mean rank correlation
  of consecutive rounds;
* correlation within a round: the intraclass correlation of log times with
  rounds as groups (one-way ANOVA estimator), the share of variance that is
  common to the workers of a round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from gctheory._validate import (
    as_generator,
    check_array,
    check_int,
    check_memory,
    check_probability,
    check_real,
)
from gctheory.delays.trace import Trace

__all__ = ["LoadSummary", "summarize", "persistence"]

DEFAULT_PROBS = (0.5, 0.9, 0.99, 0.999)


@dataclass(frozen=True)
class LoadSummary:
    """Summary of one campaign at one load (see the module docstring).

    Parameters
    ----------
    campaign : str
        The campaign.
    load : float
        The load.
    count, rounds, workers : int
        Rows, rounds and workers.
    mean, min, max : float
        Times (seconds).
    quantiles : dict
        Quantile level to time.
    threshold : float
        The straggler threshold used.
    straggler_rate : float
        Fraction of rows above it.
    stragglers, rounds_with_stragglers, iid_rounds_with_stragglers, dispersion : float
        Straggler counts per round, observed and as i.i.d. workers would give them.
    repeat_stragglers, repeat_opportunities, top : float
        Whether the same workers straggle again (``top``: the slow fraction).
    persistence, persistence_ci, h, h_ci, rank_corr, icc_log : float or tuple
        Persistence and dependence statistics with intervals (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import LoadSummary, concat_traces, make_trace
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> from gctheory.delays import summarize
    >>> s = summarize(trace, bootstrap=19, rng=0)[0]
    >>> s.load, s.count, s.rounds, s.workers, round(s.mean, 4)
    (1.0, 180, 30, 6, 0.1576)
    """

    campaign: str
    load: float
    count: int
    rounds: int
    workers: int
    mean: float
    min: float
    max: float
    quantiles: dict[float, float]
    threshold: float
    straggler_rate: float
    stragglers: int
    rounds_with_stragglers: float
    iid_rounds_with_stragglers: float
    dispersion: float
    repeat_stragglers: int
    repeat_opportunities: int
    top: float
    persistence: float
    persistence_ci: tuple[float, float]
    h: float
    h_ci: tuple[float, float]
    rank_corr: float
    icc_log: float

    def row(self) -> dict[str, Any]:
        """A flat dict for tables."""
        out: dict[str, Any] = {"campaign": self.campaign, "load": self.load, "count": self.count}
        out.update(rounds=self.rounds, workers=self.workers, mean=self.mean, min=self.min)
        out.update({f"q{p:g}": v for p, v in self.quantiles.items()})
        out.update(max=self.max, threshold=self.threshold, straggler_rate=self.straggler_rate)
        out.update(stragglers=self.stragglers, rounds_with=self.rounds_with_stragglers)
        out.update(rounds_with_iid=self.iid_rounds_with_stragglers, dispersion=self.dispersion)
        out.update(repeat=f"{self.repeat_stragglers}/{self.repeat_opportunities}")
        out.update(persist_p=self.persistence, chance=self.top, h=self.h)
        out.update(h_low=self.h_ci[0], h_high=self.h_ci[1], rank_corr=self.rank_corr)
        out.update(icc_log=self.icc_log)
        return out


def _slowest_sets(M: np.ndarray, k: int) -> np.ndarray:
    """Boolean (rounds, workers): the k slowest of each round (ties by worker index)."""
    order = np.argsort(-M, axis=1, kind="stable")[:, :k]
    S = np.zeros(M.shape, dtype=bool)
    np.put_along_axis(S, order, True, axis=1)
    return S


def persistence(
    M: np.ndarray, top: float = 0.1, *, bootstrap: int = 999, level: float = 0.95, rng: Any = None
) -> tuple[float, tuple[float, float], float, tuple[float, float]]:
    """``(p, p_interval, h, h_interval)`` of a (rounds, workers) matrix (module docstring).

    Parameters
    ----------
    M : numpy.ndarray, shape (rounds, workers)
        Times.
    top : float
        Fraction of slowest workers per round counted as slow.
    bootstrap : int
        Bootstrap samples for the intervals.
    level : float
        Confidence level.
    rng : None, int or numpy.random.Generator
        Seed.

    Returns
    -------
    tuple
        ``(p, p_interval, h, h_interval)``.

    Examples
    --------
    >>> from gctheory.delays import persistence
    >>> import numpy as np
    >>> M = np.random.default_rng(0).exponential(1.0, (20, 10))
    >>> p, p_ci, h, h_ci = persistence(M, bootstrap=99, rng=1)
    >>> round(p, 3), round(h, 3)
    (0.105, 1.006)
    """
    # NaN (a missing time) and inf (no time) are refused
    M = check_array(M, "M", ndim=2, bools=False)
    top = check_real(top, "top", low=0.0, high=1.0, low_open=True)
    level = check_probability(level, "level", open_low=True, open_high=True)
    B = check_int(bootstrap, "bootstrap", low=0, high=10**6)
    gen = as_generator(rng)
    R, W = M.shape
    check_memory(8 * B * R, "bootstrap", f"{B} bootstrap resamples of {R} rounds")
    k = max(1, int(round(top * W)))
    b = k / W
    if R < 2:
        return math.nan, (math.nan, math.nan), math.nan, (math.nan, math.nan)
    S = _slowest_sets(M, k)
    overlap = np.sum(S[:-1] & S[1:], axis=1)  # per consecutive pair
    p = float(overlap.sum() / (k * (R - 1)))
    if B and R > 2:
        idx = gen.integers(0, R - 1, size=(B, R - 1))
        pb = overlap[idx].sum(axis=1) / (k * (R - 1))
        a = (1 - level) / 2
        ci = (float(np.quantile(pb, a)), float(np.quantile(pb, 1 - a)))
    else:
        ci = (math.nan, math.nan)

    def h_of(x: float) -> float:
        return (1 - b) / (1 - x) if x < 1 else math.inf

    return p, ci, h_of(p), (h_of(ci[0]), h_of(ci[1]))


def _icc(logM: np.ndarray) -> float:
    R, W = logM.shape
    if R < 2 or W < 2:
        return math.nan
    rm = logM.mean(axis=1)
    msb = W * float(np.sum((rm - logM.mean()) ** 2)) / (R - 1)
    msw = float(np.sum((logM - rm[:, None]) ** 2)) / (R * (W - 1))
    return (msb - msw) / (msb + (W - 1) * msw)


def summarize(
    trace: Trace,
    *,
    probs: Any = DEFAULT_PROBS,
    threshold: float | None = None,
    factor: float = 3.0,
    top: float = 0.1,
    bootstrap: int = 999,
    level: float = 0.95,
    rng: Any = None,
) -> list[LoadSummary]:
    """One :class:`LoadSummary` per campaign and load of ``trace``.

    Parameters
    ----------
    trace : Trace
        Measured times (every campaign and load is summarised).
    probs : sequence of float
        Quantile levels reported.
    threshold : float, optional
        A straggler takes longer than this many seconds; default ``factor``
        times the median at that load.
    factor : float
        See ``threshold``.
    top : float in (0, 1)
        Persistence is measured on the slowest ``top`` fraction of each round.
    bootstrap, level, rng :
        Bootstrap over consecutive round pairs for the persistence interval.

    Returns
    -------
    list of LoadSummary
        One per campaign and load.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import concat_traces, make_trace, summarize
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> for s in summarize(trace, bootstrap=19, rng=0):
    ...     print(s.load, round(s.mean, 4), round(s.quantiles[0.9], 4))
    1.0 0.1576 0.2371
    2.0 0.3062 0.4222
    """
    if not isinstance(trace, Trace):
        raise ValueError(f"trace must be a Trace (see read_trace), got {type(trace).__name__}")
    ps = [check_probability(p, "probs", open_low=True, open_high=True) for p in probs]
    if threshold is not None:
        threshold = check_real(threshold, "threshold", low=0.0, low_open=True)
    factor = check_real(factor, "factor", low=0.0, low_open=True)
    top = check_probability(top, "top", open_low=True, open_high=True)
    level = check_probability(level, "level", open_low=True, open_high=True)
    gen = as_generator(rng)
    out = []
    camp_ids = trace.campaign_ids()
    camps = trace.campaigns()
    for c, camp in enumerate(camps):
        sub = trace if len(camps) == 1 else trace._subset(camp_ids == c)
        label = ", ".join(f"{k}={v}" for k, v in camp.items())
        for ld in sub.loads:
            x = sub.times(ld)
            thr = threshold if threshold is not None else factor * float(np.median(x))
            rate = float((x > thr).mean())
            try:
                M = sub.rounds(ld)
            except ValueError:
                M = None
            rounds = _round_statistics(M, thr, rate, top, bootstrap, level, gen)
            out.append(
                LoadSummary(
                    campaign=label,
                    load=float(ld),
                    count=int(x.size),
                    mean=float(x.mean()),
                    min=float(x.min()),
                    max=float(x.max()),
                    quantiles={p_: float(q) for p_, q in zip(ps, np.quantile(x, ps))},
                    threshold=float(thr),
                    straggler_rate=rate,
                    stragglers=int((x > thr).sum()),
                    **rounds,
                )
            )
    return out


def _round_statistics(
    M: np.ndarray | None,
    thr: float,
    rate: float,
    top: float,
    bootstrap: int,
    level: float,
    gen: np.random.Generator,
) -> dict[str, Any]:
    """The :class:`LoadSummary` fields read from the (rounds, workers) matrix ``M``:
    stragglers per round against independent workers, persistence, rank correlation of
    consecutive rounds and the intraclass correlation (NaN without rounds)."""
    if M is None:
        nan2 = (math.nan, math.nan)
        return dict(rounds=0, workers=0, rounds_with_stragglers=math.nan,
                    iid_rounds_with_stragglers=math.nan, dispersion=math.nan,
                    repeat_stragglers=0, repeat_opportunities=0, top=top,
                    persistence=math.nan, persistence_ci=nan2, h=math.nan, h_ci=nan2,
                    rank_corr=math.nan, icc_log=math.nan)  # fmt: skip
    R, W = M.shape
    counts = np.sum(M > thr, axis=1)
    disp = float(counts.var(ddof=1) / counts.mean()) if counts.sum() and R > 1 else 0.0
    Sg = M > thr
    p, pci, h, hci = persistence(M, top, bootstrap=bootstrap, level=level, rng=gen)
    rho = (
        float(np.mean([stats.spearmanr(M[i], M[i + 1])[0] for i in range(R - 1)]))
        if R > 1
        else math.nan
    )
    return dict(
        rounds=R,
        workers=W,
        rounds_with_stragglers=float(np.mean(counts > 0)),
        iid_rounds_with_stragglers=float(1 - (1 - rate) ** W),
        dispersion=disp,
        repeat_stragglers=int(np.sum(Sg[:-1] & Sg[1:])),
        repeat_opportunities=int(np.sum(Sg[:-1])),
        top=float(max(1, int(round(top * W))) / W) if W else top,
        persistence=p,
        persistence_ci=pci,
        h=h,
        h_ci=hci,
        rank_corr=rho,
        icc_log=_icc(np.log(np.maximum(M, 1e-300))),
    )
