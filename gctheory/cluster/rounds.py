"""Real workers as the loop's source of answers (:mod:`gctheory.loop`).

:class:`EngineRounds` is one iteration of the master on an engine: draw the
injected delays from the delay model (the simulator's ``finish_times`` of the
same scheme, so a simulated and a real run of a scheme straggle alike), send
the parameters and each worker's delay, poll every worker at once until the
scheme's rule (:class:`~gctheory.cluster.rules.Rule`: any ``n - s`` workers for
an exact code, a count, a decodable peeling set, a deadline; or the paper's
``(1 + mu)`` x first rule, :class:`~gctheory.cluster.rules.MuRule`) is met, decode. A
late result is recorded for the trace, then dropped; dead and failing workers
go to the :class:`~gctheory.cluster.faults.FaultPolicy`. The sequential codes'
rounds (:class:`~gctheory.cluster.sequential.SequentialRounds`) share all but
what is sent, the waiting rule and the decoding.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gctheory.cluster.base import DEAD, UNUSED, USED
from gctheory.cluster.results import ClusterError

__all__ = ["EngineRounds", "Arrivals"]


class Arrivals:
    """The answers of one iteration so far."""

    __slots__ = ("arrived", "msgs", "erred", "first_at", "last_event")

    def __init__(self) -> None:
        self.arrived: list[int] = []
        self.msgs: dict[int, np.ndarray] = {}
        self.erred: set[int] = set()
        self.first_at: float | None = None
        self.last_event = time.perf_counter()


class EngineRounds:
    """The master's iterations on ``engine`` (see the module docstring)."""

    def __init__(self, sch: Any, rule: Any, engine: Any, dm: Any, delay_rng: Any, record: Any,
                 faults: Any, spec: Any, fail: Callable[[int], Any]) -> None:  # fmt: skip
        self.sch, self.rule, self.eng, self.dm, self.rng = sch, rule, engine, dm, delay_rng
        self.rec, self.faults, self.fail = record, faults, fail
        self.timeout, self.deadline = spec.faults.timeout, spec.faults.deadline
        self.preempt = spec.faults.preempt
        self.X: Any = None
        self.start = self.cpu0 = self.decided = 0.0

    # ------------------------------------------------------------ shared steps
    def begin(self, t: int, params: np.ndarray) -> bool:
        return True

    def draw(self, t: int) -> np.ndarray:
        """Iteration ``t``'s injected delays (the delay generator's next draw)."""
        dm, n = self.dm, self.sch.n
        if dm.replay is not None:
            self.X = dm.replay.per_unit_times(t, self.sch.loads, self.rng)
        elif t % dm.persist == 0 or self.X is None:
            self.X = dm.draw(self.rng, n)
        inj = np.asarray(self.sch.finish_times(self.X), float)
        self.rec.injected[t] = inj
        return inj

    def send(self, t: int, payloads: Any) -> None:
        """Each live worker's task (``payloads[i]``; None: none this round), timed from now."""
        rec, inj = self.rec, self.rec.injected[t]
        self.start, self.cpu0 = time.perf_counter(), time.process_time()
        rec.start_at[t] = self.start - rec.t_run
        for i in range(self.sch.n):
            if i in rec.dead:
                rec.status[t, i] = DEAD
            elif payloads[i] is not None:
                rec.bytes_down[t] += self.eng.submit(i, t, payloads[i], float(inj[i]), self.preempt)

    def receive(self, t: int, arr: Arrivals, wait_for: float) -> None:
        """Poll up to ``wait_for`` seconds; file the events into ``arr`` and the record."""
        rec = self.rec
        for ev in self.eng.poll(wait_for):
            arr.last_event = time.perf_counter()
            if ev.kind in ("dead", "error"):
                self.faults.handle(ev, t, arr.erred)
            elif ev.t == t:
                i = ev.worker
                assert ev.message is not None, "a result event (neither dead nor error)"
                rec.finish[t, i] = ev.at - rec.t_run
                rec.comm[t, i] = ev.at - ev.sent_at  # nan where the engine does not say
                arr.arrived.append(i)
                arr.msgs[i] = ev.message
                rec.status[t, i] = UNUSED
                rec.bytes_up[t] += ev.nbytes
                rec.measured_len = int(ev.message.size)
                if arr.first_at is None:
                    arr.first_at = ev.at
            elif 0 <= ev.t < t:
                rec.late(ev, t)

    def timed_out(self, t: int, pending: list[Any], engine_too: bool = True) -> ClusterError:
        where = ", ".join(self.eng.where(i) for i in pending)
        tail = f"; engine {self.eng.describe()}" if engine_too else ""
        return ClusterError(
            f"iteration {t}: no answer within timeout={self.timeout:g} s from workers "
            f"{pending} ({where}{tail})",
            self.fail(t),
        )

    def end(self, t: int, params: np.ndarray) -> None:
        rec, end = self.rec, time.perf_counter()
        rec.it_time[t], rec.wait_t[t] = end - self.start, self.decided - self.start
        rec.dec_t[t] = end - self.decided
        rec.cpu_t[t] = time.process_time() - self.cpu0
        rec.history.append(params.copy())

    def close(self, params: np.ndarray, done: int) -> None:
        """Results of the last iteration still arriving: a short look, not a wait."""
        rec = self.rec
        for ev in self.eng.poll(0.0):
            if ev.kind == "result" and 0 <= ev.t < done and np.isnan(rec.finish[ev.t, ev.worker]):
                rec.late(ev, done)

    # ------------------------------------------------------------ the code's rule
    def play(self, t: int, params: np.ndarray) -> np.ndarray | None:
        self.draw(t)
        self.send(t, [params] * self.sch.n)
        S = self.wait(t)
        self.decided = time.perf_counter()
        rec, rule = self.rec, self.rule
        grad = rule.decode(S, np.stack([self._msgs[i] for i in S]), params.size)
        rec.noise_b[t] = rule.noise_bound
        for i in S:
            rec.status[t, i] = USED
        rec.survivors.append(S)
        return grad

    def wait(self, t: int) -> tuple[int, ...]:
        """Poll until the rule has its survivors (sorted), or the run cannot go on."""
        rec, rule, n, arr = self.rec, self.rule, self.sch.n, Arrivals()
        while True:
            now = time.perf_counter()
            closed = self.deadline is not None and now - self.start >= self.deadline
            live = n - len(rec.dead) - len(arr.arrived) - len(arr.erred)
            cut = None  # the paper's (1 + mu) rule decides by the answers' times
            if rule.timed:
                el = rec.finish[t] - rec.start_at[t]
                S, cut = rule.decide(arr.arrived, el, now - self.start, live)
            else:
                S = rule.survivors(arr.arrived, closed or live <= 0)
            if S is not None:
                self._msgs = arr.msgs
                return tuple(sorted(S))
            if not rule.feasible(arr.arrived, live):
                raise self.lost(t, arr, live)
            wait_for = self.timeout - (now - arr.last_event)
            if self.deadline is not None:
                wait_for = min(wait_for, max(self.deadline - (now - self.start), 0.0))
            if cut is not None:
                wait_for = min(wait_for, max(self.start + cut - now, 0.0))
            if wait_for <= 0 and cut is None:
                raise self.timed_out(t, [i for i in range(n) if i not in rec.dead
                                         and i not in arr.msgs])  # fmt: skip
            self.receive(t, arr, wait_for)

    def lost(self, t: int, arr: Arrivals, live: int) -> ClusterError:
        dead, erred = self.rec.dead, arr.erred
        lost = sorted(set(dead) | erred)
        return ClusterError(
            f"iteration {t}: {self.sch.name} needs {self.rule.need} of n={self.sch.n} workers "
            f"but worker(s) {lost} are lost (dead: {sorted(dead)}, failed: "
            f"{sorted(erred)}); only {len(arr.arrived) + live} can answer. The "
            f"parameters after {t} iterations are in .run.params",
            self.fail(t),
        )
