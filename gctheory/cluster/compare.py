"""Measured versus predicted: a real run's mean iteration time against the theory.

The prediction is the expected time at which the scheme's rule is met under
the injected law (exact, from :func:`gctheory.runtime.scheme_time_moments`
where :mod:`gctheory.runtime` models the scheme: uncoded, ignore-s, cyclic
MDS, FRC, Ye-Abbe; otherwise a Monte Carlo of the same rule on draws of the
same delay model) plus the fixed overheads *measured* in the run: a worker's
response minus its injected delay (sending the parameters, the gradient
computation, the transfer back), averaged over the survivors' results (those
stamped while the master waited for them), and the master's decoding and
update. The test: is the measured mean inside the
prediction's interval, a z-test of their difference with both standard errors.

A run with ``preempt=False`` (a late worker finishes its task before it takes the
next parameters, the masters of the papers' mpi4py scripts) is predicted by the
queue of :mod:`gctheory.runtime.carryover`, simulated over the scheme's own rule,
plus the measured overheads: the fresh-start order statistic is too fast for it
(a straggler's lateness carries over).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from gctheory._validate import check_int
from gctheory.cluster.base import UNUSED, USED
from gctheory.montecarlo import mean_of_samples

__all__ = [
    "Comparison",
    "compare",
    "measured_comm",
    "predicted_comm",
    "predicted_wait",
    "law_mean",
    "sweep",
]

#: :mod:`gctheory.runtime` names of the schemes it models
_RUNTIME_NAMES = {"gd": "uncoded", "ignore": "ignore-s", "cyclic_mds": "cyclic-mds",
                  "frc": "frc", "ye_abbe": "ye-abbe"}  # fmt: skip


@dataclass(frozen=True)
class Comparison:
    """Measured and predicted mean iteration time of one run (seconds).

    Attributes
    ----------
    measured, measured_low, measured_high : float
        Mean iteration time and its interval at ``level``.
    predicted, predicted_low, predicted_high : float
        ``law_mean + overhead``, with the interval of the measured overhead
        (and of the Monte Carlo, if used).
    law_mean : float
        Expected wait under the law alone.
    method : str
        ``"gctheory.runtime (exact)"`` or ``"monte carlo"``.
    overhead : float
        Measured fixed overhead per iteration (worker-side and decoding).
    z, p_value : float
        Two-sided z-test of measured = predicted.
    agrees : bool
        ``p_value >= 1 - level``.
    comm_s : float or None
        Predicted communication time per iteration over the ``link`` given to
        :func:`compare` (:func:`predicted_comm`); None without a link.
    comm_measured_s : float or None
        The measured transfer time of a used result (mean over them): from its message
        leaving the worker to the master holding it (:attr:`ClusterRun.comm_time`); None
        where the engine does not stamp the sending.
    comm_up_s : float or None
        The predicted share of ``comm_s`` that ``comm_measured_s`` measures: one message's
        trip up, ``latency + bytes / up``; None without a link.

    Examples
    --------
    >>> from gctheory.cluster import Comparison, run
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    >>> from gctheory.cluster import compare
    >>> compare(result).agrees  # doctest: +SKIP
    """

    measured: float
    measured_low: float
    measured_high: float
    predicted: float
    predicted_low: float
    predicted_high: float
    law_mean: float
    method: str
    overhead: float
    z: float
    p_value: float
    agrees: bool
    level: float
    delay: str
    comm_s: float | None = None
    comm_measured_s: float | None = None
    comm_up_s: float | None = None

    def row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def dm_is_trace(spec: Any) -> bool:
    return isinstance(spec, str) and spec.startswith("trace:")


def _runtime_law(dist: Any, n: int) -> Any:
    """runtime's ``X`` is the time to process the whole dataset: ``n`` times the simulator's."""
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    return dist.dist(*shapes, loc=loc * n, scale=scale * n)


def predicted_wait(
    run: Any, delay: Any = None, *, trials: int = 20_000, rng: Any = 0
) -> tuple[float, float, str]:
    """Expected wait under ``delay`` (default: the run's law): (mean, standard error, method)."""
    return _predicted(run.config, run.n, delay, trials, rng)


def predicted_comm(
    run: Any,
    link: Any,
    *,
    d: int,
    bytes_per_number: int = 8,
    delay: Any = None,
    trials: int = 20_000,
    rng: Any = 0,
) -> float:
    """Predicted communication time per iteration of ``run`` over ``link``: the iteration
    time of :func:`gctheory.runtime.link_iteration_time` minus the same with a free link
    (``2 latency + down + up`` on per-worker links; with a shared link, the queue at the
    master's card under the run's law, by Monte Carlo).

    Parameters
    ----------
    run : ClusterRun
        A run of a scheme :mod:`gctheory.runtime` models (uncoded, ignore-s, cyclic-MDS,
        FRC, Ye-Abbe).
    link : gctheory.runtime.Link
        The network (bytes per second, seconds).
    d : int
        The model's parameter count (numbers sent down; the message is the code's share).
    bytes_per_number : int
        Bytes per number on the wire.
    delay : spec, optional
        The law (default: the one injected).
    trials, rng
        Monte Carlo draws and seed (shared link only).

    Returns
    -------
    float
        Seconds per iteration.
    """
    from gctheory.cluster.rules import Rule, build_scheme
    from gctheory.delays import parse_delay
    from gctheory.runtime import Link, link_iteration_time

    if not isinstance(link, Link):
        raise ValueError(f"link must be a gctheory.runtime.Link, got {link!r}")
    cfg = run.config
    sch = build_scheme(
        cfg["scheme"], run.n, s=cfg.get("s"), K=cfg.get("K"), m=int(cfg.get("m", 1)),
        code_options=cfg.get("code_options"), seed=int(cfg["seed"]),
    )  # fmt: skip
    name = _RUNTIME_NAMES.get(sch.name)
    if name is None:
        raise ValueError(
            f"run: the link model covers {sorted(_RUNTIME_NAMES)}, not the scheme {sch.name!r}"
        )
    dm = parse_delay(cfg["delay"] if delay is None else delay)
    law = _runtime_law(dm.dist, run.n) if hasattr(dm.dist, "dist") else 1.0
    s, m = run.n - Rule(sch).need, int(cfg.get("m", 1))
    kw = dict(d=d, bytes_per_number=bytes_per_number, trials=trials, rng=rng)
    with_link = link_iteration_time(name, law, run.n, s, m, link=link, **kw)
    free = link_iteration_time(
        name, law, run.n, s, m, link=Link(up=math.inf, down=math.inf), **kw
    )  # the same draws (seed) on both sides when Monte Carlo
    return with_link.mean - free.mean


def law_mean(scheme: str, n: int, delay: Any, *, s: int | None = None, K: int | None = None,
             code_options: dict | None = None, seed: int = 0, trials: int = 20_000,
             **delay_options: Any) -> float:  # fmt: skip
    """Expected wait of ``scheme`` on ``n`` workers under ``delay`` alone (no overheads):
    the predicted curve of :func:`sweep` and the figure, without a run."""
    cfg = {"scheme": scheme, "s": s, "K": K, "m": 1, "code_options": code_options or {},
           "seed": seed, "delay": delay, "delay_options": delay_options}  # fmt: skip
    return _predicted(cfg, n, None, trials, 0)[0]


def _model(cfg: dict, n: int, delay: Any) -> tuple[Any, Any, Any]:
    """The run's scheme, its rule and the delay model to predict with (``delay``, or the
    run's own law with its options; a trace keeps only ``comm_time``: it carries its own
    structure)."""
    from gctheory.cluster.rules import build_scheme, make_rule
    from gctheory.delays import parse_delay

    opts = cfg.get("delay_options") or {}
    if dm_is_trace(cfg["delay"] if delay is None else delay):
        opts = {"comm_time": opts.get("comm_time", 0.0)}
    dm = parse_delay(cfg["delay"] if delay is None else delay, **opts)
    sch = build_scheme(
        cfg["scheme"], n, s=cfg.get("s"), K=cfg.get("K"), m=int(cfg.get("m", 1)),
        code_options=cfg.get("code_options"), seed=int(cfg["seed"]),
    )  # fmt: skip
    return sch, make_rule(sch, cfg.get("wait_mu")), dm


def _predicted(
    cfg: dict, n: int, delay: Any, trials: int, rng: Any, extra: np.ndarray | None = None
) -> tuple[float, float, str]:
    """Expected wait of the rule; with ``extra``, each finish time plus a draw from ``extra``."""

    sch, rule, dm = _model(cfg, n, delay)
    if rule.timed:  # the paper's (1 + mu) rule: a Monte Carlo of it, with its interval
        est = rule.expected_time(dm, trials, rng, np.zeros(1) if extra is None else extra)
        sd = float(est.std) if est.std is not None else 0.0
        return float(est.value), sd / math.sqrt(est.trials), "monte carlo ((1 + mu) rule)"
    name = _RUNTIME_NAMES.get(sch.name)
    uniform = bool(np.all(sch.loads == sch.loads[0]))
    if (
        extra is None
        and name is not None
        and dm.replay is None
        and dm.n_slow == 0
        and dm.persist == 1
        and hasattr(dm.dist, "dist")
        and uniform
    ):
        from gctheory.runtime import scheme_time_moments

        s = n - rule.need
        m = int(cfg.get("m", 1))
        try:
            mom = scheme_time_moments(name, _runtime_law(dm.dist, n), n, s, m, tau=dm.comm_time)
            if rule.groups is None or name == "frc":
                return float(mom.mean), 0.0, "gctheory.runtime (exact)"
        except ValueError:
            pass
    gen = np.random.default_rng(rng)
    waits = np.empty(trials)
    X = None
    for j in range(trials):
        if dm.replay is not None:
            X = dm.replay.per_unit_times(j, sch.loads, gen)
        elif j % dm.persist == 0 or X is None:
            X = dm.draw(gen, n)
        Tf = sch.finish_times(X)
        if extra is not None:
            Tf = Tf + extra[gen.integers(extra.size, size=n)]
        waits[j] = rule.wait_time(Tf)
    return float(waits.mean()), float(waits.std(ddof=1) / math.sqrt(trials)), "monte carlo"


def _queue_durations(
    cfg: dict, n: int, delay: Any, iterations: int, runs: int, rng: Any,
    task_extra: float, decode: float,
) -> np.ndarray:  # fmt: skip
    """Mean iteration time of ``runs`` simulated runs of ``iterations`` when stragglers
    carry over (``preempt=False``: a late worker finishes its task, then takes the newest
    parameters; the queue of :mod:`gctheory.runtime.carryover`), for any scheme's rule.

    Each worker's task takes its finish time under the delay model plus ``task_extra`` (the
    measured worker-side overhead); the master broadcasts ``decode`` after the rule is met.
    """

    sch, rule, dm = _model(cfg, n, delay)
    gen = np.random.default_rng(rng)
    out = np.empty(runs)
    for r in range(runs):
        b, free, X = 0.0, np.zeros(n), None
        for t in range(iterations):
            if dm.replay is not None:
                X = dm.replay.per_unit_times(t, sch.loads, gen)
            elif t % dm.persist == 0 or X is None:
                X = dm.draw(gen, n)
            start = np.maximum(b, free)
            finish = start + sch.finish_times(X) + task_extra
            # the (1 + mu) rule's cut counts from the round's start; order statistics do not
            met = b + rule.wait_time(finish - b) if rule.timed else rule.wait_time(finish)
            free = np.where(start < met, finish, free)  # who started task t finishes it
            b = met + decode
        out[r] = b / iterations
    return out


def compare(
    run: Any,
    delay: Any = None,
    *,
    level: float = 0.99,
    rng: Any = 0,
    overhead: str = "fixed",
    trials: int = 20_000,
    preempt: bool | None = None,
    link: Any = None,
    d: int | None = None,
    rule: str | None = None,
    wait_mu: float | None = None,
) -> Comparison:
    """Hold ``run``'s mean iteration time against the prediction for ``delay``.

    Parameters
    ----------
    run : ClusterRun
    delay : spec, optional
        The law to predict with (default: the one injected; give another for
        a negative control: a wrong law should be rejected).
    level : float
        Confidence level of the intervals; ``agrees`` when the z-test does not
        reject at ``1 - level``.
    overhead : {"fixed", "resampled"}
        ``"fixed"``: the prediction is the law's expected wait (exact where
        :mod:`gctheory.runtime` models the scheme) plus the mean measured
        overhead. ``"resampled"``: a Monte Carlo of the rule on the law's
        draws with each worker's response lengthened by an overhead drawn
        from the run's measured ones (response minus injected delay), plus the
        mean decoding time: on a busy machine the overheads vary, and the
        order statistic of ``X_i + O_i`` exceeds that of ``X_i`` plus the mean
        of ``O`` (a max of jittered times is later than the jitter's mean).
    trials : int
        Monte Carlo trials where one is needed.
    rng : None, int or numpy.random.Generator
        Seed of the Monte Carlo where one is needed.
    preempt : bool, optional
        The model to predict with: True, every iteration afresh; False, stragglers
        carry over (the queue of :mod:`gctheory.runtime.carryover`). Default: as the
        run was made (give the other for a negative control).
    link : gctheory.runtime.Link, optional
        The network the run crossed: fills ``comm_s`` (:func:`predicted_comm`). The
        prediction's own time is unchanged (on loopback the measured overhead holds the
        transfer).
    d : int, optional
        The model's parameter count, needed with ``link``.
    rule : {"code", "mu"}, optional
        The waiting rule to predict with: ``"code"``, the code's own (an exact code's
        fastest ``n - s``); ``"mu"``, the paper's ``(1 + mu)`` x first rule (Krishnan,
        Ebrahimi and Khisti, ICLR 2023, Section 5; :class:`~gctheory.cluster.rules.MuRule`)
        with ``wait_mu`` (default: the run's). Default: the rule the run was made with (give
        the other for a negative control). Under the ``(1 + mu)`` rule the first answer's
        response sets the cut, overhead included, so the rule is simulated (Monte Carlo,
        with its interval) on each finishing time plus an overhead: the mean measured one
        (``overhead="fixed"``) or a draw of them (``"resampled"``).
    wait_mu : float, optional
        The ``mu`` of ``rule="mu"``.

    Returns
    -------
    Comparison
        Measured and predicted mean iteration times, the test and its verdict.

    Examples
    --------
    >>> from gctheory.cluster import compare, run
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    >>> compare(result).agrees  # doctest: +SKIP
    >>> compare(result, delay="exp(0.1)").agrees  # a wrong law: rejected  # doctest: +SKIP
    """
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    if overhead not in ("fixed", "resampled"):
        raise ValueError(f"overhead must be 'fixed' or 'resampled', got {overhead!r}")
    if preempt is not None and not isinstance(preempt, bool):
        raise ValueError(f"preempt must be True, False or None, got {preempt!r}")
    if link is not None and d is None:
        raise ValueError("d (the model's parameter count) is needed with link")
    d_int = 1 if d is None else check_int(d, "d", low=1)
    cfg = _rule_config(run.config, rule, wait_mu)
    per_slot = int(run.config.get("tasks_per_slot", 1))
    if per_slot > 1:
        raise ValueError(
            f"run: comparison refused: up to {per_slot} of its n={run.n} coded workers share "
            "one engine thread, so their tasks queue and the measured time is not the "
            "order statistic the prediction models; give every coded worker its own thread "
            "(Dask: threads_per_worker x workers >= n)"
        )
    x = np.asarray(run.iteration_time, float)
    T = len(x)
    if T < 2:
        raise ValueError(f"compare needs at least 2 iterations, got {T}")
    z_lv = float(stats.norm.ppf(0.5 + level / 2))
    se_meas = float(np.std(x, ddof=1)) / math.sqrt(T)
    measured = mean_of_samples(x, level=level)  # Hall's interval: iteration times are skewed
    mean = measured.value
    o = _survivor_overheads(run)
    made_carried = not run.config.get("preempt", True)
    carried = made_carried if preempt is None else not preempt
    if made_carried and T >= 4 * _BATCHES:
        se_meas = _batch_se(x)  # its iteration times are correlated
    over_w = float(o.mean()) if o.size else 0.0
    se_w = float(o.std(ddof=1) / math.sqrt(o.size)) if o.size > 1 else 0.0
    dec = np.asarray(run.decode_time, float)
    se_dec = float(dec.std(ddof=1)) / math.sqrt(T)
    timed = cfg.get("wait_mu") is not None
    if carried:
        law, se_law, method, over, se_over = _carried_over(
            run, cfg, delay, trials, rng, over_w, float(dec.mean()), math.hypot(se_w, se_dec)
        )
    elif (overhead == "resampled" and o.size) or timed:
        extra = o if overhead == "resampled" and o.size else np.array([over_w])
        law, se_law, method = _predicted(cfg, run.n, delay, trials, rng, extra=extra)
        law, over, se_over = law - over_w, over_w + float(dec.mean()), math.hypot(se_w, se_dec)
        method += " (overheads resampled)" if extra is o else " (mean overhead in the rule)"
    else:
        law, se_law, method = _predicted(cfg, run.n, delay, trials, rng)
        over = over_w + float(dec.mean())
        se_over = math.hypot(se_w, se_dec)
    pred = law + over
    se_pred = math.hypot(se_law, se_over)
    se = math.hypot(se_meas, se_pred)
    z = (mean - pred) / se if se > 0 else (0.0 if mean == pred else math.inf)
    p = float(2 * stats.norm.sf(abs(z)))
    label = run.config["delay"] if delay is None else str(delay)
    comm = comm_up = None
    if link is not None:
        comm = predicted_comm(run, link, d=d_int, delay=delay, rng=rng)
        m_cfg = int(run.config.get("m", 1))  # the message: ceil(d / m) numbers (Ye-Abbe)
        comm_up = link.latency + 8 * -(-d_int // m_cfg) / link.up
    return Comparison(
        mean, measured.low, measured.high, pred, pred - z_lv * se_pred,
        pred + z_lv * se_pred, law, method, over, float(z), p, p >= 1 - level, level, label,
        comm_s=comm, comm_measured_s=measured_comm(run), comm_up_s=comm_up,
    )  # fmt: skip


def _rule_config(config: dict, rule: str | None, wait_mu: Any) -> dict:
    """The run's configuration with the waiting rule to predict with (``compare``'s
    ``rule`` and ``wait_mu``)."""
    from gctheory.cluster.rules import check_wait_mu

    mu = check_wait_mu(wait_mu)
    if rule not in (None, "code", "mu"):
        raise ValueError(f"rule must be 'code', 'mu' or None (the run's own), got {rule!r}")
    if rule == "code" and mu is not None:
        raise ValueError("wait_mu is the mu of rule='mu'; rule='code' takes none")
    if rule is None and mu is None:
        return config
    if rule == "code":
        return {**config, "wait_mu": None}
    mu = config.get("wait_mu") if mu is None else mu
    if mu is None:
        raise ValueError("rule='mu' needs wait_mu (the run waited by the code's own rule)")
    return {**config, "wait_mu": mu}


def measured_comm(run: Any) -> float | None:
    """Mean measured transfer time of the used results (seconds; None: not stamped).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> r = SimpleNamespace(comm_time=np.array([[0.1, np.nan], [0.3, 0.2]]),
    ...                     status=np.array([[USED, UNUSED], [USED, USED]]))
    >>> round(measured_comm(r), 6)
    0.2
    """
    c = np.asarray(getattr(run, "comm_time", ()), float)
    status = np.asarray(run.status)
    if c.shape != status.shape:
        return None
    c = c[(status == USED) & np.isfinite(c)]
    return float(c.mean()) if c.size else None


#: batches of a run without preemption: its iteration times are correlated (a late
#: worker carries its lateness on), so the standard error comes from batch means
_BATCHES = 10


def _batch_se(x: np.ndarray) -> float:
    """Standard error of the mean of a correlated series from ``_BATCHES`` batch means."""
    means = np.array([b.mean() for b in np.array_split(x, _BATCHES)])
    return float(means.std(ddof=1)) / math.sqrt(_BATCHES)


def _survivor_overheads(run: Any) -> np.ndarray:
    """Each used result's response minus its injected delay, from workers that started on
    time. Only survivors count: their arrival is stamped while the master waits for them;
    an unused or late result is stamped when the master next polls (after its decoding,
    or in the next iteration), which would inflate the overhead. Without preemption a
    worker whose previous result was late started its task late, and its response holds
    that wait too: it is left out."""
    o = np.asarray(run.overhead, float)
    status = np.asarray(run.status)
    keep = (status == USED) & np.isfinite(o)
    if not run.config.get("preempt", True):
        before = np.vstack([np.full((1, status.shape[1]), USED), status[:-1]])
        keep &= np.isin(before, (USED, UNUSED))
    return o[keep]


def _carried_over(
    run: Any, cfg: dict, delay: Any, trials: int, rng: Any, over_w: float, dec: float,
    se_over: float,
) -> tuple[float, float, str, float, float]:  # fmt: skip
    """The prediction of a run without preemption: the queue's mean iteration time under
    the law (the master's decoding inside it: workers stay late while it decodes), plus
    the measured overheads once. The worker overhead is mostly the master's stamping and
    the transfer, not time a worker is busy, so it is not queued: replaying a run's own
    injected delays through the queue put it within 2 ms of the measured mean (140 vs
    142 ms, cyclic-MDS n = 8, s = 3), queuing the overhead 18 ms above it."""
    T = len(run.iteration_time)
    runs = max(20, min(2000, trials // max(T, 1)))
    x = _queue_durations(cfg, run.n, delay, T, runs, rng, 0.0, dec)
    se_mc = float(x.std(ddof=1)) / math.sqrt(runs)
    return (
        float(x.mean()) - dec,
        se_mc,
        "monte carlo (stragglers carry over)",
        over_w + dec,
        se_over,
    )


def sweep(
    cases: Any,
    *,
    n: int = 8,
    delay: Any = "shifted_exp(0.02, 0.02)",
    iterations: int = 30,
    engine: str = "local",
    workload: Any = "quadratic",
    rng: int = 0,
    level: float = 0.99,
    overhead: str = "fixed",
    **delay_options: Any,
) -> list[dict[str, Any]]:
    """Run each case for real and hold it against the prediction: one row per case.

    Parameters
    ----------
    cases : sequence of dict
        Keyword arguments of :func:`gctheory.cluster.run` per case, at least
        ``scheme`` (e.g. ``{"scheme": "cyclic_mds", "s": 2}``).
    overhead : {"fixed", "resampled"}
        How :func:`compare` adds the measured overheads.
    n, delay, iterations, engine, workload, rng, **delay_options
        Shared by every case (``delay_options``: ``n_slow``, ``slowdown``...).
    level : float
        Confidence level of the intervals and of the agreement test.

    Returns
    -------
    list of dict
        ``scheme``, ``s``, ``engine``, ``need``, the :class:`Comparison`'s
        fields, ``iterations``, ``decode_ms`` and ``wall_s`` per case.
    """
    from gctheory.cluster.engines import DaskEngine
    from gctheory.cluster.master import run as run_

    if overhead not in ("fixed", "resampled"):
        raise ValueError(f"overhead must be 'fixed' or 'resampled', got {overhead!r}")
    rows = []
    for case in cases:
        case = dict(case)
        if "scheme" not in case:
            raise ValueError(f"every case needs a 'scheme', got {case!r}")
        eng = DaskEngine() if engine == "dask" else engine
        r = run_(n=n, delay=delay, iterations=iterations, engine=eng, workload=workload,
                 rng=rng, eval_every=0, **delay_options, **case)  # fmt: skip
        c = compare(r, level=level, overhead=overhead)
        s = case.get("s", n - case["K"] if case.get("K") is not None else 0)
        row = {"scheme": r.scheme, "s": s, "engine": r.engine.split()[0], "need": r.need}
        row.update(c.row(), iterations=r.iterations, wall_s=r.wall_time)
        row["decode_ms"] = 1e3 * float(np.mean(r.decode_time))
        rows.append(row)
    return rows
