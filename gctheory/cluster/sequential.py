"""Sequential gradient coding (SR-SGC, M-SGC) on real workers: coding across rounds.

Krishnan, Ebrahimi and Khisti, "Sequential gradient coding for straggler
mitigation", ICLR 2023. The scheme is the simulator's
(:class:`gctheory.training.schemes.Sequential`: the same code of
:mod:`gctheory.codes.sequential`, the same data partitions and support, the
same loads and ``finish_times``, the same waiting rule); only the clock differs.

Round ``t`` (= iteration ``t``):

* the code's master (:meth:`SequentialMaster.assignment`) gives every worker
  its tasks: labels ``(job, part)`` (SR-SGC: job ``t``, or a repeat of job
  ``t - B``; M-SGC: one minitask for each of the ``W - 1 + B`` jobs in flight);
* each worker is sent, per label, the parameters ``w_job`` of the round the job
  was issued in, computes the coded transmission of each label from its own
  partitions, sleeps its injected delay, and sends the transmissions back;
* the master waits (the paper's rule, as in :mod:`gctheory.sgc.runtime`) until
  ``(1 + mu)`` times the first arrival's response time; the workers with a task
  not arrived by then are the round's stragglers, unless that takes the pattern
  out of the (B, W, lambda) model, in which case it waits for all of them (no
  straggler). A round where every worker answered earlier ends at once;
* with ``deadline=D``: at ``D`` seconds into the round the master stops
  waiting if the workers not arrived by then keep the pattern inside the
  (B, W, lambda) model (the code's decoder then decodes every job on time);
  outside it the decoder needs them, so the master waits on (to the
  ``(1 + mu)`` cut and the rule above). The earlier of the two cuts that the
  model admits ends the round;
* job ``t - T`` is decoded by the code's own decoder from what arrived in
  rounds ``t - T .. t`` and enters the optimiser: ``w_{t+1} = w_t - alpha
  g(w_{t-T})`` (no step in the first ``T`` rounds).

The trace is the usual one (``used``: arrived and counted; ``never``: cancelled
as a straggler); :func:`replay_sequential` recomputes the parameters bit for bit
from the ``used`` rows. A checkpoint (``checkpoint=PATH``) keeps, beside the
usual records, the rounds' straggler patterns (the code's master is rebuilt
from them on resume: its state is a function of them), the transmissions of
the jobs not yet decoded and the round counters, so a resumed run goes on
exactly where the interrupted one stopped.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory.cluster.base import DEAD, ERROR, LATE, USED
from gctheory.cluster.results import ClusterError, WorkerLostWarning
from gctheory.cluster.worker import OracleError

__all__ = ["SEQUENTIAL_SCHEMES", "SequentialRule", "SequentialWorkerState", "is_sequential"]

#: The sequential (stateful) schemes the real-run master runs with :class:`SequentialRule`.
SEQUENTIAL_SCHEMES = ("sr_sgc", "m_sgc")


def is_sequential(sch: Any) -> bool:
    """Whether ``sch`` is the simulator's SR-SGC / M-SGC scheme."""
    return type(sch).__name__ == "Sequential" and hasattr(sch, "code") and hasattr(sch, "T")


@dataclass
class SequentialWorkerState:
    """What worker ``index`` keeps for a sequential code (shipped once).

    ``tasks[key] = (partitions, coef)``: the transmission of a task of kind
    ``key`` (SR-SGC: ``"Y"``; M-SGC: ``("D1", chunk)`` or ``("D2", group)``) is
    ``sum_p coef[p] g_{partitions[p]}(w_job)``.
    """

    index: int
    partitions: tuple[int, ...]
    tasks: dict
    workload: Any
    m: int = 1

    def message(self, payload: Any, t: int = -1) -> np.ndarray:
        """Transmissions ``(len(payload), d)`` of ``payload = ((key, params), ...)``."""
        rows = []
        for key, params in payload:
            parts, coef = self.tasks[key]
            d = params.shape[0]
            acc = np.zeros(d)
            for j, c in zip(parts, coef):
                try:
                    g = np.asarray(self.workload.partial_gradient(params, j))
                except Exception as exc:  # the user's oracle: report where
                    raise OracleError(self.index, j, t, f"{type(exc).__name__}: {exc}") from exc
                if g.shape != (d,):
                    raise OracleError(
                        self.index,
                        j,
                        t,
                        f"partial_gradient returned shape {g.shape}, expected ({d},)",
                    )
                acc += c * g
            rows.append(acc)
        return np.stack(rows)


