"""Which scheme and which s for a measured cluster: decisions on a trace.

For a scheme of :mod:`gctheory.runtime` (``uncoded``, ``ignore-s``,
``cyclic-mds``, ``frc``, ``ye-abbe``, ``commfr-gc``) and ``n`` workers,
:func:`scheme_times` computes the expected iteration time for every valid
``s`` with the layout of :func:`gctheory.runtime.scheme_layout` (a worker's
data share, the groups and how many of each the master waits for, the
message length ``1/m``), in three ways:

``empirical``
    the workers i.i.d. from the empirical distribution of the measured times
    at that load: exact order statistics of the empirical CDF
    (:func:`gctheory.delays.empirical_grouped_mean`);
``rounds``
    the measured rounds themselves: in each round the first ``n`` workers (the
    same function slots) are taken as they were, the iteration time is that
    round's order statistic, averaged over rounds. Unlike the other two it
    keeps what the rounds share (a round where many workers straggle
    together); it needs ``n`` <= the workers of a round;
``<law>``
    the workers i.i.d. from a law fitted by maximum likelihood at that load
    (:mod:`gctheory.delays.fitting`), as the runtime module assumes.

On a trace of ``gctheory run`` the cancelled stragglers' times are right-censored: there
``empirical`` draws the workers from the Kaplan-Meier estimate and ``rounds`` keeps only
the rounds that measured the waited-for time; where the trace cannot tell it, the value
is NaN and ``notes`` names the ``s`` (:mod:`gctheory.delays.censored_times`).

Confidence intervals (``empirical`` and ``rounds``) come from a bootstrap
over rounds: each measured load's rounds are resampled with replacement
(whole rounds, so the dependence inside a round is kept) and everything is
recomputed; percentile intervals.

A scheme's load ``(s+1)/n`` is rarely a measured one. ``load_model``
decides (:mod:`gctheory.delays.loadscale`): ``"interpolate"`` (default)
interpolates each estimate linearly in load between the two measured loads
around it (for the i.i.d. estimates this is the distribution whose quantiles
are interpolated) and shifts the nearest end by the fitted affine slope
outside the measured range; ``"affine"`` moves the nearest measured load by
the fitted slope (what the replay of :mod:`gctheory.delays.replay` does);
``"proportional"`` scales it by ``load / l0`` (the runtime's model); None
accepts only measured loads.

:func:`decision_table` then lists each estimator's optimal ``s`` and what
trusting it costs, measured by the empirical (or per-round) estimate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_choice, check_int, check_probability, check_real
from gctheory.delays._threads import blas_single_thread
from gctheory.delays.censored import as_data_shares
from gctheory.delays.estimators import (
    bootstrap_intervals,
    censoring_notes,
    fit_missing,
    law_estimates,
    measured_estimates,
    read_measured,
)
from gctheory.delays.fitting import LAWS, LawFit
from gctheory.delays.loadplan import LOAD_MODELS, load_plans, resolve_load_model
from gctheory.delays.trace import Trace

__all__ = ["SchemeTimes", "scheme_times", "decision_table", "scheme_s_values", "LOAD_MODELS"]


def _runtime():
    from gctheory import runtime

    return runtime


@dataclass(frozen=True, eq=False)
class SchemeTimes:
    """Expected iteration time of one scheme versus ``s``, per estimator.

    Attributes
    ----------
    scheme : str
    n, m : int
    tau : float
        Upload time of a full gradient added as ``tau / m``.
    s : ndarray of int
        Straggler tolerance of each point.
    wait, groups, group_size : ndarray of int
        Workers waited for in each of ``groups`` groups of ``group_size``.
    load : ndarray
        Data share of a worker.
    times : dict
        Estimator name -> ndarray of expected times (``inf`` for an infinite mean).
    low, high : dict
        Bootstrap percentile interval per estimator that has one.
    level : float
    bootstrap : int
    load_model : str
    notes : dict
        Estimator name -> why it is missing or what to know.
    fits : dict
        ``(law, load)`` -> :class:`LawFit` used.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import SchemeTimes, concat_traces, make_trace
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> from gctheory.delays import scheme_times
    >>> st = scheme_times(trace, "cyclic-mds", 6, laws=["shifted_exp"], bootstrap=0, load=1.0)
    >>> st.estimators
    ['empirical', 'rounds', 'shifted_exp']
    >>> s, t = st.optimum("empirical")
    >>> s, round(t, 4), round(st.at("shifted_exp", s), 4)
    (5, 0.1098, 0.1096)
    """

    scheme: str
    n: int
    m: int
    tau: float
    s: np.ndarray
    wait: np.ndarray
    groups: np.ndarray
    group_size: np.ndarray
    load: np.ndarray
    times: dict[str, np.ndarray]
    low: dict[str, np.ndarray]
    high: dict[str, np.ndarray]
    level: float
    bootstrap: int
    load_model: str
    notes: dict[str, str] = field(default_factory=dict)
    fits: dict[tuple[str, float], LawFit] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        opt = ", ".join(f"{k}: s={self.optimum(k)[0]}" for k in self.times)
        return f"SchemeTimes({self.scheme!r}, n={self.n}, {len(self.s)} values of s; {opt})"

    @property
    def estimators(self) -> list[str]:
        return list(self.times)

    def optimum(self, estimator: str) -> tuple[int, float]:
        """``(s, time)`` minimising ``estimator``'s time (the smallest such ``s``)."""
        t = self.times[check_choice(estimator, "estimator", list(self.times))]
        if not np.any(np.isfinite(t)):
            raise ValueError(f"{estimator}: every s has an infinite expected time")
        i = int(np.argmin(np.where(np.isfinite(t), t, np.inf)))
        return int(self.s[i]), float(t[i])

    def at(self, estimator: str, s: int) -> float:
        """``estimator``'s expected time at straggler tolerance ``s``."""
        hit = np.flatnonzero(self.s == s)
        if not hit.size:
            raise ValueError(f"s={s} is not among the values computed for {self.scheme}")
        return float(self.times[estimator][hit[0]])

    def interval(self, estimator: str, s: int) -> tuple[float, float]:
        hit = np.flatnonzero(self.s == s)
        if estimator not in self.low or not hit.size:
            return math.nan, math.nan
        return float(self.low[estimator][hit[0]]), float(self.high[estimator][hit[0]])

    def rows(self) -> list[dict[str, Any]]:
        """One row per ``s``: the layout and every estimator's time (with intervals)."""
        out = []
        for i, s in enumerate(self.s):
            r: dict[str, Any] = {
                "s": int(s),
                "wait": int(self.wait[i]),
                "groups": int(self.groups[i]),
                "load": float(self.load[i]),
            }
            for k, v in self.times.items():
                r[k] = float(v[i])
                if k in self.low:
                    r[f"{k}_low"] = float(self.low[k][i])
                    r[f"{k}_high"] = float(self.high[k][i])
            out.append(r)
        return out


