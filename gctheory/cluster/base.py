"""What the cluster modules share: the engine interface, its events, the trace statuses.

The bottom of :mod:`gctheory.cluster`: :mod:`~gctheory.cluster.engines`,
:mod:`~gctheory.cluster.mpi`, :mod:`~gctheory.cluster.master` and
:mod:`~gctheory.cluster.trace` import from here and never from each other
in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory.cluster.worker import WorkerState

__all__ = ["ENGINES", "STATUSES", "Engine", "Event"]

#: what became of each worker's task in an iteration (the trace's ``status`` column)
STATUSES = ("never", "used", "unused", "late", "error", "dead")
NEVER, USED, UNUSED, LATE, ERROR, DEAD = range(6)

#: Engine names accepted by ``run(engine=...)``, each with a one-line description.
ENGINES = {
    "local": "worker processes on this machine (multiprocessing; the default)",
    "dask": "a Dask distributed cluster: 'dask' (a LocalCluster) or 'dask=tcp://HOST:PORT'",
    "mpi": "MPI ranks under mpiexec (mpi4py): rank 0 is the master, ranks 1..n the workers",
}


@dataclass
class Event:
    """Something a worker reported.

    ``kind`` is ``"result"`` (``message``, ``compute_s``, ``slept_s``,
    ``nbytes``: the size of what crossed the wire), ``"error"`` (``error``: an
    :class:`OracleError`) or ``"dead"`` (``error``: why). ``at`` is the
    master's ``time.perf_counter()`` when it saw the event. A result of an
    iteration the master has left may come without its ``message`` (None): the
    trace needs when it came, not what (the Dask engine does not gather it).

    Parameters
    ----------
    kind : {"result", "error", "dead"}
        What happened.
    worker : int
        The worker.
    t : int
        The iteration.
    at : float
        The master's ``time.perf_counter()`` when it saw the event.
    message : numpy.ndarray, optional
        The worker's message.
    compute_s, slept_s : float
        Seconds computing and sleeping (injected delay).
    nbytes : int
        Bytes on the wire.
    error : object
        The error, for ``"error"`` and ``"dead"``.
    sent_at : float
        The worker's ``time.perf_counter()`` when its message left (nan where the
        engine does not say): ``at - sent_at`` is the measured transfer time, the
        monotonic clock being one for every process of the machine.

    Examples
    --------
    >>> from gctheory.cluster import Event
    >>> e = Event("result", worker=2, t=0, at=0.5, compute_s=0.01)
    >>> e.kind, e.worker, e.message is None
    ('result', 2, True)
    """

    kind: str
    worker: int
    t: int
    at: float
    message: np.ndarray | None = None
    compute_s: float = float("nan")
    slept_s: float = float("nan")
    nbytes: int = 0
    error: Any = None
    sent_at: float = float("nan")


class Engine:
    """Base class of the engines (see the module docstring).

    Examples
    --------
    >>> from gctheory.cluster import Engine, make_engine
    >>> isinstance(make_engine("local"), Engine)  # nothing starts until run() calls start()
    True
    """

    name = "engine"
    #: most workers the engine can run (None: no limit)
    max_workers: int | None = None

    def start(self, states: list[WorkerState]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def submit(self, worker: int, t: int, params: np.ndarray, delay: float, preempt: bool) -> int:
        """Send a task; return the bytes sent. Never waits for the worker."""
        raise NotImplementedError  # pragma: no cover

    def poll(self, timeout: float | None) -> list[Event]:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:
        return self.name

    def tasks_per_slot(self) -> int:
        """Most coded workers that share one execution slot (a Dask worker thread), after
        :meth:`start`: above 1 their tasks queue, and a measured iteration is not the
        order statistic the theory predicts. 1 where every worker has its own process."""
        return 1

    def where(self, worker: int) -> str:
        """Where ``worker`` runs, for messages (a process id, an MPI rank, a Dask address)."""
        return f"worker {worker}"

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
