"""Engines: where the workers run. Local processes, Dask distributed, (MPI in ``mpi.py``).

An engine starts ``n`` workers, ships each its :class:`~gctheory.cluster.worker.WorkerState`
once, sends a task (iteration ``t``, the parameters, the injected delay) to a
worker without waiting, and reports what came back through :meth:`Engine.poll`
as :class:`Event` objects: a result, an oracle error, or a dead worker. The
master (:mod:`gctheory.cluster.master`) never blocks on one worker: it polls
all of them with a timeout.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import select
import signal
import struct
import time
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as _wait
from typing import Any

import numpy as np

from gctheory.cluster.base import ENGINES, Engine, Event
from gctheory.cluster.dask_engine import DaskEngine
from gctheory.cluster.groups import default_processes, group_main, read_ready
from gctheory.cluster.processes import can_start_processes, process_context
from gctheory.cluster.shm import BOARD, RECORD, RESULT_SLOTS, Board, record_events
from gctheory.cluster.wire import encode_value, task_message
from gctheory.cluster.worker import WorkerState

__all__ = [
    "Event",
    "Engine",
    "LocalEngine",
    "DaskEngine",
    "ENGINES",
    "make_engine",
    "can_start_processes",
    "MAX_LOCAL_WORKERS",
]


#: Most coded workers the local engine accepts by default (``LocalEngine(max_workers=...)``
#: changes it). The master's own work grows with ``n`` (one arrival to read and book per
#: worker per iteration) on the cores the worker processes also need: about 10 us of master
#: CPU per coded worker per iteration on a 2-core machine (``benchmarks/bench_cluster.py``,
#: measured to n = 1024), so about 20 ms an iteration at 2048, as long as a 20 ms injected
#: wait: beyond it the master, not the delays, sets the pace.
MAX_LOCAL_WORKERS = 2048

#: the length before each message on a pipe (as ``multiprocessing``'s ``send_bytes`` writes it)
_HEAD = struct.Struct("!i")


#: bytes of one task in the shared block's table (its number, t, version, delay, preempt)
_TASK_BYTES = 40
#: the process number of the results' bell in the poller's table
_BELL = -1


class _Batch:
    """Tasks of one iteration sharing their parameters, per worker process."""

    __slots__ = ("t", "params", "preempt", "workers", "delays", "pp", "nb", "shm_workers",
                 "shm_delays")  # fmt: skip

    def __init__(self, t: int, params: Any, preempt: bool, processes: int) -> None:
        self.t, self.params, self.preempt = t, params, preempt
        self.workers: list[list[int]] = [[] for _ in range(processes)]
        self.delays: list[list[float]] = [[] for _ in range(processes)]
        self.pp: bytes | None = None  # the parameters encoded (None: in the shared block)
        self.nb = 0  # the bytes one task would take alone
        # tasks for the shared block's table, written together at the next send
        self.shm_workers: list[int] = []
        self.shm_delays: list[float] = []


def _too_many(n: int, limit: int) -> str:
    return (
        f"n={n} coded workers but the local engine runs at most max_workers={limit} (the "
        "master's per-iteration work grows with n on the cores the workers share); use "
        "n <= {limit} or LocalEngine(max_workers=...)"
    ).replace("{limit}", str(limit))


class LocalEngine(Engine):
    """Worker processes on this machine, each hosting a group of coded workers, one pipe each.

    Coded worker ``i`` runs in process ``i mod P`` (``P`` the processes), in
    that process's event loop (:mod:`gctheory.cluster.groups`): it computes
    its message, then its injected delay passes without a thread or CPU; the
    process keeps only its own workers' partitions. ``processes=n`` gives each
    coded worker a process of its own. The master writes an iteration's
    parameters and tasks once into shared memory and wakes every process with
    one write; the processes write their results into the block and wake the
    master (:mod:`gctheory.cluster.shm`).

    Parameters
    ----------
    context : {"forkserver", "spawn", "fork"}
        The multiprocessing start method (default ``forkserver``: the workers
        fork from a server that imported gctheory once; safe with threads).
    start_timeout : float
        Seconds to wait for every worker to report ready.
    processes : int, optional
        Worker processes (default ``min(n, 4 x cores)``; at most ``n``).
    max_workers : int, optional
        Most coded workers this engine accepts (default :data:`MAX_LOCAL_WORKERS`);
        a larger ``n`` is refused before any process starts.

    Attributes
    ----------
    pids : list of int
        Process id of each coded worker's process (to kill one in a fault
        test; the whole group it hosts dies with it).

    Examples
    --------
    >>> from gctheory.cluster import LocalEngine
    >>> engine = LocalEngine(context="spawn")  # processes start only in run()
    >>> from gctheory.cluster import run
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, engine=engine, iterations=20)
    """

    name = "local"
    max_workers: int | None = MAX_LOCAL_WORKERS
    #: wake the processes with one eventfd write (Linux); False: a message on each pipe
    _use_bells = True
    #: times the master yields its core to the worker processes before it blocks for results
    YIELDS = 2

    def __init__(
        self,
        context: str = "forkserver",
        start_timeout: float = 120.0,
        *,
        processes: int | None = None,
        max_workers: int | None = None,
    ) -> None:
        if context not in mp.get_all_start_methods():
            raise ValueError(
                f"context must be one of {mp.get_all_start_methods()}, got {context!r}"
            )
        for key, val in (("processes", processes), ("max_workers", max_workers)):
            if val is not None and (not isinstance(val, int) or isinstance(val, bool) or val < 1):
                raise ValueError(f"{key} must be a positive int or None, got {val!r}")
        self.context, self.start_timeout = context, float(start_timeout)
        self.processes = processes
        if max_workers is not None:
            self.max_workers = max_workers
        self.procs: list[Any] = []
        self.conns: list[Any] = []
        self.pids: list[int] = []
        self._group_of: list[int] = []  # coded worker -> process
        self._members: list[list[int]] = []  # process -> its coded workers
        self._dead: set[int] = set()  # coded workers
        self._gone: set[int] = set()  # processes
        self._pending_dead: list[int] = []
        self._batches: list[_Batch] = []  # tasks queued, sent at the next poll
        self._batch: _Batch | None = None  # the one submit adds to
        self._board: Board | None = None  # the shared block (made at the first vector task)
        self._poller: Any = None  # select.epoll over every pipe and process sentinel
        self._bufs: list[bytes] = []  # per process: bytes read, not yet a whole message
        self._pfds: list[int] = []  # per process: its pipe's file descriptor
        self._fds: dict[int, tuple[bool, int]] = {}  # fd -> (is a sentinel, process)
        self._bells: tuple[Any, Any] | None = None  # eventfds: tasks are there, results are
        self._rings = False  # tasks written in the shared block, the groups not yet told

    def _spawn(self, ctx: Any, states: list[WorkerState]) -> None:
        n = len(states)
        P = min(self.processes or default_processes(n), n)
        self._group_of = [i % P for i in range(n)]
        self._members = [list(range(g, n, P)) for g in range(P)]
        bells = None
        if self._use_bells and hasattr(os, "eventfd") and hasattr(select, "epoll"):
            flags = os.EFD_NONBLOCK | os.EFD_CLOEXEC
            self._bells = bells = (Connection(os.eventfd(0, flags)),
                                   Connection(os.eventfd(0, flags)))  # fmt: skip
        for g in range(P):
            parent, child = ctx.Pipe(duplex=True)
            p = ctx.Process(target=group_main, args=(child, g, bells), daemon=True)
            p.start()
            child.close()
            self.procs.append(p)
            self.conns.append(parent)

    def start(self, states: list[WorkerState]) -> None:
        # the master refuses earlier (before building the states); a direct start here
        if self.max_workers is not None and len(states) > self.max_workers:
            raise ValueError(_too_many(len(states), self.max_workers))
        self._spawn(process_context(self.context), states)
        for g, conn in enumerate(self.conns):
            try:
                conn.send([states[i] for i in self._members[g]])
            except (BrokenPipeError, OSError):
                code = self.procs[g].exitcode
                self.close()
                raise RuntimeError(
                    f"local worker process {g} exited while starting (exit code {code}); with "
                    f"the {self.context!r} start method a script must start the run under "
                    "`if __name__ == '__main__':` (multiprocessing re-imports the main module)"
                ) from None
        deadline = time.monotonic() + self.start_timeout
        gpids = [0] * len(self.conns)
        for g, conn in enumerate(self.conns):
            left = deadline - time.monotonic()
            if left <= 0 or not conn.poll(left):
                self.close()
                raise TimeoutError(
                    f"local worker process {g} did not start within {self.start_timeout:g} s"
                )
            _, gpids[g] = read_ready(conn.recv_bytes())
        self.pids = [gpids[g] for g in self._group_of]
        self._bufs = [b""] * len(self.conns)
        self._pfds = [conn.fileno() for conn in self.conns]
        if hasattr(select, "epoll"):  # registered once: a wait costs O(ready), not O(P)
            self._poller = select.epoll()
            for g, (conn, p) in enumerate(zip(self.conns, self.procs)):
                for fd, is_sentinel in ((conn.fileno(), False), (p.sentinel, True)):
                    self._poller.register(fd, select.EPOLLIN)
                    self._fds[fd] = (is_sentinel, g)
            if self._bells is not None:
                self._poller.register(self._bells[1].fileno(), select.EPOLLIN | select.EPOLLET)
                self._fds[self._bells[1].fileno()] = (False, _BELL)

    def submit(self, worker: int, t: int, params: np.ndarray, delay: float, preempt: bool) -> int:
        """Queue the task for its process (sent at the next :meth:`poll`); return the bytes
        the task would take on its own pipe."""
        if worker in self._dead:
            return 0
        b = self._batch
        if b is None or b.t != t or b.params is not params or b.preempt != bool(preempt):
            b = self._new_batch(t, params, bool(preempt))
        if b.pp is None:  # into the shared block's table (at the next send): one bell for all
            b.shm_workers.append(worker)
            b.shm_delays.append(float(delay))
            self._rings = True
        else:
            g = self._group_of[worker]
            b.workers[g].append(worker)
            b.delays[g].append(float(delay))
        return b.nb

    def _new_batch(self, t: int, params: Any, preempt: bool) -> _Batch:
        """The tasks of one iteration that share ``params``: written once in the shared block
        (see :mod:`~gctheory.cluster.shm`) when they are a float64 vector, else encoded once
        (:mod:`~gctheory.cluster.wire`)."""
        if self._batch is not None and self._batch.shm_workers:
            self._write_table(self._batch)
        b = _Batch(t, params, preempt, len(self._members))
        board = self._board
        if isinstance(params, np.ndarray) and params.dtype == np.float64 and params.ndim == 1:
            if board is None:
                board = self._board = self._make_board(params.size)
            if params.size == board.d:
                b.nb = _HEAD.size + _TASK_BYTES + params.nbytes  # as if sent alone
                self._batch = b
                return b
        b.pp = encode_value(params)
        b.nb = len(task_message(t, b.pp, [(0, 0.0)], preempt))
        self._batches.append(b)
        self._batch = b
        return b

    def _write_table(self, b: _Batch) -> None:
        """Batch ``b``'s queued tasks into the shared block's table, together."""
        ws, delays, b.shm_workers, b.shm_delays = b.shm_workers, b.shm_delays, [], []
        if len(set(ws)) < len(ws):  # a worker sent two tasks before a send: the newer holds
            last = dict(zip(ws, delays))
            ws, delays = list(last), list(last.values())
        board = self._board
        assert board is not None, "a batch for the table is made with the block"
        board.tasks(np.array(ws), b.t, b.params, np.array(delays, float), b.preempt)

    def _make_board(self, d: int) -> Board:
        """The shared block, named to every process."""
        board = Board(len(self._group_of), d)
        self._each(b"B" + BOARD.pack(board.n, board.d) + board.name.encode())
        return board

    def _send(self) -> None:
        """Tell the processes of their new tasks: one bell for the shared block's (or a
        message to each process without eventfd), one message per process and batch else."""
        if self._rings:
            self._rings = False
            if self._batch is not None and self._batch.shm_workers:
                self._write_table(self._batch)
            if self._bells is not None:
                os.eventfd_write(self._bells[0].fileno(), 1)
            else:
                self._each(b"W")
        if not self._batches:
            return
        batches, self._batches = self._batches, []
        if self._batch in batches:
            self._batch = None
        for b in batches:
            assert b.pp is not None, "a batch for the pipes has its parameters encoded"
            for g, ws in enumerate(b.workers):
                if not ws or g in self._gone:
                    continue
                data = task_message(b.t, b.pp, list(zip(ws, b.delays[g])), b.preempt)
                try:
                    self._write(g, data)
                except (BrokenPipeError, OSError):
                    self._lose(g)

    def _each(self, msg: bytes) -> None:
        for g in range(len(self.conns)):
            if g not in self._gone:
                try:
                    self._write(g, msg)
                except (BrokenPipeError, OSError):
                    self._lose(g)

    def _lose(self, g: int) -> None:
        """Process ``g`` is gone: each of its live coded workers is reported dead."""
        self._gone.add(g)
        if self._poller is not None:
            for fd in [fd for fd, (_, h) in self._fds.items() if h == g]:
                self._poller.unregister(fd)
                del self._fds[fd]
        for i in self._members[g]:
            if i not in self._dead:
                self._dead.add(i)
                self._pending_dead.append(i)

    def poll(self, timeout: float | None) -> list[Event]:
        if self._rings or self._batches:
            self._send()
        if self._pending_dead:
            return self._dead_events(time.perf_counter())
        if len(self._gone) >= len(self.conns):
            time.sleep(timeout or 0)
            return []
        ready = self._ready(timeout)
        now = time.perf_counter()
        events: list[Event] = []
        died = []
        for is_sentinel, g in ready:
            if is_sentinel:
                died.append(g)
                continue
            if g == _BELL:  # results in the slots (read below; edge-triggered: no reset)
                continue
            try:
                for data in self._read(g):
                    events.extend(self._events(data, now))
            except (EOFError, OSError):
                died.append(g)
        events.extend(self._slot_events(now))
        for g in sorted(set(died)):
            if g in self._gone:
                continue
            conn = self.conns[g]
            try:  # whatever it sent before dying still counts
                while conn.poll():
                    for data in self._read(g):
                        events.extend(self._events(data, now))
            except (EOFError, OSError):
                pass
            events.extend(self._slot_events(now))
            self._lose(g)
        return events + self._dead_events(now)

    def _ready(self, timeout: float | None) -> list[tuple[bool, int]]:
        """``(is a sentinel, process)`` of each pipe with data and each ended process."""
        if self._poller is None:  # no select.epoll (not Linux): multiprocessing's wait
            live = [g for g in range(len(self.conns)) if g not in self._gone]
            objs = {self.conns[g]: (False, g) for g in live}
            objs.update({self.procs[g].sentinel: (True, g) for g in live})
            return [objs[o] for o in _wait(list(objs), timeout)]
        if self._board is not None and timeout != 0 and self._yield_for_results():
            timeout = 0.0  # results are in the slots: a look at the pipes, no wait
        ms = None if timeout is None else max(math.ceil(timeout * 1e3), 0)
        try:
            got = self._poller.poll(-1 if ms is None else ms / 1e3)
        except InterruptedError:  # pragma: no cover - retried by Python (PEP 475)
            got = []
        return [self._fds[fd] for fd, _ in got if fd in self._fds]

    def _yield_for_results(self) -> bool:
        """Before blocking: give the core up to :attr:`YIELDS` times to a runnable worker
        process (one the bell woke, whose result is moments away) and look at the slots after
        each; whether results came. A wait in the kernel and the wake-up after it cost the
        master tens of microseconds of CPU; a yield costs about one, and returns at once when
        no other process wants this core (the injected delays are sleeping)."""
        board = self._board
        assert board is not None
        for _ in range(self.YIELDS):
            os.sched_yield()
            if board.has_results():
                return True
        return False

    def _dead_events(self, now: float) -> list[Event]:

        pend, self._pending_dead = self._pending_dead, []
        return [Event("dead", i, -1, now, error=self._why_dead(i)) for i in pend]

    def _why_dead(self, i: int) -> str:
        """How worker ``i``'s process ended. Its pipe can close before the process is
        reaped, when ``exitcode`` is still None: reap it first (a short wait)."""
        p = self.procs[self._group_of[i]]
        p.join(timeout=2.0)
        code = p.exitcode
        if code is None:
            return f"process {self.pids[i]} closed its pipe but is still running"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"process {self.pids[i]} was killed by {name} (exit code {code})"
        return f"process {self.pids[i]} exited (exit code {code})"

    def _read(self, g: int) -> list[bytes]:
        """The whole messages process ``g`` has sent, in one read of its pipe (the framing of
        ``Connection.send_bytes``: a 4-byte big-endian length, then the bytes)."""
        chunk = os.read(self._pfds[g], 1 << 20)
        if not chunk:
            raise EOFError
        buf = self._bufs[g] + chunk if self._bufs[g] else chunk
        out, pos, end = [], 0, len(buf)
        while end - pos >= 4:
            (size,) = _HEAD.unpack_from(buf, pos)
            if size < 0 or end - pos - 4 < size:  # (size -1: an 8-byte length, never here)
                break
            out.append(buf[pos + 4 : pos + 4 + size])
            pos += 4 + size
        self._bufs[g] = buf[pos:]
        return out

    def _write(self, g: int, data: bytes) -> None:
        """One message to process ``g`` (``Connection.send_bytes``'s framing)."""
        data = _HEAD.pack(len(data)) + data
        fd = self._pfds[g]
        done = os.write(fd, data)
        if done < len(data):  # a long message: the rest as the pipe takes it
            view = memoryview(data)[done:]
            while view:
                view = view[os.write(fd, view) :]

    def _slot_events(self, now: float) -> list[Event]:
        """The results written in the shared block's slots since the last look, in the
        order they were written."""
        board = self._board
        if board is None:
            return []
        new = board.new_results()
        if not new.size:
            return []
        nb = RECORD.size
        done = board.produced[new]
        if (done - board.consumed[new] == 1).all():  # one result each: read at once
            k = (done - 1) % RESULT_SLOTS
            heads, msgs = board.res_head[new, k], board.results[new, k]
            board.consumed[new] = done
            order = heads[:, 4].argsort(kind="stable")  # in the order written
            return [Event("result", i, int(t), now, msgs[j, : int(size)], comp, slept,
                          nb + 8 * int(size))
                    for j, i, (t, comp, slept, size, _) in zip(order.tolist(), new[order].tolist(),
                                                              heads[order].tolist())]  # fmt: skip
        rows = [(at, i, t, comp, slept, y) for i in new.tolist()
                for at, t, comp, slept, y in board.take(i)]  # fmt: skip
        rows.sort(key=lambda r: r[0])
        return [Event("result", i, t, now, y, comp, slept, nb + y.nbytes)
                for _, i, t, comp, slept, y in rows]  # fmt: skip

    def _events(self, data: bytes, now: float) -> list[Event]:
        """The events in one message of a worker process (see :mod:`~gctheory.cluster.groups`)."""
        return record_events(data, now)

    def close(self) -> None:
        try:
            for conn in self.conns:
                try:
                    conn.send_bytes(b"S")
                except (BrokenPipeError, OSError):
                    pass
            for p in self.procs:
                p.join(timeout=2.0)
                if p.is_alive():
                    p.kill()
                    p.join(timeout=2.0)
            for conn in self.conns:
                conn.close()
        finally:  # the shared block goes whatever happened
            if self._board is not None:
                self._board.unlink()
                self._board = None
            if self._bells is not None:
                for bell in self._bells:
                    bell.close()
                self._bells = None
            self._batches, self._batch = [], None
            self.procs, self.conns = [], []
            if self._poller is not None and hasattr(self._poller, "close"):
                self._poller.close()
            self._poller, self._fds = None, {}

    def describe(self) -> str:
        P, n = len(self._members), len(self._group_of)
        if P == n:
            return f"local ({self.context}, {P} processes)"
        return f"local ({self.context}, {P} processes hosting {n} coded workers)"

    def where(self, worker: int) -> str:
        return f"process {self.pids[worker]}" if worker < len(self.pids) else f"worker {worker}"


def make_engine(engine: Any, network: Any = None) -> Engine:
    """An :class:`Engine` from ``"local"``, ``"dask"``, ``"dask=ADDRESS"``, ``"mpi"``, or as is.

    Parameters
    ----------
    engine : str or Engine
        ``"local"``, ``"dask"``, ``"dask=ADDRESS"``, ``"mpi"``, or an engine.
    network : NetworkSpec or str, optional
        A rate-limited network (:mod:`gctheory.cluster.network`): the ``"dask"``
        engine only (its workers run in the network's namespaces).

    Returns
    -------
    Engine
        An engine, not started.

    Raises
    ------
    ValueError
        An unknown name.

    Examples
    --------
    >>> from gctheory.cluster import make_engine
    >>> type(make_engine("local")).__name__, type(make_engine("dask")).__name__
    ('LocalEngine', 'DaskEngine')
    """
    if network is not None:
        if engine != "dask":
            raise ValueError(
                f"network= runs on the 'dask' engine (workers in namespaces), got {engine!r}"
            )
        return DaskEngine(network=network)
    if isinstance(engine, Engine):
        return engine
    if isinstance(engine, str):
        name, _, arg = engine.partition("=")
        if name == "local" and not arg:
            return LocalEngine()
        if name == "dask":
            return DaskEngine(arg or None)
        if name == "mpi" and not arg:
            from gctheory.cluster.mpi import MPIEngine

            return MPIEngine()
    raise ValueError(
        f"unknown engine {engine!r}; valid engines: "
        + "; ".join(f"{k}: {v}" for k, v in ENGINES.items())
    )
