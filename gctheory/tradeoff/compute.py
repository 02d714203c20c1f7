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
from dataclasses import dataclass
from typing import Any

from gctheory._validate import check_choice, check_int, check_probability, check_real
from gctheory.montecarlo import seed_sequence
from gctheory.tradeoff.bounds import bound_rows
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
from gctheory.tradeoff.sweep import (
    check_s_list,
    m_values_at,
    spread,
    stability_points,
    sweep_points,
)
from gctheory.tradeoff.table import TradeoffTable

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
    n = _check_n(n)
    s_fixed = round(n / 10) if s is None else check_int(s, "s", low=0, high=n - 1)
    m_sweep = 2 if m is None else check_int(m, "m", low=1)
    if kappa is not None:
        kappa = check_real(kappa, "kappa", low=1.0)
    eps = check_probability(eps, "eps", open_low=True, open_high=True)
    error = check_real(error, "error", low=0.0, high=1.0, high_open=True)
    tau = check_real(tau, "tau", low=0.0)
    plugins = plugin_builders()  # installed code plug-ins: a row where they can be built
    names = _schemes_asked(schemes, plugins)
    families, gen_names = _generator_families_asked(generators)
    effort = _effort(quick, trials, time_trials)
    model = _delay_model(delay, n)
    axes_used = _default_axes(kappa, model.timed) if axes is None else list(axes)
    for a in axes_used:
        check_choice(a, "axis", TRADEOFF_AXES)
    if s_values is not None:
        s_values = check_s_list(s_values, n, "s_values")
    if m_values is not None:
        m_values = sorted({check_int(v, "m_values", low=1) for v in m_values})
    if s_fixed + m_sweep > n and any(x in names for x in _GENERATOR_SCHEMES):
        raise ValueError(
            f"m must satisfy s + m <= n (Ye-Abbe's load s + m cannot exceed k = n), got "
            f"s = {s_fixed}, m = {m_sweep}, n = {n}"
        )
    names, notes = _schemes_kept(names, plugins, n)
    notes += model.notes
    # the optima: the sweep holds each runtime scheme's exact time optimum
    sweep = sweep_points(n, s_fixed, m_sweep, names, s_values, effort, model.sweep_law(n), tau)
    mvals = m_values_at(n, s_fixed, m_sweep, m_values, quick)
    ctx = Context(
        n=n,
        m=m_sweep,
        eps=eps,
        error=error,
        kappa=kappa,
        tau=tau,
        dist=model.dist,
        replay=model.replay,
        root=seed_sequence(rng),
        families=families,
        stability_families=tuple(gen_names),
        memory=model.memory,
        **_effort_fields(n, s_fixed, m_sweep, names, sweep, effort, len(gen_names) if kappa else 0),
    )
    tasks = _scheme_tasks(names, ctx, s_fixed, mvals)
    rows = bound_rows(n, sweep, s_fixed, mvals, eps, error)
    if progress:
        progress(1, len(tasks) + 1, "load bounds")
    refused = _build_rows(tasks, ctx, plugins, rows, progress)
    notes += _refusal_notes(refused, m_sweep, s_fixed)
    _mark_optima(rows, m_sweep)
    notes += _infinite_time_notes(rows, model)
    for r, (dom, by) in zip(rows, dominance(rows, axes_used)):
        r["dominated"], r["dominated_by"] = dom, by
    params = _parameters(ctx, s_fixed, model.label, axes_used, names, mvals, quick)
    return TradeoffTable(tuple(rows), params, tuple(notes))


def _parameters(
    ctx: Context,
    s_fixed: int,
    label: str | None,
    axes: Sequence[str],
    names: Sequence[str],
    mvals: Sequence[int],
    quick: bool,
) -> dict[str, Any]:
    """The table's ``parameters``: what was asked and where the rows were computed."""
    return {
        "n": ctx.n,
        "s": s_fixed,
        "m": ctx.m,
        "kappa": ctx.kappa,
        "eps": ctx.eps,
        "error": ctx.error,
        "delay": label,
        "tau": ctx.tau,
        "axes": ",".join(axes),
        "schemes": ",".join(names),
        "generators": ",".join(ctx.stability_families),
        "s_values": ",".join(map(str, ctx.sweep)),
        "m_values": ",".join(map(str, mvals)),
        "mc_points": ",".join(map(str, sorted(ctx.mc_s))),
        "trials": ctx.trials,
        "time_trials": ctx.time_trials,
        "quick": bool(quick),
    }