#: most workers a measured-delay decision is made for (a trace has far fewer)
MAX_WORKERS = 10**6


def scheme_s_values(scheme: str, n: int, m: int = 1, code: Any = None) -> list[int]:
    """The valid straggler tolerances of ``scheme`` with ``n`` workers.

    Parameters
    ----------
    scheme : str
        The scheme.
    n : int
        Workers.
    m : int
        Communication saving.
    code : tuple of int, optional
        ``(N, K, delta)`` of a CommFR-GC code.

    Returns
    -------
    list of int
        The valid ``s``.

    Examples
    --------
    >>> from gctheory.delays import scheme_s_values
    >>> scheme_s_values("frc", 6), scheme_s_values("cyclic-mds", 4)
    ([0, 1, 2, 5], [0, 1, 2, 3])
    """
    rt = _runtime()
    check_choice(scheme, "scheme", rt.SCHEMES)
    n = check_int(n, "n", low=1, high=MAX_WORKERS)
    m = check_int(m, "m", low=1)
    if scheme == "uncoded":
        return [0]
    if scheme == "frc":
        return [s for s in range(n) if n % (s + 1) == 0]
    if scheme == "ye-abbe":
        return list(range(0, n - m + 1))
    if scheme == "commfr-gc":
        if code is None:
            raise ValueError("commfr-gc needs code=(N, K, delta) of the underlying linear code")
        if isinstance(code, (str, bytes, dict)) or not hasattr(code, "__len__") or len(code) != 3:
            raise ValueError(f"code must be a triple (N, K, delta) of integers, got {code!r}")
        return [check_int(code[2], "code delta", low=1) - 1]
    return list(range(n))


