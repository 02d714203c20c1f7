"""The MPI engine (mpi4py): rank 0 is the master, ranks 1..n the workers.

The field's convention (Tandon et al.'s and Raviv et al.'s code): launch
``mpiexec -n N+1 python -m gctheory.cli run --engine mpi ...``; every rank
parses the same arguments, rank 0 runs the master loop of
:func:`gctheory.cluster.run` and ranks ``1..n`` serve it
(:func:`serve_worker`). The master sends each worker its
:class:`~gctheory.cluster.worker.WorkerState` once, then per iteration the
parameters with a non-blocking send; it collects results with ``Iprobe``
(never blocking on one rank), like the ``Waitany`` loop of Tandon et al.
A worker preempted by the next iteration's parameters drops its result.

After the start-up (the states, pickled by the master for its own ranks, as the
local engine ships them to its processes) every message is bytes sent as an
MPI byte buffer, not a pickle: a task is a :func:`~gctheory.cluster.wire.task_message`
(``b"S"``: stop), and what a worker sends back is a value of
:mod:`gctheory.cluster.wire` (``("ready", worker, pid)``, ``("result", t, message,
compute s, slept s)``, ``("error", t, partition, detail)``, ``("bye", worker)``),
checked field by field before it is used.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from gctheory.cluster.base import Engine, Event
from gctheory.cluster.wire import decode_value, encode_value, read_task_message, task_message
from gctheory.cluster.worker import OracleError, WorkerState, _single_thread

__all__ = ["MPIEngine", "serve_worker", "is_worker_rank", "read_reply"]

_INIT, _TASK, _RESULT = 11, 12, 13
#: the task that tells a worker rank to stop
_STOP = b"S"
#: what a worker rank sends back: its kind, then the types of the fields after it
_FIELDS: dict[str, tuple[type | tuple[type, ...], ...]] = {
    "ready": (int, int),
    "result": (int, np.ndarray, float, float),
    "error": (int, int, str),
    "bye": (int,),
}


def _comm() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as exc:  # pragma: no cover - optional extra
        raise ImportError(
            'the mpi engine needs mpi4py and an MPI library: pip install "gctheory[mpi]" '
            "(and e.g. apt-get install openmpi-bin libopenmpi-dev)"
        ) from exc
    return MPI.COMM_WORLD


def is_worker_rank() -> bool:
    """True on ranks 1..size-1 of an MPI launch (False without mpi4py or on rank 0)."""
    try:
        return _comm().Get_rank() > 0
    except ImportError:
        return False


def _send(comm: Any, data: bytes, dest: int, tag: int) -> None:
    """``data`` to rank ``dest`` as an MPI byte buffer (blocking)."""
    from mpi4py import MPI

    comm.Send([data, MPI.BYTE], dest=dest, tag=tag)


def _recv(comm: Any, source: int, tag: int, probed: Any = None) -> tuple[bytes, int]:
    """The next message with ``tag`` from ``source``, as bytes; its source. ``probed``: the
    status of a probe that found it already (no second probe)."""
    from mpi4py import MPI

    st = probed
    if st is None:
        st = MPI.Status()
        comm.Probe(source=source, tag=tag, status=st)
    src = st.Get_source()
    buf = bytearray(st.Get_count(MPI.BYTE))
    comm.Recv([buf, MPI.BYTE], source=src, tag=tag)
    return bytes(buf), src


def read_reply(data: bytes, rank: int) -> tuple[Any, ...]:
    """A worker rank's message (see the module docstring), its fields checked; a ValueError
    naming the rank for anything else.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.cluster.mpi import read_reply
    >>> from gctheory.cluster.wire import encode_value
    >>> read_reply(encode_value(("bye", 2)), rank=3)
    ('bye', 2)
    >>> read_reply(encode_value(("bye", "2")), rank=3)
    Traceback (most recent call last):
    ...
    ValueError: MPI rank 3 sent a malformed message ('bye' with fields str)
    """
    msg = decode_value(data)
    kinds = (
        _FIELDS.get(msg[0]) if isinstance(msg, tuple) and msg and isinstance(msg[0], str) else None
    )
    if (
        kinds is None
        or len(msg) != 1 + len(kinds)
        or not all(isinstance(v, k) and not isinstance(v, bool) for v, k in zip(msg[1:], kinds))
    ):
        what = f"{msg[0]!r} with fields " if kinds is not None else ""
        types = ", ".join(type(v).__name__ for v in (msg[1:] if kinds else [msg]))
        raise ValueError(f"MPI rank {rank} sent a malformed message ({what}{types})")
    return tuple(msg)


def _next_task(comm: Any) -> tuple[int, Any, float, bool] | None:
    """The master's next task for this rank, ``(t, params, delay, preempt)``; None: stop."""
    data, _ = _recv(comm, 0, _TASK)
    if data == _STOP:
        return None
    t, params, items, preempt = read_task_message(data)
    return t, params, items[0][1], preempt


