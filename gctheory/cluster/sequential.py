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
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory.cluster.base import USED
from gctheory.cluster.results import ClusterError
from gctheory.cluster.rounds import Arrivals, EngineRounds
from gctheory.cluster.worker import OracleError

__all__ = [
    "SEQUENTIAL_SCHEMES",
    "SequentialRounds",
    "SequentialRule",
    "SequentialWorkerState",
    "is_sequential",
]

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


class SequentialRounds(EngineRounds):
    """The rounds of a sequential code on real workers (the loop's source of answers).

    The code's master (its state: the rounds' straggler patterns) assigns each round's
    tasks; the round ends by the paper's ``(1 + mu)`` cut or the deadline when the
    missing workers keep the pattern inside the model, else when every worker answered;
    job ``t - T`` is decoded (no step before). ``resume`` is a checkpoint's ``state()``.
    """

    def __init__(self, *args: Any, T: int, resume: dict | None = None) -> None:
        super().__init__(*args)
        sch = self.sch
        self.master = sch.code.master(T)
        self.received: dict[int, list] = {}
        self.window: list[np.ndarray] = []
        self.counts = {"waited_all": 0, "straggled": 0, "deadline_rounds": 0}
        if resume is not None:  # the master's state is a function of the rounds' stragglers
            for st in resume["stragglers"]:
                self.master.push(st)
            self.window = [np.asarray(st, bool) for st in resume["stragglers"]][-(sch.code.W - 1) :]
            self.received = {int(j): list(v) for j, v in resume["received"].items()}
            self.X = resume["X"]
            self.counts = {key: int(resume[key]) for key in self.counts}

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps of the code's state."""
        return {"stragglers": [np.array(x) for x in self.master.stragglers],
                "received": self.received, "X": self.X, **self.counts}  # fmt: skip

    def play(self, t: int, params: np.ndarray) -> np.ndarray | None:
        rule, rec, n = self.rule, self.rec, self.sch.n
        self.draw(t)
        labels = self.master.assignment()
        pay = rule.payloads(labels, rec.history)
        assigned = np.array([p is not None for p in pay])
        self.send(t, pay)
        msgs = self.wait_round(t, assigned)
        self.decided = time.perf_counter()
        st = assigned & ~np.isin(np.arange(n), list(msgs))
        self.counts["straggled"] += bool(st.any())
        self.window = [*self.window, st][-(self.sch.code.W - 1) :]  # shared with the next
        self.master.push(st)
        rule.receive(self.received, labels, msgs)
        S = tuple(sorted(int(i) for i in msgs))
        for i in S:
            rec.status[t, i] = USED
        rec.survivors.append(S)
        j = t - rule.T
        if j < 0:
            return None
        try:
            grad = rule.decode(self.master, j, self.received, t)
        except ValueError as exc:
            raise ClusterError(str(exc), self.fail(t)) from None
        rec.noise_b[t] = rule.noise_bound
        return grad

    def wait_round(self, t: int, assigned: np.ndarray) -> dict[int, np.ndarray]:
        """Poll until the round's cut (see the class docstring); the transmissions."""
        n, rec, model, arr = self.sch.n, self.rec, self.sch.code.model, Arrivals()
        cut, fell_back = None, False
        dl = math.inf if self.deadline is None else self.start + self.deadline
        dl_checked, by_deadline = self.deadline is None, False
        hist = np.array(self.window, bool).reshape(-1, n)
        while True:
            pending = [i for i in np.flatnonzero(assigned) if i not in arr.msgs
                       and i not in rec.dead and i not in arr.erred]  # fmt: skip
            if not pending:
                break
            now = time.perf_counter()
            at_cut = cut is not None and not fell_back and now >= cut
            at_dl = not dl_checked and now >= dl
            if at_cut or at_dl:
                st = assigned & ~np.isin(np.arange(n), list(arr.msgs))
                if model.round_violation(hist, st) is None:
                    by_deadline = at_dl and not at_cut
                    break
                fell_back = fell_back or at_cut  # outside the model: wait for every worker
                dl_checked = dl_checked or at_dl  # (the decoder needs them: wait on)
            wait_for = self.timeout - (now - arr.last_event)
            if wait_for <= 0:
                raise self.timed_out(t, pending, engine_too=False)
            nxt = dl if not dl_checked else math.inf
            if cut is not None and not fell_back:
                nxt = min(nxt, cut)
            if nxt < math.inf:
                wait_for = min(wait_for, max(nxt - now, 0.0))
            self.receive(t, arr, wait_for)
            if cut is None and arr.first_at is not None:  # the paper's rule: (1 + mu) x fastest
                cut = self.start + (1 + self.rule.mu) * (arr.first_at - self.start)
        self.counts["waited_all"] += fell_back and not by_deadline
        self.counts["deadline_rounds"] += by_deadline
        return arr.msgs


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
