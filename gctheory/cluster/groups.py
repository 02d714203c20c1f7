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

Wire format (the engine's own pipes, never data from elsewhere; see
:mod:`gctheory.cluster.shm`): the master sends a task message, ``TASK`` packed
(the iteration, where its parameters are in the shared block, preempt, the
block's name) followed by ``(worker, delay)`` pairs, or, for parameters that
are not one float64 vector, ``b"P"`` and the pickled ``("tasks", t, params,
[(worker, delay), ...], preempt)`` (``params`` pickled once, as bytes), or
``b"S"`` to stop. The group sends one message of records (``RECORD``) for
everything due at once: a result in its worker's slot of the shared block, a
result as ``.npy`` bytes (both slots unread, or a message that is not a
float64 vector), or an oracle error.
"""

from __future__ import annotations

import heapq
import os
import pickle
import time
import traceback
from array import array
from typing import Any

import numpy as np

from gctheory.cluster.shm import (
    ERROR,
    IN_SLOT,
    INLINE,
    RECORD,
    RESULT_SLOTS,
    TASK,
    Board,
    npy_bytes,
)
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
        self.board: Board | None = None  # the master's shared block, once it names one
        self.produced: dict[int, int] = {}  # results written in each worker's slots

    def run(self) -> None:
        conn = self.conn
        while True:
            self.flush()
            timeout = max(self.heap[0][0] - time.perf_counter(), 0.0) if self.heap else None
            if not conn.poll(timeout):
                continue
            tasks: dict[int, tuple[int, np.ndarray | None, float, bool]] = {}
            received = time.perf_counter()
            while True:  # every message waiting: the newest task per worker supersedes
                got = self.read(conn.recv_bytes())
                if got is None:
                    return
                t, params, items, preempt = got
                for i, delay in items:
                    tasks.pop(i, None)  # keep the order of arrival of the newest
                    tasks[i] = (t, params, delay, preempt)
                if not conn.poll():
                    break
            for i, (t, params, delay, preempt) in tasks.items():
                if params is None:  # its parameters were overwritten: a newer task is coming
                    continue
                if i in self.pending and not preempt:
                    self.queued[i] = (t, params, delay)  # finish the current one first
                    continue
                self.pending.pop(i, None)  # preempted: its result is never sent
                self.queued.pop(i, None)
                self.start(i, t, params, delay, received)
                self.flush()

    def read(self, data: bytes) -> tuple[int, Any, list, bool] | None:
        """A task message: ``(t, params, [(worker, delay), ...], preempt)``; None: stop."""
        kind = data[:1]
        if kind == b"T":
            _, t, slot, version, preempt, n, d, nl = TASK.unpack_from(data)
            name = data[TASK.size : TASK.size + nl].decode()
            if self.board is None or self.board.name != name:
                if self.board is not None:
                    self.board.close()
                self.board, self.produced = Board(n, d, name=name), {}
            at = TASK.size + nl
            count = (len(data) - at) // 12
            workers = array("i", data[at : at + 4 * count])
            delays = array("d", data[at + 4 * count : at + 12 * count])
            items = list(zip(workers, delays))
            return t, self.board.get(slot, version), items, bool(preempt)
        if kind == b"P":
            _, t, pp, items, preempt = pickle.loads(data[1:])
            return t, pickle.loads(pp), items, preempt  # once per message, for its workers
        return None

    def start(
        self, i: int, t: int, params: np.ndarray, delay: float, received: float | None = None
    ) -> None:
        """Compute worker ``i``'s message now; its result is due ``delay`` s after its own
        compute time, counted from ``received`` (when its task reached the process)."""
        t0 = time.perf_counter()
        try:
            y = self.states[i].message(params, t)
        except OracleError as exc:
            self.error(i, t, exc.partition, exc.detail)
            return
        except Exception:  # pragma: no cover - a bug, not the oracle
            self.error(i, t, -1, traceback.format_exc())
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
            self.result(i, t, y, comp, now - t1)
            if i in self.queued:
                started.append(i)
        if self.out:
            data, self.out = b"".join(self.out), []
            self.conn.send_bytes(data)
        for i in started:  # a non-preempted worker takes up the newest task it was sent
            self.start(i, *self.queued.pop(i))

    def result(self, i: int, t: int, y: Any, comp: float, slept: float) -> None:
        """Worker ``i``'s message: into its free slot of the shared block, else inline."""
        b = self.board
        if (b is not None and isinstance(y, np.ndarray) and y.dtype == np.float64
                and y.ndim == 1 and y.size <= b.d):  # fmt: skip
            done = self.produced.get(i, 0)
            if done - int(b.consumed[i]) < RESULT_SLOTS:
                k = done % RESULT_SLOTS
                b.results[i, k, : y.size] = y
                self.produced[i] = done + 1
                self.out.append(RECORD.pack(IN_SLOT, i, t, comp, slept, y.size, k))
                return
        try:
            blob = npy_bytes(y)
        except (ValueError, TypeError) as exc:  # an object array: not sent as data
            self.error(i, t, -1, f"the message is not a numeric array ({exc})")
            return
        self.out.append(RECORD.pack(INLINE, i, t, comp, slept, 0, len(blob)) + blob)

    def error(self, i: int, t: int, partition: int, detail: str) -> None:
        text = detail.encode("utf-8", "replace")
        self.out.append(RECORD.pack(ERROR, i, t, 0.0, 0.0, partition, len(text)) + text)


def group_main(conn: Any, group: int) -> None:
    """Entry point of a local worker process hosting a group of coded workers.

    Receives its workers' states once, answers ``("ready", group, pid)``,
    then runs the event loop (see the module docstring) until ``b"S"`` or
    the master's end of the pipe closes.
    """
    _single_thread()
    loop = None
    try:
        states: list[WorkerState] = conn.recv()
        conn.send(("ready", group, os.getpid()))
        loop = _Loop(conn, states)
        loop.run()
    except (EOFError, OSError, KeyboardInterrupt):
        return
    finally:
        if loop is not None and loop.board is not None:
            loop.board.close()