def _check_n(n: Any) -> int:
    """``n`` checked: an integer in ``[2, TRADEOFF_MAX_N]``."""
    n = check_int(n, "n", low=2)
    if n > TRADEOFF_MAX_N:
        raise ValueError(
            f"n must be at most {TRADEOFF_MAX_N}, got {n}: the time optima scan every s "
            "(refused there by runtime.optimal_straggler_tolerance for laws without a closed "
            "form), the d-FRC's exact tail of err sums O(n) big integers of O(n) digits per "
            "load tried, and the batch raptor code holds a dense n x n/b worker-batch matrix"
        )
    return n


def _schemes_asked(schemes: Any, plugins: dict[str, Any]) -> list[str]:
    """The scheme rows asked for, checked by name, in order, each once (default: every
    scheme and every installed plug-in)."""
    valid = list(TRADEOFF_SCHEMES) + list(plugins) + list(TRADEOFF_LEFT_OUT)
    names = _scheme_names(schemes, list(TRADEOFF_SCHEMES) + list(plugins), valid)
    if not names:
        raise ValueError(f"schemes must name at least one of {valid}")
    for name in names:
        check_choice(name, "scheme", valid)
    return list(dict.fromkeys(names))


def _schemes_kept(names: list[str], plugins: dict[str, Any], n: int) -> tuple[list[str], list[str]]:
    """``(names, notes)``: the schemes that get rows, and a note for each left out (a
    scheme of :data:`TRADEOFF_LEFT_OUT`, or the Bernoulli code above ``_BGC_MAX_N``)."""
    notes = [f"{x}: left out: {TRADEOFF_LEFT_OUT[x]}" for x in names if x in TRADEOFF_LEFT_OUT]
    names = [x for x in names if x in TRADEOFF_SCHEMES or x in plugins]
    if "bernoulli" in names and n > _BGC_MAX_N:
        names.remove("bernoulli")
        notes.append(
            f"bernoulli: left out above n = {_BGC_MAX_N} (a dense least squares per Monte "
            "Carlo trial)"
        )
    return names, notes


def _generator_families_asked(
    generators: Sequence[str] | None,
) -> tuple[dict[str, Any], list[str]]:
    """``(families, names)``: the generator families of the stability panel, checked by
    name (default: every family of the registry, without the systematic variants)."""
    fams = generator_families(systematic=True)
    gen_names = list(generator_families()) if generators is None else list(generators)
    for g in gen_names:
        check_choice(g, "generator", fams)
    return {g: fams[g] for g in gen_names}, gen_names


def _effort(quick: bool, trials: int | None, time_trials: int | None) -> dict[str, float]:
    """The Monte Carlo and search effort: :data:`TRADEOFF_EFFORT` with the overrides."""
    effort = dict(TRADEOFF_EFFORT["quick" if quick else "default"])
    if trials is not None:
        effort["trials"] = check_int(trials, "trials", low=1)
    if time_trials is not None:
        effort["time_trials"] = check_int(time_trials, "time_trials", low=2)
    return effort


@dataclass(frozen=True)
class _DelayModel:
    """The time axis: a law (or per-worker laws, or stragglers with memory), a measured
    trace's replay, or neither; its label and the notes it adds."""

    dist: Any
    replay: Any
    label: str | None
    memory: bool
    notes: tuple[str, ...]

    @property
    def timed(self) -> bool:
        return self.dist is not None or self.replay is not None

    def sweep_law(self, n: int) -> Any:
        """The law of the sweep's time optima: the stationary law of stragglers with
        memory where it gives exact times (none otherwise), else the law itself."""
        if not self.memory:
            return self.dist
        from gctheory.delays.markov_times import has_exact_time, stationary_law

        return stationary_law(self.dist) if has_exact_time(self.dist) and n <= 200 else None


