"""``tradeoff(n, ...)``: every scheme's load, communication, tolerance, failure,
stability and iteration time for the user's cluster, in one tidy table.

The table holds, for each straggler count ``s`` of a sweep over ``[0, n - 1]``
(``m`` fixed), one row per scheme (and per generator family for the
generator-based schemes at the stability points), the lower bounds on the load
(worst case ``s + 1``, Wang et al. 2019 Theorems 3 and 5 and their exact
finite-n versions), and, at the operating point ``s``, the rows of every
communication saving ``m`` (panel 2). See :mod:`gctheory.tradeoff.schemes` for
what each scheme's row is computed from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_int, check_probability, check_real
from gctheory.montecarlo import seed_sequence
from gctheory.tradeoff.dominance import TRADEOFF_AXES, dominance
from gctheory.tradeoff.schemes import (
    BUILDERS,
    TRADEOFF_LEFT_OUT,
    TRADEOFF_SCHEMES,
    CannotExist,
    Context,
    plugin_builders,
)
from gctheory.tradeoff.stability import generator_families
from gctheory.tradeoff.table import TradeoffTable, make_row

__all__ = ["TRADEOFF_MAX_N", "TRADEOFF_EFFORT", "tradeoff", "resolve_delay"]

#: Largest n. Past it the exact parts grow beyond minutes: the d-FRC's exact tail of err
#: (O(n) big integers of O(n) digits summed per load tried, per straggler count), the time
#: optima of the sweep for laws without a closed form (runtime.optimal_straggler_tolerance
#: evaluates every s and refuses n > 10**4 itself) and the batch raptor code (a dense n x
#: n/b worker-batch matrix). Measured on 2 shared cores (docs/tradeoff.md, cost versus n):
#: at n = 10**4 about 11 s CPU with --quick and 50 s with the default effort.
TRADEOFF_MAX_N = 10**4

#: Monte Carlo and search effort, default and ``quick``.
TRADEOFF_EFFORT: dict[str, dict[str, float]] = {
    "default": {
        "grid": 41,  # sweep points when n is large (all s when n <= grid + 7)
        "divisor_points": 1e9,  # s where FRC / CommFR-GC exist added to the sweep (spread)
        "trials": 300,  # straggler sets per approximate-code Monte Carlo point
        "time_trials": 4000,  # iterations per Monte Carlo time point
        "mc_points": 5,
        "trace_bootstrap": 200,  # resamples of a measured trace's rounds per time
        "stability_points": 6,
        "stability_budget": 3e8,  # work units for all empirical s_kappa intervals together
    },
    "quick": {
        "grid": 15,
        "divisor_points": 8,
        "trials": 60,
        "time_trials": 600,
        "mc_points": 3,
        "trace_bootstrap": 40,
        "stability_points": 3,
        "stability_budget": 1e7,
    },
}

#: largest n at which the Bernoulli code's Monte Carlo (dense least squares per trial) runs
_BGC_MAX_N = 400

_MC_ONLY = ("batch-raptor", "bernoulli")
_GENERATOR_SCHEMES = ("ye-abbe", "commfr-gc")


def resolve_delay(delay: Any) -> tuple[Any, Any, str | None]:
    """``(distribution, replay, label)`` for ``delay``: exactly one of the first two is set.

    ``delay`` is None (no time axis), a frozen continuous ``scipy.stats``
    distribution (what :func:`gctheory.runtime.scheme_time_moments` takes), or
    anything :func:`gctheory.delays.parse_delay` reads: a spec string
    (``"shifted_exp(shift, mean)"``, ``"exp(mean)"``, ``"pareto(scale, shape)"``,
    ``"uniform(low, high)"``), a measured trace ``"trace:PATH[?key=value...]"``
    (its :class:`gctheory.delays.TraceReplay`: times then come from
    :func:`gctheory.delays.scheme_times`, on the measurements), a
    :class:`gctheory.delays.Trace`, or a delay model. An unknown name raises
    with the valid ones.

    Parameters
    ----------
    delay : None, frozen scipy.stats distribution, or str
        A distribution, a spec string such as ``"exp(2.0)"`` or ``"trace:PATH"``.

    Returns
    -------
    tuple
        ``(distribution, replay, label)``, exactly one of the first two set (both None
        for ``delay=None``).

    Examples
    --------
    >>> from gctheory.tradeoff import resolve_delay
    >>> dist, replay, label = resolve_delay("exp(2.0)")
    >>> round(float(dist.mean()), 6), replay, label
    (2.0, None, 'exp(2.0)')
    """
    if delay is None:
        return None, None, None
    from gctheory.delays.markov_times import is_memory_delay, memory_delay_of

    if is_memory_delay(delay):  # stragglers with memory
        mem, label = memory_delay_of(delay)
        return mem, None, f"memory: {label}"
    from gctheory.order_stats.heterogeneous import is_worker_sequence

    if is_worker_sequence(delay):  # one law per worker (or (law, count) pairs)
        from gctheory.order_stats.heterogeneous import worker_groups

        groups = worker_groups(delay, name="delay")
        label = " + ".join(f"{g.count} x {_dist_label(g.dist)}" for g in groups)
        return list(delay), None, f"per-worker: {label}"
    if hasattr(delay, "dist") and hasattr(delay, "rvs"):
        return delay, None, _dist_label(delay)
    from gctheory.delays import parse_delay

    model = parse_delay(delay)
    if model.replay is not None:
        return None, model.replay, model.label
    return model.dist, None, model.label or _dist_label(model.dist)


def _dist_label(dist: Any) -> str:
    name = getattr(getattr(dist, "dist", None), "name", type(dist).__name__)
    args = ", ".join(f"{a:g}" if isinstance(a, float) else repr(a) for a in dist.args)
    kw = ", ".join(
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v!r}" for k, v in dist.kwds.items()
    )
    return f"{name}({', '.join(x for x in (args, kw) if x)})"


def _spread(values: Sequence[int], count: int) -> list[int]:
    """``count`` values of a sorted sequence, evenly by position (both ends included)."""
    values = sorted(set(values))
    if len(values) <= count:
        return values
    idx = np.unique(np.round(np.linspace(0, len(values) - 1, count)).astype(int))
    return [values[i] for i in idx]


def _check_s_list(values: Iterable[Any], n: int, name: str) -> list[int]:
    out = sorted({check_int(v, name, low=0, high=n - 1) for v in values})
    if not out:
        raise ValueError(f"{name} must hold at least one straggler count in [0, {n - 1}]")
    return out


def _scheme_names(schemes: Any, default: list[str], valid: list[str]) -> list[str]:
    """The schemes asked for (``default`` when None); one string or a non-sequence is
    refused by name (each name is checked later)."""
    if schemes is not None and (isinstance(schemes, str) or not hasattr(schemes, "__iter__")):
        raise ValueError(
            f"schemes must be a sequence of scheme names (of {valid}), got {schemes!r}"
        )
    return default if schemes is None else list(schemes)


def tradeoff(
    n: int,
    *,
    s: int | None = None,
    m: int | None = None,
    kappa: float | None = None,
    eps: float = 1e-3,
    delay: Any = None,
    schemes: Sequence[str] | None = None,
    error: float = 0.05,
    tau: float = 0.0,
    s_values: Sequence[int] | None = None,
    m_values: Sequence[int] | None = None,
    generators: Sequence[str] | None = None,
    axes: Sequence[str] | None = None,
    quick: bool = False,
    trials: int | None = None,
    time_trials: int | None = None,
    rng: Any = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> TradeoffTable:
    """Every gradient-coding scheme side by side for ``n`` workers: one tidy table.

    Parameters
    ----------
    n : int
        Workers, ``2 <= n <= TRADEOFF_MAX_N``; ``k = n`` data partitions (the BIBD code has its
        own ``k``).
    s : int, optional
        Operating point, ``0 <= s <= n - 1``: panel 2 (communication versus load) is
        drawn there and the CLI reports the schemes there. Default ``round(n / 10)``.
    m : int, optional
        Communication saving of Ye-Abbe and CommFR-GC in the sweep over ``s``
        (messages ``1/m`` of a gradient), ``m >= 1``. Default 2, the smallest at
        which Theorem 2 of Kadhe et al. 2019 speaks.
    kappa : float, optional
        Largest condition number the decoder may invert (``>= 1``); without it the
        stability columns and axis are left out.
    eps : float
        Failure probability in (0, 1): Theorem 2's ``eps`` (Kadhe et al. 2019), the
        target ``P(fail) <= eps`` of the d-FRC and of the finite-n lower bounds of
        Wang et al. 2019.
    delay : scipy.stats frozen distribution or str, optional
        Per-worker time to process the whole dataset (see :func:`resolve_delay`);
        without it the time columns and axis are left out.
    schemes : sequence of str, optional
        Names from :data:`TRADEOFF_SCHEMES` (default all) or :data:`TRADEOFF_LEFT_OUT` (which
        only add a note saying why).
    error : float
        Error level of the approximate codes, ``0 <= error < 1``: they fail when
        ``err > error * k`` (eq. (5) of Wang et al. 2019); Theorem 5's ``eps``.
    tau : float
        Time to send a full gradient (``>= 0``); messages of ``1/m`` take ``tau / m``.
    s_values, m_values : sequences of int, optional
        The sweep over ``s`` (default: about 41 points and every ``s`` at which the FRC,
        CommFR-GC or a runtime optimum sits) and the ``m`` of panel 2.
    generators : sequence of str, optional
        Generator families for the stability panel: names of
        :data:`gctheory.generators.GENERATOR_FAMILIES`, each also as
        ``"<family>-systematic"`` (default every family of the registry).
    axes : sequence of str, optional
        Axes of the dominance relation (names of :data:`TRADEOFF_AXES`); default load,
        communication, tolerance, failure, and stability / time when computed.
    quick : bool
        Smaller grids and Monte Carlo runs (:data:`TRADEOFF_EFFORT`).
    trials, time_trials : int, optional
        Override the Monte Carlo sizes of :data:`TRADEOFF_EFFORT`.
    rng : seed
        Seeds every code, generator and Monte Carlo run (keyword-only). Each row's
        randomness depends only on the seed and the row, not on the other schemes asked.
    progress : callable, optional
        ``progress(done, total, label)`` after each step (the CLI draws a bar with it).

    Returns
    -------
    TradeoffTable
        Rows with the columns of :data:`gctheory.tradeoff.TRADEOFF_COLUMNS`; ``dominated``
        filled on ``axes``; ``notes`` say what was left out and why.

    Examples
    --------
    >>> from gctheory.tradeoff import tradeoff
    >>> from scipy import stats
    >>> table = tradeoff(8, schemes=["cyclic-mds", "frc"], quick=True, delay=stats.expon())
    >>> for r in table.select(scheme="frc"):
    ...     print(r["s"], r["load"], round(r["time"], 4))
    0 1.0 0.3397
    1 2.0 0.2604
    3 4.0 0.1875
    7 8.0 0.125
    """
    n = check_int(n, "n", low=2)
    if n > TRADEOFF_MAX_N:
        raise ValueError(
            f"n must be at most {TRADEOFF_MAX_N}, got {n}: the time optima scan every s "
            "(refused there by runtime.optimal_straggler_tolerance for laws without a closed "
            "form), the d-FRC's exact tail of err sums O(n) big integers of O(n) digits per "
            "load tried, and the batch raptor code holds a dense n x n/b worker-batch matrix"
        )
    s_fixed = round(n / 10) if s is None else check_int(s, "s", low=0, high=n - 1)
    m_sweep = 2 if m is None else check_int(m, "m", low=1)
    if kappa is not None:
        kappa = check_real(kappa, "kappa", low=1.0)
    eps = check_probability(eps, "eps", open_low=True, open_high=True)
    error = check_real(error, "error", low=0.0, high=1.0, high_open=True)
    tau = check_real(tau, "tau", low=0.0)
    plugins = plugin_builders()  # installed code plug-ins: a row where they can be built
    valid = list(TRADEOFF_SCHEMES) + list(plugins) + list(TRADEOFF_LEFT_OUT)
    names = _scheme_names(schemes, list(TRADEOFF_SCHEMES) + list(plugins), valid)
    if not names:
        raise ValueError(f"schemes must name at least one of {valid}")
    for name in names:
        check_choice(name, "scheme", valid)
    names = list(dict.fromkeys(names))
    fams = generator_families(systematic=True)
    gen_names = list(generator_families()) if generators is None else list(generators)
    for g in gen_names:
        check_choice(g, "generator", fams)
    effort = dict(TRADEOFF_EFFORT["quick" if quick else "default"])
    if trials is not None:
        effort["trials"] = check_int(trials, "trials", low=1)
    if time_trials is not None:
        effort["time_trials"] = check_int(time_trials, "time_trials", low=2)
    dist, replay, delay_label = resolve_delay(delay)
    from gctheory.delays.markov import MemoryDelay

    memory = isinstance(dist, MemoryDelay)  # stragglers with memory: checked when built
    if memory:
        from gctheory.delays.markov_times import atlas_note, has_exact_time, stationary_law

        notes_memory = [atlas_note(dist, str(delay_label))]
    elif dist is not None and isinstance(dist, list):  # per-worker laws
        from gctheory.order_stats.heterogeneous import worker_groups

        worker_groups(dist, n, name="delay")  # one law per worker: the count must be n
    elif dist is not None:
        from gctheory.order_stats import _check_dist  # the runtime functions' own check

        _check_dist(dist)
    timed = dist is not None or replay is not None
    axes_used = _default_axes(kappa, timed) if axes is None else list(axes)
    for a in axes_used:
        check_choice(a, "axis", TRADEOFF_AXES)
    if s_values is not None:
        s_values = _check_s_list(s_values, n, "s_values")
    if m_values is not None:
        m_values = sorted({check_int(v, "m_values", low=1) for v in m_values})
    if s_fixed + m_sweep > n and any(x in names for x in _GENERATOR_SCHEMES):
        raise ValueError(
            f"m must satisfy s + m <= n (Ye-Abbe's load s + m cannot exceed k = n), got "
            f"s = {s_fixed}, m = {m_sweep}, n = {n}"
        )

    notes: list[str] = [
        f"{x}: left out: {TRADEOFF_LEFT_OUT[x]}" for x in names if x in TRADEOFF_LEFT_OUT
    ]
    names = [x for x in names if x in TRADEOFF_SCHEMES or x in plugins]
    if "bernoulli" in names and n > _BGC_MAX_N:
        names.remove("bernoulli")
        notes.append(
            f"bernoulli: left out above n = {_BGC_MAX_N} (a dense least squares per Monte "
            "Carlo trial)"
        )

    sweep_law = dist
    if memory:  # the sweep's time optima under the stationary law, where there is one
        notes += notes_memory
        sweep_law = stationary_law(dist) if has_exact_time(dist) and n <= 200 else None
    sweep = _sweep(n, s_fixed, m_sweep, names, s_values, effort, sweep_law, tau)
    mvals = _m_values(n, s_fixed, m_sweep, m_values, quick)
    mc_s = frozenset(_spread([x for x in sweep if x >= 1], int(effort["mc_points"])) + [s_fixed])
    stab_s = _stability_points(n, m_sweep, sweep, s_fixed, names, int(effort["stability_points"]))
    calls = sum(len(v) for v in stab_s.values()) * len(gen_names) if kappa else 0
    ctx = Context(
        n=n,
        m=m_sweep,
        eps=eps,
        error=error,
        kappa=kappa,
        tau=tau,
        dist=dist,
        replay=replay,
        root=seed_sequence(rng),
        trials=int(effort["trials"]),
        time_trials=int(effort["time_trials"]),
        mc_s=mc_s,
        trace_bootstrap=int(effort["trace_bootstrap"]),
        stability_budget=effort["stability_budget"],
        stability_calls=calls,
        families={g: fams[g] for g in gen_names},
        stability_families=tuple(gen_names),
        stab_s=stab_s,
        sweep=tuple(sweep),
        memory=memory,
    )

    tasks: list[tuple[str, int, int]] = []
    for name in names:
        for x in sweep:
            if name in _MC_ONLY and x not in mc_s:
                continue
            tasks.append((name, x, m_sweep))
    for name in _GENERATOR_SCHEMES:
        if name in names:
            tasks += [(name, s_fixed, mm) for mm in mvals if mm != m_sweep]
    total = len(tasks) + 1
    rows = _bound_rows(n, sweep, s_fixed, mvals, eps, error)
    if progress:
        progress(1, total, "load bounds")
    refused: dict[str, list[tuple[int, int, str]]] = {}
    # small matrices solved thousands of times: extra BLAS threads only contend (measured:
    # 3-4x slower on a busy 2-core machine), as in gctheory.delays and the simulator
    from gctheory.delays._threads import blas_single_thread

    with blas_single_thread():
        for i, (name, x, mm) in enumerate(tasks, start=2):
            try:
                rows += (BUILDERS.get(name) or plugins[name])(ctx, x, mm)
            except CannotExist as exc:
                refused.setdefault(name, []).append((x, mm, str(exc)))
            if progress:
                progress(i, total, f"{name} s={x} m={mm}")
    notes += _refusal_notes(refused, m_sweep, s_fixed)
    _mark_optima(rows, m_sweep)
    if timed and not any(math.isfinite(r["time"]) for r in rows if r["time"] is not None):
        why = (
            "the mean of a waited-for order statistic of Pareto delays is finite only when more "
            "than 1/shape workers are not waited for; spec strings read pareto(scale, shape)"
            if getattr(getattr(dist, "dist", None), "name", "") == "pareto"
            else "the delay's tail is too heavy for every scheme here"
        )
        notes.append(f"every expected iteration time is infinite under {delay_label}: {why}")
    marks = dominance(rows, axes_used)
    for r, (dom, by) in zip(rows, marks):
        r["dominated"], r["dominated_by"] = dom, by
    params = {
        "n": n,
        "s": s_fixed,
        "m": m_sweep,
        "kappa": kappa,
        "eps": eps,
        "error": error,
        "delay": delay_label,
        "tau": tau,
        "axes": ",".join(axes_used),
        "schemes": ",".join(names),
        "generators": ",".join(gen_names),
        "s_values": ",".join(map(str, sweep)),
        "m_values": ",".join(map(str, mvals)),
        "mc_points": ",".join(map(str, sorted(mc_s))),
        "trials": ctx.trials,
        "time_trials": ctx.time_trials,
        "quick": bool(quick),
    }
    return TradeoffTable(tuple(rows), params, tuple(notes))


def _default_axes(kappa: float | None, timed: bool) -> list[str]:
    axes = ["load", "communication", "tolerance", "failure"]
    if kappa is not None:
        axes.append("stability")
    if timed:
        axes.append("time")
    return axes


def _sweep(
    n: int,
    s_fixed: int,
    m: int,
    names: Sequence[str],
    s_values: Sequence[int] | None,
    effort: dict[str, float],
    dist: Any,
    tau: float,
) -> list[int]:
    """The straggler counts of the sweep: a grid, the s where the FRC and CommFR-GC exist,
    the operating point and the exact time optima of the runtime schemes."""
    if s_values is not None:
        return sorted(set(s_values) | {s_fixed})
    count = int(effort["grid"])
    if n <= count + 7:
        pts = set(range(n))
    else:
        pts = {int(round(x)) for x in np.linspace(0, n - 1, count)}
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    keep = int(min(effort["divisor_points"], len(divisors)))
    if "frc" in names:
        pts |= set(_spread([d - 1 for d in divisors], keep))
    if "commfr-gc" in names:
        pts |= set(_spread([d - m for d in divisors if 0 <= d - m <= n - 1], keep))
    pts.add(s_fixed)
    if dist is not None:
        from gctheory.runtime import optimal_straggler_tolerance
        from gctheory.runtime.schemes import _optimum_screened

        for name, layout in (("cyclic-mds", "cyclic-mds"), ("frc", "frc"), ("ye-abbe", "ye-abbe")):
            if name in names or (name == "cyclic-mds" and "reed-solomon" in names):
                mm = m if name == "ye-abbe" else 1
                # the same s as the scan, from closed-form running sums where the law and
                # layout allow (O(1) per s; 2.3 s per layout at n = 10**4 by the scan)
                best = _optimum_screened(layout, dist, n, mm, tau=tau)
                if best is None:
                    best = optimal_straggler_tolerance(layout, dist, n, mm, tau=tau)[0]
                pts.add(best)
    return sorted(x for x in pts if 0 <= x <= n - 1)


def _m_values(n: int, s: int, m: int, m_values: Sequence[int] | None, quick: bool) -> list[int]:
    """Communication savings of panel 2 at the operating point (``s + m <= n``): a grid,
    and (not in quick mode) every ``m <= 16`` at which CommFR-GC exists there."""
    if m_values is None:
        base = {1, 2, 4, 8, m} if quick else {1, 2, 3, 4, 6, 8, 12, 16, m}
        if not quick:
            base |= {d - s for d in range(1, n + 1) if n % d == 0 and 1 <= d - s <= 16}
        m_values = sorted(base)
    return [x for x in m_values if s + x <= n]


def _stability_points(
    n: int, m: int, sweep: Sequence[int], s_fixed: int, names: Sequence[str], count: int
) -> dict[str, frozenset[int]]:
    """Where the empirical s_kappa is computed: ``count`` points of the sweep in
    ``[0, max(s, n/2)]`` at which the scheme exists, and the operating point."""
    sweep = [x for x in sweep if x <= max(s_fixed, n // 2)]
    out = {}
    if "ye-abbe" in names:
        ok = [x for x in sweep if x + m <= n]
        out["ye-abbe"] = frozenset(_spread(ok, count) + ([s_fixed] if s_fixed in ok else []))
    if "commfr-gc" in names:
        ok = [x for x in sweep if n % (x + m) == 0]
        out["commfr-gc"] = frozenset(_spread(ok, count) + ([s_fixed] if s_fixed in ok else []))
    return out


def _bound_rows(
    n: int, sweep: Sequence[int], s_fixed: int, mvals: Sequence[int], eps: float, error: float
) -> list[dict[str, Any]]:
    """Lower bounds on the load: worst case (eq. (1)), Theorems 3 and 5 of Wang et al. 2019
    as stated and in the proof's form, and their exact finite-n versions."""
    from gctheory.load_bounds import (
        approximate_recovery_lower_bound,
        exact_recovery_lower_bound,
        min_load_lower_bound,
        worst_case_load,
    )

    rows = []

    def add(name: str, s: int, m: int, b: Any, guarantee: str) -> None:
        notes = list(b.notes)
        if b.asymptotic:
            notes.insert(0, "asymptotic (n -> infinity): a guide at this n, not a guarantee")
        rows.append(
            make_row(
                f"bound:{name}",
                "bound",
                n=n,
                s=s,
                m=m,
                k=n,
                load=float(b.load),
                load_value=float(b.value),
                communication=1.0 / m,
                guarantee=guarantee,
                covered=b.in_regime,
                asymptotic=b.asymptotic,
                source=b.source,
                note="; ".join(notes),
            )
        )

    proof_ok = 2 * error * n + 4 < n
    for s in sweep:
        add("exact", s, 1, worst_case_load(n, s), "every straggler set (load >= s + 1)")
        add(
            "thm3",
            s,
            1,
            exact_recovery_lower_bound(n, s, warn=False),
            "exact recovery w.p. 1 - o(1), random stragglers",
        )
        add(
            "thm3-finite",
            s,
            1,
            min_load_lower_bound(n, s, eps),
            f"P(err > 0) <= {eps:g} (finite n, exact)",
        )
        add(
            "thm5",
            s,
            1,
            approximate_recovery_lower_bound(n, s, error, warn=False),
            f"P(err > {error:g} n) = o(1), random stragglers (as stated)",
        )
        if proof_ok:
            add(
                "thm5-eq52",
                s,
                1,
                approximate_recovery_lower_bound(n, s, error, "proof", warn=False),
                f"P(err > {error:g} n) = o(1) (proof, eq. (52))",
            )
        add(
            "thm5-finite",
            s,
            1,
            min_load_lower_bound(n, s, eps, error),
            f"P(err > {error:g} n) <= {eps:g} (finite n, exact)",
        )
    for m in mvals:
        add(
            "ye-abbe",
            s_fixed,
            m,
            worst_case_load(n, s_fixed, m),
            f"every straggler set, messages 1/{m} (l/k >= (s + m)/n)",
        )
    return rows