class SequentialRule:
    """The real-run side of a :class:`~gctheory.training.schemes.Sequential` scheme.

    Parameters
    ----------
    sch : object
        A sequential scheme of the simulator (``SR-SGC`` or ``M-SGC``).

    Examples
    --------
    >>> from gctheory.training import make_scheme
    >>> from gctheory.cluster import SEQUENTIAL_SCHEMES, SequentialRule
    >>> len(SEQUENTIAL_SCHEMES) > 0
    True
    """

    kind = "sequential"
    exact = True
    #: the code's decoder (:meth:`SequentialMaster.decode_job`) reports no forward-error bound
    noise_bound = float("nan")

    def __init__(self, sch: Any) -> None:
        self.sch, self.code = sch, sch.code
        self.n, self.k, self.T = sch.n, sch.k, int(sch.T)
        self.mu = float(sch.mu)
        self.need = self.n  # for the record: a round may go on without its stragglers
        self.sr = self.code.name == "SR-SGC"

    def key(self, lab: tuple) -> Any:
        """The kind of task a label is (its transmission's coefficients)."""
        return "Y" if self.sr else (lab[1], int(lab[2]))

    def tagged(self, lab: tuple, i: int) -> tuple:
        """The label as the code's decoder reads it (with the worker), as the simulator tags it."""
        return (lab[0], lab[1], i) if self.sr else (*lab, i)

    def states(self, workload: Any) -> list[SequentialWorkerState]:
        """Each worker's partitions and the coefficients of each kind of task it can get."""
        c, sch, n = self.code, self.sch, self.n
        E = np.asarray(c._code().encoding_matrix, float)  # (n, n): the per-round (n, s) code
        support = np.asarray(sch.support, bool)
        out = []
        for i in range(n):
            tasks: dict[Any, tuple[tuple[int, ...], np.ndarray]] = {}
            if self.sr:
                parts = np.flatnonzero(E[:, i])
                tasks["Y"] = (tuple(int(j) for j in parts), E[parts, i].copy())
            else:
                u, W = sch.unit, c.W
                d1 = n * (W - 1) * u
                for ch in range(W - 1):
                    first = (i * (W - 1) + ch) * u
                    tasks[("D1", ch)] = (tuple(range(first, first + u)), np.ones(u))
                for g in range(c.groups):
                    p = np.flatnonzero(E[:, i])
                    tasks[("D2", g)] = (tuple(int(d1 + g * n + q) for q in p), E[p, i].copy())
            held = tuple(int(j) for j in np.flatnonzero(support[i]))
            used = sorted({j for parts, _ in tasks.values() for j in parts})
            assert set(used) <= set(held), (i, used, held)
            wl = workload.restrict(held) if hasattr(workload, "restrict") else workload
            out.append(SequentialWorkerState(i, held, tasks, wl))
        return out

    def message_length(self, d: int) -> int:
        """Numbers per message at most: one transmission of ``d`` numbers per task slot."""
        return d * (1 if self.sr else int(self.code.slots))

    def payloads(self, labels: np.ndarray, history: list) -> list:
        """Per worker: ``((key, w_job), ...)`` for its labels (None: no task this round)."""
        out = []
        for i in range(self.n):
            labs = [lab for lab in labels[i] if lab is not None]
            out.append(tuple((self.key(lab), history[lab[0]]) for lab in labs) or None)
        return out

    def receive(self, received: dict, labels: np.ndarray, msgs: dict) -> None:
        """File the arrived transmissions under their jobs (workers in index order)."""
        for i in sorted(msgs):
            labs = [lab for lab in labels[i] if lab is not None]
            for row, lab in enumerate(labs):
                received.setdefault(lab[0], []).append((self.tagged(lab, i), msgs[i][row]))

    def decode(self, master: Any, job: int, received: dict, t: int) -> np.ndarray:
        if not master.decodable(job):
            why = self.code.model.violation(np.array(master.stragglers))
            raise ValueError(
                f"round {t}: job {job} cannot be decoded by its deadline (straggler pattern "
                f"{'outside the model: ' + why if why else 'inside the model'})"
            )
        return np.real(master.decode_job(job, received.pop(job, [])))


