"""The estimators of :func:`gctheory.delays.scheme_times` at each measured load.

For each load a layout's plan reads (:mod:`gctheory.delays.loadplan`): the ``empirical``
estimate (the workers i.i.d. from the pooled measured times), the ``rounds`` estimate
(the measured rounds replayed), each fitted law's, and the bootstrap over rounds behind
the intervals of the first two. On a run trace, whose cancelled stragglers are
right-censored, the first two read the censoring (:mod:`gctheory.delays.censored_times`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory.delays.censored_times import (
    KM_TAIL,
    censored_round_values,
    censoring_flags,
    km_grouped_means,
)
from gctheory.delays.fitting import fit_laws
from gctheory.delays.loadplan import LoadPlans
from gctheory.delays.orderstats import empirical_weights, law_grouped_means
from gctheory.delays.trace import Trace

__all__ = [
    "bootstrap_intervals",
    "censoring_notes",
    "fit_missing",
    "law_estimates",
    "measured_estimates",
    "read_measured",
]


@dataclass
class Measured:
    """What the measured estimators read at each load a plan uses: the pooled times, the
    per-round matrices (when every used load has them), the censoring flags of a run
    trace (empty otherwise), and the layouts each load serves."""

    plans: LoadPlans
    n: int
    lays: dict[float, list[tuple[int, int, int]]]
    pooled: dict[float, np.ndarray]
    mats: dict[float, np.ndarray]
    flags: dict[float, tuple[np.ndarray, np.ndarray | None]]
    have_rounds: bool
    notes: dict[str, str]
    weights: dict[float, np.ndarray] = field(default_factory=dict)
    per_round: dict[float, np.ndarray] = field(default_factory=dict)


def read_measured(trace: Trace, lp: LoadPlans, layouts: Sequence[Any], n: int) -> Measured:
    """The times at each used load, its rounds and their censoring (a run trace's
    cancelled stragglers); notes say why the rounds cannot be replayed."""
    tuples = [(lay.groups, lay.group_size, lay.wait) for lay in layouts]
    lays = {ld: [tuples[i] for i in lp.serve[ld]] for ld in lp.used}
    notes: dict[str, str] = {}
    mats: dict[float, np.ndarray] = {}
    for ld in lp.used:
        try:
            mats[ld] = trace.rounds(ld)
        except ValueError as exc:
            notes["rounds"] = f"no per-round structure: {exc}"
    if len(mats) != len(lp.used):
        mats = {}
    have_rounds = bool(mats)
    if mats:
        workers = min(M.shape[1] for M in mats.values())
        if workers < n:
            have_rounds = False
            notes["rounds"] = (
                f"the trace's rounds have {workers} workers, fewer than n={n}: the measured "
                "rounds cannot be replayed (the empirical estimate pools every worker)"
            )
    twin = censoring_flags(trace)
    flags = {
        ld: (twin.times(ld) > 0.5, twin.rounds(ld) > 0.5 if mats else None) for ld in lp.used
    } if twin is not None else {}  # fmt: skip
    pooled = {ld: trace.times(ld) for ld in lp.used}
    return Measured(lp, n, lays, pooled, mats, flags, have_rounds, notes)


def fit_missing(
    trace: Trace, to_fit: Sequence[float], laws: Sequence[str], fits: dict, step: Any
) -> None:
    """Each law not yet in ``fits`` fitted at each load of ``to_fit`` (added to ``fits``)."""
    for i, ld in enumerate(to_fit):
        step(i, f"fitting the laws at load {ld:g}")
        need = [law for law in laws if (law, ld) not in fits]
        for f in fit_laws(trace.times(ld), need):
            fits[(f.law, ld)] = f


def _empirical_at(data: Measured, ld: float, x: np.ndarray, c: np.ndarray | None) -> np.ndarray:
    """The i.i.d. empirical estimate at ``ld`` from the times ``x``: the empirical law's
    order statistics, or with censoring flags ``c`` the Kaplan-Meier estimate's."""
    if c is not None:
        return km_grouped_means(x, c, data.lays[ld])[0]
    if ld not in data.weights:
        data.weights[ld] = empirical_weights(x.size, data.lays[ld])
    return np.sort(x) @ data.weights[ld]