def _compress(values: Iterable[int]) -> str:
    """``1-14, 18, 19, 22-24``: sorted integers with runs of three or more shortened."""
    vals = sorted(set(values))
    out, i = [], 0
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        if j - i >= 2:
            out.append(f"{vals[i]}-{vals[j]}")
        else:
            out += [str(v) for v in vals[i : j + 1]]
        i = j + 1
    return ", ".join(out)


def _refusal_notes(refused: dict[str, list[tuple[int, int, str]]], m: int, s0: int) -> list[str]:
    """One note per scheme and kind of reason: where it was left out, and one reason."""
    out = []
    for name, items in refused.items():
        groups: dict[str, list[tuple[int, int, str]]] = {}
        for item in items:
            groups.setdefault(re.sub(r"\d+", "#", item[2]), []).append(item)
        for group in groups.values():
            sweep = [x for x, mm, _ in group if mm == m or name not in _GENERATOR_SCHEMES]
            panel2 = [mm for x, mm, _ in group if mm != m and name in _GENERATOR_SCHEMES]
            where = []
            if sweep:
                where.append(f"s = {_compress(sweep)}")
            if panel2:
                where.append(f"m = {_compress(panel2)} (s = {s0})")
            same = len({why for _, _, why in group}) == 1
            example = group[0][2] if same else f"e.g. {group[0][2]}"
            out.append(f"{name}: left out at {'; '.join(where)}: {example}")
    return out


def _mark_optima(rows: list[dict[str, Any]], m: int) -> None:
    """``time_optimal`` on each scheme's fastest sweep row (generator-free or Gaussian)."""
    best: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["kind"] == "bound" or r["time"] is None or not math.isfinite(r["time"]):
            continue
        if r["generator"] not in (None, "gaussian"):
            continue
        if r["scheme"] in _GENERATOR_SCHEMES and r["m"] != m:
            continue
        if r["scheme"] not in best or r["time"] < best[r["scheme"]]["time"]:
            best[r["scheme"]] = r
    for r in rows:
        if r["kind"] != "bound" and r["time"] is not None:
            r["time_optimal"] = False
    for r in best.values():
        r["time_optimal"] = True
