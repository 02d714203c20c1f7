"""The master: distributed gradient descent on real workers, waiting for the fastest it needs.

Every iteration the master draws the injected delays from the delay model
(the simulator's ``finish_times`` of the same scheme, so a simulated and a real
run of a scheme straggle alike), sends the parameters and each worker's delay,
and waits, polling all workers at once, until the scheme's rule is met (Tandon
et al. 2017: any ``n - s`` workers for an exact code; see
:mod:`gctheory.cluster.rules`). It decodes, steps, and moves on without waiting
for the others: a late result is recorded for the trace, then dropped. Dead
workers are permanent stragglers; when too many are dead for the rule to be
met the run stops with :class:`ClusterError`, which carries the run so far.

References
----------
.. [1] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding: avoiding
   stragglers in distributed learning", ICML 2017 (the master waits for the
   fastest ``n - s`` workers and decodes).
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory.cluster.engines import Engine, make_engine
from gctheory.cluster.rules import Rule, build_scheme
from gctheory.cluster.workloads import make_workload

__all__ = ["ClusterRun", "ClusterError", "WorkerLostWarning", "run", "STATUSES"]

#: what became of each worker's task in an iteration (the trace's ``status`` column)
STATUSES = ("never", "used", "unused", "late", "error", "dead")
_NEVER, _USED, _UNUSED, _LATE, _ERROR, _DEAD = range(6)


class WorkerLostWarning(UserWarning):
    """A worker died or failed; the run goes on without it (a permanent straggler)."""


class ClusterError(RuntimeError):
    """The run cannot go on (too many dead workers, an oracle error with ``on_error='stop'``,
    no answer within the timeout). ``run`` holds the :class:`ClusterRun` so far (its
    ``params`` are the last parameters reached)."""

    def __init__(self, message: str, run: ClusterRun | None = None) -> None:
        super().__init__(message)
        self.run = run


@dataclass(frozen=True, eq=False)
class ClusterRun:
    """One real run. Per-iteration arrays have length ``iterations`` (T); ``params_history``
    has T + 1 rows (the start included).

    Attributes
    ----------
    scheme, engine, delay : str
    n, k, need : int
        Workers, data partitions, survivors the rule waits for.
    params, params_history : ndarray
    iteration_time : ndarray (T,)
        Seconds from sending the parameters to the updated parameters.
    wait_time, decode_time : ndarray (T,)
        Of which waiting for the survivors, and decoding plus the update.
    survivors : list of tuple
        The survivor set used each iteration (sorted).
    injected, response : ndarray (T, n)
        Injected delay of every worker, and the time from sending to its
        result reaching the master (nan: never).
    status : ndarray (T, n) of int
        Index into :data:`STATUSES`.
    bytes_down, bytes_up : ndarray (T,)
        Bytes sent to the workers / received from the survivors.
    message_numbers : int
        Numbers per message the code promises, ``ceil(d/m)``.
    message_numbers_measured : int
        Numbers per message received.
    metrics : dict of ndarray
        Train / test metrics at ``metric_iterations``.
    dead : dict
        Worker -> iteration its death was seen.
    config : dict
        Everything :func:`gctheory.cluster.replay` needs.
    """

    scheme: str
    engine: str
    delay: str
    n: int
    k: int
    need: int
    params: np.ndarray = field(repr=False)
    params_history: np.ndarray = field(repr=False)
    iteration_time: np.ndarray = field(repr=False)
    wait_time: np.ndarray = field(repr=False)
    decode_time: np.ndarray = field(repr=False)
    survivors: list = field(repr=False)
    injected: np.ndarray = field(repr=False)
    response: np.ndarray = field(repr=False)
    status: np.ndarray = field(repr=False)
    bytes_down: np.ndarray = field(repr=False)
    bytes_up: np.ndarray = field(repr=False)
    message_numbers: int = 0
    message_numbers_measured: int = 0
    metrics: dict = field(default_factory=dict, repr=False)
    metric_iterations: np.ndarray = field(default=None, repr=False)
    dead: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict, repr=False)
    wall_time: float = 0.0
    loads: np.ndarray = field(default=None, repr=False)

    @property
    def iterations(self) -> int:
        return len(self.iteration_time)

    @property
    def iterations_per_second(self) -> float:
        tot = float(np.sum(self.iteration_time))
        return self.iterations / tot if tot > 0 else math.nan

    @property
    def stragglers_ignored(self) -> np.ndarray:
        """Workers not used each iteration (late, never, dead or error)."""
        return self.n - np.array([len(S) for S in self.survivors], dtype=np.int64)

    @property
    def overhead(self) -> np.ndarray:
        """(T, n): measured response minus injected delay (transfer, compute, scheduling)."""
        return self.response - self.injected

    def mean_iteration_time(self, level: float = 0.95) -> Any:
        """Mean iteration time with a CLT interval (a :class:`gctheory.montecarlo.Estimate`)."""
        from scipy import stats

        from gctheory.montecarlo import Estimate

        x = self.iteration_time
        sd = float(np.std(x, ddof=1)) if len(x) > 1 else math.nan
        half = float(stats.norm.ppf(0.5 + level / 2)) * sd / math.sqrt(len(x))
        v = float(np.mean(x))
        return Estimate(v, v - half, v + half, len(x), level, None, sd, "clt")

    def trace(self) -> Any:
        """The run as a :class:`gctheory.delays.Trace` (see :mod:`gctheory.cluster.trace`)."""
        from gctheory.cluster.trace import run_trace

        return run_trace(self)

    def save(self, path: Any) -> Any:
        """Write the trace CSV and its ``.json`` sidecar (the config replay needs)."""
        from gctheory.cluster.trace import save_run

        return save_run(self, path)

    def __repr__(self) -> str:
        return (
            f"ClusterRun({self.scheme!r}, n={self.n}, engine={self.engine!r}, "
            f"iterations={self.iterations}, {self.iterations_per_second:.3g} it/s, "
            f"dead={sorted(self.dead)})"
        )


class _Bar:
    def __init__(self, total: int, enabled: bool | None, label: str) -> None:
        self.on = sys.stderr.isatty() if enabled is None else bool(enabled)
        self.total, self.label, self.t0, self.last = total, label, time.monotonic(), 0.0

    def update(self, done: int) -> None:
        now = time.monotonic()
        if not self.on or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        frac = done / self.total
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        rate = done / max(now - self.t0, 1e-9)
        sys.stderr.write(f"\r{self.label} [{bar}] {done}/{self.total} {rate:6.1f} it/s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _seed(rng: Any) -> int:
    if rng is None:
        return 0
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return int(rng)
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**63))
    raise ValueError(
        f"rng must be a nonnegative int seed or a numpy Generator (a run records its seed "
        f"for replay), got {rng!r}"
    )


def run(
    scheme: str,
    n: int,
    s: int | None = None,
    *,
    K: int | None = None,
    m: int = 1,
    code_options: dict[str, Any] | None = None,
    workload: Any = "softmax",
    engine: Any = "local",
    delay: Any = "constant(0)",
    iterations: int = 100,
    step_size: float | None = None,
    rng: Any = 0,
    preempt: bool = True,
    deadline: float | None = None,
    on_error: str = "stop",
    timeout: float = 60.0,
    eval_every: int = 1,
    persist: int = 1,
    n_slow: int = 0,
    slowdown: float = 1.0,
    comm_time: float = 0.0,
    trace: Any = None,
    progress: bool | None = None,
    on_iteration: Any = None,
) -> ClusterRun:
    """Run distributed gradient descent with ``scheme`` on ``n`` real workers.

    Parameters
    ----------
    scheme : str
        A name of :data:`gctheory.cluster.SUPPORTED_SCHEMES` (the simulator's
        schemes minus the stateful ones), built by
        :func:`gctheory.training.make_scheme` with ``s``/``K``, ``m`` and
        ``code_options`` exactly as :func:`gctheory.training.simulate` builds it.
    n : int
        Number of workers.
    s, K : int
        Stragglers tolerated, or workers waited for (``K = n - s``).
    workload : str or GradientOracle
        ``"softmax"`` / ``"logistic"`` on the digits (:class:`DigitsWorkload`,
        with a held-out test split), or an object with
        ``partial_gradient(params, partition)``, ``initial_params()``, ``k``
        and ``dim`` whose ``k`` matches the scheme's.
    engine : str or Engine
        ``"local"`` (worker processes), ``"dask"`` / ``"dask=ADDRESS"``, ``"mpi"``.
    delay : str, scipy.stats frozen law or DelayModel
        Injected per-unit-load delay as in :func:`gctheory.training.simulate`
        (``"shifted_exp(0.05, 0.02)"``, ``"trace:PATH"``); worker ``i`` sleeps
        ``l_i X_i + comm_time f_i`` seconds on top of its real work.
    iterations : int
    step_size : float, optional
        Default: the workload's ``step_size()`` (``1/L`` for the digits) or 0.1.
    rng : int or Generator
        Seed of the split, the code and the delays (recorded for replay).
    preempt : bool
        A straggler's pending wait is cancelled when the next iteration's
        parameters reach it (every iteration starts afresh, the model of
        :mod:`gctheory.runtime`); False lets it finish (recorded as late).
    deadline : float, optional
        Approximate schemes: decode from whoever answered within this many
        seconds if ``wait_for`` have not.
    on_error : {"stop", "straggler"}
        A raising gradient oracle stops the run (the error names worker and
        partition) or makes that worker a straggler for the iteration.
    timeout : float
        Seconds without any answer after which the run stops (naming the
        workers it waits for).
    eval_every : int
        Metrics every this many iterations (0: only at the end); not timed.
    persist, n_slow, slowdown, comm_time :
        Options of :class:`gctheory.delays.DelayModel`, as in the simulator.
    trace : path, optional
        Write the trace CSV (and the ``.json`` sidecar replay reads) there.
    progress : bool, optional
        A progress bar on stderr (default: when stderr is a terminal).
    on_iteration : callable, optional
        ``on_iteration(t, engine)`` after each iteration (fault tests use it).

    Returns
    -------
    ClusterRun

    Raises
    ------
    ValueError
        Before any work: unknown scheme, delay spec, engine or option; a code
        whose ``k`` differs from the workload's; ``n`` more than the engine has.
    ClusterError
        When the run cannot go on; ``.run`` holds it so far.
    """
    from gctheory.delays import parse_delay

    # ---------------------------------------------------------------- checks
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    n = int(n)
    if not isinstance(iterations, (int, np.integer)) or iterations < 1:
        raise ValueError(f"iterations must be a positive int, got {iterations!r}")
    if on_error not in ("stop", "straggler"):
        raise ValueError(f"on_error must be 'stop' or 'straggler', got {on_error!r}")
    if deadline is not None and not deadline > 0:
        raise ValueError(f"deadline must be > 0 seconds or None, got {deadline!r}")
    if not timeout > 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
    seed = _seed(rng)
    sch = build_scheme(scheme, n, s=s, K=K, m=m, code_options=code_options, seed=seed)
    rule = Rule(sch)
    dm = parse_delay(delay, persist=persist, n_slow=n_slow, slowdown=slowdown, comm_time=comm_time)
    if dm.n_slow > n:
        raise ValueError(f"n_slow must be at most n={n}, got {dm.n_slow}")
    if dm.replay is not None:
        dm.replay.check(n, sch.loads)
    wl = make_workload(workload, sch.k, seed)
    eng: Engine = make_engine(engine)
    if getattr(eng, "is_worker", False):  # an MPI rank > 0: serve the master, return nothing
        from gctheory.cluster.mpi import serve_worker

        serve_worker()
        return None  # type: ignore[return-value]
    if eng.max_workers is not None and n > eng.max_workers:
        raise ValueError(
            f"n={n} workers but the {eng.name} engine provides {eng.max_workers}; use n <= "
            f"{eng.max_workers} (under mpiexec: -n {n + 1}, one rank for the master)"
        )
    alpha = float(step_size) if step_size is not None else (
        float(wl.step_size()) if hasattr(wl, "step_size") else 0.1
    )  # fmt: skip
    if not alpha > 0:
        raise ValueError(f"step_size must be > 0, got {step_size!r}")
    delay_rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[0])
    config = {
        "scheme": sch.name,
        "n": n,
        "s": s,
        "K": K,
        "m": m,
        "code_options": dict(code_options or {}),
        "workload": wl.spec() if hasattr(wl, "spec") else None,
        "seed": seed,
        "step_size": alpha,
        "delay": getattr(dm, "label", str(delay)),
        "preempt": bool(preempt),
    }

    # ---------------------------------------------------------------- start
    T, dim = int(iterations), None
    w = np.asarray(wl.initial_params(), float).copy()
    dim = w.size
    states = rule.states(wl)
    injected = np.full((T, n), np.nan)
    start_at = np.zeros(T)
    finish = np.full((T, n), np.nan)
    status = np.zeros((T, n), dtype=np.int8)
    bytes_down, bytes_up = np.zeros(T), np.zeros(T)
    it_time, wait_t, dec_t = np.zeros(T), np.zeros(T), np.zeros(T)
    survivors: list[tuple[int, ...]] = []
    history = [w.copy()]
    metrics: dict[str, list[float]] = {}
    metric_its: list[int] = []
    dead: dict[int, int] = {}
    measured_len = 0
    bar = _Bar(T, progress, f"gctheory run {sch.name} n={n}")
    has_metrics = hasattr(wl, "metrics")

    def record_metrics(t: int) -> None:
        if not has_metrics:
            return
        for key, v in wl.metrics(w).items():
            metrics.setdefault(key, []).append(float(v))
        metric_its.append(t)

    def partial(done: int) -> ClusterRun:
        return _result(sch, rule, eng, dm, wl, w, history, it_time, wait_t, dec_t, survivors,
                       injected, finish, start_at, status, bytes_down, bytes_up, measured_len,
                       metrics, metric_its, dead, config, done, t_run)  # fmt: skip

    record_metrics(0)
    eng.start(states)
    t_run = time.perf_counter()
    X = None
    done = 0
    try:
        for t in range(T):
            if dm.replay is not None:
                X = dm.replay.per_unit_times(t, sch.loads, delay_rng)
            elif t % dm.persist == 0 or X is None:
                X = dm.draw(delay_rng, n)
            inj = np.asarray(sch.finish_times(X), float)
            injected[t] = inj
            start = time.perf_counter()
            start_at[t] = start - t_run
            for i in range(n):
                if i in dead:
                    status[t, i] = _DEAD
                    continue
                bytes_down[t] += eng.submit(i, t, w, float(inj[i]), preempt)
            arrived: list[int] = []
            msgs: dict[int, np.ndarray] = {}
            erred: set[int] = set()
            S = None
            last_event = time.perf_counter()
            while S is None:
                now = time.perf_counter()
                closed = deadline is not None and now - start >= deadline
                live = n - len(dead) - len(arrived) - len(erred)
                S = rule.survivors(arrived, closed or live <= 0)
                if S is not None:
                    break
                if not rule.feasible(arrived, live):
                    lost = sorted(set(dead) | erred)
                    bar.close()
                    raise ClusterError(
                        f"iteration {t}: {sch.name} needs {rule.need} of n={n} workers but "
                        f"worker(s) {lost} are lost (dead: {sorted(dead)}, failed: "
                        f"{sorted(erred)}); only {len(arrived) + live} can answer. The "
                        f"parameters after {t} iterations are in .run.params",
                        partial(t),
                    )
                wait_for = timeout - (now - last_event)
                if deadline is not None:
                    wait_for = min(wait_for, max(deadline - (now - start), 0.0))
                if wait_for <= 0:
                    pending = [i for i in range(n) if i not in dead and i not in msgs]
                    bar.close()
                    raise ClusterError(
                        f"iteration {t}: no answer within timeout={timeout:g} s from workers "
                        f"{pending} (engine {eng.describe()})",
                        partial(t),
                    )
                for ev in eng.poll(wait_for):
                    last_event = time.perf_counter()
                    i, et = ev.worker, ev.t
                    if ev.kind == "dead":
                        if i not in dead:
                            dead[i] = t
                            status[t, i] = _DEAD
                            warnings.warn(
                                f"worker {i} is dead at iteration {t} ({ev.error}); it is a "
                                f"permanent straggler from now on",
                                WorkerLostWarning,
                                stacklevel=2,
                            )
                    elif ev.kind == "error":
                        if on_error == "stop":
                            bar.close()
                            raise ClusterError(str(ev.error), partial(t)) from ev.error
                        if et == t:
                            erred.add(i)
                        if 0 <= et <= t:
                            status[et, i] = _ERROR
                        warnings.warn(
                            f"{ev.error}; treated as a straggler", WorkerLostWarning, stacklevel=2
                        )
                    elif et == t:
                        finish[t, i] = ev.at - t_run
                        arrived.append(i)
                        msgs[i] = ev.message
                        status[t, i] = _UNUSED
                        bytes_up[t] += ev.nbytes
                        measured_len = ev.message.size
                    elif 0 <= et < t:  # a late result: recorded, dropped
                        finish[et, i] = ev.at - t_run
                        status[et, i] = _LATE
            decided = time.perf_counter()
            Ss = tuple(sorted(S))
            grad = rule.decode(Ss, np.stack([msgs[i] for i in Ss]), dim)
            w = w - alpha * grad
            end = time.perf_counter()
            for i in Ss:
                status[t, i] = _USED
            survivors.append(Ss)
            it_time[t], wait_t[t], dec_t[t] = end - start, decided - start, end - decided
            history.append(w.copy())
            done = t + 1
            if eval_every and done % eval_every == 0 or done == T:
                record_metrics(done)
            if on_iteration is not None:
                on_iteration(t, eng)
            bar.update(done)
        # results of the last iteration still arriving: a short look, not a wait
        for ev in eng.poll(0.0):
            if ev.kind == "result" and 0 <= ev.t < T and np.isnan(finish[ev.t, ev.worker]):
                finish[ev.t, ev.worker] = ev.at - t_run
                status[ev.t, ev.worker] = _LATE
    except KeyboardInterrupt:
        bar.close()
        raise ClusterError(f"interrupted after {done} iterations", partial(done)) from None
    finally:
        eng.close()
    bar.close()
    res = partial(T)
    if trace is not None:
        res.save(trace)
    return res


def _result(sch, rule, eng, dm, wl, w, history, it_time, wait_t, dec_t, survivors, injected,
            finish, start_at, status, bytes_down, bytes_up, measured_len, metrics, metric_its,
            dead, config, done, t_run) -> ClusterRun:  # fmt: skip
    T = done
    resp = finish[:T] - start_at[:T, None]
    return ClusterRun(
        scheme=sch.name,
        engine=eng.describe(),
        delay=str(config["delay"]),
        n=sch.n,
        k=sch.k,
        need=rule.need,
        params=w.copy(),
        params_history=np.array(history[: T + 1]),
        iteration_time=it_time[:T].copy(),
        wait_time=wait_t[:T].copy(),
        decode_time=dec_t[:T].copy(),
        survivors=list(survivors[:T]),
        injected=injected[:T].copy(),
        response=resp,
        status=status[:T].copy(),
        bytes_down=bytes_down[:T].copy(),
        bytes_up=bytes_up[:T].copy(),
        message_numbers=rule.message_length(w.size),
        message_numbers_measured=int(measured_len),
        metrics={key: np.array(v) for key, v in metrics.items()},
        metric_iterations=np.array(metric_its, dtype=np.int64),
        dead=dict(dead),
        config=dict(config, iterations=T, _starts=start_at[:T].tolist()),
        wall_time=time.perf_counter() - t_run if t_run is not None else 0.0,
        loads=np.asarray(sch.support, bool).sum(axis=1) / sch.k,
    )