def _delay_model(delay: Any, n: int) -> _DelayModel:
    """``delay`` resolved (:func:`resolve_delay`) and checked as the runtime functions
    check it; per-worker laws must be ``n``."""
    dist, replay, label = resolve_delay(delay)
    from gctheory.delays.markov import MemoryDelay

    memory = isinstance(dist, MemoryDelay)  # stragglers with memory: checked when built
    notes: tuple[str, ...] = ()
    if memory:
        from gctheory.delays.markov_times import atlas_note

        notes = (atlas_note(dist, str(label)),)
    elif dist is not None and isinstance(dist, list):  # per-worker laws
        from gctheory.order_stats.heterogeneous import worker_groups

        worker_groups(dist, n, name="delay")  # one law per worker: the count must be n
    elif dist is not None:
        from gctheory.order_stats import _check_dist  # the runtime functions' own check

        _check_dist(dist)
    return _DelayModel(dist, replay, label, memory, notes)


def _effort_fields(
    n: int,
    s_fixed: int,
    m: int,
    names: Sequence[str],
    sweep: Sequence[int],
    effort: dict[str, float],
    stability_families: int,
) -> dict[str, Any]:
    """The :class:`Context` fields set by the effort: Monte Carlo sizes, the points of the
    Monte Carlo twin (``mc_s``: the Monte Carlo-only schemes' rows and the simulated time
    beside each exact one) and of the empirical stability intervals."""
    mc_s = frozenset(spread([x for x in sweep if x >= 1], int(effort["mc_points"])) + [s_fixed])
    stab_s = stability_points(n, m, sweep, s_fixed, names, int(effort["stability_points"]))
    # each family's interval at each stability point (none without kappa)
    calls = sum(len(v) for v in stab_s.values()) * stability_families
    return {
        "trials": int(effort["trials"]),
        "time_trials": int(effort["time_trials"]),
        "mc_s": mc_s,
        "trace_bootstrap": int(effort["trace_bootstrap"]),
        "stability_budget": effort["stability_budget"],
        "stability_calls": calls,
        "stab_s": stab_s,
        "sweep": tuple(sweep),
    }


def _scheme_tasks(
    names: Sequence[str], ctx: Context, s_fixed: int, mvals: Sequence[int]
) -> list[tuple[str, int, int]]:
    """``(scheme, s, m)`` of every row to build: each scheme over the sweep (the Monte
    Carlo-only schemes at the Monte Carlo points only), and the generator-based schemes'
    panel-2 rows at the operating point."""
    tasks = [
        (name, x, ctx.m)
        for name in names
        for x in ctx.sweep
        if not (name in _MC_ONLY and x not in ctx.mc_s)
    ]
    for name in _GENERATOR_SCHEMES:
        if name in names:
            tasks += [(name, s_fixed, mm) for mm in mvals if mm != ctx.m]
    return tasks


def _build_rows(
    tasks: Sequence[tuple[str, int, int]],
    ctx: Context,
    plugins: dict[str, Any],
    rows: list[dict[str, Any]],
    progress: Callable[[int, int, str], None] | None,
) -> dict[str, list[tuple[int, int, str]]]:
    """Each task's rows appended to ``rows`` by its builder; returns the refusals (a
    scheme that cannot exist there) by scheme, as ``(s, m, reason)``."""
    refused: dict[str, list[tuple[int, int, str]]] = {}
    total = len(tasks) + 1
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
    return refused


def _infinite_time_notes(rows: Sequence[dict[str, Any]], model: _DelayModel) -> list[str]:
    """A note when the delay's tail makes every expected iteration time infinite."""
    if not model.timed or any(math.isfinite(r["time"]) for r in rows if r["time"] is not None):
        return []
    why = (
        "the mean of a waited-for order statistic of Pareto delays is finite only when more "
        "than 1/shape workers are not waited for; spec strings read pareto(scale, shape)"
        if getattr(getattr(model.dist, "dist", None), "name", "") == "pareto"
        else "the delay's tail is too heavy for every scheme here"
    )
    return [f"every expected iteration time is infinite under {model.label}: {why}"]


def _default_axes(kappa: float | None, timed: bool) -> list[str]:
    axes = ["load", "communication", "tolerance", "failure"]
    if kappa is not None:
        axes.append("stability")
    if timed:
        axes.append("time")
    return axes


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
