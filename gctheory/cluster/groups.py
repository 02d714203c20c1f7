"""Many coded workers in one OS process: the event loop of a local worker process.

:class:`~gctheory.cluster.LocalEngine` hosts a *group* of coded workers in
each worker process (one per process when ``processes=n``). A group keeps
only its own workers' :class:`~gctheory.cluster.worker.WorkerState` (their
partitions), and runs one event loop: it computes each task's message in
turn, then holds the result until its injected delay has passed (a heap of
due times, so the sleeping workers cost no CPU and no thread), and sends what
is due in one pipe message.

A worker's injected wait is counted from when its task reached the process,
plus its own compute time: the time it spent waiting for its group-mates'
computations comes out of its injected wait instead of adding to it, as if each
coded worker had a core of its own (the model: each worker computes, then
straggles). Where the group's computations outlast a worker's injected wait,
it answers late, and the lateness shows in the measured per-worker overhead
that :func:`gctheory.cluster.compare` adds to the law. With one coded worker
per process the wait starts when its computation ends, as before.

Each coded worker follows the rules of a process of its own: a newer task
supersedes an older one not yet started; with ``preempt`` a task arriving
during the injected wait cancels the current one; without, the worker
finishes (sends) the current one first and then starts the newest.

Wire format (``pickle`` over the engine's own pipes, never data from
elsewhere): the master sends ``("tasks", t, params, [(worker, delay), ...],
preempt)`` (``params`` pickled once, as bytes) or ``("stop",)``; the group
sends ``("batch", [blob, ...])``,
each blob the pickled ``("result", worker, t, message, compute_s, slept_s)``
or ``("error", worker, t, OracleError)`` (a blob's length is the bytes that
worker's message would take alone).
"""

from __future__ import annotations

import heapq
import os
import pickle
import time
import traceback
from typing import Any

import numpy as np

from gctheory.cluster.worker import OracleError, WorkerState, _single_thread

__all__ = ["group_main", "default_processes"]

#: coded-worker groups per core by default: a few processes per core keep every core busy
#: computing while the event loops sleep
PROCESSES_PER_CORE = 4


def default_processes(n: int) -> int:
    """Worker processes for ``n`` coded workers: ``min(n, 4 x cores)``.

    Examples
    --------
    >>> from gctheory.cluster.groups import default_processes
    >>> default_processes(1) == 1 and default_processes(10**6) >= 4
    True
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(int(n), PROCESSES_PER_CORE * cores))


class _Loop:
    """One group's state: pending results (by due time), queued tasks, the pipe."""

    def __init__(self, conn: Any, states: list[WorkerState]) -> None:
        self.conn = conn
        self.states = {st.index: st for st in states}
        self.heap: list[tuple[float, int, int]] = []  # (due, seq, worker)
        self.pending: dict[int, tuple[int, int, Any, float, float]] = {}  # w: seq,t,y,comp,t1
        self.queued: dict[int, tuple[int, np.ndarray, float]] = {}  # non-preempt: next task
        self.seq = 0
        self.out: list[bytes] = []

    def run(self) -> None:
        conn = self.conn
        while True:
            self.flush()
            timeout = max(self.heap[0][0] - time.perf_counter(), 0.0) if self.heap else None
            if not conn.poll(timeout):
                continue
            tasks: dict[int, tuple[int, np.ndarray, float, bool]] = {}
            received = time.perf_counter()
            while True:  # every message waiting: the newest task per worker supersedes
                msg = pickle.loads(conn.recv_bytes())
                if msg[0] != "tasks":
                    return
                _, t, pp, items, preempt = msg
                params = pickle.loads(pp)  # once per message, shared by its workers
                for i, delay in items:
                    tasks.pop(i, None)  # keep the order of arrival of the newest
                    tasks[i] = (t, params, delay, preempt)
                if not conn.poll():
                    break
            for i, (t, params, delay, preempt) in tasks.items():
                if i in self.pending and not preempt:
                    self.queued[i] = (t, params, delay)  # finish the current one first
                    continue
                self.pending.pop(i, None)  # preempted: its result is never sent
                self.queued.pop(i, None)
                self.start(i, t, params, delay, received)
                self.flush()

    def start(
        self, i: int, t: int, params: np.ndarray, delay: float, received: float | None = None
    ) -> None:
        """Compute worker ``i``'s message now; its result is due ``delay`` s after its own
        compute time, counted from ``received`` (when its task reached the process)."""
        t0 = time.perf_counter()
        try:
            y = self.states[i].message(params, t)
        except OracleError as exc:
            self.out.append(pickle.dumps(("error", i, t, exc), protocol=5))
            return
        except Exception:  # pragma: no cover - a bug, not the oracle
            err = OracleError(i, -1, t, traceback.format_exc())
            self.out.append(pickle.dumps(("error", i, t, err), protocol=5))
            return
        t1 = time.perf_counter()
        self.seq += 1
        self.pending[i] = (self.seq, t, y, t1 - t0, t1)
        began = t0 if received is None else received
        due = max(began + (t1 - t0) + max(float(delay), 0.0), t1)
        heapq.heappush(self.heap, (due, self.seq, i))

    def flush(self) -> None:
        """Send every result now due (and any error) in one message; start queued tasks."""
        now = time.perf_counter()
        heap, pending = self.heap, self.pending
        started = []
        while heap and heap[0][0] <= now:
            _, seq, i = heapq.heappop(heap)
            cur = pending.get(i)
            if cur is None or cur[0] != seq:  # preempted, or superseded
                continue
            del pending[i]
            _, t, y, comp, t1 = cur
            self.out.append(pickle.dumps(("result", i, t, y, comp, now - t1), protocol=5))
            if i in self.queued:
                started.append(i)
        if self.out:
            data, self.out = pickle.dumps(("batch", self.out), protocol=5), []
            self.conn.send_bytes(data)
        for i in started:  # a non-preempted worker takes up the newest task it was sent
            self.start(i, *self.queued.pop(i))


def group_main(conn: Any, group: int) -> None:
    """Entry point of a local worker process hosting a group of coded workers.

    Receives its workers' states once, answers ``("ready", group, pid)``,
    then runs the event loop (see the module docstring) until ``("stop",)`` or
    the master's end of the pipe closes.
    """
    _single_thread()
    try:
        states: list[WorkerState] = conn.recv()
        conn.send(("ready", group, os.getpid()))
        _Loop(conn, states).run()
    except (EOFError, OSError, KeyboardInterrupt):
        return