def run_sequential(ctx: dict) -> dict:
    """The round loop (called by :func:`gctheory.cluster.run`; ``ctx`` holds its state)."""
    sch, eng, dm, rule = ctx["sch"], ctx["eng"], ctx["dm"], ctx["rule"]
    n, T, alpha = sch.n, ctx["T"], ctx["alpha"]
    timeout, on_error, preempt = ctx["timeout"], ctx["on_error"], ctx["preempt"]
    injected, start_at, finish, status = (
        ctx[k] for k in ("injected", "start_at", "finish", "status")
    )
    bytes_down, bytes_up = ctx["bytes_down"], ctx["bytes_up"]
    it_time, wait_t, dec_t, cpu_t = (ctx[k] for k in ("it_time", "wait_t", "dec_t", "cpu_t"))
    noise_b = ctx["noise_b"]
    survivors, history, dead, t_run = ctx["survivors"], ctx["history"], ctx["dead"], ctx["t_run"]
    delay_rng, model = ctx["delay_rng"], sch.code.model
    deadline = ctx.get("deadline")
    master = sch.code.master(T)
    received: dict[int, list] = {}
    window: list[np.ndarray] = []
    X = None
    ctx["waited_all"] = ctx["straggled"] = ctx["deadline_rounds"] = 0
    t0 = 0
    resume = ctx.get("resume")
    if resume is not None:  # the master's state is a function of the rounds' stragglers
        for st in resume["stragglers"]:
            master.push(st)
        t0 = len(resume["stragglers"])
        window = [np.asarray(st, bool) for st in resume["stragglers"]][-(sch.code.W - 1) :]
        received = {int(j): list(v) for j, v in resume["received"].items()}
        X = resume["X"]
        for key in ("waited_all", "straggled", "deadline_rounds"):
            ctx[key] = int(resume[key])
    w = ctx["w"]
    for t in range(t0, T):
        ctx["done"] = t
        if dm.replay is not None:
            X = dm.replay.per_unit_times(t, sch.loads, delay_rng)
        elif t % dm.persist == 0 or X is None:
            X = dm.draw(delay_rng, n)
        injected[t] = np.asarray(sch.finish_times(X), float)
        labels = master.assignment()
        pay = rule.payloads(labels, history)
        assigned = np.array([p is not None for p in pay])
        start, cpu0 = time.perf_counter(), time.process_time()
        start_at[t] = start - t_run
        for i in range(n):
            if i in dead:
                status[t, i] = DEAD
            elif pay[i] is not None:
                bytes_down[t] += eng.submit(i, t, pay[i], float(injected[t, i]), preempt)
        msgs: dict[int, np.ndarray] = {}
        erred: set[int] = set()
        cut, fell_back, last_event = None, False, time.perf_counter()
        dl = math.inf if deadline is None else start + deadline
        dl_checked, by_deadline = deadline is None, False
        hist = np.array(window, bool).reshape(-1, n)
        while True:
            pending = [i for i in np.flatnonzero(assigned) if i not in msgs and i not in dead
                       and i not in erred]  # fmt: skip
            if not pending:
                break
            now = time.perf_counter()
            at_cut = cut is not None and not fell_back and now >= cut
            at_dl = not dl_checked and now >= dl
            if at_cut or at_dl:
                st = assigned & ~np.isin(np.arange(n), list(msgs))
                if model.round_violation(hist, st) is None:
                    by_deadline = at_dl and not at_cut
                    break
                fell_back = fell_back or at_cut  # outside the model: wait for every worker
                dl_checked = dl_checked or at_dl  # (the decoder needs them: wait on)
            wait_for = timeout - (now - last_event)
            if wait_for <= 0:
                raise ClusterError(
                    f"iteration {t}: no answer within timeout={timeout:g} s from workers "
                    f"{pending} ({', '.join(eng.where(i) for i in pending)})",
                    ctx["partial"](t),
                )
            nxt = dl if not dl_checked else math.inf
            if cut is not None and not fell_back:
                nxt = min(nxt, cut)
            if nxt < math.inf:
                wait_for = min(wait_for, max(nxt - now, 0.0))
            for ev in eng.poll(wait_for):
                last_event = time.perf_counter()
                i, et = ev.worker, ev.t
                if ev.kind == "dead":
                    if i not in dead:
                        dead[i] = t
                        status[t, i] = DEAD
                        warnings.warn(f"worker {i} is dead at iteration {t} ({ev.error}); a "
                                      "permanent straggler from now on", WorkerLostWarning,
                                      stacklevel=3)  # fmt: skip
                elif ev.kind == "error":
                    if on_error == "stop":
                        raise ClusterError(str(ev.error), ctx["partial"](t)) from ev.error
                    if et == t:
                        erred.add(i)
                    if 0 <= et <= t:
                        status[et, i] = ERROR
                    warnings.warn(f"{ev.error}; treated as a straggler", WorkerLostWarning,
                                  stacklevel=3)  # fmt: skip
                elif et == t:
                    finish[t, i] = ev.at - t_run
                    msgs[i] = ev.message
                    bytes_up[t] += ev.nbytes
                    ctx["measured_len"] = int(ev.message.size)
                    if cut is None:  # the paper's rule: (1 + mu) x the fastest
                        cut = start + (1 + rule.mu) * (ev.at - start)
                elif 0 <= et < t:
                    finish[et, i] = ev.at - t_run
                    status[et, i] = LATE
        decided = time.perf_counter()
        st = assigned & ~np.isin(np.arange(n), list(msgs))
        ctx["waited_all"] += fell_back and not by_deadline
        ctx["straggled"] += bool(st.any())
        ctx["deadline_rounds"] += by_deadline
        window = [*window, st][-(sch.code.W - 1) :]  # the rounds a window shares with the next
        master.push(st)
        rule.receive(received, labels, msgs)
        S = tuple(sorted(int(i) for i in msgs))
        for i in S:
            status[t, i] = USED
        j = t - rule.T
        if j >= 0:
            try:
                grad = rule.decode(master, j, received, t)
            except ValueError as exc:
                raise ClusterError(str(exc), ctx["partial"](t)) from None
            noise_b[t] = rule.noise_bound
            w = w - alpha * grad
        end = time.perf_counter()
        survivors.append(S)
        it_time[t], wait_t[t], dec_t[t] = end - start, decided - start, end - decided
        cpu_t[t] = time.process_time() - cpu0
        history.append(w.copy())
        ctx["w"] = w
        ctx["state"] = {"stragglers": [np.array(x) for x in master.stragglers],
                        "received": received, "X": X, "waited_all": ctx["waited_all"],
                        "straggled": ctx["straggled"],
                        "deadline_rounds": ctx["deadline_rounds"]}  # fmt: skip
        ctx["after"](t + 1)
    for ev in eng.poll(0.0):
        if ev.kind == "result" and 0 <= ev.t < T and np.isnan(finish[ev.t, ev.worker]):
            finish[ev.t, ev.worker] = ev.at - t_run
            status[ev.t, ev.worker] = LATE
    ctx["done"] = T
    return ctx


def replay_sequential(sch: Any, wl: Any, alpha: float, survivors: list) -> tuple:
    """Parameters of a sequential run recomputed from its survivor sets: ``(w, history)``."""
    rule = SequentialRule(sch)
    states = rule.states(wl)
    T = len(survivors)
    master = sch.code.master(T)
    received: dict[int, list] = {}
    w = np.asarray(wl.initial_params(), float).copy()
    history = [w.copy()]
    for t, S in enumerate(survivors):
        labels = master.assignment()
        pay = rule.payloads(labels, history)
        assigned = np.array([p is not None for p in pay])
        msgs = {int(i): states[i].message(pay[i], t) for i in S}
        master.push(assigned & ~np.isin(np.arange(sch.n), list(msgs)))
        rule.receive(received, labels, msgs)
        j = t - rule.T
        if j >= 0:
            w = w - alpha * rule.decode(master, j, received, t)
        history.append(w.copy())
    return w, history