def measured_estimates(data: Measured) -> dict[str, dict[float, np.ndarray]]:
    """The ``empirical`` and (with rounds of at least ``n`` workers) ``rounds`` estimates
    at each used load, censoring-aware on a run trace (:mod:`.censored_times`)."""
    per_load: dict[str, dict[float, np.ndarray]] = {"empirical": {}}
    for ld in data.plans.used:
        pooled_flags, round_flags = data.flags.get(ld, (None, None))
        per_load["empirical"][ld] = _empirical_at(data, ld, data.pooled[ld], pooled_flags)
        if data.have_rounds:
            C = None if round_flags is None else round_flags[:, : data.n]
            data.per_round[ld] = censored_round_values(data.mats[ld][:, : data.n], C, data.lays[ld])
            per_load.setdefault("rounds", {})[ld] = data.per_round[ld].mean(axis=0)
    return per_load


def law_estimates(
    data: Measured, laws: Sequence[str], fits: dict, notes: dict[str, str]
) -> dict[str, dict[float, np.ndarray]]:
    """Each fitted law's grouped order-statistic means at each used load; a law that did
    not converge at some load is left out and named in ``notes``."""
    out = {}
    for law in laws:
        failed = [ld for ld in data.plans.used if not fits[(law, ld)].converged]
        if failed:
            notes[law] = f"not fitted at load {failed[0]:g}: {fits[(law, failed[0])].message}"
            continue
        out[law] = {
            ld: law_grouped_means(fits[(law, ld)].dist, data.lays[ld]) for ld in data.plans.used
        }
    return out


def bootstrap_intervals(
    data: Measured, B: int, level: float, rng: np.random.Generator, comm: np.ndarray, tick: Any
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Percentile intervals of the measured estimators from ``B`` resamples of whole rounds
    at every used load (``({}, {})`` for ``B = 0``)."""
    if not B:
        return {}, {}
    lp = data.plans
    boot: dict[str, list] = {"empirical": [], "rounds": []}
    for b in range(B):
        tick(b)
        emp_b, rnd_b = {}, {}
        for ld in lp.used:
            M = data.mats[ld]
            idx = rng.integers(0, M.shape[0], M.shape[0])
            C = data.flags[ld][1] if data.flags else None
            emp_b[ld] = _empirical_at(
                data, ld, M[idx].ravel(), None if C is None else C[idx].ravel()
            )
            if data.have_rounds:
                rnd_b[ld] = data.per_round[ld][idx].mean(axis=0)
        boot["empirical"].append(lp.combine(emp_b) + comm)
        if data.have_rounds:
            boot["rounds"].append(lp.combine(rnd_b) + comm)
    a = (1 - level) / 2
    low: dict[str, np.ndarray] = {}
    high: dict[str, np.ndarray] = {}
    for k, arr in {k: v for k, v in boot.items() if v}.items():
        A = np.array(arr)
        low[k], high[k] = np.quantile(A, a, axis=0), np.quantile(A, 1 - a, axis=0)
    return low, high


def censoring_notes(times: dict[str, np.ndarray], s_list: Sequence[int], notes: dict) -> None:
    """What the measured rows of a run trace are, and the ``s`` they cannot estimate."""

    def missing(k: str) -> str:
        bad = [str(s) for s, t in zip(s_list, times.get(k, ())) if np.isnan(t)]
        return f"; no value at s = {', '.join(bad)}" if bad else ""

    notes["empirical"] = (
        "Kaplan-Meier estimate of a worker's time (the cancelled stragglers right-censored)"
        + missing("empirical")
        + (
            f" (the waited-for time lies beyond the last completed time with probability "
            f"above {KM_TAIL:g})"
            if missing("empirical")
            else ""
        )
    )
    if "rounds" in times:
        notes["rounds"] = (
            "each round's waited-for time where the round measured it (no cancelled "
            "straggler could have changed it)"
            + missing("rounds")
            + (" (some round cancelled the worker it waits for)" if missing("rounds") else "")
        )