def _shares_trace(trace: Any) -> Trace:
    """``trace`` checked, with a run trace's unit loads taken to the layouts' data shares."""
    if not isinstance(trace, Trace):
        raise ValueError(f"trace must be a Trace (see read_trace), got {type(trace).__name__}")
    return as_data_shares(trace)


def scheme_times(
    trace: Trace,
    scheme: str,
    n: int,
    *,
    m: int = 1,
    code: tuple[int, int, int] | None = None,
    tau: float = 0.0,
    s: Sequence[int] | None = None,
    laws: Sequence[str] = LAWS,
    fits: dict[tuple[str, float], LawFit] | None = None,
    load_model: Any = "interpolate",
    bootstrap: int = 200,
    level: float = 0.95,
    rng: Any = None,
    load: float | None = None,
    progress: Any = None,
) -> SchemeTimes:
    """Expected iteration time of ``scheme`` versus ``s`` on measured data (module docstring).

    Parameters
    ----------
    trace : Trace
        Measured times (pooled over its campaigns; select one first to avoid
        mixing clusters).
    scheme : str
        One of :data:`gctheory.runtime.SCHEMES`.
    n, m, code, tau :
        As in :func:`gctheory.runtime.scheme_layout` /
        :func:`gctheory.runtime.scheme_expected_time`.
    s : sequence of int, optional
        Straggler tolerances to evaluate (default: every valid one).
    laws : sequence of str
        Laws to fit at every measured load used (:data:`LAWS`); ``()`` for none.
    fits : dict, optional
        Fits already made, ``(law, load) -> LawFit`` (reused, not refitted).
    load_model : {"interpolate", "affine", "proportional", None} or a model
        How a load that was not measured is reached (module docstring).
    bootstrap : int
        Replicates of the bootstrap over rounds (0: no intervals).
    level : float
        Confidence level of the intervals.
    rng : seed or Generator
        Randomness of the bootstrap.
    load : float, optional
        A worker's share of the dataset, in (0, 1], replacing the scheme's own
        load in every layout: the time of a code with the scheme's decoding rule
        at another load. An approximate code of (average) load ``d`` partitions
        that decodes from the fastest ``n - s`` workers is ``scheme="ignore-s"``
        with ``load=d/n`` (:mod:`gctheory.tradeoff` uses it so).
    progress : callable, optional
        Called as ``progress(done, total, what)``: one step per measured load whose
        laws are fitted and one per bootstrap replicate.

    Returns
    -------
    SchemeTimes
        The expected time versus ``s`` per estimator, with intervals.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import concat_traces, make_trace, scheme_times
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> st = scheme_times(trace, "frc", 6, laws=["shifted_exp"], bootstrap=0, load=1.0)
    >>> st.s.tolist(), st.times["empirical"].round(4).tolist()
    ([0, 1, 2, 5], [0.2355, 0.1541, 0.1298, 0.1098])
    """
    rt = _runtime()
    check_choice(scheme, "scheme", rt.SCHEMES)
    n = check_int(n, "n", low=1)
    m = check_int(m, "m", low=1)
    tau = check_real(tau, "tau", low=0.0)
    B = check_int(bootstrap, "bootstrap", low=0, high=10**5)
    level = check_probability(level, "level", open_low=True, open_high=True)
    laws = _laws_asked(laws)
    if fits is not None and not isinstance(fits, dict):
        raise ValueError(f"fits must be a dict (law, load) -> LawFit or None, got {fits!r}")
    rng = as_generator(rng)
    trace = _shares_trace(trace)
    s_list = _s_values_asked(scheme, n, m, code, s)
    layouts = _layouts(scheme, n, m, code, s_list, load)
    model, slope, model_name = resolve_load_model(trace, load_model)
    lp = load_plans([lay.load for lay in layouts], s_list, trace.loads, model, slope)
    data = read_measured(trace, lp, layouts, n)
    notes = data.notes
    if B and not data.mats:
        notes["bootstrap"] = "no bootstrap over rounds: " + notes.get("rounds", "")
        B = 0
    fits = dict(fits or {})
    to_fit = [ld for ld in lp.used if any((law, ld) not in fits for law in laws)]
    steps = len(to_fit) + B

    def step(done: int, what: str) -> None:
        if progress is not None:
            progress(done, steps, what)

    with blas_single_thread():
        fit_missing(trace, to_fit, laws, fits, step)
        per_load = measured_estimates(data)
        per_load.update(law_estimates(data, laws, fits, notes))
        comm = np.array([tau * lay.comm for lay in layouts])
        times = {k: lp.combine(v) + comm for k, v in per_load.items()}
        ticks = (lambda b: step(len(to_fit) + b, "bootstrap over rounds")) if B else None
        low, high = bootstrap_intervals(data, B, level, rng, comm, ticks)
    step(steps, "")
    if data.flags:
        censoring_notes(times, s_list, notes)
    return SchemeTimes(
        scheme=scheme,
        n=n,
        m=m,
        tau=tau,
        s=np.array(s_list),
        wait=np.array([lay.wait for lay in layouts]),
        groups=np.array([lay.groups for lay in layouts]),
        group_size=np.array([lay.group_size for lay in layouts]),
        load=np.array([lay.load for lay in layouts]),
        times=times,
        low=low,
        high=high,
        level=level,
        bootstrap=B,
        load_model=str(model_name),
        notes=notes,
        fits=fits,
    )


