"""Many coded workers in one OS process: the event loop of a local worker process.

:class:`~gctheory.cluster.LocalEngine` hosts a *group* of coded workers in
each worker process (one per process when ``processes=n``). A group keeps
only its own workers' :class:`~gctheory.cluster.worker.WorkerState` (their
partitions), and runs one event loop: it computes each task's message in
turn, then holds the result until its injected delay has passed (a heap of
due times, so the sleeping workers cost no CPU and no thread), and hands over
what is due at once (see the transport below).

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

Transport (the engine's own pipes and shared memory, never data from elsewhere;
see :mod:`gctheory.cluster.shm`): tasks whose parameters are one float64 vector
are in the shared block's table, and a bell (an eventfd, or ``b"W"`` on the
pipe) says there are new ones; the pipe brings ``b"B"`` (the block's name),
``b"P"`` and the tasks ``(t, params, [(worker, delay), ...], preempt)`` for other
parameters (encoded by :mod:`gctheory.cluster.wire`, never pickled), or ``b"S"``
to stop. Results go into their workers' slots of the block, then one bell for
everything due at once (the results' eventfd, or an empty message); a result
as ``.npy`` bytes (both slots unread, or not a float64 vector) and an oracle
error go as records (``RECORD``) in one message on the pipe.
"""

from __future__ import annotations

import heapq
import os
import select
import struct
import time
import traceback
from typing import Any

import numpy as np

from gctheory.cluster.shm import BOARD, ERROR, INLINE, RECORD, Board, npy_bytes
from gctheory.cluster.wire import read_task_message
from gctheory.cluster.worker import OracleError, WorkerState, _single_thread

__all__ = ["group_main", "default_processes", "READY", "read_ready"]

#: a group's answer once its states are loaded, after ``b"R"``: its group number and pid
READY = struct.Struct("<qq")


def read_ready(data: bytes) -> tuple[int, int]:
    """``(group, pid)`` of a group's :data:`READY` answer; ValueError for anything else."""
    if len(data) != 1 + READY.size or data[:1] != b"R":
        raise ValueError(f"a worker process answered {len(data)} bytes, not its ready message")
    group, pid = READY.unpack_from(data, 1)
    return int(group), int(pid)


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
    """One group's state: pending results (by due time), queued tasks, the pipe, the bells."""

    def __init__(self, conn: Any, states: list[WorkerState], bells: Any = None) -> None:
        self.conn = conn
        self.states = {st.index: st for st in states}
        self.heap: list[tuple[float, int, int]] = []  # (due, seq, worker)
        self.pending: dict[int, tuple[int, int, Any, float, float]] = {}  # w: seq,t,y,comp,t1
        self.queued: dict[int, tuple[int, np.ndarray, float]] = {}  # non-preempt: next task
        self.seq = 0
        self.out: list[bytes] = []
        self.board: Board | None = None  # the master's shared block, once it names one
        self.members = np.array(sorted(self.states), dtype=np.int64)
        self.seen = np.zeros(len(self.members), dtype=np.int64)  # task numbers taken
        self.rung = False  # results written in the slots since the master was last told
        self.bells = bells  # (tasks, results) eventfds as Connections, or None: the pipe
        self.ep: Any = None
        if bells is not None:
            self.ep = select.epoll()
            self.ep.register(conn.fileno(), select.EPOLLIN)
            self.ep.register(bells[0].fileno(), select.EPOLLIN | select.EPOLLET)

    def wait(self, timeout: float | None) -> bool:
        """Until a message or a bell, or ``timeout`` s; whether something came."""
        if self.ep is None:
            return bool(self.conn.poll(timeout))
        ms = -1 if timeout is None else timeout
        return bool(self.ep.poll(ms))

    def run(self) -> None:
        conn = self.conn
        while True:
            self.flush()
            timeout = max(self.heap[0][0] - time.perf_counter(), 0.0) if self.heap else None
            if not self.wait(timeout):
                continue
            tasks: dict[int, tuple[int, np.ndarray | None, float, bool]] = {}
            received = time.perf_counter()
            while conn.poll():  # every message waiting: the newest task per worker supersedes
                got = self.read(conn.recv_bytes())
                if got is None:
                    return
                t, params, items, preempt = got
                for i, delay in items:
                    tasks.pop(i, None)  # keep the order of arrival of the newest
                    tasks[i] = (t, params, delay, preempt)
            if self.board is not None:
                self.scan(tasks)
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

    def scan(self, tasks: dict) -> None:
        """Add the new tasks of the shared block's table (the newest per worker)."""
        b = self.board
        assert b is not None
        numbers = b.task_no[self.members]
        params: dict[int, np.ndarray | None] = {}  # one copy per parameter version
        for j in np.flatnonzero(numbers > self.seen).tolist():
            i, number = int(self.members[j]), int(numbers[j])
            t, version = int(b.task_t[i]), int(b.task_ver[i])
            delay, preempt = float(b.task_delay[i]), bool(b.task_preempt[i])
            if b.task_no[i] != number:  # rewritten meanwhile: the newer one rings again
                continue
            self.seen[j] = number
            if version not in params:
                params[version] = b.get(version)
            tasks.pop(i, None)
            tasks[i] = (t, params[version], delay, preempt)

    def read(self, data: bytes) -> tuple[int, Any, list, bool] | None:
        """A message: tasks ``(t, params, [(worker, delay), ...], preempt)``; None: stop."""
        kind = data[:1]
        if kind == b"B":  # the shared block: its name, n and d
            n, d = BOARD.unpack_from(data, 1)
            if self.board is not None:
                self.board.close()
            self.board = Board(n, d, name=data[1 + BOARD.size :].decode())
            return -1, None, [], False
        if kind == b"W":  # (without eventfd) the table has new tasks
            return -1, None, [], False
        if kind == b"P":
            return read_task_message(data)  # the parameters decoded once, for its workers
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
        if self.out or (self.rung and self.bells is None):
            data, self.out = b"".join(self.out), []
            self.conn.send_bytes(data)  # (an empty message: look at the slots)
            self.rung = False
        if self.rung:
            os.eventfd_write(self.bells[1].fileno(), 1)
            self.rung = False
        for i in started:  # a non-preempted worker takes up the newest task it was sent
            self.start(i, *self.queued.pop(i))

    def result(self, i: int, t: int, y: Any, comp: float, slept: float) -> None:
        """Worker ``i``'s message: into its free slot of the shared block, else inline."""
        b = self.board
        vector = isinstance(y, np.ndarray) and y.dtype == np.float64 and y.ndim == 1
        if b is not None and vector and y.size <= b.d and b.put_result(i, t, y, comp, slept):
            self.rung = True
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


def group_main(conn: Any, group: int, bells: Any = None) -> None:
    """Entry point of a local worker process hosting a group of coded workers.

    Receives its workers' states once (from the master that started it), answers
    :data:`READY` (``b"R"``, its group number and process id: bytes, never a pickle),
    then runs the event loop (see the module docstring) until ``b"S"`` or
    the master's end of the pipe closes.
    """
    _single_thread()
    loop = None
    try:
        states: list[WorkerState] = conn.recv()
        conn.send_bytes(b"R" + READY.pack(group, os.getpid()))
        loop = _Loop(conn, states, bells)
        loop.run()
    except (EOFError, OSError, KeyboardInterrupt):
        return
    finally:
        if loop is not None and loop.board is not None:
            loop.board.close()
