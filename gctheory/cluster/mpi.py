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
"""

from __future__ import annotations

import os
import pickle
import time
from typing import Any

import numpy as np

from gctheory.cluster.base import Engine, Event
from gctheory.cluster.worker import OracleError, WorkerState, _single_thread

__all__ = ["MPIEngine", "serve_worker", "is_worker_rank"]

_INIT, _TASK, _RESULT = 11, 12, 13


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


def serve_worker(poll_s: float = 5e-4) -> None:
    """Serve the master on this rank until it says stop (ranks 1..n)."""
    comm = _comm()
    _single_thread()
    state = comm.recv(source=0, tag=_INIT)
    if not isinstance(state, WorkerState):  # a rank the run does not need
        return
    comm.send(("ready", state.index, os.getpid()), dest=0, tag=_INIT)
    task = comm.recv(source=0, tag=_TASK)
    while True:
        while task[0] == "task" and comm.iprobe(source=0, tag=_TASK):
            task = comm.recv(source=0, tag=_TASK)  # superseded before it started
        if task[0] != "task":
            # last message of this rank: the master drains results up to it, so no
            # send of ours is left unmatched (a blocking send above the eager limit
            # would otherwise hang this rank, and MPI_Finalize with it)
            comm.send(("bye", state.index), dest=0, tag=_RESULT)
            return
        _, t, params, delay, preempt = task
        t0 = time.perf_counter()
        try:
            y = state.message(params, t)
        except OracleError as exc:
            comm.send(("error", t, exc), dest=0, tag=_RESULT)
            task = comm.recv(source=0, tag=_TASK)
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
            comm.send(("result", t, y, comp, time.perf_counter() - t1), dest=0, tag=_RESULT)
        task = comm.recv(source=0, tag=_TASK)


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
            self.pids[st.index] = self.comm.recv(source=st.index + 1, tag=_INIT)[2]

    def submit(self, worker: int, t: int, params: np.ndarray, delay: float, preempt: bool) -> int:
        data = ("task", t, params, float(delay), bool(preempt))
        self._reqs.append(self.comm.isend(data, dest=worker + 1, tag=_TASK))
        if len(self._reqs) > 4 * max(self._n, 1):
            self._reqs = [r for r in self._reqs if not r.Test()]
        return len(pickle.dumps(data, protocol=5))

    def poll(self, timeout: float | None) -> list[Event]:
        from mpi4py import MPI

        end = time.perf_counter() + (timeout if timeout is not None else 1e9)
        events: list[Event] = []
        st = MPI.Status()
        while True:
            while self.comm.iprobe(source=MPI.ANY_SOURCE, tag=_RESULT, status=st):
                src, nbytes = st.Get_source(), st.Get_count()
                msg = self.comm.recv(source=src, tag=_RESULT)
                now = time.perf_counter()
                if msg[0] == "result":
                    _, t, y, comp, slept = msg
                    events.append(Event("result", src - 1, t, now, y, comp, slept, nbytes))
                elif msg[0] == "bye":
                    self._byes.add(src - 1)
                else:
                    events.append(Event("error", src - 1, msg[1], now, error=msg[2]))
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
            self._reqs.append(self.comm.isend(("stop",), dest=i + 1, tag=_TASK))
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
            for r in self._reqs:
                r.Wait()
        self._reqs = []

    def where(self, worker: int) -> str:
        return f"MPI rank {worker + 1}"

    def describe(self) -> str:
        return f"mpi ({self._n} worker ranks)"