def _laws_asked(laws: Any) -> list[str]:
    """The laws to fit, checked by name."""
    if isinstance(laws, (str, bytes, dict)) or not hasattr(laws, "__iter__"):
        raise ValueError(f"laws must be a sequence of names from {LAWS}, got {laws!r}")
    return [check_choice(law, "laws", LAWS) for law in laws]


def _s_values_asked(scheme: str, n: int, m: int, code: Any, s: Any) -> list[int]:
    """The straggler tolerances to evaluate: ``s`` checked against the valid ones (every
    valid one when None)."""
    valid = scheme_s_values(scheme, n, m, code)
    if s is None:
        s_list = valid
    else:
        if isinstance(s, (str, bytes, dict)) or not hasattr(s, "__iter__"):
            raise ValueError(f"s must be a sequence of straggler tolerances, got {s!r}")
        s_list = [check_int(v, "s", low=0) for v in s]
        bad = sorted(set(s_list) - set(valid))
        if bad:
            raise ValueError(f"s={bad[0]} is not valid for {scheme} with n={n}, m={m}")
    if not s_list:
        raise ValueError(f"no valid s for {scheme} with n={n}, m={m}")
    return s_list


def _layouts(
    scheme: str, n: int, m: int, code: Any, s_list: Sequence[int], load: float | None
) -> list[Any]:
    """The scheme's layout at each ``s``, at the data share ``load`` when given."""
    rt = _runtime()
    layouts = [rt.scheme_layout(scheme, n, sv, m, code=code) for sv in s_list]
    if load is not None:
        load = check_real(load, "load", low=0.0, high=1.0, low_open=True)
        layouts = [replace(lay, load=load) for lay in layouts]
    return layouts


