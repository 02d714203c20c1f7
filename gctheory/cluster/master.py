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

from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory.cluster.base import DEAD, ERROR, LATE, NEVER, STATUSES, UNUSED, USED
from gctheory.cluster.callbacks import Checkpointer, MetricNotes, ProgressCallback, UserCallback
from gctheory.cluster.checkpoint import check_checkpoint_path, load_checkpoint
from gctheory.cluster.engines import make_engine
from gctheory.cluster.faults import FaultPolicy
from gctheory.cluster.record import Record
from gctheory.cluster.results import ClusterError, ClusterRun, WorkerLostWarning
from gctheory.cluster.rounds import EngineRounds
from gctheory.cluster.rules import build_scheme, make_rule
from gctheory.cluster.sequential import SequentialRounds, SequentialRule, is_sequential
from gctheory.cluster.spec import RunSpec
from gctheory.cluster.workloads import make_workload
from gctheory.loop import run_loop

__all__ = ["ClusterRun", "ClusterError", "WorkerLostWarning", "run", "STATUSES"]

_NEVER, _USED, _UNUSED, _LATE, _ERROR, _DEAD = NEVER, USED, UNUSED, LATE, ERROR, DEAD


def run(
    scheme: str | None = None,
    n: int | None = None,
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
    wait_mu: float | None = None,
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
    spec: RunSpec | None = None,
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
    wait_mu : float, optional
        Exact codes with ``s >= 1``: wait by the paper's rule instead of for the
        fastest ``n - s`` (Krishnan, Ebrahimi and Khisti, ICLR 2023, Section 5;
        :class:`gctheory.cluster.rules.MuRule`): until ``(1 + wait_mu)`` times
        the first arrival's response time, then decode if at most ``s`` are
        missing, else wait for every worker. Default None: the code's own rule.
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
    spec : RunSpec, optional
        The run's description whole (:class:`gctheory.cluster.spec.RunSpec`), instead of
        ``scheme``, ``n`` and the keywords that describe the run; ``trace``,
        ``progress``, ``on_iteration``, ``checkpoint`` and ``resume`` still apply.

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
    if spec is None:
        if scheme is None or n is None:
            raise ValueError("run needs scheme and n (or spec=RunSpec)")
        spec = RunSpec.build(
            scheme, n, s, K=K, m=m, code_options=code_options, workload=workload,
            engine=engine, delay=delay, persist=persist, n_slow=n_slow, slowdown=slowdown,
            comm_time=comm_time, iterations=iterations, step_size=step_size, rng=rng,
            preempt=preempt, deadline=deadline, on_error=on_error, timeout=timeout,
            eval_every=eval_every, checkpoint_every=checkpoint_every, wait_mu=wait_mu,
        )  # fmt: skip
    elif scheme is not None or n is not None:
        raise ValueError("give either spec=RunSpec or scheme and n, not both")
    if resume and checkpoint is None:
        raise ValueError("resume=True needs checkpoint=PATH (the file to resume from)")
    if checkpoint is not None:
        check_checkpoint_path(checkpoint)
    parts = _build(spec)
    if parts is None:  # an MPI rank > 0 served the master
        return None  # type: ignore[return-value]
    opts = _Options(trace, progress, on_iteration, checkpoint, resume)
    return _Master(spec, parts, opts).go()


@dataclass
class _Parts:
    """What a spec builds: the scheme, its rule, the delay model, workload, engine, step."""

    sch: Any
    rule: Any
    dm: Any
    wl: Any
    eng: Any
    alpha: float
    config: dict[str, Any]


@dataclass
class _Options:
    """How this run is watched and kept (not part of the run's description)."""

    trace: Any
    progress: bool | None
    on_iteration: Any
    checkpoint: Any
    resume: bool


def _build(spec: RunSpec) -> _Parts | None:
    """The run's parts from its spec, every check before any work (None: an MPI worker rank,
    which served the master)."""
    from gctheory.delays import parse_delay

    sc, dl = spec.scheme, spec.delay
    n = sc.n
    sch = build_scheme(sc.name, n, s=sc.s, K=sc.K, m=sc.m, code_options=sc.code_options,
                       seed=spec.seed)  # fmt: skip
    seq = is_sequential(sch)
    if spec.wait_mu is not None and (seq or spec.faults.deadline is not None):
        why = ("sequential codes wait by their own (1 + mu) rule: give mu in code_options"
               if seq else "deadline and wait_mu are two waiting rules: give one")  # fmt: skip
        raise ValueError(f"wait_mu={spec.wait_mu!r}: {why}")
    rule: Any = SequentialRule(sch) if seq else make_rule(sch, spec.wait_mu)
    dm = parse_delay(dl.law, persist=dl.persist, n_slow=dl.n_slow, slowdown=dl.slowdown,
                     comm_time=dl.comm_time)  # fmt: skip
    if dm.n_slow > n:
        raise ValueError(f"n_slow must be at most n={n}, got {dm.n_slow}")
    if dm.replay is not None:
        dm.replay.check(n, sch.loads)
    wl = make_workload(spec.workload, sch.k, spec.seed)
    eng = make_engine(spec.engine)
    if getattr(eng, "is_worker", False):  # an MPI rank > 0: serve the master, return nothing
        from gctheory.cluster.mpi import serve_worker

        serve_worker()
        return None
    if eng.max_workers is not None and n > eng.max_workers:
        raise ValueError(
            f"n={n} workers but the {eng.name} engine provides {eng.max_workers}; use n <= "
            f"{eng.max_workers} (under mpiexec: -n {n + 1}, one rank for the master)"
        )
    alpha = float(spec.step_size) if spec.step_size is not None else (
        float(wl.step_size()) if hasattr(wl, "step_size") else 0.1
    )  # fmt: skip
    if not alpha > 0:
        raise ValueError(f"step_size must be > 0, got {spec.step_size!r}")
    config = {
        "scheme": str(sc.name).replace("-", "_") if seq else sch.name,
        "n": n, "s": sc.s, "K": sc.K, "m": sc.m,
        "code_options": dict(sc.code_options),
        "workload": wl.spec() if hasattr(wl, "spec") else None,
        "seed": spec.seed,
        "step_size": alpha,
        "delay": getattr(dm, "label", str(dl.law)),
        "delay_options": {"persist": dm.persist, "n_slow": dm.n_slow,
                          "slowdown": float(dm.slowdown), "comm_time": float(dm.comm_time)},
        "preempt": bool(spec.faults.preempt),
        "wait_mu": spec.wait_mu,  # None: the code's own rule; a number: the (1 + mu) rule
        "spec": spec.to_json(),  # the whole description (the trace's sidecar keeps it)
    }  # fmt: skip
    return _Parts(sch, rule, dm, wl, eng, alpha, config)


class _Master:
    """One real run: its records, its rounds on the engine, the loop and its callbacks."""

    def __init__(self, spec: RunSpec, parts: _Parts, opts: _Options) -> None:
        self.spec, self.p, self.opts = spec, parts, opts
        sch, T = parts.sch, spec.iterations
        self.rec = Record(T, sch.n, np.asarray(parts.wl.initial_params(), float).copy())
        self.bar = ProgressCallback(T, opts.progress, f"gctheory run {sch.name} n={sch.n}")
        self.delay_rng = np.random.default_rng(np.random.SeedSequence(spec.seed).spawn(2)[0])
        self.notes = MetricNotes(self.rec, spec.eval_every, T, hasattr(parts.wl, "metrics"))
        self.faults = FaultPolicy(spec.faults.on_error, self.rec, self.fail)

    def partial(self, done: int) -> ClusterRun:
        """The run of its first ``done`` iterations (metrics evaluated now)."""
        p, rec = self.p, self.rec
        if self.notes.enabled:
            rec.fill_metrics(p.wl)
        return rec.result(p.sch, p.rule, p.eng, rec.history[-1], p.config, done)

    def fail(self, t: int) -> ClusterRun:
        self.bar.progress.close()
        return self.partial(t)

    def state(self, done: int) -> dict[str, Any]:
        """What a checkpoint keeps after ``done`` iterations."""
        rounds = self.rounds
        seq = rounds.state() if isinstance(rounds, SequentialRounds) else None
        return {"sequential": seq, "config": self.p.config, "spec": self.spec.to_json(),
                "done": done, "params": self.rec.history[-1], **self.rec.state(done),
                "rng_state": self.delay_rng.bit_generator.state, "X": rounds.X}  # fmt: skip

    def resume(self) -> tuple[int, dict | None]:
        """The iteration a checkpoint reached (0 without one) and its sequential state."""
        path, T = self.opts.checkpoint, self.spec.iterations
        st = load_checkpoint(path, self.p.config, spec=self.spec) if self.opts.resume else None
        if st is None:
            self.notes.note(0)
            return 0, None
        t0 = int(st["done"])
        if t0 > T:
            raise ValueError(
                f"the checkpoint {str(path)!r} is at iteration {t0}, past "
                f"iterations={T}; ask for iterations >= {t0}"
            )
        self.rec.restore(st)
        self.delay_rng.bit_generator.state = st["rng_state"]
        self.X0 = st["X"]
        return t0, st.get("sequential")

    def callbacks(self) -> list[Any]:
        opts, T = self.opts, self.spec.iterations
        out: list[Any] = [self.notes]
        if opts.checkpoint is not None:
            out.append(Checkpointer(opts.checkpoint, self.spec.checkpoint_every, T, self.state))
        if opts.on_iteration is not None:
            out.append(UserCallback(opts.on_iteration, self.p.eng))
        return [*out, self.bar]

    def go(self) -> ClusterRun:
        p, rec, T = self.p, self.rec, self.spec.iterations
        self.X0 = None
        t0, seq_state = self.resume()
        args = (p.sch, p.rule, p.eng, p.dm, self.delay_rng, rec, self.faults, self.spec,
                self.fail)  # fmt: skip
        if isinstance(p.rule, SequentialRule):
            self.rounds: Any = SequentialRounds(*args, T=T, resume=seq_state)
        else:
            self.rounds = EngineRounds(*args)
            self.rounds.X = self.X0
        p.eng.start(p.rule.states(p.wl))
        # coded workers sharing one engine slot (Dask thread): their tasks queue (compare refuses)
        p.config["tasks_per_slot"] = int(p.eng.tasks_per_slot())
        rec.start_clock()
        try:
            run_loop(self.rounds, rec.history[-1], start=t0, stop=T, step_size=p.alpha,
                     callbacks=self.callbacks())  # fmt: skip
        except KeyboardInterrupt:
            self.bar.close()
            done = rec.done
            raise ClusterError(f"interrupted after {done} iterations", self.partial(done)) from None
        finally:
            p.eng.close()
        if isinstance(self.rounds, SequentialRounds):
            p.config.update(self.rounds.counts)
        self.bar.close()
        res = self.partial(T)
        if self.opts.trace is not None:
            res.save(self.opts.trace)
        return res
