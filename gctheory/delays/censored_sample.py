"""A run trace as right-censored data: its rows, its load unit and the Kaplan-Meier estimate.

``gctheory run`` waits for the fastest ``n - s`` workers of each iteration and cancels the
rest: a cancelled worker's row has status ``never`` and carries how long it was observed,
a lower bound of its time (right-censored). This module reads such a trace
(:func:`censored_sample`: the times per unit load with their censoring, through
:func:`run_unit_loads`, the one place that reads a run trace's loads) and gives the
empirical side of a censored fit, the Kaplan-Meier estimate (:func:`kaplan_meier`) and
its distance to a fitted law (:func:`km_distance`). The fits themselves are in
:mod:`gctheory.delays.censored`, which re-exports every name here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

__all__ = [
    "CENSORED",
    "LOAD_UNIT",
    "LOAD_UNITS",
    "OBSERVED",
    "CensoredSample",
    "as_data_shares",
    "censored_sample",
    "is_run_trace",
    "kaplan_meier",
    "km_distance",
    "product_limit",
    "run_unit_loads",
]


#: the unit of a run trace's ``load`` column (its ``load_unit`` column): the worker's unit
#: load ``l_i`` (partitions held x ``n`` / ``k``), the factor of the injected sleep ``l_i X``
LOAD_UNIT = "unit"
#: the units a run trace's ``load_unit`` (column or sidecar key) may name: ``unit`` (as
#: written now) and ``share`` (the data share, partitions held / ``k``, written before)
LOAD_UNITS = ("unit", "share")

#: statuses of a run trace whose time is complete / right-censored (the rest are dropped)
OBSERVED = ("used", "unused", "late")
CENSORED = ("never",)


@dataclasses.dataclass(frozen=True)
class CensoredSample:
    """Times per unit load with a right-censoring flag.

    ``times[i]`` is the completed time when ``censored[i]`` is False, else the time it
    is known to exceed. ``unit`` is each row's unit load (the divisor of its real time),
    ``rounds`` and ``workers`` its round and worker (-1 when unknown): the bootstrap
    censors each round again as the run did.
    """

    times: np.ndarray
    censored: np.ndarray
    unit: np.ndarray
    rounds: np.ndarray
    workers: np.ndarray

    @property
    def observed(self) -> np.ndarray:
        return self.times[~self.censored]

    def subset(self, mask: np.ndarray) -> CensoredSample:
        return CensoredSample(*(np.asarray(a)[mask] for a in dataclasses.astuple(self)))


def is_run_trace(tr: Any) -> bool:
    """Whether ``tr`` is a trace of :func:`gctheory.cluster.run` (it has a ``status`` column)."""
    return "status" in getattr(tr, "columns", {})


def run_unit_loads(tr: Any) -> np.ndarray:
    """Each row's unit load ``l_i``: the factor of the injected sleep ``l_i X_i``.

    A run trace's ``load`` column is ``l_i`` = (partitions held) x ``n`` / ``k``, as its
    ``load_unit`` column (``unit``) says; it is read as is. Traces written before the unit
    was stated carry the data share, (partitions held) / ``k``, and no ``load_unit``
    column: when their sidecar (``RUN.csv.json``) exists and names no other unit, the
    share is converted (x ``n``, the sidecar's number of workers). Anything else is
    refused by name. Every fit of a run trace reads its loads through this function.
    """
    load = np.asarray(tr.load, float)
    col = tr.columns.get("load_unit")
    if col is not None:
        units = sorted(set(np.asarray(col).astype(str).tolist()))
        if len(units) != 1 or units[0] not in LOAD_UNITS:
            raise ValueError(
                f"{tr.source or 'the trace'}: column 'load_unit' must be one of "
                f"{', '.join(LOAD_UNITS)} on every row, got {', '.join(units)}"
            )
        unit, n = units[0], None
    else:
        unit, n = _sidecar_unit(tr)
    if unit == "unit":
        return load
    if n is None:
        n = int(np.unique(tr.worker).size)
    return load * n


def as_data_shares(tr: Any) -> Any:
    """``tr`` with its ``load`` as each worker's data share (partitions held / ``k``).

    The form the replay and the scheme tables read (a layout's share, as in the AWS Lambda
    traces): a run trace whose ``load_unit`` column says ``unit`` has its loads divided by
    its number of workers ``n``; any other trace is returned as it is.
    """
    col = tr.columns.get("load_unit")
    if col is None:
        return tr
    n = int(np.unique(tr.worker).size)
    return dataclasses.replace(tr, load=run_unit_loads(tr) / n)


def _sidecar_unit(tr: Any) -> tuple[str, int | None]:
    """The load unit (and ``n``) of a run trace with no ``load_unit`` column, from its
    sidecar; ValueError naming the column and the sidecar when neither says it."""
    from pathlib import Path

    from gctheory._safe_json import bounded_loads

    side = Path(tr.source).with_name(Path(tr.source).name + ".json") if tr.source else None
    if side is None or not Path(side).is_file():
        raise ValueError(
            f"{tr.source or 'the trace'}: the unit of the 'load' column is not stated (no "
            f"'load_unit' column, and no sidecar {str(side) if side else 'RUN.csv.json'!r}); "
            f"add a 'load_unit' column with one of {', '.join(LOAD_UNITS)} (unit: partitions "
            "held x n / k, the factor of the injected sleep; share: partitions held / k)"
        )
    cfg = bounded_loads(Path(side).read_bytes(), f"{str(side)!r} (the run's configuration)")
    cfg = cfg if isinstance(cfg, dict) else {}
    unit = cfg.get("load_unit", "share")  # written before the unit was stated: shares
    if unit not in LOAD_UNITS:
        raise ValueError(
            f"{str(side)!r}: 'load_unit' must be one of {', '.join(LOAD_UNITS)}, got {unit!r}"
        )
    n = cfg.get("n")
    return unit, (int(n) if isinstance(n, int) and n > 0 else None)


def censored_sample(tr: Any) -> CensoredSample:
    """The per-unit-load times of a run trace with their censoring (``never`` rows).

    Rows with status ``error`` or ``dead`` carry no time and are left out. Raises
    ValueError naming the column when ``tr`` is not a run trace.
    """
    if not is_run_trace(tr):
        raise ValueError(
            "censored_sample needs a trace of gctheory.cluster.run (a 'status' column); "
            "use gctheory.delays.fit_laws for traces with every worker's time"
        )
    status = np.asarray(tr.columns["status"]).astype(str)
    keep = np.isin(status, OBSERVED + CENSORED)
    unit = run_unit_loads(tr)
    if not np.all(unit[keep] > 0):
        raise ValueError("the run trace has a row with load 0: no time per unit load")
    return CensoredSample(
        times=np.asarray(tr.time, float)[keep] / unit[keep],
        censored=np.isin(status[keep], CENSORED),
        unit=unit[keep],
        rounds=np.asarray(tr.round, np.int64)[keep],
        workers=np.asarray(tr.worker, np.int64)[keep],
    )


def _as_sample(times: Any, censored: Any = None) -> CensoredSample:
    if isinstance(times, CensoredSample):
        return times
    t = np.asarray(times, float).ravel()
    c = np.zeros(t.size, bool) if censored is None else np.asarray(censored, bool).ravel()
    if c.shape != t.shape:
        raise ValueError(f"censored must have one flag per time: {c.size} flags, {t.size} times")
    if not np.all(np.isfinite(t) & (t >= 0)):
        raise ValueError("times must be finite and >= 0")
    if int((~c).sum()) < 10:
        raise ValueError(f"fitting needs at least 10 completed times, got {int((~c).sum())}")
    minus = np.full(t.size, -1, np.int64)
    return CensoredSample(t, c, np.ones(t.size), minus, minus)


def kaplan_meier(times: Any, censored: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The Kaplan-Meier estimate of the survival function: ``(t, S(t))`` at each distinct
    completed time, ``S`` just after ``t`` (a censored time tied with a completed one counts
    as at risk there, as ``scipy.stats.ecdf`` counts it; tested equal)."""
    s = _as_sample(times, censored)
    return product_limit(s.times, s.censored)


def product_limit(times: np.ndarray, censored: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The product-limit kernel of :func:`kaplan_meier`, with no check of its input
    (any number of completed times, none included: then both arrays are empty)."""
    t, inv = np.unique(times, return_inverse=True)
    deaths = np.bincount(inv, weights=~censored, minlength=t.size)
    leaving = np.bincount(inv, minlength=t.size)
    at_risk = times.size - np.concatenate([[0], np.cumsum(leaving)[:-1]])
    S = np.cumprod(1.0 - deaths / at_risk)
    done = deaths > 0
    return t[done], S[done]


def km_distance(sample: CensoredSample, dist: Any) -> float:
    """``sup |F_KM - F|`` over the completed times (both sides of each jump of the KM)."""
    t, S = kaplan_meier(sample)
    F = np.asarray(dist.cdf(t), float)
    after = 1 - S
    before = np.concatenate([[0.0], after[:-1]])
    return float(max(np.max(np.abs(after - F)), np.max(np.abs(before - F))))