def decision_table(
    results: SchemeTimes | Sequence[SchemeTimes], reference: str = "empirical"
) -> list[dict[str, Any]]:
    """Each estimator's optimum and the time lost by trusting it, per scheme.

    For every estimator: its optimal ``s`` (and ``wait``, the workers waited
    for), the time it predicts there, the ``reference`` estimator's time at
    that ``s`` (with its interval), the reference's own optimum, the time lost
    by using the estimator's ``s`` (``reference(s_est) - reference(s_ref)``,
    also in percent), whether the two agree, and the speed-up over waiting for
    everyone (``reference(s=0) / reference(s_est)``; ``s = 0`` is the
    wait-for-all uncoded scheme for cyclic-MDS, FRC and ignore-s).
    ``plausible_lo``/``plausible_hi``: the range of ``s`` whose reference time
    lies below the upper end of the reference's interval at its optimum (the
    ``s`` the measurements cannot tell from the best; NaN without intervals).

    Parameters
    ----------
    results : SchemeTimes or sequence of them
        Output of :func:`scheme_times`.
    reference : str
        The estimator taken as the truth.

    Returns
    -------
    list of dict
        One row per scheme and estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import concat_traces, decision_table, make_trace
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> from gctheory.delays import scheme_times
    >>> st = scheme_times(trace, "cyclic-mds", 6, laws=["shifted_exp"], bootstrap=0, load=1.0)
    >>> for row in decision_table(st):
    ...     print(row["estimator"], row["s_opt"], row["agrees"])
    empirical 5 True
    rounds 5 True
    shifted_exp 5 True
    """
    if isinstance(results, SchemeTimes):
        res = [results]
    elif isinstance(results, (list, tuple)) and all(isinstance(r, SchemeTimes) for r in results):
        res = list(results)
    else:
        raise ValueError(
            f"results must be a SchemeTimes (from scheme_times) or a list of them, got {results!r}"
        )
    if not isinstance(reference, str):
        raise ValueError(f"reference must be an estimator name (a str), got {reference!r}")
    rows = []
    for r in res:
        ref = check_choice(reference, "reference", list(r.times))
        s_ref, t_ref = r.optimum(ref)
        base = r.at(ref, int(r.s[0])) if r.s[0] == 0 else math.nan
        ub = r.interval(ref, s_ref)[1]
        near = r.s[r.times[ref] <= ub] if math.isfinite(ub) else np.array([], int)
        p_lo, p_hi = (int(near.min()), int(near.max())) if near.size else (math.nan, math.nan)
        for est in r.times:
            if not np.any(np.isfinite(r.times[est])):
                continue
            s_est, t_est = r.optimum(est)
            t_at = r.at(ref, s_est)
            lo, hi = r.interval(ref, s_est)
            i = int(np.flatnonzero(r.s == s_est)[0])
            rows.append(
                {
                    "scheme": r.scheme,
                    "n": r.n,
                    "estimator": est,
                    "s_opt": s_est,
                    "wait": int(r.wait[i]),
                    "predicted": t_est,
                    f"{ref}_at_s_opt": t_at,
                    "low": lo,
                    "high": hi,
                    f"{ref}_s_opt": s_ref,
                    f"{ref}_best": t_ref,
                    "lost": t_at - t_ref,
                    "lost_pct": 100 * (t_at - t_ref) / t_ref,
                    "agrees": s_est == s_ref,
                    "plausible_lo": p_lo,
                    "plausible_hi": p_hi,
                    "speedup_vs_wait_all": base / t_at if math.isfinite(base) else math.nan,
                }
            )
    return rows