def serve_worker(poll_s: float = 5e-4) -> None:
    """Serve the master on this rank until it says stop (ranks 1..n)."""
    comm = _comm()
    _single_thread()
    state = comm.recv(source=0, tag=_INIT)  # the start-up: what this rank's master pickled
    if isinstance(state, tuple):  # ("stop",): a rank the run does not need
        return
    _send(comm, encode_value(("ready", state.index, os.getpid())), 0, _INIT)
    task = _next_task(comm)
    while True:
        while task is not None and comm.iprobe(source=0, tag=_TASK):
            task = _next_task(comm)  # superseded before it started
        if task is None:
            # last message of this rank: the master drains results up to it, so no
            # send of ours is left unmatched (a blocking send above the eager limit
            # would otherwise hang this rank, and MPI_Finalize with it)
            _send(comm, encode_value(("bye", state.index)), 0, _RESULT)
            return
        t, params, delay, preempt = task
        t0 = time.perf_counter()
        try:
            y = state.message(params, t)
        except OracleError as exc:
            _send(comm, encode_value(("error", t, int(exc.partition), str(exc.detail))), 0,
                  _RESULT)  # fmt: skip
            task = _next_task(comm)
            continue
        comp = time.perf_counter() - t0
        t1 = time.perf_counter()
        cancelled = False
        while time.perf_counter() - t1 < delay:
            if preempt and comm.iprobe(source=0, tag=_TASK):
                cancelled = True
                break
            time.sleep(min(poll_s, max(delay - (time.perf_counter() - t1), 0.0)))
        if not cancelled:
            reply = ("result", t, np.asarray(y), comp, time.perf_counter() - t1)
            _send(comm, encode_value(reply), 0, _RESULT)
        task = _next_task(comm)


class MPIEngine(Engine):
    """Workers on MPI ranks 1..size-1 (see the module docstring)."""

    name = "mpi"

    def __init__(self, start_timeout: float = 120.0) -> None:
        self.comm = _comm()
        self.max_workers = self.comm.Get_size() - 1
        self.start_timeout = float(start_timeout)
        self._reqs: list[Any] = []
        self._byes: set[int] = set()
        self._n = 0
        #: process ids of the worker ranks (rank ``i + 1`` runs worker ``i``), after start
        self.pids: list[int] = []

    @property
    def is_worker(self) -> bool:
        return self.comm.Get_rank() > 0

    def start(self, states: list[WorkerState]) -> None:
        self._n = len(states)
        self.pids = [0] * self._n
        for rank in range(self._n + 1, self.comm.Get_size()):  # ranks the run does not need
            self.comm.send(("stop",), dest=rank, tag=_INIT)
        for st in states:
            self.comm.send(st, dest=st.index + 1, tag=_INIT)
        deadline = time.monotonic() + self.start_timeout
        for st in states:
            while not self.comm.iprobe(source=st.index + 1, tag=_INIT):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"MPI rank {st.index + 1} did not start in time")
                time.sleep(1e-3)
            data, rank = _recv(self.comm, st.index + 1, _INIT)
            self.pids[st.index] = read_reply(data, rank)[2]

    def submit(self, worker: int, t: int, params: np.ndarray, delay: float, preempt: bool) -> int:
        data = task_message(t, encode_value(params), [(worker, float(delay))], preempt)
        self._isend(data, worker + 1)
        return len(data)

    def _isend(self, data: bytes, rank: int) -> None:
        """A task to ``rank`` without waiting; its bytes are kept until the send is done."""
        from mpi4py import MPI

        self._reqs.append((self.comm.Isend([data, MPI.BYTE], dest=rank, tag=_TASK), data))
        if len(self._reqs) > 4 * max(self._n, 1):
            self._reqs = [(r, d) for r, d in self._reqs if not r.Test()]

    def poll(self, timeout: float | None) -> list[Event]:
        from mpi4py import MPI

        end = time.perf_counter() + (timeout if timeout is not None else 1e9)
        events: list[Event] = []
        st = MPI.Status()
        while True:
            while self.comm.Iprobe(source=MPI.ANY_SOURCE, tag=_RESULT, status=st):
                data, src = _recv(self.comm, st.Get_source(), _RESULT, probed=st)
                msg = read_reply(data, src)
                now = time.perf_counter()
                if msg[0] == "result":
                    _, t, y, comp, slept = msg
                    events.append(Event("result", src - 1, t, now, y, comp, slept, len(data)))
                elif msg[0] == "bye":
                    self._byes.add(src - 1)
                else:
                    _, t, part, detail = msg
                    err = OracleError(src - 1, part, t, detail)
                    events.append(Event("error", src - 1, t, now, error=err))
            if events or time.perf_counter() >= end:
                return events
            time.sleep(2e-4)

    def close(self, drain_timeout: float = 10.0) -> None:
        """Tell every worker rank to stop, and receive what they still send until each says bye.

        A rank that does not say bye within ``drain_timeout`` seconds (hung, or
        its process gone) is named in a ``RuntimeWarning``; the job's
        ``MPI_Finalize`` may then wait for it.
        """
        import warnings

        for i in range(self._n):
            self._isend(_STOP, i + 1)
        end = time.monotonic() + drain_timeout
        while len(self._byes) < self._n and time.monotonic() < end:
            self.poll(0.05)  # late results are dropped here: the run is over
        missing = sorted(set(range(self._n)) - self._byes)
        if missing:
            warnings.warn(
                f"MPI rank(s) {[i + 1 for i in missing]} (worker(s) {missing}) did not stop "
                f"within {drain_timeout:g} s",
                RuntimeWarning,
                stacklevel=2,
            )
        else:
            for r, _ in self._reqs:
                r.Wait()
        self._reqs = []

    def where(self, worker: int) -> str:
        return f"MPI rank {worker + 1}"

    def describe(self) -> str:
        return f"mpi ({self._n} worker ranks)"
