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

import time
import warnings
from typing import Any

import numpy as np

from gctheory._progress import Progress
from gctheory.cluster.base import DEAD, ERROR, LATE, NEVER, STATUSES, UNUSED, USED, Engine
from gctheory.cluster.checkpoint import check_checkpoint_path, load_checkpoint, save_checkpoint
from gctheory.cluster.engines import make_engine
from gctheory.cluster.results import ClusterError, ClusterRun, WorkerLostWarning
from gctheory.cluster.rules import Rule, build_scheme
from gctheory.cluster.sequential import SequentialRule, is_sequential, run_sequential
from gctheory.cluster.workloads import make_workload

__all__ = ["ClusterRun", "ClusterError", "WorkerLostWarning", "run", "STATUSES"]

_NEVER, _USED, _UNUSED, _LATE, _ERROR, _DEAD = NEVER, USED, UNUSED, LATE, ERROR, DEAD


class _Bar:
    """The run's progress (:class:`~gctheory._progress.Progress`): a bar on a terminal, a
    line every 10 s off one, nothing with ``progress=False``."""

    def __init__(self, total: int, enabled: bool | None, label: str) -> None:
        self.progress = Progress(total, label, enabled=enabled)

    def update(self, done: int) -> None:
        self.progress.update(done)

    def close(self) -> None:
        self.progress.close()


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
    checkpoint: Any = None,
    checkpoint_every: int = 1,
    resume: bool = False,
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
        seconds if ``wait_for`` have not. Exact codes: no effect (their
        decoder needs ``n - s``). Sequential codes (SR-SGC, M-SGC): the round
        ends at the deadline when the workers missing then keep the straggler
        pattern inside the (B, W, lambda) model (the code still decodes every
        job on time), else the master waits on by the paper's rule (see
        :mod:`gctheory.cluster.sequential`).
    on_error : {"stop", "straggler"}
        A raising gradient oracle stops the run (the error names worker and
        partition) or makes that worker a straggler for the iteration.
    timeout : float
        Seconds without any answer after which the run stops (naming the
        workers it waits for).
    eval_every : int
        Metrics every this many iterations (0: only at the end); not timed: they are
        evaluated from the parameters reached, after the run, on every engine.
    persist, n_slow, slowdown, comm_time :
        Options of :class:`gctheory.delays.DelayModel`, as in the simulator.
    trace : path, optional
        Write the trace CSV (and the ``.json`` sidecar replay reads) there.
    progress : bool, optional
        Progress on stderr: a bar on a terminal, a line every 10 s elsewhere (default);
        ``True`` draws the bar even off a terminal, ``False`` prints nothing.
    on_iteration : callable, optional
        ``on_iteration(t, engine)`` after each iteration (and its checkpoint).
    checkpoint : path, optional
        Write a checkpoint there every ``checkpoint_every`` iterations and
        after the last (see :mod:`gctheory.cluster.checkpoint`).
    resume : bool
        Start from the checkpoint at ``checkpoint`` when there is one (same
        configuration; ``iterations`` counts from the start of the first run);
        without a file there the run starts afresh. Workers always start
        afresh: a worker dead before the master stopped is alive again.
    m : int
        Communication saving of the code (messages ``1/m`` of a gradient).
    code_options : dict, optional
        Options of the code family, as in :func:`gctheory.training.make_scheme`.
    checkpoint_every : int
        Iterations between checkpoints (with ``checkpoint``).

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

    Examples
    --------
    >>> from gctheory.cluster import run
    >>> if __name__ == "__main__":  # worker processes re-import the main module  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    ...     print(result.iterations, result.dead)
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
    if resume and checkpoint is None:
        raise ValueError("resume=True needs checkpoint=PATH (the file to resume from)")
    if checkpoint is not None:
        check_checkpoint_path(checkpoint)
    if not isinstance(checkpoint_every, (int, np.integer)) or checkpoint_every < 1:
        raise ValueError(f"checkpoint_every must be a positive int, got {checkpoint_every!r}")
    seed = _seed(rng)
    sch = build_scheme(scheme, n, s=s, K=K, m=m, code_options=code_options, seed=seed)
    seq = is_sequential(sch)
    rule: Any = SequentialRule(sch) if seq else Rule(sch)
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
        "scheme": str(scheme).replace("-", "_") if seq else sch.name,
        "n": n,
        "s": s,
        "K": K,
        "m": m,
        "code_options": dict(code_options or {}),
        "workload": wl.spec() if hasattr(wl, "spec") else None,
        "seed": seed,
        "step_size": alpha,
        "delay": getattr(dm, "label", str(delay)),
        "delay_options": {
            "persist": dm.persist,
            "n_slow": dm.n_slow,
            "slowdown": float(dm.slowdown),
            "comm_time": float(dm.comm_time),
        },
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
    it_time, wait_t, dec_t, cpu_t = np.zeros(T), np.zeros(T), np.zeros(T), np.zeros(T)
    noise_b = np.full(T, np.nan)  # the decoder's forward-error bound per iteration
    survivors: list[tuple[int, ...]] = []
    history = [w.copy()]
    metrics: dict[str, list[float]] = {}
    metric_its: list[int] = []
    dead: dict[int, int] = {}
    measured_len = 0
    bar = _Bar(T, progress, f"gctheory run {sch.name} n={n}")
    has_metrics = hasattr(wl, "metrics")

    def record_metrics(t: int) -> None:
        # only noted here; evaluated from params_history when the run is handed back
        # (fill_metrics), so no engine's iterations share the machine with an evaluation
        # (under MPI its BLAS threads, still spinning, slowed the next timed iteration)
        if has_metrics:
            metric_its.append(t)

    def fill_metrics() -> None:
        evaluated = len(next(iter(metrics.values()), []))
        for t in metric_its[evaluated:]:
            for key, v in wl.metrics(history[t]).items():
                metrics.setdefault(key, []).append(float(v))

    def partial(done: int) -> ClusterRun:
        fill_metrics()
        return _result(sch, rule, eng, dm, wl, w, history, it_time, wait_t, dec_t, cpu_t, survivors,
                       injected, finish, start_at, status, bytes_down, bytes_up, measured_len,
                       metrics, metric_its, dead, config, done, t_run, noise_b)  # fmt: skip

    def save(done: int, sequential: dict | None = None) -> None:
        save_checkpoint(checkpoint, {
            "sequential": sequential,
            "config": config, "done": done, "params": w, "history": np.array(history),
            "injected": injected[:done], "start_at": start_at[:done], "finish": finish[:done],
            "status": status[:done], "bytes_down": bytes_down[:done],
            "bytes_up": bytes_up[:done], "it_time": it_time[:done], "wait_t": wait_t[:done],
            "dec_t": dec_t[:done], "cpu_t": cpu_t[:done], "noise_b": noise_b[:done],
            "survivors": survivors,
            "metrics": metrics,
            "metric_its": metric_its, "dead": dead, "measured_len": measured_len,
            "rng_state": delay_rng.bit_generator.state, "X": X,
            "elapsed": time.perf_counter() - t_run,
        })  # fmt: skip

    t0, X, elapsed = 0, None, 0.0
    st = load_checkpoint(checkpoint, config) if resume else None
    if st is not None:
        t0 = int(st["done"])
        if t0 > T:
            raise ValueError(
                f"the checkpoint {str(checkpoint)!r} is at iteration {t0}, past "
                f"iterations={T}; ask for iterations >= {t0}"
            )
        arrays = {"injected": injected, "start_at": start_at, "finish": finish, "status": status,
                  "bytes_down": bytes_down, "bytes_up": bytes_up, "it_time": it_time,
                  "wait_t": wait_t, "dec_t": dec_t, "cpu_t": cpu_t, "noise_b": noise_b}  # fmt: skip
        for key, arr in arrays.items():
            if key in st:  # (a checkpoint written before noise_b was kept has nan there)
                arr[:t0] = st[key]
        w = np.array(st["params"], copy=True)
        history = [np.array(h) for h in st["history"]]
        survivors = list(st["survivors"])
        metrics = {key: list(v) for key, v in st["metrics"].items()}
        metric_its = list(st["metric_its"])
        measured_len, X, elapsed = st["measured_len"], st["X"], float(st["elapsed"])
        delay_rng.bit_generator.state = st["rng_state"]
    else:
        record_metrics(0)
    eng.start(states)
    # coded workers sharing one engine slot (Dask thread): their tasks queue (compare refuses)
    config["tasks_per_slot"] = int(eng.tasks_per_slot())
    t_run = time.perf_counter() - elapsed  # a resumed run's clock goes on where it stopped
    done = t0
    try:
        if seq:  # SR-SGC / M-SGC: rounds with jobs in flight (gctheory.cluster.sequential)
            ctx = {"sch": sch, "eng": eng, "dm": dm, "rule": rule, "T": T, "alpha": alpha,
                   "timeout": timeout, "on_error": on_error, "preempt": preempt,
                   "injected": injected, "start_at": start_at, "finish": finish,
                   "status": status, "bytes_down": bytes_down, "bytes_up": bytes_up,
                   "it_time": it_time, "wait_t": wait_t, "dec_t": dec_t, "cpu_t": cpu_t,
                   "noise_b": noise_b,
                   "survivors": survivors, "history": history, "dead": dead, "t_run": t_run,
                   "delay_rng": delay_rng, "w": w, "measured_len": measured_len,
                   "deadline": deadline,
                   "resume": st.get("sequential") if st is not None else None}  # fmt: skip

            def after(k: int) -> None:
                nonlocal w, done, measured_len
                w, done, measured_len = ctx["w"], k, ctx["measured_len"]
                if eval_every and k % eval_every == 0 or k == T:
                    record_metrics(k)
                if checkpoint is not None and (k % checkpoint_every == 0 or k == T):
                    save(k, ctx["state"])
                if on_iteration is not None:
                    on_iteration(k - 1, eng)
                bar.update(k)

            def seq_partial(k: int) -> ClusterRun:
                nonlocal w
                w = ctx["w"]
                bar.close()
                return partial(k)

            ctx["after"], ctx["partial"] = after, seq_partial
            run_sequential(ctx)
            config["waited_all"], config["straggled"] = ctx["waited_all"], ctx["straggled"]
            config["deadline_rounds"] = ctx["deadline_rounds"]
        for t in range(t0 if not seq else T, T):
            if dm.replay is not None:
                X = dm.replay.per_unit_times(t, sch.loads, delay_rng)
            elif t % dm.persist == 0 or X is None:
                X = dm.draw(delay_rng, n)
            inj = np.asarray(sch.finish_times(X), float)
            injected[t] = inj
            start, cpu0 = time.perf_counter(), time.process_time()
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
                        f"{pending} ({', '.join(eng.where(i) for i in pending)}; engine "
                        f"{eng.describe()})",
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
                        message = ev.message
                        assert message is not None, "a result event (neither dead nor error)"
                        finish[t, i] = ev.at - t_run
                        arrived.append(i)
                        msgs[i] = message
                        status[t, i] = _UNUSED
                        bytes_up[t] += ev.nbytes
                        measured_len = message.size
                    elif 0 <= et < t:  # a late result: recorded, dropped
                        finish[et, i] = ev.at - t_run
                        status[et, i] = _LATE
            decided = time.perf_counter()
            Ss = tuple(sorted(S))
            grad = rule.decode(Ss, np.stack([msgs[i] for i in Ss]), dim)
            noise_b[t] = rule.noise_bound
            w = w - alpha * grad
            end = time.perf_counter()
            for i in Ss:
                status[t, i] = _USED
            survivors.append(Ss)
            it_time[t], wait_t[t], dec_t[t] = end - start, decided - start, end - decided
            cpu_t[t] = time.process_time() - cpu0
            history.append(w.copy())
            done = t + 1
            if eval_every and done % eval_every == 0 or done == T:
                record_metrics(done)
            if checkpoint is not None and (done % checkpoint_every == 0 or done == T):
                save(done)
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


def _result(sch, rule, eng, dm, wl, w, history, it_time, wait_t, dec_t, cpu_t, survivors, injected,
            finish, start_at, status, bytes_down, bytes_up, measured_len, metrics, metric_its,
            dead, config, done, t_run, noise_b) -> ClusterRun:  # fmt: skip
    T = done
    resp = finish[:T] - start_at[:T, None]
    return ClusterRun(
        scheme=str(config["scheme"]),
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
        decode_noise_bound=noise_b[:T].copy(),
        master_cpu=cpu_t[:T].copy(),
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
        loads=np.asarray(sch.loads, float).copy(),  # l_i: the injected sleep is l_i X
    )
